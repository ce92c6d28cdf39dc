"""Notebook 08's widget and the functions behind it, driven kernel-side (no browser)."""

import numpy as np
import pytest
import torch

from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import AFFNIST, CapsNet
from capsedu.data import transformed_mnist as tm
from capsedu.robustness import sweep_accuracy, viewpoint_state
from capsedu.widgets import ViewpointExplorer


@pytest.fixture(scope="module")
def pair():
    torch.manual_seed(0)
    return CapsNet(AFFNIST, decoder_hidden=(16,)).eval(), MaxPoolCNN(hidden=(16,)).eval()


def digits(n=3):
    x = torch.zeros(n, 1, 28, 28)
    x[:, 0, 6:22, 12:16] = 1.0  # an upright bar, a stand-in "1"
    return x, torch.ones(n, dtype=torch.long)


def test_viewpoint_state_shows_what_both_models_see(pair):
    capsnet, cnn = pair
    x, _ = digits(1)
    s = viewpoint_state(capsnet, cnn, x[0], rotation=90.0, dx=5.0)
    torch.testing.assert_close(torch.from_numpy(s["image"]),
                               tm.affine(x, rotation=90.0, tx=5.0)[0, 0])
    with torch.no_grad():
        out = capsnet(tm.affine(x, rotation=90.0, tx=5.0))
        probabilities = torch.softmax(cnn(tm.affine(x, rotation=90.0, tx=5.0)), 1)[0]
    np.testing.assert_allclose(s["lengths"], out.lengths[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(s["probabilities"].sum(), 1.0, atol=1e-5)
    np.testing.assert_allclose(s["probabilities"], probabilities.numpy(), atol=1e-6)
    assert s["capsnet_prediction"] == int(np.argmax(s["lengths"]))
    assert s["reconstruction"].shape == (40, 40)
    # a turned bar lies across the canvas: its ink spans more columns than rows
    cols, rows = (s["image"] > 0.5).any(0).sum(), (s["image"] > 0.5).any(1).sum()
    assert cols > rows


def test_widget_sliders_change_the_state_and_reset_restores_it(pair):
    capsnet, cnn = pair
    x, y = digits(2)
    w = ViewpointExplorer(capsnet, cnn, x, y)
    upright = w.state["image"].copy()
    w.sliders["rotation"].value = 45.0
    assert w.state["transform"]["rotation"] == 45.0
    assert not np.allclose(w.state["image"], upright)
    assert "turned +45°" in w.readout.value
    w.sliders["dx"].value = 6.0
    assert w.state["transform"]["dx"] == 6.0
    w.reset()
    np.testing.assert_array_equal(w.state["image"], upright)
    assert w.state["transform"] == {"rotation": 0.0, "shear": 0.0, "scale": 1.0, "dx": 0.0,
                                    "dy": 0.0}
    w.digit.value = 1
    assert w.state["label"] == 1 and w.image.value  # a PNG was drawn


def test_sweep_accuracy_scores_each_value():
    class Upright(torch.nn.Module):
        """Says 1 when the ink is taller than wide, else 0: right only near upright."""

        def predict(self, x):
            ink = x[:, 0] > 0.5
            return (ink.any(2).sum(1) > ink.any(1).sum(1)).long()

    x, y = digits(4)
    accuracies = sweep_accuracy(Upright(), x, y, "rotation", [0.0, 90.0])
    assert accuracies == [1.0, 0.0]

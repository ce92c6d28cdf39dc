"""Notebook 08's widget and the functions behind it, driven kernel-side (no browser)."""

import numpy as np
import pytest
import torch

from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import AFFNIST, CapsNet
from capsedu.data import transformed_mnist
from capsedu.robustness import sweep_accuracy
from capsedu.viewpoint_states import overlap_state, viewpoint_state
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
    torch.testing.assert_close(torch.from_numpy(s.image),
                               transformed_mnist.affine(x, rotation=90.0, tx=5.0)[0, 0])
    with torch.no_grad():
        out = capsnet(transformed_mnist.affine(x, rotation=90.0, tx=5.0))
        probabilities = torch.softmax(cnn(transformed_mnist.affine(x, rotation=90.0, tx=5.0)), 1)[0]
    np.testing.assert_allclose(s.lengths, out.lengths[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(s.probabilities.sum(), 1.0, atol=1e-5)
    np.testing.assert_allclose(s.probabilities, probabilities.numpy(), atol=1e-6)
    assert s.capsnet_prediction == int(np.argmax(s.lengths))
    assert s.reconstruction.shape == (40, 40)
    # a turned bar lies across the canvas: its ink spans more columns than rows
    cols, rows = (s.image > 0.5).any(0).sum(), (s.image > 0.5).any(1).sum()
    assert cols > rows


def test_widget_sliders_change_the_state_and_reset_restores_it(pair):
    capsnet, cnn = pair
    x, y = digits(2)
    w = ViewpointExplorer(capsnet, cnn, x, y)
    upright = w.state.image.copy()
    w.sliders["rotation"].value = 45.0
    assert w.state.rotation == 45.0
    assert not np.allclose(w.state.image, upright)
    assert "turned +45°" in w.readout.value
    w.sliders["dx"].value = 6.0
    assert w.state.dx == 6.0
    w.reset()
    np.testing.assert_array_equal(w.state.image, upright)
    s = w.state
    assert (s.rotation, s.shear, s.scale, s.dx, s.dy) == (0.0, 0.0, 1.0, 0.0, 0.0)
    w.digit.value = 1
    assert w.label == 1 and w.image.value  # a PNG was drawn


def test_sweep_accuracy_scores_each_value():
    class Upright(torch.nn.Module):
        """Says 1 when the ink is taller than wide, else 0: right only near upright."""

        def predict(self, x):
            ink = x[:, 0] > 0.5
            return (ink.any(2).sum(1) > ink.any(1).sum(1)).long()

    x, y = digits(4)
    accuracies = sweep_accuracy(Upright(), x, y, "rotation", [0.0, 90.0])
    assert accuracies == [1.0, 0.0]


@pytest.fixture(scope="module")
def two_digit_pair():
    from capsedu.multi_digit import MultiDigitCapsNet, TwoDigitCNN

    torch.manual_seed(0)
    return (MultiDigitCapsNet(decoder_hidden=(16,)).eval(),
            TwoDigitCNN(channels=(4, 4, 4), hidden=(16,)).eval())


def test_overlap_state_overlays_the_two_digits_and_reads_both_models(two_digit_pair):
    capsnet, cnn = two_digit_pair
    x, _ = digits(1)
    other = torch.zeros(1, 28, 28)
    other[0, 12:16, 6:22] = 1.0  # a flat bar
    s = overlap_state(capsnet, cnn, x[0], other, dx=3, dy=-2)
    assert s.pair.shape == (36, 36) and s.parts.shape == (2, 36, 36)
    np.testing.assert_array_equal(s.pair, s.parts.max(axis=0))  # pixel-wise maximum
    # the first digit sits at the centre, the second moved by (3, -2)
    np.testing.assert_array_equal(s.parts[0][4:32, 4:32], x[0, 0].numpy())
    np.testing.assert_array_equal(s.parts[1][2:30, 7:35], other[0].numpy())
    pair = torch.from_numpy(s.pair)[None, None]
    lengths, read, recon = capsnet.reconstruct_each(pair)
    assert s.capsnet_read == read[0].tolist() and s.cnn_read == cnn.predict(pair)[0].tolist()
    np.testing.assert_allclose(s.reconstructions, recon[0, :, 0].numpy(), atol=1e-6)
    assert 0 < s.overlap <= 1
    with pytest.raises(ValueError,
                       match=r"overlap_state\(\): dx must be an integer >= -4 and <= 4 .*got 5"):
        overlap_state(capsnet, cnn, x[0], other, dx=5)


def test_overlap_widget_moves_the_second_digit(two_digit_pair):
    from capsedu.figures.digit_images import two_colour
    from capsedu.widgets import OverlapExplorer

    capsnet, cnn = two_digit_pair
    x, _ = digits(2)
    x[1, 0] = x[1, 0].T.clone()  # a flat bar: another "class"
    w = OverlapExplorer(capsnet, cnn, x, torch.tensor([1, 7]))
    assert w.second.value == 1 and w.truth == [1, 7]
    before = w.state.pair.copy()
    w.sliders["dx"].value = 4
    assert not np.array_equal(w.state.pair, before) and w.image.value
    assert "true: 1 and 7" in w.readout.value
    # two colours: where only the first reconstruction has ink the pixel is orange-ish
    only_first = two_colour(np.stack([np.ones((2, 2)), np.zeros((2, 2))]))
    np.testing.assert_allclose(only_first[0, 0], [1.0, 0.498, 0.055], atol=0.01)


def test_overlap_widget_refuses_digits_all_of_one_class_and_names_a_pair_of_one(two_digit_pair):
    from capsedu.widgets import OverlapExplorer

    capsnet, cnn = two_digit_pair
    x, _ = digits(3)
    x[2] = x[2].roll(2, dims=-1)  # another digit of the first one's class
    with pytest.raises(ValueError, match=r"OverlapExplorer\(\): labels must hold digits of at "
                                         r"least two classes .*got only \[3\]"):
        OverlapExplorer(capsnet, cnn, x[:2], torch.tensor([3, 3]))  # no pair could differ
    w = OverlapExplorer(capsnet, cnn, x, torch.tensor([3, 5, 3]))
    assert w.second.value == 1  # the first digit of another class
    w.second.value = 2  # the learner picks two digits of one class: drawn, and said so
    assert w.truth == [3] and "the same class twice" in w.readout.value
    before = w.state
    w.first.value = w.second.value  # one digit picked twice: the last pair stays, named so
    assert w.state is before and "a digit overlaid on itself is no pair" in w.readout.value

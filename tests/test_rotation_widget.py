"""Notebook 10's widget and the function behind it, driven kernel-side (no browser), with
untrained models: equivariance is a property of the architecture, not of training."""

import numpy as np
import pytest
import torch

from capsedu.data import transformed_mnist
from capsedu.equivariance import rotation_state
from capsedu.gcnn import C4CNN, PlainCNN
from capsedu.group_conv import rotate_c4
from capsedu.widgets import RotationExplorer


@pytest.fixture(scope="module")
def pair():
    torch.manual_seed(0)
    return C4CNN(channels=(4, 4, 4, 8)).eval(), PlainCNN(channels=(8, 8, 8, 16)).eval()


def digits(n=2):
    x = torch.zeros(n, 1, 28, 28)
    x[:, 0, 6:22, 12:16] = 1.0  # an upright bar with a foot: no quarter turn maps it onto itself
    x[:, 0, 19:22, 16:20] = 1.0
    return x, torch.arange(n)


@pytest.mark.parametrize("rotation, r", [(90.0, 1), (180.0, 2), (270.0, 3)])
def test_at_quarter_turns_the_gcnn_maps_turn_and_cycle_and_the_cnn_maps_do_not(pair, rotation,
                                                                              r):
    gcnn, cnn = pair
    x, _ = digits(1)
    s = rotation_state(gcnn, cnn, x[0], rotation, layer=1, channel=2)
    assert s.quarter_turns == r
    with torch.no_grad():
        upright = gcnn.features(x)[1]  # [1, 4, 4, 14, 14]
        cnn_upright = cnn.features(x)[1]  # [1, 8, 14, 14]
    # the four rotation channels of channel 2: the upright ones turned, and cycled by r
    np.testing.assert_allclose(s.gcnn_maps, rotate_c4(upright, r)[0, 2].numpy(), atol=1e-4)
    assert s.gcnn_error < 1e-4
    turned = torch.rot90(cnn_upright, r, dims=(-2, -1))[0, s.cnn_channels].numpy()
    assert np.abs(s.cnn_maps - turned).max() > 0.05 and s.cnn_error > 0.05
    # the invariant G-CNN reads the turned digit as the upright one; the image is the turned one
    np.testing.assert_allclose(s.gcnn_probabilities,
                               rotation_state(gcnn, cnn, x[0]).gcnn_probabilities, atol=1e-4)
    np.testing.assert_allclose(s.image, torch.rot90(x[0, 0], r).numpy(), atol=1e-4)


def test_between_quarter_turns_there_is_nothing_to_compare(pair):
    gcnn, cnn = pair
    x, _ = digits(1)
    s = rotation_state(gcnn, cnn, x[0], 45.0)
    assert s.quarter_turns is None and s.gcnn_error is None and s.cnn_error is None
    turned = transformed_mnist.affine(x, rotation=45.0, side=28)
    np.testing.assert_allclose(s.image, turned[0, 0].numpy())
    assert s.gcnn_probabilities.sum() == pytest.approx(1.0, abs=1e-5)
    assert s.cnn_prediction == int(np.argmax(s.cnn_probabilities))
    # layer 0 is pooled (pool_after): its maps are 14x14
    assert s.gcnn_maps.shape == s.cnn_maps.shape == (4, 14, 14)


def test_rotation_state_names_a_bad_layer_or_channel(pair):
    gcnn, cnn = pair
    x, _ = digits(1)
    with pytest.raises(ValueError, match=r"rotation_state\(\): layer must be in \[0, 3\] .*got 4"):
        rotation_state(gcnn, cnn, x[0], layer=4)
    with pytest.raises(ValueError, match=r"rotation_state\(\): channel must be in \[0, 3\]"):
        rotation_state(gcnn, cnn, x[0], channel=4)


def test_the_face_turns_by_the_same_angle_and_its_capsule_follows(pair):
    from capsedu.parts.training import load_face_models

    gcnn, cnn = pair
    face_model = load_face_models([0], names=("pose capsules",))["pose capsules"][0]
    x, _ = digits(1)
    upright, turned = (rotation_state(gcnn, cnn, x[0], a, face_model=face_model)
                       for a in (0.0, 90.0))
    assert upright.face_image.shape == (32, 32)
    assert abs(upright.face_angle) < 15 and abs(turned.face_angle - 90) < 15
    assert turned.face_length > face_model.threshold.item()


def test_the_widget_slider_turns_the_digit_and_the_readout_follows(pair):
    gcnn, cnn = pair
    x, y = digits(2)
    w = RotationExplorer(gcnn, cnn, x, y)
    upright, png = w.state.image.copy(), w.image.value
    assert "turned 0°" in w.readout.value and "error G-CNN" in w.readout.value
    w.rotation.value = 90
    assert w.state.rotation == 90.0 and w.state.quarter_turns == 1
    np.testing.assert_allclose(w.state.image, np.rot90(upright), atol=1e-4)
    assert "turned 90°" in w.readout.value and w.image.value != png
    w.rotation.value = 45
    assert "between quarter turns" in w.readout.value
    w.layer.value = 3  # 8 channels there: the channel slider follows
    assert w.channel.max == 7 and w.state.gcnn_maps.shape == (4, 7, 7)
    w.channel.value = 7
    assert w.state.channel == 7 and w.state.cnn_channels == [12, 13, 14, 15]  # 28.. mod 16
    w.digit.value = 1
    assert w.label == 1

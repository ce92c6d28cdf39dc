"""Notebook 10's pair: the G-CNN's features turn with the input and its prediction does not."""

import torch

from capsedu.capsnet import count_parameters
from capsedu.gcnn import C4CNN, PlainCNN
from capsedu.group_conv import rotate_c4


def quarter(x, r=1):
    return torch.rot90(x, r, dims=(-2, -1))


def test_gcnn_features_are_equivariant_and_its_logits_invariant():
    torch.manual_seed(0)
    model = C4CNN(channels=(2, 3, 3, 4)).double().eval()
    x = torch.rand(3, 1, 28, 28, dtype=torch.float64)
    for r in (1, 2, 3):
        for turned, upright in zip(model.features(quarter(x, r)), model.features(x), strict=True):
            torch.testing.assert_close(turned, rotate_c4(upright, r), atol=1e-10, rtol=0)
        torch.testing.assert_close(model(quarter(x, r)), model(x), atol=1e-10, rtol=0)


def test_plain_cnn_is_not_invariant():
    torch.manual_seed(0)
    model = PlainCNN(channels=(2, 3, 3, 4)).double().eval()
    x = torch.rand(3, 1, 28, 28, dtype=torch.float64)
    assert (model(quarter(x)) - model(x)).abs().max() > 1e-3


def test_the_pair_has_matched_parameter_counts_and_shapes():
    gcnn, cnn = C4CNN(), PlainCNN()
    assert abs(count_parameters(cnn) / count_parameters(gcnn) - 1) < 0.10
    x = torch.rand(2, 1, 28, 28)
    assert gcnn(x).shape == cnn(x).shape == (2, 10)
    shapes = [tuple(m.shape) for m in gcnn.features(x)]
    # the UvA anchor's size: 5 layers of 16 channels, pooled after the first and the third
    assert shapes == [(2, 16, 4, 14, 14), (2, 16, 4, 14, 14)] + [(2, 16, 4, 7, 7)] * 3
    assert abs(count_parameters(gcnn) - 103_000) < 1_000  # "about 103k parameters"

"""The C4 layers are equivariant to quarter turns, checked numerically, and reduce to plain
convolutions where they should."""

import pytest
import torch
import torch.nn.functional as F

from capsedu.group_conv import GroupConv, LiftingConv, group_filters, lifting_filters, rotate_c4


def quarter(x, r=1):
    return torch.rot90(x, r, dims=(-2, -1))


@pytest.fixture
def layers():
    torch.manual_seed(0)
    return LiftingConv(2, 3, 5).double(), GroupConv(3, 4, 3).double()


@pytest.mark.parametrize("r", [1, 2, 3])
def test_lifting_conv_is_equivariant_to_quarter_turns(layers, r):
    lift, _ = layers
    x = torch.randn(2, 2, 11, 11, dtype=torch.float64)
    torch.testing.assert_close(lift(quarter(x, r)), rotate_c4(lift(x), r), atol=1e-12, rtol=0)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_group_conv_is_equivariant_to_quarter_turns(layers, r):
    lift, group = layers
    x = torch.randn(2, 2, 11, 11, dtype=torch.float64)
    torch.testing.assert_close(group(lift(quarter(x, r))), rotate_c4(group(lift(x)), r),
                               atol=1e-12, rtol=0)


def test_a_plain_convolution_is_not(layers):
    torch.manual_seed(1)
    conv = torch.nn.Conv2d(2, 3, 5, padding=2).double()
    x = torch.randn(2, 2, 11, 11, dtype=torch.float64)
    assert (conv(quarter(x)) - quarter(conv(x))).abs().max() > 0.1


def test_lifting_channel_r_is_the_filter_turned_r_times():
    torch.manual_seed(2)
    lift = LiftingConv(1, 2, 3)
    x = torch.randn(1, 1, 7, 7)
    for r in range(4):
        plain = F.conv2d(x, quarter(lift.weight, r), padding=1)  # [1, 2, 7, 7]
        torch.testing.assert_close(lift(x)[:, :, r], plain, atol=1e-6, rtol=0)


def test_group_filters_turn_and_shift_by_hand():
    W = torch.arange(2 * 1 * 4 * 3 * 3, dtype=torch.float32).view(2, 1, 4, 3, 3)
    stacked = group_filters(W).view(2, 4, 1, 4, 3, 3)  # [C_out, r, C_in, s, k, k]
    for r in range(4):
        for s in range(4):
            torch.testing.assert_close(stacked[:, r, :, s], quarter(W[:, :, (s - r) % 4], r))
    assert lifting_filters(W[:, :, 0]).shape == (8, 1, 3, 3)


def test_rotate_c4_four_times_is_the_identity():
    x = torch.randn(2, 3, 4, 5, 5)
    torch.testing.assert_close(rotate_c4(rotate_c4(x, 2), 2), x)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="kernel_size must be odd"):
        LiftingConv(1, 2, 4)
    with pytest.raises(ValueError, match="4 rotation channels"):
        GroupConv(2, 2, 3)(torch.randn(1, 2, 3, 5, 5))
    with pytest.raises(ValueError, match="x must have shape"):
        GroupConv(2, 2, 3)(torch.randn(1, 2, 5, 5))

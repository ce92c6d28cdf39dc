"""Notebook 10's measurements: each against a hand-computed case or an independent property, and
each showing it can tell an equivariant map from one that is not."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import floats, integers, sampled_from

from capsedu import equivariance, slot_attention
from capsedu.buggy import step_softmax_over_children
from capsedu.gcnn import C4CNN, PlainCNN
from capsedu.group_conv import GroupConv, LiftingConv, group_filters, rotate_c4
from capsedu.robustness import sweep_accuracy
from capsedu.routing import routing_step


def quarter(x, r=1):
    return torch.rot90(x, r, dims=(-2, -1))


def test_relative_error_is_the_largest_difference_over_the_largest_value():
    want = torch.tensor([2.0, -4.0, 1.0])
    assert equivariance.relative_error(want, want) == 0.0
    assert equivariance.relative_error(torch.tensor([2.0, -4.0, 2.0]), want) == pytest.approx(0.25)
    assert equivariance.relative_error(torch.zeros(3), torch.zeros(3)) == 0.0  # no 0 / 0


# --- translations -------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(dy=integers(-3, 3), dx=integers(-3, 3), k=sampled_from([1, 3, 5]))
def test_a_convolution_is_translation_equivariant_away_from_the_borders(dy, dx, k):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(2, 3, k, padding=k // 2).double()
    x = torch.rand(2, 2, 20, 20, dtype=torch.float64)
    assert equivariance.conv_shift_error(conv, x, dy, dx) < 1e-12


def test_the_shift_error_sees_a_map_that_is_not_equivariant():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(1, 2, 3, padding=1).double()
    ramp = torch.linspace(0, 1, 20, dtype=torch.float64)  # weighs each column differently

    class Weighted(torch.nn.Conv2d):  # a convolution, then a weight that depends on position
        def forward(self, x):
            return conv(x) * ramp

    weighted = Weighted(1, 2, 3, padding=1).double()  # the dtype of the images it reads
    x = torch.rand(1, 1, 20, 20, dtype=torch.float64)
    assert equivariance.conv_shift_error(weighted, x, 0, 2) > 0.01


def test_shift_moves_with_zero_fill():
    x = torch.arange(9.0).view(1, 1, 3, 3)
    moved = equivariance.shift(x, 1, -1)  # one down, one to the left
    torch.testing.assert_close(moved[0, 0], torch.tensor([[0.0, 0, 0], [1, 2, 0], [4, 5, 0]]))


def test_conv_shift_error_names_bad_input():
    with pytest.raises(ValueError, match="stride 1"):
        equivariance.conv_shift_error(torch.nn.Conv2d(1, 1, 3, stride=2), torch.rand(1, 1, 9, 9),
                                      1, 1)
    with pytest.raises(ValueError, match="leaves nothing"):
        equivariance.conv_shift_error(torch.nn.Conv2d(1, 1, 3), torch.rand(1, 1, 9, 9), 4, 0)
    with pytest.raises(ValueError, match=r"conv_shift_error\(\): x must be .* with 4 dimensions"):
        equivariance.conv_shift_error(torch.nn.Conv2d(1, 1, 3), torch.rand(9, 9), 1, 0)


def test_pooling_by_hand_notebook_01s_spike():
    """One spike on a 4x4 map (notebook 01): a 1-pixel move stays in its 2x2 window, a 2-pixel
    move reaches the next one; a global pool never notices."""
    spike = torch.zeros(1, 1, 4, 4)
    spike[0, 0, 0, 0] = 1.0
    assert equivariance.pooling_shift_change(spike, "2x2 max", [1, 2]) == [0.0, 1.0]
    assert equivariance.pooling_shift_change(spike, "global max", [1, 2, 3]) == [0.0, 0.0, 0.0]
    assert equivariance.pooling_shift_change(spike, "global mean", [1, 2, 3]) == [0.0, 0.0, 0.0]
    # pushed off the edge, the spike is lost: no pooling is invariant to that
    assert equivariance.pooling_shift_change(spike, "global max", [4]) == [1.0]
    with pytest.raises(ValueError, match="'global max'"):
        equivariance.pooling_shift_change(spike, "average", [1])


# --- quarter turns -------------------------------------------------------------------------------


def test_quarter_turn_turns_images_cycles_c4_maps_and_keeps_logits():
    image, c4, logits = torch.rand(2, 3, 5, 5), torch.rand(2, 3, 4, 5, 5), torch.rand(2, 10)
    torch.testing.assert_close(equivariance.quarter_turn(image, 1), quarter(image))
    torch.testing.assert_close(equivariance.quarter_turn(c4, 3), rotate_c4(c4, 3))
    assert equivariance.quarter_turn(logits, 2) is logits
    with pytest.raises(ValueError, match=r"quarter_turn\(\): t must be a map \[B, n\]"):
        equivariance.quarter_turn(torch.rand(2, 3, 4), 1)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_every_c4_layer_is_equivariant_and_a_plain_convolution_is_not(r):
    torch.manual_seed(r)
    lift, group = LiftingConv(2, 3, 5).double(), GroupConv(3, 4, 3).double()
    x = torch.randn(2, 2, 13, 13, dtype=torch.float64)
    assert equivariance.rotation_error(lift, x, r) < 1e-12
    assert equivariance.rotation_error(group, lift(x), r) < 1e-12
    assert equivariance.rotation_error(torch.nn.Conv2d(2, 3, 5, padding=2).double(), x, r) > 0.1


def test_the_gcnn_is_equivariant_layer_by_layer_and_invariant_at_the_top():
    torch.manual_seed(0)
    x = torch.rand(2, 1, 28, 28, dtype=torch.float64)
    gcnn = equivariance.model_rotation_errors(C4CNN(channels=(2, 3, 3, 4)).double(), x)
    cnn = equivariance.model_rotation_errors(PlainCNN(channels=(2, 3, 3, 4)).double(), x)
    assert gcnn.turns == [1, 2, 3]
    assert gcnn.features.shape == cnn.features.shape == (4, 3)
    assert gcnn.features.max() < 1e-10 and gcnn.logits.max() < 1e-10
    assert cnn.features.min() > 0.1 and cnn.logits.min() > 1e-3


def test_the_c4_features_are_equivariant_with_batch_norm_statistics_learned():
    """Batch normalisation keeps one mean and scale per channel, shared by its four rotations: a
    model whose running statistics moved away from 0 and 1 is still equivariant."""
    torch.manual_seed(1)
    model = C4CNN(channels=(2, 3, 3, 4)).double()
    model.train()
    model(torch.rand(8, 1, 28, 28, dtype=torch.float64))  # updates the running statistics
    errors = equivariance.model_rotation_errors(model,
                                                torch.rand(2, 1, 28, 28, dtype=torch.float64))
    assert errors.features.max() < 1e-10


# --- what an invariant classifier cannot know --------------------------------------------------


class Templates(torch.nn.Module):
    """Reads a digit as the class of the nearest of ``templates`` ``[n_classes, 28, 28]``."""

    def __init__(self, templates):
        super().__init__()
        self.templates = templates

    def predict(self, x):
        return ((x - self.templates[None]) ** 2).flatten(2).sum(2).argmin(1)


def six_and_nine():
    """Ten templates; the "9" is the "6" turned upside down, as (nearly) in handwriting."""
    g = torch.Generator().manual_seed(0)
    templates = torch.zeros(10, 28, 28)
    templates[:, 6:22, 6:22] = torch.rand(10, 16, 16, generator=g)
    templates[9] = torch.rot90(templates[6], 2)
    for k in (1, 2):  # the same upside down, like a 0 or an 8
        templates[k] = (templates[k] + torch.rot90(templates[k], 2)) / 2
    labels = torch.tensor([6, 6, 9, 9, 1, 2])
    return Templates(templates), templates[labels][:, None], labels


def test_six_nine_counts_what_a_turn_makes_of_6s_and_9s():
    model, images, labels = six_and_nine()
    upright = equivariance.six_nine(model, images, labels, 0.0)
    turned = equivariance.six_nine(model, images, labels)
    assert upright.six_as_nine == upright.nine_as_six == 0.0
    assert turned.rotation == 180.0
    assert turned.six_as_nine == turned.nine_as_six == 1.0
    acc = turned.per_class_accuracy
    assert acc[6] == acc[9] == 0.0 and np.isnan(acc[0])  # no 0s in the set: NaN
    confusion = equivariance.confusion_at(model, images, labels, 0.0)
    assert np.nansum(confusion, axis=1)[labels].tolist() == [1.0] * 6


def test_six_nine_mixed_up_is_the_mean_of_the_two_rates():
    model, images, _ = six_and_nine()
    six, nine = images[0], images[2]  # [1, 28, 28]
    # one 6 of two drawn upside down (read as 9), both 9s upright: rates 1/2 and 0
    digits = torch.stack([six, torch.rot90(six, 2, dims=(-2, -1)), nine, nine])
    r = equivariance.six_nine(model, digits, torch.tensor([6, 6, 9, 9]), 0.0)
    assert (r.six_as_nine, r.nine_as_six, r.mixed_up) == (0.5, 0.0, 0.25)


def test_turned_only_filters_forget_the_cycle():
    g = torch.Generator().manual_seed(0)
    weight = torch.randn(2, 3, 4, 3, 3, generator=g)
    # filters the same in every input orientation: cycling changes nothing, so no mistake shows
    flat = weight[:, :, :1].expand(-1, -1, 4, -1, -1)
    assert torch.equal(equivariance.turned_only_filters(flat), group_filters(flat))
    # otherwise the copies differ, and a GroupConv with them is not equivariant
    assert not torch.equal(equivariance.turned_only_filters(weight), group_filters(weight))
    layer = GroupConv(3, 2, 3).eval()
    layer.weight.data = weight
    layer.stack = equivariance.turned_only_filters
    x = torch.randn(2, 3, 4, 9, 9, generator=g)
    assert equivariance.rotation_error(layer, x, 1) > 0.1
    with pytest.raises(ValueError, match="C_out, C_in, 4, k, k"):
        equivariance.turned_only_filters(weight[:, :, 0])


def test_a_c4_invariant_model_reads_a_digit_turned_upside_down_as_the_upright_one():
    torch.manual_seed(0)
    model = C4CNN(channels=(2, 3, 3, 4)).eval()
    images, labels = torch.rand(20, 1, 28, 28), torch.arange(20) % 10
    np.testing.assert_array_equal(equivariance.confusion_at(model, images, labels, 180.0),
                                  equivariance.confusion_at(model, images, labels, 0.0))


def test_sweep_accuracy_turns_digits_on_their_own_canvas():
    model, images, labels = six_and_nine()
    accuracy = sweep_accuracy(model, images, labels, "rotation", [0.0, 180.0], side=28)
    assert accuracy == pytest.approx([1.0, 2 / 6])  # at 180 the 6s and 9s swap; 1 and 2 stay


# --- slot attention beside routing ---------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(batch=integers(1, 3), n_in=integers(1, 6), n_slots=integers(1, 5),
       d=integers(1, 8), scale=floats(0.1, 10))
def test_slot_attention_sums_over_slots_attention_over_inputs(batch, n_in, n_slots, d, scale):
    g = torch.Generator().manual_seed(n_in * 100 + n_slots)
    x = scale * torch.randn(batch, n_in, d, generator=g, dtype=torch.float64)
    slots = scale * torch.randn(batch, n_slots, d, generator=g, dtype=torch.float64)
    a_slots, _ = slot_attention.attention_step(x, slots, "slots")
    a_inputs, updated = slot_attention.attention_step(x, slots, "inputs")
    assert a_slots.shape == a_inputs.shape == (batch, n_in, n_slots)
    torch.testing.assert_close(a_slots.sum(dim=2), torch.ones(batch, n_in, dtype=torch.float64))
    torch.testing.assert_close(a_inputs.sum(dim=1), torch.ones(batch, n_slots,
                                                               dtype=torch.float64))
    # each new slot is a weighted mean of the inputs: inside their range, dimension by dimension
    assert (updated <= x.amax(dim=1, keepdim=True) + 1e-9).all()
    assert (updated >= x.amin(dim=1, keepdim=True) - 1e-9).all()


def test_attention_step_against_loops():
    g = torch.Generator().manual_seed(0)
    x, slots = torch.randn(2, 5, 3, generator=g), torch.randn(2, 4, 3, generator=g)
    for over in ("slots", "inputs"):
        a, updated = slot_attention.attention_step(x, slots, over)
        for b in range(2):
            logits = torch.tensor([[float(x[b, i] @ slots[b, j]) / 3**0.5 for j in range(4)]
                                   for i in range(5)])
            weights = logits.exp() / logits.exp().sum(dim=1 if over == "slots" else 0,
                                                      keepdim=True)
            torch.testing.assert_close(a[b], weights)
            for j in range(4):
                mean = sum(weights[i, j] * x[b, i] for i in range(5)) / weights[:, j].sum()
                torch.testing.assert_close(updated[b, j], mean)


def test_slot_attention_normalises_like_routing_and_attention_like_its_bug():
    """Given the same logits b_ij, routing's couplings are slot attention's weights, and the
    softmax-over-children bug's couplings are ordinary attention's."""
    g = torch.Generator().manual_seed(1)
    x, slots = torch.randn(2, 6, 4, generator=g), torch.randn(2, 3, 4, generator=g)
    logits = torch.einsum("bid,bjd->bij", x, slots) / 2  # sqrt(d) = 2
    u_hat = torch.randn(2, 6, 3, 4, generator=g)
    c, _, _ = routing_step(u_hat, logits)
    c_bug, _, _ = step_softmax_over_children(u_hat, logits)
    torch.testing.assert_close(slot_attention.attention_step(x, slots, "slots")[0], c)
    torch.testing.assert_close(slot_attention.attention_step(x, slots, "inputs")[0], c_bug)


def test_slot_attention_treats_slots_alike():
    g = torch.Generator().manual_seed(2)
    x, slots = torch.randn(1, 6, 4, generator=g), torch.randn(1, 3, 4, generator=g)
    order = torch.tensor([2, 0, 1])
    a, updated = slot_attention.attention_step(x, slots)
    a_perm, updated_perm = slot_attention.attention_step(x, slots[:, order])
    torch.testing.assert_close(a_perm, a[:, :, order])
    torch.testing.assert_close(updated_perm, updated[:, order])


def test_attention_step_names_bad_input():
    x = torch.randn(1, 5, 3)
    with pytest.raises(ValueError, match="softmax_over must be one of"):
        slot_attention.attention_step(x, x, "parents")
    with pytest.raises(ValueError, match="share batch and d"):
        slot_attention.attention_step(x, torch.randn(1, 2, 4))
    with pytest.raises(ValueError, match=r"attention_step\(\): slots must be .* with 3 "
                                         r"dimensions \(slots \[batch, n_slots, d\]\)"):
        slot_attention.attention_step(x, torch.randn(2, 3))
    with pytest.raises(TypeError, match="floating-point"):
        slot_attention.attention_step(x.long(), x.long())
    with pytest.raises(ValueError, match="NaN"):
        slot_attention.attention_step(x * float("nan"), x)

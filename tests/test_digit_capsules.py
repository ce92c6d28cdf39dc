"""Notebook 06: the pose-space functions, the decoder-input checker and the pose widget."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from capsedu import SMALL, CapsNet, pretrained
from capsedu.digit_capsules import (
    DELTAS,
    couplings_on_grid,
    decode,
    dimension_effect,
    encode,
    grid_extent,
    perturb,
    perturbation_grid,
    pose_state,
    primary_lengths,
    shape_measures,
)
from capsedu.exercises import check_decoder_input
from capsedu.figures.digit_images import mosaic
from capsedu.widgets import PoseSpaceExplorer

SOLUTION = Path(__file__).parent.parent / "notebooks/solutions/06_what_the_pose_dimensions_mean.py"


@pytest.fixture(scope="module")
def model():
    return pretrained("capsnet-mnist")


@pytest.fixture(scope="module")
def digits():
    from capsedu.data.mnist import load_mnist

    try:
        images, labels = load_mnist(train=False, limit=20, download=False)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    first = [int((labels == d).nonzero()[0, 0]) for d in (7, 2, 1)]
    return images[first], labels[first]


def capsules():
    """Digit capsules of a random small CapsNet (no checkpoint, no data): [2, 10, 16]."""
    torch.manual_seed(0)
    net = CapsNet(SMALL).eval()
    return net, encode(net, torch.rand(2, 1, 28, 28))


def test_deltas_are_the_papers_grid():
    assert DELTAS.tolist() == pytest.approx([0.05 * k for k in range(-5, 6)])
    assert float(DELTAS[5]) == 0.0


@pytest.mark.parametrize("deltas", [[0.3] + [0.0] * 15, [0.0] * 15 + [-0.26],
                                    [float("nan")] + [0.0] * 15, [0.0] * 15, [[0.0] * 16]])
def test_bad_deltas_raise(deltas):
    net, out = capsules()
    with pytest.raises(ValueError, match="delta"):
        pose_state(net, out.v[0], 3, deltas)


def test_bad_label_raises():
    net, out = capsules()
    with pytest.raises(ValueError, match="label"):
        perturb(out.v[0], 10, [0.0] * 16)


def test_perturb_moves_only_the_label_capsule():
    _, out = capsules()
    deltas = [0.0] * 16
    deltas[4] = 0.25
    edited = perturb(out.v[0], 3, deltas)
    diff = edited - out.v[0]
    assert diff[3, 4] == pytest.approx(0.25) and diff.abs().sum() == pytest.approx(0.25)


def test_zero_delta_state_is_the_models_reconstruction():
    net, out = capsules()
    labels = torch.tensor([3, 8])
    s = pose_state(net, out.v[1], 8, [0.0] * 16)
    with torch.no_grad():
        want = net.reconstruct(out.v, out.lengths, labels)[1, 0]
    assert np.allclose(s.reconstruction, want.numpy(), atol=1e-6)
    assert np.allclose(s.lengths, out.lengths[1].numpy(), atol=1e-6)


def test_perturbation_grid_matches_single_edits():
    net, out = capsules()
    grid = perturbation_grid(net, out.v[0], 5)
    assert grid.shape == (16, 11, 28, 28)
    for d, k in [(0, 0), (7, 3), (15, 10)]:
        deltas = [0.0] * 16
        deltas[d] = float(DELTAS[k])
        single = pose_state(net, out.v[0], 5, deltas).reconstruction
        assert np.allclose(grid[d, k].numpy(), single, atol=1e-5)
    base = decode(net, out.v[:1], torch.tensor([5]))[0]
    assert torch.allclose(grid[:, 5], base.expand(16, 28, 28), atol=1e-6)  # Δ = 0 column
    effect = dimension_effect(grid, base)
    assert effect.shape == (16,) and (effect > 0).all()


def test_shape_measures_on_a_bar():
    img = torch.zeros(28, 28)
    img[4:24, 10:14] = 1.0  # an upright bar, 4 px wide, 20 px tall
    m = shape_measures(img)
    assert float(m.ink) == 80 and float(m.x) == pytest.approx(11.5)
    assert float(m.y) == pytest.approx(13.5) and float(m.slant) == pytest.approx(0, abs=1e-5)
    assert float(m.height) > float(m.width)
    slanted = torch.zeros(28, 28)
    for r in range(4, 24):
        slanted[r, 4 + r // 2 : 8 + r // 2] = 1.0  # moves right by 1/2 px per row down
    assert float(shape_measures(slanted).slant) == pytest.approx(0.5, abs=0.05)


def test_mosaic_layout():
    images = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    tiled = mosaic(images)
    assert tiled.shape == (8, 15)
    assert (tiled[4:8, 10:15] == images[1, 2]).all()


def test_couplings_on_grid_follow_the_primary_index():
    net, out = capsules()
    c = couplings_on_grid(out.routing, 1, 4, net.config)
    assert c.shape == (3, 8, 6, 6)
    assert torch.allclose(c[0], torch.full_like(c[0], 0.1))  # iteration 1 is uniform
    # i = (map * 6 + row) * 6 + col
    i = (5 * 6 + 2) * 6 + 3
    assert c[2, 5, 2, 3] == out.routing.history[2].c[1, i, 4]
    assert primary_lengths(net, torch.rand(1, 28, 28)).shape == (8, 6, 6)


def test_grid_extent_of_the_paper_network():
    assert grid_extent(SMALL) == (7.0, 19.0, 19.0, 7.0)  # centres at pixels 8, 10, ..., 18


# ---- the exercise's checker -------------------------------------------------------------

def reference(v, labels):
    return (v * F.one_hot(labels, v.shape[1]).to(v.dtype).unsqueeze(-1)).flatten(1)


def masked_by_prediction(v, labels):
    return reference(v, v.norm(dim=-1).argmax(dim=1))


def not_masked(v, labels):
    return v.flatten(1)


def masked_on_the_wrong_dim(v, labels):  # zeroes pose dimensions instead of capsules
    return (v * F.one_hot(labels, v.shape[2]).to(v.dtype).unsqueeze(1)).flatten(1)


def wrong_flatten_order(v, labels):
    return reference(v, labels).view(-1, 10, 16).transpose(1, 2).flatten(1)


def not_flattened(v, labels):
    return v * F.one_hot(labels, v.shape[1]).to(v.dtype).unsqueeze(-1)


def test_checker_accepts_the_reference_and_the_solution(model, capsys):
    spec = importlib.util.spec_from_file_location("solution06", SOLUTION)
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    assert check_decoder_input(reference, model) is True
    assert check_decoder_input(solution.my_decoder_input, model) is True
    assert capsys.readouterr().out.count("PASS") == 2


def by_indexing(v, labels):  # correct, written otherwise: copy the true capsule into zeros
    out = torch.zeros_like(v)
    rows = torch.arange(len(v))
    out[rows, labels] = v[rows, labels]
    return out.reshape(len(v), -1)


def by_comparison(v, labels):  # correct, with a boolean mask and torch.where
    keep = (torch.arange(v.shape[1]) == labels[:, None])[..., None]  # [B, 10, 1]
    return torch.where(keep, v, 0.0).view(len(v), -1)


@pytest.mark.parametrize("right", [by_indexing, by_comparison])
def test_checker_accepts_correct_answers_written_otherwise(model, right, capsys):
    assert check_decoder_input(right, model) is True
    assert "PASS" in capsys.readouterr().out


def test_checker_reports_the_stub(model, capsys):
    def stub(v, labels):
        raise NotImplementedError("Exercise: mask")

    assert check_decoder_input(stub, model) is None
    assert "not implemented yet" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [masked_by_prediction, not_masked, masked_on_the_wrong_dim,
                                   wrong_flatten_order, not_flattened])
def test_checker_rejects_known_wrong_versions(model, wrong, capsys):
    assert check_decoder_input(wrong, model) is False
    assert "FAIL" in capsys.readouterr().out


# ---- the widget -------------------------------------------------------------------------

def test_slider_changes_the_reconstruction_and_reset_restores_it(model, digits):
    w = PoseSpaceExplorer(model, *digits)
    start, png = w.state.reconstruction, w.image.value
    assert w.state.label == 7 and w.state.prediction == 7
    w.sliders[6].value = 0.25
    assert w.state.deltas[6] == 0.25
    assert np.abs(w.state.reconstruction - start).mean() > 0.005
    assert w.image.value != png and "dim 6 +0.25" in w.readout.value
    w.sliders[2].value = -0.1
    assert w.state.deltas[2] == pytest.approx(-0.1)
    w.reset_button.click()
    assert w.state.deltas == (0.0,) * 16
    assert np.allclose(w.state.reconstruction, start) and w.image.value == png


def test_picker_changes_the_digit(model, digits):
    w = PoseSpaceExplorer(model, *digits)
    png, recon = w.image.value, w.state.reconstruction
    w.digit.value = 1
    assert w.index == 1 and w.state.label == 2
    assert w.image.value != png and not np.allclose(w.state.reconstruction, recon)
    assert "true class 2" in w.readout.value



def test_masking_changes_only_the_true_capsule_moves_the_reconstruction():
    from capsedu.digit_capsules import masking_changes

    torch.manual_seed(0)
    model = CapsNet(SMALL).eval()
    images, labels = torch.rand(3, 1, 28, 28), torch.tensor([1, 5, 9])
    others, true = masking_changes(model, images, labels)
    assert others == 0.0  # the decoder never sees the nine other capsules
    assert true > 1e-4


def test_reconstruction_error_is_the_mean_pixel_distance_to_the_decoded_capsule():
    from capsedu.digit_capsules import reconstruction_error

    net, out = capsules()
    labels = torch.tensor([3, 8])
    recon = decode(net, out.v, labels)  # [2, 28, 28]
    torch.testing.assert_close(reconstruction_error(net, out.v, recon[:, None], labels),
                               torch.zeros(2))  # an image that is its reconstruction
    blank = torch.zeros(2, 1, 28, 28)
    expected = recon.abs().mean(dim=(1, 2))
    torch.testing.assert_close(reconstruction_error(net, out.v, blank, labels), expected)


def test_measure_dimensions_is_dimension_profile_in_units_of_the_real_spread():
    from capsedu.digit_capsules import dimension_profile, measure_dimensions

    torch.manual_seed(0)
    net = CapsNet(SMALL).eval()
    images, labels = torch.rand(6, 1, 28, 28), torch.tensor([1, 2, 1, 2, 1, 1])
    study = measure_dimensions(net, images, labels, (1, 2), n_per_class=2)
    assert set(study.relative) == {1, 2} and study.relative[1].shape == (16, 6)
    profile = dimension_profile(net, images[[0, 2]], 1)  # the first two 1s
    effect, changes = profile.effect, profile.changes
    torch.testing.assert_close(study.effect[1], effect)
    spread_ink = shape_measures(images[:, 0]).ink.std()
    torch.testing.assert_close(study.relative[1][:, 0], changes.ink.mean(0) / spread_ink)
    assert changes.width.shape == (2, 16)  # [N, 16]: each measure's change per digit


def test_format_ranking_by_hand():
    from capsedu.digit_capsules import DimensionStudy, ShapeMeasures, format_ranking

    names = ["ink", "x", "y", "width", "height", "slant"]
    spread = ShapeMeasures(**{n: torch.tensor(1.0) for n in names})
    effect = torch.linspace(0.1, 1.6, 16)  # dim 15 changes the picture most, dim 0 least
    relative = torch.zeros(16, 6)
    relative[:, 1] = 9.0  # x moves most, but x and y are left out of "mostly"
    relative[15, 3] = -2.0  # dim 15: mostly width, 2 SD narrower
    changes = ShapeMeasures(**{n: torch.zeros(4, 16) for n in names})
    changes.width[:, 15] = torch.tensor([-1.0, -2.0, -3.0, 4.0])  # 3 of 4 agree
    lines = format_ranking(DimensionStudy(spread, {7: effect}, {7: changes},
                                          {7: relative})).split("\n")
    assert lines[0] == ("spread of real test digits (SD): ink 1.00, x 1.00, y 1.00, width 1.00, "
                        "height 1.00, slant 1.00")
    assert lines[2] == ("  dim 15: mean |pixel change| 1.600; mostly width  -2.0 SD (same "
                        "direction in  75 % of the 4 digits)")
    assert lines[-2] == ("  -> 1 of 16 dimensions move a shape measure by more than 1 SD; the "
                         "weakest dimension changes the picture 16.0x less than the strongest")
    assert lines[-1] == ""


def test_format_coupling_quantiles_of_uniform_and_of_polarised_couplings():
    from capsedu.digit_capsules import format_coupling_quantiles
    from capsedu.routing import RoutingResult, RoutingStep

    uniform = torch.full((2, 5, 10), 0.1)  # [N, n_primary, classes]
    polarised = uniform.clone()
    polarised[0] = 0.01
    polarised[0, :, 3] = 0.91  # image 0 sends almost everything to class 3 (each row sums to 1)
    v = torch.zeros(2, 10, 1)
    routing = RoutingResult(v, polarised, polarised,
                            [RoutingStep(uniform, v), RoutingStep(polarised, v)])
    lines = format_coupling_quantiles(routing, torch.tensor([3, 4])).splitlines()
    assert lines[0] == ("iteration 1: c(i -> predicted class) 10 % / 50 % / 90 % quantiles = "
                        "0.100 / 0.100 / 0.100; largest 0.100; share above 0.5: 0.00 %")
    assert lines[1].endswith("largest 0.910; share above 0.5: 50.00 %")

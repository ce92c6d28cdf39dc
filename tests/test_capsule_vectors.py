"""Pose vectors (notebook 02): hand-checked values, round trips, the nose capsule, the checker."""

import math

import numpy as np
import pytest
import torch

from capsedu.capsule_vectors import (
    capsule_from_matches,
    decode_pose,
    draw,
    encode_pose,
    match,
    part_from_vector,
    pose_vector,
    read_pose,
    template_bank,
)
from capsedu.data.sprites import Part, render
from capsedu.exercises import check_pose_vector
from capsedu.functional import squash


def test_pose_vector_hand_values():
    assert pose_vector(0, 1).tolist() == pytest.approx([1, 0])
    assert pose_vector(90, 0.5).tolist() == pytest.approx([0, 0.5], abs=1e-7)
    h = 0.3 / math.sqrt(2)
    assert pose_vector(45, 0.3).tolist() == pytest.approx([h, h])
    batch = pose_vector(torch.tensor([180.0, -90.0]), torch.tensor([1.0, 0.2]))
    assert torch.allclose(batch, torch.tensor([[-1.0, 0.0], [0.0, -0.2]]), atol=1e-7)


@pytest.mark.parametrize("presence", [-0.1, 1.5])
def test_pose_vector_rejects_presence_out_of_range(presence):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pose_vector(0, presence)


def test_read_pose_inverts_pose_vector():
    p, a = read_pose(torch.tensor([0.6, 0.8]))
    assert float(p) == pytest.approx(1)
    assert float(a) == pytest.approx(math.degrees(math.atan2(4, 3)))
    angles = torch.tensor([-170.0, -30, 0, 60, 179])
    presences = torch.tensor([0.9, 0.1, 1, 0.5, 0.3])
    p, a = read_pose(pose_vector(angles, presences))
    assert torch.allclose(p, presences, atol=1e-6) and torch.allclose(a, angles, atol=1e-4)
    with pytest.raises(ValueError, match=r"\[\.\.\., 2\]"):
        read_pose(torch.zeros(3))


def test_part_from_vector_and_draw():
    part, presence = part_from_vector("mouth", [0.0, -0.5])
    assert part.kind == "mouth" and part.angle == pytest.approx(-90)
    assert presence == pytest.approx(0.5)
    image = draw(part, presence, size=32)
    assert np.allclose(image, 0.5 * render([part], 32)) and image.max() > 0.4
    with pytest.raises(ValueError, match="one capsule"):
        part_from_vector("nose", torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        draw(part, 2.0)


def test_five_d_capsule_round_trip_and_length():
    v = encode_pose(0.3, 0.6, 30.0, 1.5, 0.7)
    assert v.shape == (5,) and float(v.norm()) == pytest.approx(0.7)
    part, presence = decode_pose("nose", v)
    assert presence == pytest.approx(0.7)
    pose = (part.x, part.y, part.angle, part.scale)
    assert pose == pytest.approx((0.3, 0.6, 30.0, 1.5), abs=1e-5)
    # the pose is in the direction only: any positive length decodes to the same part
    part2, presence2 = decode_pose("nose", 0.2 / 0.7 * v)
    assert presence2 == pytest.approx(0.2)
    assert (part2.x, part2.y, part2.angle, part2.scale) == pytest.approx(pose, abs=1e-5)


def test_five_d_capsule_rejects_bad_input():
    with pytest.raises(ValueError, match="presence"):
        encode_pose(0.5, 0.5, 0, 1, 1.2)
    with pytest.raises(ValueError, match="scale"):
        encode_pose(0.5, 0.5, 0, 0, 1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        encode_pose(1.5, 0.5, 0, 1, 1)
    with pytest.raises(ValueError, match="no pose"):
        decode_pose("nose", torch.zeros(5))
    with pytest.raises(ValueError, match=r"\[5\]"):
        decode_pose("nose", torch.ones(4))


def test_template_bank_holds_the_whole_part():
    angles, templates = template_bank("nose", n_angles=8)
    assert angles.tolist() == [0, 45, 90, 135, 180, 225, 270, 315]
    assert templates.shape == (8, 1, 12, 12)
    with pytest.raises(ValueError, match="crop"):
        template_bank("nose", crop=4)


def test_nose_capsule_is_invariant_in_length_and_equivariant_in_direction():
    angles, templates = template_bank("nose")
    inputs = torch.arange(0.0, 360.0, 15.0)
    images = torch.from_numpy(
        np.stack([render([Part("nose", 0.5, 0.5, float(a), 2.0)], 32) for a in inputs]))[:, None]
    r = match(images, templates)
    assert r.shape == (len(inputs), 16) and float(r.max()) == pytest.approx(1, abs=1e-4)
    assert float(r[0, 0]) == pytest.approx(1, abs=1e-4)  # the upright template on the upright nose
    presence, angle = read_pose(capsule_from_matches(r, angles))
    assert float(presence.min()) > 0.85
    error = (angle - inputs + 180) % 360 - 180
    assert float(error.abs().max()) < 6
    # a nose moved by whole pixels matches the same: the max over positions is translation-invariant
    moved = render([Part("nose", 0.5 - 5 / 32, 0.5 + 3 / 32, 0.0, 2.0)], 32)
    assert torch.allclose(match(torch.from_numpy(moved)[None, None], templates)[0], r[0], atol=1e-4)
    with pytest.raises(ValueError, match=r"\[N, 1, H, W\]"):
        match(images[:, 0], templates)


def test_checker_accepts_the_reference_and_rejects_wrong_versions(capsys):
    assert check_pose_vector(pose_vector) is True
    assert "PASS" in capsys.readouterr().out

    def stub(angle, presence):
        raise NotImplementedError("Exercise: write pose_vector")

    assert check_pose_vector(stub) is None
    assert "not implemented yet" in capsys.readouterr().out
    # correct answers written otherwise: as complex numbers p e^{ia}, and in float64 NumPy
    as_complex = lambda a, p: torch.view_as_real(torch.polar(p, torch.deg2rad(a)))
    in_numpy = lambda a, p: np.stack([p.numpy() * np.cos(np.radians(a.numpy(), dtype=np.float64)),
                                      p.numpy() * np.sin(np.radians(a.numpy(), dtype=np.float64))],
                                     axis=-1)
    for right in (as_complex, in_numpy):
        assert check_pose_vector(right) is True
        assert "PASS" in capsys.readouterr().out
    radians_not_degrees = lambda a, p: torch.stack([p * torch.cos(a), p * torch.sin(a)], -1)
    unit_length = lambda a, p: pose_vector(a, torch.ones_like(p))
    swapped = lambda a, p: pose_vector(a, p).flip(-1)
    clockwise = lambda a, p: pose_vector(-a, p)
    for wrong in (radians_not_degrees, unit_length, swapped, clockwise):
        assert check_pose_vector(wrong) is False
        assert "FAIL" in capsys.readouterr().out


def test_the_solution_passes_the_checker_and_answers_the_exercises(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "notebooks/solutions/02_capsules_vectors_not_scalars.py"
    spec = importlib.util.spec_from_file_location("solution02", path)
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    assert check_pose_vector(solution.my_pose_vector) is True
    assert "PASS" in capsys.readouterr().out
    assert solution.nose_45.tolist() == pytest.approx([0.3 / 2**0.5] * 2)
    assert solution.opposite_vectors_decode_alike()


# --- turned part images, the read angle's error, squash measured (notebooks 02 and 03) ---------


def test_turned_part_images_render_each_angle_and_feed_the_template_bank():
    from capsedu.capsule_vectors import turned_part_images

    images = turned_part_images("nose", [0.0, 90.0], scale=2.0, size=32)
    assert images.shape == (2, 1, 32, 32)
    assert np.allclose(images[1, 0].numpy(), render([Part("nose", 0.5, 0.5, 90.0, 2.0)], 32))
    moved = turned_part_images("nose", [0.0], x=0.25, y=0.75)
    assert np.allclose(moved[0, 0].numpy(), render([Part("nose", 0.25, 0.75, 0.0, 2.0)], 32))
    angles, templates = template_bank("nose", n_angles=4, scale=2.0)
    full = render([Part("nose", 0.5, 0.5, 90.0, 2.0)], 32)
    assert np.allclose(templates[1, 0].numpy(), full[10:22, 10:22])
    with pytest.raises(ValueError, match=r"\[n\]"):
        turned_part_images("nose", [[0.0]])


def test_angle_error_wraps_around_the_circle():
    from capsedu.capsule_vectors import angle_error

    v = pose_vector(torch.tensor([170.0, -170.0, 10.0]), torch.tensor([1.0, 0.5, 0.2]))
    error = angle_error(v, torch.tensor([-170.0, 170.0, 0.0]))
    assert error.tolist() == pytest.approx([-20.0, 20.0, 10.0], abs=1e-4)


def test_squash_slope_matches_the_formula_and_peaks_at_one_over_root_three():
    from capsedu.capsule_vectors import squash_slope

    r = torch.linspace(0.05, 4, 400, dtype=torch.float64)
    slope = squash_slope(r, dim=8)
    assert torch.allclose(slope, 2 * r / (1 + r**2) ** 2, atol=1e-10)
    assert float(r[slope.argmax()]) == pytest.approx(3**-0.5, abs=0.01)
    with pytest.raises(ValueError, match="float"):
        squash_slope(torch.arange(3))


def test_length_table_holds_squash_sigmoid_and_tanh():
    from capsedu.capsule_vectors import length_table

    header, zero, one = length_table((0.0, 1.0)).splitlines()
    assert header.split() == ["||s||", "squash", "sigmoid", "tanh"]
    assert [float(x) for x in zero.split()] == [0.0, 0.0, 0.5, 0.0]
    assert [float(x) for x in one.split()] == pytest.approx([1.0, 0.5, 0.7311, 0.7616], abs=1e-4)


def test_random_capsules_are_reproducible_and_span_the_decades():
    from capsedu.capsule_vectors import random_capsules

    s = random_capsules(5000, dim=6, seed=3, decades=(-2, 2))
    assert s.shape == (5000, 6) and torch.equal(s, random_capsules(5000, 6, 3, (-2, 2)))
    exponents = s.norm(dim=1).log10()
    assert exponents.min() >= -2 - 1e-5 and exponents.max() <= 2 + 1e-5
    assert exponents.min() < -1.9 and exponents.max() > 1.9
    with pytest.raises(ValueError, match="low < high"):
        random_capsules(10, decades=(1, 1))


def test_direction_and_length_of_squashed_capsules():
    from capsedu.capsule_vectors import direction_and_length

    cosine, length = direction_and_length(torch.tensor([[3.0, 4.0], [0.0, -1.0]]))
    assert cosine.tolist() == pytest.approx([1.0, 1.0])
    assert length.tolist() == pytest.approx([25 / 26, 0.5])
    with pytest.raises(ValueError, match=r"\[n, d\]"):
        direction_and_length(torch.ones(3))


def test_at_zero_finds_the_nan_gradient_of_eps_outside_the_root():
    from capsedu.capsule_vectors import at_zero, at_zero_table

    def eps_outside(s, eps=1e-8):
        n2 = (s * s).sum(dim=-1, keepdim=True)
        return n2 / (1 + n2) * s / (torch.sqrt(n2) + eps)

    value, gradient = at_zero(eps_outside)
    assert value.tolist() == [0.0] * 4 and torch.isnan(gradient).all()
    value, gradient = at_zero(squash)
    assert value.tolist() == [0.0] * 4 and torch.isfinite(gradient).all()
    lines = at_zero_table({"eps outside": eps_outside}).splitlines()
    assert len(lines) == 2 and "nan" in lines[0] and lines[1].startswith("capsedu (eps inside)")
    assert "nan" not in lines[1]
    with pytest.raises(ValueError, match="keeps the shape"):
        at_zero(lambda s: s.sum(dim=-1))


def test_rounding_table_reaches_one_in_float32_before_float64():
    from capsedu.capsule_vectors import rounding_table

    f32, f64 = rounding_table((2, 4)).splitlines()
    assert f32.startswith("torch.float32") and "||s|| = 1e2, 1e4" in f32
    assert f32.endswith("0.9998999834, 1.0000000000")  # 1 / (1 + 1e8) is below float32's epsilon
    assert f64.endswith("0.9999000100, 0.9999999900")


def test_eps_table_relative_change_grows_as_the_length_shrinks():
    from capsedu.capsule_vectors import eps_table

    rows = eps_table((1e-1, 1e-5)).splitlines()[1:]
    changes = [float(row.split()[1]) for row in rows]
    assert changes[0] < 1e-5 < 0.5 < changes[1] < 1  # eps = 1e-8 next to ||s||^2 = 1e-10
    assert float(rows[0].split()[2]) == pytest.approx(0.01 / 1.01, rel=1e-2)

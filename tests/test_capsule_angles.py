"""Notebook 10's capsules under turns: each measurement against an independent computation or a
case whose answer is known, and each able to tell a capsule that carries the angle from one that
does not."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import floats, sampled_from

from capsedu import capsule_angles
from capsedu.capsnet import SMALL, CapsNet
from capsedu.data import transformed_mnist


@settings(max_examples=30, deadline=None)
@given(slope=floats(-2, 2), offset=floats(-179, 179), step=sampled_from([10, 15, 30]))
def test_angle_slope_recovers_a_line_from_wrapped_readings(slope, offset, step):
    angles = np.arange(0, 360, step, dtype=float)
    readings = (slope * angles + offset + 180) % 360 - 180  # known only up to whole turns
    fit = capsule_angles.angle_slope(angles, readings)
    assert fit.slope == pytest.approx(slope, abs=1e-9)
    assert abs((fit.offset - offset + 180) % 360 - 180) < 1e-7
    assert fit.residual < 1e-7


def test_angle_slope_names_bad_angles():
    with pytest.raises(ValueError, match="increase in steps under 180"):
        capsule_angles.angle_slope([0, 200, 300], [0, 0, 0])
    with pytest.raises(ValueError, match=r"^angle_slope\(\): readings must match angles in length"):
        capsule_angles.angle_slope([0, 10], [0])


def test_the_shipped_pose_capsules_face_angle_turns_with_the_face():
    from capsedu.data import faces
    from capsedu.parts.pose_net import rotation_sweep
    from capsedu.parts.training import load_face_models

    model = load_face_models([0], names=("pose capsules",))["pose capsules"][0]
    sweep = rotation_sweep(model, faces.face_parts(), np.arange(0, 360, 30))
    assert sweep.images.shape == (12, 32, 32)
    fit = capsule_angles.angle_slope(sweep.angles, sweep.face_angle)
    assert fit.slope == pytest.approx(1, abs=0.1)


@pytest.fixture(scope="module")
def capsnet():
    torch.manual_seed(0)
    return CapsNet(SMALL, decoder_hidden=(16,)).eval()


def bar():
    digit = torch.zeros(1, 28, 28)
    digit[0, 6:22, 12:16] = 1.0  # an upright bar
    return digit


def test_capsule_under_rotation_against_numpy(capsnet):
    angles = [0.0, 30.0, 60.0, 90.0, 180.0]
    digits = torch.stack([bar(), bar().flip(-1).transpose(-1, -2)])  # [2, 1, 28, 28]
    labels = torch.tensor([1, 4])
    s = capsule_angles.capsule_under_rotation(capsnet, digits, labels, angles)
    assert s.v.shape == (2, 5, 16) and s.principal_share.shape == (2, 5)
    for n, (digit, label) in enumerate(zip(digits, labels.tolist(), strict=True)):
        with torch.no_grad():
            turned = torch.cat([transformed_mnist.affine(digit[None], rotation=a, side=28)
                                for a in angles])
            out = capsnet(turned)
        v = s.v[n]
        np.testing.assert_allclose(v, out.v[:, label].numpy(), atol=1e-6)
        np.testing.assert_allclose(s.length[n], np.linalg.norm(v, axis=1), rtol=1e-5)
        np.testing.assert_array_equal(s.right[n], out.lengths.argmax(dim=1).numpy() == label)
        assert s.cosine[n, 0] == pytest.approx(1.0, abs=1e-5)
        change = v - v[0]
        total = (change**2).sum()
        np.testing.assert_allclose(s.dimension_share[n], (change**2).sum(0) / total,
                                   rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(s.principal_share[n],
                                   np.linalg.svd(change, compute_uv=False) ** 2 / total,
                                   rtol=1e-3, atol=1e-7)
        unit = v[0] / np.linalg.norm(v[0])
        assert s.radial_share[n] == pytest.approx(((change @ unit) ** 2).sum() / total,
                                                     rel=1e-3)
        assert s.dimension_share[n].sum() == pytest.approx(1.0, abs=1e-5)


def test_capsule_under_rotation_wants_a_28_pixel_capsnet():
    from capsedu.capsnet import AFFNIST

    with pytest.raises(ValueError, match="28x28"):
        capsule_angles.capsule_under_rotation(CapsNet(AFFNIST, decoder_hidden=(8,)),
                                              bar()[None], torch.tensor([1]), [0.0])


def test_the_angle_is_read_off_vectors_that_carry_it_and_not_off_vectors_that_do_not():
    rng = np.random.default_rng(0)
    angles = rng.uniform(-180, 180, size=400)
    radians = np.deg2rad(angles)
    # a pose vector that holds the angle in two of its 16 numbers, under a fixed rotation of axes
    mixing = np.linalg.qr(rng.normal(size=(16, 16)))[0]
    carries = np.hstack([np.cos(radians)[:, None], np.sin(radians)[:, None],
                         rng.normal(size=(400, 14))]) @ mixing
    blind = rng.normal(size=(400, 16))  # numbers that know nothing of the angle
    good = capsule_angles.angle_from_vectors(carries[:200], angles[:200], carries[200:],
                                             angles[200:])
    bad = capsule_angles.angle_from_vectors(blind[:200], angles[:200], blind[200:],
                                            angles[200:])
    assert good.error < 1.0
    assert good.baseline == pytest.approx(90, abs=15)  # uniform angles: a constant guess
    assert bad.error > 60  # the median error of a guess that knows nothing: about 90 degrees


def test_capsule_angle_readout_fits_per_class_and_tests_on_other_digits(capsnet):
    digits = torch.stack([bar(), bar().flip(-1), bar().transpose(-1, -2), bar().roll(3, -1)])
    result = capsule_angles.capsule_angle_readout(capsnet, digits, torch.tensor([1, 1, 2, 2]),
                                                  [-30.0, 0.0, 30.0])
    assert set(result.by_class) == {1, 2}
    assert all(0 <= r.error <= 180 for r in result.by_class.values())
    assert result.baseline == pytest.approx(30.0)  # always answering 0 for -30, 0, 30
    with pytest.raises(ValueError, match="at least 2 digits of each class"):
        capsule_angles.capsule_angle_readout(capsnet, digits[:3], torch.tensor([1, 1, 2]),
                                             [0.0, 30.0])

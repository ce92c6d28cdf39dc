"""Notebooks 02 and 03's widgets, driven kernel-side: set a control, check what it computed."""

import math

import pytest

from capsedu.widgets import PoseVectorExplorer, SquashExplorer
from capsedu.widgets.capsule import MAX_NORM, pose_vector_state, squash_state

PNG = b"\x89PNG\r\n\x1a\n"


def test_pose_vector_state_hand_values():
    s = pose_vector_state("nose", 90, 0.5)
    assert (s.x, s.y) == pytest.approx((0, 0.5), abs=1e-7)
    assert s.presence == pytest.approx(0.5) and s.part.angle == pytest.approx(90)
    assert s.image.max() == pytest.approx(0.5 * pose_vector_state("nose", 90, 1).image.max())
    assert pose_vector_state("mouth", 0, 0).image.max() == 0  # absent: nothing drawn


@pytest.mark.parametrize(("args", "message"), [
    (("ear", 0, 1), r"kind must be one of 'left_eye'"),
    (("nose", 200, 1), r"angle must be a finite number >= -180 and <= 180"),
    (("nose", 0, 1.2), r"length must be a finite number >= 0 and <= 1"),
])
def test_pose_vector_state_rejects_bad_values(args, message):
    with pytest.raises(ValueError, match=message):
        pose_vector_state(*args)


def test_pose_explorer_follows_its_controls():
    w = PoseVectorExplorer(kind="nose", angle=0, length=1)
    png, text = w.image.value, w.readout.value
    assert png[:8] == PNG and w.state.x == pytest.approx(1)
    w.angle.value = 90
    assert w.state.part.angle == pytest.approx(90) and w.state.y == pytest.approx(1)
    assert w.image.value != png and w.readout.value != text
    png = w.image.value
    w.length.value = 0.3
    assert w.state.presence == pytest.approx(0.3) and "0.30" in w.readout.value
    assert w.image.value != png
    w.kind.value = "mouth"
    assert w.state.part.kind == "mouth" and "mouth" in w.readout.value


def test_squash_state_hand_values():
    s = squash_state(5.0, angle=math.degrees(math.atan2(4, 3)))  # s = (3, 4)
    assert s.v == pytest.approx([25 / 26 * 0.6, 25 / 26 * 0.8])
    assert s.norm_v == pytest.approx(25 / 26) and s.slope == pytest.approx(10 / 26**2)
    zero = squash_state(0.0)
    assert zero.v == [0.0, 0.0] and zero.slope == 0
    peak = squash_state(1 / math.sqrt(3))  # the steepest point: slope 3 sqrt(3) / 8
    assert peak.slope == pytest.approx(3 * math.sqrt(3) / 8)


@pytest.mark.parametrize(("norm", "angle"), [(-0.1, 0), (MAX_NORM + 1, 0), (1, 400)])
def test_squash_state_rejects_out_of_range(norm, angle):
    with pytest.raises(ValueError, match=r"squash_state\(\): (norm|angle) must be a finite number"):
        squash_state(norm, angle)


def test_squash_explorer_follows_its_controls():
    w = SquashExplorer(norm=1.0, angle=0)
    png = w.image.value
    assert w.state.norm_v == pytest.approx(0.5)
    assert tuple(w.marker.get_data()[1]) == pytest.approx((0.5,))
    w.norm.value = 3.0
    assert w.state.norm_v == pytest.approx(0.9) and "0.900" in w.readout.value
    assert tuple(w.marker.get_data()[0]) == (3.0,) and w.image.value != png
    png = w.image.value
    w.angle.value = 90
    assert w.state.v == pytest.approx([0, 0.9], abs=1e-8) and w.image.value != png
    w.norm.value = 0.0  # s = 0: finite, zero output
    assert w.state.v == [0.0, 0.0]


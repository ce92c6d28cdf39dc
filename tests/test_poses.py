"""Pose geometry: the map, its matrix and its inverse agree, and angles wrap."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import floats, tuples

from capsedu.poses import place, pose_from_matrix, pose_matrix, wrap_angle

finite = dict(allow_nan=False, allow_infinity=False)
# an angle under 2 pi that is not whole reads as radians: pose_matrix refuses it
poses = tuples(floats(-1, 2, **finite), floats(-1, 2, **finite),
               floats(-179.9, 180, **finite).filter(lambda a: abs(a) > 2 * np.pi or a == round(a)),
               floats(0.1, 3, **finite))


def test_a_quarter_turn_by_hand():
    # +90 degrees (counter-clockwise on screen, y down) sends (0, d) below the centre to (d, 0)
    below, right = np.array([0.0, 0.1]), np.array([0.1, 0.0])
    np.testing.assert_allclose(place(below, 0.5, 0.5, 90.0, 1.0), [0.6, 0.5], atol=1e-12)
    np.testing.assert_allclose(place(right, 0.5, 0.5, 90.0, 2.0), [0.5, 0.3], atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(poses, tuples(floats(-1, 1, **finite), floats(-1, 1, **finite)))
def test_the_matrix_is_the_map_and_inverts(pose, point):
    M = pose_matrix(*pose)
    np.testing.assert_allclose(M @ [*point, 1.0], [*place(np.array(point), *pose), 1.0], atol=1e-9)
    x, y, angle, scale = pose_from_matrix(M)
    np.testing.assert_allclose([x, y, scale], [pose[0], pose[1], pose[3]], atol=1e-9)
    assert wrap_angle(angle - pose[2]) == pytest.approx(0, abs=1e-7)


def test_wrap_angle_on_numbers_arrays_and_tensors():
    assert wrap_angle(190.0) == -170.0 and wrap_angle(-180.0) == -180.0 and wrap_angle(540) == -180
    np.testing.assert_allclose(wrap_angle(np.array([359.0, -361.0, 10.0])), [-1.0, -1.0, 10.0])
    assert torch.equal(wrap_angle(torch.tensor([270.0])), torch.tensor([-90.0]))

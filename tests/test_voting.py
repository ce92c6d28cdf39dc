"""The pose-capsule toy of notebook 04: parts predict the face, routing decides by agreement."""

import numpy as np
import pytest

from capsedu.data import faces, sprites
from capsedu.parts.voting import face_lengths, pose_code, predict_face, route_parts, votes
from capsedu.poses import pose_from_matrix, pose_matrix


def test_pose_matrix_round_trip_and_convention():
    M = pose_matrix(0.3, 0.6, 90.0, 2.0)
    assert pose_from_matrix(M) == pytest.approx((0.3, 0.6, 90.0, 2.0))
    # +90 degrees on screen (y down) takes the frame's +x axis to the image's -y (up)
    assert M @ np.array([1.0, 0.0, 1.0]) == pytest.approx([0.3, 0.6 - 2.0, 1.0])


@pytest.mark.parametrize("pose", [(0.5, 0.5, 0, 1), (0.4, 0.55, 30, 0.9), (0.6, 0.45, -120, 1.1)])
def test_every_part_of_a_face_predicts_that_face(pose):
    for part in faces.face_parts(*pose):
        assert predict_face(part) == pytest.approx(pose)


def test_a_displaced_part_predicts_a_displaced_face():
    mouth = faces.face_parts()[3]._replace(x=0.2)
    x, y, _, _ = predict_face(mouth)
    assert x == pytest.approx(0.2) and y == pytest.approx(0.5)


def test_pose_code_compares_poses_by_distance():
    a = pose_code(0.5, 0.5, 0)
    assert np.linalg.norm(a) == pytest.approx(1)
    dots = [a @ pose_code(0.5 + d, 0.5, 0) for d in (0.0, 0.02, 0.05, 0.1, 0.3)]
    assert dots[0] == pytest.approx(1) and all(np.diff(dots) < 0) and dots[-1] < 0.01
    assert a @ pose_code(0.5, 0.5, 180) < 1e-3  # same place, upside down: no agreement


def test_votes_shape_and_shared_background():
    u_hat, present = votes([faces.face_parts() + [sprites.Part("stroke", 0.1, 0.1)]])
    assert u_hat.shape[:3] == (1, 4, 2) and present.all()  # strokes do not vote
    assert np.allclose(u_hat[0, :, 1], u_hat[0, 0, 1])


def test_missing_parts_vote_zeros_and_batches_match_single_scenes():
    three = [p for p in faces.face_parts() if p.kind != "nose"]
    u_hat, present = votes([three, faces.face_parts()])
    assert present.tolist() == [[True, True, False, True], [True] * 4]
    assert u_hat[0, 2].abs().sum() == 0
    lengths = face_lengths([three, faces.face_parts(), faces.scramble(faces.face_parts(), 3)])
    singles = [route_parts(s).lengths[-1, 0] for s in (three, faces.face_parts())]
    assert lengths[:2] == pytest.approx(singles)
    assert lengths[1] > lengths[0] > lengths[2]  # 4 agreeing parts > 3 agreeing > scrambled


def test_routing_groups_a_face_and_rejects_a_scramble():
    face = route_parts(faces.face_parts())
    assert np.allclose(face.c.sum(axis=2), 1)  # softmax over the parents
    assert (face.c[-1, :, 0] > 0.7).all() and face.lengths[-1, 0] > 0.9
    scrambled = route_parts(faces.scramble(faces.face_parts(), seed=3))
    assert scrambled.lengths[-1, 0] < 0.6
    assert (scrambled.c[-1, :, 0] < 0.5).all()


def test_moving_one_part_out_lowers_its_coupling_and_the_face_length():
    parts = faces.face_parts()
    moved = [p._replace(x=0.15, y=0.85) if p.kind == "mouth" else p for p in parts]
    before, after = route_parts(parts), route_parts(moved)
    assert after.c[-1, 3, 0] < 0.4 < before.c[-1, 3, 0]
    assert after.lengths[-1, 0] < before.lengths[-1, 0]
    # more iterations separate the outlier further
    assert route_parts(moved, iterations=5).c[-1, 3, 0] < after.c[-1, 3, 0]


def test_routing_is_equivariant_to_turning_the_face():
    upright, turned = route_parts(faces.face_parts()), route_parts(faces.face_parts(angle=60))
    assert turned.lengths == pytest.approx(upright.lengths, abs=1e-3)
    assert turned.face_pose == pytest.approx((0.5, 0.5, 60), abs=0.1)


def test_softmax_over_children_bug_and_errors():
    from capsedu.buggy import step_softmax_over_children

    buggy = route_parts(faces.face_parts(), step=step_softmax_over_children)
    assert np.allclose(buggy.c.sum(axis=1), 1)  # columns, not rows, sum to 1
    with pytest.raises(ValueError, match="at least one face part"):
        route_parts([sprites.Part("stroke", 0.5, 0.5)])


def test_pose_code_of_a_pose_far_outside_the_image_is_zero_not_nan():
    from capsedu.parts.voting import pose_code

    code = pose_code(np.array([0.5, 1e6]), np.array([0.5, -1e6]), np.array([0.0, 0.0]))
    assert np.isfinite(code).all()
    assert np.linalg.norm(code[0]) == pytest.approx(1.0) and not code[1].any()


def test_notebook_04s_routing_trace_of_a_moved_mouth():
    """04 §4's trace (its cell asks the learner to predict it, so its output is not stored): the
    moved mouth's coupling to the face falls every iteration while the parts in place rise."""
    import torch

    from capsedu import routing_step

    parts = faces.face_parts(0.45, 0.52, 15.0, 0.95)
    moved = [p._replace(x=0.15, y=0.85) if p.kind == "mouth" else p for p in parts]
    u_hat, _ = votes([moved])
    b = torch.zeros(1, 4, 2, dtype=u_hat.dtype)
    to_face, lengths = [], []
    for _ in range(5):
        c, v, b = routing_step(u_hat, b)
        to_face.append(c[0, :, 0].tolist())
        lengths.append(v[0].norm(dim=-1).tolist())
    mouth = faces.PART_KINDS.index("mouth")
    assert [round(c[mouth], 3) for c in to_face] == [0.5, 0.402, 0.295, 0.199, 0.129]
    assert [round(c[0], 3) for c in to_face] == [0.5, 0.601, 0.719, 0.831, 0.914]
    assert [round(face, 3) for face, _ in lengths] == [0.849, 0.885, 0.914, 0.934, 0.944]

"""Part capsules from pixels (notebook 07): targets, the detector's loss and read-out, the
least-squares part -> face transforms, the threshold, and the assembled model."""

import numpy as np
import pytest
import torch

from capsedu.data import faces, sprites
from capsedu.data.faces import part_slots
from capsedu.parts.detector import (
    DetectionQuality,
    PartDetector,
    detection_quality,
    detector_training_set,
    part_targets,
)
from capsedu.parts.pose_net import PoseCapsuleNet, face_frame, fit_threshold, fit_transforms
from capsedu.parts.voting import exact_transforms, face_lengths, predicted_faces
from capsedu.poses import pose_from_matrix


def test_part_targets_hold_each_kind_in_its_slot_and_skip_strokes():
    scene = [sprites.Part("mouth", 0.5, 0.7, 10.0, 0.9), sprites.Part("stroke", 0.1, 0.1),
             sprites.Part("left_eye", 0.3, 0.4)]
    t = part_targets([scene])
    assert t.shape == (1, 4, 5)
    assert t[0, 3].tolist() == pytest.approx([1.0, 0.5, 0.7, 10.0, 0.9])
    assert t[0, 0].tolist() == pytest.approx([1.0, 0.3, 0.4, 0.0, 1.0])
    assert t[0, 1].sum() == 0 and t[0, 2].sum() == 0  # right eye and nose are missing


def test_scattered_parts_are_inside_any_angle_and_deterministic():
    x, scenes = faces.scattered(30, seed=2)
    assert x.shape == (30, 1, 32, 32)
    assert torch.equal(x, faces.scattered(30, seed=2)[0])
    angles = [p.angle for s in scenes for p in s if p.kind in faces.PART_KINDS]
    assert min(angles) < -90 and max(angles) > 90  # any angle, not upright
    counts = {sum(p.kind in faces.PART_KINDS for p in s) for s in scenes}
    assert counts <= {1, 2, 3, 4} and len(counts) > 1
    for image, scene in zip(x[:5], scenes[:5], strict=True):  # what the parts say is what we see
        np.testing.assert_allclose(image[0].numpy(), sprites.render(scene), atol=1e-6)


def test_detector_training_set_shapes_and_no_faces():
    x, t = detector_training_set(18, seed=0)
    assert x.shape == (18, 1, 32, 32) and t.shape == (18, 4, 5)
    assert ((t[..., 0] == 0) | (t[..., 0] == 1)).all()
    # parts only, at many sizes: never the four parts of a face in their places
    scenes = faces.scattered(18, 0, scale=(0.5, 1.6))[1]
    torch.testing.assert_close(x, faces.scattered(18, 0, scale=(0.5, 1.6))[0])
    scales = [p.scale for ps in scenes for p in ps if p.kind in faces.PART_KINDS]
    assert min(scales) < 0.7 and max(scales) > 1.3


def test_detector_output_shapes_and_bad_input():
    det = PartDetector()
    where, regress = det(torch.zeros(2, 1, 32, 32))
    assert where.shape == (2, 4, 16 * 16 + 1) and regress.shape == (2, 4, 5, 256)
    with pytest.raises(ValueError, match=r"\[N, 1, 32, 32\]"):
        det(torch.zeros(2, 1, 28, 28))


def test_detector_loss_is_lowest_for_the_right_cell_and_pose():
    """Set the head by hand so that the detector says exactly what the target says; the loss
    must then be smaller than for a target elsewhere, and its pose part must vanish."""
    det = PartDetector()
    target = part_targets([[sprites.Part("nose", (5 + 0.75) / 16, (9 + 0.25) / 16, 30.0, 1.0)]])
    with torch.no_grad():
        det.head.weight.zero_()
        bias = torch.zeros(4, 6, 1)
        bias[2, 1:, 0] = torch.tensor([0.25, -0.25, np.cos(np.radians(30)), np.sin(np.radians(30)),
                                       0.0])
        det.head.bias.copy_(bias.flatten())
        det.absent.fill_(-20.0)
    # the where-logits are all equal, so the cross-entropy is log(257) for the nose; only the
    # nose's pose is compared, and it is exact everywhere
    loss, predictions = det.training_loss(torch.zeros(1, 1, 32, 32), target)
    assert predictions is None
    missing = 3 * np.log1p(256 * np.exp(20.0))  # the three absent kinds' cross-entropy
    assert loss.item() == pytest.approx((np.log(257) + missing) / 4, rel=1e-4)


def test_detect_reads_the_pose_at_the_winning_cell():
    det = PartDetector()
    with torch.no_grad():
        det.head.weight.zero_()
        det.head.bias.zero_()
        det.absent.fill_(-30.0)
    where, regress = det(torch.zeros(1, 1, 32, 32))  # a fixed input; patch the forward below
    where = where.clone()
    where[0, 1, 3 * 16 + 7] = 10.0  # right eye: row 3, column 7
    regress = regress.clone()
    regress[0, 1, :, 3 * 16 + 7] = torch.tensor([0.1, -0.2, 0.0, 1.0, np.log(0.9)])
    det.forward = lambda x: (where, regress)
    poses, presence = det.detect(torch.zeros(1, 1, 32, 32))
    assert poses[0, 1].tolist() == pytest.approx([(7.5 + 0.1) / 16, (3.5 - 0.2) / 16, 90.0, 0.9],
                                                 abs=1e-5)
    assert presence[0].tolist() == pytest.approx([1.0] * 4)


def test_fit_transforms_recovers_the_offsets_of_clean_faces():
    """From exact part poses, the fitted W_i must map every part onto the faces' frame: the
    exact inverse offset, shifted by the mean offset (the frame is the parts' centre)."""
    rng = np.random.default_rng(0)
    scenes = [faces._face_parts(*rng.uniform([0.4, 0.4, -40, 0.85], [0.6, 0.6, 40, 1.1]))
              for _ in range(50)]
    poses, _ = part_slots(scenes)
    W = fit_transforms(poses)
    mean = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    for i, kind in enumerate(faces.PART_KINDS):
        dx, dy = np.subtract(faces.CANONICAL_OFFSETS[kind], mean)
        want = np.linalg.inv([[1, 0, dx], [0, 1, dy], [0, 0, 1]])
        np.testing.assert_allclose(W[i], want, atol=1e-9)
    # and all four parts then predict the same face: the frame of the parts
    ghosts = predicted_faces(poses, W)  # [50, 4, 4]
    np.testing.assert_allclose(ghosts, ghosts[:, :1].repeat(4, axis=1), atol=1e-9)
    frame = pose_from_matrix(face_frame(poses))
    np.testing.assert_allclose(ghosts[:, 0, 0], frame[0], atol=1e-9)


def test_fit_threshold_separates_and_sits_in_the_middle():
    assert fit_threshold(np.array([0.8, 0.9]), np.array([0.2, 0.4])) == pytest.approx(0.6)
    # one non-face above one face: the best cut misclassifies one of them, not more
    t = fit_threshold(np.array([0.5, 0.9, 0.95]), np.array([0.1, 0.6]))
    assert 0.6 <= t < 0.9


def test_pose_capsule_net_routes_exact_detections_like_notebook_04():
    """With a detector that reports the true parts, the model is notebook 04's: a face routes
    to a long face capsule, a scramble does not."""
    model = PoseCapsuleNet()
    model.W.copy_(torch.from_numpy(exact_transforms()))
    model.threshold.fill_(0.9)
    scenes = [faces.face_parts(0.5, 0.5, 20.0), faces.scramble(faces.face_parts(), seed=4)]
    truth = torch.from_numpy(part_slots(scenes)[0]).float()
    model.detector.detect = lambda x: (truth, torch.ones(2, 4))
    lengths = model(torch.zeros(2, 1, 32, 32))
    assert lengths.shape == (2, 2)
    assert lengths[0, 0] > 0.9 > lengths[1, 0]
    assert model.predict(torch.zeros(2, 1, 32, 32)).tolist() == [1, 0]
    want = face_lengths(scenes)
    np.testing.assert_allclose(model.face_probability(torch.zeros(2, 1, 32, 32)).numpy(), want,
                               rtol=1e-5)


def test_detection_quality_of_a_detector_that_reads_the_truth():
    det = PartDetector()
    scenes = [faces.face_parts(0.5, 0.5, 10.0), [sprites.Part("nose", 0.3, 0.6, -170.0, 1.0)]]
    truth = part_targets(scenes)
    det.detect = lambda x: (truth[..., 1:], truth[..., 0])
    q = detection_quality(det, torch.zeros(2, 1, 32, 32), scenes)
    assert q == DetectionQuality(presence=1.0, position_px=0.0, angle_deg=0.0, good=1.0)
    # now every angle is 180 degrees off, and the lone nose 3 px to the right
    off = truth[..., 1:].clone()
    off[..., 2] += 180.0
    off[1, 2, 0] += 3 / 32
    det.detect = lambda x: (off, truth[..., 0])
    q = detection_quality(det, torch.zeros(2, 1, 32, 32), scenes)
    assert q.angle_deg == pytest.approx(180.0) and q.good == 0.0
    assert q.position_px == pytest.approx(0.0)  # the median of 4 zeros and one 3


def test_the_shipped_pose_capsules_are_equivariant_and_their_verdict_invariant():
    """Turn a face through a full circle: the detected part angles and the face capsule's angle
    follow the turn, and the face capsule's length stays above the threshold."""
    from capsedu.parts.pose_net import rotation_sweep
    from capsedu.parts.training import load_face_models

    model = load_face_models([0], ["pose capsules"])["pose capsules"][0]
    angles = np.arange(0, 360, 30)
    sweep = rotation_sweep(model, faces.face_parts(), angles)
    assert sweep.part_angles.shape == (12, 4) and sweep.face_length.shape == (12,)

    def wrap(a):
        return (a + 180) % 360 - 180

    assert np.abs(wrap(sweep.part_angles - angles[:, None])).max() < 25  # small eyes: ~20°
    assert np.abs(wrap(sweep.face_angle - angles)).max() < 15
    assert (sweep.face_length > model.threshold.item()).all()


def test_format_offsets_of_the_exact_transforms_are_the_generators_offsets():
    from capsedu.parts.pose_net import format_offsets

    lines = format_offsets(exact_transforms()).splitlines()
    assert lines[0].split("|")[1].strip() == "learned offset (x, y)"
    centre = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    for kind, line in zip(faces.PART_KINDS, lines[1:], strict=True):
        name, learned, true = (cell.strip() for cell in line.split("|"))
        dx, dy = np.subtract(faces.CANONICAL_OFFSETS[kind], centre)
        assert name == kind and true == f"({dx:+.3f}, {dy:+.3f})"
        offset = np.array(faces.CANONICAL_OFFSETS[kind])  # exact W_i^-1 moves by the offset
        assert learned == f"({offset[0]:+.3f}, {offset[1]:+.3f})"


def test_pose_capsule_net_iterations_is_its_hparam():
    model = PoseCapsuleNet(iterations=2)
    assert model.iterations == 2
    model.iterations = 5
    assert model.hparams["iterations"] == 5


def test_rotation_sweep_errors_are_the_wrapped_distance_from_the_turn():
    from capsedu.parts.pose_net import rotation_sweep

    model = PoseCapsuleNet()
    angles = np.array([0, 90, 350])
    read = torch.tensor([[10.0, -10.0, 0.0, 179.0], [80.0, 90.0, 100.0, 90.0],
                         [-5.0, 355.0, 10.0, 170.0]])  # the angles the detector "reads"
    model.detector.detect = lambda x: (torch.cat([torch.full((3, 4, 2), 0.5), read[..., None],
                                                  torch.ones(3, 4, 1)], dim=-1), torch.ones(3, 4))
    sweep = rotation_sweep(model, faces.face_parts(), angles)
    np.testing.assert_allclose(sweep.part_error, [[10, 10, 0, 179], [10, 0, 10, 0],
                                                     [5, 5, 20, 180]], atol=1e-4)
    assert sweep.face_error.shape == (3,) and (sweep.face_error <= 180).all()


def test_format_detection_quality_has_one_row_of_detection_quality_per_kind():
    from capsedu.parts.detector import format_detection_quality
    from capsedu.parts.scoring import held_out

    torch.manual_seed(0)
    det = PartDetector().eval()
    lines = format_detection_quality(det, ["face", "permuted"], 8).splitlines()
    assert len(lines) == 3 and lines[0].split("|")[0].strip() == "kind"
    q = detection_quality(det, *held_out("permuted", 8))
    cells = [cell.strip() for cell in lines[2].split("|")]
    assert cells == ["permuted", f"{q.presence:.3f}", f"{q.position_px:.2f} px",
                     f"{q.angle_deg:.1f}°", f"{q.good:.3f}"]

"""One protocol scores every face model: ``model.score(x, label) -> (score, cut)``; verdicts,
part slots and the sets no model trained on."""

import numpy as np
import pytest
import torch

from capsedu import BagOfPartsCNN, CapsNet
from capsedu.baselines import LogitClassifier
from capsedu.data import faces
from capsedu.parts.pose_mlp import FEATURES, PartPoseMLP
from capsedu.parts.pose_net import PoseCapsuleNet
from capsedu.parts.scoring import FACE, UNSEEN, UNSEEN_FACES, held_out, verdicts
from capsedu.parts.training import PIXEL_CAPSNET


class Logits(LogitClassifier):
    def __init__(self, logits):
        super().__init__()
        self.logits = torch.nn.Parameter(torch.tensor(logits))

    def forward(self, x):
        return self.logits.expand(len(x), -1)


def test_a_classifiers_cut_is_the_probability_at_a_tie():
    x = torch.zeros(2, 1, 32, 32)
    p, cut = Logits([0.3, 1.2]).score(x, 1)
    assert p[0].item() == pytest.approx(1 / (1 + np.exp(-0.9))) and cut.tolist() == [0.5, 0.5]
    # three classes: class 0 would win at logit 2.0 (tying class 2), where its probability is
    # e^2 / (e^2 + e^2 + e^-1)
    p, cut = Logits([0.0, -1.0, 2.0]).score(x, 0)
    assert cut[0].item() == pytest.approx(np.exp(2) / (2 * np.exp(2) + np.exp(-1)))
    assert (p < cut).all()  # and it is not predicted
    model = Logits([0.0, 3.0, 2.0])
    for label in range(3):
        p, cut = model.score(x, label)
        assert ((p > cut) == (model.predict(x) == label)).all()


def test_a_capsnets_cut_is_the_longest_other_capsule():
    torch.manual_seed(0)
    net = CapsNet(PIXEL_CAPSNET).eval()
    x = held_out("face", 4)[0]
    lengths = net(x).lengths
    score, cut = net.score(x, FACE)
    torch.testing.assert_close(score, lengths[:, FACE])
    torch.testing.assert_close(cut, lengths[:, 1 - FACE])


def test_the_pose_capsule_model_scores_only_faces():
    model = PoseCapsuleNet().eval()
    model.threshold.fill_(0.7)
    score, cut = model.score(torch.zeros(3, 1, 32, 32), FACE)
    assert score.shape == (3,) and cut.tolist() == pytest.approx([0.7] * 3)
    with pytest.raises(ValueError, match="face label 1"):
        model.score(torch.zeros(1, 1, 32, 32), 0)


def test_verdicts_are_each_models_score_against_its_own_cut():
    x = held_out("face", 1)[0]
    out = verdicts({"yes": Logits([0.0, 1.0]), "no": Logits([1.0, 0.0]),
                    "cnn": BagOfPartsCNN().eval()}, x)
    assert out["called_face"]["yes"] and not out["called_face"]["no"]
    assert out["threshold"] == {"yes": 0.5, "no": 0.5, "cnn": 0.5}
    with pytest.raises(ValueError, match="at least one"):
        verdicts({}, x)


def test_part_slots_put_each_kind_in_its_slot_and_skip_strokes():
    scene = [faces.Part("mouth", 0.5, 0.8, 10.0, 1.0), faces.Part("stroke", 0.1, 0.1),
             faces.Part("left_eye", 0.3, 0.3, -5.0, 0.9)]
    poses, presence = faces.part_slots([scene, []])
    assert presence.tolist() == [[1, 0, 0, 1], [0, 0, 0, 0]]
    assert poses[0, 3].tolist() == [0.5, 0.8, 10.0, 1.0]
    assert poses[0, 0].tolist() == [0.3, 0.3, -5.0, 0.9] and not poses[1].any()


def test_face_centre_ignores_strokes_and_needs_a_part():
    parts = faces.face_parts(0.4, 0.6) + [faces.Part("stroke", 0.95, 0.95)]
    mean = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    assert faces.face_centre(parts) == pytest.approx((0.4 + mean[0], 0.6 + mean[1]))
    with pytest.raises(ValueError, match="no face part"):
        faces.face_centre([faces.Part("stroke", 0.5, 0.5)])


def test_unseen_sets_lie_outside_the_training_range():
    for name, (kind, poses) in UNSEEN.items():
        images, scenes = held_out(name, 6)
        assert images.shape == (6, 1, 32, 32) and len(scenes) == 6
        assert poses != faces.TRAINING_POSES and kind in faces.KINDS
        lo, hi = faces.TRAINING_POSES.scale
        assert poses.scale[1] <= 0.8 * lo or poses.scale[0] >= 1.2 * hi or poses.scale == (lo, hi)
    assert set(UNSEEN_FACES) < set(UNSEEN) and "one part moved" not in UNSEEN_FACES
    assert all(UNSEEN[name][0] == "face" for name in UNSEEN_FACES)


def test_the_part_pose_mlp_reads_presence_masked_poses():
    model = PartPoseMLP().eval()
    feats = model.features(torch.zeros(2, 1, 32, 32))
    assert feats.shape == (2, 4 * FEATURES)
    presence = feats.view(2, 4, FEATURES)[..., 0]
    # every pose entry is scaled by its part's presence
    assert (feats.view(2, 4, FEATURES)[..., 1:].abs() <= 10 * presence[..., None] + 1e-6).all()
    model.train()
    assert not model.detector.training and model.mlp.training  # the detector stays frozen
    assert not any(p.requires_grad for p in model.detector.parameters())

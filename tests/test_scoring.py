"""One protocol scores every face model: ``model.score(x, label) -> (score, cut)``; verdicts,
part slots and the sets no model trained on."""

import numpy as np
import pytest
import torch

from capsedu import BagOfPartsCNN, CapsNet
from capsedu.baselines import LogitClassifier
from capsedu.data import faces, sprites
from capsedu.parts.pose_mlp import FEATURES, PartPoseMLP
from capsedu.parts.pose_net import PoseCapsuleNet
from capsedu.parts.scoring import FACE, UNSEEN, UNSEEN_FACES, held_out, verdicts
from capsedu.recipes import PIXEL_CAPSNET


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
    assert out.called_face["yes"] and not out.called_face["no"]
    assert out.threshold == {"yes": 0.5, "no": 0.5, "cnn": 0.5}
    with pytest.raises(ValueError, match="at least one"):
        verdicts({}, x)


def test_part_slots_put_each_kind_in_its_slot_and_skip_strokes():
    scene = [sprites.Part("mouth", 0.5, 0.8, 10.0, 1.0), sprites.Part("stroke", 0.1, 0.1),
             sprites.Part("left_eye", 0.3, 0.3, -5.0, 0.9)]
    poses, presence = faces.part_slots([scene, []])
    assert presence.tolist() == [[1, 0, 0, 1], [0, 0, 0, 0]]
    assert poses[0, 3].tolist() == [0.5, 0.8, 10.0, 1.0]
    assert poses[0, 0].tolist() == [0.3, 0.3, -5.0, 0.9] and not poses[1].any()


def test_face_centre_ignores_strokes_and_needs_a_part():
    parts = faces.face_parts(0.4, 0.6) + [sprites.Part("stroke", 0.95, 0.95)]
    mean = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    assert faces.face_centre(parts) == pytest.approx((0.4 + mean[0], 0.6 + mean[1]))
    with pytest.raises(ValueError, match=r"face_centre\(\): parts must hold a face part"):
        faces.face_centre([sprites.Part("stroke", 0.5, 0.5)])


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


def test_format_accuracies_rates_and_fooled_from_hand_made_runs():
    from capsedu import count_parameters
    from capsedu.face_tables import face_rate_table, format_accuracies, format_fooled
    from capsedu.parts.scoring import SeedRuns

    cnn = BagOfPartsCNN(channels=(2,))
    rates = {"face": [1.0, 0.8], "nonface": [0.0, 0.2], "rotated": [0.5, 0.5],
             **{k: [0.75, 0.25] if k == "permuted" else [0.6, 0.8]
                for k in faces.SCRAMBLED_KINDS}}
    rates["off-centre upside_down"] = [0.0, 0.0]  # a kind with a long name
    runs = {"a CNN": SeedRuns("a CNN", [0, 1], [cnn, cnn], rates)}
    # accuracy per seed: (1 + 1 - 0) / 2 = 1.0 and (0.8 + 1 - 0.2) / 2 = 0.8; the t interval's
    # half-width for two seeds: t(1 d.f.) 12.706 * sd 0.1414 / sqrt(2) = 1.271
    assert format_accuracies(runs) == (
        f"           a CNN: {count_parameters(cnn):>9,} parameters, "
        "faces vs non-faces accuracy 0.900 ± 1.271 (95 % t interval over 2 seeds)")
    recorded = {"a CNN": SeedRuns("a CNN", [0, 1], [], rates)}  # rates without models
    assert format_accuracies(recorded) == (
        "           a CNN: parameters not recorded, faces vs non-faces accuracy 0.900 ± 1.271 "
        "(95 % t interval over 2 seeds)")
    assert "face rate over seeds: mean ± half-width of its 95 % t interval" in face_rate_table(runs)
    wide = face_rate_table(runs, ["face", "off-centre upside_down"], width=19).splitlines()
    assert wide[1].startswith("face" + " " * 19) and wide[2].startswith("off-centre upside_down ")
    assert [len(line.split("(")[0].rstrip()) for line in wide] == [23 + 19] * 3  # aligned
    line = format_fooled(runs)
    fooled = [k for k in faces.SCRAMBLED_KINDS if k != "permuted"]  # 0.7 > 0.5; permuted 0.5
    assert "accepts 90% of faces, 50% of turned faces" in line
    assert f"by: {', '.join(fooled)}" in line
    # the standard deviation over seeds (ddof 1): 0.354 on permuted, 0.141 on the three others
    spread = np.mean([np.std([0.75, 0.25], ddof=1)] + [np.std([0.6, 0.8], ddof=1)] * 3)
    assert line.endswith(f"spread over seeds on scrambles: {spread:.2f}")


def test_turned_face_scores_are_each_models_scores_on_the_turned_faces():
    from capsedu.parts.scoring import face_scores, turned_face_scores

    torch.manual_seed(0)
    model = BagOfPartsCNN(channels=(2,)).eval()
    parts = faces.face_parts()
    scores = turned_face_scores({"cnn": model}, parts, [0, 90])
    score, cut = scores["cnn"]
    assert score.shape == cut.shape == (2,)
    for k, angle in enumerate([0, 90]):
        x = torch.from_numpy(sprites.render(faces.rotate(parts, angle)))[None, None]
        expected = face_scores(model, x)
        assert score[k].item() == pytest.approx(expected[0].item(), abs=1e-6)
        assert cut[k].item() == pytest.approx(expected[1].item())

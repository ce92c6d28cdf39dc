"""The faces experiment: a balanced, seeded training set; face rates; training beats chance."""

import numpy as np
import pytest
import torch

from capsedu import BagOfPartsCNN, DeepCNN
from capsedu.baselines import LogitClassifier
from capsedu.data import faces, sprites
from capsedu.data.face_ink import ink_gap, windows_holding_both
from capsedu.data.faces import spread, turn_over
from capsedu.exercises import check_receptive_field
from capsedu.parts.scoring import (
    FACE,
    called_face,
    face_probability,
    face_rate_by_angle,
    face_rates,
    face_threshold,
    held_out,
    measure_seeds,
    probe_rates,
    spread_faces,
    turned_faces,
)
from capsedu.parts.training import (
    BASELINES,
    FACE_MODELS,
    checkpoint_name,
    face_model_recipe,
    face_recipe_name,
    train_face_model,
    training_set,
)
from capsedu.recipes import PIXEL_CAPSNET, RECIPES


class AlwaysFace(LogitClassifier):
    """Calls every image a face (logits favour class 1)."""

    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.tensor([0.0, 1.0]))

    def forward(self, x):
        return self.bias.expand(len(x), 2)

    def predict(self, x):
        return self(x).argmax(dim=1)


def test_training_set_is_balanced_shuffled_and_deterministic():
    x, y = training_set(40, seed=3)
    assert x.shape == (40, 1, 32, 32) and y.shape == (40,)
    assert y.sum() == 20  # half faces
    assert 0 < y[:20].sum() < 20  # shuffled, not 20 faces then 20 non-faces
    x2, y2 = training_set(40, seed=3)
    assert torch.equal(x, x2) and torch.equal(y, y2)
    assert not torch.equal(x, training_set(40, seed=4)[0])


def test_training_set_has_no_scrambles():
    # the label-1 images are exactly faces.dataset("face"), the label-0 ones "nonface"
    x, y = training_set(20, seed=0)
    for label, kind in ((1, "face"), (0, "nonface")):
        want = faces.dataset(kind, 10, seed=0)[0]
        torch.testing.assert_close(x[y == label].sum(dim=0), want.sum(dim=0))  # the same images


@pytest.mark.parametrize("n, message", [(0, "n must be an integer >= 2"),
                                        (3, "n must be an even number"),
                                        (-2, "n must be an integer >= 2")])
def test_training_set_rejects_odd_or_tiny_sizes(n, message):
    with pytest.raises(ValueError, match=rf"training_set\(\): {message}"):
        training_set(n)


def test_held_out_sets_differ_from_training_sets():
    train_faces = faces.dataset("face", 8, seed=0)[0]
    assert not torch.equal(held_out("face", 8)[0], train_faces)


def test_face_rates_of_a_model_that_always_says_face():
    rates = face_rates(AlwaysFace(), n=6)
    assert rates == {kind: 1.0 for kind in faces.KINDS}
    assert list(face_rates(AlwaysFace(), kinds=("swapped",), n=6)) == ["swapped"]


def test_face_probability_is_a_softmax():
    p = face_probability(AlwaysFace(), torch.zeros(3, 1, 32, 32))
    assert p.shape == (3,) and p == pytest.approx(torch.sigmoid(torch.tensor(1.0)).item())


def test_unknown_face_model_is_rejected():
    with pytest.raises(ValueError, match="bag-of-parts CNN"):
        train_face_model("resnet")


def test_baselines_and_their_receptive_fields():
    assert BASELINES == ("bag-of-parts CNN", "deep CNN")
    built = [type(face_model_recipe(name).build()) for name in BASELINES]
    assert built == [BagOfPartsCNN, DeepCNN]
    assert BagOfPartsCNN().receptive_field == 5 and DeepCNN().receptive_field == 38


def test_every_face_model_has_its_recipe_in_the_one_table():
    """The recipes that made the shipped face models (notebook 01's for the CNNs): each a row of
    recipes.RECIPES, trained by python -m capsedu.parts.training, seed 0 (and 1, 2)."""
    settings = {name: (r.examples, r.epochs, r.batch_size, r.lr, r.lr_decay, r.seed)
                for name in FACE_MODELS for r in [RECIPES[face_recipe_name(name)]]}
    assert settings == {"bag-of-parts CNN": (2000, 4, 64, 3e-3, 0.7, 0),
                        "deep CNN": (2000, 4, 64, 3e-3, 0.7, 0),
                        "pixel CapsNet": (2000, 6, 64, 2e-3, 0.8, 0),
                        "pose capsules": (6000, 14, 64, 3e-3, 0.75, 0),
                        "part-pose MLP": (6000, 10, 64, 3e-3, 0.8, 0)}
    for name in FACE_MODELS:
        assert RECIPES[face_recipe_name(name)].trainer == "capsedu.parts.training"
    trial = face_model_recipe("deep CNN", examples=400, epochs=1)
    assert (trial.examples, trial.epochs, trial.lr) == (400, 1, 3e-3)


def test_a_trained_model_beats_chance_and_runs_are_seeded(on_the_cpu):
    model = train_face_model("deep CNN", seed=0, progress=False, examples=400, epochs=2)
    runs = measure_seeds("deep CNN", [model], [0], kinds=("face", "nonface"), n_test=100)
    assert runs.rates["face"][0] - runs.rates["nonface"][0] > 0.3  # chance: 0
    assert runs.interval("face") is None and runs.mean("face") == runs.rates["face"][0]
    again = train_face_model("deep CNN", seed=0, progress=False, examples=400, epochs=2)
    torch.testing.assert_close(again.classifier.weight, runs.models[0].classifier.weight)


def test_spread_keeps_a_face_layout_and_widens_gaps():
    parts = faces.face_parts() + [sprites.Part("stroke", 0.2, 0.5)]
    same = spread(parts, 1.0)  # factor 1: nothing moves
    assert np.allclose([p[1:] for p in same], [p[1:] for p in parts], atol=1e-12)
    wide = {p.kind: p for p in spread(parts, 1.4)}
    left, right = wide["left_eye"], wide["right_eye"]
    assert right.x - left.x == pytest.approx(1.4 * 0.36)  # the canonical eye distance is 0.36
    assert wide["stroke"].x == pytest.approx(0.5 - 1.4 * 0.3)  # strokes move with the layout
    assert left.angle == 0 and left.scale == 1  # sprites keep their size and angle
    torch.testing.assert_close(spread_faces(1.0, n=3), held_out("face", 3)[0])
    assert not torch.equal(spread_faces(1.2, n=3), held_out("face", 3)[0])
    with pytest.raises(ValueError, match=r"factor must be a finite number >= 1 and <= 1.3"):
        spread_faces(1.4, n=3)


def test_spread_faces_keep_their_parts_inside_the_image():
    def touching(factor):
        scenes = [spread(ps, factor) for ps in held_out("face", 400)[1]]
        images = [sprites.render([p for p in ps if p.kind != sprites.STROKE]) for ps in scenes]
        return sum(max(im[0].max(), im[-1].max(), im[:, 0].max(), im[:, -1].max()) > 0.2
                   for im in images)

    assert touching(1.2) == 0 and touching(1.3) < 4  # under 1% of 400


def test_turn_over_turns_only_the_named_parts_in_place():
    parts = faces.face_parts(angle=10) + [sprites.Part("stroke", 0.2, 0.5, 30)]
    turned = {p.kind: p for p in turn_over(parts, ("mouth", "nose"))}
    assert turned["mouth"].angle == 190 and turned["nose"].angle == 190
    assert turned["left_eye"].angle == 10 and turned["stroke"].angle == 30
    assert [p[1:3] for p in turned.values()] == [p[1:3] for p in parts]  # nothing moves
    every = turn_over(parts, faces.PART_KINDS)
    assert [p.angle for p in every] == [190] * 4 + [30]
    with pytest.raises(TypeError, match=r"turn_over\(\): kinds must be a tuple or a list"):
        turn_over(parts, "mouth")  # a string, not a tuple of kinds


def test_turned_faces_are_the_held_out_faces_with_parts_turned():
    torch.testing.assert_close(turned_faces((), n=3), held_out("face", 3)[0])
    scenes = held_out("face", 3)[1]
    want = torch.stack([torch.from_numpy(sprites.render(turn_over(ps, ["nose"])))[None]
                        for ps in scenes])
    torch.testing.assert_close(turned_faces(["nose"], n=3), want)
    with pytest.raises(ValueError, match=r"kinds\[0\] must be one of 'left_eye'.*got 'ear'"):
        turned_faces(["ear"], n=3)


def test_probe_rates_has_one_row_per_model_and_one_column_per_set():
    class NeverFace(AlwaysFace):
        def predict(self, x):
            return torch.zeros(len(x), dtype=torch.long)

    probe = {"a": torch.zeros(4, 1, 32, 32), "b": torch.ones(2, 1, 32, 32)}
    rates = probe_rates([AlwaysFace(), NeverFace()], probe)
    assert rates.tolist() == [[1.0, 1.0], [0.0, 0.0]]


def test_ink_gap_and_windows_holding_both_parts():
    face = faces.face_parts()
    assert ink_gap(face, "left_eye", "right_eye") == pytest.approx(7.0)  # same row, 7 px apart
    assert ink_gap(face, "nose", "left_eye") == ink_gap(face, "left_eye", "nose")
    counts = [windows_holding_both(face, "left_eye", "nose", w) for w in (1, 3, 5, 7)]
    assert counts[:2] == [0, 0] and 0 < counts[2] < counts[3]  # wider windows catch both more
    assert windows_holding_both(face, "left_eye", "right_eye", 5) == 0  # 7 px apart
    assert windows_holding_both(face, "left_eye", "mouth", 63) == 32 * 32  # every window
    with pytest.raises(ValueError, match="odd"):
        windows_holding_both(face, "left_eye", "nose", 4)


def test_face_rate_by_angle_bins_the_rotated_faces():
    centres, rates = face_rate_by_angle(AlwaysFace(), n=40, width=45)
    assert centres.tolist() == [22.5, 67.5, 112.5, 157.5]
    assert rates[~torch.tensor(rates).isnan().numpy()] == pytest.approx(1.0)


def reference_rf(layers):
    r, jump = 1, 1
    for kernel, stride in layers:
        r, jump = r + (kernel - 1) * jump, jump * stride
    return r


def rf_stub(layers):
    raise NotImplementedError("Exercise: compute the receptive field")


def test_receptive_field_checker_accepts_the_reference_and_the_solution(capsys):
    import importlib.util
    from pathlib import Path

    assert check_receptive_field(reference_rf) is True
    assert "PASS" in capsys.readouterr().out
    path = Path(__file__).parent.parent / "notebooks/solutions/01_what_pooling_throws_away.py"
    spec = importlib.util.spec_from_file_location("solution01", path)
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    assert check_receptive_field(solution.my_receptive_field) is True
    assert solution.layers_needed == 16
    assert solution.wider_rf == 7


def test_receptive_field_checker_accepts_a_whole_number_given_as_a_float(capsys):
    import numpy as np

    assert check_receptive_field(lambda layers: float(reference_rf(layers))) is True
    assert check_receptive_field(lambda layers: np.float32(reference_rf(layers))) is True
    assert "FAIL" not in capsys.readouterr().out


def test_receptive_field_checker_reports_the_stub(capsys):
    assert check_receptive_field(rf_stub) is None
    assert "not implemented yet" in capsys.readouterr().out


def test_receptive_field_checker_rejects_known_wrong_versions(capsys):
    wrong = [
        lambda layers: 1 + sum(k - 1 for k, _ in layers),  # forgets the strides
        lambda layers: sum(k for k, _ in layers),  # adds the kernels
        lambda layers: reference_rf([(k, s) for k, s in layers if k != 2]),  # skips the pools
        lambda layers: reference_rf(layers) + 0.5,  # not a whole number of pixels
        lambda layers: str(reference_rf(layers)),  # not a number
        lambda layers: True,  # a bool is not a size
        lambda layers: 32,  # "the image size"
    ]
    for fn in wrong:
        assert check_receptive_field(fn) is False
        assert "FAIL" in capsys.readouterr().out


def test_pose_capsules_train_end_to_end_and_survive_a_checkpoint(tmp_path):
    from capsedu import checkpoints

    model = train_face_model("pose capsules", progress=False, examples=24, epochs=1)
    assert model.W.shape == (4, 3, 3) and model.W[:, 2].tolist() == [[0, 0, 1]] * 4
    assert 0 < model.threshold.item() < 1
    assert set(model.predict(held_out("face", 4)[0]).tolist()) <= {0, 1}
    checkpoints.save(model, "pose", tmp_path, command="test")
    loaded = checkpoints.pretrained("pose", tmp_path)
    assert torch.equal(loaded.W, model.W) and loaded.threshold == model.threshold
    x = held_out("rotated", 4)[0]
    torch.testing.assert_close(loaded.face_probability(x), model.face_probability(x))


def test_face_probability_of_capsule_models_is_the_face_capsule_length():
    from capsedu import CapsNet

    torch.manual_seed(0)
    net = CapsNet(PIXEL_CAPSNET).eval()
    x = held_out("face", 3)[0]
    torch.testing.assert_close(face_probability(net, x), net(x).lengths[:, FACE])


def test_face_models_have_seeded_checkpoint_names_and_unknown_names_fail():
    assert checkpoint_name("pose capsules", 2) == "faces-pose-capsules-seed2"
    assert checkpoint_name("bag-of-parts CNN", 0) == "faces-bag-of-parts-cnn-seed0"
    with pytest.raises(ValueError, match="pixel CapsNet"):
        train_face_model("transformer")


def test_face_threshold_agrees_with_every_models_verdict():
    from capsedu import CapsNet

    torch.manual_seed(0)
    x = torch.cat([held_out(kind, 6)[0] for kind in ("face", "permuted", "nonface")])
    for model in (BagOfPartsCNN().eval(), CapsNet(PIXEL_CAPSNET).eval(), AlwaysFace()):
        said = called_face(model, x)
        above = face_probability(model, x) > face_threshold(model, x)
        assert torch.equal(said, above), type(model).__name__


@pytest.fixture(scope="module")
def shipped_pose_model():
    from capsedu.parts.training import load_face_models

    return load_face_models([0], ["pose capsules"])["pose capsules"][0]


def refitted_copy(model, iterations, n, seed):
    """The independent reference: a new model with the same weights, routing ``iterations``
    times, its readout refitted (how notebook 07 once did it)."""
    from capsedu.parts.pose_net import PoseCapsuleNet
    from capsedu.parts.training import fit_readout

    copy = PoseCapsuleNet(**{**model.hparams, "iterations": iterations})
    copy.load_state_dict(model.state_dict())
    return fit_readout(copy.eval(), n, seed)


def test_refitted_is_a_refitted_copy_inside_and_the_shipped_model_after(shipped_pose_model):
    from capsedu.parts.training import refitted

    model = shipped_pose_model
    W, threshold = model.W.clone(), model.threshold.clone()
    copy = refitted_copy(model, 1, 60, seed=0)
    x = held_out("permuted", 20)[0]
    with refitted(model, 1, 60, seed=0) as routed:
        assert routed is model and model.iterations == 1
        assert torch.equal(model.W, copy.W) and torch.equal(model.threshold, copy.threshold)
        torch.testing.assert_close(model.face_probability(x), copy.face_probability(x))
    assert model.iterations == 3
    assert torch.equal(model.W, W) and torch.equal(model.threshold, threshold)
    with pytest.raises(RuntimeError), refitted(model, 2, 60, seed=0):
        raise RuntimeError("a failure inside the block")
    assert model.iterations == 3
    assert torch.equal(model.W, W) and torch.equal(model.threshold, threshold)


def test_routing_ablation_measures_what_refitted_copies_measure(shipped_pose_model):
    from capsedu.parts.training import format_ablation, format_margins, routing_ablation

    model = shipped_pose_model
    state = {k: v.clone() for k, v in model.state_dict().items()}
    ablation = routing_ablation([model], [0], (1, 3), ["face", "permuted"], n_test=20, n_fit=60,
                                margin_kinds=("permuted",))
    assert list(ablation) == [1, 3]
    for iterations, run in ablation.items():
        copy = refitted_copy(model, iterations, 60, seed=0)
        assert run.rates == {k: [v] for k, v in face_rates(copy, ["face", "permuted"], 20).items()}
        assert run.thresholds == [copy.threshold.item()]
        lengths = copy.face_probability(held_out("permuted", 20)[0]).numpy()
        assert run.margins["permuted"][0] == pytest.approx(np.median(lengths) - run.thresholds[0])
        assert run.mean("face") == run.rates["face"][0]
    assert all(torch.equal(v, state[k]) for k, v in model.state_dict().items())  # left as it was
    table = format_ablation(ablation, ["face", "permuted"]).splitlines()
    assert table[1].split() == ["iterations", "face", "permuted"] and len(table) == 4
    assert table[2].split() == ["1", f"{ablation[1].mean('face'):.2f}",
                                f"{ablation[1].mean('permuted'):.2f}"]
    margins = format_margins(ablation).splitlines()
    assert margins[0].split()[:3] == ["iterations", "threshold", "permuted"]
    assert margins[2].split() == ["3", f"{ablation[3].thresholds[0]:.3f}",
                                  f"{ablation[3].margins['permuted'][0]:+.3f}"]

"""The face models' held-out curves (capsedu.parts.curves): when a run stops, what its record says,
that an interrupted run resumes."""

import json
from dataclasses import replace

import matplotlib
import pytest
import torch

from capsedu import checkpoints
from capsedu.parts import curves, training
from capsedu.recipes import RECIPES, recipe_name

matplotlib.use("Agg")


@pytest.fixture
def scripted(monkeypatch):
    """``curves.run`` with the training and scoring replaced: the held-out accuracy after epoch k
    is ``scores[k - 1]``; the model is a fixed small module (also the "shipped" one)."""
    def script(scores, recipe_epochs=4):
        model = torch.nn.Linear(2, 1)
        trained = []
        monkeypatch.setitem(curves.RECIPES, "deep CNN",  # a model of 07, its recipe scripted
                            replace(curves.RECIPES["deep CNN"], epochs=recipe_epochs))
        monkeypatch.setattr(training, "train_face_model",
                            lambda name, seed, progress, epochs, state_path:
                            trained.append(epochs) or model)
        monkeypatch.setattr(curves, "held_out_accuracy", lambda m: scores[len(trained) - 1])
        monkeypatch.setattr(checkpoints, "pretrained", lambda name: model)
        return trained
    return script


def test_a_run_goes_past_the_recipe_until_the_rule_holds(scripted, tmp_path):
    trained = scripted([0.5, 0.6, 0.7, 0.8, 0.9, 0.85, 0.85, 0.85, 0.99])
    record = curves.run("deep CNN", 0, tmp_path / "state.pt")
    # epoch 5 is best; epochs 6, 7, 8 bring no gain: the rule holds after 8 (twice the recipe)
    assert trained == list(range(1, 9))
    assert record.validation_by_epoch == (0.5, 0.6, 0.7, 0.8, 0.9, 0.85, 0.85, 0.85)
    assert (record.best_epoch, record.recipe_epochs) == (5, 4)
    assert record.converged and not record.converged_at_recipe
    assert curves.gain_after_recipe(record) == pytest.approx(0.1)
    assert record.max_weight_difference == 0.0
    assert not (tmp_path / "state.pt.scores.json").exists()  # finished: no scores left beside


def test_a_run_that_converged_by_the_recipe_stops_there(scripted, tmp_path):
    trained = scripted([0.9, 0.8, 0.8, 0.8, 0.95])
    record = curves.run("deep CNN", 0, tmp_path / "state.pt")
    assert trained == [1, 2, 3, 4]
    # the best epoch came before the recipe's: training on gained nothing
    assert record.converged_at_recipe and curves.gain_after_recipe(record) == 0


def test_a_run_stops_at_twice_the_recipe_unconverged(scripted, tmp_path):
    trained = scripted([k / 10 for k in range(1, 10)])  # rising every epoch
    record = curves.run("deep CNN", 0, tmp_path / "state.pt")
    assert trained == list(range(1, 9)) and not record.converged


def test_an_interrupted_run_resumes_from_its_scores(scripted, tmp_path):
    state = tmp_path / "state.pt"
    (tmp_path / "state.pt.scores.json").write_text(json.dumps([0.5, 0.6]))
    trained = scripted([0.7, 0.6, 0.6, 0.6])
    record = curves.run("deep CNN", 0, state)
    assert trained == [3, 4, 5, 6]  # epochs 3.. trained (the state file resumes the weights)
    assert record.validation_by_epoch == (0.5, 0.6, 0.7, 0.6, 0.6, 0.6)


def record(model, seed, scores, best, at_recipe, converged):
    """A record of a recipe of 4 epochs with these held-out ``scores``, its ``best`` epoch and
    whether the rule (patience 3) held by epoch 4 and at the end, worked out by hand."""
    return curves.FaceCurve(
        model=model, seed=seed, recipe_epochs=4, patience=3, validation_by_epoch=scores,
        validation_examples=800, validation_seed=500, best_epoch=best,
        converged_at_recipe=at_recipe, converged=converged, max_weight_difference=0.0,
        train_time_s=1.0, threads=1, torch_version="2")


# held by epoch 4 and no gain after it; held only after it, 0.02 gained after epoch 4; never
# held, still rising 0.001
RECORDS = {"a0": ("deep CNN", 0, (0.9, 0.8, 0.8, 0.8, 0.8), 1, True, True),
           "a1": ("deep CNN", 1, (0.5, 0.9, 0.8, 0.8, 0.82), 2, False, True),
           "b0": ("pose capsules", 0, (0.5, 0.6, 0.7, 0.8, 0.801), 5, False, False)}


def test_recipe_lengths_count_the_seeds_of_each_model():
    records = {name: record(*fields) for name, fields in RECORDS.items()}
    lengths = curves.recipe_lengths(records)
    assert list(lengths) == ["deep CNN", "pose capsules"]  # RECIPES' order, models recorded
    deep = lengths["deep CNN"]
    assert (deep.seeds, deep.at_recipe, deep.converged) == (2, 1, 2)
    assert deep.largest_gain == pytest.approx(0.02)
    assert str(deep) == ("deep CNN: the rule held by the recipe's epoch 4 for 1 of 2 seed(s), "
                         "within twice it for 2; training on gained at most 2.00 points held out")


@pytest.mark.parametrize("place, value, said", [  # place: in record()'s arguments
    (3, 2, r"best_epoch must be the first epoch with the best held-out accuracy, 1, "),
    (4, False, r"converged_at_recipe must be .*first recipe_epochs, True, "),
    (5, False, r"converged must be the course's rule with patience 3 .*, True, ")])
def test_a_curve_refuses_a_field_its_scores_do_not_give(place, value, said):
    fields = list(RECORDS["a0"])
    fields[place] = value
    with pytest.raises(ValueError, match=r"^FaceCurve\(\): " + said + r"got .*; pass the record"):
        record(*fields)


def test_draw_face_curves_draws_one_panel_per_model():
    import matplotlib.pyplot as plt

    from capsedu.figures import training_curves

    records = {name: record(*fields) for name, fields in RECORDS.items()}
    fig, axes = plt.subplots(1, 2)
    training_curves.draw_face_curves(axes, records)
    assert [ax.get_title() for ax in axes] == ["deep CNN", "pose capsules"]
    assert len(axes[0].get_legend().get_texts()) == 2  # one line per seed
    plt.close(fig)


def test_the_shipped_record_covers_every_shipped_face_model():
    """Every checkpoint of notebook 07's face recipes (those ``parts.training`` trains for a fixed
    number of epochs) has its held-out curve in the record; 10's face ViTs are trained to the
    rule itself (``patch_order``), their curves in their manifest rows."""
    shipped = curves.read_results()
    names = {name for name in checkpoints.read_manifest() if name.startswith("faces-")
             and RECIPES[recipe_name(name)].trainer == "capsedu.parts.training"}
    assert {name for name in checkpoints.read_manifest() if name.startswith("faces-")} - names \
        == {f"faces-vit{kind}-seed{seed}" for kind in ("", "-no-positions") for seed in (0, 1, 2)}
    assert set(shipped) == names
    for name, run in shipped.items():
        assert name == curves.run_name(run.model, run.seed)
        assert run.recipe_epochs == curves.recipe_epochs(run.model)
        assert len(run.validation_by_epoch) >= run.recipe_epochs
        # the retrained weights are the shipped recipe's, up to another run's rounding
        assert run.max_weight_difference < 0.05
    # read as the file keeps it
    from capsedu.json_records import json_row

    file = json.loads(checkpoints.results_path(curves.RESULTS, True).read_text())["runs"]
    assert {name: json_row(run) for name, run in shipped.items()} == file

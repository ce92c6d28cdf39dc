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


def record(model, seed, at_recipe, converged, gain, epochs=4):
    """A record whose accuracy at the recipe's epoch (4) is 0.8 and ``gain`` above it after."""
    return curves.FaceCurve(
        model=model, seed=seed, recipe_epochs=epochs, patience=3,
        validation_by_epoch=(0.5, 0.9, 0.8, 0.8, 0.8 + gain), validation_examples=800,
        validation_seed=500, best_epoch=2, converged_at_recipe=at_recipe, converged=converged,
        max_weight_difference=0.0, train_time_s=1.0, threads=1, torch_version="2")


def test_recipe_lengths_count_the_seeds_of_each_model():
    records = {"a0": record("deep CNN", 0, True, True, 0.0),
               "a1": record("deep CNN", 1, False, True, 0.02),
               "b0": record("pose capsules", 0, False, False, 0.001)}
    lengths = curves.recipe_lengths(records)
    assert list(lengths) == ["deep CNN", "pose capsules"]  # RECIPES' order, models recorded
    deep = lengths["deep CNN"]
    assert (deep.seeds, deep.at_recipe, deep.converged) == (2, 1, 2)
    assert deep.largest_gain == pytest.approx(0.02)
    assert str(deep) == ("deep CNN: the rule held by the recipe's epoch 4 for 1 of 2 seed(s), "
                         "within twice it for 2; training on gained at most 2.00 points held out")


def test_draw_face_curves_draws_one_panel_per_model():
    import matplotlib.pyplot as plt

    from capsedu.figures import training_curves

    records = {"a0": record("deep CNN", 0, True, True, 0.0),
               "a1": record("deep CNN", 1, False, True, 0.02),
               "b0": record("pose capsules", 0, False, False, 0.001)}
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

"""Notebook 09's ablation runner: records each run once, resumes, keeps trials off the shipped
results."""

import json
from dataclasses import replace

import pytest

from capsedu import ablations


@pytest.fixture
def tiny_grid(monkeypatch, tmp_path):
    from capsedu import config
    from capsedu.data.mnist import load_mnist

    try:
        load_mnist(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    mnist = config.data_root() / "MNIST"
    (tmp_path / "MNIST").symlink_to(mnist.resolve())
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    small = ablations.recipe
    monkeypatch.setattr(ablations, "recipe",
                        lambda overrides, epochs: replace(small(overrides, epochs), validation=40))
    monkeypatch.setattr(ablations, "GRID", [{"iterations": 1, "recon_weight": 0.0}])
    return tmp_path


def test_a_trial_grid_is_recorded_outside_the_shipped_results(tiny_grid, capsys):
    assert ablations.main(["--seeds", "0", "--limit", "120", "--epochs", "1"]) == 0
    path = tiny_grid / "runs" / "results" / ablations.RESULTS
    runs = json.loads(path.read_text())["runs"]
    record = runs["iterations=1,recon_weight=0.0,seed=0"]
    assert record["train_examples"] == 80 and record["command"].endswith("--epochs 1 --limit 120")
    assert record["max_epochs"] == 1 and len(record["validation_by_epoch"]) == 1
    assert record["converged"] is False  # one epoch: the rule cannot have stopped it
    assert set(record["test_accuracy_by_iterations"]) == {"1", "2", "3", "5"}
    assert record["test_accuracy"] == record["test_accuracy_by_iterations"]["1"]
    assert not (tiny_grid / "results").exists()  # the shipped results are untouched
    assert not list((tiny_grid / "runs" / "state").iterdir())  # the state is removed when done
    # a second call finds the run recorded and trains nothing
    capsys.readouterr()
    ablations.main(["--seeds", "0", "--limit", "120", "--epochs", "1"])
    assert capsys.readouterr().out == ""
    # another budget does not mix into that file: it is refused, or written elsewhere
    with pytest.raises(SystemExit):
        ablations.main(["--seeds", "0", "--limit", "120", "--epochs", "2"])
    assert "other --epochs" in capsys.readouterr().err
    elsewhere = tiny_grid / "elsewhere"
    ablations.main(["--seeds", "0", "--limit", "120", "--epochs", "2", "--out", str(elsewhere)])
    assert json.loads((elsewhere / ablations.RESULTS).read_text())["runs"]


def test_out_refuses_the_shipped_results_without_replace_shipped(tiny_grid, capsys):
    shipped = tiny_grid / "results" / ablations.RESULTS
    shipped.parent.mkdir()
    shipped.write_text('{"runs": {}}\n')
    with pytest.raises(SystemExit, match="shipped results file"):
        ablations.main(["--seeds", "0", "--limit", "120", "--out", str(shipped.parent)])
    assert shipped.read_text() == '{"runs": {}}\n'


def test_run_names_are_stable():
    assert ablations.run_name({"recon_weight": 0.0, "iterations": 3}, 2) == \
        "iterations=3,recon_weight=0.0,seed=2"


def test_seed_errors_reads_each_seeds_test_error_in_percent():
    from capsedu.ablations import SEEDS, run_name, seed_errors

    cell = {"iterations": 3, "recon_weight": 0.0}
    results = {run_name(cell, seed): {"test_accuracy_by_iterations": {"3": 0.99 - seed / 1000,
                                                                      "1": 0.98}}
               for seed in SEEDS}
    assert seed_errors(results, cell) == pytest.approx([1.0, 1.1, 1.2][:len(SEEDS)])
    assert seed_errors(results, cell, tested_with=1) == pytest.approx([2.0] * len(SEEDS))

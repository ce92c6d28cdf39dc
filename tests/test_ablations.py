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
                        lambda overrides: replace(small(overrides), epochs=1, validation=40))
    monkeypatch.setattr(ablations, "GRID", [{"iterations": 1, "recon_weight": 0.0}])
    return tmp_path


def test_a_trial_grid_is_recorded_outside_the_shipped_results(tiny_grid, capsys):
    assert ablations.main(["--seeds", "0", "--limit", "120"]) == 0
    path = tiny_grid / "runs" / "results" / ablations.RESULTS
    runs = json.loads(path.read_text())["runs"]
    record = runs["iterations=1,recon_weight=0.0,seed=0"]
    assert record["train_examples"] == 80 and record["command"].endswith("--limit 120")
    assert set(record["test_accuracy_by_iterations"]) == {"1", "2", "3", "5"}
    assert record["test_accuracy"] == record["test_accuracy_by_iterations"]["1"]
    assert not (tiny_grid / "results").exists()  # the shipped results are untouched
    assert not list((tiny_grid / "runs" / "state").iterdir())  # the state is removed when done
    # a second call finds the run recorded and trains nothing
    capsys.readouterr()
    ablations.main(["--seeds", "0", "--limit", "120"])
    assert capsys.readouterr().out == ""


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

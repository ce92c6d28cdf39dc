"""The record of notebook 08's seed runs (``python -m capsedu.seed_runs``): what it holds, that a
run is read the way ``full_sets`` records the shipped models, and the comparison over seeds that
08 prints from it, against scipy."""

import numpy as np
import pytest
import torch
from scipy import stats

from capsedu import full_sets, pretrained, seed_runs
from capsedu.manifest_rows import ManifestRow
from capsedu.recipes import RECIPES
from capsedu.robustness import seed_verdict
from capsedu.statistics import paired

RECORD = seed_runs.read_results()
CAPSNET, CAPSNET_1ITER, CNN = seed_runs.RECIPES


def accuracies(name: str, test_set: str = "affnist-style") -> list[float]:
    """The accuracy (%) of reading ``name`` of each seed's run, as the record states it."""
    recipe = name.split(",")[0]
    return [100 * RECORD[seed_runs.run_name(recipe, seed)].readings[test_set][name].accuracy
            for seed in seed_runs.SEEDS]


def test_a_record_reads_as_its_results_file_keeps_it():
    import json

    from capsedu.checkpoints import results_path
    from capsedu.json_records import json_row

    shipped = json.loads(results_path(seed_runs.RESULTS, True).read_text())["runs"]
    assert {name: json_row(run) for name, run in RECORD.items()} == shipped


def test_every_recipe_and_seed_ran_from_scratch_under_one_budget_and_rule():
    assert set(RECORD) == {seed_runs.run_name(recipe, seed)
                           for recipe in seed_runs.RECIPES for seed in seed_runs.SEEDS}
    for key, run in RECORD.items():
        row, recipe = run.row, RECIPES[run.recipe]
        metrics = row.metrics
        assert metrics.max_epochs == recipe.epochs and metrics.patience == recipe.patience
        assert metrics.converged, key  # the rule stopped it, not the budget
        assert len(metrics.validation_by_epoch) == metrics.epochs < recipe.epochs
        # one sitting, from scratch, at the recipe's own budget
        assert "--continue-from" not in row.command and "--epochs" not in row.command
        assert row.seed == run.seed and row.sittings is None
        for test_set in seed_runs.TEST_SETS:
            assert set(run.readings[test_set]) == set(seed_runs.readings(run.recipe))
            for reading in run.readings[test_set].values():
                assert reading.n == 10_000
                assert reading.accuracy == pytest.approx(1 - len(reading.wrong) / 10_000)
        # the test accuracy of its manifest row is its translated reading (up to one image's
        # rounding at another batch size)
        own = run.readings["translated"][run.recipe].accuracy
        assert run.test_accuracy == pytest.approx(own, abs=1.5e-4)


@pytest.mark.parametrize(("test_set", "name", "iterations"), [
    ("affnist-style", CNN, None), ("translated", full_sets.reading(CAPSNET, 1), 1)])
def test_a_run_is_read_as_full_sets_records_the_shipped_models(test_set, name, iterations):
    """``seed_runs.score`` on a shipped model gives the first rows of its ``full_sets`` record."""
    model = pretrained(name.split(",")[0])
    got = seed_runs.score(model, test_set, iterations, limit=300)
    want = full_sets.read_right(test_set, name, range(300))
    assert got.n == 300 and got.wrong == tuple(torch.nonzero(~want).flatten().tolist())


def test_read_right_is_the_record_and_names_a_missing_run():
    right = seed_runs.read_right(RECORD, "affnist-style", CNN, 1)
    wrong = RECORD[seed_runs.run_name(CNN, 1)].readings["affnist-style"][CNN].wrong
    assert right.shape == (10_000,) and tuple(torch.nonzero(~right).flatten().tolist()) == wrong
    with pytest.raises(KeyError, match="--seeds 7 --replace-shipped"):
        seed_runs.read_right(RECORD, "affnist-style", CNN, 7)


@pytest.mark.parametrize(("first", "second", "by_seed"), [
    (CAPSNET, CNN, False), (CAPSNET, CAPSNET_1ITER, True),
    (CAPSNET, full_sets.reading(CAPSNET, 1), True)])
def test_the_verdict_over_seeds_is_scipys_t_test_of_the_seeds(first, second, by_seed):
    right = {seed: {name: seed_runs.read_right(RECORD, "affnist-style", name, seed)
                    for name in (first, second)} for seed in seed_runs.SEEDS}
    verdict = seed_verdict(right, first, second, by_seed)
    a, b = accuracies(first), accuracies(second)
    np.testing.assert_allclose(verdict.first_accuracy, a)
    test = stats.ttest_rel(a, b) if by_seed else stats.ttest_ind(a, b, equal_var=False)
    assert verdict.over_seeds.difference == pytest.approx(np.mean(a) - np.mean(b))
    assert verdict.over_seeds.p_value == pytest.approx(test.pvalue)
    assert verdict.over_seeds.by_seed is by_seed
    for seed, each in zip(seed_runs.SEEDS, verdict.per_seed, strict=True):
        assert each == paired(right[seed][first], right[seed][second])


def test_the_command_trains_what_is_missing_and_records_its_line(tmp_path, monkeypatch):
    trained = []

    def run(recipe, seed, limit=None, progress=True, state_path=None):
        trained.append((recipe, seed))
        row = ManifestRow(name=f"{recipe}-seed{seed}", file=f"{recipe}-seed{seed}.pt",
                          sha256="0" * 64, arch="MaxPoolCNN" if recipe == "affnist-cnn" else
                          "CapsNet")  # the class its recipe builds
        return seed_runs.SeedRun(recipe=recipe, seed=seed, row=row, gpu=None, readings={},
                                 test_accuracy=0.5, train_time_s=1.0)

    monkeypatch.setattr(seed_runs, "run", run)
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    assert seed_runs.main(["--seeds", "4", "--limit", "600", "--out", str(tmp_path)]) == 0
    assert trained == [(recipe, 4) for recipe in seed_runs.RECIPES]
    record = seed_runs.read_results(tmp_path / seed_runs.RESULTS)
    assert {r.command for r in record.values()} == {
        "python -m capsedu.seed_runs --seeds 4 --limit 600"}
    seed_runs.main(["--seeds", "4", "--limit", "600", "--out", str(tmp_path)])
    assert len(trained) == 3  # finished runs are not trained again
    with pytest.raises(SystemExit):
        seed_runs.main(["--seeds", "-1"])

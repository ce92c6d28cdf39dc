"""Notebook 08's models trained again from several seeds, all under one budget and one rule.

08's verdicts (CapsNet against CNN, routing trained in) each read one trained model per recipe,
and another training seed moves a model's test accuracy by about as much as the differences at
stake (09 measures that spread). So each of 08's affNIST recipes (``RECIPES``) is trained again
from each seed, every run from scratch under the recipe's own budget and stopping rule (the
shipped seed-0 runs were not: the CNN trained a fixed 12 epochs, the CapsNets were continued from
a first sitting), and each trained model is scored image by image on the full translated and
affNIST-style test sets (``full_sets.SETS``), the routing CapsNet also routed once at test time.

The record keeps, for each run, its manifest row (command, seed, device, time, held-out curve,
whether the rule stopped it, the sha256 of its weights) and which test images each reading gets
wrong. The weights stay in ``<data root>/runs/seed_runs/``: shipping nine more models would
double the course's download, and the record holds all that 08 reads of them.

    python -m capsedu.seed_runs --limit 6000                  # a trial, into runs/
    python -m capsedu.seed_runs --seeds 0 1 2 --replace-shipped   # results/affnist_seeds.json

Several processes may share the work (each run is trained by the first that takes it: on a GPU,
start one process per run); a finished run is never trained again, and an interrupted one resumes
from its last epoch.
"""

import functools
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import torch

from . import checkpoints, course_settings, full_sets, recipes, train
from .checks import check_same
from .course_parser import EachOnce
from .course_settings import Argv, Classifier, Seed, StateFile, Text
from .full_sets import Reading
from .manifest_rows import ManifestRow
from .recipe_run import run_recipe
from .recipes import command_line, seeded_name
from .validate import CheckedRecord, Choice, Flag, Float, Int, Record, Some, checked

RESULTS = "affnist_seeds.json"
COMMAND = "python -m capsedu.seed_runs"
RECIPES = ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn")
SEEDS = (0, 1, 2)
TEST_SETS = ("translated", "affnist-style")
Recipe = Choice("one of 08's affNIST recipes", *RECIPES)
TestSet = Choice("a full test set of 08", *TEST_SETS)


@checked
def run_name(recipe: Recipe, seed: Seed) -> str:
    """A record's key: ``"affnist-cnn, seed 1"``."""
    return f"{recipe}, seed {seed}"


@checked
def readings(recipe: Recipe) -> dict[str, int | None]:
    """What each trained model is read as: its own routing (``None``), and for the routing
    CapsNet also 1 iteration at test time (``full_sets.ROUTED_OTHERWISE``)."""
    once = {its for (test_set, name), its in full_sets.ROUTED_OTHERWISE.items() if name == recipe}
    return {recipe: None} | {full_sets.reading(recipe, its): its for its in once}


# every reading of every recipe (its own routing; the routing CapsNet's once-routed reading too)
READINGS = tuple(name for recipe in RECIPES for name in readings(recipe))
ReadingName = Choice("a reading: a recipe of 08, or full_sets.reading(recipe, iterations)",
                     *READINGS)


# a trial's size: the first N training examples, and the first N images of each full test set
# (10,000 each), which a trial is read on
TrialLimit = Int("the first N training examples and test images (a trial)", ge=1, le=10_000)


@dataclass(frozen=True)
class SeedRun(CheckedRecord):
    """The record of one run (``run``), as its results file keeps it."""

    recipe: Recipe
    seed: Seed
    row: Record(ManifestRow)  # its checkpoint's manifest row
    gpu: Text | None  # the GPU it trained on, None on a CPU
    # test set -> reading (``readings``) -> how that reading reads the full set
    readings: dict[TestSet, dict[ReadingName, Record(Reading, "full_sets.read_wrong(...)")]]
    # on MNIST's test digits, from its manifest row
    test_accuracy: Float("an accuracy, 0..1", ge=0, le=1)
    train_time_s: Float("seconds it trained", ge=0)  # from its manifest row
    command: str = ""  # the line that recorded it; "" for a run not written to a results file

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), values other than its manifest row's,
        or readings of another recipe."""
        super().__post_init__()
        metrics = self.row.metrics
        for name, rows in (("seed", self.row.seed), ("train_time_s", self.row.train_time_s),
                           ("test_accuracy", metrics and metrics.test_accuracy)):
            if rows is not None:  # what the row holds
                check_same("SeedRun", "value", "pass the values of the run's manifest row",
                           **{name: getattr(self, name), f"row.{name}": rows})
        others = sorted({n for each in self.readings.values() for n in each}
                        - set(readings(self.recipe)))
        if others:
            raise ValueError(f"SeedRun(): readings must be readings of recipe {self.recipe!r} "
                             f"({', '.join(map(repr, readings(self.recipe)))}), got {others}; "
                             "pass the readings of its own model")
        check_same("SeedRun", "the checkpoint its recipe and seed make", "pass the row of the "
                   "run's own checkpoint", **{"seeded_name(recipe, seed)": seeded_name(
                       self.recipe, self.seed), "row.name": self.row.name})
        check_same("SeedRun", "the class its recipe builds", "pass the row of the run's own "
                   "checkpoint", **{f"{self.recipe}'s model": _recipe_arch(self.recipe),
                                    "row.arch": self.row.arch})

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is not this run's key in its results file (``run_name`` of its recipe and
        seed), in words; None when it is (``results_kinds.records`` asks)."""
        made = run_name(self.recipe, self.seed)
        return None if name == made else f"whose recipe and seed make the name {made!r}"


@functools.cache
def _recipe_arch(recipe: str) -> str:
    """The class of the model ``recipe`` builds (built once, away from the caller's random
    draws: building draws initial weights)."""
    with torch.random.fork_rng(devices=[]):
        return type(recipes.RECIPES[recipe].build()).__name__


@checked
def score(model: Classifier, test_set: TestSet, iterations: full_sets.Iterations,
          limit: TrialLimit | None = None) -> Reading:
    """One reading of ``model`` on the full ``test_set`` (its first ``limit`` images in a trial):
    its images, accuracy and the rows it reads wrong (``full_sets.read_wrong``)."""
    images, labels = full_sets.SETS[test_set](None if limit is None else range(limit))
    return full_sets.read_wrong(model, images, labels, iterations)


@checked
def run(recipe: Recipe, seed: Seed, limit: TrialLimit | None = None,
        progress: Flag("True to show progress bars") = True, state_path: StateFile | None = None
        ) -> SeedRun:
    """Train ``recipe`` from ``seed`` (``recipe_run.run_recipe``, its checkpoint into
    ``<data root>/runs/seed_runs``) and read it on every test set: its record."""
    folder = checkpoints.runs_dir() / "seed_runs"
    row = run_recipe(recipe, limit=limit, seed=seed, root=folder, progress=progress,
                     state_path=state_path)
    model = checkpoints.pretrained(seeded_name(recipe, seed), folder).to(course_settings.device())
    on = {test_set: {name: score(model, test_set, its, limit)
                     for name, its in readings(recipe).items()} for test_set in TEST_SETS}
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return SeedRun(recipe=recipe, seed=seed, row=row, gpu=gpu, readings=on,
                   test_accuracy=row.metrics.test_accuracy, train_time_s=row.train_time_s)


@checked
def read_results(path: Path | None = None) -> dict[str, SeedRun]:
    """The recorded runs by ``run_name`` (the shipped ones by default; a file not there
    refused: ``checkpoints.read_results``)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True), SeedRun)


@checked
def read_right(results: dict[str, SeedRun], test_set: TestSet, name: ReadingName,
               seed: Seed) -> torch.Tensor:
    """Whether the reading ``name`` (a recipe, or ``full_sets.reading(recipe, iterations)``) of
    the run of ``seed`` reads each image of the full ``test_set`` right: ``[n]`` booleans."""
    recipe = name.split(",")[0]
    key = run_name(recipe, seed)
    if key not in results:
        raise KeyError(f"read_right(): results must hold the run {key!r} ({RESULTS}), got "
                       f"none; record it with {COMMAND} --seeds {seed} --replace-shipped")
    return results[key].readings[test_set][name].right()


@checked
def how_trained(results: Annotated[dict[str, SeedRun], Some]) -> str:
    """How the recorded runs were trained, in one sentence: how many, under which budget and rule,
    how many the rule stopped, their epochs and times, and where."""
    rows = [run.row for run in results.values()]
    metrics = [row.metrics for row in rows]
    budgets = sorted({m.max_epochs for m in metrics})
    epochs = [m.epochs for m in metrics]
    times = [row.train_time_s for row in rows]
    where = sorted({run.gpu or run.row.device for run in results.values()})
    return (f"{len(rows)} runs, each from scratch under its recipe's budget "
            f"({', '.join(map(str, budgets))} epochs) and rule ({metrics[0].patience} epochs "
            f"without a held-out gain): {sum(m.converged for m in metrics)} of {len(rows)} "
            f"stopped by the rule, after {min(epochs)} to {max(epochs)} epochs; trained on "
            f"{', '.join(where)}, {min(times):.0f} to {max(times):.0f} s each")


@checked
def main(argv: Argv | None = None) -> int:
    parser = train.experiment_parser(COMMAND, __doc__, limit=TrialLimit)
    parser.add_argument("--seeds", type=train.seed_int, nargs="+", default=list(SEEDS),
                        action=EachOnce,
                        help=f"training seeds (default: {' '.join(map(str, SEEDS))})")
    args = train.parse_experiment(parser, argv)
    todo = {run_name(recipe, seed): partial(run, recipe, seed, args.limit)
            for seed in args.seeds for recipe in RECIPES}
    command = command_line(COMMAND, seeds=args.seeds, limit=args.limit, threads=args.threads)
    train.record_missing(train.results_file(args, RESULTS), todo, command,
                         replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

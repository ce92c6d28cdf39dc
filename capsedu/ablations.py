"""Notebook 09's ablations: one CPU-scale CapsNet trained many ways, each with several seeds.

The paper's Table 1 compares 1 and 3 routing iterations, with and without the reconstruction
loss, on MNIST (three trials each). ``recipes.ABLATION_GRID`` asks the same of notebook 05's
``LIVE`` network, with 2 and 5 iterations added. Every cell is trained by its recipe in
``recipes.RECIPES`` (``recipes.ablation_recipe``: the same data, budget of epochs, schedule, the
paper's 2-pixel shifts, the epoch chosen on held-out training images, training stopped by the
course's rule) for each seed, then scored on the MNIST test set with the number of iterations it
was trained with and with every other one (``TEST_ITERATIONS``: the same weights, routing more or
less at test time).

    python -m capsedu.ablations                    # every missing run, into <data root>/runs
    python -m capsedu.ablations --replace-shipped  # into the shipped <data root>/results
    python -m capsedu.ablations --out FOLDER       # into FOLDER/routing_ablations.json

A finished run is written at once, so an interrupted grid resumes where it stopped (and a run
resumes from its last epoch with ``state``); each record keeps the command, seed, time and threads.
"""

import sys
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import AfterValidator

from . import checkpoints, train
from .capsnet import routing_iterations
from .checks import check_order
from .convergence import held_out_scores
from .course_parser import EachOnce
from .course_settings import Argv, RunThreads, Seed, StateFile, Text
from .data.mnist import TRAIN_IMAGES, load_mnist
from .derived import check_derived
from .loop import evaluate
from .manifest_rows import Accuracy
from .recipe_run import how_run, train_recipe
from .recipes import (
    ABLATION_GRID,
    RECIPES,
    Cell,
    Epochs,
    Limit,
    ablation_name,
    command_line,
    shared_budget,
)
from .routing import MAX_ITERATIONS
from .statistics import SeedDifference, over_seeds, seed_difference
from .stopping_rule import PATIENCE, best_epoch, converged
from .validate import CheckedRecord, Flag, Float, Int, Record, Some, checked

RESULTS = "routing_ablations.json"
TEST_ITERATIONS = (1, 2, 3, 5)
SEEDS = (0, 1, 2)
COMMAND = "python -m capsedu.ablations"
Iterations = Int("routing iterations at test time", ge=1, le=MAX_ITERATIONS)


@dataclass(frozen=True)
class AblationRun(CheckedRecord):
    """The record of one run of the grid (``run``), as its results file keeps it."""

    overrides: Record(Cell)  # the cell of the grid it trained: its iterations and weight
    seed: Seed
    limit: Limit | None  # a trial's first images, or None for all of MNIST
    train_examples: Int("the examples it trained on", ge=1)
    test_accuracy: Accuracy  # routed with the iterations it was trained with
    # routed 1, 2, 3 and 5 times at test time (TEST_ITERATIONS): iterations -> test accuracy
    test_accuracy_by_iterations: Annotated[dict[Iterations, Accuracy], Some]
    validation_by_epoch: Annotated[tuple[Accuracy, ...], Some]  # held out, every epoch's
    max_epochs: Epochs  # the budget; the run may have stopped earlier, by the rule
    patience: Int("the rule's epochs without a held-out gain", ge=1)
    converged: Flag("whether the rule held when it stopped (stopping_rule.converged)")
    train_time_s: Float("the seconds it trained", ge=0)
    threads: RunThreads
    torch_version: Text
    command: str = ""  # the line that recorded it; "" for a run not written to a results file

    def __post_init__(self):
        super().__post_init__()  # and no more epochs than its budget, or examples than drawn
        check_order("AblationRun", "a run trains on the first limit images (all of MNIST's "
                    "without a limit), less those it holds out", train_examples=self.train_examples,
                    limit=self.limit or TRAIN_IMAGES)
        if len(self.validation_by_epoch) > self.max_epochs:
            raise ValueError(f"AblationRun(): validation_by_epoch must hold at most max_epochs "
                             f"({self.max_epochs}) epochs, got {len(self.validation_by_epoch)}; "
                             "pass the held-out accuracy of each epoch it trained")
        check_derived("AblationRun", "pass the record run(...) makes", converged=(
            self.converged, converged(list(self.validation_by_epoch), self.patience),
            f"the course's rule on validation_by_epoch with patience {self.patience} "
            "(stopping_rule.converged)"))

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is not this run's key in its results file (``run_name`` of its overrides
        and seed), in words; None when it is (``results_kinds.records`` asks)."""
        made = run_name(self.overrides, self.seed)
        return None if name == made else f"whose overrides and seed make the name {made!r}"


def _some_runs(results: dict) -> dict:
    """Refuse results of no runs: each reading of the grid would fail inside, by another name."""
    if not results:
        raise ValueError(f"must hold at least one run, got an empty dict; run {COMMAND} or "
                         "read_results() first")
    return results


def _whole_grid(results: dict) -> dict:
    """Refuse results that lack a run of the grid (a cell at a seed): what reads every cell."""
    missing = [run_name(cell, seed) for cell in ABLATION_GRID for seed in SEEDS
               if run_name(cell, seed) not in _some_runs(results)]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise ValueError(f"must record every cell of ABLATION_GRID at every seed of {SEEDS}, "
                         f"lacks {missing[0]!r}{more}; run {COMMAND} (it records the missing "
                         "runs) or pass read_results()")
    return results


# the recorded runs by run_name (read_results), at least one; the whole grid, every cell at
# every seed, for what reads every cell
Results = Annotated[dict[str, Record(AblationRun)], AfterValidator(_some_runs)]
Grid = Annotated[dict[str, Record(AblationRun)], AfterValidator(_whole_grid)]


def budget() -> int:
    """The grid's budget of epochs, the one every cell's recipe has: each run stops earlier, once
    ``PATIENCE`` epochs bring no held-out gain."""
    return shared_budget(tuple(ablation_name(cell) for cell in ABLATION_GRID))


@checked
def run_name(cell: Cell, seed: Seed) -> str:
    """A run's key in the results, e.g. ``iterations=3,recon_weight=0.0005,seed=1``."""
    return f"iterations={cell.iterations},recon_weight={cell.recon_weight},seed={seed}"


@checked
def read_results(path: Path | None = None) -> dict[str, AblationRun]:
    """The recorded runs by ``run_name`` (the shipped ones by default; a file not there
    refused: ``checkpoints.read_results``)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True), AblationRun)


@checked
def seed_errors(results: Results, cell: Cell,
                tested_with: Iterations | None = None) -> np.ndarray:
    """Test error (%) of each seed of a grid ``cell`` ``[len(SEEDS)]``, routed at test time with
    the iterations it was trained with, or with ``tested_with``."""
    tested = tested_with or cell.iterations
    _check_tested("seed_errors", results, tested_with)
    _check_cells("seed_errors", results, cell=cell)
    return np.array([100 * (1 - results[run_name(cell, seed)].test_accuracy_by_iterations[tested])
                     for seed in SEEDS])


def _check_cells(where: str, results: dict[str, AblationRun], **cells: Cell) -> None:
    """Refuse a cell (by the caller's name for it) of which ``results`` lacks a seed's run."""
    for name, cell in cells.items():
        if any(run_name(cell, seed) not in results for seed in SEEDS):
            recorded = [c for c in ABLATION_GRID if all(run_name(c, s) in results for s in SEEDS)]
            raise KeyError(f"{where}(): {name} must be a cell of which results records every "
                           f"seed {SEEDS}, got {cell}; pass one of those it records: "
                           f"{', '.join(map(str, recorded)) or 'none'}")


def _check_tested(where: str, results: dict[str, AblationRun], tested_with: int | None) -> None:
    """Refuse a ``tested_with`` that a run of ``results`` was not tested with (a KeyError deep in
    its record), naming it and the iterations every run was."""
    tested = [set(run.test_accuracy_by_iterations) for run in results.values()]
    if tested_with is not None and tested and tested_with not in set.intersection(*tested):
        raise ValueError(f"{where}(): tested_with must be one of the iterations every run of "
                         f"results was tested with, {sorted(set.intersection(*tested))}, got "
                         f"{tested_with}; pass one of those")


@checked
def seed_noise(results: Results, cell: Cell) -> float:
    """How far another training seed moves a grid ``cell``'s test accuracy: the standard
    deviation (ddof 1) of its seeds' accuracies, 0..1 units (the noise a difference between two
    single runs of that recipe must exceed to say anything about the recipes)."""
    _check_cells("seed_noise", results, cell=cell)
    return float(np.std(seed_errors(results, cell), ddof=1)) / 100


# Test errors (%) quoted for the paper's four settings, (iterations, with reconstruction) -> error
QUOTED = {
    "paper": {(1, True): 0.29, (3, True): 0.25, (1, False): 0.34, (3, False): 0.35},  # Table 1
    "CapsNet-Keras": {(1, True): 0.36, (3, True): 0.34, (1, False): 0.39, (3, False): 0.40},
}
QUOTED_WIDTHS = {"paper": 7, "CapsNet-Keras": 14}  # their columns in error_table


@checked
def describe(results: Results) -> str:
    """How many runs ``results`` holds and their hours of training, the budget they were given
    and how many epochs they trained, and how the first of them was made (its command, minutes,
    threads and torch)."""
    name, first = next(iter(results.items()))
    hours = sum(run.train_time_s for run in results.values()) / 3600
    budgets = " or ".join(map(str, sorted({run.max_epochs for run in results.values()})))
    trained = [len(run.validation_by_epoch) for run in results.values()]
    example = (f"command {first.command!r}, {first.train_time_s / 60:.0f} min on {first.threads} "
               f"thread(s), torch {first.torch_version}")
    return (f"{len(results)} runs recorded, {hours:.1f} hours of training in all; a budget of "
            f"{budgets} epochs each, {min(trained)} to {max(trained)} epochs trained; e.g. {name}: "
            + example)


@checked
def error_table(results: Grid) -> str:
    """One row per cell of ``ABLATION_GRID`` (``error_row``) under a header naming the columns."""
    header = (f"{'routing':>9} {'reconstruction':>15} {'test error, ours (%)':>52}"
              + "".join(f" {source:>{QUOTED_WIDTHS[source]}}" for source in QUOTED))
    return "\n".join([header, *(error_row(results, cell) for cell in ABLATION_GRID)])


@checked
def error_row(results: Results, cell: Cell) -> str:
    """A grid ``cell``'s row of ``error_table``: its iterations, whether it has the
    reconstruction loss, its test error over the seeds (``statistics.over_seeds``) and, for the
    paper's four settings, the errors ``QUOTED``."""
    _check_cells("error_row", results, cell=cell)
    key = (cell.iterations, cell.recon_weight > 0)
    quoted = "".join(f"{errors[key]:>{QUOTED_WIDTHS[source]}.2f}"
                     for source, errors in QUOTED.items() if key in errors)
    return (f"{cell.iterations:>9} {'yes' if key[1] else 'no':>15} "
            f"{str(over_seeds(seed_errors(results, cell))):>52}{quoted}")


@checked
def cell_label(cell: Cell) -> str:
    """A grid cell in two short lines, e.g. ``"3 it.\nrecon"``."""
    return f"{cell.iterations} it.\n{'recon' if cell.recon_weight else 'no recon'}"


@checked
def errors_by_cell(results: Grid) -> dict[str, np.ndarray]:
    """Each cell's test error (%) per seed, by ``cell_label``, in the order of ``ABLATION_GRID``:
    label -> ``[len(SEEDS)]``."""
    return {cell_label(cell): seed_errors(results, cell) for cell in ABLATION_GRID}


@checked
def improving(results: Results) -> list[str]:
    """The runs whose best held-out epoch was their last: still improving when they stopped."""
    return [name for name, run in results.items()
            if best_epoch(run.validation_by_epoch) == len(run.validation_by_epoch)]


@checked
def finished(results: Results) -> list[str]:
    """The runs that met the course's stopping rule (``stopping_rule.converged``)."""
    return [name for name, run in results.items()
            if converged(run.validation_by_epoch, PATIENCE)]


WEIGHTS = sorted({cell.recon_weight for cell in ABLATION_GRID}, reverse=True)  # with, without


def _one_change(where: str, changed: Cell, base: Cell) -> None:
    """Refuse two cells that do not differ in exactly one setting."""
    if sum(a != b for a, b in zip(changed, base, strict=True)) != 1:
        raise ValueError(f"{where}(): changed must differ from base in one setting "
                         f"(iterations or recon_weight), got {changed} and {base}; pass two "
                         "cells of ABLATION_GRID that differ in one, e.g. Cell(3, 0.0005) and "
                         "Cell(1, 0.0005)")


@dataclass(frozen=True)
class OneChange(CheckedRecord):
    """Two cells of ``ABLATION_GRID`` that differ in one thing, compared seed by seed:
    ``changed``'s test error minus ``base``'s (points; ``statistics.seed_difference``, paired)."""

    changed: Record(Cell)
    base: Record(Cell)
    difference: Record(SeedDifference)

    def __post_init__(self):
        super().__post_init__()
        _one_change("OneChange", self.changed, self.base)


@dataclass(frozen=True)
class OneChangeComparisons(CheckedRecord):
    """Every pair of cells of ``ABLATION_GRID`` that differ in one thing, each a ``OneChange``
    (``one_change_comparisons``)."""

    # at each reconstruction weight of WEIGHTS, every two numbers of iterations: more vs fewer
    iterations: tuple[Record(OneChange), ...]
    # at each number of iterations, the reconstruction loss (weight WEIGHTS[0]) vs none
    reconstruction: tuple[Record(OneChange), ...]

    def every(self) -> tuple[OneChange, ...]:
        """Every comparison, in the order ``comparison_lines`` writes them."""
        return self.iterations + self.reconstruction

    @checked
    def between(self, changed: Cell, base: Cell) -> SeedDifference:
        """``changed``'s test error minus ``base``'s, as compared here."""
        found = [c.difference for c in self.every() if (c.changed, c.base) == (changed, base)]
        if not found:
            pairs = ", ".join(f"({tuple(c.changed)}, {tuple(c.base)})" for c in self.every())
            raise ValueError(f"OneChangeComparisons.between(): changed and base must be a pair "
                             f"of cells compared here, got {tuple(changed)} and {tuple(base)}; "
                             f"pass one of the pairs (changed, base): {pairs}")
        return found[0]


@checked
def one_change(results: Results, changed: Cell, base: Cell) -> OneChange:
    """``changed`` against ``base`` seed by seed (``statistics.seed_difference``, paired: the runs
    of one seed share their initial weights, batches and shifts)."""
    _one_change("one_change", changed, base)
    _check_cells("one_change", results, changed=changed, base=base)
    return OneChange(changed, base, seed_difference(seed_errors(results, changed),
                                                    seed_errors(results, base), by_seed=True))


@checked
def one_change_comparisons(results: Grid) -> OneChangeComparisons:
    """Every pair of cells of ``ABLATION_GRID`` that differ in one thing, compared seed by seed
    (``one_change``): for each reconstruction weight, every two numbers of iterations (3 vs 1:
    3's error minus 1's); then, at each number of iterations, the reconstruction loss against
    none (its error minus none's)."""
    iterations = []
    for weight in WEIGHTS:
        cells = [cell for cell in ABLATION_GRID if cell.recon_weight == weight]
        iterations += [one_change(results, b, a)
                       for k, a in enumerate(cells) for b in cells[k + 1:]]
    with_, without = WEIGHTS
    return OneChangeComparisons(tuple(iterations), tuple(
        one_change(results, Cell(its, with_), Cell(its, without))
        for its in sorted({cell.iterations for cell in ABLATION_GRID})))


@checked
def comparison_lines(comparisons: Record(OneChangeComparisons)) -> list[str]:
    """``one_change_comparisons`` as text: each group's heading, then one indented line per
    comparison."""
    lines = []
    for weight in WEIGHTS:
        lines.append(f"reconstruction weight {weight}:")
        lines += [f"  {c.changed.iterations} vs {c.base.iterations} iterations, error (points): "
                  f"{c.difference}"
                  for c in comparisons.iterations if c.base.recon_weight == weight]
    lines.append(f"reconstruction (weight {WEIGHTS[0]}) vs none, at the same iterations:")
    lines += [f"  {c.base.iterations} iteration(s), error (points): {c.difference}"
              for c in comparisons.reconstruction]
    return lines


@checked
def lowest_error(results: Grid) -> tuple[Cell, float]:
    """The cell of ``ABLATION_GRID`` with the lowest mean test error over the seeds (the first of
    ties), and that error (%)."""
    best = min(ABLATION_GRID, key=lambda cell: seed_errors(results, cell).mean())
    return best, float(seed_errors(results, best).mean())


@checked
def test_time_table(results: Grid) -> str:
    """The mean test error (%) over the seeds of every cell (rows: how it was trained) routed
    with each of ``TEST_ITERATIONS`` at test time (columns), one block per reconstruction
    weight."""
    lines = []
    for weight in WEIGHTS:
        lines.append(f"reconstruction weight {weight}; tested with -> "
                     + "".join(f"{t:>7}" for t in TEST_ITERATIONS))
        lines += [f"  trained with {cell.iterations} iteration(s)      "
                  + "".join(f"{seed_errors(results, cell, t).mean():>7.2f}"
                            for t in TEST_ITERATIONS)
                  for cell in ABLATION_GRID if cell.recon_weight == weight]
    return "\n".join(lines)


@checked
def best_as_trained(results: Grid) -> list[Cell]:
    """The cells of ``ABLATION_GRID`` whose mean test error is lowest (or tied lowest) of their
    row when routed at test time with the iterations they were trained with."""
    return [cell for cell in ABLATION_GRID if seed_errors(results, cell).mean()
            <= min(seed_errors(results, cell, t).mean() for t in TEST_ITERATIONS) + 1e-9]


@checked
def routed_more(results: Grid, tested_with: Iterations) -> list[float]:
    """For every cell trained with fewer than ``tested_with`` iterations, how much routing it
    ``tested_with`` times at test time changes its mean test error (points)."""
    _check_tested("routed_more", results, tested_with)
    return [seed_errors(results, cell, tested_with).mean() - seed_errors(results, cell).mean()
            for cell in ABLATION_GRID if cell.iterations < tested_with]


@checked
def run(cell: Cell, seed: Seed, epochs: Epochs | None = None, limit: Limit | None = None,
        progress: Flag("whether to show progress bars") = True,
        state_path: StateFile | None = None) -> AblationRun:
    """Train one ``cell`` of the grid (its recipe, ``recipes.ablation_recipe``) with ``seed``
    within ``epochs`` (the recipe's budget by default) and score it: the record of the run."""
    recipe = RECIPES[ablation_name(cell)]
    epochs = recipe.epochs if epochs is None else epochs
    model, history, train_examples = train_recipe(recipe, epochs, limit, seed, progress,
                                                  state_path, where="run")
    test = load_mnist(False, limit)
    by_iterations = {}
    for iterations in TEST_ITERATIONS:  # the same weights, routing a different number of times
        with routing_iterations(model, iterations):
            by_iterations[iterations] = evaluate(model, test)
    scores = tuple(held_out_scores(history))
    return AblationRun(overrides=cell, seed=seed, limit=limit, train_examples=train_examples,
                       test_accuracy=by_iterations[cell.iterations],
                       test_accuracy_by_iterations=by_iterations,
                       validation_by_epoch=scores, max_epochs=epochs, patience=recipe.patience,
                       converged=converged(scores),
                       **asdict(how_run(history)))


@checked
def main(argv: Argv | None = None) -> int:
    parser = train.experiment_parser(COMMAND, __doc__)
    parser.add_argument("--seeds", type=train.seed_int, nargs="+", default=list(SEEDS),
                        action=EachOnce)
    train.add_budget(parser, budget())
    args = train.parse_experiment(parser, argv)
    path = train.results_file(args, RESULTS)
    earlier = read_results(path) if path.exists() else {}  # none before the first run
    recorded = {name: (record.max_epochs, record.limit) for name, record in earlier.items()}
    train.refuse_other_budgets(parser, path, recorded, args)
    runs = {run_name(cell, seed): partial(run, cell, seed, args.epochs, args.limit)
            for seed in args.seeds for cell in ABLATION_GRID}
    train.record_missing(path, runs, command_line(COMMAND, epochs=args.epochs, limit=args.limit,
                                                  threads=args.threads),
                         replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Notebook 09's ablations: one CPU-scale CapsNet trained many ways, each with several seeds.

The paper's Table 1 compares 1 and 3 routing iterations, with and without the reconstruction
loss, on MNIST (three trials each). ``GRID`` asks the same of notebook 05's ``LIVE`` network, with
2 and 5 iterations added. Every cell is trained by the same ``recipe`` (data, epochs, schedule,
the paper's 2-pixel shifts, the epoch chosen on held-out training images, training stopped by the
course's rule or a budget of epochs) for each seed, then scored on the MNIST test set with the
number of iterations it was trained with and with every other one (``TEST_ITERATIONS``: the same
weights, routing more or less at test time).

    python -m capsedu.ablations                    # every missing run, into <data root>/runs
    python -m capsedu.ablations --replace-shipped  # into the shipped <data root>/results
    python -m capsedu.ablations --out FOLDER       # into FOLDER/routing_ablations.json

A finished run is written at once, so an interrupted grid resumes where it stopped (and a run
resumes from its last epoch with ``state``); each record keeps the command, seed, time and threads.
"""

import sys
from functools import partial
from pathlib import Path

import numpy as np
import torch

from . import checkpoints
from .capsnet import LIVE, CapsNet, routing_iterations
from .convergence import PATIENCE, best_epoch, converged
from .data.mnist import load_mnist
from .loop import evaluate, random_shift
from .recipes import Recipe, command_line, how_run, train_recipe
from .statistics import SeedDifference, over_seeds, seed_difference
from .train import experiment_parser, positive_int, record_missing, results_file

RESULTS = "routing_ablations.json"
TEST_ITERATIONS = (1, 2, 3, 5)
GRID = [{"iterations": it, "recon_weight": w} for w in (0.0005, 0.0) for it in (1, 2, 3, 5)]
SEEDS = (0, 1, 2)
EPOCHS = 20  # the budget: each run stops earlier, once PATIENCE epochs bring no held-out gain
COMMAND = "python -m capsedu.ablations"


def recipe(overrides: dict, epochs: int = EPOCHS) -> Recipe:
    """The training run of one cell of the grid: ``CapsNet(LIVE, **overrides)``, until the rule
    stops it (``convergence.converged``) or ``epochs`` run out."""
    return Recipe(
        description=f"notebook 09's ablation: CapsNet(LIVE, {overrides}) on MNIST shifted by up "
        "to 2 pixels; the epoch is chosen on the last 5,000 training images, held out",
        build=lambda: CapsNet(LIVE, **overrides),
        epochs=epochs, patience=PATIENCE, batch_size=128, lr=2e-3, lr_decay=0.8,
        augment=random_shift,
        validation=5000,
    )


def run_name(overrides: dict, seed: int) -> str:
    """A run's key in the results, e.g. ``iterations=3,recon_weight=0.0005,seed=1``."""
    return ",".join(f"{k}={v}" for k, v in sorted(overrides.items())) + f",seed={seed}"


def read_results(path: Path | None = None) -> dict[str, dict]:
    """The recorded runs by ``run_name`` (the shipped ones by default; empty when none)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True))


def seed_errors(results: dict[str, dict], cell: dict, tested_with: int | None = None) -> np.ndarray:
    """Test error (%) of each seed of a grid ``cell`` ``[len(SEEDS)]``, routed at test time with
    the iterations it was trained with, or with ``tested_with``."""
    key = str(tested_with or cell["iterations"])
    return np.array([100 * (1 - results[run_name(cell, seed)]["test_accuracy_by_iterations"][key])
                     for seed in SEEDS])


def seed_noise(results: dict[str, dict], cell: dict) -> float:
    """How far another training seed moves a grid ``cell``'s test accuracy: the standard
    deviation (ddof 1) of its seeds' accuracies, 0..1 units (the noise a difference between two
    single runs of that recipe must exceed to say anything about the recipes)."""
    return float(np.std(seed_errors(results, cell), ddof=1)) / 100


# Test errors (%) quoted for the paper's four settings, (iterations, with reconstruction) -> error
QUOTED = {
    "paper": {(1, True): 0.29, (3, True): 0.25, (1, False): 0.34, (3, False): 0.35},  # Table 1
    "CapsNet-Keras": {(1, True): 0.36, (3, True): 0.34, (1, False): 0.39, (3, False): 0.40},
}
QUOTED_WIDTHS = {"paper": 7, "CapsNet-Keras": 14}  # their columns in error_table


def describe(results: dict[str, dict]) -> str:
    """How many runs ``results`` holds and their hours of training, the budget they were given
    and how many epochs they trained, and how the first of them was made (its command, minutes,
    threads and torch)."""
    if not results:
        raise ValueError(f"no runs recorded yet: run {COMMAND}")
    name, first = next(iter(results.items()))
    hours = sum(run["train_time_s"] for run in results.values()) / 3600
    budgets = " or ".join(map(str, sorted({run["max_epochs"] for run in results.values()})))
    trained = [len(run["validation_by_epoch"]) for run in results.values()]
    return (f"{len(results)} runs recorded, {hours:.1f} hours of training in all; a budget of "
            f"{budgets} epochs each, {min(trained)} to {max(trained)} epochs trained; e.g. {name}: "
            f"command {first['command']!r}, {first['train_time_s'] / 60:.0f} min on "
            f"{first['threads']} thread(s), torch {first['torch_version']}")


def error_table(results: dict[str, dict]) -> str:
    """One row per cell of ``GRID``: its iterations, whether it has the reconstruction loss, the
    test error over the seeds (``statistics.over_seeds``) and, for the paper's four settings, the
    errors ``QUOTED``."""
    lines = [f"{'routing':>9} {'reconstruction':>15} {'test error, ours (%)':>52}"
             + "".join(f" {source:>{QUOTED_WIDTHS[source]}}" for source in QUOTED)]
    for cell in GRID:
        key = (cell["iterations"], cell["recon_weight"] > 0)
        quoted = "".join(f"{errors[key]:>{QUOTED_WIDTHS[source]}.2f}"
                         for source, errors in QUOTED.items() if key in errors)
        lines.append(f"{cell['iterations']:>9} {'yes' if key[1] else 'no':>15} "
                     f"{str(over_seeds(seed_errors(results, cell))):>52}{quoted}")
    return "\n".join(lines)


def cell_label(cell: dict) -> str:
    """A grid cell in two short lines, e.g. ``"3 it.\nrecon"``."""
    return f"{cell['iterations']} it.\n{'recon' if cell['recon_weight'] else 'no recon'}"


def errors_by_cell(results: dict[str, dict]) -> dict[str, np.ndarray]:
    """Each cell's test error (%) per seed, by ``cell_label``, in the order of ``GRID``: label ->
    ``[len(SEEDS)]``."""
    return {cell_label(cell): seed_errors(results, cell) for cell in GRID}


def improving(results: dict[str, dict]) -> list[str]:
    """The runs whose best held-out epoch was their last: still improving when they stopped."""
    return [name for name, run in results.items()
            if best_epoch(run["validation_by_epoch"]) == len(run["validation_by_epoch"])]


def finished(results: dict[str, dict]) -> list[str]:
    """The runs that met the course's stopping rule (``convergence.converged``)."""
    return [name for name, run in results.items()
            if converged(run["validation_by_epoch"], PATIENCE)]


WEIGHTS = sorted({cell["recon_weight"] for cell in GRID}, reverse=True)  # with, then without


def one_change_comparisons(results: dict[str, dict]) -> dict[str, dict[str, SeedDifference]]:
    """Every pair of cells of ``GRID`` that differ in one thing, compared seed by seed
    (``statistics.seed_difference``, paired: the runs of one seed share their initial weights,
    batches and shifts), grouped under a heading: for each reconstruction weight, every two
    numbers of iterations (``"3 vs 1 iterations"``: 3's error minus 1's); then, at each number
    of iterations, the reconstruction loss against none (its error minus none's)."""
    groups = {}
    for weight in WEIGHTS:
        cells = [cell for cell in GRID if cell["recon_weight"] == weight]
        groups[f"reconstruction weight {weight}"] = {
            f"{b['iterations']} vs {a['iterations']} iterations":
                seed_difference(seed_errors(results, b), seed_errors(results, a), by_seed=True)
            for k, a in enumerate(cells) for b in cells[k + 1:]}
    with_, without = WEIGHTS
    groups[f"reconstruction (weight {with_}) vs none, at the same iterations"] = {
        f"{iterations} iteration(s)": seed_difference(
            seed_errors(results, {"iterations": iterations, "recon_weight": with_}),
            seed_errors(results, {"iterations": iterations, "recon_weight": without}),
            by_seed=True)
        for iterations in sorted({cell["iterations"] for cell in GRID})}
    return groups


def comparison_lines(groups: dict[str, dict[str, SeedDifference]]) -> list[str]:
    """``one_change_comparisons`` as text: each heading, then one indented line per comparison."""
    lines = []
    for heading, comparisons in groups.items():
        lines.append(f"{heading}:")
        lines += [f"  {what}, error (points): {comparison}"
                  for what, comparison in comparisons.items()]
    return lines


def lowest_error(results: dict[str, dict]) -> tuple[dict, float]:
    """The cell of ``GRID`` with the lowest mean test error over the seeds (the first of ties),
    and that error (%)."""
    best = min(GRID, key=lambda cell: seed_errors(results, cell).mean())
    return best, float(seed_errors(results, best).mean())


def test_time_table(results: dict[str, dict]) -> str:
    """The mean test error (%) over the seeds of every cell (rows: how it was trained) routed
    with each of ``TEST_ITERATIONS`` at test time (columns), one block per reconstruction
    weight."""
    lines = []
    for weight in WEIGHTS:
        lines.append(f"reconstruction weight {weight}; tested with -> "
                     + "".join(f"{t:>7}" for t in TEST_ITERATIONS))
        lines += [f"  trained with {cell['iterations']} iteration(s)      "
                  + "".join(f"{seed_errors(results, cell, t).mean():>7.2f}"
                            for t in TEST_ITERATIONS)
                  for cell in GRID if cell["recon_weight"] == weight]
    return "\n".join(lines)


def best_as_trained(results: dict[str, dict]) -> list[dict]:
    """The cells of ``GRID`` whose mean test error is lowest (or tied lowest) of their row when
    routed at test time with the iterations they were trained with."""
    return [cell for cell in GRID if seed_errors(results, cell).mean()
            <= min(seed_errors(results, cell, t).mean() for t in TEST_ITERATIONS) + 1e-9]


def routed_more(results: dict[str, dict], tested_with: int) -> list[float]:
    """For every cell trained with fewer than ``tested_with`` iterations, how much routing it
    ``tested_with`` times at test time changes its mean test error (points)."""
    return [seed_errors(results, cell, tested_with).mean() - seed_errors(results, cell).mean()
            for cell in GRID if cell["iterations"] < tested_with]


def run(overrides: dict, seed: int, epochs=EPOCHS, limit=None, progress=True,
        state_path=None) -> dict:
    """Train one cell of the grid with ``seed`` within ``epochs`` and score it: the record of the
    run."""
    model, history, train_examples = train_recipe(recipe(overrides, epochs), seed=seed,
                                                  limit=limit, progress=progress,
                                                  state_path=state_path)
    test = load_mnist(False, limit)
    by_iterations = {}
    for iterations in TEST_ITERATIONS:  # the same weights, routing a different number of times
        with routing_iterations(model, iterations):
            by_iterations[str(iterations)] = evaluate(model, test)
    trained_with = str(overrides.get("iterations", LIVE.iterations))
    scores = [h["validation_accuracy"] for h in history]
    return {"overrides": overrides, "seed": seed, "limit": limit,
            "train_examples": train_examples, "test_accuracy": by_iterations[trained_with],
            "test_accuracy_by_iterations": by_iterations,
            "validation_by_epoch": scores, "max_epochs": epochs, "patience": PATIENCE,
            "converged": converged(scores),
            **how_run(history)}


def main(argv=None) -> int:
    parser = experiment_parser(COMMAND, __doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--epochs", type=positive_int, default=EPOCHS,
                        help=f"the budget of every run, which the rule may stop earlier "
                        f"(default: {EPOCHS})")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    path = results_file(args, RESULTS)
    # a file holds runs of one budget only, so that they can be compared
    other = [name for name, record in checkpoints.read_results(path).items()
             if (record["max_epochs"], record.get("limit")) != (args.epochs, args.limit)]
    if other:
        parser.error(f"{path} holds runs made with other --epochs or --limit ({', '.join(other)}):"
                     " finish it with their flags, or write elsewhere (--out)")
    record_missing(path, {run_name(overrides, seed): partial(run, overrides, seed, args.epochs,
                                                             args.limit)
                          for seed in args.seeds for overrides in GRID},
                   command_line(COMMAND, epochs=args.epochs, limit=args.limit,
                                threads=args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())

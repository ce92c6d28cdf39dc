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
from .data.mnist import load_mnist
from .loop import PATIENCE, converged, evaluate, random_shift
from .recipes import Recipe, train_recipe
from .train import command_line, experiment_parser, positive_int, record_missing, results_file

RESULTS = "routing_ablations.json"
TEST_ITERATIONS = (1, 2, 3, 5)
GRID = [{"iterations": it, "recon_weight": w} for w in (0.0005, 0.0) for it in (1, 2, 3, 5)]
SEEDS = (0, 1, 2)
EPOCHS = 20  # the budget: each run stops earlier, once PATIENCE epochs bring no held-out gain
COMMAND = "python -m capsedu.ablations"


def recipe(overrides: dict, epochs: int = EPOCHS) -> Recipe:
    """The training run of one cell of the grid: ``CapsNet(LIVE, **overrides)``, until the rule
    stops it (``loop.converged``) or ``epochs`` run out."""
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
            "train_time_s": round(sum(h["seconds"] for h in history), 1),
            "threads": torch.get_num_threads(), "torch_version": torch.__version__}


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

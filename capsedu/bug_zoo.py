"""The bug zoo's recorded runs (notebook 09): the correct CapsNet and each bug's, trained the same
way, and what the bugs did to them.

``run(name)`` trains the correct ``CapsNet(LIVE)`` (``name=CORRECT``) or a bug's
(``buggy_capsnet.BuggyCapsNet``, one per key of ``bug_catalogue.BUGS``), each by its recipe in
``recipes.RECIPES`` (``recipes.zoo_recipe``: all the same way, same seed, data, batches and
shifts), and returns its record, a ``ZooRun``: the loss and training
accuracy of every step, the held-out and test accuracy, and what the trained routing does to the
couplings (``CouplingStats``). ``read_results()`` gives the shipped records to the notebook: the
runs trained until the rule stopped them, and (``read_results(epochs=1)``) the same runs stopped
after one epoch. ``bug_effects`` pairs each bug's run with the correct one on the same test images
(``BugEffect``). What notebook 09 prints and shows of them is in ``bug_zoo_report``.

    python -m capsedu.bug_zoo --limit 512           # a trial of every run, into <data root>/runs
    python -m capsedu.bug_zoo --replace-shipped     # the shipped <data root>/results/bug_zoo.json
    python -m capsedu.bug_zoo --epochs 1 --replace-shipped   # ... and bug_zoo_1_epoch.json

A finished run is written at once, so an interrupted zoo resumes where it stopped (and a run
resumes from its last epoch); each record keeps the command, seed, epochs, time and threads.
"""

import math
import sys
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Annotated

import numpy as np
import torch
from pydantic import AfterValidator

from . import checkpoints, statistics, train
from .bug_catalogue import BUGS
from .capsnet import LIVE, CapsNet
from .checks import check_order
from .convergence import chosen_epoch, finished, held_out_scores
from .coupling_polarisation import coupling_trace
from .course_settings import MAX_BATCH, Argv, RunThreads, Seed, StateFile, Text
from .data.mnist import SPLITS, TRAIN_IMAGES, load_mnist
from .derived import check_derived
from .json_records import OMITTED_WHEN_NONE
from .loop import predict
from .manifest_rows import Accuracy, Count
from .recipe_run import how_run, train_recipe
from .recipes import (
    CORRECT,
    RECIPES,
    Cell,
    Epochs,
    Limit,
    ZooRunName,
    command_line,
    shared_budget,
    zoo_name,
)
from .routing import RoutingResult, RoutingStep
from .statistics import Paired
from .stopping_rule import best_epoch, converged
from .validate import CheckedRecord, Choice, Flag, Float, Int, Record, Some, Tensor, checked

RESULTS = "bug_zoo.json"  # the runs with the full budget; another budget has a file of its own
COMMAND = "python -m capsedu.bug_zoo"
# the cell of 09's ablation grid whose recipe the correct run is (its seeds give the zoo's noise)
CELL = Cell(LIVE.iterations, LIVE.recon_weight)
TEST_IMAGES = SPLITS[False][2]  # MNIST's test split
COUPLING_IMAGES = 128  # the first test images (one training batch), whose couplings a run reports


# --- The records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CouplingStats(CheckedRecord):
    """What one routing iteration did to the couplings (``coupling_stats``), means over the
    children: of each child's split of its vote, c_ij / sum_k c_ik, the normalised ``entropy``
    (1: even over the parents), the ``distance`` from uniform and the ``polarised`` share (over
    90 % to one parent); and ``vote``, a child's whole vote sum_j c_ij (1 in the paper)."""

    entropy: Float("the normalised entropy of the splits, 1: even (float32 may pass it)", ge=0)
    distance: Float("the distance from uniform", ge=0)
    polarised: Float("the share of children sending over 90 % to one parent", ge=0, le=1)
    vote: Float("a child's whole vote sum_j c_ij", ge=0)


@dataclass(frozen=True, kw_only=True)
class ZooRun(CheckedRecord):
    """The record of one run of the zoo (``run``), as its results file keeps it (made with its
    fields by name, since ``n_test``, optional, sits among them)."""

    seed: Seed
    epochs: Epochs  # the budget; the run may have stopped earlier, by the rule
    patience: Int("the rule's epochs without a held-out gain", ge=1)
    converged: Flag("whether the rule held when it stopped (stopping_rule.converged)")
    limit: Limit | None  # a trial's first images, or None for all of MNIST
    batch_size: Int("examples a step", ge=1, le=MAX_BATCH)
    train_examples: Count
    validation_examples: Count
    steps_per_epoch: Int("training steps an epoch, one at least", ge=1)
    batch_loss: tuple[Float("a step's training loss", ge=0), ...]  # every step's
    batch_accuracy: tuple[Accuracy, ...]  # every step's training accuracy
    validation_by_epoch: Annotated[tuple[Accuracy, ...], Some]  # held out, every epoch's
    chosen_epoch: Int("the epoch it kept", ge=1)  # the first with the best held-out accuracy
    validation_accuracy: Accuracy
    test_accuracy: Accuracy
    # the test images scored, kept by the runs of bug_zoo.json (``limit`` gives it too)
    n_test: Count | None = field(default=None, metadata={OMITTED_WHEN_NONE: True})
    test_wrong: tuple[Int("a test image it reads wrong", ge=0), ...]  # for the paired tests
    couplings: Annotated[tuple[Record(CouplingStats), ...], Some]  # per routing iteration
    train_time_s: Float("the seconds it trained", ge=0)
    threads: RunThreads
    torch_version: Text
    command: str = ""  # the line that recorded it; "" for a run not written to a results file

    def __post_init__(self):
        """Its fields as declared (``CheckedRecord``); the epoch kept among those trained, no more
        than its budget."""
        super().__post_init__()
        trained = len(self.validation_by_epoch)
        if not self.chosen_epoch <= trained <= self.epochs:
            raise ValueError(f"ZooRun(): chosen_epoch <= len(validation_by_epoch) <= epochs must "
                             f"hold, got {self.chosen_epoch}, {trained} and {self.epochs}; pass "
                             "the epoch kept among those trained, within the budget")
        drawn = self.train_examples + self.validation_examples  # the first limit images, split
        check_order("ZooRun", "a run trains on and holds out the first limit images (all of "
                    "MNIST's without a limit)", **{"train_examples + validation_examples": drawn,
                                                   "limit": self.limit or TRAIN_IMAGES})
        tested = self.n_test or min(self.limit or SPLITS[False][2], SPLITS[False][2])
        check_order("ZooRun", "test_wrong holds indices of the test images scored", **{
            "max(test_wrong) + 1": max(self.test_wrong, default=-1) + 1, "n_test": tested})
        self._check_derived(tested)

    def _check_derived(self, tested: int) -> None:
        """Refuse a field other than what the run's other fields give (``run`` derives them)."""
        epochs, steps = len(self.validation_by_epoch), self.steps_per_epoch
        scores, fix = list(self.validation_by_epoch), "pass the record run(...) makes"
        check_derived("ZooRun", fix, **{
            "steps_per_epoch": (steps, math.ceil(self.train_examples / self.batch_size),
                                "train_examples / batch_size, rounded up"),
            "len(batch_loss)": (len(self.batch_loss), steps * epochs,
                                "steps_per_epoch x the epochs of validation_by_epoch"),
            "len(batch_accuracy)": (len(self.batch_accuracy), steps * epochs,
                                    "steps_per_epoch x the epochs of validation_by_epoch"),
            "chosen_epoch": (self.chosen_epoch, best_epoch(scores),
                             "the first epoch with the best held-out accuracy"),
            "validation_accuracy": (self.validation_accuracy, scores[self.chosen_epoch - 1],
                                    "the held-out accuracy of chosen_epoch"),
            "converged": (self.converged, converged(scores, self.patience),
                          f"the course's rule on validation_by_epoch with patience "
                          f"{self.patience} (stopping_rule.converged)"),
            "len(test_wrong)": (len(self.test_wrong), len(set(self.test_wrong)),
                                "the number of distinct images in it (each counted once)"),
            "test_accuracy": (self.test_accuracy, 1 - len(self.test_wrong) / tested,
                              f"1 - len(test_wrong) / n_test, n_test={tested}")})
        n = self.validation_examples
        for epoch, score in enumerate(scores):  # a share of the held-out images
            check_derived("ZooRun", fix, **{f"validation_by_epoch[{epoch}]": (
                score, round(score * n) / n, f"k / validation_examples, a whole number k of the "
                f"{n:,} held-out images")})

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is no run of the zoo (the correct model's or a bug's of ``BUGS``), in
        words; None when it is one (``results_kinds.records`` asks)."""
        return None if name in (CORRECT, *BUGS) else (
            f"which is no run of the zoo: {CORRECT!r} or a bug of BUGS ({', '.join(BUGS)})")


# --- Recorded runs: the correct model and each bug's, trained the same way ------------------------


def budget() -> int:
    """The zoo's budget of epochs, the one every run's recipe has: each run stops earlier, by the
    course's rule (``PATIENCE`` epochs without a held-out gain)."""
    return shared_budget(tuple(zoo_name(name) for name in (CORRECT, *BUGS)))


@checked
def coupling_stats(routing: Record(RoutingResult, "model(x).routing")) -> list[CouplingStats]:
    """What a ``routing`` did to the couplings, one ``CouplingStats`` per iteration of its
    ``history``: ``coupling_trace``'s entropy, distance from uniform and polarised share of each
    child's split of its vote, and the vote, a child's whole vote sum_j c_ij on average.

    In the paper a child's couplings sum to 1 over the parents: ``vote`` is 1 and the split is c
    itself. With the softmax over the children they do not (each child sends n_out / n_in of a
    vote on average), and the statistics read how each child splits what it sends."""
    # a child's split of its vote: c_ij / sum_k c_ik; [batch, n_in, n_out]
    splits = [RoutingStep._made(step.c / step.c.sum(dim=-1, keepdim=True), step.v)
              for step in routing.history]
    # the routing with these splits: unchecked, as its c (a buggy model's) may not sum to 1
    trace = coupling_trace(RoutingResult._made(*routing[:3], splits))
    return [CouplingStats(stats.entropy, stats.distance, stats.polarised,
                          vote=float(step.c.sum(dim=-1).mean()))
            for stats, step in zip(trace, routing.history, strict=True)]


@checked(reads=("model", "images"))
def trained_couplings(model: CapsNet,
                      images: Tensor("images [n, 1, 28, 28]", ndim=4, pixels=True)
                      ) -> list[CouplingStats]:
    """``coupling_stats`` of ``model``'s routing of ``images`` (on the CPU; the model is moved
    there)."""
    with torch.no_grad():
        return coupling_stats(model.cpu().eval()(images.cpu()).routing)


@checked
def run(name: ZooRunName, epochs: Epochs | None = None, limit: Limit | None = None,
        progress: bool = True, state_path: StateFile | None = None) -> ZooRun:
    """Train the zoo's model ``name`` by its recipe (``recipes.zoo_recipe``), within ``epochs``
    (the recipe's budget by default), and score it: the record of the run.

    Every run is trained until the course's rule stops it (``PATIENCE`` epochs without a held-out
    gain, ``stopping_rule.converged``) or the budget runs out: each bug is judged where its run
    ended, not after a fixed length. The last twelfth of the training images is held out (5,000
    of MNIST's 60,000; a trial with ``limit`` holds out the same share).

    ``batch_loss`` and ``batch_accuracy`` hold one number per step (``steps_per_epoch`` of them
    per epoch). Every model is scored in batches of the training size, as ``fit`` scores the
    held-out images: the model whose routing logits are shared over the batch reads an image
    differently in another batch, so it is scored as it was trained (every other model reads an
    image the same way in any batch).

    What to expect: the detached-output bug trains the decoder only (W_ij, PrimaryCaps and Conv1
    keep their initial weights), so its loss falls through the reconstruction alone.
    Mask-by-prediction and the unsquared margin change only the loss: their routing differs from
    the correct model's only through the weights they learned.
    """
    training = RECIPES[zoo_name(name)]
    if limit is not None:  # a trial holds out the same share, a twelfth
        training = replace(training, validation=max(1, limit // 12))
    epochs = training.epochs if epochs is None else epochs
    model, history, train_examples = train_recipe(training, epochs, limit, progress=progress,
                                                  state_path=state_path, where="run")
    test = load_mnist(False, limit)
    right = predict(model, test[0], training.batch_size) == test[1]  # [n_test]
    chosen, scores = chosen_epoch(history), held_out_scores(history)
    return ZooRun(
        seed=training.seed, epochs=epochs, patience=training.patience,
        converged=converged(scores, training.patience), limit=limit, batch_size=training.batch_size,
        train_examples=train_examples, validation_examples=training.validation,
        steps_per_epoch=len(history[0].batch_loss),
        batch_loss=tuple(round(loss, 5) for epoch in history for loss in epoch.batch_loss),
        batch_accuracy=tuple(right for epoch in history for right in epoch.batch_accuracy),
        validation_by_epoch=tuple(scores), chosen_epoch=chosen.epoch,
        validation_accuracy=chosen.validation_accuracy,
        test_accuracy=right.float().mean().item(),
        # which test images it reads wrong: the zoo's paired tests (every run reads the same)
        test_wrong=tuple(torch.nonzero(~right).flatten().tolist()),
        couplings=tuple(trained_couplings(model, test[0][:COUPLING_IMAGES])),
        **asdict(how_run(history)))


@checked
def results_name(epochs: Epochs | None = None) -> str:
    """The results file of the runs with a budget of ``epochs``: ``RESULTS`` for the recipes' own
    budget (``budget``, the default), e.g. ``bug_zoo_1_epoch.json`` for runs stopped after one
    epoch (a file holds runs of one budget only, so that they can be compared)."""
    if epochs is None or epochs == budget():
        return RESULTS
    return f"{Path(RESULTS).stem}_{epochs}_epoch{'s' * (epochs > 1)}.json"


def _with_correct(runs: dict) -> dict:
    """Refuse runs without the correct one, which every bug is read against."""
    if CORRECT not in runs:
        raise ValueError(f"must hold 09's bug zoo runs, the correct one ({CORRECT!r}) among them, "
                         f"got {sorted(runs)[:4] or 'none'}; read them with "
                         f"bug_zoo.read_results() (or record them: {COMMAND})")
    return runs


# 09's bug zoo runs by name (read_results, or a live run's), the correct one among them
Zoo = Annotated[dict[str, ZooRun], AfterValidator(_with_correct)]


@checked
def read_results(path: Path | None = None, epochs: Epochs | None = None) -> dict[str, ZooRun]:
    """The recorded runs by name, ``CORRECT`` and the keys of ``BUGS`` (the shipped ones with a
    budget of ``epochs``, the recipes' own by default; a file not there refused:
    ``checkpoints.read_results``); the runs of ``path`` are refused when they were made with
    another budget than ``epochs``."""
    path = path or checkpoints.results_path(results_name(epochs), True)
    runs = checkpoints.read_results(path, ZooRun)
    if epochs is None:  # any one budget's file
        return runs
    if other := sorted(name for name, run in runs.items() if run.epochs != epochs):
        raise ValueError(f"read_results(): path {path} must hold runs with a budget of epochs="
                         f"{epochs}, got {other[0]!r} with {runs[other[0]].epochs}; pass the "
                         f"file of that budget ({results_name(runs[other[0]].epochs)}), or its "
                         "epochs")
    return runs


# --- What each bug did: its run against the correct one -----------------------------------------


@dataclass(frozen=True)
class BugEffect(CheckedRecord):
    """What one bug did to its recorded run: its test accuracy against the correct run's, image by
    image on the same test images (``paired``: the bug's minus the correct model's), beside the
    run-to-run ``noise`` of the correct recipe over training seeds (a standard deviation of test
    accuracy, 0..1 units); ``finished``: both runs met the course's rule
    (``convergence.finished``)."""

    bug: Choice("a bug of BUGS", *BUGS)
    paired: Record(Paired)
    noise: Float("a standard deviation of test accuracy, 0..1", ge=0, le=1)
    finished: Flag("whether both runs met the course's rule")

    @property
    def revealed(self) -> bool:
        """Accuracy reveals the bug: the two runs are told apart on the shared test images and
        differ by more than another training seed of the same recipe would move either."""
        return self.paired.clear and abs(self.paired.difference) > self.noise


@checked
def bug_effects(recorded: Zoo,
                noise: Float("a standard deviation of test accuracy, 0..1", ge=0, le=1)
                ) -> dict[str, BugEffect]:
    """``BugEffect`` of every bug of ``recorded`` (``read_results``) against ``CORRECT``, by name:
    a paired test on the test images each run read wrong (``test_wrong``; every run reads the
    same test images: all of MNIST's, or a trial's first ``limit``), with the seed ``noise`` of
    the correct recipe (``ablations.seed_noise``)."""
    def right(record: ZooRun) -> np.ndarray:
        wrong = np.zeros(min(record.limit or TEST_IMAGES, TEST_IMAGES), dtype=bool)
        wrong[list(record.test_wrong)] = True
        return ~wrong

    correct = recorded[CORRECT]
    return {name: BugEffect(name, statistics.paired(right(recorded[name]), right(correct)), noise,
                            finished(recorded[name].validation_by_epoch)
                            and finished(correct.validation_by_epoch))
            for name in BUGS}


# --- The command line ---------------------------------------------------------------------------


@checked
def main(argv: Argv | None = None) -> int:
    parser = train.experiment_parser(COMMAND, __doc__)
    train.add_budget(parser, budget())
    args = train.parse_experiment(parser, argv)
    path = train.results_file(args, results_name(args.epochs))
    earlier = read_results(path) if path.exists() else {}  # none before the first run
    recorded = {name: (record.epochs, record.limit) for name, record in earlier.items()}
    train.refuse_other_budgets(parser, path, recorded, args)
    runs = {name: partial(run, name, args.epochs, args.limit) for name in (CORRECT, *BUGS)}
    train.record_missing(path, runs, command_line(COMMAND, epochs=args.epochs, limit=args.limit,
                                                  threads=args.threads),
                         replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Held-out curves of the five face models (notebooks 01, 07, 09, 10): has each recipe stopped
improving by the epoch it ships at?

Every other shipped model of the course chose its epoch on held-out training images and stopped by
the course's rule (``stopping_rule.converged``); the face models were trained for a fixed number of
epochs (``parts.training``). This experiment trains each face recipe again, one epoch at a time,
and after every epoch scores the model on held-out training images: ``VALIDATION`` faces and as
many non-faces of ``VALIDATION_SEED``, a seed that neither a training set (seeds 0, 1, 2) nor a
test set (``scoring.TEST_SEED`` on) uses. It goes on past the recipe's own length until the rule
holds (``PATIENCE`` epochs without a held-out gain) or twice that length has trained.

The record of a run says where the recipe's length sits on its curve: the held-out accuracy at
the recipe's epoch beside the best epoch's, and whether the curve had stopped rising there. The
weights are retrained, not the shipped ones: the same recipe on another machine rounds its floats
differently, so they differ slightly (``max_weight_difference`` records by how much at the
recipe's epoch), and the face rates a notebook prints are the shipped models'.

    python -m capsedu.parts.curves --seeds 0 1 2 --threads 1 --replace-shipped
"""

import json
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import torch

from .. import checkpoints
from ..course_parser import EachOnce
from ..course_settings import Argv, RunThreads, Seed, Text
from ..derived import check_derived
from ..manifest_rows import Accuracy, Count
from ..recipes import Epochs, command_line
from ..stopping_rule import PATIENCE, best_epoch, converged
from ..train import (
    experiment_parser,
    parse_experiment,
    record_missing,
    results_file,
    seed_int,
)
from ..validate import CheckedRecord, Flag, Float, Int, Some, checked
from . import training
from .scoring import FaceNet, face_rates

RESULTS = "face_curves.json"
COMMAND = "python -m capsedu.parts.curves"
VALIDATION = 400  # held-out faces, and as many non-faces, scored after every epoch
VALIDATION_SEED = 500  # neither a training seed (0, 1, 2, ...) nor a test seed (1000 on)
# each face model's recipe (recipes.RECIPES), by the model's name
RECIPES = {name: training.face_model_recipe(name) for name in training.FACE_MODELS}


@dataclass(frozen=True)
class FaceCurve(CheckedRecord):
    """The record of one run (``run``), as its results file keeps it."""

    model: training.FaceModel  # a face model of RECIPES
    seed: Seed
    recipe_epochs: Epochs  # the epochs its recipe trains (``recipe_epochs``)
    patience: Int("the rule's epochs without a held-out gain", ge=1)
    # the held-out accuracy after every epoch, 0..1
    validation_by_epoch: Annotated[tuple[Accuracy, ...], Some]
    validation_examples: Int("held-out faces and non-faces", ge=1)  # VALIDATION of each
    validation_seed: Seed
    best_epoch: Int("the first epoch with the best held-out accuracy", ge=1)
    converged_at_recipe: Flag("whether the rule had stopped it by the recipe's epoch")
    converged: Flag("whether the rule stopped it, within twice the recipe's length")
    # how far its weights at the recipe's epoch are from the shipped model's; None when an
    # interrupted run resumed past that epoch
    max_weight_difference: Float("the largest weight difference", ge=0) | None
    train_time_s: Float("the seconds it trained", ge=0)
    threads: RunThreads
    torch_version: Text
    command: str = ""  # the line that recorded it; "" for a run not written to a results file

    def __post_init__(self):
        super().__post_init__()  # and its best epoch and its recipe's among those trained
        for name in ("best_epoch", "recipe_epochs"):
            if getattr(self, name) > len(self.validation_by_epoch):
                raise ValueError(f"FaceCurve(): {name} must be among the "
                                 f"{len(self.validation_by_epoch)} epochs of validation_by_epoch, "
                                 f"got {getattr(self, name)}; pass the epoch it is")
        scores, rule = list(self.validation_by_epoch), f"the course's rule with patience " \
            f"{self.patience} (stopping_rule.converged) on validation_by_epoch"
        check_derived("FaceCurve", "pass the record run(...) makes", **{
            "best_epoch": (self.best_epoch, best_epoch(scores),
                           "the first epoch with the best held-out accuracy"),
            "converged_at_recipe": (self.converged_at_recipe,
                                    converged(scores[:self.recipe_epochs], self.patience),
                                    rule + "'s first recipe_epochs"),
            "converged": (self.converged, converged(scores, self.patience), rule)})

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is not this curve's key in its results file (``run_name`` of its model
        and seed), in words; None when it is (``results_kinds.records`` asks)."""
        made = run_name(self.model, self.seed)
        return None if name == made else f"whose model and seed make the name {made!r}"


@checked
def recipe_epochs(name: str) -> int:
    """The number of epochs the shipped face model ``name`` was trained for: its recipe's
    (``recipes.RECIPES``)."""
    if name not in RECIPES:
        raise ValueError(f"recipe_epochs(): name must be one of {', '.join(map(repr, RECIPES))} "
                         f"(a face model of 07), got {name!r}; pass one of those")
    return RECIPES[name].epochs


@checked
def held_out_accuracy(model: FaceNet) -> float:
    """Faces vs non-faces accuracy of ``model`` on the held-out training images (``VALIDATION``
    of each, seed ``VALIDATION_SEED``): the mean of its face rate on faces and one minus its face
    rate on non-faces."""
    rates = face_rates(model, ("face", "nonface"), VALIDATION, VALIDATION_SEED)
    return (rates["face"] + 1 - rates["nonface"]) / 2


@checked
def weight_difference(model: torch.nn.Module, shipped: torch.nn.Module) -> float:
    """The largest absolute difference between two models' weights (0.0 when identical)."""
    theirs = shipped.state_dict()
    ours = {key: tuple(value.shape) for key, value in model.state_dict().items()}
    if ours != {key: tuple(value.shape) for key, value in theirs.items()}:
        raise ValueError(f"weight_difference(): model and shipped must be the same architecture "
                         f"(the same weights, of the same shapes), got a {type(model).__name__} "
                         f"and a {type(shipped).__name__} that differ; pass a model trained by "
                         "the recipe shipped was")
    return max((value.float() - theirs[key].float()).abs().max().item()
               for key, value in model.state_dict().items())


@checked
def run(name: str, seed: Seed, state_path: Path) -> FaceCurve:
    """Train face model ``name`` with ``seed`` one epoch at a time (``training.train_face_model``
    resuming from ``state_path``, so the weights are those of one straight run) and score it on
    the held-out images after every epoch, until the rule holds after the recipe's length or
    twice that length has trained. An interrupted run resumes at its last epoch: the scores so far
    are kept beside the state (``<state>.scores.json``)."""
    own = recipe_epochs(name)
    scores_file = Path(f"{state_path}.scores.json")
    scores = json.loads(scores_file.read_text()) if scores_file.exists() else []
    seconds = 0.0
    difference = None
    while len(scores) < 2 * own and not (len(scores) >= own and converged(scores, PATIENCE)):
        began = time.perf_counter()
        model = training.train_face_model(name, seed, progress=False, epochs=len(scores) + 1,
                                          state_path=state_path)
        seconds += time.perf_counter() - began
        scores.append(round(held_out_accuracy(model), 5))
        scores_file.write_text(json.dumps(scores))
        if len(scores) == own:
            shipped = checkpoints.pretrained(training.checkpoint_name(name, seed))
            difference = weight_difference(model, shipped)
    scores_file.unlink(missing_ok=True)
    return FaceCurve(model=name, seed=seed, recipe_epochs=own, patience=PATIENCE,
                     validation_by_epoch=tuple(scores), validation_examples=2 * VALIDATION,
                     validation_seed=VALIDATION_SEED, best_epoch=best_epoch(scores),
                     converged_at_recipe=converged(scores[:own], PATIENCE),
                     converged=converged(scores, PATIENCE), max_weight_difference=difference,
                     train_time_s=round(seconds, 1), threads=torch.get_num_threads(),
                     torch_version=torch.__version__)


@checked
def summary(record: FaceCurve) -> str:
    """A finished run in a few words, as its command prints it."""
    return (f"best held-out epoch {record.best_epoch} of {len(record.validation_by_epoch)} "
            f"(the recipe trains {record.recipe_epochs}), {record.train_time_s:.0f} s")


@checked
def run_name(name: training.FaceModel, seed: Seed) -> str:
    """A run's key in the results: the shipped checkpoint's name (``faces-deep-cnn-seed0``)."""
    return training.checkpoint_name(name, seed)


@checked
def read_results(path: Path | None = None) -> dict[str, FaceCurve]:
    """The recorded curves by ``run_name`` (the shipped ones by default; a file not there
    refused: ``checkpoints.read_results``)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True), FaceCurve)


@dataclass(frozen=True)
class RecipeLength(CheckedRecord):
    """Whether one face model's recipe trains long enough, over its recorded seeds: how many of
    them had met the course's rule by the recipe's epoch (``at_recipe`` of ``seeds``), how many met
    it at all within twice the length (``converged``), and the most held-out accuracy any seed
    gained by training on (``largest_gain``, 0..1)."""

    model: training.FaceModel
    seeds: Int("recorded seeds", ge=1)
    at_recipe: Count
    converged: Count
    largest_gain: Float("held-out accuracy gained by training on, 0..1", ge=-1, le=1)
    recipe_epochs: Epochs

    def __post_init__(self):
        super().__post_init__()  # and counts of the seeds, no more than there are
        if not self.at_recipe <= self.converged <= self.seeds:
            raise ValueError(f"RecipeLength(): at_recipe <= converged <= seeds must hold, got "
                             f"{self.at_recipe}, {self.converged} and {self.seeds}; pass counts "
                             "of the seeds recorded (the rule held by the recipe's epoch holds "
                             "within twice it)")

    def __str__(self) -> str:
        return (f"{self.model}: the rule held by the recipe's epoch {self.recipe_epochs} for "
                f"{self.at_recipe} of {self.seeds} seed(s), within twice it for "
                f"{self.converged}; training on gained at most "
                f"{100 * self.largest_gain:.2f} points held out")


@checked
def gain_after_recipe(record: FaceCurve) -> float:
    """What training on past the recipe's epoch gained on the held-out images (0..1, >= 0): the
    best accuracy from that epoch on, minus the accuracy at it."""
    scores, own = record.validation_by_epoch, record.recipe_epochs
    return max(scores[own - 1:]) - scores[own - 1]


@checked
def recipe_lengths(records: dict[str, FaceCurve]) -> dict[str, RecipeLength]:
    """``RecipeLength`` of every model of ``records`` (``read_results``), in the order of
    ``RECIPES``."""
    by_model = {name: [r for r in records.values() if r.model == name] for name in RECIPES}
    return {name: RecipeLength(name, len(runs), sum(r.converged_at_recipe for r in runs),
                               sum(r.converged for r in runs),
                               max(gain_after_recipe(r) for r in runs), runs[0].recipe_epochs)
            for name, runs in by_model.items() if runs}


@checked
def main(argv: Argv | None = None) -> int:
    parser = experiment_parser(COMMAND, __doc__)
    parser.add_argument("--models", nargs="+", default=list(RECIPES), choices=list(RECIPES))
    parser.add_argument("--seeds", nargs="+", type=seed_int, default=[0, 1, 2],
                        action=EachOnce)
    args = parse_experiment(parser, argv)
    if args.limit:
        parser.error("--limit: the face recipes have no trial size; name fewer --models or "
                     "--seeds instead")
    runs = {run_name(name, seed): partial(run, name, seed)
            for name in args.models for seed in args.seeds}
    record_missing(results_file(args, RESULTS), runs,
                   command_line(COMMAND, threads=args.threads), summary=summary,
                   replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

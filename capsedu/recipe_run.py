"""A run of one recipe of ``recipes.RECIPES``: its data split into training and held-out examples
(``split_validation``), trained (``train_recipe``, by ``loop.fit``), scored on the test split
once and saved with its manifest row (``run_recipe``, what ``python -m capsedu.train`` does), or
continued from the epoch an earlier run kept (``continue_from``). ``how_run`` is what every
record of a training run keeps beside its results."""

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import torch

from . import checkpoints, course_settings
from .convergence import chosen_epoch, held_out_scores
from .course_settings import Name, RunThreads, Seed, StateFile, Text
from .loop import Epoch, Start, evaluate, fit
from .manifest_rows import ManifestRow, Metrics, Sitting
from .recipes import Epochs, Limit, Recipe, command_line, command_recipe, seeded_name
from .shipped_folders import state_folder
from .stopping_rule import best_epoch, converged
from .validate import CheckedRecord, Flag, Float, Some, checked


class TooFewExamples(ValueError):
    """A ``limit`` that leaves no training example once the held-out ones are taken: the command
    lines turn it into a message about ``--limit``, not a traceback (``detail``: what it leaves,
    said once after the command's own words)."""

    @checked
    def __init__(self, where: Name, detail: Text):
        super().__init__(f"{where}(): limit must leave examples to train on: {detail}")
        self.detail = detail


@checked
def split_validation(recipe: Recipe, limit: Limit | None = None, where: str = "split_validation"):
    """A ``Recipe``'s training data as ``(train, validation)``: the last
    ``recipe.validation`` examples are held out (``validation`` is None if it holds none), as a
    copy, so that a caller who keeps only ``validation`` does not keep the whole training set. A
    recipe that composes its batches (``recipe.compose``) composes the held-out rows once, with a
    fixed seed, into its validation set: MultiMNIST pairs made of held-out digits only. A ``limit``
    that leaves no example to train on is refused, naming ``where`` (the function called)."""
    images, labels = recipe.data(True, limit)
    n = recipe.validation
    if n and len(labels) <= n:
        raise TooFewExamples(where, f"the recipe holds out {n} validation examples but has only "
                             f"{len(labels)} training examples (limit={limit}); use a limit above "
                             f"{n}")
    cut = len(labels) - n
    train, validation = (images[:cut], labels[:cut]), (images[cut:].clone(), labels[cut:].clone())
    if not n:
        return train, None
    if recipe.compose is not None:  # the same validation set in every run: seed 0
        validation = recipe.compose(*validation, torch.Generator().manual_seed(0))[:2]
    return train, validation


@checked
def train_recipe(recipe: Recipe, epochs: Epochs | None = None, limit: Limit | None = None,
                 seed: Seed | None = None, progress: Flag("whether to show a progress bar") = True,
                 state_path: StateFile | None = None, start: Start | None = None,
                 where: str = "train_recipe"):
    """Build and train a ``Recipe``: returns ``(model, history, train_examples)``; the test set is
    not touched (``run_recipe`` scores it once). ``state_path``: where to keep the resumable
    training state; ``start``: an earlier run to continue (both as in ``fit``); ``where``: the
    function called, named when ``limit`` leaves no example to train on."""
    epochs = recipe.epochs if epochs is None else epochs
    seed = recipe.seed if seed is None else seed
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    train, validation = split_validation(recipe, limit, where)
    history = fit(model, train, epochs, recipe.batch_size, recipe.lr, recipe.lr_decay, seed,
                  progress=progress, augment=recipe.augment, state_path=state_path,
                  validation=validation, compose=recipe.compose, patience=recipe.patience,
                  start=start)
    return model, history, len(train[1])


@dataclass(frozen=True)
class HowRun(CheckedRecord):
    """What the record of every training run keeps beside its results (``how_run``), so that a
    reader can reproduce it and compare its time; a record written to a file keeps the fields
    under their names (``dataclasses.asdict``)."""

    train_time_s: Float("the seconds it trained: its epochs' sum, to 0.1 s", ge=0)
    threads: RunThreads
    torch_version: Text


@checked
def how_run(history: Annotated[list[Epoch], Some]) -> HowRun:
    """``HowRun`` of a run from ``fit``'s ``history`` (its ``loop.Epoch`` records): the seconds it
    trained, the CPU threads it had and the torch version."""
    return HowRun(round(sum(epoch.seconds for epoch in history), 1), torch.get_num_threads(),
                  torch.__version__)


@checked
def continue_from(folder: course_settings.Folder, name: str, where: str = "continue_from",
                  argument: str = "folder"
                  ) -> tuple[dict[str, torch.Tensor], list[Epoch], tuple[Sitting, ...]]:
    """What a run needs to continue checkpoint ``name`` saved in ``folder`` (``fit``'s ``start``):
    ``(weights, history, sittings)``. ``history``: its held-out accuracy up to the epoch it kept
    (training goes on from the kept weights), each epoch timed at the run's mean (``Epoch``
    records without the losses, which the row does not keep); ``sittings``:
    the runs that made it, oldest first (commands, epochs kept, sha256), for its manifest row.
    A folder without a finished run of ``name`` is refused in the words of ``where`` (the
    function the caller called) and its ``argument``."""
    folder = Path(folder)
    head = f"{where}(): {argument} must be a folder holding a finished run of {name!r}"
    fix = "name a folder holding a finished run of this recipe, e.g. the shipped checkpoints"
    if not folder.is_dir():
        what = "a file" if folder.exists() else "a folder that does not exist"
        raise ValueError(f"{head}, got {str(folder)!r}, {what}; {fix}")
    row = checkpoints.rows_in(folder).get(name)
    if row is None or row.metrics is None or row.metrics.validation_by_epoch is None:
        raise ValueError(f"{head}, got {str(folder)!r}, whose {checkpoints.MANIFEST} has no row "
                         f"for it with a held-out curve (metrics.validation_by_epoch); {fix}")
    scores = row.metrics.validation_by_epoch
    kept = best_epoch(scores)
    # the bytes of the file its row names, verified against the row's sha256 (a file swapped or
    # changed since would be recorded as the run it is not): ChecksumError
    row, _, data = checkpoints.verified_bytes(name, folder)
    weights = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    if weights["arch"] != row.arch:
        raise ValueError(f"{head}, got {str(folder)!r}, whose {row.file} holds a "
                         f"{weights['arch']} where its row says {row.arch}; {fix}")
    per_epoch = row.train_time_s / len(scores)
    history = [Epoch(i + 1, per_epoch, validation_accuracy=v)
               for i, v in enumerate(scores[:kept])]
    sitting = Sitting(command=row.command, sha256=row.sha256, epochs=len(scores), kept_epoch=kept)
    return weights["state_dict"], history, (*(row.sittings or ()), sitting)


@checked
def run_recipe(name: str, epochs: Epochs | None = None, limit: Limit | None = None,
               seed: Seed | None = None, root: checkpoints.Root = None,
               progress: Flag("whether to show progress bars") = True,
               state_path: StateFile | None = None,
               replace_shipped: Flag("True only to replace a shipped checkpoint") = False,
               continue_folder: checkpoints.Root = None) -> ManifestRow:
    """Train recipe ``name`` (``train_recipe``), score it on the test split, save it in ``root``
    and return the manifest row. ``continue_folder``: go on from the epoch the run of this
    checkpoint saved there kept (``continue_from``); its row lists the earlier runs (``sittings``).
    ``root`` defaults to the shipped checkpoints, replaced only with ``replace_shipped=True``
    (checked before training: ``checkpoints.check_writable``). A seed other than the recipe's is
    saved as ``<name>-seed<seed>`` (``seeded_name``)."""
    recipe = command_recipe(name, "run_recipe(): ")
    epochs = recipe.epochs if epochs is None else epochs
    seed = recipe.seed if seed is None else seed
    saved_as = seeded_name(name, seed)
    checkpoints.check_writable(saved_as, root, replace_shipped, "run_recipe")
    if state_path is not None:  # refused now, naming run_recipe, not by fit after the data loads
        state_folder(checkpoints.check_not_shipped(state_path, "run_recipe(): state_path"),
                     "run_recipe(): state_path")
    command = command_line(f"python -m capsedu.train {name}", limit=limit,
                           epochs=None if epochs == recipe.epochs else epochs,
                           seed=None if seed == recipe.seed else seed,
                           continue_from=continue_folder)
    start, sittings = None, None
    if continue_folder is not None:
        weights, history, earlier = continue_from(continue_folder, saved_as, "run_recipe",
                                                   "continue_folder")
        if len(history) >= epochs:
            raise ValueError(f"run_recipe(): continue_folder: {saved_as} in {continue_folder} has "
                             f"already trained {len(history)} epochs, the budget of {epochs}; "
                             "pass more epochs to go on")
        start, sittings = (weights, history), earlier
    model, history, train_examples = train_recipe(recipe, epochs, limit, seed, progress,
                                                  state_path, start, "run_recipe")
    test_accuracy = evaluate(model, recipe.data(False, None), progress=progress)
    model.cpu()
    how = how_run(history)  # its torch version is the one save records
    return checkpoints.save(
        model, saved_as, root, replace_shipped, description=recipe.description,
        command=command, seed=seed, device=str(course_settings.device()),
        train_examples=train_examples,
        train_time_s=how.train_time_s, threads=how.threads,
        metrics=recipe_metrics(recipe, history, test_accuracy, epochs), sittings=sittings,
    )


@checked
def recipe_metrics(recipe: Recipe, history: Annotated[list[Epoch], Some],
                   test_accuracy: Float("the test accuracy", ge=0, le=1),
                   epochs: Epochs) -> Metrics:
    """What a run of ``recipe`` reached, for its manifest row: its ``test_accuracy``, epochs and
    last training loss; with held-out examples, the epoch kept and the held-out curve; with a
    stopping rule, its budget of ``epochs`` and whether the rule stopped it first."""
    if len(history) > epochs:
        raise ValueError(f"recipe_metrics(): epochs must be the budget the history was trained "
                         f"within, got {epochs} for {len(history)} epochs trained; pass fit's "
                         "epochs")
    held_out = {}
    if recipe.validation:
        chosen = chosen_epoch(history)
        held_out = dict(validation_examples=recipe.validation, chosen_epoch=chosen.epoch,
                        validation_accuracy=chosen.validation_accuracy,
                        validation_by_epoch=tuple(held_out_scores(history)))
    stopping = {}
    if recipe.patience is not None:  # did the rule stop it, or did the budget run out first?
        stopping = dict(max_epochs=epochs, patience=recipe.patience,
                        converged=converged(held_out["validation_by_epoch"], recipe.patience))
    return Metrics(test_accuracy=test_accuracy, epochs=len(history),
                   final_train_loss=round(history[-1].loss, 5), **held_out, **stopping)

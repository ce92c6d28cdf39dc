"""The training loop and inference: ``fit``, ``predict``, ``evaluate``.

``fit`` trains any model of the course that offers ``training_loss(x, *targets) -> (loss,
predictions)`` with Adam, resumably, choosing its epoch on held-out examples and stopping by the
course's rule (``convergence``: ``PATIENCE`` epochs without a held-out gain); ``predict`` and
``evaluate`` score a model in batches. No model is imported here: the recipes that build and train
the shipped checkpoints are ``capsedu.recipes``, their command line ``capsedu.train``.
"""

import os
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
from pydantic import PlainValidator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from . import course_settings
from .checkpoints import check_not_shipped
from .checks import check_read_labels, check_same, check_takes, check_weights_dtype, check_whole
from .convergence import chosen_epoch, held_out_scores
from .course_settings import (
    MAX_BATCH,
    MAX_EPOCHS,
    MAX_SIDE,
    Classes,
    Classifier,
    Examples,
    Images,
    Seed,
    StateFile,
    Trainable,
    classes_read,
)
from .data.transformed_mnist import translate
from .fit_inputs import AUGMENT, COMPOSE, check_augmented, check_batches, check_targets
from .progress import Progress, progress_bar
from .refusals import declared_error, kind_of
from .run_state import check_weights, fingerprint, read_state
from .shipped_folders import state_folder
from .stopping_rule import converged
from .validate import CheckedRecord, Flag, Float, Has, Int, Spec, Tensor, checked

# Images per batch when a trained model scores them (predict, probabilities, evaluate). Small,
# because a CapsNet's predictions u_hat grow with the batch (a batch of 512 on notebook 08's
# network is 168 MB): large batches pay in page faults (benchmarks/scoring.py), and in a Jupyter
# kernel, batches of 64 left the kernel holding about 260 MB more after it scored 10,000 of
# notebook 08's 40x40 digits (freed by torch, kept by the C allocator), batches of 32 about
# 20 MB, for about 5 % more time.
SCORING_BATCH = 32
BatchSize = Int("images per batch", ge=1, le=MAX_BATCH)
# a run's settings, declared once: fit's parameters and a recipe's fields (``recipes.Recipe``)
Share = Float("a share read right, 0..1", ge=0, le=1)
Epochs = Int("passes over the training set; with patience, the budget", ge=1, le=MAX_EPOCHS)
LearningRate = Float("Adam's learning rate, e.g. 1e-3", gt=0, le=1)
LrDecay = Float("the learning rate's factor after every epoch; 1 keeps it", gt=0, le=1)
Patience = Int("epochs without a held-out gain before training stops; None trains the whole "
               "budget", ge=1, le=MAX_EPOCHS)


@checked
def seed_everything(seed: Seed) -> torch.Generator:
    """Seed Python, NumPy and torch; return a torch generator for data shuffling."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


@checked
def random_shift(images: Tensor("images [B, C, H, W]", ndim=4, pixels=True),
                 generator: torch.Generator | None = None,
                 max_shift: Int("pixels each image moves at most", ge=0, le=MAX_SIDE) = 2
                 ) -> torch.Tensor:
    """Move each image by up to ``max_shift`` pixels in x and in y, filling with zeros.

    The paper's only augmentation: "shifted by up to 2 pixels in each direction with zero
    padding" (Section 5). ``images``: ``[B, C, H, W]``, returns the same shape.
    """
    m = max_shift
    if m >= min(images.shape[-2:]):
        raise ValueError(f"random_shift(): max_shift must be below the images' side "
                         f"({images.shape[-2]} x {images.shape[-1]}): a larger shift can move an "
                         f"image off its canvas and leave it blank, got {m}; the paper moves "
                         "28x28 digits by up to 2")
    # a crop of the image padded by m at rows i.., columns j..: a move by (m - j, m - i)
    i, j = torch.randint(0, 2 * m + 1, (2, len(images)), generator=generator)
    return translate(images, m - j, m - i)


@dataclass(frozen=True)
class Epoch(CheckedRecord):
    """One epoch of ``fit``'s history, read by field (a state file keeps it as a plain dict,
    ``dataclasses.asdict``). An epoch of an earlier run rebuilt from its manifest row
    (``recipe_run.continue_from``) knows only its number, time and held-out accuracy."""

    epoch: Int("its number, from 1", ge=1, le=MAX_EPOCHS)
    seconds: Float("seconds it trained (held-out scoring not counted)", ge=0)
    loss: Float("the mean training loss over its examples") | None = None
    train_accuracy: Share | None = None  # the share of them read right (None: not a classifier)
    batch_loss: tuple[Float("a step's training loss"), ...] = ()  # every step's loss
    batch_accuracy: tuple[Share, ...] | None = None  # every step's share read right
    device: course_settings.DeviceName | None = None  # where it trained, e.g. "cpu" or "cuda"
    validation_accuracy: Share | None = None  # the held-out accuracy after it (with validation)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), step curves of two lengths, or a mean
        ``loss`` (``train_accuracy``) missing beside its steps or outside them."""
        super().__post_init__()
        if self.batch_accuracy is not None and self.batch_loss:
            check_same("Epoch", "length", "pass one loss and one accuracy per step, as fit "
                       "records them", batch_loss=len(self.batch_loss),
                       batch_accuracy=len(self.batch_accuracy))
        for name, steps in (("loss", self.batch_loss), ("train_accuracy", self.batch_accuracy)):
            if steps:  # the mean over the examples lies between the least step and the most
                low, high, mean = min(steps), max(steps), getattr(self, name)
                slack = 1e-6 * max(1.0, abs(low), abs(high))  # a float sum's rounding
                if mean is None or not low - slack <= mean <= high + slack:
                    raise ValueError(
                        f"Epoch(): {name} must be the mean of batch_{name.split('_')[-1]} over "
                        f"the examples, between {low!r} and {high!r}, got {name}={mean!r}: it "
                        "or its steps are wrong; pass the epoch fit records")


def _start(value):
    """An earlier run to continue: ``(weights, history)``, a state_dict and its ``Epoch``s."""
    if not (isinstance(value, tuple | list) and len(value) == 2 and isinstance(value[0], dict)
            and isinstance(value[1], tuple | list)
            and all(isinstance(epoch, Epoch) for epoch in value[1])
            and [epoch.epoch for epoch in value[1]] == list(range(1, len(value[1]) + 1))):
        raise declared_error(TypeError, "must be (weights, history), a state_dict and the epochs "
                             f"trained (Epochs numbered from 1), got {kind_of(value):.60}; build "
                             "it with recipe_run.continue_from", "array")
    return value


Start = Annotated[Any, PlainValidator(_start),
                  Spec("(weights, history): an earlier run's state_dict and Epochs", "record")]
# what the training loop goes over, and the bar it reports to (progress_bar's)
Batches = Has("batches of training rows", "__iter__", source="a DataLoader, or a bar over one")
Bar = Has("a progress bar", "set_postfix", source="progress_bar(...)")


@checked
def fit(model: Trainable, train: Examples,
        epochs: Epochs = 1,
        batch_size: Int("training examples per step", ge=1, le=MAX_BATCH) = 128,
        lr: LearningRate = 1e-3, lr_decay: LrDecay = 1.0,
        seed: Seed = 0, device: course_settings.Device | None = None,
        progress: Flag("whether to show a progress bar") = True,
        augment: Callable | None = None, state_path: StateFile | None = None,
        validation: Examples | None = None, compose: Callable | None = None,
        patience: Patience | None = None, start: Start | None = None) -> list[Epoch]:
    """Train ``model`` on ``train = (images, labels, ...)`` with Adam; returns its history, one
    ``Epoch`` record per epoch (``train_one_epoch``'s, with ``validation`` its held-out accuracy
    too). The model supplies its own loss, ``model.training_loss(x, *targets) -> (loss,
    predictions)``; every tensor of ``train`` after the images is a target.

    The loop is the four lines below the checks; each option is one named piece:

    * ``lr_decay`` multiplies the learning rate after every epoch (the paper's exponential decay);
    * ``augment(x, generator) -> x`` and ``compose(rows..., generator) -> (x, *targets)`` make
      each batch (``training_batches``: e.g. ``random_shift``, ``pair_up``);
    * ``validation = (images, labels)``: held-out examples scored after every epoch; the model
      ends with the weights of its best epoch (``keep_best``), and ``patience`` stops the run once
      that many epochs bring no gain (``converged``): ``epochs`` is then a budget;
    * ``state_path``: all a run needs to continue is saved there after every epoch, and the same
      run (not another, nor on other examples) resumes from it as it would have gone (``resume``);
    * ``start = (weights, history)``: continue an earlier run from its kept epoch (``begin``);
    * ``device``: where it trains (``course_settings.device()``: the GPU if any); it comes back.
    """
    for name, data in (("train", train), ("validation", validation)):
        if data is not None:  # refused now, not after an epoch (the pixels: by Examples)
            check_weights_dtype(data.tensors[0], f"fit(): {name}'s images", model)
            images, labels = data.tensors[:2]  # the targets of a model without classes: poses
            if name == "validation" or "n_classes" in getattr(model, "hparams", {}):
                check_read_labels(labels, f"fit(): {name}'s labels", images, model)
    check_fit(len(train), batch_size, patience, compose, validation is not None, epochs,
              len(start[1]) if start else 0)
    check_batches("fit", model, train, validation, compose, augment)
    device = torch.device(device or course_settings.device())
    home = course_settings.model_device(model)
    if state_path is not None:  # outside the shipped files, in a folder of the course's files
        state_path = state_folder(check_not_shipped(state_path, what := "fit(): state_path"), what)
    run = begin(model, train, seed, batch_size, lr, lr_decay, compose, start, device,
                keeps_best=validation is not None, patience=patience)
    resume(run, model, state_path, epochs, validation)
    for epoch in range(len(run.history), epochs):
        if patience is not None and run.history and converged(held_out_scores(run.history),
                                                              patience):
            break
        bar = progress_bar(run.loader, f"epoch {epoch + 1}/{epochs}", progress)
        run.history.append(train_one_epoch(
            model, training_batches(bar, run.generator, compose, augment), run.optimizer, device,
            bar, epoch + 1))
        run.scheduler.step()
        if validation is not None:
            keep_best(run, model, validation, batch_size, progress)
        save_state(run, model, state_path)
    if run.best is not None:
        model.load_state_dict(run.best)
    model.to(home)
    return run.history


@checked
def train_one_epoch(model: Trainable, batches: Batches, optimizer: torch.optim.Optimizer,
                    device: course_settings.Device, bar: Bar,
                    epoch: Int("the epoch's number, from 1", ge=1, le=MAX_EPOCHS)) -> Epoch:
    """One pass over the training ``batches`` (``training_batches``): forward, loss, backward,
    step. Returns the ``Epoch`` record of epoch ``epoch``: its mean ``loss``, ``train_accuracy``,
    ``seconds``, and the curves under them, one number per step: ``batch_loss``, ``batch_accuracy``
    (the share of the batch read right; None for a model whose predictions are None)."""
    total_loss, n_correct, seen, began = 0.0, 0, 0, time.perf_counter()
    batch_loss, batch_accuracy, predictions = [], [], None
    for x, *targets in batches:  # targets: the labels first, e.g. (labels, parts) for pairs
        x, targets = x.to(device), [t.to(device) for t in targets]
        loss, predictions = model.training_loss(x, *targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_loss.append(loss.item())
        total_loss, seen = total_loss + batch_loss[-1] * len(x), seen + len(x)
        # refresh=False: the numbers are shown at the bar's next (rate-limited) redraw
        if predictions is None:  # a model that does not classify (e.g. a part detector)
            bar.set_postfix(loss=f"{total_loss / seen:.4f}", refresh=False)
            continue
        right = is_correct(predictions, targets[0]).sum().item()
        n_correct += right
        batch_accuracy.append(right / len(x))
        bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{n_correct / seen:.3f}",
                        refresh=False)
    classifies = predictions is not None
    return Epoch(epoch, time.perf_counter() - began, total_loss / seen,
                 n_correct / seen if classifies else None, tuple(batch_loss),
                 tuple(batch_accuracy) if classifies else None, str(device))


@checked
def training_batches(rows: Batches, generator: torch.Generator, compose: Callable | None = None,
                     augment: Callable | None = None):
    """Each training batch as the model sees it: the shuffled ``rows`` of a batch, made into
    examples by ``compose(*rows, generator)`` (e.g. MultiMNIST pairs out of single digits), their
    images transformed by ``augment(x, generator)`` (e.g. the paper's random shifts). Both draw
    from the shuffling ``generator``, in that order, so a resumed run draws what an uninterrupted
    one would."""
    if augment is not None:
        check_takes(augment, "training_batches(): augment", 2, AUGMENT)
    for batch in rows:
        if compose is not None:
            check_takes(compose, "training_batches(): compose", len(batch) + 1, COMPOSE)
            batch = compose(*batch, generator)
        x, *targets = batch
        if augment is not None:
            x = check_augmented("training_batches", x, augment(x, generator))
        yield (x, *targets)


@dataclass
class Run:
    """What a training run carries from epoch to epoch; a state file holds all of it."""

    loader: DataLoader  # the shuffled batches of training rows
    generator: torch.Generator  # shuffling, composing and augmenting draw from it
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    history: list[Epoch]  # one record per epoch trained
    best: dict | None  # the weights of the best held-out epoch so far (with validation)
    made_with: dict  # what the run is: a state file of another run is refused


@checked
def check_fit(rows: Int("training examples", ge=1), batch_size: BatchSize,
              patience: Patience | None, compose: Callable | None,
              held_out: Flag("whether fit was given validation examples"), epochs: Epochs = 1,
              trained: Int("the epochs start has trained", ge=0) = 0) -> None:
    """What ``fit``'s declarations cannot say, refused before any training with a sentence that
    says what to do: the arguments that go together."""
    if patience is not None and not held_out:
        raise ValueError("fit(): patience stops training when the held-out accuracy stops "
                         "improving: pass validation=(images, labels) with it, or patience=None")
    if compose is not None and rows < batch_size:
        raise ValueError(f"fit(): compose makes the examples out of whole batches: fit needs at "
                         f"least batch_size={batch_size} training rows, got {rows}; train on "
                         "more rows or pass a smaller batch_size")
    if trained > epochs:
        raise ValueError(f"fit(): epochs must be at least the {trained} epochs start has trained, "
                         f"got {epochs}; pass a larger budget, or start=None")


@checked
def begin(model: nn.Module, train: TensorDataset, seed: Seed, batch_size: BatchSize, lr: float,
          lr_decay: float, compose: Callable | None, start: Start | None,
          device: course_settings.Device, keeps_best: bool, patience: int | None = None) -> Run:
    """A run's first state: from scratch, or continuing ``start = (weights, history)`` from the
    epoch it kept, with the learning rate where the schedule had brought it (Adam's moments start
    afresh, and the draws come from ``seed + len(history)``, so the continuation does not replay
    the draws of the epochs already trained). ``continue_from`` in ``capsedu.recipes`` rebuilds
    ``start`` from a saved checkpoint."""
    history, best = [], None
    if start is not None:
        weights, history = start[0], list(start[1])
        check_weights(model, weights, "fit(): start")
        model.load_state_dict(weights)
        if keeps_best:  # the epoch to beat: the one it kept
            best = {k: v.detach().clone() for k, v in weights.items()}
    generator = seed_everything(seed + len(history))
    model.to(device).train()
    loader = DataLoader(train, batch_size=batch_size, shuffle=True,
                        generator=generator, drop_last=compose is not None)
    # lr_t = lr * lr_decay^t after t epochs (ExponentialLR multiplies by lr_decay once an epoch)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr * lr_decay ** len(history))
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=lr_decay)
    made_with = {"model": type(model).__name__, "hparams": getattr(model, "hparams", None),
                 "seed": seed, "train_examples": len(train), "batch_size": batch_size,
                 "lr": lr, "lr_decay": lr_decay, "patience": patience,
                 "continues_epochs": len(history)}
    return Run(loader, generator, optimizer, scheduler, history, best, made_with)


@checked
def keep_best(run: Run, model: Classifier, validation: TensorDataset, batch_size: BatchSize,
              progress: Progress) -> None:
    """Score the held-out ``validation`` examples after an epoch (in batches of ``batch_size``, as
    the model trained: a model whose predictions depend on the rest of their batch, a bug of
    notebook 09, is scored as it was trained), and keep the weights of the best epoch (the
    earliest, on ties): the epoch is chosen without ever looking at the test set."""
    run.history[-1] = replace(run.history[-1], validation_accuracy=_accuracy(
        model, validation, batch_size, progress, "keep_best"))
    if chosen_epoch(run.history) is run.history[-1]:
        run.best = {k: v.detach().clone() for k, v in model.state_dict().items()}


@checked
def save_state(run: Run, model: nn.Module, state_path: Path | None) -> None:
    """Save everything needed to continue at ``state_path`` (nothing without one): weights,
    optimizer, schedule, random state, history and best weights. A run stopped while saving keeps
    the last state whole (it is written beside, then put in place)."""
    if state_path is None:
        return
    check_not_shipped(state_path, "save_state(): state_path").parent.mkdir(parents=True,
                                                                          exist_ok=True)
    partial = Path(f"{state_path}.partial")
    torch.save({"model": model.state_dict(), "optimizer": run.optimizer.state_dict(),
                "scheduler": run.scheduler.state_dict(), "generator": run.generator.get_state(),
                "torch_rng": torch.get_rng_state(), "history": [asdict(e) for e in run.history],
                "best": run.best, "made_with": run.made_with}, partial)
    os.replace(partial, state_path)


@checked
def resume(run: Run, model: nn.Module, state_path: Path | None, epochs: int,
           validation: TensorDataset | None = None) -> None:
    """Continue from the state ``save_state`` left at ``state_path``, if there is one and it is
    this run's (``run_state.read_state``: one of another run, of other examples, its training
    rows' or its held-out ``validation``'s, or already longer than ``epochs``, is refused, not
    silently resumed). With a ``state_path``, the run's record keeps its examples' fingerprints."""
    if state_path is not None:  # saved with the state: a state of other examples is not resumed
        run.made_with.update(train_data=fingerprint(run.loader.dataset),
                             validation_data=fingerprint(validation))
    if state_path is None or (state := read_state(state_path, model, run.made_with,
                                                  epochs)) is None:
        return
    model.load_state_dict(state["model"])
    run.optimizer.load_state_dict(state["optimizer"])
    run.scheduler.load_state_dict(state["scheduler"])
    run.generator.set_state(state["generator"].cpu())  # loaded onto the device; drawn on the CPU
    if "torch_rng" in state:  # torch's global generator draws the dropout masks
        torch.set_rng_state(state["torch_rng"].cpu())
    run.history, run.best = [Epoch(**epoch) for epoch in state["history"]], state.get("best")


@checked
def is_correct(predictions: Tensor("predicted classes [B], or [B, k]"),
               labels: Tensor("their labels [B], or [B, k]")) -> torch.Tensor:
    """Whether each example is read right ``[B]``: its prediction equals its label ``[B]``, or,
    for a set of classes ``[B, k]`` (a MultiMNIST pair's two digits), it has all k of them."""
    if predictions.shape != labels.shape:
        raise ValueError(f"is_correct(): predictions and labels must have one shape ([B], or "
                         f"[B, k] for k classes per example), got {tuple(predictions.shape)} and "
                         f"{tuple(labels.shape)}; score a model with the labels of its images")
    check_whole("is_correct", predictions=predictions, labels=labels)
    if labels.ndim == 1:
        return predictions == labels
    # both sets in ascending order: equal rows <=> the same classes
    return (predictions.sort(dim=1).values == labels.sort(dim=1).values).all(dim=1)


@checked
def confusion(labels: Tensor("labels [N]", ndim=1), predictions: Tensor("predictions [N]", ndim=1),
              n_classes: Classes = 10) -> torch.Tensor:
    """``[n_classes, n_classes]`` counts: row t, column p is how many examples of class t
    (``labels`` ``[N]``) were read as p (``predictions`` ``[N]``); the diagonal is those read
    right."""
    if labels.shape != predictions.shape or labels.ndim != 1:
        raise ValueError(f"confusion(): labels and predictions must both have shape [N], got "
                         f"{tuple(labels.shape)} and {tuple(predictions.shape)}; pass one "
                         "prediction per label")
    check_whole("confusion", labels=labels, predictions=predictions)
    both = torch.cat([labels, predictions])
    if len(both) and not 0 <= int(both.min()) <= int(both.max()) < n_classes:
        raise ValueError(f"confusion(): labels and predictions must be classes in "
                         f"[0, {n_classes - 1}], got values from {int(both.min())} to "
                         f"{int(both.max())}; pass n_classes= the number of classes")
    return torch.bincount(n_classes * labels + predictions, minlength=n_classes**2).view(
        n_classes, n_classes)


@checked(reads=("model", "images"))
@torch.no_grad()
def predict(model: Classifier, images: Images, batch_size: BatchSize = SCORING_BATCH,
            progress: Progress = False) -> torch.Tensor:
    """``model.predict`` on ``images`` ``[N, C, H, W]`` in batches, where the model is: labels
    ``[N]`` (``[N, 2]`` for a two-digit model) on the CPU (``_in_batches``). ``batch_size``:
    ``SCORING_BATCH`` (32), small because a CapsNet's ``u_hat`` grows with the batch.
    ``progress``: a bar over the batches (10,000 MNIST test images take a CapsNet a while on a
    CPU)."""
    return _in_batches(model, classes_read(model, "predict"), images, batch_size, progress)


@checked(reads=("model", "images"))
@torch.no_grad()
def probabilities(model: Classifier, images: Images, batch_size: BatchSize = SCORING_BATCH,
                  progress: Progress = False) -> torch.Tensor:
    """The softmax over the classes of a classifier whose forward pass gives logits (the CNNs,
    the G-CNN), for ``images`` ``[N, C, H, W]`` in batches (as ``predict``): ``[N, classes]`` on
    the CPU."""
    def softmax(x):  # of class logits [B, classes]: a CapsNet gives a CapsNetOutput, none
        logits = model(x)
        if not isinstance(logits, torch.Tensor) or logits.ndim != 2:
            raise TypeError(f"probabilities(): model must give class logits [B, classes], got "
                            f"a {type(logits).__name__}; for a CapsNet read model(x).lengths, "
                            "or its answers, loop.predict")
        return torch.softmax(logits, dim=1)

    return _in_batches(model, softmax, images, batch_size, progress)


def _in_batches(model, score, images, batch_size, progress) -> torch.Tensor:
    """``score`` on checked ``images`` (``course_settings.Images``, or ``Examples``' first tensor)
    in batches of ``batch_size``, as float32, the models' dtype (a float64 array's pixels
    included), in eval mode, the results concatenated on the CPU.

    The course's device rule: a function that takes a model and data runs where the model is
    (each batch goes to ``course_settings.model_device(model)``), hands its results back on the
    CPU for plotting, and leaves the caller's model where it was and in the mode it was in
    (training or eval)."""
    images = images.float()
    device = course_settings.model_device(model)
    with course_settings.evaluating(model):
        starts = progress_bar(range(0, len(images), batch_size), "scoring", progress, unit="batch")
        return torch.cat([score(images[i : i + batch_size].to(device)).cpu() for i in starts])


@checked
def evaluate(model: Classifier, data: Examples, batch_size: BatchSize = SCORING_BATCH,
             progress: Progress = False) -> float:
    """Accuracy of ``model.predict`` on ``data = (images, labels)``: the share of examples read
    right (``is_correct``; for pairs, both digits). ``progress``: a bar."""
    check_read_labels(data.tensors[1], "evaluate(): data's labels", data.tensors[0], model)
    check_targets("evaluate", "data", model, data, scoring=True)
    return _accuracy(model, data, batch_size, progress, "evaluate")


@torch.no_grad()
def _accuracy(model, data: TensorDataset, batch_size: int, progress: bool, where: str) -> float:
    """``evaluate`` on examples already checked (``course_settings.Examples``): ``fit`` scores its
    held-out examples with it after every epoch without checking them again."""
    images, labels = data.tensors[:2]
    predictions = _in_batches(model, classes_read(model, where), images, batch_size, progress)
    if predictions.shape != labels.shape:  # [N] read against [N, 1]: is_correct would refuse
        raise ValueError(f"{where}(): the labels must have the shape of {type(model).__name__}'s "
                         f"predictions, [N] (one class per image) or [N, k] (k), got labels "
                         f"{tuple(labels.shape)} for predictions {tuple(predictions.shape)}; pass "
                         "labels of that shape, e.g. labels[:, 0] for [N, 1]")
    return is_correct(predictions, labels).float().mean().item()

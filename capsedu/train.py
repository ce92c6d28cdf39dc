"""Training loop, evaluation and the recipes that rebuild every shipped checkpoint.

    python -m capsedu.train capsnet-mnist-live --limit 1000   # a trial run, into <data root>/runs
    python -m capsedu.train capsnet-mnist-live --replace-shipped  # rebuild the shipped checkpoint
    python -m capsedu.train --list                                # the recipes

Each recipe records everything that defines the run (model, data, epochs, batch size, learning
rate, seed), so the command alone reproduces a checkpoint. A run writes its checkpoint and manifest
row to <data root>/runs/ (or --out): the shipped checkpoints in <data root>/checkpoints/, which
the notebooks load, are replaced only with --replace-shipped (their notes are kept).
"""

import argparse
import random
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm as text_tqdm
from tqdm.auto import tqdm

from . import checkpoints, config
from .baselines import MaxPoolCNN
from .capsnet import AFFNIST, LIVE, SMALL, CapsNet
from .data.mnist import load_mnist
from .data.transformed_mnist import move, multimnist_data, pair_up, translate, translated_mnist
from .gcnn import C4CNN, PlainCNN
from .multi_digit import MultiDigitCapsNet, TwoDigitCNN

PROGRESS_UPDATES_PER_S = 2  # how often a live progress bar may redraw
TEXT_PROGRESS_INTERVAL_S = 30  # a stored text bar: one line every 30 s at most, the last kept
PATIENCE = 3  # the course's rule: a run has converged after 3 epochs without a held-out gain


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch; return a torch generator for data shuffling."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def shift(images: torch.Tensor, generator=None, max_shift: int = 2) -> torch.Tensor:
    """Move each image by up to ``max_shift`` pixels in x and in y, filling with zeros.

    The paper's only augmentation: "shifted by up to 2 pixels in each direction with zero
    padding" (Section 5). ``images``: ``[B, C, H, W]``, returns the same shape.
    """
    m = max_shift
    # a crop of the image padded by m at rows i.., columns j..: a move by (m - j, m - i)
    i, j = torch.randint(0, 2 * m + 1, (2, len(images)), generator=generator)
    return translate(images, m - j, m - i)


def fit(model, train, epochs=1, batch_size=128, lr=1e-3, lr_decay=1.0, seed=0, device=None,
        progress=True, augment=None, state_path=None, validation=None,
        compose=None, patience=None, start=None) -> list[dict]:
    """Train ``model`` on ``train = (images, labels)`` with Adam; one dict of stats per epoch.
    More tensors may follow the labels, e.g. ``(pairs, labels, parts)``: every tensor after the
    images is a target, passed on to the model.

    ``lr_decay`` multiplies the learning rate after every epoch (the paper decays it
    exponentially). ``augment(x, generator) -> x``, if given, transforms every training batch, e.g.
    ``shift`` (the paper's random shifts of up to 2 pixels); it draws from the shuffling generator,
    so a resumed run draws the same transformations.
    ``compose(images, labels, generator) -> (x, *targets)``, if given, makes each batch's training
    examples out of the rows drawn, e.g. ``pair_up``: MultiMNIST pairs out of a batch of single
    digits (a batch must then hold two classes, so a last, smaller batch is dropped; the next
    epoch's reshuffle puts its rows in other batches).
    The model supplies its own loss through ``model.training_loss(x, *targets) -> (loss,
    predictions)`` (``predictions`` may be None for a model that does not classify); an example
    counts as right when its prediction is all right (``is_correct``).

    Each epoch's dict holds the mean ``loss`` and ``train_accuracy`` over the epoch, and the
    curves under them, one number per optimisation step: ``batch_loss`` and ``batch_accuracy``
    (the share of that batch read right; None for a model that does not classify).

    ``state_path``: after every epoch, save everything needed to continue (weights, optimizer,
    epoch, random state) there; if the file exists, training resumes from it. Long runs then
    survive being stopped.

    ``validation = (images, labels)``: held-out training examples, scored after every epoch
    (``history[i]["validation_accuracy"]``) in batches of ``batch_size``, as the model trained
    (a model whose predictions depend on the rest of their batch, a bug of notebook 09, is scored
    as it was trained). The model ends with the weights of the epoch that scored best there (the
    earliest, on ties): the number of epochs is chosen without ever looking at the test set.

    ``patience`` (with ``validation``): stop before ``epochs`` once the held-out accuracy has not
    improved for that many epochs (``converged``); ``epochs`` is then the budget, an upper bound.

    ``start = (weights, history)``: continue an earlier run that ended at those weights after the
    epochs in ``history`` (``continue_from`` rebuilds both from a saved checkpoint). Training picks
    up at the next epoch with the learning rate where the schedule had brought it; Adam's moments
    start afresh, and the shuffling and dropout draw from ``seed + len(history)``, so the
    continuation does not replay the draws of the epochs already trained.
    """
    if patience is not None and validation is None:
        raise ValueError("patience stops training when the held-out accuracy stops improving: "
                         "pass validation=(images, labels) with it, or patience=None")
    if compose is not None and len(train[0]) < batch_size:
        raise ValueError(f"compose makes the examples out of whole batches: fit needs at least "
                         f"batch_size={batch_size} training rows, got {len(train[0])}; train on "
                         "more rows or pass a smaller batch_size")
    device = device or config.device()
    history, best = [], None  # best: the weights of the best validation epoch so far
    if start is not None:
        weights, history = start[0], list(start[1])
        model.load_state_dict(weights)
        if validation is not None:  # the epoch to beat: the one it kept
            best = {k: v.detach().clone() for k, v in weights.items()}
    generator = seed_everything(seed + len(history))
    model.to(device).train()
    loader = DataLoader(TensorDataset(*train), batch_size=batch_size, shuffle=True,
                        generator=generator, drop_last=compose is not None)
    # lr_t = lr * lr_decay^t after t epochs (ExponentialLR multiplies by lr_decay once an epoch)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr * lr_decay ** len(history))
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=lr_decay)
    if state_path is not None and Path(state_path).exists():
        state = torch.load(state_path, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        generator.set_state(state["generator"])
        if "torch_rng" in state:  # torch's global generator draws the dropout masks
            torch.set_rng_state(state["torch_rng"].cpu())
        history, best = state["history"], state.get("best")
    for epoch in range(len(history), epochs):
        if patience is not None and history and converged(held_out_scores(history), patience):
            break
        total_loss, n_correct, seen, began = 0.0, 0, 0, time.perf_counter()
        batch_loss, batch_accuracy = [], []  # one number per step
        bar = progress_bar(loader, f"epoch {epoch + 1}/{epochs}", progress)
        for batch in bar:
            if compose is not None:
                batch = compose(*batch, generator)
            x, *targets = batch  # targets: the labels first, e.g. (labels, parts) for pairs
            if augment is not None:
                x = augment(x, generator)
            x, targets = x.to(device), [t.to(device) for t in targets]
            loss, predictions = model.training_loss(x, *targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_loss.append(loss.item())
            total_loss += batch_loss[-1] * len(x)
            seen += len(x)
            # refresh=False: the numbers are shown at the bar's next (rate-limited) redraw
            if predictions is None:  # a model that does not classify (e.g. a part detector)
                bar.set_postfix(loss=f"{total_loss / seen:.4f}", refresh=False)
            else:
                right = is_correct(predictions, targets[0]).sum().item()
                n_correct += right
                batch_accuracy.append(right / len(x))
                bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{n_correct / seen:.3f}",
                                refresh=False)
        scheduler.step()
        classifies = predictions is not None
        history.append({"epoch": epoch + 1, "loss": total_loss / seen,
                        "train_accuracy": n_correct / seen if classifies else None,
                        "seconds": time.perf_counter() - began, "batch_loss": batch_loss,
                        "batch_accuracy": batch_accuracy if classifies else None})
        if validation is not None:
            history[-1]["validation_accuracy"] = evaluate(model, validation, batch_size,
                                                          device=device, progress=progress)
            if chosen_epoch(history) is history[-1]:
                best = {k: v.detach().clone() for k, v in model.state_dict().items()}
            model.train()
        if state_path is not None:
            Path(state_path).parent.mkdir(parents=True, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "generator": generator.get_state(),
                        "torch_rng": torch.get_rng_state(), "history": history, "best": best},
                       state_path)
    if best is not None:
        model.load_state_dict(best)
    return history


def progress_bar(iterable, desc: str, progress: bool = True, **kwargs):
    """A bar over ``iterable`` (``progress=False``: none). Live, tqdm.auto's (a widget in a
    notebook), redrawn at most ``PROGRESS_UPDATES_PER_S`` times a second, which it erases when
    done: in a notebook every redraw is a message to the browser, and a flood of them overruns
    the kernel's output channel. With ``config.TEXT_PROGRESS`` (the website's build), a text bar
    on stdout that keeps its finished line, which is what a stored page shows."""
    if config.TEXT_PROGRESS:
        return text_tqdm(iterable, desc=desc, disable=not progress, leave=True, file=sys.stdout,
                         mininterval=TEXT_PROGRESS_INTERVAL_S, **kwargs)
    return tqdm(iterable, desc=desc, disable=not progress, leave=False,
                mininterval=1 / PROGRESS_UPDATES_PER_S, **kwargs)


def is_correct(predictions: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Whether each example is read right ``[B]``: its prediction equals its label ``[B]``, or,
    for a set of classes ``[B, k]`` (a MultiMNIST pair's two digits), it has all k of them."""
    if labels.ndim == 1:
        return predictions == labels
    # both sets in ascending order: equal rows <=> the same classes
    return (predictions.sort(dim=1).values == labels.sort(dim=1).values).all(dim=1)


def training_status(metrics: dict, patience: int = PATIENCE) -> str:
    """How a recorded run (a manifest row's ``metrics``) ended, in words: converged by the rule,
    or still improving when its budget ran out (a verdict resting on it is not final)."""
    scores = metrics["validation_by_epoch"]
    best = best_epoch(scores)
    kept = f"epoch {best} of {len(scores)} kept ({100 * max(scores):.2f} % held out)"
    if converged(scores, patience):
        return f"{kept}: converged, no held-out gain in the {len(scores) - best} epochs after it"
    return (f"{kept}: STILL IMPROVING, its best epoch lies within the last {patience}; a longer "
            "run could change a verdict that rests on it")


def how_made(row: dict) -> str:
    """The commands that made a checkpoint (a manifest row), oldest first: one, or the sittings
    of a run continued from the epoch an earlier one kept (``continue_from``)."""
    earlier = [f"{s['command']} (kept epoch {s['kept_epoch']} of {s['epochs']}), then "
               for s in row.get("sittings", [])]
    return "".join(earlier) + row["command"]


def verdict(comparison, runs: dict[str, dict], patience: int = PATIENCE) -> str:
    """A comparison's line (``statistics.paired`` or ``seed_difference``) with the state of the
    recorded runs it rests on (``runs``: name -> manifest row): final only when every one of them
    has converged (``converged``); otherwise it names the runs still improving."""
    improving = still_improving(runs, patience)
    if not improving:
        return f"{comparison}; final: every run it rests on converged"
    return f"{comparison}; NOT FINAL: {', '.join(improving)} still improving"


def still_improving(runs: dict[str, dict], patience: int = PATIENCE) -> list[str]:
    """The names of the recorded runs (name -> manifest row) that had not converged."""
    return [name for name, row in runs.items()
            if not converged(row["metrics"]["validation_by_epoch"], patience)]


def held_out_scores(history: list[dict]) -> list[float]:
    """The held-out accuracy of every epoch of a ``fit`` history."""
    return [h["validation_accuracy"] for h in history]


def chosen_epoch(history: list[dict]) -> dict:
    """The epoch ``fit`` keeps when it has a validation set: the first with the best
    ``validation_accuracy``."""
    return max(history, key=lambda h: h["validation_accuracy"])  # max keeps the first of ties


def converged(scores: list[float], patience: int = PATIENCE) -> bool:
    """The stopping rule, on the held-out accuracy of every epoch so far (a manifest's
    ``validation_by_epoch``): the best epoch (the first of ties, as ``chosen_epoch``) lies
    ``patience`` or more epochs before the last one, i.e. that many epochs in a row brought no
    gain. A run for which this is false was still improving when it stopped."""
    return len(scores) - best_epoch(scores) >= patience


def best_epoch(scores: list[float]) -> int:
    """The epoch (from 1) with the best held-out accuracy, the first of ties (as ``chosen_epoch``
    picks from a history)."""
    return scores.index(max(scores)) + 1


@torch.no_grad()
def predict(model, images, batch_size=64, device=None, progress=False) -> torch.Tensor:
    """``model.predict`` on ``images`` ``[N, C, H, W]`` in batches: labels ``[N]`` (``[N, 2]``
    for a two-digit model) on the CPU.

    ``batch_size``: 64 by default, because a CapsNet's predictions ``u_hat`` grow with the batch
    (a batch of 512 on notebook 08's network is 168 MB); on a CPU, allocating and freeing such
    tensors costs more than the arithmetic, and small batches score 10,000 images about twice as
    fast (``benchmarks/scoring.py`` measures it).

    ``progress``: show a progress bar over the batches (scoring 10,000 MNIST test images with a
    CapsNet takes a while on a CPU).
    """
    device = device or config.device()
    model.to(device).eval()
    starts = progress_bar(range(0, len(images), batch_size), "scoring", progress, unit="batch")
    return torch.cat([model.predict(images[i : i + batch_size].to(device)).cpu()
                      for i in starts])


def evaluate(model, data, batch_size=64, device=None, progress=False) -> float:
    """Accuracy of ``model.predict`` on ``data = (images, labels)``: the share of examples read
    right (``is_correct``; for pairs, both digits). ``progress``: a bar."""
    images, labels = data
    predictions = predict(model, images, batch_size, device, progress)
    return is_correct(predictions, labels).float().mean().item()


@dataclass(frozen=True)
class Recipe:
    """Everything that defines a shipped checkpoint's training run."""

    description: str
    build: Callable[[], torch.nn.Module]
    epochs: int  # with patience: the budget, an upper bound
    # (train?, limit) -> (images, labels)
    data: Callable[[bool, int | None], tuple] = lambda train, limit: load_mnist(train, limit)
    batch_size: int = 128
    lr: float = 1e-3
    lr_decay: float = 1.0
    seed: int = 0
    augment: Callable | None = None  # (x, generator) -> x, applied to every training batch
    validation: int = 0  # hold out the last N training examples to choose the epoch (``fit``)
    # (images, labels, generator) -> (x, *targets): each training batch's examples (``fit``), and
    # the validation set, made once out of the held-out rows (``split_validation``)
    compose: Callable | None = None
    patience: int | None = None  # stop after this many epochs without a held-out gain (``fit``)


# What the models of one comparison share (like for like): data, epochs, batch size, schedule,
# seed, augmentation and held-out set. Each model keeps only its own learning rate: Adam at 2e-3
# for the CapsNets, as in 05, and at 1e-3 for the CNNs.
# Each run ends once PATIENCE epochs in a row bring no held-out gain (``converged``), or at its
# budget of epochs; the shipped rows trained before the rule name their budget (--epochs) in their
# command.
AFFNIST_TRAINING = dict(data=translated_mnist, epochs=40, patience=PATIENCE, batch_size=128,
                        lr_decay=0.85, seed=0, augment=move, validation=5000)
MULTIMNIST_TRAINING = dict(data=multimnist_data, epochs=40, patience=PATIENCE, batch_size=128,
                           lr_decay=0.9, seed=0, compose=pair_up, validation=2000)
# Upright MNIST, no augmentation; each run stops once 3 epochs in a row bring no held-out gain.
ROTMNIST_TRAINING = dict(epochs=30, patience=PATIENCE, batch_size=128, lr=2e-3, lr_decay=0.8,
                         seed=0, validation=5000)

RECIPES: dict[str, Recipe] = {
    "capsnet-mnist-live": Recipe(
        description="the CapsNet a learner trains in notebook 05 (32 Conv1 channels, 8x6x6 "
        "primary capsules, 3 routing iterations, paper decoder), 2 epochs on MNIST",
        build=lambda: CapsNet(LIVE),
        epochs=2, batch_size=64, lr=2e-3, lr_decay=0.8, seed=0,
    ),
    "capsnet-mnist": Recipe(
        description="the shipped CapsNet: SMALL's sizes (64 Conv1 channels, 8x6x6 primary "
        "capsules, 3 routing iterations, paper decoder) trained on MNIST shifted by up to 2 "
        "pixels, as in the paper; the epoch is chosen on the last 5,000 training images, held "
        "out",
        build=lambda: CapsNet(SMALL),
        epochs=40, batch_size=128, lr=2e-3, lr_decay=0.9, seed=1, augment=shift,
        validation=5000,
    ),
    "capsnet-mnist-paper": Recipe(
        description="the paper's CapsNet (Conv1 256, 32x6x6 primary capsules, 3 routing "
        "iterations, decoder) trained on MNIST shifted by up to 2 pixels, as in the paper; "
        "about 6 hours on a 2-core CPU, minutes on a GPU (not shipped)",
        build=lambda: CapsNet(),
        epochs=30, batch_size=128, lr=1e-3, lr_decay=0.95, seed=0, augment=shift,
    ),
    # Notebook 08's pair, the paper's Section 5.2: trained on translated MNIST only, tested on
    # affine-transformed digits. Equal parameter counts (3.24M each, the CapsNet's decoder
    # included); every training digit moves to a new place on the canvas in every epoch.
    "affnist-capsnet": Recipe(
        description="notebook 08's CapsNet: SMALL's sizes on the 40x40 canvas with PrimaryCaps "
        "stride 3 (512 primary capsules, 3 routing iterations, paper decoder), trained on "
        "translated MNIST, each digit moved to a new place in every epoch; the epoch is chosen "
        "on the last 5,000 training images, held out",
        build=lambda: CapsNet(AFFNIST),
        lr=2e-3, **AFFNIST_TRAINING,
    ),
    "affnist-capsnet-1iter": Recipe(
        description="affnist-capsnet with 1 routing iteration (uniform coupling: every primary "
        "capsule sends its vote to every digit capsule with weight 1/10), trained the same way: "
        "the ablation of Gu & Tresp (2020)",
        build=lambda: CapsNet(AFFNIST, iterations=1),
        lr=2e-3, **AFFNIST_TRAINING,
    ),
    "affnist-cnn": Recipe(
        description="notebook 08's CNN: three 5x5 convolutions with 2x2 max-pooling, two "
        "fully connected layers with dropout (as the paper's baseline, sized to the CapsNet's "
        "parameter count), trained like affnist-capsnet",
        build=lambda: MaxPoolCNN(),
        lr=1e-3, **AFFNIST_TRAINING,
    ),
    # Notebook 08's second pair, the paper's Section 6: two overlapping digits, both to be read.
    # Equal parameter counts (3.13M each, the CapsNet's decoder included), the same data, budget
    # and seed. Every batch of training digits is paired up anew (pair_up): pairs hardly repeat.
    "multimnist-capsnet": Recipe(
        description="notebook 08's MultiMNIST CapsNet: 32 Conv1 channels and 8x10x10 primary "
        "capsules on the 36x36 canvas (3 routing iterations, paper decoder), trained with both "
        "classes present and one reconstruction per digit on pairs of training digits drawn "
        "anew in every batch; the epoch is chosen on 2,000 pairs of the last 2,000 training "
        "digits, held out; tested on 10,000 fixed pairs of test digits",
        build=lambda: MultiDigitCapsNet(),
        lr=2e-3, **MULTIMNIST_TRAINING,
    ),
    "multimnist-cnn": Recipe(
        description="notebook 08's MultiMNIST CNN: three 5x5 convolutions with 2x2 max-pooling, "
        "two fully connected layers with dropout and 10 independent sigmoid outputs (binary "
        "cross-entropy against the 2-hot target; sized to the CapsNet's parameter count), "
        "trained like multimnist-capsnet",
        build=lambda: TwoDigitCNN(),
        lr=1e-3, **MULTIMNIST_TRAINING,
    ),
    # Notebook 10's pair: trained on upright MNIST only (no augmentation), tested at every angle.
    "rotmnist-gcnn": Recipe(
        description="notebook 10's C4 group-equivariant CNN at the UvA tutorial's size (a "
        "lifting and four group convolutions of 16 channels, 5x5 filters, about 103k "
        "parameters; 2x2 max-pools after the first and the third layer) trained on upright "
        "MNIST until 3 epochs bring no gain on the last 5,000 training images, held out "
        "(upright too); the best of those epochs is kept",
        build=lambda: C4CNN(),
        **ROTMNIST_TRAINING,
    ),
    "rotmnist-cnn": Recipe(
        description="notebook 10's ordinary CNN: the same stack with plain convolutions and twice "
        "the channels (about the G-CNN's parameter count), trained like rotmnist-gcnn",
        build=lambda: PlainCNN(),
        **ROTMNIST_TRAINING,
    ),
}


def split_validation(recipe: Recipe, limit=None):
    """A ``Recipe``'s training data as ``(train, validation)``: the last
    ``recipe.validation`` examples are held out (``validation`` is None if it holds none).

    A recipe that composes its batches (``recipe.compose``) composes the held-out rows once, with
    a fixed seed, into its validation set: MultiMNIST pairs made of held-out digits only."""
    images, labels = recipe.data(True, limit)
    n = recipe.validation
    if n and len(labels) <= n:
        raise ValueError(f"the recipe holds out {n} validation examples but has only "
                         f"{len(labels)} training examples (limit={limit}); use a limit above "
                         f"{n}")
    cut = len(labels) - n
    train, validation = (images[:cut], labels[:cut]), (images[cut:], labels[cut:])
    if not n:
        return train, None
    if recipe.compose is not None:  # the same validation set in every run: seed 0
        validation = recipe.compose(*validation, torch.Generator().manual_seed(0))[:2]
    return train, validation


def train_recipe(recipe: Recipe, epochs=None, limit=None, seed=None, progress=True,
                 state_path=None, start=None):
    """Build and train a ``Recipe``: returns ``(model, history, train_examples)``.

    The test set is not touched here; ``run_recipe`` scores it once, after training.
    ``state_path``: where to keep the resumable training state; ``start``: an earlier run to
    continue (both as in ``fit``)."""
    epochs = recipe.epochs if epochs is None else epochs
    seed = recipe.seed if seed is None else seed
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    train, validation = split_validation(recipe, limit)
    history = fit(model, train, epochs, recipe.batch_size, recipe.lr, recipe.lr_decay, seed,
                  progress=progress, augment=recipe.augment, state_path=state_path,
                  validation=validation, compose=recipe.compose, patience=recipe.patience,
                  start=start)
    return model, history, len(train[1])


def continue_from(folder: Path, name: str) -> tuple[dict, list[dict], list[dict]]:
    """What a run needs to continue checkpoint ``name`` saved in ``folder`` (``fit``'s ``start``):
    ``(weights, history, sittings)``.

    ``history`` holds its held-out accuracy up to the epoch it kept (a later epoch that brought no
    gain is dropped: training goes on from the kept weights), each epoch timed at the run's mean.
    ``sittings`` lists the runs that made it, oldest first: their commands, what they kept and
    the checkpoint's sha256, for its manifest row."""
    folder = Path(folder)
    row = checkpoints.read_manifest(folder).get(name)
    if row is None or "validation_by_epoch" not in row.get("metrics", {}):
        raise ValueError(f"continue_from: {folder / checkpoints.MANIFEST} has no row for {name!r} "
                         "with a held-out curve (metrics.validation_by_epoch); name a folder "
                         "holding a finished run of this recipe, e.g. the shipped checkpoints")
    scores = row["metrics"]["validation_by_epoch"]
    kept = best_epoch(scores)
    weights = torch.load(folder / row["file"], map_location="cpu", weights_only=True)
    per_epoch = row["train_time_s"] / len(scores)
    history = [{"epoch": i + 1, "validation_accuracy": v, "seconds": per_epoch}
               for i, v in enumerate(scores[:kept])]
    sitting = {"command": row["command"], "sha256": row["sha256"], "epochs": len(scores),
               "kept_epoch": kept}
    return weights["state_dict"], history, [*row.get("sittings", []), sitting]


def run_recipe(name, epochs=None, limit=None, seed=None, root=None, progress=True,
               state_path=None, replace_shipped=False, continue_folder=None) -> dict:
    """Train recipe ``name`` (``train_recipe``), score it on the test split, save it in ``root``
    and return the manifest row.

    ``continue_folder``: go on training the run of this checkpoint saved there, from the epoch it
    kept (``continue_from``), instead of from scratch; its row lists the earlier runs
    (``sittings``).

    ``root`` defaults to the shipped checkpoints, which are replaced only with
    ``replace_shipped=True`` (checked before training: ``checkpoints.check_writable``).
    A seed other than the recipe's is saved as ``<name>-seed<seed>`` (``seeded_name``).
    """
    recipe = RECIPES[name]
    epochs = recipe.epochs if epochs is None else epochs
    seed = recipe.seed if seed is None else seed
    saved_as = seeded_name(name, seed)
    checkpoints.check_writable(saved_as, root, replace_shipped)
    command = ["python", "-m", "capsedu.train", name]
    for flag, value, default in (("--limit", limit, None), ("--epochs", epochs, recipe.epochs),
                                 ("--seed", seed, recipe.seed),
                                 ("--continue-from", continue_folder, None)):
        if value != default:
            command += [flag, str(value)]
    start, sittings = None, {}
    if continue_folder is not None:
        weights, history, earlier = continue_from(continue_folder, saved_as)
        if len(history) >= epochs:
            raise ValueError(f"continue_folder: {saved_as} in {continue_folder} has already "
                             f"trained {len(history)} epochs, the budget of {epochs}; pass more "
                             "epochs to go on")
        start, sittings = (weights, history), {"sittings": earlier}
    model, history, train_examples = train_recipe(recipe, epochs, limit, seed, progress,
                                                  state_path, start)
    test_accuracy = evaluate(model, recipe.data(False, None), progress=progress)
    metrics = {"test_accuracy": test_accuracy, "epochs": len(history),
               "final_train_loss": round(history[-1]["loss"], 5)}
    if recipe.validation:
        chosen = chosen_epoch(history)
        metrics.update(validation_examples=recipe.validation, chosen_epoch=chosen["epoch"],
                       validation_accuracy=chosen["validation_accuracy"],
                       validation_by_epoch=held_out_scores(history))
    if recipe.patience is not None:  # did the rule stop it, or did the budget run out first?
        metrics.update(max_epochs=epochs, patience=recipe.patience,
                       converged=converged(metrics["validation_by_epoch"], recipe.patience))
    model.cpu()
    return checkpoints.save(
        model, saved_as, root, replace_shipped, description=recipe.description,
        command=shlex.join(command),
        seed=seed, train_time_s=round(sum(h["seconds"] for h in history), 1),
        device=str(config.device()), threads=torch.get_num_threads(),
        train_examples=train_examples, metrics=metrics, **sittings,
    )


def seeded_name(name: str, seed: int) -> str:
    """The checkpoint name of recipe ``name`` trained with ``seed``: ``name`` for the recipe's
    own seed, ``<name>-seed<seed>`` for another (the other seeds of a comparison over seeds)."""
    return name if seed == RECIPES[name].seed else f"{name}-seed{seed}"


def recipe_name(checkpoint: str) -> str:
    """The recipe that trained the checkpoint called ``checkpoint``: ``seeded_name`` undone
    (``"rotmnist-gcnn-seed1"`` -> ``"rotmnist-gcnn"``)."""
    base, _, seed = checkpoint.rpartition("-seed")
    return base if base in RECIPES and seed.isdigit() else checkpoint


def positive_int(text: str) -> int:
    """An ``argparse`` type: an integer >= 1 (``--epochs 0`` or ``--limit -5`` is an error)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def experiment_parser(command: str, description: str) -> argparse.ArgumentParser:
    """The command line of a recorded experiment (``python -m capsedu.ablations``, ``.bug_zoo``):
    ``--limit``, ``--threads`` and ``--replace-shipped``; the experiment adds its own options."""
    parser = argparse.ArgumentParser(prog=command, description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=positive_int,
                        help="train and test on the first N images only (a trial)")
    parser.add_argument("--threads", type=positive_int, help="CPU threads (default: all)")
    parser.add_argument("--replace-shipped", action="store_true",
                        help="write into the shipped results instead of <data root>/runs")
    parser.add_argument("--out", help="folder of the results file (default: <data root>/runs/"
                        "results, or <data root>/results with --replace-shipped)")
    return parser


def results_file(args: argparse.Namespace, file: str) -> Path:
    """Where an experiment's command line records its results ``file``: in ``--out``, else as
    ``checkpoints.results_path`` says (the shipped folder only with ``--replace-shipped``)."""
    if not args.out:
        return checkpoints.results_path(file, args.replace_shipped)
    path, shipped = Path(args.out) / file, checkpoints.results_path(file, True)
    if shipped.exists() and path.resolve() == shipped.resolve() and not args.replace_shipped:
        raise SystemExit(f"--out {args.out}: {path} is the shipped results file; write elsewhere, "
                         "or pass --replace-shipped to rebuild it on purpose")
    return path


def record_missing(path: Path, runs: dict[str, Callable[[Path], dict]], command: str) -> None:
    """Run each of ``runs`` that the results file ``path`` does not hold yet (name -> a function
    that trains and tests, resumably from the file ``state_path=``, and returns the run's record),
    and write it to ``path`` as soon as it is done, with ``command`` (the line that regenerates
    it). An interrupted experiment resumes where it stopped: finished runs are skipped, and the
    unfinished one resumes from its last epoch, kept in ``<data root>/runs/state/`` (never beside
    the shipped results)."""
    results = checkpoints.read_results(path)
    for name, run in runs.items():
        if name in results:
            continue
        state = checkpoints.runs_dir() / "state" / f"{path.stem}-{name}.pt"
        state.parent.mkdir(parents=True, exist_ok=True)
        record = run(state_path=state)
        record["command"] = command
        results[name] = record
        checkpoints.write_results(path, results)
        state.unlink(missing_ok=True)
        print(f"{name}: test accuracy {100 * record['test_accuracy']:.2f} %, "
              f"{record['train_time_s']:.0f} s")


def command_line(command: str, **flags) -> str:
    """``command`` with the ``flags`` that were given (``None`` ones left out), as recorded."""
    return command + "".join(f" --{k.replace('_', '-')} {v}" for k, v in flags.items() if v)


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out`` and ``--replace-shipped``, shared by the training commands."""
    parser.add_argument("--out", help="checkpoint folder (default: <data root>/runs, or "
                        "<data root>/checkpoints with --replace-shipped)")
    parser.add_argument("--replace-shipped", action="store_true",
                        help="replace the shipped checkpoint and its manifest row (keeping its "
                        "notes); without it a shipped checkpoint is never overwritten")


def output_folder(args: argparse.Namespace) -> Path:
    """Where a training command writes: ``--out``, else the shipped folder with
    ``--replace-shipped``, else ``<data root>/runs``."""
    if args.out:
        return Path(args.out)
    return checkpoints.checkpoint_dir() if args.replace_shipped else checkpoints.runs_dir()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m capsedu.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", nargs="?", help="recipe to train (see --list)")
    parser.add_argument("--list", action="store_true", help="list the recipes and exit")
    parser.add_argument("--epochs", type=positive_int, help="override the recipe's epochs")
    parser.add_argument("--seed", type=int, help="override the recipe's seed")
    parser.add_argument("--limit", type=positive_int, help="train on the first N examples only")
    add_output_arguments(parser)
    parser.add_argument("--threads", type=positive_int,
                        help="CPU threads for torch (default: all)")
    parser.add_argument("--state", help="resumable training state: saved after every epoch, "
                        "and resumed from when the file exists")
    parser.add_argument("--continue-from", metavar="FOLDER",
                        help="go on training this recipe's checkpoint saved in FOLDER (e.g. "
                        "data/checkpoints) from the epoch it kept, until the rule or the budget "
                        "stops it")
    args = parser.parse_args(argv)
    if args.list or args.name is None:
        for name, recipe in RECIPES.items():
            print(f"{name}: {recipe.description} ({recipe.epochs} epochs, seed {recipe.seed})")
        return 0
    if args.name not in RECIPES:
        parser.error(f"unknown recipe {args.name!r}; choose from {', '.join(RECIPES)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    out = output_folder(args)
    try:  # refused before any training when it would replace a shipped checkpoint
        entry = run_recipe(args.name, args.epochs, args.limit, args.seed, out,
                           state_path=args.state, replace_shipped=args.replace_shipped,
                           continue_folder=args.continue_from)
    except (FileExistsError, ValueError) as err:  # a shipped file in the way, or a bad argument
        parser.error(str(err))
    if args.threads:  # part of how the run was timed: keep it in the recorded command
        entry = checkpoints.record(entry["name"], out, args.replace_shipped,
                                   command=f"{entry['command']} --threads {args.threads}")
    print(f"saved {entry['file']} in {out} (sha256 {entry['sha256'][:12]}...): "
          f"{entry['metrics']}, {entry['train_time_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

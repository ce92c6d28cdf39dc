"""The recipes that rebuild every shipped checkpoint, and a run of one into the manifest.

Each ``Recipe`` records everything that defines the run (model, data, epochs, batch size, learning
rate, seed, held-out examples, stopping rule), so its command alone (``python -m capsedu.train
NAME``) reproduces a checkpoint. ``run_recipe`` trains one (``capsedu.loop.fit``), scores it on the
test split once, and writes its checkpoint and manifest row.
"""

import io
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from . import checkpoints, config
from .baselines import MaxPoolCNN
from .capsnet import AFFNIST, LIVE, SMALL, CapsNet
from .convergence import PATIENCE, best_epoch, chosen_epoch, converged, held_out_scores
from .data.mnist import load_mnist
from .data.transformed_mnist import move, multimnist_data, pair_up, translated_mnist
from .gcnn import C4CNN, PlainCNN
from .loop import evaluate, fit, random_shift
from .multi_digit import MultiDigitCapsNet, TwoDigitCNN


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
        epochs=40, batch_size=128, lr=2e-3, lr_decay=0.9, seed=1, augment=random_shift,
        validation=5000,
    ),
    "capsnet-mnist-paper": Recipe(
        description="the paper's CapsNet (Conv1 256, 32x6x6 primary capsules, 3 routing "
        "iterations, decoder) trained on MNIST shifted by up to 2 pixels, as in the paper; "
        "about 6 hours on a 2-core CPU, minutes on a GPU (not shipped)",
        build=lambda: CapsNet(),
        epochs=30, batch_size=128, lr=1e-3, lr_decay=0.95, seed=0, augment=random_shift,
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
    ``recipe.validation`` examples are held out (``validation`` is None if it holds none), as a
    copy, so that a caller who keeps only ``validation`` does not keep the whole training set.

    A recipe that composes its batches (``recipe.compose``) composes the held-out rows once, with
    a fixed seed, into its validation set: MultiMNIST pairs made of held-out digits only."""
    images, labels = recipe.data(True, limit)
    n = recipe.validation
    if n and len(labels) <= n:
        raise ValueError(f"the recipe holds out {n} validation examples but has only "
                         f"{len(labels)} training examples (limit={limit}); use a limit above "
                         f"{n}")
    cut = len(labels) - n
    train, validation = (images[:cut], labels[:cut]), (images[cut:].clone(), labels[cut:].clone())
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


def how_run(history: list[dict]) -> dict:
    """What the record of every training run keeps beside its results, so that a reader can
    reproduce it and compare its time: the seconds it trained (its epochs' sum, from ``fit``'s
    ``history``), the CPU threads it had and the torch version."""
    return {"train_time_s": round(sum(h["seconds"] for h in history), 1),
            "threads": torch.get_num_threads(), "torch_version": torch.__version__}


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
    # the bytes of the file its row names, verified against the row's sha256 (a file swapped or
    # changed since would be recorded as the run it is not): ChecksumError
    manifest = (folder / checkpoints.MANIFEST).resolve()
    row, _, data = checkpoints.verified_bytes(name, folder, manifest)
    weights = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    if weights["arch"] != row["arch"]:
        raise ValueError(f"continue_from: {folder / row['file']} holds a {weights['arch']}, its "
                         f"row says {row['arch']}; name a folder holding this recipe's run")
    per_epoch = row["train_time_s"] / len(scores)
    history = [{"epoch": i + 1, "validation_accuracy": v, "seconds": per_epoch}
               for i, v in enumerate(scores[:kept])]
    sitting = {"command": row["command"], "sha256": row["sha256"], "epochs": len(scores),
               "kept_epoch": kept}
    return weights["state_dict"], history, [*row.get("sittings", []), sitting]


def command_line(command: str, **flags) -> str:
    """The recorded command of a run, the line that regenerates it: ``command`` followed by each
    flag given (``None`` ones left out) as ``--name value`` (a list as ``--name v1 v2 ...``), ``_``
    in a name written ``-`` and each value quoted as a shell needs it (``shlex.quote``). One maker
    for every record: the recipes' manifest rows (``run_recipe``, ``python -m capsedu.train``),
    notebook 07's face models (``python -m capsedu.parts.training``) and the experiments'
    results (``capsedu.ablations``, ``capsedu.bug_zoo``).

    ``command_line("python -m capsedu.train rotmnist-cnn", seed=1, threads=1)`` is
    ``"python -m capsedu.train rotmnist-cnn --seed 1 --threads 1"``."""
    words = [command]
    for name, value in flags.items():
        if value is not None:
            values = value if isinstance(value, list | tuple) else [value]
            words += [f"--{name.replace('_', '-')}", *(shlex.quote(str(v)) for v in values)]
    return " ".join(words)


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
    command = command_line(f"python -m capsedu.train {name}", limit=limit,
                           epochs=None if epochs == recipe.epochs else epochs,
                           seed=None if seed == recipe.seed else seed,
                           continue_from=continue_folder)
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
        command=command,
        seed=seed, device=str(config.device()), train_examples=train_examples, metrics=metrics,
        **how_run(history), **sittings,
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



def how_made(row: dict) -> str:
    """The commands that made a checkpoint (a manifest row), oldest first: one, or the sittings
    of a run continued from the epoch an earlier one kept (``continue_from``)."""
    earlier = [f"{s['command']} (kept epoch {s['kept_epoch']} of {s['epochs']}), then "
               for s in row.get("sittings", [])]
    return "".join(earlier) + row["command"]

"""Every trained model's recipe, in one table.

``RECIPES`` holds a ``Recipe`` for every model the course ships or records (05's CapsNets, Part
IV's pairs, 07's face models, 09's ablation cells and bug zoo runs, 10's ViTs): everything that
defines the run (model, data, epochs, batch, learning rate, seed, held-out examples, stopping
rule) and the command that trains it (``trainer``); and how runs of them are named
(``seeded_name``, ``recipe_name``) and recorded (``command_line``, ``how_made``). A run of one is
``recipe_run``'s.
"""

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from numbers import Integral
from typing import Annotated, Literal, NamedTuple

import torch
from pydantic import AfterValidator

from . import checkpoints
from .baselines import BagOfPartsCNN, DeepCNN, MaxPoolCNN
from .bug_catalogue import BUGS
from .buggy_capsnet import BuggyCapsNet
from .capsnet import AFFNIST, LIVE, SMALL, CapsNet, CapsNetConfig
from .course_settings import Seed, Text
from .data.digit_pairs import MULTI_CANVAS, multimnist_data, pair_up
from .data.mnist import TRAIN_IMAGES, load_mnist
from .data.transformed_mnist import CANVAS, move, translated_mnist
from .gcnn import C4CNN, PlainCNN
from .loop import BatchSize, Epochs, LearningRate, LrDecay, Patience, random_shift
from .manifest_rows import FACE_SIDE, ManifestRow
from .multi_digit import MultiDigitCapsNet, TwoDigitCNN
from .routing import MAX_ITERATIONS
from .stopping_rule import PATIENCE
from .validate import (
    CheckedRecord,
    Choice,
    Flag,
    Float,
    Function,
    Int,
    Record,
    check_value,
    checked,
)
from .vit import VisionTransformer

# the commands that train the recipes, each recording its runs its own way
Examples = Int("training images per seed", ge=2, le=100_000)
TRAINERS = ("capsedu.train", "capsedu.parts.training", "capsedu.ablations", "capsedu.bug_zoo",
            "capsedu.patch_order")
# a trial on the first N training examples (MNIST's 60,000 at most); None: all of them
Limit = Int("the first N training examples only; None keeps all", ge=1, le=60_000)
# torch's CPU threads: more than the machine's cores only slow a run (each thread has its own
# buffers: 512 of them exhaust a small machine's memory)
CORES = os.cpu_count() or 1
Threads = Int(f"CPU threads for torch, at most the {CORES} cores this machine has", ge=1,
              le=CORES)


def _maker(build: Callable) -> Callable:
    """What ``Build`` declares beside a callable: a model is callable too (it runs its forward
    pass), but no maker of one; every run builds its own from the recipe."""
    if isinstance(build, torch.nn.Module):
        raise ValueError(f"must make a new model when called with no argument (a model class or "
                         f"a lambda), got a {type(build).__name__} instance, a model already "
                         f"made; pass its class, or lambda: {type(build).__name__}(...)")
    return build


# what a recipe trains: called with no argument, a new model
Build = Annotated[Callable[[], torch.nn.Module], AfterValidator(_maker)]


@dataclass(frozen=True)
class Recipe(CheckedRecord):
    """Everything that defines a trained model's run. Its fields' types and ranges (those of
    ``loop.fit``'s parameters) are enforced when it is made, and when a field is replaced
    (``CheckedRecord``): a recipe of 0 epochs or a NaN learning rate is never made."""

    description: Text
    build: Build
    epochs: Epochs  # with patience: the budget, an upper bound
    # (train?, limit) -> (images, labels); None for the face models, whose training images are
    # drawn anew for every seed (``examples`` of them: ``parts.training``)
    data: Function("(train?, limit) -> (images, labels)") | None = load_mnist
    batch_size: BatchSize = 128
    lr: LearningRate = 1e-3
    lr_decay: LrDecay = 1.0
    seed: Seed = 0
    # applied to every training batch
    augment: Function("(x, generator) -> x") | None = None
    # hold out the last N training examples to choose the epoch (``fit``)
    validation: Int("held-out training examples", ge=0, le=1_000_000) = 0
    # (images, labels, generator) -> (x, *targets): each training batch's examples (``fit``), and
    # the validation set, made once out of the held-out rows (``split_validation``)
    compose: Function("(images, labels, generator) -> (x, *targets)") | None = None
    patience: Patience | None = None  # stop after this many epochs without a held-out gain (fit)
    # the face models' training images per seed (``parts.training``)
    examples: Examples | None = None
    trainer: Literal[TRAINERS] = "capsedu.train"  # the module whose command line trains it

    def __post_init__(self):
        super().__post_init__()
        if self.patience is not None and not self.validation and self.examples is None:
            raise ValueError("Recipe(): patience stops when the held-out accuracy stops improving: "
                             "pass validation=N held-out examples with it (a face recipe, with "
                             "examples, holds its own out), or patience=None")
        pool = self.examples or TRAIN_IMAGES  # what it holds out from: its images, or MNIST's
        if self.validation >= pool:
            raise ValueError(f"Recipe(): validation must leave images to train on, fewer than "
                             f"the {pool:,} it holds out from, got validation={self.validation:,}"
                             f"; pass fewer held-out examples (MNIST's recipes hold out 5,000)")


# The pixel CapsNet of notebook 07: the paper's architecture (Conv1, PrimaryCaps, routing to one
# capsule per class, decoder masked by the true label) for 32x32 images and two classes, face and
# not a face. CPU-sized: 32 Conv1 channels, 8 maps of primary capsules (8 x 8 x 8 = 512), a
# smaller decoder.
PIXEL_CAPSNET = CapsNetConfig(image_size=32, n_classes=2, conv_channels=32, primary_maps=8,
                              decoder_hidden=(256, 512))


def pose_capsules() -> torch.nn.Module:
    """Notebook 07's ``parts.pose_net.PoseCapsuleNet`` (named through ``checkpoints.model_class``:
    its layer sits above this one), its pose cells tuned wider than 04's so that a part a pixel or
    two off still agrees (chosen on held-out jittered and displaced faces of seed 500)."""
    return checkpoints.model_class("PoseCapsuleNet")(face_gain=1.5, background_gain=1.0,
                                                     sigma_xy=0.12, sigma_angle=45.0)


def part_pose_mlp() -> torch.nn.Module:
    """Notebook 07's control (``parts.pose_mlp.PartPoseMLP``): an MLP over the part capsules of
    a detector as wide as the pose-capsule model's, whose weights it takes (``parts.training``)."""
    return checkpoints.model_class("PartPoseMLP")()


@checked
def face_recipe(model: str, build: Callable,
                examples: Examples, epochs: Epochs, lr: LearningRate, lr_decay: LrDecay,
                detail: str = "") -> Recipe:
    """A row of notebook 07's face models: trained on faces vs non-faces (``examples`` drawn for
    each seed), in batches of 64, from seed 0 (and seeds 1, 2: ``parts.training``)."""
    return Recipe(description=f"notebook 07's {model}, trained on faces vs non-faces{detail}",
                  build=build, data=None, examples=examples, epochs=epochs, batch_size=64, lr=lr,
                  lr_decay=lr_decay, seed=0, trainer="capsedu.parts.training")


@checked
def vit_face_recipe(position: Flag("True for the ViT with position embeddings")) -> Recipe:
    """A row of notebook 10's vision transformers (``capsedu.vit``) on the faces world: sized
    like the deep face CNN (about 60k parameters), trained on the face CNNs' training images
    (2,000 per seed, batches of 64) with the epoch chosen on 400 held-out faces and 400
    non-faces (seed 500, as ``parts.curves``) by the course's rule (``PATIENCE``)."""
    with_or_not = "with" if position else "without"
    return Recipe(
        description=f"notebook 10's vision transformer {with_or_not} position embeddings (32x32 "
        "images in 4x4 patches, 48 dimensions, 3 layers of 4 heads, MLP 96), trained on faces "
        "vs non-faces like notebook 07's CNNs; the epoch is chosen on 400 faces and 400 "
        "non-faces held out (seed 500) by the course's stopping rule",
        build=partial(VisionTransformer, image_size=32, patch=4, n_classes=2, dim=48, depth=3,
                      heads=4, mlp=96, position=position),
        data=None, examples=2000, epochs=40, patience=PATIENCE, batch_size=64, lr=1e-3,
        lr_decay=0.95, seed=0, trainer="capsedu.patch_order")


# The first model of each comparison of Part IV (08's two pairs, 10's pair); ``TRAINED_LIKE``
# trains its partners like it.

# Notebook 08's pair, the paper's Section 5.2: trained on translated MNIST only, tested on
# affine-transformed digits. Equal parameter counts (3.24M each, the CapsNet's decoder
# included); every training digit moves to a new place on the canvas in every epoch.
AFFNIST_CAPSNET = Recipe(
    description=f"notebook 08's CapsNet: SMALL's sizes on the {CANVAS}x{CANVAS} canvas with "
    "PrimaryCaps stride 3 (512 primary capsules, 3 routing iterations, paper decoder), trained "
    "on translated MNIST, each digit moved to a new place in every epoch; the epoch is chosen on "
    "the last 5,000 training images, held out",
    build=partial(CapsNet, AFFNIST),
    data=translated_mnist, epochs=40, patience=PATIENCE, batch_size=128, lr=2e-3,
    lr_decay=0.85, seed=0, augment=move, validation=5000,
)
# Notebook 08's second pair, the paper's Section 6: two overlapping digits, both to be read.
# Equal parameter counts (3.13M each, the CapsNet's decoder included), the same data, budget
# and seed. Every batch of training digits is paired up anew (pair_up): pairs hardly repeat.
MULTIMNIST_CAPSNET = Recipe(
    description="notebook 08's MultiMNIST CapsNet: 32 Conv1 channels and 8x10x10 primary "
    f"capsules on the {MULTI_CANVAS}x{MULTI_CANVAS} canvas (3 routing iterations, paper "
    "decoder), trained with both classes present and one reconstruction per digit on pairs of "
    "training digits drawn anew in every batch; the epoch is chosen on 2,000 pairs of the last "
    "2,000 training digits, held out; tested on 10,000 fixed pairs of test digits",
    build=MultiDigitCapsNet,
    data=multimnist_data, epochs=40, patience=PATIENCE, batch_size=128, lr=2e-3,
    lr_decay=0.9, seed=0, compose=pair_up, validation=2000,
)
# Notebook 10's pair: trained on upright MNIST only (no augmentation), tested at every angle;
# each run stops once 3 epochs in a row bring no held-out gain.
ROTMNIST_GCNN = Recipe(
    description="notebook 10's C4 group-equivariant CNN at the UvA tutorial's size (a "
    "lifting and four group convolutions of 16 channels, 5x5 filters, about 103k "
    "parameters; 2x2 max-pools after the first and the third layer) trained on upright "
    f"MNIST until {PATIENCE} epochs bring no gain on the last 5,000 training images, held out "
    "(upright too); the best of those epochs is kept",
    build=C4CNN,
    epochs=30, patience=PATIENCE, batch_size=128, lr=2e-3, lr_decay=0.8, seed=0,
    validation=5000,
)


# The models trained like the first of their comparison (``replace``: the same data, budget,
# seed, augmentation, held-out examples and stopping rule), another model at its own learning
# rate. (name, the recipe it is trained like, the model, Adam's learning rate, what it is)
TRAINED_LIKE = (
    ("affnist-capsnet-1iter", AFFNIST_CAPSNET, partial(CapsNet, AFFNIST, iterations=1), 2e-3,
     "affnist-capsnet with 1 routing iteration (uniform coupling: every primary capsule sends "
     "its vote to every digit capsule with weight 1/10), trained the same way: the ablation of "
     "Gu & Tresp (2020)"),
    ("affnist-cnn", AFFNIST_CAPSNET, MaxPoolCNN, 1e-3,
     "notebook 08's CNN: three 5x5 convolutions with 2x2 max-pooling, two fully connected "
     "layers with dropout (as the paper's baseline, sized to the CapsNet's parameter count), "
     "trained like affnist-capsnet"),
    ("multimnist-cnn", MULTIMNIST_CAPSNET, TwoDigitCNN, 1e-3,
     "notebook 08's MultiMNIST CNN: three 5x5 convolutions with 2x2 max-pooling, two fully "
     "connected layers with dropout and 10 independent sigmoid outputs (binary cross-entropy "
     "against the 2-hot target; sized to the CapsNet's parameter count), trained like "
     "multimnist-capsnet"),
    ("rotmnist-cnn", ROTMNIST_GCNN, PlainCNN, 2e-3,
     "notebook 10's ordinary CNN: the same stack with plain convolutions and twice the channels "
     "(about the G-CNN's parameter count), trained like rotmnist-gcnn"),
)


@checked
def vit_mnist_recipe(position: Flag("True for the ViT with position embeddings")) -> Recipe:
    """A row of notebook 10's vision transformers on MNIST: sized like notebook 10's CNN pair
    (about 105k parameters) and trained like it (``rotmnist-cnn``: upright MNIST, the epoch
    chosen on the last 5,000 training images by the course's rule), at Adam's 1e-3 of Part IV's
    CNNs."""
    with_or_not = "with" if position else "without"
    return replace(
        ROTMNIST_GCNN,
        description=f"notebook 10's vision transformer {with_or_not} position embeddings on "
        "MNIST (28x28 digits in 4x4 patches, 7x7 tokens, 64 dimensions, 3 layers of 4 heads, MLP "
        "128, about 105k parameters like rotmnist-cnn), trained like rotmnist-cnn on upright "
        f"MNIST until {PATIENCE} epochs bring no gain on the last 5,000 training images, held "
        "out; the best of those epochs is kept",
        build=partial(VisionTransformer, image_size=28, patch=4, n_classes=10, dim=64, depth=3,
                      heads=4, mlp=128, position=position), lr=1e-3)


Iterations = Int("routing iterations", ge=1, le=MAX_ITERATIONS)
ReconWeight = Float("the reconstruction loss's weight; the paper's is 0.0005", ge=0, le=1)


class _CellFields(NamedTuple):
    iterations: Iterations
    recon_weight: ReconWeight


class Cell(_CellFields):
    """A cell of notebook 09's routing ablation: ``CapsNet(LIVE)`` trained with ``iterations``
    and ``recon_weight``, both declared and enforced when the cell is made (a cell of 0
    iterations or a negative weight is never made)."""

    __slots__ = ()

    @checked
    def __new__(cls, iterations: Iterations, recon_weight: ReconWeight):
        return super().__new__(cls, iterations, recon_weight)


# The paper's Table 1 (1 and 3 routing iterations, with and without the reconstruction loss),
# asked of notebook 05's LIVE network, with 2 and 5 iterations added
ABLATION_GRID = tuple(Cell(iterations, weight) for weight in (0.0005, 0.0)
                      for iterations in (1, 2, 3, 5))


@checked
def ablation_name(cell: Cell) -> str:
    """The recipe of the ablation's ``cell``, e.g. ``ablation-3-iterations`` (with the
    reconstruction loss) or ``ablation-3-iterations-no-recon``."""
    return f"ablation-{cell.iterations}-iterations" + ("" if cell.recon_weight else "-no-recon")


@checked
def ablation_recipe(cell: Cell) -> Recipe:
    """A cell of notebook 09's ablation: ``CapsNet(LIVE)`` with the cell's iterations and
    reconstruction weight, on MNIST shifted by up to 2 pixels, until the course's rule stops it
    (``PATIENCE`` epochs without a held-out gain) or 20 epochs (the budget) run out."""
    return Recipe(
        description=f"notebook 09's ablation: CapsNet(LIVE, {cell._asdict()}) on MNIST shifted "
        "by up to 2 pixels; the epoch is chosen on the last 5,000 training images, held out",
        build=partial(CapsNet, LIVE, **cell._asdict()), epochs=20, patience=PATIENCE,
        batch_size=128, lr=2e-3, lr_decay=0.8, seed=0, augment=random_shift, validation=5000,
        trainer="capsedu.ablations")


CORRECT = "correct"  # the bug zoo's run of the paper's CapsNet(LIVE), beside the bugs' runs
ZooRunName = Choice("a run of the bug zoo: the correct model or a bug of bug_catalogue.BUGS",
                    CORRECT, *BUGS)


@checked
def zoo_name(run: ZooRunName) -> str:
    """The recipe of the bug zoo's run ``run`` (``CORRECT`` or a key of ``BUGS``), e.g.
    ``bug-zoo-softmax-over-children``."""
    return f"bug-zoo-{run}"


@checked
def zoo_recipe(run: ZooRunName) -> Recipe:
    """A run of notebook 09's bug zoo, trained as the ablation's cell of ``LIVE``'s own settings
    (3 iterations, reconstruction weight 0.0005): the correct ``CapsNet(LIVE)``, or the bug's
    ``BuggyCapsNet``. The bugs add no weights, so every run starts from the same weights and sees
    the same batches with the same shifts: two runs differ only by the bug."""
    cell = ablation_recipe(Cell(LIVE.iterations, LIVE.recon_weight))
    build = partial(CapsNet, LIVE) if run == CORRECT else partial(BuggyCapsNet, run, LIVE)
    return replace(cell, description=f"notebook 09's bug zoo: {run}", build=build,
                   trainer="capsedu.bug_zoo")


# The table. The models of one comparison share all but their learning rate (tests/test_recipes.py
# checks it): Adam at 2e-3 for the CapsNets, as in 05, at 1e-3 for the CNNs. A run with patience
# ends once PATIENCE epochs bring no held-out gain (``converged``), or at its budget of epochs;
# the shipped rows trained before the rule name their budget (--epochs) in their command.
RECIPES: dict[str, Recipe] = {
    "capsnet-mnist-live": Recipe(
        description="the CapsNet a learner trains in notebook 05 (32 Conv1 channels, 8x6x6 "
        "primary capsules, 3 routing iterations, paper decoder), 2 epochs on MNIST",
        build=partial(CapsNet, LIVE),
        epochs=2, batch_size=64, lr=2e-3, lr_decay=0.8, seed=0,
    ),
    "capsnet-mnist": Recipe(
        description="the shipped CapsNet: SMALL's sizes (64 Conv1 channels, 8x6x6 primary "
        "capsules, 3 routing iterations, paper decoder) trained on MNIST shifted by up to 2 "
        "pixels, as in the paper; the epoch is chosen on the last 5,000 training images, held "
        "out",
        build=partial(CapsNet, SMALL),
        epochs=40, batch_size=128, lr=2e-3, lr_decay=0.9, seed=1, augment=random_shift,
        validation=5000,
    ),
    "capsnet-mnist-paper": Recipe(
        description="the paper's CapsNet (Conv1 256, 32x6x6 primary capsules, 3 routing "
        "iterations, decoder) trained on MNIST shifted by up to 2 pixels, as in the paper; "
        "about 6 hours on a 2-core CPU, minutes on a GPU (not shipped)",
        build=CapsNet,
        epochs=30, batch_size=128, lr=1e-3, lr_decay=0.95, seed=0, augment=random_shift,
    ),
    # Part IV's comparisons: the first model of each, then the models trained like it
    "affnist-capsnet": AFFNIST_CAPSNET,
    "multimnist-capsnet": MULTIMNIST_CAPSNET,
    "rotmnist-gcnn": ROTMNIST_GCNN,
    **{name: replace(first, build=build, lr=lr, description=description)
       for name, first, build, lr, description in TRAINED_LIKE},
    # Notebook 10's vision transformers on MNIST, with and without position embeddings, trained
    # like the pair above (seeds 0, 1, 2)
    "mnist-vit": vit_mnist_recipe(True),
    "mnist-vit-no-positions": vit_mnist_recipe(False),
    # Notebooks 01 and 07's face models, each shipped for seeds 0, 1 and 2. The CNNs train with
    # notebook 01's recipe; the pose-capsule model's detector learns from 3 x 6,000 scattered
    # parts, its W_i and threshold are fitted on 6,000 faces and as many non-faces; the MLP reads
    # the part capsules of the pose-capsule model of its seed.
    "faces-bag-of-parts-cnn": face_recipe("bag-of-parts CNN", partial(BagOfPartsCNN,
                                                                      image_size=FACE_SIDE),
                                          examples=2000, epochs=4, lr=3e-3, lr_decay=0.7),
    "faces-deep-cnn": face_recipe("deep CNN", partial(DeepCNN, image_size=FACE_SIDE),
                                  examples=2000, epochs=4, lr=3e-3, lr_decay=0.7),
    "faces-pixel-capsnet": face_recipe("pixel CapsNet", partial(CapsNet, PIXEL_CAPSNET),
                                       examples=2000, epochs=6, lr=2e-3, lr_decay=0.8),
    "faces-pose-capsules": face_recipe(
        "pose capsules", pose_capsules, examples=6000, epochs=14, lr=3e-3, lr_decay=0.75,
        detail=" (part detector on ground-truth poses of parts scattered at any place, angle and "
        "scale 0.5-1.6; it never sees a face)"),
    "faces-part-pose-mlp": face_recipe(
        "part-pose MLP", part_pose_mlp, examples=6000, epochs=10, lr=3e-3, lr_decay=0.8,
        detail=" (an MLP over the part capsules of the pose-capsule model of the same seed)"),
    # Notebook 10's vision transformers, with and without position embeddings, over seeds 0, 1, 2
    "faces-vit": vit_face_recipe(True),
    "faces-vit-no-positions": vit_face_recipe(False),
    # Notebook 09's routing ablation, each cell over seeds 0, 1, 2, and its bug zoo
    **{ablation_name(cell): ablation_recipe(cell) for cell in ABLATION_GRID},
    **{zoo_name(run): zoo_recipe(run) for run in (CORRECT, *BUGS)},
}


@checked
def shared_budget(names: list[str] | tuple[str, ...]) -> int:
    """The budget of epochs that the recipes ``names`` share (an experiment's runs, compared with
    one another, train alike); a ``ValueError`` if they do not share one."""
    if not names:
        raise ValueError("shared_budget(): names must name at least one recipe, got none; pass "
                         "the recipes of the experiment, e.g. its runs' names")
    unknown = [name for name in names if name not in RECIPES]
    if unknown:
        raise ValueError(f"shared_budget(): names must be recipes of recipes.RECIPES, got "
                         f"{unknown}; see python -m capsedu.train --list")
    budgets = {RECIPES[name].epochs for name in names}
    if len(budgets) != 1:
        each = ", ".join(f"{name} has {RECIPES[name].epochs}" for name in names)
        raise ValueError(f"shared_budget(): names must share one budget of epochs, got {each}; "
                         "pass recipes that train alike")
    return budgets.pop()


# the flags of the course's commands that take whole numbers (counts, seeds, threads), each
# declared as the commands declare it (a seeds flag: each seed), so a line they would refuse is
_COUNTS = {"epochs": Epochs, "limit": Limit, "seed": Seed, "seeds": Seed, "threads": Threads}


@checked
def command_line(command: Text, **flags) -> str:
    """The recorded command of a run, the line that regenerates it, for every record (manifest
    rows and results files): ``command`` followed by each flag given (``None`` ones left out) as
    ``--name value`` (a list as ``--name v1 v2 ...``), ``_`` in a name written ``-`` and each
    value quoted as a shell needs it (``shlex.quote``).

    ``command_line("python -m capsedu.train rotmnist-cnn", seed=1, threads=1)`` is
    ``"python -m capsedu.train rotmnist-cnn --seed 1 --threads 1"``."""
    words = [command]
    for name, value in flags.items():
        if value is not None:
            values = value if isinstance(value, list | tuple) else [value]
            flag = f"--{name.replace('_', '-')}"
            if name in _COUNTS and not all(isinstance(v, Integral) and not isinstance(v, bool)
                                           for v in values):  # the command would refuse it
                raise TypeError(f"command_line(): {name} must be a whole number (the command's "
                                f"{flag} takes no other), got {value!r}; pass an int, e.g. "
                                f"{name}=10")
            for v in values if name in _COUNTS else ():
                check_value("command_line", name, _COUNTS[name], v)
            words += [flag, *(shlex.quote(str(v)) for v in values)]
    return " ".join(words)


@checked
def command_recipe(name: str, where: str = "command_recipe(): ") -> Recipe:
    """The recipe ``name`` if ``python -m capsedu.train`` trains it; else a ``ValueError`` naming
    the command that does (an unknown name, or one whose runs another command records).
    ``where``: what the caller called, named first in the refusal."""
    if name not in RECIPES:
        ours = [known for known, recipe in RECIPES.items() if recipe.trainer == "capsedu.train"]
        raise ValueError(f"{where}name must be a recipe python -m capsedu.train trains, one of "
                         f"{', '.join(ours)}, got {name!r}; pass one of those")
    trainer = RECIPES[name].trainer
    if trainer != "capsedu.train":
        raise ValueError(f"{where}the recipe {name!r} is trained by python -m {trainer}, which "
                         "records its runs; run that command instead")
    return RECIPES[name]


@checked
def seeded_name(name: str, seed: Seed) -> str:
    """The checkpoint name of recipe ``name`` trained with ``seed``: ``name`` for the recipe's
    own seed, ``<name>-seed<seed>`` for another (the other seeds of a comparison over seeds).
    ``name`` is one of RECIPES as it is at the call (a recipe added since counts too)."""
    check_value("seeded_name", "name", Choice("a recipe of RECIPES", *RECIPES), name)
    return name if seed == RECIPES[name].seed else f"{name}-seed{seed}"


@checked
def recipe_name(checkpoint: str) -> str:
    """The recipe that trained the checkpoint called ``checkpoint``: ``seeded_name`` undone
    (``"rotmnist-gcnn-seed1"`` -> ``"rotmnist-gcnn"``); a name no recipe made is refused."""
    base, _, seed = checkpoint.rpartition("-seed")
    if checkpoint in RECIPES:
        return checkpoint
    if base in RECIPES and seed.isdigit():
        return base
    raise ValueError(f"recipe_name(): checkpoint must name a checkpoint a recipe made (a recipe's "
                     f"name, or it with -seed<n>), e.g. 'rotmnist-gcnn-seed1', got "
                     f"{checkpoint!r}; pass a name of the manifest (recipes.RECIPES lists the "
                     "recipes)")


@checked
def how_made(row: Record(ManifestRow)) -> str:
    """The commands that made a checkpoint (a manifest row), oldest first: one, or the sittings
    of a run continued from the epoch an earlier one kept (``continue_from``). A row that
    records no command (one made by hand) is refused: nothing says how it was made."""
    if row.command is None:
        raise ValueError(f"how_made(): row must record the command that made it, got the row "
                         f"{row.name!r} without one; pass a row of the manifest "
                         "(checkpoints.read_manifest()[name]), or one made with command=...")
    earlier = [f"{s.command} (kept epoch {s.kept_epoch} of {s.epochs}), then "
               for s in row.sittings or ()]
    return "".join(earlier) + row.command

"""What a vision transformer keeps of position on MNIST (10 §8), measured.

Two ViTs (``capsedu.vit``) with and without position embeddings cut a 28 x 28 digit into 7 x 7
patches of 4 pixels. They are sized like notebook 10's CNN and trained exactly like it, by their
rows of ``recipes.RECIPES`` (``mnist-vit``, ``mnist-vit-no-positions``; ``python -m
capsedu.train mnist-vit --seed 1``): upright training digits, the epoch chosen on the last 5,000
of them by the course's rule, seeds 0, 1, 2.

All three read the same test digits with their tiles shuffled on grids of several sizes
(``data.patches.shuffled_digits``; 7 x 7 tiles are the ViT's own patches, to which the ViT
without positions is blind: ``largest_change``), compared over seeds and seed by seed on the same
digits (``measure``); ``recorded`` makes the same comparisons from ``full_sets``' record of all
10,000 digits. The records and comparisons are those of the faces, ``patch_order``'s.
"""

from typing import Annotated

from pydantic import AfterValidator

from . import checkpoints, full_sets
from .checks import check_same
from .course_settings import Classifier, Seeds
from .data import mnist
from .data.patches import SHUFFLE_SEED, GridOf, shuffle_tiles, shuffled_digits
from .loop import predict, probabilities
from .patch_order import (
    SEEDS,
    Invariance,
    Outcomes,
    Pairs,
    Shuffles,
    TwoSeeds,
    _two_models,
    check_pairs,
    compare,
    over_the_seeds,
)
from .recipes import seeded_name
from .validate import Choice, Distinct, Numbers, Some, Tensor, checked

# the models, by name, and their recipes (each shipped for seeds 0, 1, 2): the same upright
# training digits, budget, stopping rule and seeds, and about the same size (the G-CNN of 10's
# pair answers another question)
MODELS = {"CNN": "rotmnist-cnn", "ViT": "mnist-vit",
          "ViT without positions": "mnist-vit-no-positions"}
Model = Choice("one of the MNIST models (digit_shuffles.MODELS)", *MODELS)
OWN_GRID = 7  # 7 x 7 tiles of 4 pixels on a 28 x 28 digit: the ViT's own patches
# what position embeddings change, and each ViT beside the CNN of its size
PAIRS = (("ViT", "ViT without positions"), ("ViT", "CNN"), ("ViT without positions", "CNN"))
Grid = GridOf(28, "digit")
Grids = Annotated[list[Grid] | tuple[Grid, ...], Some, Distinct]  # each grid once: none twice
# rows of the 10,000 test digits (course_settings.Rows, within the test split), each once
TEST_DIGITS = mnist.SPLITS[False][2]  # the 10,000 of the test split
TestRows = Annotated[Numbers(f"a 1-d list of indices of the {TEST_DIGITS:,} test digits (e.g. "
                             "mnist.fixed_sample(n))", ndim=1, at_least=1, ge=0,
                             le=TEST_DIGITS - 1, whole=True, tensor=True, fix="pass such a list"),
                     Distinct]


def _recorded(grid: int) -> int:
    """Refuse a grid of which ``full_sets`` holds no record (its ``TILE_GRIDS``)."""
    if grid not in full_sets.TILE_GRIDS:
        raise ValueError(f"must be a grid full_sets records, one of "
                         f"{', '.join(map(str, full_sets.TILE_GRIDS))}, got {grid}; pass one of "
                         "those (measure() reads the digits on any grid)")
    return grid


# the grids of full_sets' record of the shuffled test digits, each once
RecordedGrid = Annotated[Grid, AfterValidator(_recorded)]
RecordedGrids = Annotated[list[RecordedGrid] | tuple[RecordedGrid, ...], Some, Distinct]
# the pairs of MODELS compared, at least one, each of two different models
ModelPair = Annotated[tuple[Model, Model], AfterValidator(_two_models)]
ModelPairs = Annotated[list[ModelPair] | tuple[ModelPair, ...], Some]
BATCH = 256  # digits read at once: the models here are small


@checked
def load_models(seeds: Seeds = SEEDS,
                names: list[Model] | tuple[Model, ...] = tuple(MODELS)) -> dict[str, list]:
    """The shipped MNIST models ``names``, one per seed of ``seeds`` (verified, in eval mode); a
    seed none is shipped for is refused in these words, naming the seeds there are."""
    shipped = checkpoints.read_manifest()
    for name in names:
        missing = [s for s in seeds if seeded_name(MODELS[name], s) not in shipped]
        if missing:
            kept = [s for s in SEEDS if seeded_name(MODELS[name], s) in shipped]
            raise ValueError(f"load_models(): seeds must be among the seeds the shipped {name!r} "
                             f"was trained from, {kept} (SEEDS), got {missing}: no checkpoint "
                             f"{seeded_name(MODELS[name], missing[0])!r}; pass some of those")
    return {name: [checkpoints.pretrained(seeded_name(MODELS[name], s)) for s in seeds]
            for name in names}


@checked
def measure(models: dict[str, list], seeds: TwoSeeds,
            rows: TestRows | None = None,
            grids: Grids = full_sets.TILE_GRIDS, pairs: Pairs = PAIRS) -> Shuffles:
    """``Shuffles`` of ``models`` (name -> one model per seed of ``seeds``, e.g. ``load_models``)
    on the test digits of ``rows`` (``mnist.fixed_sample``; None: all 10,000), their tiles shuffled
    on each of ``grids`` (1: as drawn), and the ``pairs`` compared on every grid."""
    if any(len(runs) != len(seeds) for runs in models.values()):
        raise ValueError(f"measure(): models must hold one model per seed, "
                         f"got seeds {list(seeds)} and "
                         f"{ {name: len(runs) for name, runs in models.items()} } models")
    check_pairs("measure", pairs, list(models))
    right = {}
    for grid in grids:
        images, labels = shuffled_digits(grid, rows)
        for name, runs in models.items():
            right[name, grid] = [predict(m, images, BATCH) == labels for m in runs]
    return shuffles(right, seeds, grids, pairs)


@checked
def recorded(seeds: TwoSeeds = SEEDS, rows: TestRows | None = None,
             grids: RecordedGrids = full_sets.TILE_GRIDS, pairs: ModelPairs = PAIRS) -> Shuffles:
    """``measure``'s ``Shuffles`` of the shipped ``MODELS``, read from ``full_sets``' record of
    all 10,000 shuffled test digits (``rows``: those of a sample only) instead of read here."""
    if unknown := sorted(set(seeds) - set(SEEDS)):
        raise ValueError(f"recorded(): seeds must be among those of the shipped models, "
                         f"{list(SEEDS)}, got {unknown[0]}, which has none; pass some of those")
    results = full_sets.read_results()  # read once: the file holds every reading
    right = {(name, grid): [full_sets.read_right(full_sets.tiles_set(grid),
                                                 seeded_name(recipe, seed), rows, results)
                            for seed in seeds]
             for name, recipe in MODELS.items() for grid in grids}
    return shuffles(right, seeds, grids, pairs)


@checked
def shuffles(right: Outcomes, seeds: TwoSeeds, grids: Grids, pairs: Pairs) -> Shuffles:
    """``Shuffles`` from ``right``: ``(model, grid)`` -> which digits each seed's model reads
    right (the same digits for every model and grid), the ``pairs`` compared on every grid."""
    check_same("shuffles", "runs, one per seed", "pass one run per seed of each model and grid",
               seeds=len(seeds), **{f"right[{key!r}]": len(runs) for key, runs in right.items()})
    check_same("shuffles", "images", "pass runs on the same digits", **{
        f"right[{key!r}][{k}]": len(run) for key, runs in right.items()
        for k, run in enumerate(runs)})
    check_pairs("shuffles", pairs, list(dict.fromkeys(name for name, _ in right)), "right")
    comparisons = tuple(compare(right, grid, a, b) for a, b in pairs for grid in grids)
    n = len(next(iter(right.values()))[0])
    return Shuffles(tuple(seeds), n, over_the_seeds(right), comparisons)


@checked(reads=("model", "images"))
def largest_change(model: Classifier,
                   images: Tensor("MNIST digits [n, 1, 28, 28]", ndim=4, pixels=True,
                                  sizes={1: 1, 2: 28, 3: 28}),
                   grid: Grid = OWN_GRID) -> Invariance:
    """``Invariance`` of an MNIST ``model`` on ``images`` with their tiles shuffled on a ``grid x
    grid`` grid: the largest change of any digit's probability, and the digits read otherwise. For
    the ViT without positions on its own grid, nothing but float rounding."""
    shuffled = shuffle_tiles(images, grid, SHUFFLE_SEED)
    before, after = probabilities(model, images, BATCH), probabilities(model, shuffled, BATCH)
    flips = (before.argmax(dim=1) != after.argmax(dim=1)).sum()
    return Invariance(grid, (before - after).abs().max().item(), int(flips), len(images),
                      read="a digit's probability", side=28)

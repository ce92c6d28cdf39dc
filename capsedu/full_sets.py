"""Part IV's full test sets, and which images every shipped model reads right on them.

Notebooks 08 and 10 measure a fixed sample of each test set in default and quick mode
(``mnist.fixed_sample``), because scoring all 10,000 images takes a laptop minutes per model. A
verdict read off a sample can differ from the full set's (a 3,000-digit sample once showed routing
"told apart" where all 10,000 digits did not). So each shipped model is scored once on every full
set by this module's command, image by image, and the notebooks print the full set's verdict
beside the sample they measure live: the sample's images are rows of the full set, so the live
figures are the record's on those rows, and a test checks that they are.

    python -m capsedu.full_sets --threads 1 --replace-shipped   # data/results/full_test_sets.json

A record names the checkpoint's sha256: a record of other weights is refused (``read_right``).
"""

import difflib
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path

import torch

from . import checkpoints
from .capsnet import CapsNet, routing_iterations
from .checks import check_rows, input_shape
from .course_settings import Argv, Classifier, Name, Rows, RunThreads, Text
from .data import digit_pairs, transformed_mnist
from .data.mnist import load_mnist
from .data.patches import shuffled_digits
from .loop import is_correct, predict
from .manifest_rows import Sha256
from .recipes import command_line, seeded_name
from .routing import MAX_ITERATIONS
from .train import experiment_parser, parse_experiment, record_missing, results_file
from .validate import CheckedRecord, Choice, Float, Int, Tensor, checked

RESULTS = "full_test_sets.json"
COMMAND = "python -m capsedu.full_sets"
TURN_SEED = 0  # notebook 10's digits turned by random angles: the angles' seed
Iterations = Int("routing iterations at test time", ge=1, le=MAX_ITERATIONS) | None


@checked
def turned_mnist(rows: Rows | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 10's test of rotation: each MNIST test digit turned by its own random angle (0 to
    360 degrees, seed ``TURN_SEED``) on its 28x28 canvas: ``(images [N, 1, 28, 28], labels [N])``.
    ``rows``: those digits only, turned as in the whole set (``mnist.fixed_sample``)."""
    images, labels = load_mnist(train=False)
    angles = 360 * torch.rand(len(labels), generator=torch.Generator().manual_seed(TURN_SEED))
    keep = check_rows("turned_mnist", rows, len(labels))
    # drawn by the course, not chosen: a sample of a few may hold only turns under 6.3 degrees
    return transformed_mnist._affine(images[keep], angles[keep], side=28), labels[keep]


@checked
def affnist_style(rows: Rows | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 08's affNIST-style test: every MNIST test digit under its own random map of the
    affNIST ranges (``transformed_mnist.random_affine``, seed 0): ``(images [N, 1, 40, 40], labels
    [N])``. ``rows``: those digits only, each under its map in the whole set."""
    images, labels = load_mnist(train=False)
    keep = check_rows("affnist_style", rows, len(labels))
    return transformed_mnist.random_affine(images, seed=0, rows=keep)[0], labels[keep]


@checked
def multimnist_pairs(rows: Rows | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 08's test pairs (``digit_pairs.MULTIMNIST_TEST``): ``(pairs [N, 1, 36, 36],
    labels [N, 2])``, or the pairs of ``rows`` only."""
    pairs, labels = digit_pairs.multimnist_data(train=False)
    keep = check_rows("multimnist_pairs", rows, len(labels))
    return pairs[keep], labels[keep]


@checked
def tiles_set(grid: Int("tiles along each side of a 28 x 28 digit; a divisor of 28", ge=1, le=28)
              ) -> str:
    """The name of 10 §8's test set of digits whose tiles are shuffled on a ``grid x grid`` grid
    (``data.patches.shuffled_digits``): ``"upright"`` for 1 (as drawn), else ``"tiles 7x7"``."""
    if 28 % grid:
        raise ValueError(f"tiles_set(): grid must divide 28 (a digit's side), one of 1, 2, 4, 7, "
                         f"14, 28, got {grid}: no such set can be made; pick one of those")
    return "upright" if grid == 1 else f"tiles {grid}x{grid}"


TILE_GRIDS = (1, 2, 4, 7, 14)  # 10 §8's grids (digit_shuffles.GRIDS)
SETS: dict[str, Callable] = {  # name -> (rows=None) -> (images, labels), 10,000 of each
    "translated": lambda rows=None: transformed_mnist.translated_mnist(train=False, rows=rows),
    "affnist-style": affnist_style,
    "multimnist": multimnist_pairs,
    "turned": turned_mnist,
    **{tiles_set(grid): partial(shuffled_digits, grid) for grid in TILE_GRIDS},
}
SEEDS = (0, 1, 2)
# which recipes each set scores (every shipped seed of each), and the readings at other routing
# iterations than trained: (set, recipe) -> iterations at test time
MODELS = {"translated": ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn"),
          "affnist-style": ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn"),
          "multimnist": ("multimnist-capsnet", "multimnist-cnn"),
          "turned": ("rotmnist-gcnn", "rotmnist-cnn"),
          **{tiles_set(grid): ("rotmnist-cnn", "mnist-vit", "mnist-vit-no-positions")
             for grid in TILE_GRIDS}}
ROUTED_OTHERWISE = {("translated", "affnist-capsnet"): 1, ("affnist-style", "affnist-capsnet"): 1}


Images = Int("the images it read", ge=1)
Share = Float("the share it reads right, 0..1", ge=0, le=1)
Wrong = tuple[Int("a row it reads wrong", ge=0), ...]


def _check_reading(where: str, n: int, accuracy: float, wrong: tuple[int, ...]) -> None:
    """Refuse rows read wrong that are not distinct rows of the ``n`` images, or an ``accuracy``
    other than the share of them not read wrong (to float32 rounding)."""
    if len(set(wrong)) != len(wrong) or wrong and max(wrong) >= n:
        raise ValueError(f"{where}(): wrong must hold distinct rows of the n={n} images, got "
                         f"{len(wrong)} rows from {min(wrong)} to {max(wrong)}; pass the rows "
                         "the model reads wrong, each once")
    if abs(accuracy - (1 - len(wrong) / n)) > 1e-6:  # 1 - wrong / n
        raise ValueError(f"{where}(): accuracy must be the share of the n images not read wrong, "
                         f"1 - {len(wrong)} / {n} = {1 - len(wrong) / n:.6f}, got "
                         f"accuracy={accuracy!r}; pass the reading's own accuracy")


@dataclass(frozen=True)
class Reading(CheckedRecord):
    """How a model reads a test set, image by image (``read_wrong``)."""

    n: Images  # the images it read
    accuracy: Share  # the share it reads right, 0..1
    wrong: Wrong  # the rows it reads wrong

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or rows and an accuracy that do not
        agree (``_check_reading``)."""
        super().__post_init__()
        _check_reading("Reading", self.n, self.accuracy, self.wrong)

    def right(self) -> torch.Tensor:
        """Whether it reads each image right: ``[n]`` booleans."""
        right = torch.ones(self.n, dtype=torch.bool)
        right[list(self.wrong)] = False
        return right


@dataclass(frozen=True)
class FullSetReading(CheckedRecord):
    """The record of one reading of a full set (``score``), as its results file keeps it."""

    test_set: Choice("a full test set", *SETS) = field(metadata={"json": "set"})
    checkpoint: Name  # the shipped checkpoint read
    iterations: Iterations  # routing iterations at test time; None: those it was trained with
    sha256: Sha256  # of the checkpoint's weights it read (``read_right`` refuses others)
    n: Images
    accuracy: Share
    wrong: Wrong  # the rows it reads wrong
    seconds: Float("seconds the reading took", ge=0)
    threads: RunThreads
    torch_version: Text
    command: str = ""  # the line that recorded it; "" for a reading not written to a file

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or rows and an accuracy that do not
        agree (``_check_reading``)."""
        super().__post_init__()
        _check_reading("FullSetReading", self.n, self.accuracy, self.wrong)

    @property
    def reading(self) -> Reading:
        """The reading itself: images, accuracy, the rows read wrong."""
        return Reading(self.n, self.accuracy, self.wrong)

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is not this reading's key in its results file (``run_name`` of its set,
        checkpoint and iterations), in words; None when it is (``results_kinds.records`` asks)."""
        made = run_name(self.test_set, _reading_name(self.checkpoint, self.iterations))
        return None if name == made else (f"whose set, checkpoint and iterations make the name "
                                          f"{made!r}")


@checked
def reading(checkpoint: str, iterations: Iterations = None) -> str:
    """The name of a model's reading: its checkpoint, and the routing iterations at test time when
    they are not those it was trained with (``"affnist-capsnet, 1 iteration at test time"``);
    a checkpoint the shipped manifest does not hold names no reading (none shipped: any)."""
    shipped = checkpoints.read_manifest()
    if shipped and checkpoint not in shipped:
        close = " or ".join(map(repr, difflib.get_close_matches(checkpoint, list(shipped), n=2)))
        raise ValueError(f"reading(): checkpoint must be a shipped checkpoint, got {checkpoint!r}, "
                         "which the manifest does not hold; pass one of those "
                         "checkpoints.read_manifest() lists" + (f", e.g. {close}" if close else ""))
    if iterations is None:
        return _reading_name(checkpoint, iterations)
    row = shipped.get(checkpoint)
    model = row and checkpoints.model_class(row.arch)  # as routing_iterations tells one that routes
    if model and not (issubclass(model, CapsNet) or hasattr(model, "iterations")):
        raise ValueError(f"reading(): iterations must be None for {checkpoint}, a {row.arch}, "
                         f"which does not route, got {iterations}; pass iterations=None")
    return _reading_name(checkpoint, iterations)


def _reading_name(checkpoint: str, iterations: int | None) -> str:
    """``reading``'s name, made from its fields only (a record's key is checked against it)."""
    if iterations is None:
        return checkpoint
    return f"{checkpoint}, {iterations} iteration{'s' * (iterations != 1)} at test time"


@checked
def run_name(test_set: Choice("a full test set", *SETS), name: str) -> str:
    """A record's key: the set and the reading (``"affnist-style: affnist-cnn-seed1"``)."""
    if not name.strip() or name != name.strip():  # ' affnist-cnn' would be another key
        raise ValueError(f"run_name(): name must name a reading (a checkpoint, or "
                         f"reading(checkpoint, iterations)) without spaces around it, e.g. "
                         f"'affnist-cnn-seed1', got {name!r}; pass the checkpoint's name")
    return f"{test_set}: {name}"


@lru_cache(maxsize=1)
def _full(test_set: str) -> tuple[torch.Tensor, torch.Tensor]:
    """One full set, kept while the command scores every model on it."""
    return SETS[test_set]()


@checked(reads=("model", "images"))
def read_wrong(model: Classifier, images: Tensor("images [N, C, H, W]", ndim=4, pixels=True),
               labels: Tensor("their labels [N], or [N, 2] for pairs"),
               iterations: Iterations = None) -> Reading:
    """How ``model`` reads ``images`` (routed ``iterations`` times if given, else as trained): a
    ``Reading``, the part of a record that the notebooks turn back into booleans
    (``read_right``)."""
    reads = predict(model, images[:1]).shape[1:]  # (): one class per image; (k,): k of them
    if len(images) and tuple(labels.shape[1:]) != tuple(reads):  # pairs for singles, or back
        each = [f"{k} classes, [N, {k}]" for k in reads] or ["one class, [N]"]
        given = [f"{k} classes" for k in labels.shape[1:2]] or ["one class"]
        raise ValueError(f"read_wrong(): labels must hold what model reads per image, {each[0]}"
                         f", got shape {tuple(labels.shape)}, {given[0]} per image; pass the "
                         f"labels of the images model reads, or a model of those labels (pairs"
                         f"' [N, 2] go with a two-digit model, e.g. MultiDigitCapsNet)")
    if iterations is None:
        predictions = predict(model, images)
    else:
        with routing_iterations(model, iterations, "read_wrong"):
            predictions = predict(model, images)
    right = is_correct(predictions, labels)
    return Reading(len(right), right.float().mean().item(),
                   tuple(torch.nonzero(~right).flatten().tolist()))


@checked
def score(test_set: Choice("a full test set", *SETS), checkpoint: str,
          iterations: Iterations = None, state_path: str | Path | None = None
          ) -> FullSetReading:
    """Score the shipped ``checkpoint`` on the full ``test_set``, routed ``iterations`` times if
    given: its record (``state_path``: unused, nothing trains). A checkpoint made for another
    image size than the set's is refused: the pairing is wrong, not the images."""
    began = time.perf_counter()
    model, (images, labels) = checkpoints.pretrained(checkpoint), _full(test_set)
    shape = input_shape(model)
    if shape is not None and tuple(images.shape[1:]) != shape:
        raise ValueError(f"score(): checkpoint {checkpoint!r} reads {shape[1]}x{shape[2]} images, "
                         f"but the test set {test_set!r} is of {images.shape[2]}x"
                         f"{images.shape[3]} ones; pick a checkpoint of that set, one of "
                         f"{', '.join(MODELS[test_set])}")
    reading = read_wrong(model, images, labels, iterations)
    return FullSetReading(test_set=test_set, checkpoint=checkpoint, iterations=iterations,
                          sha256=checkpoints.read_manifest()[checkpoint].sha256, n=reading.n,
                          accuracy=reading.accuracy, wrong=reading.wrong,
                          seconds=round(time.perf_counter() - began, 1),
                          threads=torch.get_num_threads(), torch_version=torch.__version__)


def runs() -> dict[str, Callable]:
    """Every reading to record: each set's models, every seed of each that is shipped."""
    shipped = checkpoints.read_manifest()
    todo = {}
    for test_set, recipes in MODELS.items():
        for recipe in recipes:
            for seed in SEEDS:
                checkpoint = seeded_name(recipe, seed)
                if checkpoint not in shipped:
                    continue
                todo[run_name(test_set, checkpoint)] = partial(score, test_set, checkpoint)
                if (test_set, recipe) in ROUTED_OTHERWISE:
                    its = ROUTED_OTHERWISE[test_set, recipe]
                    todo[run_name(test_set, reading(checkpoint, its))] = partial(
                        score, test_set, checkpoint, its)
    return todo


@checked
def read_results(path: str | Path | None = None) -> dict[str, FullSetReading]:
    """The recorded readings by ``run_name`` (the shipped ones by default; a file not there
    refused: ``checkpoints.read_results``)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True), FullSetReading)


@checked
def read_right(test_set: Choice("a full test set", *SETS), name: str, rows: Rows | None = None,
               results: dict[str, FullSetReading] | None = None) -> torch.Tensor:
    """Whether the reading ``name`` (a checkpoint, or ``reading(checkpoint, iterations)``) reads
    each image of the full ``test_set`` right, from the record: ``[10,000]`` booleans, or those of
    ``rows`` (a sample). Refused when the shipped checkpoint is no longer the one recorded."""
    given, results = results, read_results() if results is None else results
    key = run_name(test_set, name)
    known = [*MODELS.get(test_set, ()), *(reading(m, its) for (t, m), its
                                           in ROUTED_OTHERWISE.items() if t == test_set)]
    if key not in results and name not in known:
        raise KeyError(f"read_right(): name must be a reading of {test_set!r} ({COMMAND}'s), "
                       f"one of {', '.join(map(repr, known)) or 'none'}, got {name!r}, which is "
                       "none; pass one of those")
    if key not in results and given is not None:
        raise KeyError(f"read_right(): results must hold a reading of {key!r}, got "
                       f"{len(results)} readings without it; pass read_results() or None")
    if key not in results:
        raise KeyError(f"read_right(): {RESULTS} holds no record of {key!r} (a reading of "
                       f"{COMMAND}'s, not recorded yet); record it with {COMMAND} "
                       "--replace-shipped")
    record = results[key]
    if record.misnamed(key) is not None:  # a record of another set (or reading) kept as this
        raise ValueError(f"read_right(): results[{key!r}] must be a record of {name!r} on the "
                         f"test set {test_set!r}, got a record of "
                         f"{_reading_name(record.checkpoint, record.iterations)!r} on "
                         f"{record.test_set!r}; pass read_results(), or records keyed by their "
                         "run_name(test_set, name)")
    now = checkpoints.read_manifest()[record.checkpoint].sha256
    if now != record.sha256:
        raise ValueError(f"read_right(): the record of {key!r} is stale: it read other weights "
                         f"than the shipped {record.checkpoint} has now (sha256 "
                         f"{record.sha256[:12]}..., now {now[:12]}...); record it again with "
                         f"{COMMAND} --replace-shipped, or restore the checkpoint it was made with")
    right = record.reading.right()
    return right if rows is None else right[check_rows("read_right", rows, len(right))]


@checked
def summary(record: FullSetReading) -> str:
    """A recorded reading in a few words, as the command prints it."""
    return f"{100 * record.accuracy:.2f} % of {record.n:,} right, {record.seconds:.0f} s"


@checked
def main(argv: Argv | None = None) -> int:
    parser = experiment_parser(COMMAND, __doc__)
    args = parse_experiment(parser, argv)
    if args.limit:
        parser.error("--limit: the records are of the full sets; there is no trial size")
    record_missing(results_file(args, RESULTS), runs(),
                   command_line(COMMAND, threads=args.threads), summary=summary,
                   replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

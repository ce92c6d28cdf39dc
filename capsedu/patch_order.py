"""What a vision transformer keeps of position (10 §8), measured.

Two small vision transformers (``capsedu.vit``), with and without position embeddings, are
trained on the face CNNs' training images (``parts.training.training_set``, seeds 0, 1, 2) by
their rows of ``recipes.RECIPES`` (``faces-vit``, ``faces-vit-no-positions``): the epoch is chosen
on held-out faces and non-faces (``parts.curves``' seed 500) and a run stops by the course's rule,
so each manifest row holds its held-out curve.

    python -m capsedu.patch_order --seeds 0 1 2 --threads 1 --replace-shipped

They are then measured beside notebook 07's bag-of-parts CNN, deep CNN and pose capsules (the
shipped seeds): their face rates on the scramble kinds of 01/07 and the never-seen kinds
(``rates``), compared over seeds and, seed by seed, on the same images (``comparisons``), and
their faces-vs-non-faces accuracy when each image's tiles are shuffled on grids of several sizes
(``shuffled_accuracy``; 8 x 8 tiles of 4 pixels are the ViT's own patches, to which the ViT
without position embeddings is blind: ``largest_change``).

The same on MNIST is ``digit_shuffles``'s: it shares this module's records (``Score``,
``Comparison``, ``Shuffles``, ``Invariance``) and its comparisons (``compare``).
"""

import time
from dataclasses import dataclass
from typing import Annotated

import torch
from pydantic import AfterValidator

from . import checkpoints, course_settings
from .checks import check_same
from .convergence import chosen_epoch, held_out_scores
from .course_settings import Argv, Name, Seed, Seeds, Text
from .data import faces
from .data.patches import SHUFFLE_SEED, GridOf, shuffle_tiles
from .loop import Epoch, fit
from .manifest_rows import Accuracy, ManifestRow, Metrics
from .parts import scoring, training
from .parts.curves import VALIDATION, VALIDATION_SEED
from .parts.scoring import (
    UNSEEN,
    UNSEEN_FACES,
    FaceNet,
    SeedRuns,
    called_face,
    face_probability,
    face_rates,
    held_out,
)
from .parts.training import check_saved_seeds, load_face_models, training_set
from .recipes import RECIPES
from .statistics import (
    OverSeeds,
    Paired,
    SeedDifference,
    check_paired_mean,
    check_summary,
    over_seeds,
    paired,
    seed_difference,
    tally,
)
from .stopping_rule import PATIENCE, converged
from .train import train_over_seeds
from .validate import (
    CheckedRecord,
    Choice,
    Distinct,
    Flag,
    Float,
    Int,
    Numbers,
    Record,
    Some,
    Tensor,
    check_value,
    checked,
)

COMMAND = "python -m capsedu.patch_order"
# the two transformers, by name, and their recipes in recipes.RECIPES
VITS = {"ViT": "faces-vit", "ViT without positions": "faces-vit-no-positions"}
SEEDS = (0, 1, 2)
Vit = Choice("one of the face ViTs (VITS)", *VITS)
# what the ViTs are measured beside: notebook 07's shipped face models of the same seeds
BESIDE = ("bag-of-parts CNN", "deep CNN", "pose capsules")
MODELS = (*BESIDE, *VITS)
KINDS = (*faces.KINDS, *UNSEEN)  # 01/07's kinds, then those no model trained on
# the pairs compared on every kind: what position embeddings change, and each ViT beside the CNN
# it resembles (the deep CNN sees the whole face; the bag-of-parts CNN pools over positions)
PAIRS = (("ViT", "ViT without positions"), ("ViT", "deep CNN"),
         ("ViT without positions", "bag-of-parts CNN"))
OWN_GRID = 8  # 8 x 8 tiles of 4 pixels on a 32 x 32 image: the ViT's own patches
GRIDS = (1, 2, 4, OWN_GRID)  # 1: the images as they are


def _two_or_more(seeds):
    """Refuse fewer than 2 seeds: each score is a mean over the seeds with an interval, and an
    interval needs a spread (``statistics.over_seeds``)."""
    if len(seeds) < 2:
        raise ValueError(f"must hold at least 2 seeds (a score over seeds has an interval, which "
                         f"needs a spread), got {seeds!r}; pass the seeds of two or more runs, "
                         f"e.g. {list(SEEDS[:2])}")
    return seeds


def _two_models(pair):
    """Refuse a pair that names one model twice: it would compare a model with itself."""
    if pair[0] == pair[1]:
        raise ValueError(f"must pair two different models, got {pair!r}; pass two models, e.g. "
                         f"{PAIRS[0]}")
    return pair


# the seeds of the runs compared, at least 2, each once (a seed twice would count one run as two)
TwoSeeds = Annotated[list[Seed] | tuple[Seed, ...], Some, AfterValidator(_two_or_more), Distinct]
# the kinds of held-out images measured, at least one, each once
Kind = Choice("a kind of held-out image (KINDS)", *KINDS)
Kinds = Annotated[list[Kind] | tuple[Kind, ...], Some, Distinct]
# the pairs of models compared, at least one, each of two different models
Pair = Annotated[tuple[str, str], AfterValidator(_two_models)]
Pairs = Annotated[list[Pair] | tuple[Pair, ...], Some]
Count = Int("held-out images of each kind", ge=2, le=scoring.MAX_PER_KIND)
Grid = GridOf(32, "image")
Grids = Annotated[list[Grid] | tuple[Grid, ...], Some, Distinct]  # each grid once: none twice
# a kind, or a grid (1: as drawn) of faces or of 28 x 28 digits (digit_shuffles' records)
Condition = Choice("a kind of image", *KINDS) | Int("tiles along each side", ge=1, le=32)
# (model, condition) -> one run per seed: which images it calls a face, or reads right ([n]
# booleans each, the same images for every model)
Runs = Numbers("which images a seed's run calls a face or reads right: booleans [n]", ndim=1,
               at_least=1, bools=True, tensor=True)
Outcomes = Annotated[dict[tuple[str, str | int], Annotated[list[Runs] | tuple[Runs, ...], Some]],
                     Some]


@checked
def check_pairs(where: Name, pairs: Pairs, held: list[str] | tuple[str, ...],
                holder: Name = "models") -> None:
    """Refuse ``pairs`` that name a model ``holder`` does not hold (``held``, by name): say which
    it holds and how to pair them (``pairs`` defaults to the shipped models' ``PAIRS``)."""
    if unknown := sorted({name for pair in pairs for name in pair} - set(held)):
        fix = (f"pass pairs= of those, e.g. pairs=[{tuple(held[:2])!r}]" if len(held) > 1 else
               f"{holder} holds one model: pass two or more to pair")
        default = " (pairs defaults to PAIRS)" * (holder == "models")
        raise ValueError(f"{where}(): pairs must name models that {holder} holds, {held}, got "
                         f"{unknown}, which it does not hold{default}; {fix}")


@checked
def checkpoint_name(name: Vit, seed: Seed) -> str:
    """The shipped checkpoint of ViT ``name`` trained with ``seed``, e.g. ``faces-vit-seed0``."""
    return f"{VITS[name]}-seed{seed}"


@checked
def validation_set() -> tuple[torch.Tensor, torch.Tensor]:
    """The held-out images a ViT's epoch is chosen on: ``parts.curves.VALIDATION`` faces and as
    many non-faces of ``VALIDATION_SEED`` (neither a training nor a test seed), with labels."""
    x_face, x_non = (held_out(kind, VALIDATION, VALIDATION_SEED)[0] for kind in ("face", "nonface"))
    labels = [faces.LABELS["face"]] * VALIDATION + [faces.LABELS["nonface"]] * VALIDATION
    return torch.cat([x_face, x_non]), torch.tensor(labels)


@checked
def train_vit(name: Vit, seed: Seed = 0, progress: Flag("whether to show a progress bar") = True):
    """Train ViT ``name`` by its recipe with ``seed`` on ``training_set(recipe.examples, seed)``,
    keeping the epoch best on ``validation_set`` and stopping by the recipe's patience. Returns
    ``(model, history)``: the model on the CPU in eval mode, ``fit``'s history."""
    recipe = RECIPES[VITS[name]]
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    history = fit(model, training_set(recipe.examples, seed), recipe.epochs, recipe.batch_size,
                  recipe.lr, recipe.lr_decay, seed, progress=progress,
                  validation=validation_set(), patience=recipe.patience)
    return model.cpu().eval(), history


@checked
def run_metrics(model: FaceNet, history: list[Epoch], epochs: int) -> Metrics:
    """A trained ViT's manifest metrics: its faces-vs-non-faces accuracy on the test sets (400
    of each, as the face CNNs' rows) and its held-out curve, the epoch kept, and whether the
    course's rule stopped it (``converged``) before its budget of ``epochs``."""
    rates = face_rates(model, ("face", "nonface"), n=400)
    scores = held_out_scores(history)
    return Metrics(held_out_accuracy=round((rates["face"] + 1 - rates["nonface"]) / 2, 4),
                   face_rate=round(rates["face"], 4), nonface_rate=round(rates["nonface"], 4),
                   validation_examples=2 * VALIDATION, validation_seed=VALIDATION_SEED,
                   validation_by_epoch=tuple(scores), chosen_epoch=chosen_epoch(history).epoch,
                   epochs=len(history), max_epochs=epochs, patience=PATIENCE,
                   converged=converged(scores, PATIENCE))


@checked
def train_and_save(names: list[Vit] | tuple[Vit, ...] = tuple(VITS), seeds: Seeds = SEEDS,
                   root: checkpoints.Root = None, command: str = "",
                   progress: Flag("whether to show progress bars") = True,
                   replace_shipped: Flag("True only to write into the shipped checkpoints") = False
                   ) -> list[ManifestRow]:
    """Train every ViT of ``names`` with every seed (``train_vit``) and save it in ``root``
    (``checkpoints.save``) with ``run_metrics``: their manifest rows. ``root`` defaults to
    ``<data root>/runs`` (the shipped checkpoints with ``replace_shipped=True``; checked before
    any training)."""
    folders = {(name, seed): checkpoints.check_writable(checkpoint_name(name, seed), root,
                                                        replace_shipped, "train_and_save")
               for name in names for seed in seeds}
    entries = []
    for (name, seed), folder in folders.items():
        start = time.perf_counter()
        model, history = train_vit(name, seed, progress)
        seconds = time.perf_counter() - start
        recipe = RECIPES[VITS[name]]
        entries.append(checkpoints.save(
            model, checkpoint_name(name, seed), folder, replace_shipped,
            description=recipe.description, command=command, seed=seed,
            device=str(course_settings.device()), train_examples=recipe.examples,
            train_time_s=round(seconds, 1), threads=torch.get_num_threads(),
            metrics=run_metrics(model, history, recipe.epochs)))
    return entries


@checked
def load_models(seeds: Seeds = SEEDS, names: list[str] | tuple[str, ...] = MODELS,
                root: checkpoints.Root = None) -> dict[str, list]:
    """The models ``names`` of ``MODELS``, one per seed of ``seeds``: the shipped face models of
    07 (``parts.training.load_face_models``) and the ViTs (verified, in eval mode)."""
    if unknown := set(names) - set(MODELS):
        raise ValueError(f"load_models(): names must be of {MODELS}, got {sorted(unknown)}")
    check_saved_seeds("load_models", seeds, {name: checkpoint_name(name, 0) if name in VITS else
                                             training.checkpoint_name(name, 0)
                                             for name in names}, root)
    models = load_face_models(seeds, [n for n in names if n in BESIDE], root)
    return {**models, **{name: [checkpoints.pretrained(checkpoint_name(name, s), root)
                                for s in seeds] for name in names if name in VITS}}


@dataclass(frozen=True)
class Score(CheckedRecord):
    """One model's score in one condition over the seeds: a kind's face rate, or the accuracy
    (faces vs non-faces, or digits) with each image's tiles shuffled on a grid."""

    model: Name
    condition: Condition
    by_seed: Annotated[tuple[Accuracy, ...], Some]
    over_seeds: Record(OverSeeds)

    def __post_init__(self):
        super().__post_init__()  # over_seeds sums up by_seed: over_seeds(by_seed), no other
        check_summary("Score", "over_seeds", self.over_seeds, "by_seed", self.by_seed)


@dataclass(frozen=True)
class Comparison(CheckedRecord):
    """Two models in one condition: ``first``'s score minus ``second``'s over the seeds (Welch:
    two architectures share no weights), and seed by seed on the same images (McNemar's test of
    the images each calls a face, or reads right: ``statistics.paired``)."""

    condition: Condition
    first: Name
    second: Name
    over_seeds: Record(SeedDifference)
    by_seed: Annotated[tuple[Record(Paired), ...], Some]

    def __post_init__(self):
        super().__post_init__()  # a difference of the means: the mean of the seeds' differences
        check_paired_mean("Comparison", self.over_seeds, self.by_seed, "make it with compare(...)")


@dataclass(frozen=True)
class Shuffles(CheckedRecord):
    """Accuracies under tile shuffles over the seeds, and the comparisons of pairs of models: what
    10 §8 measures on MNIST (``measure_digits``), and part of what it measures on faces."""

    seeds: Annotated[tuple[Seed, ...], Some, Distinct]  # each once: a run counted once
    n: Int("images of each kind (faces), or test digits", ge=1)
    shuffles: tuple[Record(Score), ...]  # accuracies, one per model and grid
    comparisons: tuple[Record(Comparison), ...]  # one per pair and condition (a kind, or a grid)

    def __post_init__(self):
        super().__post_init__()  # and each score and comparison (a PatchOrder's rates) one per seed
        for each in [*self.shuffles, *self.comparisons, *getattr(self, "rates", ())]:
            check_same(type(self).__name__, "seeds", "pass one result per seed", seeds=len(
                self.seeds), **{f"{each.model if isinstance(each, Score) else each.first}'s "
                                f"by_seed ({each.condition!r})": len(each.by_seed)})

    @checked
    def accuracy(self, model: str, grid: Int("tiles along each side of the images", ge=1)
                 ) -> Score:
        """``model``'s accuracy over the seeds on images of ``grid`` x ``grid`` tiles shuffled."""
        return _found(f"{type(self).__name__}.accuracy", self.shuffles, model, grid, "grid")

    def tally(self) -> str:
        """How many comparisons over seeds were told apart, beside what chance would give."""
        return tally(c.over_seeds for c in self.comparisons)

    def paired_tally(self) -> str:
        """The same for the seed-by-seed comparisons on the same images."""
        return tally(p for c in self.comparisons for p in c.by_seed)


@dataclass(frozen=True)
class PatchOrder(Shuffles):
    """What 10 §8 measures on faces: face rates per kind, the pairs compared on each kind, and
    accuracies under tile shuffles."""

    rates: tuple[Record(Score), ...] = ()  # face rates, one per model and kind

    @checked
    def rate(self, model: str, kind: str) -> Score:
        """``model``'s face rate over the seeds on held-out images of ``kind``."""
        return _found("PatchOrder.rate", self.rates, model, kind, "kind")

    @checked
    def seed_runs(self, model: str) -> SeedRuns:
        """``model``'s rates as ``parts.scoring.SeedRuns``, for ``figures.model_scores``."""
        _found("PatchOrder.seed_runs", self.rates, model, None, "kind")  # a model measured
        rates = {r.condition: list(r.by_seed) for r in self.rates if r.model == model}
        return SeedRuns(model, list(self.seeds), [], rates)


@checked
def called(models: dict[str, list], kinds: Kinds, n: Count
           ) -> dict[tuple[str, str], list[torch.Tensor]]:
    """(model, kind) -> for each seed's model, which of ``n`` held-out images of ``kind`` it
    calls a face ``[n]`` (the same images for every model: ``parts.scoring.held_out``)."""
    return {(name, kind): [called_face(m, held_out(kind, n)[0]) for m in runs]
            for name, runs in models.items() for kind in kinds}


@checked
def shuffled_accuracy(model: FaceNet, grid: Grid, n: Count) -> float:
    """``model``'s faces-vs-non-faces accuracy on ``n`` held-out faces and ``n`` non-faces, each
    image's tiles shuffled on a ``grid x grid`` grid (``data.patches.shuffle_tiles``; 1 leaves
    them as they are): the mean of its face rate on faces and one minus it on non-faces."""
    face_x, non_x = (held_out(kind, n)[0] for kind in ("face", "nonface"))
    if grid > 1:
        face_x, non_x = (shuffle_tiles(x, grid, SHUFFLE_SEED) for x in (face_x, non_x))
    return (called_face(model, face_x).float().mean().item()
            + 1 - called_face(model, non_x).float().mean().item()) / 2


@checked
def find(scores: tuple[Score, ...], model: str, condition: str | int) -> Score:
    """The ``Score`` of ``model`` in ``condition`` among ``scores``; a model or a condition no
    score has is refused, naming it and those there are."""
    if not scores:
        raise ValueError("find(): scores must hold at least one Score, got (): no score of model "
                         f"{model!r} in condition {condition!r}; pass the scores of a measure "
                         "(e.g. measure(...).shuffles)")
    return _found("find", scores, model, condition, "condition", " scores has")


def _found(where: str, scores: tuple[Score, ...], model: str, condition: str | int | None,
           name: str, among: str = " measured") -> Score:
    """``find`` for ``where`` (a method of the records that hold ``scores``), which calls the
    condition ``name`` (a grid, a kind; None: any): a model or a condition no score has is
    refused by ``where``'s name, naming those there are (the models ``among`` the scores)."""
    found = [s for s in scores if s.model == model and condition in (None, s.condition)]
    if not found:
        models = sorted({s.model for s in scores})
        conditions = sorted({s.condition for s in scores if s.model == model}, key=str)
        wrong = (f"model must be one of the models{among}, {models}, got {model!r}"
                 if model not in models else f"{name} must be one of {model!r}'s {name}s"
                 f"{among}, {conditions}, got {condition!r}")
        raise ValueError(f"{where}(): {wrong}; pass one of those")
    return found[0]


@checked
def over_the_seeds(outcomes: Outcomes) -> tuple[Score, ...]:
    """A ``Score`` for each ``(model, condition)`` of ``outcomes`` (-> one bool tensor per seed:
    which images it calls a face, or reads right): the share of ``True`` per seed."""
    for key, runs in outcomes.items():  # each score's interval needs a spread over seeds
        if len(runs) < 2:
            raise ValueError(f"over_the_seeds(): outcomes[{key!r}] must hold at least 2 runs, "
                             f"one per seed (a score over seeds has an interval, which needs a "
                             f"spread), got {len(runs)}; pass the runs of two or more seeds")
    return tuple(Score(name, condition, by_seed, over_seeds(by_seed))
                 for (name, condition), runs in outcomes.items()
                 for by_seed in [tuple(x.float().mean().item() for x in runs)])


@checked
def compare(outcomes: Outcomes, condition: str | int, first: str, second: str) -> Comparison:
    """``Comparison`` of models ``first`` and ``second`` in ``condition`` from ``outcomes``
    (``(model, condition)`` -> one bool tensor per seed, the same images for both): their
    scores over the seeds, and seed by seed image by image."""
    if first == second:
        raise ValueError(f"compare(): second must be another model than first, got {first!r} "
                         "for both; pass two models")
    for name in (first, second):
        if (name, condition) not in outcomes:
            raise ValueError(f"compare(): first and second must be models outcomes holds in "
                             f"condition {condition!r}, got {name!r}; it holds "
                             f"{sorted(map(str, outcomes))}")
    a, b = outcomes[first, condition], outcomes[second, condition]
    check_same("compare", "runs, one per seed", "pass the runs of the same seeds",
               first=len(a), second=len(b))
    check_same("compare", "images", "pass runs on the same images", **{
        f"{name}'s run {k}": len(x) for name, runs in ((first, a), (second, b))
        for k, x in enumerate(runs)})
    over = seed_difference([x.float().mean().item() for x in a],
                           [x.float().mean().item() for x in b], by_seed=False)
    return Comparison(condition, first, second, over,
                      tuple(paired(x, y) for x, y in zip(a, b, strict=True)))


@checked
def measure(models: dict[str, list], seeds: TwoSeeds, kinds: Kinds = KINDS, n: Count = 500,
            grids: Grids = GRIDS, pairs: Pairs = PAIRS) -> PatchOrder:
    """``PatchOrder`` of ``models`` (name -> one model per seed of ``seeds``, e.g.
    ``load_models``): face rates on ``n`` held-out images of each of ``kinds``, the ``pairs``
    compared on each kind, accuracies under tile shuffles on each of ``grids``."""
    if any(len(runs) != len(seeds) for runs in models.values()):
        raise ValueError(f"measure(): models must hold one model per seed ({len(seeds)}), got "
                         f"{ {name: len(runs) for name, runs in models.items()} }")
    check_pairs("measure", pairs, list(models))
    calls = called(models, kinds, n)
    comparisons = tuple(compare(calls, kind, a, b) for a, b in pairs for kind in kinds)
    shuffles = tuple(Score(name, grid, by_seed, over_seeds(by_seed))
                     for name, runs in models.items() for grid in grids
                     for by_seed in [tuple(shuffled_accuracy(m, grid, n) for m in runs)])
    return PatchOrder(tuple(seeds), n, shuffles, comparisons, over_the_seeds(calls))


@dataclass(frozen=True)
class Invariance(CheckedRecord):
    """How much a model's answers move when each image's tiles are shuffled on a grid."""

    grid: Int("tiles along each side of the images", ge=1, le=1024)
    largest_change: Float("the largest change of a probability, over the images", ge=0, le=1)
    answers_changed: Int("images whose answer changed", ge=0)  # face or not; the digit read
    n: Int("images", ge=1)
    read: Text = "P(face)"  # the probability that moved: P(face), or a digit's probability
    side: Int("the images' side in pixels: 32 for faces, 28 for digits", ge=1, le=1024) = 32

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a grid that does not divide the
        images' side (the rule of ``GridOf``), and more answers changed than images."""
        super().__post_init__()
        check_value("Invariance", "grid", GridOf(self.side, "image"), self.grid)
        if self.answers_changed > self.n:
            raise ValueError(f"Invariance(): answers_changed must be at most n ({self.n}), got "
                             f"{self.answers_changed}; pass how many of the n answers changed")

    def __str__(self) -> str:
        small = "below 1e-5" if self.largest_change < 1e-5 else f"{self.largest_change:.3g}"
        return (f"tiles shuffled on a {self.grid}x{self.grid} grid: the largest change in "
                f"{self.read} is {small}; {self.answers_changed} of {self.n} answers changed")


@checked(reads=("model", "images"))
def largest_change(model: FaceNet,
                   images: Tensor("face scenes [n, 1, 32, 32]", ndim=4, pixels=True,
                                  sizes={1: 1, 2: 32, 3: 32}),
                   grid: Grid = OWN_GRID) -> Invariance:
    """``Invariance`` of ``model`` on ``images`` with their tiles shuffled on a ``grid x grid``
    grid: for the ViT without positions on its own grid, nothing but float rounding."""
    shuffled = shuffle_tiles(images, grid, SHUFFLE_SEED)
    change = (face_probability(model, images) - face_probability(model, shuffled)).abs().max()
    flips = (called_face(model, images) != called_face(model, shuffled)).sum()
    return Invariance(grid, change.item(), int(flips), len(images))


@checked
def rate_table(result: PatchOrder, kinds: Kinds = KINDS) -> str:
    """The face rates as a table: one row per kind (``*``: a kind a person calls a face), one
    column per model, each the mean over seeds ± its t half-width."""
    models = list(dict.fromkeys(r.model for r in result.rates))
    lines = [f"{'kind':>24} " + " ".join(f"{m:>22}" for m in models)]
    for kind in kinds:
        star = "*" if kind in ("face", "rotated", *UNSEEN_FACES) else " "
        cells = (result.rate(m, kind).over_seeds for m in models)
        lines.append(f"{kind + star:>24} "
                     + " ".join(f"{f'{c.mean:.2f} ± {c.half_width:.2f}':>22}" for c in cells))
    return "\n".join(lines)


@checked
def shuffle_table(result: Shuffles) -> str:
    """Accuracy under tile shuffles (faces vs non-faces, or digits): one row per grid, one column
    per model."""
    models = list(dict.fromkeys(s.model for s in result.shuffles))
    grids = list(dict.fromkeys(s.condition for s in result.shuffles))
    lines = [f"{'tiles':>12} " + " ".join(f"{m:>22}" for m in models)]
    for grid in grids:
        name = "as drawn" if grid == 1 else f"{grid}x{grid} shuffled"
        cells = (result.accuracy(m, grid).over_seeds for m in models)
        lines.append(f"{name:>12} "
                     + " ".join(f"{f'{c.mean:.3f} ± {c.half_width:.3f}':>22}" for c in cells))
    return "\n".join(lines)


@checked
def main(argv: Argv | None = None) -> int:
    """``python -m capsedu.patch_order``: train 10 §8's face ViTs, into <data root>/runs (or
    --out); into the shipped checkpoints only with --replace-shipped."""
    return train_over_seeds(COMMAND, main.__doc__, tuple(VITS), SEEDS, train_and_save, argv)


if __name__ == "__main__":
    raise SystemExit(main())

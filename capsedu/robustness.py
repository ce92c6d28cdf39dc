"""Viewpoint robustness, measured (notebook 08): how a model trained on translated MNIST scores
digits it never saw turned, sheared or scaled (the paper's Section 5.2); and notebook 10's
accuracy against the angle of a turned digit (``sweep_accuracy`` on the 28x28 canvas).

The data comes from ``capsedu.data.transformed_mnist``; the models are the affNIST pair of
``capsedu.train`` (``affnist-capsnet``, ``affnist-cnn``). Each function works for either model.
"""

import functools
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple

import torch
from pydantic import AfterValidator
from torch.utils.data import TensorDataset

from .capsnet import routing_iterations
from .checks import check_different, check_order, check_read_labels, check_same, check_side
from .convergence import training_status, verdict
from .course_settings import MAX_SIDE, Classifier, Classifiers, Name, Rows, Seed
from .data import transformed_mnist
from .data.affine_params import _check_sweep_values
from .data.transformed_mnist import CANVAS, SWEEPS
from .derived import check_derived
from .loop import SCORING_BATCH, _accuracy, is_correct, predict
from .manifest_rows import ManifestRow
from .recipes import Iterations, how_made
from .refusals import declared_error
from .statistics import Paired, SeedDifference, check_difference, paired, seed_difference
from .units import InPercent
from .validate import (
    CheckedRecord,
    Choice,
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

MAX_GROUPS = 1000  # overlap groups: past this a group holds a handful of the 10,000 test pairs
# images read_right reads without a bar unless asked: seconds of a CapsNet on a CPU (a few hundred
# images a second); past it, a bar per model with the time left (affNIST's 320,000: many minutes)
QUIET_READS = 1000
Digits = Tensor("MNIST digits [N, 1, 28, 28]", ndim=4, pixels=True, sizes={1: 1, 2: 28, 3: 28})
Labels = Tensor("their labels [N]", ndim=1)
# which images a model reads right: [N] booleans (read_right's); and each model's, by name
Reads = Numbers("which images it reads right: booleans or 0/1 [N]", ndim=1, at_least=1,
                bools=True, tensor=True)
Right = Annotated[dict[str, Reads], Some]


def _recorded(*fields: str) -> Any:
    """A manifest row that records ``fields`` ("metrics.validation_by_epoch": a field of its
    metrics), which a row saved without them (a trial's checkpoint) holds as None."""

    def check(row: ManifestRow) -> ManifestRow:
        missing = [f for f in fields if functools.reduce(
            lambda record, name: getattr(record, name, None), f.split("."), row) is None]
        if missing:
            raise declared_error(ValueError, f"must be a manifest row that records "
                                 f"{', '.join(fields)}, got the row {row.name!r} without "
                                 f"{', '.join(missing)} (a checkpoint saved without held-out "
                                 "curves or a record of its run); pass the row of a shipped "
                                 "checkpoint, checkpoints.read_manifest()[name]", "array")
        return row

    return Annotated[Record(ManifestRow), AfterValidator(check)]
# accuracies in [0, 1] by model name, and quoted accuracies in % (translated, affine)
Accuracies = Annotated[dict[str, Float("an accuracy in [0, 1]", ge=0, le=1)], Some]
Percent = Float("an accuracy in %", ge=0, le=100)
Share = Float("an accuracy, 0..1", ge=0, le=1)

# Quoted, not measured here: models trained on translated MNIST, their accuracy (%) on translated
# test digits (None: not reported) and on affine-transformed ones
QUOTED = {
    "paper: CapsNet": (99.23, 79.0),  # Sabour et al. 2017, Section 5.2, on the official affNIST
    "paper: CNN": (99.22, 66.0),
    # cybertronai/hinton-problems' affNIST sketch, on its own random affine maps
    "hinton-problems reproduction: CapsNet": (None, 85.5),
    "hinton-problems reproduction: CNN": (None, 87.5),
}
# and their affNIST accuracies, with one more model that is not a plain CapsNet: Gu & Tresp's
# Aff-CapsNet shares one transformation matrix among all primary capsules
QUOTED_AFFINE = {**{name: on_affine for name, (_, on_affine) in QUOTED.items()},
                 "Gu & Tresp 2020: Aff-CapsNet": 93.21}


def _check_names(fn: str, argument: str, names, known: dict, what: str) -> None:
    """Raise ``ValueError`` unless each of ``names`` is a key of ``known`` (a result's models,
    by name): a name the result does not hold has nothing to read."""
    for name in names:
        if name not in known:
            raise ValueError(f"{fn}(): {argument} must each be one of {what}: "
                             f"{', '.join(map(repr, known))}; got {name!r}; pass one of those")


@checked
def sweep_accuracy(model: Classifier, images: Digits, labels: Labels,
                   factor: Choice("the factor swept", *SWEEPS),
                   values: Numbers("the factor's values [n]", ndim=1, at_least=1) | None = None,
                   side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS
                   ) -> list[float]:
    """``model``'s accuracy on MNIST digits ``[N, 1, 28, 28]`` under one transformation at each
    value of a sweep (``transformed_mnist.sweep``; ``values`` default to ``SWEEPS[factor]``), on
    a ``side`` x ``side`` canvas: 40 for 08's affNIST models, 28 for 10's models, which read
    digits turned on their own canvas (``factor="rotation"``, ``values`` 0 to 360)."""
    check_read_labels(labels, "sweep_accuracy(): labels", images, model)  # one per image
    values = SWEEPS[factor] if values is None else values.tolist()
    _check_sweep_values("sweep_accuracy", factor, values)  # before any model is run
    check_side("sweep_accuracy", side, "pass side={reads} (the side it reads), or a model made "
               f"for {side}x{side}", model=model)
    # the labels checked once above: each reading refused, if at all, as sweep_accuracy's
    return [_accuracy(model, TensorDataset(transformed_mnist._sweep(images, factor, v, side),
                                           labels), SCORING_BATCH, False, "sweep_accuracy")
            for v in values]


@dataclass(frozen=True)
class Sweep(CheckedRecord):
    """A model's accuracy along one sweep of ``transformed_mnist.SWEEPS`` (``sweep_curves``)."""

    factor: Choice("the factor swept", *SWEEPS)
    values: tuple[Float("a value of the factor"), ...]  # SWEEPS[factor]
    accuracy: tuple[Share, ...]  # the accuracy at each value

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or other than one accuracy per
        value."""
        super().__post_init__()
        check_same("Sweep", "length", "pass one accuracy per value of the factor",
                   values=len(self.values), accuracy=len(self.accuracy))


@checked
def sweep_curves(models: Classifiers, images: Digits, labels: Labels
                 ) -> dict[str, tuple[Sweep, ...]]:
    """Each of ``models``' (name -> model) ``sweep_accuracy`` on MNIST digits ``[N, 1, 28, 28]``
    along every factor of ``transformed_mnist.SWEEPS``: name -> a ``Sweep`` per factor, in the
    order of ``SWEEPS``."""
    for model in models.values():  # one label per image, a class of each model
        check_read_labels(labels, "sweep_curves(): labels", images, model)
    check_side("sweep_curves", CANVAS, "pass 08's affNIST models (every sweep draws on their "
               "canvas), or call sweep_accuracy with side={reads}",
               **{f"models[{name!r}]": model for name, model in models.items()})
    return {name: tuple(Sweep(factor, tuple(values),
                              tuple(sweep_accuracy(model, images, labels, factor)))
                        for factor, values in SWEEPS.items())
            for name, model in models.items()}


@checked
def lowest_points(curves: dict[str, tuple[Sweep, ...]]) -> list[str]:
    """One line per model of ``sweep_curves``: its lowest accuracy on each sweep."""
    return [f"{name}: lowest accuracy per sweep: "
            + ", ".join(f"{sweep.factor} {100 * min(sweep.accuracy):.1f} %" for sweep in sweeps)
            for name, sweeps in curves.items()]


@checked(reads=("models", "images"))
def read_right(models: Classifiers, images: Tensor("images [N, C, H, W]", ndim=4, pixels=True),
               labels: Tensor("their labels [N], or [N, 2] for pairs"),
               iterations: dict[str, Iterations] | None = None,
               progress: Flag("True to show a progress bar") | None = None
               ) -> dict[str, torch.Tensor]:
    """Whether each of ``models`` (name -> model) reads each image right: name -> ``[N]``
    booleans (``loop.is_correct``), for ``images`` ``[N, C, H, W]`` and their ``labels`` ``[N]``
    (``[N, 2]`` for pairs). ``iterations`` (name -> a number) routes that CapsNet so many times
    while it reads (``capsnet.routing_iterations``: the same weights, its own number after).
    ``progress``: a bar per model with the time left (``loop.predict``'s, a batch at a time, so
    any N fits in memory); by default (None) shown past ``QUIET_READS`` images, False: never."""
    progress = len(images) > QUIET_READS if progress is None else progress
    iterations = iterations or {}
    _check_names("read_right", "iterations' names", iterations, models, "the names of models")
    right = {}
    for name, model in models.items():
        with (routing_iterations(model, iterations[name], "read_right", f"models[{name!r}]")
              if name in iterations else nullcontext()):
            right[name] = is_correct(predict(model, images, progress=progress), labels)
    return right


@checked
def accuracies(right: Right) -> dict[str, float]:
    """The share of images each model reads right: name -> accuracy in [0, 1], from
    ``read_right``'s name -> ``[N]`` booleans."""
    return {name: correct.float().mean().item() for name, correct in right.items()}


@checked
def viewpoint_table(translated: Accuracies, affine: Accuracies,
                    quoted: dict[str, tuple[Percent | None, Percent]] = QUOTED) -> str:
    """The accuracy (%) of each model (name -> accuracy in [0, 1]) on translated and on
    affNIST-style test digits and the drop between them, one row each, then the ``quoted`` rows
    (name -> (translated %, affine %), translated None where a source does not report it)."""
    if translated.keys() != affine.keys():
        raise ValueError(f"viewpoint_table(): translated and affine must score the same models, "
                         f"got {list(translated)} and {list(affine)}; pass one accuracy per "
                         "model in each")
    lines = [f"{'':<44}{'translated':>12}{'affNIST-style':>15}{'drop':>8}"]
    rows = {name: (100 * translated[name], 100 * affine[name]) for name in affine}
    for name, each in quoted.items():
        check_value("viewpoint_table", f"quoted[{name!r}]", Annotated[list, InPercent],
                    [v for v in each if v is not None])
    for name, (on_translated, on_affine) in {**rows, **quoted}.items():
        if on_translated is None:
            lines.append(f"{name:<44}{'':>12}{on_affine:>14.2f}%")
        else:
            lines.append(f"{name:<44}{on_translated:>11.2f}%{on_affine:>14.2f}%"
                         f"{on_translated - on_affine:>7.1f}")
    return "\n".join(lines)


# a comparison of two models: image by image, or over seeds
Comparison = Record(Paired, "statistics.paired(...)") | Record(
    SeedDifference, "statistics.seed_difference(...)")


@dataclass(frozen=True)
class OnSample(CheckedRecord):
    """A comparison (``statistics.paired`` or ``seed_difference``) on whole test sets, the
    verdict, and the same comparison on the sample of them that a run measured live
    (``mnist.fixed_sample``'s rows of the same images)."""

    full: Comparison
    sample: Comparison

    def __post_init__(self):
        """Refuse fields that are no comparisons (``CheckedRecord``), or two kinds of test."""
        super().__post_init__()
        if type(self.full) is not type(self.sample):
            raise TypeError(f"OnSample(): full and sample must be the same test, got a "
                            f"{type(self.full).__name__} and a {type(self.sample).__name__}; "
                            "compare the sample as the full set is compared")

    @property
    def clear(self) -> bool:
        """The verdict is the full set's: told apart there (``statistics.tally`` counts it)."""
        return self.full.clear

    @property
    def level(self) -> float:
        return self.full.level

    @property
    def difference(self) -> float:
        return self.full.difference

    @property
    def agrees(self) -> bool:
        """Whether the sample tells what the full set tells: both told apart in the same
        direction, or neither told apart (a difference not told apart has no direction)."""
        same_side = (self.sample.difference > 0) == (self.full.difference > 0)
        return self.sample.clear == self.full.clear and (not self.full.clear or same_side)


@checked
def sample_verdict(full: Paired | SeedDifference, sample: Paired | SeedDifference,
                   runs: dict[str, Record(ManifestRow)],
                   sizes: tuple[Int("images in the full set", ge=1),
                                Int("images in the sample", ge=1)]) -> tuple[OnSample, str]:
    """The verdict line of a comparison made on whole test sets (``full``) and on a run's sample
    of them (``sample``), ``sizes`` = (images in the full set, in the sample): the full set's
    comparison, final only when the recorded ``runs`` it rests on (name -> manifest row) have
    finished (``convergence.verdict``); then the sample's, and whether it tells the same (a sample's
    verdict that differs is no conclusion)."""
    comparison = OnSample(full, sample)
    n_full, n_sample = sizes
    check_order("sample_verdict", "sizes is (full set, sample), and a sample is no larger than "
                "its full set", **{"sizes[1]": n_sample, "sizes[0]": n_full})
    for name, compared, n in (("full", full, n_full), ("sample", sample, n_sample)):
        if isinstance(compared, Paired):  # a comparison image by image counts its images
            check_same("sample_verdict", "images", f"pass the sizes {name} was made on",
                       **{f"{name}.n": compared.n, f"sizes[{int(name == 'sample')}]": n})
    line = f"all {n_full:,} test images (recorded): {verdict(full, runs)}"
    if n_sample != n_full:
        line += (f"\n    this run's sample of {n_sample:,}: {sample}; "
                 + ("the full set's verdict too" if comparison.agrees else
                    "NOT the full set's verdict, so no conclusion"))
    return comparison, line


@checked
def paired_verdict(sample: Right, full: Right, first: str, second: str,
                   manifest: dict[str, Record(ManifestRow)]) -> tuple[OnSample, str]:
    """Model ``first`` minus ``second``, image by image (``statistics.paired``), on the whole test
    set (``full``: name -> booleans, from ``full_sets.read_right``) and on the sample this run
    measured (``sample``: name -> booleans, ``read_right``), and its verdict line
    (``sample_verdict``), resting on the recorded runs of the two names found in ``manifest``
    (name -> row, ``checkpoints.read_manifest``)."""
    check_different("paired_verdict", "name two models", first=first, second=second)
    _check_names("paired_verdict", "first and second", (first, second), sample,
                 "the models read_right scored (sample)")
    _check_names("paired_verdict", "first and second", (first, second), full,
                 "the models of the record (full)")
    runs = {name: manifest[name] for name in (first, second) if name in manifest}
    if not runs:
        raise ValueError(f"neither {first!r} nor {second!r} is a recorded run of the manifest: a "
                         "verdict rests on at least one")
    on_full, on_sample = paired(full[first], full[second]), paired(sample[first], sample[second])
    return sample_verdict(on_full, on_sample, runs, (on_full.n, on_sample.n))


@checked
def sample_line(sample: Right, full: Right, rows: Rows) -> str:
    """What a run measured on its sample, beside the record: each reading's accuracy on the
    sample (``sample``: name -> booleans, ``read_right``) and on how many of the sample's images
    it reads otherwise than the record of the full set does (``full``: name -> booleans of the
    whole set; ``rows``: the sample's rows of it). On the CPU the record and the run agree on
    every image; another device's rounding can flip a borderline one."""
    _check_names("sample_line", "sample's names", sample, full, "the readings of the record (full)")
    for name, right in sample.items():
        check_same("sample_line", "length, one reading per row of the sample", "pass the rows "
                   "the sample was drawn at", rows=len(rows), **{f"sample[{name!r}]": len(right)})
        if rows.max() >= len(full[name]):
            raise ValueError(f"sample_line(): rows must be rows of the full set ({len(full[name])} "
                             f"images in full[{name!r}]), got row {int(rows.max())}; pass the "
                             "sample's rows (mnist.fixed_sample(n))")
    differ = sum(int((right != full[name][rows]).sum()) for name, right in sample.items())
    agreement = ("each reads every image as the record does" if not differ else
                 f"{differ:,} readings differ from the record's")
    return (f"this run's sample of {len(rows):,} (rows of the full set): "
            + ", ".join(f"{name} {100 * right.float().mean().item():.2f} %"
                        for name, right in sample.items()) + f"; {agreement}")


def _check_row(where: str, name: str, row: ManifestRow) -> None:
    """Refuse a manifest ``row`` of another checkpoint than ``name``: its line would credit one
    run's record to another."""
    check_same(where, "the checkpoint named", "pass its row, checkpoints.read_manifest()[name]",
               name=name, **{"row.name": row.name})


@checked
def run_line(name: Name, row: _recorded("command", "seed", "train_time_s", "threads",
                                       "metrics.validation_by_epoch")) -> str:
    """One line on how the checkpoint ``name`` was made, from its manifest ``row``: every sitting
    of its training (``recipes.how_made``), its seed, minutes and CPU threads, and how the run
    ended (``convergence.training_status``)."""
    _check_row("run_line", name, row)
    return (f"{name}: {how_made(row)} | seed {row.seed} | {row.train_time_s / 60:.0f} min "
            f"on {row.threads} CPU thread(s) | {training_status(row.metrics)}")


@checked
def pairs_line(name: Name, right: Reads,
               row: _recorded("train_examples", "train_time_s", "metrics.validation_by_epoch")
               ) -> str:
    """One line on a two-digit model ``name``: the share of test pairs whose two digits it reads
    right (``right`` ``[N]`` booleans), the minutes and pairs its training took (one pair per
    training digit per epoch, up to the epoch kept) and how the run ended, from its manifest
    ``row``."""
    _check_row("pairs_line", name, row)
    both = right.float().mean().item()
    seen = row.train_examples * row.metrics.chosen_epoch
    return (f"{name}: both digits right in {100 * both:.2f} % of the test pairs (error "
            f"{100 * (1 - both):.1f} %) | trained {row.train_time_s / 60:.0f} min, "
            f"{seen / 1e6:.2f}M training pairs seen | {training_status(row.metrics)}")


class _ByOverlapFields(NamedTuple):
    scores: dict[str, list[Percent]]  # name -> its accuracy (%) in each group, least overlap first
    ranges: list[str]  # each group's range of overlap in words, e.g. "35-60 %"


class ByOverlap(_ByOverlapFields):
    """Test pairs in groups by how much their two digits overlap (``accuracy_by_overlap``): a
    NamedTuple (notebook 08 unpacks ``scores, ranges``) whose fields are declared and enforced
    when it is made, each model's accuracies one per group of ``ranges``."""

    __slots__ = ()

    @checked
    def __new__(cls, scores: dict[str, Annotated[list[Percent], InPercent]], ranges: list[str]):
        for name, each in scores.items():
            check_same("ByOverlap", "groups", "pass one accuracy per group of overlap",
                       ranges=len(ranges), **{f"scores[{name!r}]": len(each)})
        return super().__new__(cls, scores, ranges)


def _overlap_groups(overlap: torch.Tensor, groups: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``groups - 1`` quantile edges of ``overlap`` and each pair's group ``[N]``, 0 ..
    ``groups - 1`` (a pair on an edge joins the lower group)."""
    edges = torch.quantile(overlap, torch.arange(1, groups) / groups)  # [groups - 1]
    return edges, torch.bucketize(overlap, edges)


@checked
def accuracy_by_overlap(right: Right, overlap: Tensor("overlaps [N]", ndim=1, finite=True,
                                                     within=(0, 1)),
                        groups: Int("groups of pairs", ge=1, le=MAX_GROUPS) = 4) -> ByOverlap:
    """Test pairs split into ``groups`` equal groups by the ``overlap`` ``[N]`` of their two ink
    boxes (``digit_pairs.box_overlap``), least overlap first: each model's accuracy (%) in
    every group (``right``: name -> ``[N]`` booleans, ``read_right``) and each group's range of
    overlap in words, e.g. ``"35-60 %"``."""
    check_same("accuracy_by_overlap", "length", "pass one overlap per pair each model read",
               overlap=len(overlap), **{f"right[{n!r}]": len(c) for n, c in right.items()})
    if groups > len(overlap):  # a group without pairs has no accuracy
        raise ValueError(f"accuracy_by_overlap(): groups must be at most the {len(overlap)} pairs "
                         f"given, got {groups}; pass fewer groups")
    edges, group = _overlap_groups(overlap, groups)
    if len(group.unique()) < groups:  # tied overlaps: a group's edges fell inside one tie
        fits = max(g for g in range(1, groups) if len(_overlap_groups(overlap, g)[1].unique()) == g)
        raise ValueError(f"accuracy_by_overlap(): overlap must spread over the {groups} groups, "
                         f"each with pairs of its own, got {len(overlap.unique())} distinct "
                         f"value(s) among {len(overlap)} pairs, which leave "
                         f"{groups - len(group.unique())} group(s) empty; pass groups={fits}"
                         f"{' or fewer' * (fits > 1)}, or pairs whose overlaps differ more")
    scores = {name: [100 * correct[group == g].float().mean().item() for g in range(groups)]
              for name, correct in right.items()}
    ranges = [f"{100 * a:.0f}-{100 * b:.0f} %" for a, b in
              zip([overlap.min(), *edges], [*edges, overlap.max()], strict=True)]
    return ByOverlap(scores=scores, ranges=ranges)


@dataclass(frozen=True)
class SeedVerdict(CheckedRecord):
    """Reading ``first`` against ``second`` over training seeds: each seed's pair read the same
    test images (``per_seed``, image by image), and the seeds' accuracies give the spread of
    training runs (``over_seeds``: the mean of first minus second, in points, with its t
    interval)."""

    first: Name
    second: Name
    seeds: tuple[Seed, ...]
    first_accuracy: tuple[Percent, ...]  # % of the test images, one per seed
    second_accuracy: tuple[Percent, ...]
    # first minus second, McNemar, one per seed
    per_seed: tuple[Record(Paired, "statistics.paired(...)"), ...]
    # mean first minus mean second, points
    over_seeds: Record(SeedDifference, "statistics.seed_difference(...)")

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), other than one of each per seed, or
        differences (``per_seed``, ``over_seeds``) other than those of the accuracies held."""
        super().__post_init__()
        check_same("SeedVerdict", "seeds", "pass one of each per seed", seeds=len(self.seeds),
                   first_accuracy=len(self.first_accuracy),
                   second_accuracy=len(self.second_accuracy), per_seed=len(self.per_seed))
        check_derived("SeedVerdict", "make it with seed_verdict(...)", **{
            f"per_seed[{i}].difference": (p.difference, (a - b) / 100, f"(first_accuracy[{i}] - "
                                          f"second_accuracy[{i}]) / 100, a share")
            for i, (p, a, b) in enumerate(zip(self.per_seed, self.first_accuracy,
                                              self.second_accuracy, strict=True))})
        check_difference("SeedVerdict", "over_seeds", self.over_seeds,
                         ("first_accuracy", "second_accuracy"), self.first_accuracy,
                         self.second_accuracy)


@checked
def seed_verdict(right: Annotated[dict[Seed, Right], Some], first: str, second: str,
                 by_seed: Flag("True to pair the seeds, False for Welch's test")) -> SeedVerdict:
    """``first`` minus ``second`` over seeds: ``right[seed][name]`` says which test images the
    run of that seed reads right (``[n]`` booleans, the same images for every run).
    ``by_seed``: pair the seeds (``statistics.seed_difference``) when a seed fixes what both
    runs share (the same network's initial weights, batches and moves), else Welch's test (two
    architectures: a seed gives each its own initial weights)."""
    check_different("seed_verdict", "name two models", first=first, second=second)
    seeds = tuple(sorted(right))
    if len(seeds) < 2:
        raise ValueError(f"seed_verdict(): right must hold the readings of at least 2 seeds (a "
                         f"spread over seeds needs two), got {len(seeds)}; pass every seed's")
    for seed in seeds:
        _check_names("seed_verdict", "first and second", (first, second), right[seed],
                     f"the readings of seed {seed}")
    a = tuple(100 * right[s][first].float().mean().item() for s in seeds)
    b = tuple(100 * right[s][second].float().mean().item() for s in seeds)
    return SeedVerdict(first, second, seeds, a, b,
                       tuple(paired(right[s][first], right[s][second]) for s in seeds),
                       seed_difference(a, b, by_seed=by_seed))


@checked
def seed_line(what: Name, verdict: SeedVerdict) -> str:
    """A ``SeedVerdict`` in two lines: each seed's difference and how many of them the seed's own
    test images told apart, then the mean over seeds with its interval and verdict."""
    each = ", ".join(f"seed {s} {100 * p.difference:+.2f}"
                     for s, p in zip(verdict.seeds, verdict.per_seed, strict=True))
    crossed = sum(p.clear for p in verdict.per_seed)
    return (f"{what}, {len(verdict.seeds)} training seeds: {each} points (told apart on the test "
            f"digits by {crossed} of {len(verdict.seeds)} seeds' McNemar tests)\n"
            f"  over the seeds, points: {verdict.over_seeds}")

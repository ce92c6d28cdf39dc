"""The seed's comparison table of notebook 10 §7: what it measures and reads.

``measure`` measures what the table needs that earlier notebooks measured (07's face rates, 08's
timings, 05's multiply-adds) and reads what they recorded (08's affNIST-style readings of all
10,000 test digits, ``full_sets``); ``read_records`` reads what 08 and 09 recorded, and
``affine_comparisons``, ``routing_comparisons`` and ``bug_comparisons`` compare them as 08 and 09
do (the same intervals, and how many of 09's comparisons crossed the line beside how many chance
alone would give). ``claims_table`` writes the rows and the Markdown table from these records.
"""

import time
from dataclasses import dataclass

import numpy as np

from . import ablations, adversarial_record, bug_zoo, full_sets, patch_order, seed_runs
from .ablations import WEIGHTS, Grid, one_change_comparisons, seed_errors, seed_noise
from .adversarial import ADAPTIVE_WEIGHTS, EPS
from .adversarial_units import CAPSNET, CAPSNET_1ITER, CNN, MODELS, Eps
from .bug_zoo import CORRECT, BugEffect, Zoo, bug_effects
from .capsnet import PAPER, CapsNet
from .capsule_angles import Degrees
from .checkpoints import pretrained
from .checks import check_order, check_same
from .convergence import still_improving
from .costs import ROUTING_ROW, anatomy
from .course_settings import MAX_EPOCHS, MAX_REPEATS, Classifiers, Name, Text
from .data import faces, transformed_mnist
from .derived import check_derived
from .loop import predict
from .manifest_rows import ManifestRow
from .parts.scoring import MAX_PER_KIND, face_rates
from .parts.training import load_face_models
from .recipes import Cell
from .reconstruction_detector import Detection
from .robustness import seed_verdict
from .routing_costs import RecordedCost, recorded_cost
from .seed_runs import SeedRun
from .statistics import OverSeeds, Paired, SeedDifference, over_seeds, paired
from .validate import CheckedRecord, Choice, Flag, Float, Int, Record, Tensor, checked

FACE_NAMES = ("bag-of-parts CNN", "deep CNN", "pixel CapsNet", "pose capsules")
VIT_NAMES = tuple(patch_order.VITS)  # 10 §8's ViTs, with and without position embeddings
AFFINE_NAMES = ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn")
ROUTING = f"{ROUTING_ROW} x{PAPER.iterations}"  # the routing's row in costs.anatomy
TIMED = 200  # digits each of 08's models reads for its time
MAX_TABLE = MAX_PER_KIND  # held-out images per face kind (face_rates draws them): 10 uses 200
OTHERS = ("affnist-cnn", "affnist-capsnet-1iter")  # what 08's CapsNet is compared with
Share = Float("a share, 0..1", ge=0, le=1)
Seconds = Float("seconds", ge=0)
MACs = Int("multiply-adds per image", ge=0)
Other = Choice("what 08's CapsNet is compared with", *OTHERS)
Affine08 = Choice("one of 08's affNIST recipes", *AFFINE_NAMES)


@dataclass(frozen=True)
class Measured(CheckedRecord):
    """What ``measure`` measures here for the table."""

    n_table: Int("held-out images per face kind", ge=1, le=MAX_TABLE)
    # 07's models and 10 §8's ViTs -> face kind -> share called "face"
    face_rates: dict[str, dict[str, Share]]
    # 08's model -> [10,000] read right, from the record
    affine_right: dict[Affine08, Tensor("which digits it reads right [10,000]", ndim=1)]
    affine: dict[Affine08, Share]  # 08's model -> accuracy on all 10,000 affNIST-style digits
    seconds_per_1000: dict[Affine08, Seconds]  # 08's model -> seconds to read 1,000 digits here
    macs: dict[str, MACs]  # the paper's CapsNet: multiply-adds per image, by layer
    total: MACs  # ... and in all

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), accuracies of other models than those
        read, or a total other than the layers' sum."""
        super().__post_init__()
        check_same("Measured", "models", "pass an accuracy per model read", affine_right=sorted(
            self.affine_right), affine=sorted(self.affine))
        check_same("Measured", "multiply-adds", "pass the sum of the layers' as the total",
                   total=self.total, macs_summed=sum(self.macs.values()))
        check_derived("Measured", "pass the share of its digits each model reads right", **{
            f"affine[{name!r}]": (self.affine[name], right.float().mean().item(),
                                  f"the share of affine_right[{name!r}] read right")
            for name, right in self.affine_right.items()})


@dataclass(frozen=True)
class PredictTimes(CheckedRecord):
    """How long ``predict`` took on each model (``time_predict``), keyed by model name."""

    seconds_per_image: dict[str, Seconds]  # the median over the timed runs, per image
    images: Int("how many images each run scored", ge=1)
    repeats: Int("the timed runs of each model", ge=1, le=MAX_REPEATS)


@checked(reads=("models", "images"))
def time_predict(models: Classifiers,
                 images: Tensor("images [N, C, H, W], pixels in [0, 1]", ndim=4, pixels=True),
                 repeats: Int("timed runs of each model", ge=1, le=MAX_REPEATS) = 3
                 ) -> PredictTimes:
    """The median seconds per image that ``predict`` takes on ``images``, for each of ``models``
    (name -> model). A first call of each is not timed (memory and kernels get set up); the
    models take turns within every round, so that load from other processes hits all of them
    alike and the ratios between them stay fair."""
    for model in models.values():
        predict(model, images[:64])
    times = {name: [] for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            start = time.perf_counter()
            predict(model, images)
            times[name].append(time.perf_counter() - start)
    return PredictTimes({name: float(np.median(seconds)) / len(images)
                         for name, seconds in times.items()}, len(images), repeats)


@checked
def measure(images: transformed_mnist.SomeDigits,
            n_table: Int("held-out images per face kind", ge=1, le=MAX_TABLE)) -> Measured:
    """What the table measures here: seed 0's face models (07's and 10 §8's ViTs) on ``n_table``
    held-out images per face kind; 08's models on all 10,000 affNIST-style test digits, from
    ``full_sets``' record, and timed here on the first ``TIMED`` of the MNIST test ``images``
    [N, 1, 28, 28] turned, sheared and scaled; and the paper's CapsNet's multiply-adds per
    layer."""
    # 07: scrambled faces (right parts, wrong places); face rate = share called "face"
    face_models = {**load_face_models([0], names=FACE_NAMES),
                   **patch_order.load_models([0], VIT_NAMES)}
    rates = {name: face_rates(trained[0], ["face", *faces.SCRAMBLED_KINDS], n_table)
             for name, trained in face_models.items()}
    # 08: trained on translated digits, tested on affNIST-style digits (turned, sheared, scaled):
    # which of all 10,000 each model reads right, as recorded (a paired comparison needs them)
    recorded = full_sets.read_results()
    right = {name: full_sets.read_right("affnist-style", name, results=recorded)
             for name in AFFINE_NAMES}
    # the median time to score TIMED digits, the models taking turns; per 1,000 digits
    affine_digits, _ = transformed_mnist.random_affine(images[:TIMED], seed=0)
    affine_models = {name: pretrained(name) for name in AFFINE_NAMES}
    timed = time_predict(affine_models, affine_digits)
    # 05: the paper's CapsNet, layer by layer
    layers = anatomy(CapsNet(PAPER))
    return Measured(n_table, rates, right,
                    {name: r.float().mean().item() for name, r in right.items()},
                    {name: 1000 * t for name, t in timed.seconds_per_image.items()},
                    {row.name: row.macs for row in layers}, sum(row.macs for row in layers))


Error = Float("a relative error: max |got - want| / max |want|", ge=0)


@dataclass(frozen=True)
class Findings(CheckedRecord):
    """What notebook 10's earlier sections found, for the table."""

    # §2: the face capsule's angle against the face's (face_fit.slope)
    face_slope: Float("degrees of the face capsule per degree of the face")
    length_45: Float("05's digit capsule at 45°: its mean length", ge=0, le=1)
    cosine_45: Float("... and its mean cosine with the upright capsule", ge=-1, le=1)
    max_pool_change: Error  # §1: the 2x2 max-pool's change after a 1 px shift
    gcnn_error: Error  # §3: the G-CNN's largest layer error after a quarter turn
    cnn_error: Error  # §3: the CNN's smallest
    readout_error: Degrees  # §2: the read-out's error within ±45°
    readout_baseline: Degrees  # ... and a guess's without the capsule
    gcnn_turned: Share  # §4: accuracy on randomly turned digits, mean over seeds
    cnn_turned: Share
    n_seeds: Int("how many seeds §4 trained", ge=1)
    turned_verdict: Text  # §4: G-CNN against CNN over seeds (statistics.leader)


@dataclass(frozen=True)
class Records(CheckedRecord):
    """What the table quotes from the course's records rather than measuring it here."""

    grid: Grid  # 09's routing ablations (ablations.read_results)
    zoo: Zoo  # 09's bug zoo, every run to the rule (bug_zoo.read_results)
    # 08's recipes over training seeds (seed_runs.read_results)
    seeds: dict[str, Record(SeedRun, "seed_runs.read_results()")]
    # benchmarks/routing_cost.py on a GPU (routing_costs.recorded_cost)
    gpu: Record(RecordedCost, "routing_costs.recorded_cost()")
    adversarial: adversarial_record.Results  # 11's recorded attacks, by unit


def read_records() -> Records:
    """The shipped records the table quotes."""
    return Records(ablations.read_results(), bug_zoo.read_results(), seed_runs.read_results(),
                   recorded_cost(), adversarial_record.read_results())


@dataclass(frozen=True)
class Affine(CheckedRecord):
    """08's affNIST-style comparisons as the table quotes them: the CapsNet against ``other``
    (the CNN, or the CapsNet trained with 1 iteration), over seeds and for the shipped pair."""

    # other -> CapsNet minus other over training seeds
    over_seeds: dict[Other, Record(SeedDifference)]
    means: dict[Affine08, Record(OverSeeds)]  # recipe -> its accuracy over training seeds, %
    shipped: dict[Other, Record(Paired)]  # other -> the shipped CapsNet minus other, image by image
    unfinished: list[Affine08]  # the shipped runs still improving (their verdict is not final)
    n_seeds: Int("the training seeds compared", ge=2)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or means over other seeds than
        ``n_seeds``."""
        super().__post_init__()
        for name, mean in self.means.items():
            check_same("Affine", "seeds", "pass the means over the seeds compared",
                       n_seeds=self.n_seeds, **{f"means[{name!r}].n": mean.n})
        capsnet = self.means.get("affnist-capsnet")  # over_seeds: the CapsNet minus each other
        for other, over in self.over_seeds.items():
            if capsnet and other in self.means:
                check_derived("Affine", "make it with affine_comparisons(...)", **{
                    f"over_seeds[{other!r}].difference": (
                        over.difference, capsnet.mean - self.means[other].mean,
                        f"means['affnist-capsnet'].mean - means[{other!r}].mean")})


@checked
def affine_comparisons(measured: Measured, manifest: dict[str, Record(ManifestRow)],
                       records: Records) -> Affine:
    """08's comparisons as 08 makes them: over training seeds (``seed_runs``' record, all 10,000
    digits; paired by seed for the same network, Welch's test for two architectures) and for the
    shipped pair (paired image by image), with the shipped runs that were still improving."""
    right = {seed: {name: seed_runs.read_right(records.seeds, "affnist-style", name, seed)
                    for name in AFFINE_NAMES} for seed in seed_runs.SEEDS}
    over = {other: seed_verdict(right, "affnist-capsnet", other,
                                by_seed=other != "affnist-cnn").over_seeds for other in OTHERS}
    means = {name: over_seeds([100 * right[seed][name].float().mean().item() for seed in right])
             for name in AFFINE_NAMES}
    shipped = {other: paired(measured.affine_right["affnist-capsnet"],
                             measured.affine_right[other]) for other in OTHERS}
    unfinished = still_improving({name: manifest[name] for name in AFFINE_NAMES})
    return Affine(over, means, shipped, list(unfinished), len(right))


@dataclass(frozen=True)
class RoutingComparisons(CheckedRecord):
    """09's routing comparisons as 09 prints them: MNIST test error over its seeds."""

    one: Record(OverSeeds)  # 1 iteration's test error, %, over 09's seeds
    three: Record(OverSeeds)  # 3 iterations'
    # reconstruction weight -> 3 iterations minus 1
    by_weight: dict[Float("a reconstruction weight", ge=0), Record(SeedDifference)]
    # of all 09's one-change comparisons, how many were told apart
    crossed: Int("comparisons told apart", ge=0)
    compared: Int("comparisons made", ge=0)  # how many there are
    chance: Float("comparisons chance alone would tell apart", ge=0)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or more told apart than compared."""
        super().__post_init__()
        check_order("RoutingComparisons", "count among the comparisons made",
                    crossed=self.crossed, compared=self.compared)
        check_order("RoutingComparisons", "count among the comparisons made",
                    chance=self.chance, compared=self.compared)
        for level in {d.level for d in self.by_weight.values()}:  # those of every comparison
            check_derived("RoutingComparisons", "make it with routing_comparisons(grid)", chance=(
                self.chance, self.compared * (1 - level), f"compared x (1 - {level:g})"))


@checked
def routing_comparisons(grid: Grid) -> RoutingComparisons:
    """3 iterations' error minus 1's in 09's ``grid`` (``ablations.read_results``), seed by seed,
    with and without the reconstruction loss, among all of 09's one-change comparisons."""
    e1, e3 = (over_seeds(seed_errors(grid, Cell(it, 0.0005)))
              for it in (1, 3))
    comparisons = one_change_comparisons(grid)
    routing = {weight: comparisons.between(Cell(3, weight), Cell(1, weight)) for weight in WEIGHTS}
    every = [c.difference for c in comparisons.every()]
    return RoutingComparisons(e1, e3, routing, sum(c.clear for c in every), len(every),
                              len(every) * (1 - every[0].level))


@dataclass(frozen=True)
class BugComparisons(CheckedRecord):
    """09's bug zoo: each bug against the correct run, paired, beside 09's seed noise."""

    effects: dict[str, Record(BugEffect)]  # bug -> its effect (bug_zoo.bug_effects)
    hidden: list[Name]  # the bugs the test accuracy does not reveal
    correct_accuracy: Share  # the correct run's test accuracy
    epochs: Int("the epochs the correct run trained", ge=1, le=MAX_EPOCHS)
    finished: Flag("whether every run met the course's stopping rule")

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a hidden bug with no effect."""
        super().__post_init__()
        unknown = [bug for bug in self.hidden if bug not in self.effects]
        if unknown:
            raise ValueError(f"BugComparisons(): hidden must name bugs of effects "
                             f"({', '.join(self.effects)}), got {unknown}; pass the bugs "
                             "among effects that the test accuracy does not reveal")


@checked
def bug_comparisons(zoo: Zoo, grid: Grid) -> BugComparisons:
    """Each bug of 09's ``zoo`` against the correct run, beside the seed noise of ``grid``."""
    effects = bug_effects(zoo, seed_noise(grid, bug_zoo.CELL))
    hidden = [name for name, effect in effects.items() if not effect.revealed]
    return BugComparisons(effects, hidden, zoo[CORRECT].test_accuracy,
                          len(zoo[CORRECT].validation_by_epoch),
                          all(effect.finished for effect in effects.values()))


@dataclass(frozen=True)
class AdversarialComparisons(CheckedRecord):
    """11's recorded attacks as 11 prints them: PGD with the same budget for every model and the
    strongest of its losses per digit, on ``n`` test digits; accuracies and the detector at
    ``eps``, the paired comparisons at every recorded eps."""

    eps: Eps
    n: Int("test digits attacked", ge=1)
    accuracy: dict[str, Share]  # model -> robust accuracy at eps
    largest_eps: Eps
    at_largest: dict[str, Share]  # model -> robust accuracy at the largest recorded eps
    # eps -> the CapsNet minus the CNN, on the same digits
    versus_cnn: dict[Eps, Record(Paired)]
    routing: dict[Eps, Record(Paired)]  # eps -> 3 routing iterations minus 1
    sound: Flag("every model passed 11's checks against masked gradients")
    false_alarms: Share  # clean test digits the reconstruction detector flags
    plain: Record(Detection)  # the detector against PGD that ignores it, at eps
    # against the attacker who also lowers the distance (its best weight)
    adaptive: Record(Detection)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an eps past the largest, or
        accuracies of other models at the two."""
        super().__post_init__()
        check_order("AdversarialComparisons", "pass the largest recorded eps as largest_eps",
                    eps=self.eps, largest_eps=self.largest_eps)
        check_same("AdversarialComparisons", "models", "pass an accuracy per model at both",
                   accuracy=sorted(self.accuracy), at_largest=sorted(self.at_largest))
        for name, other in (("versus_cnn", CNN), ("routing", CAPSNET_1ITER)):
            pairs = getattr(self, name)  # the CapsNet minus other, on the n digits attacked
            check_same("AdversarialComparisons", "test digits", "pass comparisons of the n "
                       "digits attacked", n=self.n, **{f"{name}[{e}].n": p.n
                                                       for e, p in pairs.items()})
            for e, shares in ((self.eps, "accuracy"), (self.largest_eps, "at_largest")):
                at = getattr(self, shares)
                if e in pairs and CAPSNET in at and other in at:
                    check_derived("AdversarialComparisons", "make it with "
                                  "adversarial_comparisons(results)", **{
                                      f"{name}[{e}].difference": (pairs[e].difference, at[
                                          CAPSNET] - at[other], f"{shares}[{CAPSNET!r}] - "
                                          f"{shares}[{other!r}]")})


@checked
def adversarial_comparisons(results: adversarial_record.Results,
                            eps: Eps = 0.1) -> AdversarialComparisons:
    """11's comparisons at ``eps`` from its record ``results`` (``adversarial_record``)."""
    if eps not in EPS:  # refused here, in the words of the entry called
        raise ValueError(f"adversarial_comparisons(): eps must be one the run recorded, "
                         f"{', '.join(map(str, EPS))}, got {eps}; pass one of those")
    # every model under PGD at every recorded eps, read once: eps -> model -> Attacked
    every = {e: {name: adversarial_record.read_attacked(results, name, "pgd", e)
                 for name in MODELS} for e in EPS}
    at = {name: adversarial_record.read_attacked(results, name, "pgd", eps) for name in MODELS}
    largest = {name: a.accuracy for name, a in every[max(EPS)].items()}
    sound = all(adversarial_record.sanity(results, name, eps).passed for name in MODELS)
    plain = adversarial_record.read_detection(results, eps)
    adaptive = max((adversarial_record.read_detection(results, eps, weight)
                    for weight in ADAPTIVE_WEIGHTS), key=lambda d: d.evaded)
    versus_cnn = {e: paired(a[CAPSNET].right, a[CNN].right) for e, a in every.items()}
    routing = {e: paired(a[CAPSNET].right, a[CAPSNET_1ITER].right) for e, a in every.items()}
    return AdversarialComparisons(eps, len(at[CNN].right), {n: a.accuracy for n, a in at.items()},
                                  max(EPS), largest, versus_cnn, routing, sound,
                                  plain.false_alarms, plain, adaptive)

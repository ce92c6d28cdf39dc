"""The seed's comparison table of notebook 10 §7, measured.

``measure`` measures what the table needs that earlier notebooks measured (07's face rates, 08's
timings, 05's multiply-adds) and reads what they recorded (08's affNIST-style readings of all
10,000 test digits, ``full_sets``); ``measured_lines`` says it; ``rows`` builds one row per claim
of the seed from those measurements, notebook 10's own ``Findings`` and 09's recorded runs, with
09's comparisons as 09 prints them (the same intervals, and how many of its comparisons crossed the
line beside how many chance alone would give); ``markdown`` renders the rows as a Markdown table.
"""

from dataclasses import dataclass
from typing import NamedTuple

import torch

from . import full_sets, seed_runs
from .ablations import WEIGHTS, one_change_comparisons, seed_errors, seed_noise
from .ablations import read_results as read_ablations
from .bug_zoo import CELL as ZOO_CELL
from .bug_zoo import CORRECT, ZooRun, bug_effects
from .bug_zoo import read_results as read_zoo
from .capsnet import PAPER, CapsNet
from .checkpoints import pretrained
from .convergence import still_improving
from .costs import RecordedCost, anatomy, recorded_cost, recorded_cost_line
from .data import faces
from .data import transformed_mnist as tm
from .loop import time_predict
from .parts.scoring import face_rates
from .parts.training import load_face_models
from .robustness import seed_verdict
from .statistics import leader, over_seeds, paired
from .validate import check_shape

FACE_NAMES = ("bag-of-parts CNN", "deep CNN", "pixel CapsNet", "pose capsules")
AFFINE_NAMES = ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn")
ROUTING = "DigitCaps: routing x3"  # the routing's row in costs.anatomy
COLUMNS = ("", "the seed says", "this course measured", "verdict")


TIMED = 200  # digits each of 08's models reads for its time


@dataclass(frozen=True)
class Measured:
    """What ``measure`` measures here for the table."""

    n_table: int  # held-out images per face kind
    face_rates: dict[str, dict[str, float]]  # 07's model -> face kind -> share called "face"
    affine_right: dict[str, torch.Tensor]  # 08's model -> [10,000] read right, from the record
    affine: dict[str, float]  # 08's model -> accuracy on all 10,000 affNIST-style digits (0..1)
    seconds_per_1000: dict[str, float]  # 08's model -> seconds to read 1,000 digits here
    macs: dict[str, int]  # the paper's CapsNet: multiply-adds per image, by layer
    total: int  # ... and in all


def measure(images: torch.Tensor, n_table: int) -> Measured:
    """What the table measures here: seed 0's face models on ``n_table`` held-out images per
    face kind; 08's models on all 10,000 affNIST-style test digits, from ``full_sets``' record,
    and timed here on the first ``TIMED`` of the MNIST test ``images`` [N, 1, 28, 28] turned,
    sheared and scaled; and the paper's CapsNet's multiply-adds per layer."""
    check_shape(images, "images", "[N, 1, 28, 28]", ndim=4)
    # 07: scrambled faces (right parts, wrong places); face rate = share called "face"
    face_models = load_face_models([0], names=FACE_NAMES)
    rates = {name: face_rates(trained[0], ["face", *faces.SCRAMBLED_KINDS], n_table)
             for name, trained in face_models.items()}
    # 08: trained on translated digits, tested on affNIST-style digits (turned, sheared, scaled):
    # which of all 10,000 each model reads right, as recorded (a paired comparison needs them)
    right = {name: full_sets.read_right("affnist-style", name) for name in AFFINE_NAMES}
    # the median time to score TIMED digits, the models taking turns; per 1,000 digits
    affine_digits, _ = tm.random_affine(images[:TIMED], seed=0)
    affine_models = {name: pretrained(name) for name in AFFINE_NAMES}
    seconds = time_predict(affine_models, affine_digits)
    # 05: the paper's CapsNet, layer by layer
    layers = anatomy(CapsNet(PAPER))
    return Measured(n_table, rates, right,
                    {name: r.float().mean().item() for name, r in right.items()},
                    {name: 1000 * t for name, t in seconds.items()},
                    {row.name: row.macs for row in layers}, sum(row.macs for row in layers))


def measured_lines(measured: Measured) -> list[str]:
    """What ``measure`` found, one printed line each."""
    lines = [f"face rates of seed 0's models, {measured.n_table} images per kind (07 measures "
             "3 seeds, 400 each):"]
    lines += [f"  {name:>16}: " + ", ".join(f"{kind} {rate:.2f}" for kind, rate in rates.items())
              for name, rates in measured.face_rates.items()]
    lines.append("affNIST-style, all 10,000 test digits (08's record), and the time to read them "
                 "here:")
    lines += [f"  {name:>21}: {100 * share:.2f} %, "
              f"{measured.seconds_per_1000[name]:.1f} s per 1,000 digits"
              for name, share in measured.affine.items()]
    lines.append(f"the paper's CapsNet: {measured.total / 1e6:.1f} M multiply-adds per image, "
                 f"routing {100 * measured.macs[ROUTING] / measured.total:.1f} % of them")
    return lines


@dataclass
class Findings:
    """What notebook 10's earlier sections found, for the table."""

    face_slope: float  # §2: the face capsule's angle against the face's (face_fit["slope"])
    length_45: float  # 05's digit capsule at 45°: mean length
    cosine_45: float  # ... and mean cosine with the upright capsule
    max_pool_change: float  # §1: the 2x2 max-pool's change after a 1 px shift
    gcnn_error: float  # §3: the G-CNN's largest layer error after a quarter turn
    cnn_error: float  # §3: the CNN's smallest
    readout_error: float  # §2: the read-out's error within ±45° (degrees)
    readout_baseline: float  # ... and a guess's without the capsule
    gcnn_turned: float  # §4: accuracy on randomly turned digits, mean over seeds (0..1)
    cnn_turned: float
    n_seeds: int  # how many seeds §4 trained
    turned_verdict: str  # §4: G-CNN against CNN over seeds (statistics.leader)


def pct(p: float) -> str:
    """A share 0..1 as a percentage with one decimal."""
    return f"{100 * p:.1f} %"


@dataclass(frozen=True)
class Records:
    """What the table quotes from the course's records rather than measuring it here."""

    grid: dict  # 09's routing ablations (ablations.read_results)
    zoo: dict[str, ZooRun]  # 09's bug zoo, every run to the rule (bug_zoo.read_results)
    seeds: dict  # 08's recipes over training seeds (seed_runs.read_results)
    gpu: RecordedCost  # benchmarks/routing_cost.py on a GPU (costs.recorded_cost)


def read_records() -> Records:
    """The shipped records the table quotes."""
    return Records(read_ablations(), read_zoo(), seed_runs.read_results(), recorded_cost())


class Row(NamedTuple):
    """One claim of the seed, and what the course measured of it."""

    claim: str
    says: str  # the seed's claim, in our words
    measured: str
    verdict: str


class Affine(NamedTuple):
    """08's affNIST-style comparisons as the table quotes them: the CapsNet against ``other``
    (the CNN, or the CapsNet trained with 1 iteration), over seeds and for the shipped pair."""

    over_seeds: dict[str, str]  # other -> the verdict over training seeds (statistics.leader)
    means: dict[str, str]  # recipe -> "mean ± half-width %" over training seeds
    shipped: dict[str, str]  # other -> the shipped pair's verdict, image by image
    not_final: str  # "" or why the shipped pair's verdict is not final
    n_seeds: int


def affine_comparisons(measured: Measured, manifest: dict, records: Records) -> Affine:
    """08's comparisons as 08 prints them: over training seeds (``seed_runs``' record, all
    10,000 digits; paired by seed for the same network, Welch's test for two architectures) and
    for the shipped pair (paired image by image; "not final" where a run was still improving)."""
    right = {seed: {name: seed_runs.read_right(records.seeds, "affnist-style", name, seed)
                    for name in AFFINE_NAMES} for seed in seed_runs.SEEDS}
    sides = {"affnist-cnn": ("CapsNet", "CNN"), "affnist-capsnet-1iter": ("3", "1")}
    over = {other: leader(seed_verdict(right, "affnist-capsnet", other,
                                       by_seed=other != "affnist-cnn").over_seeds, *names)
            for other, names in sides.items()}
    means = {}
    for name in AFFINE_NAMES:
        o = over_seeds([100 * right[seed][name].float().mean().item() for seed in right])
        means[name] = f"{o.mean:.2f} ± {o.half_width:.2f} %"
    shipped = {other: leader(paired(measured.affine_right["affnist-capsnet"],
                                    measured.affine_right[other]), *names)
               for other, names in sides.items()}
    unfinished = still_improving({name: manifest[name] for name in AFFINE_NAMES})
    not_final = f" (not final: {', '.join(unfinished)} still improving)" if unfinished else ""
    return Affine(over, means, shipped, not_final, len(right))


def unit_row(found: Findings) -> Row:
    measured = ("02: a pose capsule rescaled to lengths 1.0, 0.6 and 0.2 decodes to one pose (to "
                "1e-6); 06: single dimensions redraw a digit's stroke, slant and size (its Fig. 4 "
                f"grid); §2: the face capsule's angle follows the face, slope "
                f"{found.face_slope:.2f}; 05's digit capsule at 45°: length "
                f"{found.length_45:.2f}, cosine {found.cosine_45:.2f} with upright")
    verdict = ("holds for capsules built to carry pose (07); "
               + ("05's CapsNet, trained upright, loses its capsule at 45°"
                  if found.length_45 < 0.5 else "05's capsule stays long at 45°"))
    return Row("basic unit", "a neuron outputs a scalar; a capsule a vector: length = "
               "probability, direction = pose", measured, verdict)


def pool_row(found: Findings) -> Row:
    measured = ("01: a global max-pool gives one vector for eye above mouth and mouth above eye; "
                f"§1: global max-pool change 0, 2x2 max-pool change {found.max_pool_change:.2f} "
                "after 1 px")
    return Row("pooling vs routing", "max-pooling throws away where things are; routing keeps it",
               measured, "pooling loses where; whether a network is fooled depends on its "
               "features (01, 07)")


def part_whole_row(measured: Measured) -> Row:
    fooled = {name: [k for k in faces.SCRAMBLED_KINDS if r[k] > 0.5]
              for name, r in measured.face_rates.items()}
    text = "07 (seed 0, here): fooled (face rate > 0.5) by " + "; ".join(
        f"{name}: {', '.join(kinds) or 'none'}" for name, kinds in fooled.items())
    verdict = "; ".join([
        "pose capsules reject every scramble" if not fooled["pose capsules"]
        else "even pose capsules are fooled",
        "so does a deep CNN" if not fooled["deep CNN"] else "a deep CNN is fooled",
        "the paper-style pixel CapsNet is fooled" if fooled["pixel CapsNet"]
        else "so does the pixel CapsNet"])
    return Row("part-whole", "a CNN sees a bag of parts; capsules check that the parts agree on "
               "a whole", text, verdict)


def viewpoint_row(measured: Measured, found: Findings, affine: Affine) -> Row:
    text = (f"08 (all 10,000 digits): affNIST-style over {affine.n_seeds} training seeds each, "
            f"CapsNet {affine.means['affnist-capsnet']}, CNN {affine.means['affnist-cnn']} (the "
            f"shipped pair: {pct(measured.affine['affnist-capsnet'])} and "
            f"{pct(measured.affine['affnist-cnn'])}); §4: randomly turned, G-CNN "
            f"{pct(found.gcnn_turned)}, CNN {pct(found.cnn_turned)} (means of {found.n_seeds} "
            "seeds)")
    verdict = (f"affNIST-style: {affine.over_seeds['affnist-cnn']} over {affine.n_seeds} seeds "
               f"(the shipped pair: {affine.shipped['affnist-cnn']}{affine.not_final}); turned: "
               f"{found.turned_verdict} over seeds (built-in equivariance)")
    return Row("viewpoint", "a CNN must see every viewpoint; a CapsNet generalises (affNIST 79 % "
               "vs 66 %)", text, verdict)


def routing_row(affine: Affine, grid: dict) -> Row:
    """07's, 08's and 09's routing comparisons, 09's as 09 prints them: 3 iterations' error minus
    1's, seed by seed, with and without the reconstruction loss, among all of 09's one-change
    comparisons, with how many crossed the line beside chance."""
    e1, e3 = (over_seeds(seed_errors(grid, {"iterations": it, "recon_weight": 0.0005}))
              for it in (1, 3))
    groups = one_change_comparisons(grid)
    routing = {weight: groups[f"reconstruction weight {weight}"]["3 vs 1 iterations"]
               for weight in WEIGHTS}
    every = [c for group in groups.values() for c in group.values()]
    crossed, chance = sum(c.clear for c in every), len(every) * (1 - every[0].level)
    text = ("07 §6: pose capsules with uniform coupling give the verdicts of 3 iterations; "
            f"08 (all 10,000 digits, {affine.n_seeds} training seeds each): 1 iteration "
            f"{affine.means['affnist-capsnet-1iter']}, 3 iterations "
            f"{affine.means['affnist-capsnet']}; 09 (its shipped runs, {e1.n} seeds each, MNIST "
            "test error, ± the half-width of the 95 % t interval): 1 iteration "
            f"{e1.mean:.2f} ± {e1.half_width:.2f} %, 3 iterations {e3.mean:.2f} ± "
            f"{e3.half_width:.2f} %; 3 iterations minus 1, "
            + ", ".join(f"{'with' if weight else 'without'} reconstruction "
                        f"{c.difference:+.3f} points ({c.low:+.3f} to {c.high:+.3f})"
                        for weight, c in routing.items())
            + f"; {crossed} of 09's {len(every)} one-change comparisons told apart, chance "
            f"alone about {chance:.1f}")
    mnist = [f"{leader(c, '3', '1', lower_is_better=True)} "
             f"{'with' if weight else 'without'} reconstruction" for weight, c in routing.items()]
    verdict = (f"3 vs 1 iterations: affNIST-style {affine.over_seeds['affnist-capsnet-1iter']} "
               f"over {affine.n_seeds} seeds (the shipped pair: "
               f"{affine.shipped['affnist-capsnet-1iter']}{affine.not_final}); MNIST "
               + ", ".join(mnist) + f" (09's seeds; {crossed} of {len(every)} comparisons "
               f"crossed, about {chance:.1f} by chance alone)")
    return Row("routing", "routing by agreement is what makes capsules work", text, verdict)


def cost_row(measured: Measured, gpu: RecordedCost) -> Row:
    speed, total = measured.seconds_per_1000, measured.total
    text = (f"05 (here): the paper's CapsNet, {total / 1e6:.0f} M multiply-adds per image, "
            f"routing {100 * measured.macs[ROUTING] / total:.1f} % of them; 08's pair (equal "
            f"sizes) scores 1,000 digits in {speed['affnist-capsnet']:.1f} s and "
            f"{speed['affnist-cnn']:.1f} s here; recorded {recorded_cost_line(gpu)}")
    verdict = (f"the CapsNet takes {speed['affnist-capsnet'] / speed['affnist-cnn']:.1f}x the "
               f"CNN's time here and {gpu.capsnet_step / gpu.cnn_step:.1f}x per training step "
               f"on {gpu.device}, where routing takes {100 * gpu.forward:.0f} % of the forward "
               f"time for {100 * gpu.macs:.1f} % of the multiply-adds; 09 times routing against "
               "its share of the multiply-adds")
    return Row("cost", "capsules are slow", text, verdict)


def maturity_row(zoo: dict[str, ZooRun], grid: dict) -> Row:
    """09's bug zoo: each bug against the correct run, paired, beside 09's seed noise."""
    effects = bug_effects(zoo, seed_noise(grid, ZOO_CELL))
    hidden = [name for name, effect in effects.items() if not effect.revealed]
    epochs = len(zoo[CORRECT].validation_by_epoch)
    text = (f"09: {len(effects)} bugs that public CapsNets shipped, each trained beside the "
            f"correct model ({pct(zoo[CORRECT].test_accuracy)}, {epochs} epoch(s)): "
            + ", ".join(f"{name} {100 * effect.paired.difference:+.2f} points "
                        f"({effect.paired.verdict})" for name, effect in effects.items()))
    unfinished = not all(effect.finished for effect in effects.values())
    verdict = (f"{'as the seed says' if hidden else 'against the seed'}: the test accuracy "
               f"does not reveal {len(hidden)} of the {len(effects)} bugs"
               + (f" ({', '.join(hidden)}: not told apart, or within the seed noise)"
                  if hidden else "")
               + ("; after training stopped short of the course's rule, not at the end"
                  if unfinished else ""))
    return Row("maturity", "CNNs are mature; capsules are a research idea", text, verdict)


def equivariance_row(found: Findings) -> Row:
    text = (f"§3: the G-CNN's layers are off by {found.gcnn_error:.0e} after a quarter turn, the "
            f"CNN's by {found.cnn_error:.1f} or more; §2: a read-out finds a turned digit's angle "
            f"in 05's capsule within {found.readout_error:.0f}° (within ±45°; a guess without "
            f"it: {found.readout_baseline:.0f}°)")
    verdict = ("exact when built into the layer; when left to training, the capsule changes with "
               "a turn in a way a read-out can decode only coarsely"
               if found.readout_error < found.readout_baseline
               else "exact when built into the layer; absent when left to training")
    return Row("equivariance", "capsules are equivariant; CNNs are invariant", text, verdict)


def rows(measured: Measured, found: Findings, manifest: dict, records: Records) -> list[Row]:
    """One row per claim of the seed, from ``measure``'s ``measured``, notebook 10's ``found``,
    the checkpoints' ``manifest`` (which says whether 08's runs were still improving) and the
    course's ``records`` (``read_records``)."""
    affine = affine_comparisons(measured, manifest, records)
    return [unit_row(found), pool_row(found), part_whole_row(measured),
            viewpoint_row(measured, found, affine), routing_row(affine, records.grid),
            cost_row(measured, records.gpu), maturity_row(records.zoo, records.grid),
            equivariance_row(found)]


def markdown(table_rows) -> str:
    """The rows as a Markdown table under ``COLUMNS``, the claim in bold; a cell holding a pipe
    would split its row, so it is refused."""
    for row in table_rows:
        if len(row) != len(COLUMNS):
            raise ValueError(f"table_rows: each row needs {len(COLUMNS)} cells, got {row!r}")
        if any("|" in cell for cell in row):
            raise ValueError(f"table_rows: a cell holds a pipe '|', which splits the row: {row!r}")
    table = "| | the seed says | this course measured | verdict |\n|---|---|---|---|\n"
    return table + "\n".join(f"| **{a}** | {b} | {c} | {d} |" for a, b, c, d in table_rows)

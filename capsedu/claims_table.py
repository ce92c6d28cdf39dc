"""The seed's comparison table of notebook 10 §7, written out: what ``seed_table.measure`` found,
one line each (``measured_lines``), one row per claim of the seed from ``seed_table``'s records and
notebook 10's ``Findings`` (``rows``), and the Markdown table (``markdown``)."""

from typing import Annotated, NamedTuple

from .cost_tables import recorded_cost_line
from .course_settings import Text
from .data import faces
from .manifest_rows import ManifestRow
from .routing_costs import RecordedCost
from .seed_table import (
    FACE_NAMES,
    OTHERS,
    ROUTING,
    VIT_NAMES,
    AdversarialComparisons,
    Affine,
    BugComparisons,
    Findings,
    Measured,
    Records,
    RoutingComparisons,
    adversarial_comparisons,
    affine_comparisons,
    bug_comparisons,
    routing_comparisons,
)
from .statistics import OverSeeds, leader
from .units import InPercent
from .validate import Choice, Float, Record, Some, Spec, check_value, checked

COLUMNS = ("", "the seed says", "this course measured", "verdict")
SIDES = dict(zip(OTHERS, (("CapsNet", "CNN"), ("3", "1")), strict=True))  # leader's two names


@checked
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


@checked
def pct(p: Float("a share from 0 to 1", ge=0, le=1)) -> str:
    """A share 0..1 as a percentage with one decimal (a share of -0.0 is 0.0 %, without a sign)."""
    return f"{abs(100 * p):.1f} %"


class _RowCells(NamedTuple):
    claim: str
    says: str  # the seed's claim, in our words
    measured: str
    verdict: str


class Row(_RowCells):
    """One claim of the seed, and what the course measured of it: a tuple of its cells, as
    ``markdown`` takes any row (a learner's own too), each a text, checked when it is made."""

    __slots__ = ()

    @checked
    def __new__(cls, claim: Text, says: Text, measured: Text, verdict: Text):
        return super().__new__(cls, claim, says, measured, verdict)


@checked
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


@checked
def pool_row(found: Findings) -> Row:
    measured = ("01: a global max-pool gives one vector for eye above mouth and mouth above eye; "
                f"§1: global max-pool change 0, 2x2 max-pool change {found.max_pool_change:.2f} "
                "after 1 px")
    return Row("pooling vs routing", "max-pooling throws away where things are; routing keeps it",
               measured, "pooling loses where; whether a network is fooled depends on its "
               "features (01, 07)")


def _fooled(measured: Measured, names) -> dict[str, list[str]]:
    """The scrambled kinds each of ``names`` calls a face more often than not."""
    return {name: [k for k in faces.SCRAMBLED_KINDS if measured.face_rates[name][k] > 0.5]
            for name in names}


@checked
def part_whole_row(measured: Measured) -> Row:
    fooled = _fooled(measured, FACE_NAMES)
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


@checked
def position_row(measured: Measured) -> Row:
    """10 §8's ViTs, seed 0, on the table's held-out faces: which scrambles each calls a face,
    without and with position embeddings, beside the deep CNN and the pose capsules."""
    placed, bag = VIT_NAMES  # ("ViT", "ViT without positions")
    fooled = _fooled(measured, (bag, placed, "deep CNN", "pose capsules"))
    text = ("10 §8 (seed 0, here; 3 seeds there): fooled (face rate > 0.5) by " + "; ".join(
        f"{name}: {', '.join(kinds) or 'none'}" for name, kinds in fooled.items()))
    learned = [kind for kind in fooled[bag] if kind not in fooled[placed]]
    verdict = (f"position embeddings let the ViT reject {', '.join(learned) or 'no scramble'}"
               f" (without them it is a bag of patches); it is still fooled by "
               f"{', '.join(fooled[placed]) or 'none'}; "
               + ("only the pose capsules reject every scramble" if not fooled["pose capsules"]
                  else "the pose capsules are fooled too"))
    return Row("position in a ViT", "transformers keep where a patch was in a position embedding",
               text, verdict)


@checked
def mean_line(o: OverSeeds) -> str:
    """A mean accuracy over training seeds with the half-width of its 95 % t interval, in %."""
    check_value("mean_line", "o.mean", Annotated[float, InPercent], o.mean)
    return f"{o.mean:.2f} ± {o.half_width:.2f} %"


@checked
def not_final(affine: Record(Affine)) -> str:
    """"" or why the shipped pair's verdict is not final (a run still improving)."""
    return (f" (not final: {', '.join(affine.unfinished)} still improving)"
            if affine.unfinished else "")


@checked
def affine_verdicts(affine: Record(Affine),
                    other: Choice("a model 08 compares its CapsNet with", *OTHERS)
                    ) -> tuple[str, str]:
    """The CapsNet against ``other`` in two words each: over training seeds, and the shipped
    pair image by image."""
    names = SIDES[other]
    return leader(affine.over_seeds[other], *names), leader(affine.shipped[other], *names)


@checked
def viewpoint_row(measured: Measured, found: Findings, affine: Record(Affine)) -> Row:
    text = (f"08 (all 10,000 digits): affNIST-style over {affine.n_seeds} training seeds each, "
            f"CapsNet {mean_line(affine.means['affnist-capsnet'])}, CNN "
            f"{mean_line(affine.means['affnist-cnn'])} (the shipped pair: "
            f"{pct(measured.affine['affnist-capsnet'])} and "
            f"{pct(measured.affine['affnist-cnn'])}); §4: randomly turned, G-CNN "
            f"{pct(found.gcnn_turned)}, CNN {pct(found.cnn_turned)} (means of {found.n_seeds} "
            "seeds)")
    over, shipped = affine_verdicts(affine, "affnist-cnn")
    verdict = (f"affNIST-style: {over} over {affine.n_seeds} seeds (the shipped pair: "
               f"{shipped}{not_final(affine)}); turned: {found.turned_verdict} over seeds "
               "(built-in equivariance)")
    return Row("viewpoint", "a CNN must see every viewpoint; a CapsNet generalises (affNIST 79 % "
               "vs 66 %)", text, verdict)


@checked
def routing_row(affine: Record(Affine), routing: Record(RoutingComparisons)) -> Row:
    """07's, 08's and 09's routing comparisons, 09's as 09 prints them: 3 iterations' error minus
    1's, seed by seed, with and without the reconstruction loss, among all of 09's one-change
    comparisons, with how many crossed the line beside chance."""
    e1, e3 = routing.one, routing.three
    text = ("07 §6: pose capsules with uniform coupling give the verdicts of 3 iterations; "
            f"08 (all 10,000 digits, {affine.n_seeds} training seeds each): 1 iteration "
            f"{mean_line(affine.means['affnist-capsnet-1iter'])}, 3 iterations "
            f"{mean_line(affine.means['affnist-capsnet'])}; 09 (its shipped runs, {e1.n} seeds "
            "each, MNIST test error, ± the half-width of the 95 % t interval): 1 iteration "
            f"{e1.mean:.2f} ± {e1.half_width:.2f} %, 3 iterations {e3.mean:.2f} ± "
            f"{e3.half_width:.2f} %; 3 iterations minus 1, "
            + ", ".join(f"{'with' if weight else 'without'} reconstruction "
                        f"{c.difference:+.3f} points ({c.low:+.3f} to {c.high:+.3f})"
                        for weight, c in routing.by_weight.items())
            + f"; {routing.crossed} of 09's {routing.compared} one-change comparisons told "
            f"apart, chance alone about {routing.chance:.1f}")
    mnist = [f"{leader(c, '3', '1', lower_is_better=True)} "
             f"{'with' if weight else 'without'} reconstruction"
             for weight, c in routing.by_weight.items()]
    over, shipped = affine_verdicts(affine, "affnist-capsnet-1iter")
    verdict = (f"3 vs 1 iterations: affNIST-style {over} over {affine.n_seeds} seeds (the "
               f"shipped pair: {shipped}{not_final(affine)}); MNIST " + ", ".join(mnist)
               + f" (09's seeds; {routing.crossed} of {routing.compared} comparisons crossed, "
               f"about {routing.chance:.1f} by chance alone)")
    return Row("routing", "routing by agreement is what makes capsules work", text, verdict)


@checked
def cost_row(measured: Measured, gpu: Record(RecordedCost)) -> Row:
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


@checked
def maturity_row(bugs: Record(BugComparisons)) -> Row:
    """09's bug zoo: each bug against the correct run, paired, beside 09's seed noise."""
    effects, hidden = bugs.effects, bugs.hidden
    text = (f"09: {len(effects)} bugs that public CapsNets shipped, each trained beside the "
            f"correct model ({pct(bugs.correct_accuracy)}, {bugs.epochs} epoch(s)): "
            + ", ".join(f"{name} {100 * effect.paired.difference:+.2f} points "
                        f"({effect.paired.verdict})" for name, effect in effects.items()))
    verdict = (f"{'as the seed says' if hidden else 'against the seed'}: the test accuracy "
               f"does not reveal {len(hidden)} of the {len(effects)} bugs"
               + (f" ({', '.join(hidden)}: not told apart, or within the seed noise)"
                  if hidden else "")
               + ("" if bugs.finished
                  else "; after training stopped short of the course's rule, not at the end"))
    return Row("maturity", "CNNs are mature; capsules are a research idea", text, verdict)


@checked
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


def _by_eps(comparisons: dict, first: str, second: str) -> str:
    """Paired comparisons by eps in a few words: who is ahead at each eps (``leader``)."""
    return ", ".join(f"{leader(c, first, second)} at eps {eps}" for eps, c in comparisons.items())


@checked
def adversarial_row(adversarial: Record(AdversarialComparisons)) -> Row:
    """11's recorded attacks: robust accuracy under equal budgets, the paired comparisons, the
    checks against masked gradients, and the reconstruction detector against a plain attacker
    and one who knows about it."""
    a = adversarial
    read = ", ".join(f"{name} {pct(share)}" for name, share in a.accuracy.items())
    text = (f"11 (its record, {a.n} test digits, PGD at eps {a.eps}, 20 steps, the same budget "
            f"for every model, the strongest of 3 losses per digit): {read}; at eps "
            f"{a.largest_eps}: " + ", ".join(pct(s) for s in a.at_largest.values())
            + f"; checks against masked gradients {'passed' if a.sound else 'FAILED'}; the "
            f"reconstruction detector ({pct(a.false_alarms)} false alarms) flags "
            f"{pct(a.plain.detection_rate)} of the digits PGD fools; an attacker who also lowers "
            f"the distance wins {pct(a.adaptive.evaded)} of all digits undetected")
    verdict = (f"CapsNet vs CNN: {_by_eps(a.versus_cnn, 'CapsNet', 'CNN')}; 3 vs 1 iterations: "
               f"{_by_eps(a.routing, '3', '1')}; every model fooled on "
               + ("most" if max(a.at_largest.values()) < 0.5 else "many")
               + f" digits at eps {a.largest_eps}; with the detector, undetected wins "
               f"{pct(a.plain.evaded)} for a plain attacker, {pct(a.adaptive.evaded)} for one who "
               "knows it")
    return Row("adversarial examples", "capsules are harder to fool with adversarial examples",
               text, verdict)


@checked
def rows(measured: Measured, found: Findings, manifest: dict[str, Record(ManifestRow)],
         records: Records) -> list[Row]:
    """One row per claim of the seed, from ``measure``'s ``measured``, notebook 10's ``found``,
    the checkpoints' ``manifest`` (which says whether 08's runs were still improving) and the
    course's ``records`` (``read_records``)."""
    affine = affine_comparisons(measured, manifest, records)
    return [unit_row(found), pool_row(found), part_whole_row(measured), position_row(measured),
            viewpoint_row(measured, found, affine),
            routing_row(affine, routing_comparisons(records.grid)),
            cost_row(measured, records.gpu),
            maturity_row(bug_comparisons(records.zoo, records.grid)),
            equivariance_row(found), adversarial_row(adversarial_comparisons(records.adversarial))]


@checked
def markdown(table_rows: Annotated[list[tuple[str, ...]], Spec(
        "a list of rows, each a tuple of texts (claims_table.rows)", "list"), Some]) -> str:
    """The rows as a Markdown table under ``COLUMNS``, the claim in bold; a cell holding a pipe
    would split its row, so it is refused."""
    for row in table_rows:
        if len(row) != len(COLUMNS):
            raise ValueError(f"markdown(): table_rows must hold {len(COLUMNS)} cells in each row, "
                             f"got {row!r}; pass the rows claims_table.rows makes")
        if any("|" in cell for cell in row):
            raise ValueError(f"markdown(): table_rows must hold no pipe '|' in a cell (it splits "
                             f"the row), got {row!r}; write the cell without one")
    table = "| | the seed says | this course measured | verdict |\n|---|---|---|---|\n"
    return table + "\n".join(f"| **{a}** | {b} | {c} | {d} |" for a, b, c, d in table_rows)

"""The face models' scores as tables and sentences (notebooks 01 and 07): the face rates of
models side by side, which scrambles fool which model and how well a rule predicts it, the rates on
probe sets and by angle, and the accuracy of each model over its seeds.

Each function reads the records ``parts.scoring`` measures (``SeedRuns``, ``probe_rates``'s arrays,
``mean_face_rate_by_angle``'s curves) and only formats them: no model is run here.
"""

from typing import Annotated

import numpy as np
from pydantic import AfterValidator

from .capsnet import count_parameters
from .course_settings import Checked, Name
from .data import faces
from .parts.scoring import AngleCurves, Kinds, ProbeRates, SeedRuns
from .refusals import kind_of
from .statistics import over_seeds
from .validate import Distinct, Int, Record, Some, checked

# models side by side, name -> SeedRuns (measure_seeds), each named: every table's columns or lines
NamedRuns = Annotated[dict[Name, Record(SeedRuns)], Some]


def _scramble_kinds(kinds, name: str):
    """What a rule of ``rule_report`` names: scramble kinds of ``faces.SCRAMBLED_KINDS``."""
    if not isinstance(kinds, list | tuple) or not all(isinstance(k, str) for k in kinds):
        raise TypeError(f"{name} must be a list or a tuple of scramble kinds, got "
                        f"{kind_of(kinds)}; pass e.g. ('swapped', 'permuted')")
    unknown = sorted(set(kinds) - set(faces.SCRAMBLED_KINDS))
    if unknown:
        raise ValueError(f"{name} must name scramble kinds of {faces.SCRAMBLED_KINDS}, got "
                         f"{unknown}; name only scrambles")
    return kinds


# what each rule calls a face, rule -> scramble kinds (rule_report)
Rules = Annotated[dict[Name, Checked(_scramble_kinds, "scramble kinds of faces.SCRAMBLED_KINDS",
                                    "sequence")], Some]


def _check_measured(where: str, runs: dict, kinds) -> None:
    """Refuse a run of ``runs`` that holds no face rates of one of ``kinds``."""
    for name, run in runs.items():
        missing = [kind for kind in kinds if kind not in run.rates]
        if missing:
            raise ValueError(f"{where}(): runs[{name!r}] must hold face rates of {missing}, got "
                             f"the kinds {list(run.rates)}; measure them (measure_seeds(..., "
                             "kinds)) or ask for the kinds it holds")


@checked
def face_rate_table(runs: NamedRuns, kinds: Kinds = faces.KINDS,
                    width: Int("a column's characters", ge=8, le=200) = 20) -> str:
    """A table of face rates, one row per kind and one column per model (``runs``: name ->
    ``SeedRuns``), each "mean ± h" over seeds, h the half-width of its 95 % t interval (the mean
    alone for one seed), in columns ``width`` characters wide (the kinds' column 12, or wider for
    longer names)."""
    _check_measured("face_rate_table", runs, kinds)
    kind_width = max(12, max(len(kind) for kind in kinds) + 1)
    rows = [f"{'kind':<{kind_width}}" + "".join(f"{name:>{width}}" for name in runs)
            + "   (face rate over seeds: mean ± half-width of its 95 % t interval)"]
    for kind in kinds:
        # each cell: the mean right-aligned, then " ± " and the half-width (7 characters)
        cells = (f"{run.mean(kind):>{width - 7}.2f}"
                 + (f" ± {run.interval(kind).half_width:.2f}" if run.interval(kind) else " " * 7)
                 for run in runs.values())
        rows.append(f"{kind:<{kind_width}}" + "".join(cells))
    return "\n".join(rows)


@checked
def rule_report(runs: NamedRuns, rules: Rules) -> str:
    """For each model of ``runs`` (name -> ``SeedRuns``), the scrambles it is fooled by
    (``SeedRuns.fooled``) and, for each rule of ``rules`` (name -> the scramble kinds the rule
    calls a face), how many of the model's verdicts on ``faces.SCRAMBLED_KINDS`` it predicts."""
    _check_measured("rule_report", runs, faces.SCRAMBLED_KINDS)
    lines, n = [], len(faces.SCRAMBLED_KINDS)
    for name, run in runs.items():
        fooled = run.fooled()
        lines.append(f"{name} is fooled by: {', '.join(fooled) or 'no scramble'}")
        for rule, predicted in rules.items():
            right = sum((kind in fooled) == (kind in predicted) for kind in faces.SCRAMBLED_KINDS)
            lines.append(f"  {rule + ':':<17} predicts {right} of the {n} verdicts")
    return "\n".join(lines)


@checked
def probe_table(rates: ProbeRates,
                labels: Annotated[list[str] | tuple[str, ...], Distinct]) -> str:
    """One line per model (``rates``: name -> ``probe_rates`` array ``[seeds, sets]``): its face
    rate on every probe set, mean over seeds, each after the set's label of ``labels``."""
    lines = []
    for name, r in rates.items():  # [seeds, sets]
        if r.shape[1] != len(labels):
            raise ValueError(f"probe_table(): labels must hold one label per probe set of "
                             f"rates[{name!r}] (shape {r.shape}: [seeds, sets]), got "
                             f"{len(labels)}; pass the labels of the sets probe_rates measured")
        means = zip(labels, r.mean(axis=0), strict=True)
        lines.append(f"{name:>16}: " + "  ".join(f"{label} {m:.2f}" for label, m in means))
    return "\n".join(lines)



@checked
def format_accuracies(runs: NamedRuns) -> str:
    """One line per model (``runs``: name -> ``SeedRuns`` with the kinds ``face`` and
    ``nonface``): its parameters ("not recorded" for patch_order's rates, kept without models)
    and its faces-vs-non-faces accuracy over the seeds, mean ± its 95 % t interval's half-width."""
    _check_measured("format_accuracies", runs, ("face", "nonface"))
    lines = []
    for name, run in runs.items():
        accuracy = run.accuracy()  # [seeds]
        spread = (f" ± {over_seeds(accuracy).half_width:.3f} (95 % t interval over "
                  f"{len(accuracy)} seeds)" if len(accuracy) > 1 else " (one seed)")
        size = f"{count_parameters(run.models[0]):>9,} parameters" if run.models else \
            "parameters not recorded"
        lines.append(f"{name:>16}: {size}, faces vs non-faces accuracy {accuracy.mean():.3f}"
                     f"{spread}")
    return "\n".join(lines)


@checked
def format_fooled(runs: NamedRuns) -> str:
    """One line per model: the share of faces and turned faces it accepts, the scrambles that
    fool it (a mean face rate above 0.5) and its spread over seeds on the scrambles (the mean
    standard deviation of its face rate, ddof 1; 0 for one seed)."""
    _check_measured("format_fooled", runs, ("face", "rotated", *faces.SCRAMBLED_KINDS))
    lines = []
    for name, run in runs.items():
        fooled = run.fooled()
        spread = np.mean([run.interval(kind).sd if run.interval(kind) else 0.0
                          for kind in faces.SCRAMBLED_KINDS])
        lines.append(f"{name:>16} accepts {run.mean('face'):.0%} of faces, "
                     f"{run.mean('rotated'):.0%} of turned faces; is fooled (face rate > 0.5) "
                     f"by: {', '.join(fooled) or 'none':<26} spread over seeds on scrambles: "
                     f"{spread:.2f}")
    return "\n".join(lines)



def _ends_measured(curves: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Refuse a curve whose first or last bin, the two ``angle_table`` prints, is a NaN: no
    scene fell in it (``mean_face_rate_by_angle``), so it has no face rate to print."""
    for name, (_, rates) in curves.items():  # [2, bins]: centres, rates
        empty = [end for end, rate in (("first", rates[0]), ("last", rates[-1])) if np.isnan(rate)]
        if empty:
            raise ValueError(f"must hold a face rate in the first and last bins of each curve (the "
                             f"table prints them), got nan in the {' and '.join(empty)} bin of "
                             f"{name!r} (a bin no scene fell in); measure more scenes or use "
                             "wider bins")
    return curves


@checked
def angle_table(curves: Annotated[AngleCurves, AfterValidator(_ends_measured)]) -> str:
    """One line per model of ``curves`` (name -> ``(centres, rates)``, as
    ``mean_face_rate_by_angle`` returns them): its face rate in the first bin (nearest upright:
    within twice its centre, the bins starting at 0) and in the last (near upside down)."""
    return "\n".join(f"{name:>16}: face rate {rates[0]:.2f} within {2 * centres[0]:.0f}° "
                      f"of upright, {rates[-1]:.2f} near upside down"
                      for name, (centres, rates) in curves.items())

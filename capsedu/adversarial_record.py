"""What notebook 11 reads of the recorded run of ``capsedu.adversarial`` (``adversarial.json``):
the clean reading and the detector's thresholds (``read_clean``), each model's digits read right
after every attack (``read_attacked``, ``read_curve``: ``adversarial.Attacked``), the detector
against the plain and the adaptive attacker (``read_detection``), more steps and restarts
(``read_more_budget``), the checks that the evaluation is not fooled by masked gradients
(``sanity``), and how the run was made (``how_run``).

The record is read as its units by name, each a typed, frozen record of ``adversarial``
(``unit_type``: ``ModelsUnit``, ``CleanUnit``, ``AttackUnit``, ``AdaptiveUnit``, ``SanityUnit``).
It keeps, for each unit, the rows of the sample each model reads wrong; a reader turns
them back into ``[n]`` booleans, for ``statistics.paired`` between models on the same digits.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import torch
from pydantic import PlainValidator

from . import checkpoints, reconstruction_detector
from .adversarial import COMMAND, EPS, RESULTS, SANITY_IMAGES, Attacked, Right
from .adversarial_units import (
    BUDGET,
    CAPSNET,
    CAPSNET_1ITER,
    CAPSNETS,
    CNN,
    MAX_IMAGES,
    MODELS,
    AdaptiveUnit,
    AttackUnit,
    CleanUnit,
    Eps,
    IsoTime,
    Loss,
    ModelsUnit,
    RunSettings,
    SanityUnit,
    Trained,
    check_time_order,
)
from .attacks import ATTACKS, MAX_RESTARTS, MAX_STEPS
from .checks import check_same
from .course_settings import RunThreads, Text
from .refusals import declared_error, kind_of
from .statistics import Paired, paired
from .validate import (
    CheckedRecord,
    Choice,
    Float,
    Int,
    Record,
    Some,
    Spec,
    Tensor,
    check_value,
    checked,
)

Unit = ModelsUnit | CleanUnit | AttackUnit | AdaptiveUnit | SanityUnit  # a unit of the record


def _recorded(results):
    """Refuse anything but the record where it belongs: a dict of its units by name, at least
    one (an empty dict, or a unit of another kind, would fail deep inside, by another name)."""
    other = {} if not isinstance(results, dict) else {
        name: unit for name, unit in results.items() if not isinstance(unit, Unit)}
    if not isinstance(results, dict) or other:
        name, unit = next(iter(other.items()), (None, results))
        got = kind_of(results) if name is None else f"{name!r} -> {kind_of(unit)[:40]}"
        raise declared_error(TypeError, f"must be the record of {COMMAND}: unit name -> its "
                             f"record (a ModelsUnit, CleanUnit, AttackUnit, AdaptiveUnit or "
                             f"SanityUnit), got {got}; pass read_results()", "array")
    if not results:
        raise ValueError(f"must be the record of {COMMAND} (units by name), got an empty dict; "
                         f"pass read_results(), or, when that is empty too, record the run with "
                         f"{COMMAND} --replace-shipped")
    return results


# the record, as read_results reads it: at least one unit, each a unit's record
Results = Annotated[dict, PlainValidator(_recorded), Spec(
    f"the record of {COMMAND}: unit name -> its record, at least one", "record")]
MAX_LEFT = 0.02  # "falls to 0": at most this share of digits left read right at the largest eps


def _right(wrong: tuple[int, ...], n: int) -> torch.Tensor:
    """``[n]`` booleans back from a record's rows read wrong."""
    right = torch.ones(n, dtype=torch.bool)
    right[list(wrong)] = False
    return right


@checked
def unit_type(name: str) -> type:
    """The record of the unit ``name`` of the run (``adversarial.units``), by its first word: an
    attack's name (``ATTACKS``) for an ``AttackUnit``; a name no unit has is refused."""
    kinds = {"models": ModelsUnit, "clean": CleanUnit, "adaptive": AdaptiveUnit,
             "sanity": SanityUnit} | dict.fromkeys(ATTACKS, AttackUnit)
    first = name.split(",")[0]
    if first not in kinds:
        raise ValueError(f"unit_type(): name must name a unit of the run, its first word one of "
                         f"{', '.join(map(repr, kinds))}, got {name!r}; pass a name "
                         "adversarial.units(n) lists, e.g. 'pgd, affnist-capsnet, eps 0.1'")
    return kinds[first]


@checked
def read_results(path: str | Path | None = None) -> dict[str, Unit]:
    """The recorded units by name, each the record ``unit_type`` names (the shipped ones by
    default; a file not there refused: ``checkpoints.read_results``)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True), unit_type)


def _unit(results: dict, name: str, where: str) -> Unit:
    """The unit ``name`` of ``results``, in the words of ``where`` (the function the caller
    called). A setting in the name (``eps 0.07``, ``weight 1.0``) that no unit of its kind
    (``pgd``, ``adaptive``) recorded is refused as ``where``'s argument, naming the values
    recorded; a unit of recorded settings not there is one a stopped run has yet to do."""
    if name in results:
        return results[name]
    parts, others = name.split(", "), [other.split(", ") for other in results]
    for i, (setting, value) in enumerate(map(_setting, parts)):
        recorded = sorted({_setting(other[i])[1] for other in others if _kin(other, parts, i)})
        if value is not None and recorded and value not in recorded:
            raise ValueError(f"{where}(): {setting} must be one the run recorded, "
                             f"{', '.join(map(str, recorded))}, got {value}; pass one of those "
                             f"({RESULTS} holds no other)")
    raise KeyError(f"{where}(): results holds no record of {name!r} ({RESULTS}); record it with "
                   f"{COMMAND} --replace-shipped (a stopped run resumes where it stopped)")


def _setting(part: str) -> tuple[str, float | None]:
    """A part of a unit's name as a setting and its number (``"eps 0.1"``: eps, 0.1); None for a
    part that holds no number (``"pgd"``)."""
    setting, _, value = part.partition(" ")
    return setting, float(value) if value.replace(".", "", 1).isdigit() else None


def _kin(other: list[str], parts: list[str], i: int) -> bool:
    """Whether the unit named by ``other``'s parts is of ``parts``' kind (its first word) and
    records a number for the setting at ``i``."""
    return (len(other) == len(parts) and other[0] == parts[0]
            and _setting(other[i])[0] == _setting(parts[i])[0]
            and _setting(other[i])[1] is not None)


@checked
def read_models(results: Results) -> dict[str, Trained]:
    """The models of the record by name, refused when a shipped checkpoint is no longer the one
    attacked (as ``full_sets.read_right`` refuses a record of other weights)."""
    unit, manifest = _unit(results, "models", "read_models"), checkpoints.read_manifest()
    found = {CAPSNET: unit.capsnet, CAPSNET_1ITER: unit.capsnet_1iter, CNN: unit.cnn}
    for name, trained in found.items():
        if manifest[name].sha256 != trained.sha256:
            raise ValueError(f"the record attacked other weights than the shipped {name}; "
                             f"record it again with {COMMAND} --replace-shipped")
    return found


@checked
def same_as_record(live: Attacked, recorded: Attacked) -> int:
    """On how many of the live digits (the first of the recorded sample) ``live`` reads otherwise
    than the record does: 0 on the CPU the record was made on; another device's rounding can
    move a borderline digit. Refuses a ``recorded`` of another attack (model, source, attack, eps
    or losses) and a ``live`` of more digits than the record holds."""
    differ = [f"{field} {getattr(live, field)!r} vs {getattr(recorded, field)!r}"
              for field in ("model", "source", "attack", "eps", "losses")
              if getattr(live, field) != getattr(recorded, field)]
    if differ or len(live.right) > len(recorded.right):
        raise ValueError(f"same_as_record(): recorded must be the record of live's attack on at "
                         f"least live's {len(live.right)} digits, got {len(recorded.right)} digits"
                         f"{''.join(f'; {d}' for d in differ)}; pass the record of that attack "
                         "(adversarial_record's)")
    return int((live.right != recorded.right[:len(live.right)]).sum())


@dataclass(frozen=True)
class Clean(CheckedRecord):
    """The recorded sample read without attack: its ``rows`` of the test set and ``labels``
    ``[n]``, which digits each model reads right (``right``: name -> ``[n]``), each CapsNet's
    reconstruction distances ``[n]`` and its ``thresholds`` (``reconstruction_detector``)."""

    rows: Tensor("the sample's rows of the test set [n]", ndim=1)
    labels: Tensor("their labels [n]", ndim=1)
    right: dict[str, Tensor("which digits the model reads right [n]", ndim=1)]
    distances: dict[str, Tensor("reconstruction distances [n]", ndim=1, finite=True)]
    thresholds: dict[str, Record(reconstruction_detector.Threshold)]

    def __post_init__(self):
        super().__post_init__()  # and one label, reading and distance per row
        check_same("Clean", "digits", "pass one of each per digit of the sample",
                   rows=len(self.rows), labels=len(self.labels),
                   **{f"right[{m!r}]": len(r) for m, r in self.right.items()},
                   **{f"distances[{m!r}]": len(d) for m, d in self.distances.items()})

    @checked
    def false_alarms(self, model: str) -> float:
        """The share of clean test digits the detector of CapsNet ``model`` flags."""
        check_value("Clean.false_alarms", "model", Choice("a CapsNet with a detector here",
                                                          *self.thresholds), model)
        flagged = self.distances[model] > self.thresholds[model].value
        return flagged.float().mean().item()


@checked
def read_clean(results: Results) -> Clean:
    """The record's clean unit as a ``Clean``."""
    unit = _unit(results, "clean", "read_clean")
    n = len(unit.rows)
    return Clean(torch.tensor(unit.rows), torch.tensor(unit.labels),
                 {name: _right(wrong, n) for name, wrong in unit.wrong.items()},
                 {name: torch.tensor(d) for name, d in unit.distance.items()},
                 unit.threshold)


@checked
def read_attacked(results: Results, model: Choice("a model", *MODELS),
                  attack: Choice("an attack", *ATTACKS), eps: Eps,
                  source: Choice("the model the examples were made on", *MODELS) | None = None
                  ) -> Attacked:
    """Which recorded digits ``model`` reads right after ``attack`` at ``eps`` made on
    ``source`` (default: ``model`` itself, white-box; another: a transfer attack). At eps = 0
    every loss leaves the digit as it is: the clean reading."""
    source = source or model
    if eps == 0:
        right = read_clean(results).right[model]
        return Attacked(model, source, attack, 0.0, BUDGET.losses, (right,) * len(BUDGET.losses))
    unit = _unit(results, f"{attack}, {source}, eps {eps}", "read_attacked")
    n = len(_unit(results, "clean", "read_attacked").rows)
    wrong = unit.wrong[model]
    return Attacked(model, source, attack, eps, tuple(wrong),
                    tuple(_right(rows, n) for rows in wrong.values()))


@checked
def read_curve(results: Results, model: Choice("a model", *MODELS),
               attack: Choice("an attack", *ATTACKS) = "pgd") -> tuple[Attacked, ...]:
    """``model`` under ``attack`` at eps 0 and every recorded eps of ``EPS``, white-box."""
    return tuple(read_attacked(results, model, attack, eps) for eps in (0.0, *EPS))


@checked
def read_detection(results: Results, eps: Eps, weight: Float("the distance's weight in the "
                                                          "attacker's loss", ge=0) = 0.0,
                   model: Choice("a CapsNet", *CAPSNETS) = CAPSNET
                   ) -> reconstruction_detector.Detection:
    """The detector of ``model`` against PGD at ``eps``: every loss's examples (``weight`` 0),
    or the attacker who also lowers the distance with ``weight`` (``ADAPTIVE_WEIGHTS``)."""
    clean = read_clean(results)
    n, cut = len(clean.rows), clean.thresholds[model].value
    if weight == 0:
        unit = _unit(results, f"pgd, {model}, eps {eps}", "read_detection")
        wrong = tuple(~_right(rows, n) for rows in unit.wrong[model].values())
        distance = tuple(torch.tensor(d) for d in unit.distance[model].values())
    else:
        unit = _unit(results, f"adaptive, eps {eps}, weight {weight}", "read_detection")
        wrong, distance = (~_right(unit.wrong, n),), (torch.tensor(unit.distance),)
    return reconstruction_detector.detection(model, "pgd", eps, weight, cut, wrong, distance,
                                             clean.false_alarms(model))


@dataclass(frozen=True)
class MoreBudget(CheckedRecord):
    """One model under PGD at ``eps`` with ``loss`` on the first ``n`` recorded digits: which it
    reads right after the usual budget, after ``steps`` steps, after ``restarts`` random starts."""

    model: Choice("a model of the run", *MODELS)
    eps: Eps
    loss: Loss
    steps: Int("PGD's steps", ge=1, le=MAX_STEPS)
    restarts: Int("random starts", ge=1, le=MAX_RESTARTS)
    usual: Right
    more_steps: Right
    more_restarts: Right

    def __post_init__(self):
        super().__post_init__()  # and the three readings of the same digits
        check_same("MoreBudget", "digits", "pass three readings of the same digits",
                   usual=len(self.usual), more_steps=len(self.more_steps),
                   more_restarts=len(self.more_restarts))


@checked
def read_more_budget(results: Results, model: Choice("a model", *MODELS)) -> MoreBudget:
    """The sanity unit of ``model``: the usual budget against more steps and more restarts."""
    unit = _unit(results, f"sanity, {model}", "read_more_budget")
    n = min(len(_unit(results, "clean", "read_more_budget").rows), SANITY_IMAGES)
    return MoreBudget(model, unit.eps, unit.loss, unit.more_steps.budget.steps,
                      unit.more_restarts.budget.restarts, _right(unit.usual.wrong, n),
                      _right(unit.more_steps.wrong, n), _right(unit.more_restarts.wrong, n))


@dataclass(frozen=True)
class RunInfo(CheckedRecord):
    """How the recorded run was made: its command, sample, settings, where and when."""

    command: Text
    sample: Int("test digits of the recorded run", ge=1, le=MAX_IMAGES)
    settings: Record(RunSettings)
    devices: Annotated[tuple[Text, ...], Some]
    threads: Annotated[tuple[RunThreads, ...], Some]
    torch_versions: Annotated[tuple[Text, ...], Some]
    began: IsoTime  # the first unit's
    ended: IsoTime  # the last unit's
    seconds: Float("the units' own time, summed", ge=0)
    units: Int("units recorded", ge=1)

    def __post_init__(self):
        super().__post_init__()  # and the sample its settings', ended not before began
        check_same("RunInfo", "test digits", "pass the run's own settings",
                   sample=self.sample, **{"settings.sample": self.settings.sample})
        check_time_order("RunInfo", self.began, self.ended)


@checked
def how_run(results: Results) -> RunInfo:
    """The record's ``RunInfo``."""
    units = list(results.values())
    stamps = [unit.stamp for unit in units]
    settings = _unit(results, "clean", "how_run").settings
    return RunInfo(units[0].command, settings.sample, settings,
                   tuple(sorted({s.device for s in stamps})),
                   tuple(sorted({s.threads for s in stamps})),
                   tuple(sorted({s.torch_version for s in stamps})),
                   min(s.began for s in stamps), max(s.ended for s in stamps),
                   round(sum(s.seconds for s in stamps), 1), len(units))


@dataclass(frozen=True)
class Sanity(CheckedRecord):
    """The checks that one model's robust accuracy is not an artefact of masked gradients
    (Athalye, Carlini & Wagner 2018; Carlini et al. 2019), each ``statistics.paired`` on the same
    digits, a minus b: ``more_steps`` and ``more_restarts`` (the stronger attack minus the usual
    one: never clearly positive), ``transfer`` (source -> examples made on that other model minus
    those made on this one, at ``eps``: never clearly negative), and the share ``left`` read right
    at the largest eps (about 0)."""

    model: Choice("a model of the run", *MODELS)
    largest_eps: Eps
    left: Float("the share of digits read right at the largest eps", ge=0, le=1)
    more_steps: Record(Paired)
    more_restarts: Record(Paired)
    eps: Eps
    transfer: dict[Choice("a model of the run", *MODELS), Record(Paired)]

    @property
    def falls_to_zero(self) -> bool:
        return self.left <= MAX_LEFT

    @property
    def more_does_not_help(self) -> bool:
        """Neither more steps nor more restarts leave the model clearly more digits."""
        return not any(p.clear and p.difference > 0 for p in (self.more_steps,
                                                               self.more_restarts))

    @property
    def transfer_is_weaker(self) -> bool:
        """No other model's examples fool this one clearly more than its own do."""
        return not any(p.clear and p.difference < 0 for p in self.transfer.values())

    @property
    def passed(self) -> bool:
        return self.falls_to_zero and self.more_does_not_help and self.transfer_is_weaker


@checked
def sanity(results: Results, model: Choice("a model", *MODELS),
           eps: Eps = 0.1) -> Sanity:
    """``model``'s ``Sanity`` from the record (PGD; transfer at ``eps``)."""
    if eps:  # an eps the run did not record, refused by sanity's name (read_attacked's else)
        _unit(results, f"pgd, {model}, eps {eps}", "sanity")
    largest = read_attacked(results, model, "pgd", max(EPS))
    more = read_more_budget(results, model)
    own = read_attacked(results, model, "pgd", eps).right
    transfer = {source: paired(read_attacked(results, model, "pgd", eps, source).right, own)
                for source in MODELS if source != model}
    return Sanity(model, max(EPS), largest.accuracy, paired(more.more_steps, more.usual),
                  paired(more.more_restarts, more.usual), eps, transfer)

"""What the recorded run of ``capsedu.adversarial`` is asked and keeps (notebook 11), as typed,
frozen records that check their fields when they are made: the models and attacks it names, the
``Budget`` every model gets, and each unit of its results file (``ModelsUnit`` of ``Trained``,
``CleanUnit`` with its ``RunSettings``, ``AttackUnit``, ``AdaptiveUnit``, ``SanityUnit`` of
``SanityRun``s, each with its ``Stamp``), as ``json_records.from_row`` reads them back. A unit of
rows read wrong past the sample, of a distance below 0 or of a model the run never attacked is
never made.
"""

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Annotated

from pydantic import PlainValidator

from . import attacks, reconstruction_detector
from .attacks import Attack
from .checks import check_same
from .convergence import status_ending
from .course_settings import MAX_BATCH, RunThreads, Seed, Text
from .derived import check_derived
from .json_records import INLINE
from .manifest_rows import Sha256
from .refusals import declared_error, kind_of
from .validate import (
    CheckedRecord,
    Choice,
    Distinct,
    Flag,
    Float,
    Int,
    Record,
    Some,
    checked,
)

CAPSNET, CAPSNET_1ITER, CNN = "affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn"
MODELS = (CAPSNET, CAPSNET_1ITER, CNN)
CAPSNETS = (CAPSNET, CAPSNET_1ITER)  # the models with a decoder: the detector reads them
MAX_IMAGES = 10_000  # digits of a recorded sample

Eps = Float("the largest change of a pixel (L-infinity)", ge=0, le=1)
Weight = Float("the distance's weight in the attacker's loss", ge=0)
Loss = Choice("an attack loss", *attacks.LOSSES)
Losses = Annotated[tuple[Loss, ...], Some, Distinct]
Row = Int("a row of the recorded sample", ge=0, le=MAX_IMAGES)
# rows read wrong, each once (a row twice would count one digit's miss twice)
Wrong = Annotated[tuple[Row, ...], Distinct]
Distance = Float("a reconstruction distance", ge=0)
Source = Choice("the model the examples were made on", *MODELS)


@dataclass(frozen=True)
class Budget(CheckedRecord):
    """What the attacker may spend on every image, the same for every model."""

    steps: Int("PGD's steps", ge=1, le=attacks.MAX_STEPS) = 20
    step_ratio: Float("a step's size times steps over eps", gt=0, le=100) = 2.5
    restarts: Int("random starts", ge=1, le=attacks.MAX_RESTARTS) = 1
    random_start: Flag("True to start at a random point of the ball") = True
    losses: Losses = attacks.LOSSES
    seed: Seed = 0

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), restarts without random starts, and
        more than ``attacks.MAX_PASSES`` steps in all."""
        super().__post_init__()
        attacks.check_restarts("Budget", self.restarts, self.random_start, self.steps)

    @checked
    def step_size(self, eps: Eps) -> float:
        """Madry et al.'s rule: ``step_ratio`` x eps / steps, so the steps can cross the ball."""
        return self.step_ratio * eps / self.steps


BUDGET = Budget()


def _iso_time(value) -> str:
    """What ``IsoTime`` declares: a time as ``datetime.isoformat`` writes it."""
    try:
        datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise declared_error(ValueError if isinstance(value, str) else TypeError,
                             f"must be an ISO 8601 time, a str such as "
                             f"'2026-12-07T10:00:00+00:00', got {kind_of(value)}; pass "
                             "datetime.now(timezone.utc).isoformat(timespec='seconds')",
                             "array") from None
    return value


# when a unit or a run began or ended: ISO 8601 (UTC in the records)
IsoTime = Annotated[str, PlainValidator(_iso_time)]


@checked
def as_time(value: IsoTime) -> datetime:
    """The time an ISO 8601 ``value`` names, in UTC when it names no zone (the records' own)."""
    time = datetime.fromisoformat(value)
    return time if time.tzinfo else time.replace(tzinfo=timezone.utc)


@checked
def check_time_order(where: str, began: IsoTime, ended: IsoTime) -> None:
    """Refuse an ``ended`` before ``began`` (two ``IsoTime``s, compared as times)."""
    if as_time(ended) < as_time(began):
        raise ValueError(f"{where}(): ended must not come before began, got began {began!r} and "
                         f"ended {ended!r}; pass the times it ran")


@dataclass(frozen=True)
class Stamp(CheckedRecord):
    """What every unit of the record notes of where and when it ran."""

    began: IsoTime
    ended: IsoTime
    seconds: Float("seconds the unit ran", ge=0)
    device: Text
    threads: RunThreads
    torch_version: Text

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an end before the beginning, or
        ``seconds`` other than the time between them (each time kept to the second)."""
        super().__post_init__()
        check_time_order("Stamp", self.began, self.ended)
        gap = as_time(self.ended) - as_time(self.began)
        check_derived("Stamp", "pass the times the unit ran and the seconds between them", 2.0,
                      seconds=(self.seconds, gap.total_seconds(), "the seconds from began to "
                               "ended (within 2 s: each time is kept to the second)"))


@dataclass(frozen=True)
class Trained(CheckedRecord):
    """A model the run attacked: its checkpoint's ``sha256``, how its training ended
    (``convergence.training_status``) and whether a verdict may rest on it (``finished``)."""

    sha256: Sha256
    status: Text  # convergence.training_status's words
    finished: Flag("whether a verdict may rest on the run")

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a status in other words than
        ``training_status``'s, or one that disagrees with ``finished`` (a verdict rests only on a
        run that converged)."""
        super().__post_init__()
        said = status_ending(self.status)
        if said is None:
            raise ValueError(f"Trained(): status must be one of convergence.training_status's "
                             f"sentences ('epoch 13 of 16 kept (99.30 % held out): converged, no "
                             f"held-out gain in the 3 epochs after it', or one STILL IMPROVING or "
                             f"STILL RISING), got {self.status!r:.80}; pass "
                             "training_status(row.metrics)")
        check_derived("Trained", "pass finished(...) of the same run", finished=(
            self.finished, said == "converged", f"True exactly when status is the sentence of a "
            f"converged run (this one ends {said})"))


class _Unit(CheckedRecord):
    """A unit of the record, kept under the name its fields make (``adversarial.units``'s)."""

    def unit_name(self) -> str:
        """The name ``adversarial.units`` gives this unit."""
        raise NotImplementedError  # each unit's own

    @checked
    def misnamed(self, name: str) -> str | None:
        """Why ``name`` is not this unit's key in its results file, in words; None when it is
        (``results_kinds.records`` asks)."""
        made = self.unit_name()
        return None if name == made else f"whose fields make the name {made!r}"


@dataclass(frozen=True)
class ModelsUnit(_Unit):
    """The unit ``"models"``: the weights the run attacked, each kept under its model's name
    (``_models_unit``)."""

    capsnet: Record(Trained) = field(metadata={"json": CAPSNET})
    capsnet_1iter: Record(Trained) = field(metadata={"json": CAPSNET_1ITER})
    cnn: Record(Trained) = field(metadata={"json": CNN})
    stamp: Record(Stamp) = field(metadata={INLINE: True})
    command: str = ""  # the line that recorded it; "" for a unit not written to a results file

    def unit_name(self) -> str:
        return "models"


@dataclass(frozen=True)
class SanitySettings(CheckedRecord):
    """More of the budget on the first ``images`` digits at ``eps``: ``steps`` steps, and
    ``restarts`` random starts of the usual steps, with ``loss``."""

    eps: Eps
    images: Int("the digits of the sanity units", ge=1, le=MAX_IMAGES)
    steps: Int("PGD's steps", ge=1, le=attacks.MAX_STEPS)
    restarts: Int("random starts", ge=1, le=attacks.MAX_RESTARTS)
    loss: Loss


@dataclass(frozen=True)
class AdaptiveSettings(CheckedRecord):
    """The attacker who knows the detector: every ``eps`` with every weight of ``weights``."""

    eps: Annotated[tuple[Eps, ...], Some, Distinct]
    weights: Annotated[tuple[Weight, ...], Some, Distinct]
    loss: Loss


@dataclass(frozen=True)
class RunSettings(CheckedRecord):
    """What the recorded run was asked to do (``run_settings``)."""

    models: Annotated[tuple[Source, ...], Some, Distinct]
    sample: Int("test digits of the recorded run", ge=1, le=MAX_IMAGES)
    eps: Annotated[tuple[Eps, ...], Some, Distinct]
    budget: Record(Budget)
    attacks: Annotated[tuple[Attack, ...], Some, Distinct]
    batch: Int("images attacked at once", ge=1, le=MAX_BATCH)
    sanity: Record(SanitySettings)
    adaptive: Record(AdaptiveSettings)
    detector: Record(reconstruction_detector.Settings)

    def __post_init__(self):
        super().__post_init__()
        if self.sanity.images > self.sample:
            raise ValueError(f"RunSettings(): sanity.images must be at most sample "
                             f"({self.sample}), got {self.sanity.images}; pass at most that")


@dataclass(frozen=True)
class CleanUnit(_Unit):
    """The unit ``"clean"``: the sample's ``rows`` of the test set and ``labels``, the rows each
    model reads ``wrong``, each CapsNet's reconstruction ``distance`` and its ``threshold``."""

    rows: Annotated[tuple[Int("a row of the test set", ge=0), ...], Distinct]
    labels: tuple[Int("a digit's class", ge=0, le=9), ...]
    wrong: dict[str, Wrong]  # model -> rows read wrong
    distance: dict[str, tuple[Distance, ...]]  # CapsNet -> one distance per digit
    threshold: dict[str, Record(reconstruction_detector.Threshold)]
    settings: Record(RunSettings)
    stamp: Record(Stamp) = field(metadata={INLINE: True})
    command: str = ""

    def unit_name(self) -> str:
        return "clean"

    def __post_init__(self):
        super().__post_init__()  # and one label and distance per row, rows read wrong among them
        check_same("CleanUnit", "digits", "pass one of each per digit of the sample",
                   rows=len(self.rows), labels=len(self.labels),
                   **{f"distance[{m!r}]": len(d) for m, d in self.distance.items()})
        for model, wrong in self.wrong.items():
            if wrong and max(wrong) >= len(self.rows):
                raise ValueError(f"CleanUnit(): wrong[{model!r}] must hold rows below the "
                                 f"{len(self.rows)} digits of the sample, got {max(wrong)}; "
                                 "pass rows of the sample")


@dataclass(frozen=True)
class AttackUnit(_Unit):
    """The unit ``"<attack>, <source>, eps <eps>"``: examples made on ``source`` with every loss,
    the rows each model then reads ``wrong`` and each CapsNet's reconstruction ``distance``."""

    source: Source
    attack: Attack
    eps: Eps
    budget: Record(Budget)
    wrong: dict[str, dict[Loss, Wrong]]  # model -> loss -> rows read wrong
    distance: dict[str, dict[Loss, tuple[Distance, ...]]]  # CapsNet -> loss -> distances
    stamp: Record(Stamp) = field(metadata={INLINE: True})
    command: str = ""

    def unit_name(self) -> str:
        return f"{self.attack}, {self.source}, eps {self.eps}"


@dataclass(frozen=True)
class AdaptiveUnit(_Unit):
    """The unit ``"adaptive, eps <eps>, weight <weight>"``: the attacker who also lowers the
    CapsNet's reconstruction distance; the rows it then reads ``wrong``, the ``distance``s."""

    source: Source
    eps: Eps
    weight: Weight
    loss: Loss
    budget: Record(Budget)
    wrong: Wrong
    distance: tuple[Distance, ...]
    stamp: Record(Stamp) = field(metadata={INLINE: True})
    command: str = ""

    def unit_name(self) -> str:
        return f"adaptive, eps {self.eps}, weight {self.weight}"


@dataclass(frozen=True)
class SanityRun(CheckedRecord):
    """PGD on a sanity unit's digits under one ``budget``: the rows it then reads ``wrong``."""

    budget: Record(Budget)
    wrong: Wrong


@dataclass(frozen=True)
class SanityUnit(_Unit):
    """The unit ``"sanity, <source>"``: more of PGD's budget on ``source`` (``SanitySettings``),
    a ``SanityRun`` with more steps, one with more random starts, one with the usual budget."""

    source: Source
    eps: Eps
    loss: Loss
    more_steps: Record(SanityRun)
    more_restarts: Record(SanityRun)
    usual: Record(SanityRun)
    stamp: Record(Stamp) = field(metadata={INLINE: True})
    command: str = ""

    def unit_name(self) -> str:
        return f"sanity, {self.source}"

"""What a verdict resting on a run may say, by the course's stopping rule (``stopping_rule``).

A run has converged when ``PATIENCE`` epochs in a row brought no gain in held-out accuracy
(``stopping_rule.converged``); a verdict may rest on it once it has converged and its last epochs
are not still rising (``finished``, ``trend``). The recorded runs are read by it
(``training_status``, ``verdict``) in notebooks 07-10.
"""

import re
from dataclasses import dataclass
from typing import Annotated

import numpy as np
from pydantic import AfterValidator
from scipy import stats

from .course_settings import MAX_EPOCHS
from .manifest_rows import ManifestRow, Metrics
from .statistics import Comparison
from .stopping_rule import PATIENCE, Patience, Scores, best_epoch, converged
from .validate import CheckedRecord, Float, Int, Record, checked

# A run that met the rule may still be climbing slowly, its gains spread over epochs that each
# fell just short of the best: over the second half of its epochs (at most TREND_EPOCHS, past the
# first climb of a short run), a least-squares line through the held-out accuracy rising faster
# than TREND_MIN points an epoch (one-sided test at 5 %) says so.
# TREND_MIN: 0.1 points an epoch would add 0.3 points in PATIENCE more epochs, the size of the
# differences notebooks 08-10 judge; slower climbs are a few held-out images an epoch.
TREND_EPOCHS = 8
TREND_MIN = 0.1


def _with_curve(row: ManifestRow) -> ManifestRow:
    """Refuse a manifest row recorded without its held-out curve (a face model's, or one saved
    without validation): there is no curve to draw or to judge."""
    if row.metrics is None or row.metrics.validation_by_epoch is None:
        raise ValueError(f"must be a manifest row with a held-out curve "
                         f"(metrics.validation_by_epoch), got the row of {row.name!r} without "
                         "one; pass rows of runs trained with validation")
    return row


# the manifest row of a run trained with validation: its held-out accuracy at every epoch
CurvedRow = Annotated[Record(ManifestRow), AfterValidator(_with_curve)]


@dataclass(frozen=True)
class Trend(CheckedRecord):
    """The slope of a run's held-out accuracy over its last epochs, in points per epoch."""

    slope: Float("held-out accuracy points per epoch")
    # one-sided: a slope this steep with none really there
    p_value: Float("a one-sided p-value", ge=0, le=1)
    epochs: Int("the last epochs fitted", ge=0, le=MAX_EPOCHS)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a slope fitted to fewer than 3
        epochs: too few to tell a trend (``trend`` gives them slope 0, p-value 1)."""
        super().__post_init__()
        if self.epochs < 3 and (self.slope, self.p_value) != (0, 1):
            raise ValueError(f"Trend(): fewer than 3 epochs (epochs={self.epochs}) are no trend: "
                             f"slope must be 0.0 and p_value 1.0, got slope={self.slope!r}, "
                             f"p_value={self.p_value!r}; pass those, as trend(...) does")

    @property
    def rising(self) -> bool:
        return self.slope > TREND_MIN and self.p_value < 0.05


@checked
def trend(scores: Scores, epochs: Int("the last epochs at most", ge=1, le=MAX_EPOCHS) = TREND_EPOCHS
          ) -> Trend:
    """``Trend`` of the held-out accuracies ``scores`` (0..1, one per epoch) over the second half
    of them, at most the last ``epochs`` (fewer than 3 epochs never count as rising)."""
    last = 100 * np.asarray(scores[-min(epochs, len(scores) // 2):], dtype=float)
    if len(last) < 3 or np.ptp(last) == 0:
        return Trend(0.0, 1.0, len(last))
    fit = stats.linregress(np.arange(len(last)), last)
    one_sided = fit.pvalue / 2 if fit.slope > 0 else 1 - fit.pvalue / 2
    return Trend(float(fit.slope), float(one_sided), len(last))


@checked
def finished(scores: Scores, patience: Patience = PATIENCE) -> bool:
    """Whether a verdict may rest on a run with these held-out ``scores``: it met the rule
    (``converged``) and its last epochs are not still rising (``trend``)."""
    return converged(scores, patience) and not trend(scores).rising


# training_status's three sentences, each read whole (a status is its sentence, not a word in
# it: "not converged" says no more than "converged"): how it ends -> the sentence's pattern
_KEPT = r"epoch \d+ of \d+ kept \(\d+\.\d\d % held out\): "
_LONGER = r"; a longer run could change a verdict that rests on it"
STATUS_FORMS = {
    "converged": re.compile(_KEPT + r"converged, no held-out gain in the \d+ epochs after it"),
    "STILL IMPROVING": re.compile(
        _KEPT + r"STILL IMPROVING, its best epoch lies within the last \d+" + _LONGER),
    "STILL RISING": re.compile(
        _KEPT + r"the rule stopped it, but it was STILL RISING, [+-]\d+\.\d\d points an epoch "
        r"over its last \d+ \(one-sided p = \S+\)" + _LONGER)}


@checked
def status_ending(status: str) -> str | None:
    """Which of ``training_status``'s sentences ``status`` is: ``"converged"``, ``"STILL
    IMPROVING"`` or ``"STILL RISING"``; None for any other words."""
    return next((end for end, form in STATUS_FORMS.items() if form.fullmatch(status)), None)


@checked
def training_status(metrics: Record(Metrics), patience: Patience = PATIENCE) -> str:
    """How a recorded run (a manifest row's ``metrics``) ended, in words: converged by the rule,
    still rising over its last epochs although the rule stopped it, or still improving when its
    budget ran out (a verdict resting on either of the last two is not final)."""
    scores = metrics.validation_by_epoch
    if scores is None:
        raise ValueError("training_status(): metrics must be a manifest row's metrics with "
                         "validation_by_epoch, got metrics without a held-out curve; pass "
                         "row.metrics of a run trained with validation")
    best = best_epoch(scores)
    kept = f"epoch {best} of {len(scores)} kept ({100 * max(scores):.2f} % held out)"
    if not converged(scores, patience):
        return (f"{kept}: STILL IMPROVING, its best epoch lies within the last {patience}; a "
                "longer run could change a verdict that rests on it")
    rise = trend(scores)
    if rise.rising:
        return (f"{kept}: the rule stopped it, but it was STILL RISING, "
                f"{rise.slope:+.2f} points an epoch over its last {rise.epochs} (one-sided p = "
                f"{rise.p_value:.2g}); a longer run could change a verdict that rests on it")
    return f"{kept}: converged, no held-out gain in the {len(scores) - best} epochs after it"


@checked
def verdict(comparison: Comparison, runs: dict[str, CurvedRow],
            patience: Patience = PATIENCE) -> str:
    """A comparison's line (``statistics.paired`` or ``seed_difference``) with the state of the
    recorded runs it rests on (``runs``: name -> manifest row): final only when every one of them
    has finished (``finished``: converged and no longer rising); otherwise it names the others."""
    if not runs:  # no run at all: none to be final
        raise ValueError(f"verdict(): runs must hold at least one recorded run the comparison "
                         f"rests on (name -> manifest row), got {runs!r}; pass the rows of the "
                         "runs compared, e.g. {name: checkpoints.read_manifest()[name]}")
    improving = still_improving(runs, patience)
    if not improving:
        return f"{comparison}; final: every run it rests on converged"
    return f"{comparison}; NOT FINAL: {', '.join(improving)} still improving"


@checked
def still_improving(runs: dict[str, CurvedRow],
                    patience: Patience = PATIENCE) -> list[str]:
    """The names of the recorded runs (name -> manifest row) that had not finished
    (``finished``)."""
    return [name for name, row in runs.items()
            if not finished(row.metrics.validation_by_epoch, patience)]


def _history(where: str, history: list) -> None:
    """Refuse a history that is empty or whose epochs hold no held-out accuracy."""
    if not history:
        raise ValueError(f"{where}(): history must hold at least one epoch, got []; pass the list "
                         "fit returned")
    for i, epoch in enumerate(history):
        if getattr(epoch, "validation_accuracy", None) is None:
            raise ValueError(f"{where}(): history[{i}] must be an epoch of fit with a held-out "
                             f"accuracy (fit(..., validation=...)), got {epoch!r:.60}; train "
                             "with a validation set")


@checked
def held_out_scores(history: list) -> list[float]:
    """The held-out accuracy of every epoch of a ``fit`` history (its ``loop.Epoch`` records)."""
    _history("held_out_scores", history)
    return [epoch.validation_accuracy for epoch in history]


@checked
def chosen_epoch(history: list):
    """The epoch ``fit`` keeps when it has a validation set, a ``loop.Epoch`` of its ``history``:
    the first with the best ``validation_accuracy``."""
    _history("chosen_epoch", history)
    return max(history, key=lambda epoch: epoch.validation_accuracy)  # the first of ties

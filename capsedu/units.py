"""Units: a number of the right type in the wrong unit is refused, not read silently. Accuracies
a figure draws in % (``InPercent``: fractions of 1 refused), a place on the image as a fraction of
its side (``ImageFraction``: pixels refused), angles in degrees (``InDegrees``, ``DrawnInDegrees``:
radians refused), sizes in points (``Points``, ``FontSize``). Each is a declaration (or a check
added to one, ``Annotated[Numbers(...), InDegrees]``) that ``capsedu.validate`` enforces at the
entry, naming the argument.

Radians cannot be told from degrees by their type, so ``InDegrees`` reads them by their values:
np.radians of whole degrees (np.radians(45), np.pi / 4; one among them, where no other fraction
within two turns says degrees), or all of them within 2 pi (6.3 degrees), not all whole: a
fraction of a turn alone (2.5), or a sweep of radians (linspace(0, 3, 5)). A turn under 6.3
degrees is therefore given in whole degrees, alone; in a sweep that reaches past 2 pi
(arange(0, 360, 2.5)) it is taken. A sweep of three angles or more that stays within two turns,
4 pi (12.6 degrees), reads as radians too (linspace(0, 4 pi, 50), arange(0, 7, 0.1)) unless it
ends on a whole degree (linspace(-10, 10, 9)) or steps by quarters of a degree (arange(0, 10,
2.5)): radians that do either (arange(0, 7, 0.5)) cannot be told from degrees and are taken.
Random angles, one per image (``DrawnInDegrees``), are refused only when every one of them reads
as radians: a few drawn in degrees may fall under 6.3 degrees, not all; or when 16 of them or
more, all of one sign, stay within 4 pi (uniform(0, 4 pi, 20)): degrees drawn within +-15 do
that about twice in a million draws.
"""

from typing import Any

import numpy as np
import torch
from pydantic import AfterValidator

from .checks import two_scales
from .course_settings import Text
from .validate import Choice, Float, checked


def _in_percent(accuracies):
    """Refuse accuracies that are fractions of 1, not % (every one at most 1 %: below chance),
    which an axis of 0 to 100 % would draw as slivers on the floor, or some of them so, beside
    others in % (``checks.two_scales``); hands them on."""
    values = np.asarray(list(accuracies.values()) if isinstance(accuracies, dict) else accuracies,
                        dtype=float).ravel()
    if values.size and values.max() <= 1:
        raise ValueError(f"must be accuracies in % (0 to 100), got values from {values.min():g} "
                         f"to {values.max():g}, fractions of 1; multiply them by 100")
    fractions = values[(values > 0) & (values <= 1)]  # a zero is 0 % and 0 alike
    if two_scales(fractions, values[values > 1]) is not None:
        raise ValueError(f"must be accuracies in % (0 to 100), all of them, got "
                         f"{fractions.tolist()} (fractions of 1?) beside values from "
                         f"{values[values > 1].min():g} to {values.max():g} in %; multiply the "
                         "fractions by 100")
    return accuracies


# accuracies a figure draws on an axis of 0 to 100 %: in %, not fractions of 1 (after a
# declaration of numbers in [0, 100]: a dict of them by name, or a list or an array of them)
InPercent = AfterValidator(_in_percent)


@checked
def ImageFraction(meaning: Text, off: Float("image sides a place may lie off it", ge=0, le=1)
                  = 0.0) -> Any:
    """A place across the image as a fraction of its side, in [0, 1] (0.5: the centre), or up
    to ``off`` sides beyond it (a pose's frame, which may reach onto the image from off it): a
    pixel position such as 16 would sit far off the image, so it is refused."""
    low, high = (-off, 1 + off) if off else (0, 1)  # ints: "in [0, 1]", not "[-0.0, 1.0]"
    return Float(f"{meaning}, a fraction of the image's side in [{low:g}, {high:g}]", ge=low,
                 le=high)


def _values(angles) -> tuple[np.ndarray, float]:
    """The angles as float64 numbers ``[n]``, and how close to a whole number of degrees their
    radians' reading may fall by rounding alone (a float32's angles are rounded coarser)."""
    if isinstance(angles, torch.Tensor):
        angles = angles.detach().cpu().numpy()
    given = np.asarray(angles)
    rounding = np.finfo(given.dtype).eps if np.issubdtype(given.dtype, np.floating) else 0.0
    return given.astype(float).ravel(), 4 * rounding


def _of_whole_degrees(values: np.ndarray, rounding: float) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``values`` are np.radians of whole degrees (np.radians(45), np.pi / 4: a
    learner's degrees converted): not whole, yet np.degrees of them whole up to the rounding of
    their dtype; and which could be (not whole, within two turns)."""
    turned = np.degrees(values)
    could = (values != values.round()) & (np.abs(values) <= 4 * np.pi * (1 + rounding))
    return could & (np.abs(turned - turned.round()) <= rounding * np.abs(turned)), could


def _radians(values: np.ndarray, rounding: float) -> np.ndarray:
    """Which of ``values`` read as radians, each on its own: np.radians of whole degrees
    (``_of_whole_degrees``), or a part of a turn under 2 pi (6.3 degrees, the span of radians)
    that is not whole (a turn of a few degrees is given in whole ones)."""
    return _of_whole_degrees(values, rounding)[0] | ((values != values.round())
                                                     & (np.abs(values) <= 2 * np.pi))


# why a turn of a few degrees reads as radians (the rule of one angle and of a sweep past 2 pi)
_FEW_DEGREES = ("a turn under 6.3 degrees reads as radians unless it is a whole number of degrees, "
                "or in a sweep past 6.3")


def _refuse_radians(values: np.ndarray, radians: np.ndarray, rule: str = _FEW_DEGREES) -> None:
    """Refuse ``values`` where ``radians`` (the shape of ``values``) says one reads as radians,
    saying why by ``rule``."""
    if not radians.any():
        return
    shown, turned = (np.round(v, 4).tolist()[:5] for v in (values[radians],
                                                             np.degrees(values[radians])))
    given = (f"an angle in degrees, got {shown[0]:g}, which reads as radians ({turned[0]:g} "
             "degrees)" if values.size == 1 else
             f"angles in degrees, got {shown} among them, which read as radians ({turned} "
             "degrees)")
    raise ValueError(f"must be {given}; convert radians with np.degrees(...); {rule}")


def _in_degrees(angles):
    """Refuse the angles a caller chose (one, or a sweep) when they are np.radians of whole
    degrees (``_of_whole_degrees``: any of them, where every other fraction within two turns is
    one too), or when all of them lie within 2 pi and not all are whole (a sweep of radians; one
    angle of 2.5): a sweep past 2 pi (arange(0, 360, 2.5)) is in degrees, its small turns too.
    Hands them on. Read as degrees, radians would turn by a sliver, silently."""
    values, rounding = _values(angles)
    radians, could = _of_whole_degrees(values, rounding)
    if (radians != could).any():  # a float32 sweep's 0.79 among 0.5, 1.0, ...: a coincidence
        radians = np.zeros_like(could)
    if not radians.any() and (np.abs(values) <= 2 * np.pi * (1 + rounding)).all():  # 2 pi, rounded
        radians = values != values.round()
    if not radians.any() and values.size >= 3 and _within_two_turns(values, rounding):
        ends_whole = _on_grid(np.abs(values).max(), 1)
        sweep = (values != values.round()) & ~ends_whole & ~_on_grid(values, 4).all()
        _refuse_radians(values, sweep, "a sweep within 12.6 degrees (two turns of radians) "
                        "reads as radians unless it ends on a whole degree or steps by quarter "
                        "degrees")
    _refuse_radians(values, radians)
    return angles


def _within_two_turns(values: np.ndarray, rounding: float) -> bool:
    """Whether every one of ``values`` lies within two turns of radians, 4 pi (12.6)."""
    return bool((np.abs(values) <= 4 * np.pi * (1 + rounding)).all())


def _on_grid(values, per_degree: int) -> np.ndarray:
    """Which of ``values`` fall on a grid of ``per_degree`` steps a degree (1: whole degrees; 4:
    quarters), up to the rounding of a float32 sweep."""
    steps = np.asarray(values) * per_degree
    return np.abs(steps - steps.round()) <= 1e-5 * np.maximum(1, np.abs(steps))


def _drawn_in_degrees(angles):
    """Refuse random angles, one per image, when all their fractions read as radians
    (``_radians``): drawn in degrees, a few of them may fall under 6.3 degrees, but not every
    one; a whole number among radians (0, or 3.0 beside 0.79 and 1.57) says nothing of the unit.
    Refused too: 16 or more of one sign within 4 pi (uniform(0, 4 pi, 20)), past 2 pi or not.
    Hands them on."""
    values, rounding = _values(angles)
    radians, fractions = _radians(values, rounding), values != values.round()
    if fractions.any() and radians[fractions].all():
        _refuse_radians(values, radians)
    one_sign = (values >= 0).all() or (values <= 0).all()
    if fractions.sum() >= 16 and one_sign and _within_two_turns(values, rounding):
        _refuse_radians(values, fractions, "16 random angles or more, all of one sign and "
                        "within 12.6 degrees (two turns of radians), read as radians")
    return angles


# angles a caller gives in degrees, refused when they look like radians (after a declaration of
# a number, or of numbers: a list, an array or a tensor of them)
InDegrees = AfterValidator(_in_degrees)
# random angles in degrees, one per image, refused when every one of them looks like radians
DrawnInDegrees = AfterValidator(_drawn_in_degrees)


@checked
def Points(meaning: Text) -> Any:
    """A size in points a figure draws with (a font's, an arrow head's): a finite number above 0
    (matplotlib draws a size of 0 or below as nothing, without a word) and at most 100."""
    return Float(f"{meaning} in points", gt=0, le=100)


# a font size: in points, or one of matplotlib's names for one
FontSize = Points("a font size") | Choice("a font size by name", "xx-small", "x-small", "small",
                                          "medium", "large", "x-large", "xx-large")

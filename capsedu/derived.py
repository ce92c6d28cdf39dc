"""One rule for the records whose fields are computed from others: each such field must be what its
inputs give (``check_derived``). A record rebuilt by hand, or a results file edited, with one field
changed and not the fields it comes from (a p-value beside its counts, a step count beside its
examples) would otherwise read as a result nobody measured."""

import math
from typing import Any

from .course_settings import Name, Text
from .refusals import is_number
from .validate import Float, checked

# how far a recorded number may lie from what its inputs give: a results file keeps float32's
TOLERANCE = 1e-6

# one field to check: (its value, the value its inputs give, how they give it in words)
Derived = tuple[Any, Any, Text]


def _same(got, want, tolerance: float) -> bool:
    """Whether ``got`` is ``want``: numbers within ``tolerance`` (or ``TOLERANCE`` of the larger,
    for large ones), flags and anything else equal (a flag is no number: True is not 1)."""
    if is_number(got) and is_number(want):
        return math.isclose(got, want, rel_tol=TOLERANCE, abs_tol=tolerance)
    return isinstance(got, bool) == isinstance(want, bool) and got == want


def _show(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


@checked
def check_derived(where: Name, fix: Text,
                  tolerance: Float("how far a number may lie from what its inputs give",
                                   ge=0) = TOLERANCE,
                  **fields: Derived) -> None:
    """Refuse a field of the record ``where`` that differs from what its inputs give: each keyword
    is a field's name -> ``(its value, the value its inputs give, how they give it in words)``,
    checked in order; ``tolerance``: how far a number may lie from it; ``fix`` says how to make a
    record that agrees. A NaN on either side is no value, so it agrees with nothing."""
    for name, (got, want, how) in fields.items():
        if is_number(want) and math.isnan(want):
            raise ValueError(f"{where}(): {name} must be {how}, and its inputs give nan, no "
                             f"number; {fix}")
        if is_number(got) and math.isnan(got):
            raise ValueError(f"{where}(): {name} must be {how}, {_show(want)}, got nan, no "
                             f"number; {fix}")
        if not _same(got, want, tolerance):
            raise ValueError(f"{where}(): {name} must be {how}, {_show(want)}, got "
                             f"{_show(got)}; {fix}")

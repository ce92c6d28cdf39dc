"""One rule for the records whose fields are computed from others: each such field must be what its
inputs give (``check_derived``). A record rebuilt by hand, or a results file edited, with one field
changed and not the fields it comes from (a p-value beside its counts, a step count beside its
examples) would otherwise read as a result nobody measured."""

import math
from typing import Any

import numpy as np

from .course_settings import Name, Text
from .refusals import is_number
from .validate import Float, Int, Numbers, check_value, checked

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


@checked
def check_read(where: Name, fix: Text, name: Name, read: list[Int("a class", ge=0)],
               scores_name: Name, scores: Numbers("a score per class [n_classes]", ndim=1)
               ) -> None:
    """Refuse classes ``read`` (the record ``where``'s field ``name``: a prediction, or the k
    classes read) other than those of the highest ``scores`` (its field ``scores_name``, e.g. the
    capsules' lengths): each of them a class, none scored below the k-th highest (ties either
    way); ``fix`` says how to make one that agrees. A prediction replaced alone would print
    beside scores that name another class."""
    for value in read:
        check_value(where, name, Int(f"a class of the {len(scores)} of {scores_name}", ge=0,
                                     le=len(scores) - 1), value)
    if read and min(scores[c] for c in read) < sorted(scores)[-len(read)] - TOLERANCE:
        best = [int(c) for c in np.argsort(-scores, kind="stable")[:len(read)]]
        got = read[0] if len(read) == 1 else read
        raise ValueError(f"{where}(): {name} must be the class{'es' * (len(read) > 1)} of the "
                         f"highest {scores_name}, {best[0] if len(best) == 1 else best}, got "
                         f"{got} (scored {', '.join(f'{scores[c]:.4g}' for c in read)} of "
                         f"at most {max(scores):.4g}); {fix}")

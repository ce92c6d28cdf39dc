"""One rule for the records whose fields are computed from others: each such field must be what its
inputs give (``check_derived``). A record rebuilt by hand, or a results file edited, with one field
changed and not the fields it comes from (a p-value beside its counts, a step count beside its
examples) would otherwise read as a result nobody measured."""

import math
import numbers

# how far a recorded number may lie from what its inputs give: a results file keeps float32's
TOLERANCE = 1e-6


def _same(got, want, tolerance: float) -> bool:
    """Whether ``got`` is ``want``: numbers within ``tolerance`` (or ``TOLERANCE`` of the larger,
    for large ones), flags and anything else equal."""
    if all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in (got, want)):
        return math.isclose(got, want, rel_tol=TOLERANCE, abs_tol=tolerance)
    return got == want


def _show(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else repr(value)


def check_derived(where: str, fix: str, tolerance: float = TOLERANCE, **fields: tuple) -> None:
    """Refuse a field of the record ``where`` that differs from what its inputs give: each keyword
    is a field's name -> ``(its value, the value its inputs give, how they give it in words)``,
    checked in order; ``tolerance``: how far a number may lie from it; ``fix`` says how to make a
    record that agrees."""
    for name, (got, want, how) in fields.items():
        if not _same(got, want, tolerance):
            raise ValueError(f"{where}(): {name} must be {how}, {_show(want)}, got "
                             f"{_show(got)}; {fix}")

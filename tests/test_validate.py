"""The boundary's own pieces: check_finite screens with one sum, and still counts and reports
exactly; a refused container says what its annotation holds."""

import pytest
import torch

from capsedu.checks import check_finite


@pytest.mark.parametrize("bad, count", [
    ([1.0, float("nan"), 2.0], 1),
    ([float("inf"), 0.0, float("-inf")], 2),  # the sum is NaN, not inf: still caught
    ([float("-inf")] * 3, 3),
])
def test_nan_and_infinities_are_counted(bad, count):
    with pytest.raises(ValueError, match=f"x contains {count} NaN or infinite"):
        check_finite(torch.tensor(bad), "x")


def test_finite_values_whose_sum_overflows_are_accepted():
    check_finite(torch.full((4,), 3e38), "x")  # the float32 sum is inf; every value is finite
    check_finite(torch.randn(3, 5).transpose(0, 1), "x")  # any layout


def test_an_int_takes_numpy_integers_and_refuses_booleans():
    import numpy as np

    from capsedu.validate import Int, checked

    @checked
    def count(n: Int("a count", ge=1)):
        return n

    for value in (3, np.int64(3), np.uint8(3)):
        assert count(value) == 3
    for value, error in ((True, TypeError), (3.0, TypeError), ("3", TypeError), (None, TypeError),
                         (0, ValueError), (np.int32(-1), ValueError)):
        with pytest.raises(error, match=r"count\(\): n must be an integer >= 1 \(a count\), got "):
            count(value)


def test_a_container_refused_says_what_it_holds_from_its_annotation():
    """A tuple, a list or a dict of the wrong kind is named with what its annotation says it
    holds, at the depth it was refused (a dict's value, a union's form), not pydantic's "a valid
    tuple" (round thirteen's U5)."""
    from dataclasses import dataclass

    from capsedu.refusals import described, words
    from capsedu.validate import Float, checked

    @dataclass(frozen=True)
    class Sweep:
        x: float

    assert words(tuple[Sweep, ...]) == "a tuple of items, each a Sweep"
    assert words(dict[str, list[int]]) == "a dict of a string -> a list of items, each an integer"
    assert words(tuple[Float("a share", ge=0, le=1), str | None]) == \
        "a tuple of 2 items: a finite number >= 0 and <= 1 (a share), a string or None"
    assert described(dict[str, tuple[Sweep, ...]], ("a",)) == "a tuple of items, each a Sweep"
    assert described(dict[tuple[int, int], float], ("[key]",)) == \
        "a tuple of 2 items: an integer, an integer"
    assert described(tuple[int, ...] | list[int], ("list[int]",)) == \
        "a list of items, each an integer"

    @checked
    def lowest(curves: dict[str, tuple[Sweep, ...]]) -> int:
        return len(curves)

    with pytest.raises(TypeError, match=r"lowest\(\): curves\['a'\] must be a tuple of items, "
                                        r"each a Sweep, got 3; pass a tuple"):
        lowest({"a": 3})
    with pytest.raises(TypeError, match=r"lowest\(\): curves must be a dict of a string -> a "
                                        r"tuple of items, each a Sweep, got \[1\]"):
        lowest([1])

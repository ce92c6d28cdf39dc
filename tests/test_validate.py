"""check_finite screens with one sum, and still counts and reports exactly."""

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

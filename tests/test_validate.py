"""check_finite screens with one sum, and still counts and reports exactly."""

import pytest
import torch

from capsedu.validate import check_finite


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

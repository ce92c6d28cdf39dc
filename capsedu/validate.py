"""Input checks that turn a deep torch traceback into a sentence a learner can act on."""

import torch


def check_shape(x: torch.Tensor, name: str, expected: str, ndim: int) -> None:
    """Raise ``ValueError`` unless ``x`` is a tensor with ``ndim`` dimensions."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor {expected}, got {type(x).__name__}")
    if x.ndim != ndim:
        raise ValueError(f"{name} must have shape {expected}, got shape {tuple(x.shape)}")


def check_finite(x: torch.Tensor, name: str) -> None:
    """Raise ``ValueError`` if ``x`` holds NaN or infinity (it would poison everything after).

    A NaN or an infinity anywhere makes the sum NaN or infinite, so one cheap reduction screens
    the whole tensor (a full ``isfinite`` map costs far more, and this runs at every forward);
    only a suspicious sum pays for counting.
    """
    with torch.no_grad():
        if torch.isfinite(x.sum()):
            return
        bad = (~torch.isfinite(x)).sum().item()
    if bad:  # else the finite values merely added up past the float range
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s)")

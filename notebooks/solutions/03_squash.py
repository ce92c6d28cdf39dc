"""Solution to notebook 03, exercise 1: squash (Eq. 1 of Sabour, Frosst & Hinton 2017).

Try the exercise before reading this. Run this file to check the solution:
    python notebooks/solutions/03_squash.py
"""

import torch

from capsedu.exercises import check_squash


def my_squash(s: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Eq. 1 along the last dimension: same shape as ``s``, finite at ``s = 0``."""
    # ||s||^2, kept as a size-1 last dimension so that it broadcasts against s: [..., 1]
    squared_norm = (s * s).sum(dim=-1, keepdim=True)
    # ||s||, with eps INSIDE the root: never 0, so s / ||s|| and its gradient are finite at s = 0
    norm = torch.sqrt(squared_norm + eps)
    # v = ||s||^2 / (1 + ||s||^2) * s / ||s||
    return squared_norm / (1 + squared_norm) * s / norm


if __name__ == "__main__":
    check_squash(my_squash)

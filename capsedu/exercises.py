"""Exercise checkers: compare a learner's function with the reference on fixed inputs.

A checker never raises: it prints PASS or FAIL with the largest difference, or "not implemented
yet" while the learner's function still raises ``NotImplementedError`` -- so a notebook with
unsolved exercises still runs top to bottom. It also returns ``True``/``False``/``None``.
"""

from collections.abc import Callable

import torch

from .functional import squash


def check(name: str, learner: Callable, reference: Callable, cases: list[tuple], atol=1e-5):
    """Call ``learner(*case)`` and ``reference(*case)`` for each case and compare the tensors."""
    worst = 0.0
    for args in cases:
        try:
            got = learner(*[a.clone() for a in args])
        except NotImplementedError:
            print(f"{name}: not implemented yet - replace the `raise NotImplementedError` line.")
            return None
        want = reference(*args)
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
            print(f"{name}: FAIL - expected a tensor of shape {tuple(want.shape)}, got {shape}.")
            return False
        diff = (got.double() - want.double()).abs()
        worst = max(worst, float(diff.nan_to_num(float("inf")).max()))
    if worst <= atol:
        print(f"{name}: PASS (largest difference {worst:.2e} on {len(cases)} cases)")
        return True
    print(f"{name}: FAIL - largest difference from the reference is {worst:.3g} "
          f"(allowed {atol:g}).")
    return False


def check_squash(learner: Callable) -> bool | None:
    """Check a learner's ``squash(s)`` (Eq. 1 along the last dim) on batches and at s = 0."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(4, 8, generator=g),), (3 * torch.randn(2, 5, 16, generator=g),),
             (torch.zeros(3, 8),), (torch.tensor([[3.0, 4.0]]),)]
    return check("squash", learner, squash, cases)

"""Exercise checkers: compare a learner's function with the reference on fixed inputs.

A checker never raises: it prints PASS or FAIL with the largest difference, or "not implemented
yet" while the learner's function still raises ``NotImplementedError`` -- so a notebook with
unsolved exercises still runs top to bottom. It also returns ``True``/``False``/``None``.
"""

from collections.abc import Callable

import torch

from .functional import squash
from .routing import routing_step


def check(name: str, learner: Callable, reference: Callable, cases: list[tuple], atol=1e-5):
    """Call ``learner(*case)`` and ``reference(*case)`` for each case and compare the results
    (a tensor, or a tuple of tensors compared element by element)."""
    worst = 0.0
    for args in cases:
        try:
            got = learner(*[a.clone() for a in args])
        except NotImplementedError:
            print(f"{name}: not implemented yet - replace the `raise NotImplementedError` line.")
            return None
        want = reference(*args)
        wants = want if isinstance(want, tuple) else (want,)
        gots = got if isinstance(got, tuple) else (got,)
        if len(gots) != len(wants):
            print(f"{name}: FAIL - expected {len(wants)} result(s), got {len(gots)}.")
            return False
        for g, w in zip(gots, wants, strict=True):
            if not isinstance(g, torch.Tensor) or g.shape != w.shape:
                shape = tuple(g.shape) if isinstance(g, torch.Tensor) else type(g).__name__
                print(f"{name}: FAIL - expected a tensor of shape {tuple(w.shape)}, got {shape}.")
                return False
            diff = (g.double() - w.double()).abs()
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


def check_routing_step(learner: Callable) -> bool | None:
    """Check a learner's ``routing_step(u_hat, b) -> (c, v, b_new)``: one iteration of
    Procedure 1 with u_hat ``[batch, n_in, n_out, d]`` and logits b ``[batch, n_in, n_out]``."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(2, 6, 3, 4, generator=g), torch.zeros(2, 6, 3)),
             (torch.randn(1, 5, 4, 8, generator=g), torch.randn(1, 5, 4, generator=g)),
             (torch.randn(3, 4, 2, 16, generator=g), 2 * torch.randn(3, 4, 2, generator=g))]
    return check("routing_step", learner, routing_step, cases)

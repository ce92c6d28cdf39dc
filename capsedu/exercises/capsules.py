"""The checkers of a capsule's maths: its pose vector (notebook 02), squash (03), one routing
step (04) and the whole of Procedure 1 (09's "find the bug"). After a FAIL, the routing checkers
name the known mistake the answers show (the softmax over the children, a missing squash, b
replaced instead of accumulated, logits shared over the batch, an iteration too many).
"""

from collections.abc import Callable

import torch

from ..capsule_vectors import pose_vector
from ..functional import squash
from ..routing import dynamic_routing, routing_step
from ..validate import Function, checked
from .checking import _as_tensor, _hint, _kept_dtype, _near, _Returned, _what, check

# --- 02 · capsules: vectors, not scalars --------------------------------------------------------


@checked(checker=True)
def check_pose_vector(learner: Function("your pose_vector(angle, presence)")) -> bool | None:
    """Check a learner's ``pose_vector(angle, presence)`` (tensors ``[n]`` -> ``[n, 2]``)."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.tensor([45.0]), torch.tensor([0.3])),
             (torch.tensor([0.0, 90.0, 180.0, 270.0]), torch.tensor([1.0, 0.5, 0.25, 0.0])),
             (360 * torch.rand(8, generator=g) - 180, torch.rand(8, generator=g))]
    return check("pose_vector", learner, pose_vector, cases)


# --- 03 · squash, 04 · routing ------------------------------------------------------------------


@checked(checker=True)
def check_squash(learner: Function("your squash(s)")) -> bool | None:
    """Check a learner's ``squash(s)`` (Eq. 1 along the last dim) on batches and at s = 0: first
    its values, then its gradient, which must be finite at s = 0 too (notebook 03, section 4)."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(4, 8, generator=g),), (3 * torch.randn(2, 5, 16, generator=g),),
             (torch.zeros(3, 8),), (torch.tensor([[3.0, 4.0]]),)]
    describe = lambda args: ("s = 0" if not args[0].any() else f"s of shape {tuple(args[0].shape)}")
    kept = _kept_dtype(learner, "squash")
    values = check("squash", learner, squash, cases, describe=describe)
    if not values:
        return values
    return check("squash's gradient", lambda s: _learners_gradient(kept, s),
                 lambda s: _gradient(squash, s), cases, describe=describe)


def _gradient(fn: Callable, s: torch.Tensor) -> torch.Tensor | None:
    """d(sum of v * w)/ds for v = fn(s) and fixed weights w: the gradient training would see;
    None where v is not computed from s (the graph from s to v is cut)."""
    s = s.detach().requires_grad_(True)
    w = torch.linspace(-1, 1, s.numel()).view(s.shape)  # weighs every output differently
    v = fn(s)
    if not isinstance(v, torch.Tensor):
        raise _Returned(f"your squash returned {_what(v)}, not a tensor: no gradient flows "
                        "through NumPy, Python lists or numbers. Write squash with torch "
                        "operations so that training can differentiate it")
    if not v.requires_grad:
        return None
    (grad,) = torch.autograd.grad((v * w).sum(), s, allow_unused=True)
    return grad


def _learners_gradient(learner: Callable, s: torch.Tensor) -> torch.Tensor:
    """The gradient through the learner's squash; ``_Returned`` where their result does not carry
    it back to s and squash's gradient is not 0 there (at s = 0 it is: a result made anew, such
    as zeros, is then right)."""
    grad = _gradient(learner, s)
    if grad is None and _gradient(squash, s).any():
        raise _Returned(
            "your squash's result does not carry the gradient back to s, so training could not "
            "learn through it: something cuts the graph from s to the result, such as .detach(), "
            "torch.tensor(...) of its numbers, .tolist(), .item() or .numpy(), a torch.no_grad() "
            "block, or requires_grad_() on a tensor made anew. Compute the result from s with "
            "torch operations only.")
    return torch.zeros_like(s) if grad is None else grad


@checked(checker=True)
def check_routing_step(learner: Function("your routing_step(u_hat, b)")) -> bool | None:
    """Check a learner's ``routing_step(u_hat, b) -> (c, v, b_new)``: one iteration of
    Procedure 1 with u_hat ``[batch, n_in, n_out, d]`` and logits b ``[batch, n_in, n_out]``."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(2, 6, 3, 4, generator=g), torch.zeros(2, 6, 3)),
             (torch.randn(1, 5, 4, 8, generator=g), torch.randn(1, 5, 4, generator=g)),
             (torch.randn(3, 4, 2, 16, generator=g), 2 * torch.randn(3, 4, 2, generator=g))]
    passed = check("routing_step", learner, routing_step, cases,
                   outputs=("c", "v", "b"),
                   describe=lambda c: f"u_hat of shape {tuple(c[0].shape)}, b of shape "
                                      f"{tuple(c[1].shape)}")
    if passed is False:
        _hint(_routing_step_mistake, learner, cases)
    return passed


def _routing_step_mistake(answers: list, cases: list[tuple]) -> str | None:
    """The known mistake of one routing step that the learner's ``(c, v, b)`` answers show on
    every case, in words (notebook 04, section 6, features the first)."""
    def every(test) -> bool:
        return all(test(answer, case) for answer, case in zip(answers, cases, strict=True))

    if not every(lambda a, case: isinstance(a, tuple) and len(a) == 3):
        return None
    if every(lambda a, case: _near(a[0].sum(dim=1), torch.ones(a[0].shape[0], a[0].shape[2]))
             and not _near(a[0].sum(dim=2), torch.ones(a[0].shape[:2]))):
        return ("your couplings sum to 1 over the children i (dim 1): the softmax runs over the "
                "wrong axis, the bug of notebook 04, section 6. Each child shares one vote among "
                "its parents: c_i = softmax(b_i) over the parents j, dim 2.")
    if not every(lambda a, case: _near(a[0], torch.softmax(case[1], dim=2))):
        return "c = softmax(b) over the parents (dim 2), computed from the b you were given."
    s = lambda case: torch.einsum("bij,bijd->bjd", torch.softmax(case[1], dim=2), case[0])
    if every(lambda a, case: _near(a[1], s(case))):
        return "v = s: the squash of Eq. 1, v_j = squash(s_j), is missing."
    if not every(lambda a, case: _near(a[1], squash(s(case)))):
        return ("v_j = squash(s_j) with s_j = sum_i c_ij u_hat_j|i: sum the predictions over the "
                "children i (dim 1), weighted by c.")
    agreement = lambda a, case: torch.einsum("bijd,bjd->bij", case[0], a[1].to(case[0].dtype))
    if every(lambda a, case: _near(a[2], agreement(a, case))):
        return ("your new b is the agreement alone: b must accumulate, b_ij <- b_ij + "
                "u_hat_j|i . v_j (the first case starts from b = 0, where this goes unseen).")
    return None


# --- 09 · routing under the microscope ----------------------------------------------------------


def _routing_cases() -> list[tuple]:
    """Predictions u_hat ``[batch, n_in, n_out, d]`` and an iteration count: several examples a
    batch, 1 to 5 iterations (replacing b instead of adding to it shows from the third on)."""
    g = torch.Generator().manual_seed(0)
    sizes = [(3, 6, 4, 5, 1), (2, 8, 3, 4, 2), (4, 7, 5, 8, 3), (3, 5, 4, 6, 5)]
    return [(2 * torch.randn(batch, n_in, n_out, d, generator=g), iterations)
            for batch, n_in, n_out, d, iterations in sizes]


def _routed(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Reference for ``check_dynamic_routing``: Procedure 1's outputs v and the couplings c that
    produced them."""
    result = dynamic_routing(u_hat, iterations)
    return result.v, result.c


@checked(checker=True)
def check_dynamic_routing(learner: Function("your routing(u_hat, iterations)")) -> bool | None:
    """Check a learner's ``routing(u_hat, iterations) -> (v, c)``: Procedure 1 on predictions
    u_hat ``[batch, n_in, n_out, d]``, returning the output capsules v ``[batch, n_out, d]`` and
    the couplings c ``[batch, n_in, n_out]`` that produced them (notebook 09's "find the bug").
    A FAIL is followed by the mistake the answers show, when it is a known one
    (``_routing_mistake``)."""
    cases = _routing_cases()
    passed = check("dynamic_routing", learner, _routed, cases,
                   outputs=("v", "c"),
                   describe=lambda case: f"u_hat of shape {tuple(case[0].shape)}, "
                                         f"iterations={case[1]}")
    if passed is False:
        _hint(lambda answers, cases: _routing_mistake(learner, answers, cases), learner, cases)
    return passed


def _routing_mistake(learner: Callable, answers: list, cases: list[tuple]) -> str | None:
    """The first known routing mistake that ``learner``'s ``answers`` on ``cases`` show, in
    words; None when they show none of them (or are not a pair of tensors of the right shapes,
    which ``check`` has already said)."""
    alone = [_as_tensor(learner(u_hat[:1].clone(), r)[0]) for u_hat, r in cases]  # 1st example
    shapes = lambda answer: [getattr(x, "shape", None) for x in answer]
    if any(not isinstance(answer, tuple) or shapes(answer) != shapes(_routed(*case))
           for answer, case in zip(answers, cases, strict=True)):
        return None
    close = lambda a, b: torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5)
    if not all(close(v_alone, v[:1]) for v_alone, (v, _) in zip(alone, answers, strict=True)):
        return ("the first example's v changes when other examples share its batch. Each example "
                "routes with logits b of its own, [batch, n_in, n_out]: never sum or average the "
                "agreements over the batch (dim 0).")
    couplings = [c for _, c in answers]
    if not all(close(c.sum(dim=2), torch.ones(c.shape[:2])) for c in couplings):
        if all(close(c.sum(dim=1), torch.ones(c.shape[0], c.shape[2])) for c in couplings):
            return ("your couplings sum to 1 over the children i (dim 1). Procedure 1 takes "
                    "c_i = softmax(b_i): each child i shares one vote among its parents j, so the "
                    "softmax runs over the parents, dim 2.")
        return "your couplings c do not sum to 1 over the parents j: c = softmax of b over dim 2."
    for (v, c), (u_hat, _) in zip(answers, cases, strict=True):
        # s_j = sum_i c_ij u_hat_j|i with the learner's own c; [batch, n_out, d]
        s = torch.einsum("bij,bijd->bjd", c.to(u_hat.dtype), u_hat)
        if close(v, s):
            return "v = s: the squash of Eq. 1, v_j = squash(s_j), is missing."
        if not close(v, squash(s)):
            return ("your v is not squash(s_j) with s_j = sum_i c_ij u_hat_j|i for the c you "
                    "return. Return the couplings that produced v (computed from b before its "
                    "last update), and sum the predictions over the children i, weighted by c.")
    for shift, words in ((1, "too many"), (-1, "too few")):
        compared = [(v, u_hat, r + shift) for (v, _), (u_hat, r) in zip(answers, cases,
                                                                         strict=True)
                    if r + shift >= 1]
        if all(close(v, dynamic_routing(u_hat, r).v) for v, u_hat, r in compared):
            return (f"you route one iteration {words}. With iterations=r, Procedure 1 computes "
                    "the couplings r times, the first time from b = 0 (uniform); iterations=1 "
                    "is uniform coupling, with no agreement used at all.")
    if all(close(v, _routed(u_hat, r)[0]) == (r <= 2) for (v, _), (u_hat, r) in zip(
            answers, cases, strict=True)):
        return ("your routing agrees with Procedure 1 for 1 and 2 iterations, not from 3 on: b "
                "must accumulate the agreements, b_ij <- b_ij + u_hat_j|i . v_j. Replacing b with "
                "the latest agreement gives the same couplings only up to the second iteration.")
    return None

"""Dynamic routing by agreement (Procedure 1 of Sabour, Frosst & Hinton 2017).

Every input (child) capsule i has made a prediction u_hat[j|i] for every output (parent)
capsule j. Routing decides how much of each child's vote goes to each parent: a child sends
more to the parents whose output agrees with its prediction. The coupling coefficients c_ij of
one child are a softmax over the *parents*, so they sum to 1 over j: each child distributes
one unit of vote. (Taking the softmax over the children instead is a common bug.)
"""

from typing import NamedTuple

import torch

from .functional import squash
from .validate import check_finite, check_float, check_integer, check_shape


class RoutingStep(NamedTuple):
    """One iteration of Procedure 1: the couplings used and the outputs they gave."""

    c: torch.Tensor  # [batch, n_in, n_out]
    v: torch.Tensor  # [batch, n_out, d_out]


class RoutingResult(NamedTuple):
    """What routing computed, with one ``RoutingStep`` per iteration for plots and widgets."""

    v: torch.Tensor  # [batch, n_out, d_out]  output capsules of the last iteration
    c: torch.Tensor  # [batch, n_in, n_out]   coupling coefficients that produced v
    b: torch.Tensor  # [batch, n_in, n_out]   logits after the last agreement update
    history: list[RoutingStep]


def routing_step(u_hat: torch.Tensor, b: torch.Tensor, softmax_over: str = "parents"):
    """One iteration of Procedure 1: logits ``b`` -> couplings ``c``, outputs ``v``, new ``b``.

    ``u_hat``: ``[batch, n_in, n_out, d_out]``; ``b``: ``[batch, n_in, n_out]``.
    ``softmax_over="children"`` reproduces a widespread bug (normalising over the inputs i
    instead of over the parents j), for notebooks 04 and 09 to show what it does.
    """
    if softmax_over not in ("parents", "children"):
        raise ValueError(f"softmax_over must be 'parents' or 'children', got {softmax_over!r}")
    # c_ij = exp(b_ij) / sum_k exp(b_ik): softmax over the parents j; [batch, n_in, n_out].
    # Taken on the [batch, n_out, n_in] transpose (parents = dim 1): on a CPU a softmax over a
    # short last dimension (10 parents) is many times slower than over a middle one.
    c = torch.softmax(b.transpose(1, 2), dim=1 if softmax_over == "parents" else 2).transpose(1, 2)
    # s_j = sum_i c_ij u_hat_j|i; [batch, n_out, d_out]
    s = torch.einsum("bij,bijd->bjd", c, u_hat)
    # v_j = squash(s_j)
    v = squash(s)
    # b_ij <- b_ij + u_hat_j|i . v_j  (agreement); [batch, n_in, n_out]
    b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return c, v, b


def dynamic_routing(
    u_hat: torch.Tensor,
    iterations: int = 3,
    grad_through_routing: bool = True,
    softmax_over: str = "parents",
) -> RoutingResult:
    """Route the predictions ``u_hat`` ``[batch, n_in, n_out, d_out]`` to the output capsules.

    Each example is routed on its own (the logits b are per example, never shared over the
    batch). ``iterations=1`` gives uniform coupling c_ij = 1 / n_out (no routing at all).

    ``grad_through_routing``: with ``True`` (Procedure 1 read literally) gradients flow through
    every iteration, including the agreement updates of b. With ``False`` the earlier iterations
    see a detached copy of u_hat: only the last iteration's weighted sum carries gradients back to
    u_hat, a cheaper variant many re-implementations use.

    ``softmax_over``: keep ``"parents"`` (the paper); ``"children"`` is the common bug.

    Returns ``RoutingResult(v, c, b, history)``; ``c`` sums to 1 over the output capsules, and
    ``b`` includes the final update of Procedure 1 (so ``c = softmax(b)`` before that update).
    """
    check_shape(u_hat, "u_hat", "[batch, n_in, n_out, d_out]", ndim=4)
    check_float(u_hat, "u_hat")
    check_finite(u_hat, "u_hat")
    check_integer(iterations, "iterations", 1, "the number of routing iterations; the paper uses 3")

    u_hat_inner = u_hat if grad_through_routing else u_hat.detach()
    # b_ij = 0: the prior log-probability that child i couples to parent j; [batch, n_in, n_out],
    # stored parent-major (as u_hat from RoutingCapsules), so the softmax above needs no copy
    batch, n_in, n_out = u_hat.shape[:3]
    b = u_hat.new_zeros(batch, n_out, n_in).transpose(1, 2)
    history = []
    for r in range(iterations):
        c, v, b = routing_step(u_hat if r == iterations - 1 else u_hat_inner, b, softmax_over)
        history.append(RoutingStep(c, v))
    return RoutingResult(v=v, c=c, b=b, history=history)

"""Dynamic routing by agreement (Procedure 1 of Sabour, Frosst & Hinton 2017).

Every input (child) capsule i has made a prediction u_hat[j|i] for every output (parent)
capsule j. Routing decides how much of each child's vote goes to each parent: a child sends
more to the parents whose output agrees with its prediction. The coupling coefficients c_ij of
one child are a softmax over the *parents*, so they sum to 1 over j: each child distributes
one unit of vote. (Taking the softmax over the children instead is a common bug.)

Three switches reproduce bugs that public re-implementations shipped, for notebook 09 to show
(``capsedu.bug_zoo`` describes each and cites where it was found); every one is off by default:
``softmax_over="children"``, ``logits_over_batch="sum"`` or ``"mean"``, and
``grad_through_output=False``.
"""

from typing import NamedTuple

import torch

from .functional import squash
from .validate import (
    check_choice,
    check_finite,
    check_flag,
    check_float,
    check_integer,
    check_shape,
)


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


# The values of the two routing choices, each with what it means (the error messages list them).
SOFTMAX_OVER = {
    "parents": "the paper: each child's couplings c_ij sum to 1 over its parents j",
    "children": "a bug: each parent's couplings sum to 1 over its children i",
}
LOGITS_OVER_BATCH = {
    "per_example": "the paper: each example routes with logits b of its own",
    "sum": "a bug: the agreements of all the batch's examples are summed into one shared b",
    "mean": "a bug: the agreements of all the batch's examples are averaged into one shared b",
}


def routing_step(
    u_hat: torch.Tensor,
    b: torch.Tensor,
    softmax_over: str = "parents",
    logits_over_batch: str = "per_example",
):
    """One iteration of Procedure 1: logits ``b`` -> couplings ``c``, outputs ``v``, new ``b``.

    ``u_hat``: ``[batch, n_in, n_out, d_out]``; ``b``: ``[batch, n_in, n_out]``.
    ``softmax_over="children"`` reproduces a widespread bug (normalising over the inputs i
    instead of over the parents j), for notebooks 04 and 09 to show what it does.
    ``logits_over_batch="sum"`` or ``"mean"`` reproduces another (notebook 09): the agreements of
    every example are added up (or averaged) over the batch into logits that all examples share,
    so one example's agreement changes the couplings of every other.
    """
    check_choice(softmax_over, "softmax_over", SOFTMAX_OVER)
    check_choice(logits_over_batch, "logits_over_batch", LOGITS_OVER_BATCH)
    # c_ij = exp(b_ij) / sum_k exp(b_ik): softmax over the parents j; [batch, n_in, n_out].
    # Taken on the [batch, n_out, n_in] transpose (parents = dim 1): on a CPU a softmax over a
    # short last dimension (10 parents) is many times slower than over a middle one.
    c = torch.softmax(b.transpose(1, 2), dim=1 if softmax_over == "parents" else 2).transpose(1, 2)
    # s_j = sum_i c_ij u_hat_j|i; [batch, n_out, d_out]
    s = torch.einsum("bij,bijd->bjd", c, u_hat)
    # v_j = squash(s_j)
    v = squash(s)
    # a_ij = u_hat_j|i . v_j, the agreement of child i with parent j; [batch, n_in, n_out]
    a = torch.einsum("bijd,bjd->bij", u_hat, v)
    if logits_over_batch == "sum":  # the bug: a_ij = sum_n a_ij(n), one for the batch; [1, ...]
        a = a.sum(dim=0, keepdim=True)
    elif logits_over_batch == "mean":  # the bug: a_ij = mean_n a_ij(n); [1, n_in, n_out]
        a = a.mean(dim=0, keepdim=True)
    # b_ij <- b_ij + a_ij; [batch, n_in, n_out] (a shared a_ij is added to every example's b)
    b = b + a
    return c, v, b


def dynamic_routing(
    u_hat: torch.Tensor,
    iterations: int = 3,
    grad_through_routing: bool = True,
    softmax_over: str = "parents",
    logits_over_batch: str = "per_example",
    grad_through_output: bool = True,
) -> RoutingResult:
    """Route the predictions ``u_hat`` ``[batch, n_in, n_out, d_out]`` to the output capsules.

    Each example is routed on its own (the logits b are per example, never shared over the
    batch, unless ``logits_over_batch`` asks for the bug). ``iterations=1`` gives uniform coupling
    c_ij = 1 / n_out (no routing at all).

    ``grad_through_routing``: with ``True`` (Procedure 1 read literally) gradients flow through
    every iteration, including the agreement updates of b. With ``False`` the earlier iterations
    see a detached copy of u_hat: only the last iteration's weighted sum carries gradients back to
    u_hat, a cheaper variant many re-implementations use. Both are legitimate.

    ``softmax_over``: keep ``"parents"`` (the paper); ``"children"`` is the common bug.

    ``logits_over_batch``: keep ``"per_example"`` (the paper); ``"sum"`` and ``"mean"`` are the
    bug of logits shared by the whole batch (``routing_step``).

    ``grad_through_output``: keep ``True``: the last iteration's s_j = sum_i c_ij u_hat_j|i uses
    u_hat itself, so the loss reaches u_hat (and W) through v. ``False`` is the bug of a stop-
    gradient put in the wrong place: the last iteration sums a detached u_hat too, so v reaches
    u_hat only through the couplings of the earlier iterations, and not at all when
    ``grad_through_routing`` is ``False`` as well (then nothing below v ever learns).

    Returns ``RoutingResult(v, c, b, history)``; ``c`` sums to 1 over the output capsules, and
    ``b`` includes the final update of Procedure 1 (so ``c = softmax(b)`` before that update).
    """
    check_shape(u_hat, "u_hat", "[batch, n_in, n_out, d_out]", ndim=4)
    check_float(u_hat, "u_hat")
    check_finite(u_hat, "u_hat")
    check_integer(iterations, "iterations", 1, "the number of routing iterations; the paper uses 3")
    check_flag(grad_through_output, "grad_through_output",
               "keep True; False is the bug that stops the gradient of the last iteration too")

    u_hat_inner = u_hat if grad_through_routing else u_hat.detach()
    u_hat_last = u_hat if grad_through_output else u_hat.detach()
    # b_ij = 0: the prior log-probability that child i couples to parent j; [batch, n_in, n_out],
    # stored parent-major (as u_hat from RoutingCapsules), so the softmax above needs no copy
    batch, n_in, n_out = u_hat.shape[:3]
    b = u_hat.new_zeros(batch, n_out, n_in).transpose(1, 2)
    history = []
    for r in range(iterations):
        c, v, b = routing_step(u_hat_last if r == iterations - 1 else u_hat_inner, b,
                               softmax_over, logits_over_batch)
        history.append(RoutingStep(c, v))
    return RoutingResult(v=v, c=c, b=b, history=history)

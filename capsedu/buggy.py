"""The bugs of notebook 09's zoo, as maths: each the paper's function with one thing changed.

Public CapsNet re-implementations shipped these (``bug_catalogue.BUGS`` says where and what the
threads show). Two are routing steps, passed to ``routing.dynamic_routing(step=...)`` or
``layers.RoutingCapsules(step=...)`` in place of the paper's ``routing.routing_step`` (04 routes
with the first, 09 with both); one is the margin loss without its squares
(``buggy_capsnet.BuggyCapsNet`` trains with it). The core (``routing``, ``functional``) implements
the paper and nothing else: the bugs live here only.
"""

import torch
import torch.nn.functional as F

from .functional import Lambda, Lengths, MMinus, MPlus, Targets, _present_classes
from .routing import Logits, Votes, _shaped, _squashed_sum, agreement, couplings, outputs
from .validate import checked


@checked
def step_softmax_over_children(u_hat: Votes, b: Logits) -> tuple[torch.Tensor, ...]:
    """``routing.routing_step`` with the softmax over the children i instead of the parents j."""
    _shaped("step_softmax_over_children", "b", b, tuple(u_hat.shape[:3]), "[batch, n_in, n_out]",
            u_hat)
    # the bug: c_ij = exp(b_ij) / sum_k exp(b_kj), each parent's couplings sum to 1 over the
    # children; [batch, n_in, n_out] (taken on the parent-major transpose, as couplings does)
    c = torch.softmax(b.transpose(1, 2), dim=2).transpose(1, 2)
    v = _squashed_sum(u_hat, c)  # outputs(u_hat, c) would refuse them
    return c, v, b + agreement(u_hat, v)


@checked
def step_logits_shared_over_batch(u_hat: Votes, b: Logits) -> tuple[torch.Tensor, ...]:
    """``routing.routing_step`` with one set of logits for the whole batch: every example's
    agreement is averaged into the b that all examples share."""
    _shaped("step_logits_shared_over_batch", "b", b, tuple(u_hat.shape[:3]),
            "[batch, n_in, n_out]", u_hat)
    c = couplings(b)
    v = outputs(u_hat, c)
    # the bug: a_ij = mean_n a_ij(n), one for the batch; [1, n_in, n_out], added to every b
    return c, v, b + agreement(u_hat, v).mean(dim=0, keepdim=True)


@checked
def unsquared_margin_loss(lengths: Lengths, targets: Targets, m_plus: MPlus = 0.9,
                          m_minus: MMinus = 0.1, lam: Lambda = 0.5) -> torch.Tensor:
    """``functional.margin_loss`` with both terms unsquared: zero in the same places, but its slope
    no longer fades near the margins (a length just short of m+ is pushed as hard as one far
    below it). ``lengths`` ``[batch, classes]``, ``targets`` ``[batch]`` or ``[batch, k]`` labels,
    checked as ``margin_loss`` checks them (the bug is the missing square, nothing else)."""
    T = _present_classes("unsquared_margin_loss", lengths, targets, m_plus, m_minus)
    # the bug: L_k = T_k max(0, m+ - ||v_k||) + lambda (1 - T_k) max(0, ||v_k|| - m-), power 1
    L = T * F.relu(m_plus - lengths) + lam * (1 - T) * F.relu(lengths - m_minus)
    return L.sum(dim=1).mean()

"""What routing does to the couplings (notebook 09): how far each child's c_ij are from uniform,
iteration by iteration.

A child i spreads one unit of vote over its parents j (the c_ij sum to 1 over j). Uniform coupling
(1 / n_out each, the first iteration) has the largest entropy, log(n_out); a child that sends
everything to one parent has entropy 0. Paik et al. (2019) report that routing *polarises* the
couplings as iterations grow; these statistics let a notebook check that for any routed model.
"""

import math
from dataclasses import dataclass

import torch
from torch import nn

from .capsnet import routing_iterations
from .course_settings import Batch, Name
from .routing import MAX_ITERATIONS, Routed, RoutingResult, _check_shares
from .validate import CheckedRecord, Float, Int, Tensor, checked

Couplings = Tensor("couplings c [batch, n_in, n_out]", ndim=3, floating=True, finite=True)
# what to do with couplings that are no split of one vote (routing._check_shares refuses them)
_DIVIDE = ("pass routing's c, not its logits b (c = routing.couplings(b)), or divide each child's "
           "couplings by their sum, c / c.sum(dim=-1, keepdim=True)")


@checked
def normalised_entropy(c: Couplings) -> torch.Tensor:
    """Entropy of each child's couplings over the parents divided by its maximum, log(n_out):
    1 for uniform coupling, 0 for all vote to one parent. ``c``: ``[B, n_in, n_out]`` ->
    ``[B, n_in]``. One parent has no choice to measure (log 1 = 0): refused."""
    _check_shares("normalised_entropy", c, _DIVIDE)
    if c.shape[-1] < 2:
        raise ValueError(f"normalised_entropy(): c must hold couplings to at least 2 parents "
                         f"(n_out), got shape {tuple(c.shape)}; pass the couplings of a layer "
                         "with two or more parents (with one, each child sends it everything "
                         "and the maximum, log 1, is 0)")
    # H_i = -sum_j c_ij log c_ij  (0 log 0 = 0)
    H = -(c * c.clamp_min(1e-30).log()).sum(dim=-1)
    # uniform couplings' float rounding can pass the maximum by an ulp: 1 is the most there is
    return (H / math.log(c.shape[-1])).clamp(max=1)


@checked
def distance_from_uniform(c: Couplings) -> torch.Tensor:
    """Total-variation distance of each child's couplings from uniform coupling: half the sum of
    ``|c_ij - 1/n_out|`` over the parents, in [0, 1 - 1/n_out]. ``c``: ``[B, n_in, n_out]`` ->
    ``[B, n_in]``."""
    _check_shares("distance_from_uniform", c, _DIVIDE)
    return 0.5 * (c - 1 / c.shape[-1]).abs().sum(dim=-1)


# the largest normalised entropy of a polarised child: 0.9 and 0.1 over two parents
_POLARISED_ENTROPY = 0.469


@dataclass(frozen=True)
class CouplingStep(CheckedRecord):
    """How far the couplings of one routing iteration are from uniform (``coupling_trace``),
    means over the children."""

    # normalised entropy of a child's couplings (1: uniform, 0: one parent)
    entropy: Float("the mean normalised entropy of a child's couplings, 0..1", ge=0, le=1)
    distance: Float("the mean total-variation distance from uniform coupling, below 1", ge=0,
                    lt=1)
    # the share of children sending more than 90 % of their vote to one parent
    polarised: Float("the share of children polarised", ge=0, le=1)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a polarised share that the mean
        entropy and distance rule out: a polarised child (> 0.9 to one parent) has a normalised
        entropy of at most 0.469 (two parents, 0.9 and 0.1) and a distance from uniform of at
        least 0.4 (0.9 - 1/2), so ``polarised`` is at most ``(1 - entropy) / 0.531`` and at most
        ``distance / 0.4``."""
        super().__post_init__()
        bounds = {"(1 - entropy) / 0.531": (1 - self.entropy) / (1 - _POLARISED_ENTROPY),
                  "distance / 0.4": self.distance / 0.4}
        for rule, most in bounds.items():
            if self.polarised > most + 1e-6:
                raise ValueError(
                    f"CouplingStep(): polarised must be at most {rule} = {most:.4g} (a child "
                    f"sending > 90 % to one parent has entropy <= {_POLARISED_ENTROPY} and "
                    f"distance >= 0.4), got polarised={self.polarised:g} with entropy="
                    f"{self.entropy:g}, distance={self.distance:g}; uniform and polarised at "
                    "once: pass the steps coupling_trace(...) gives")


@checked
def coupling_trace(routing: Routed,
                   weights: Tensor("each child's weight [B, n_in], each >= 0", ndim=2,
                                   floating=True, finite=True, within=(0, math.inf),
                                   fix="pass weights >= 0, e.g. the votes' lengths") | None = None
                   ) -> list[CouplingStep]:
    """One ``CouplingStep`` per routing iteration: the mean ``entropy`` (normalised) and
    ``distance`` from uniform of the couplings that iteration used, and the share of children
    sending more than 90 % of their vote to one parent (``polarised``). ``weights``
    ``[B, n_in]`` (e.g. the lengths of the children's votes) weight each child in the means;
    without them every child counts the same."""
    if routing.c.shape[-1] < 2:
        raise ValueError(f"coupling_trace(): routing must route to at least 2 parents (n_out), "
                         f"got c of shape {tuple(routing.c.shape)}; with one, each child sends "
                         "it everything and there is no choice to measure")
    w = torch.ones(routing.c.shape[:2]) if weights is None else weights  # [B, n_in]
    if w.shape != routing.c.shape[:2] or not w.sum() > 0:
        raise ValueError(f"coupling_trace(): weights must hold one weight >= 0 per child of the "
                         f"routing, [B, n_in] = {list(routing.c.shape[:2])}, not all 0, got shape "
                         f"{tuple(w.shape)} summing to {w.sum().item():g}; pass e.g. the lengths "
                         "of the children's votes")
    w = w / w.sum()

    def mean(values):  # a weighted mean is at most the largest value (float rounding aside)
        return min(float((values * w).sum()), float(values.max()))

    return [CouplingStep(entropy=mean(normalised_entropy(step.c)),
                         distance=mean(distance_from_uniform(step.c)),
                         polarised=mean((step.c.amax(dim=-1) > 0.9).float()))
            for step in routing.history]


@torch.no_grad()
@checked(reads=("model", "images"))
def route(model: nn.Module, images: Batch,
          iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS)) -> RoutingResult:
    """``model``'s routing of ``images``, run for ``iterations`` iterations, its weights
    unchanged: a CapsNet (a model with a ``digits`` layer) through
    ``capsnet.routing_iterations``; notebook 07's face models through their ``capsules``."""
    if hasattr(model, "digits"):
        with routing_iterations(model, iterations):
            return model(images).routing
    if not hasattr(model, "capsules"):
        raise TypeError(f"route(): model must route: a CapsNet (with a 'digits' layer) or a "
                        f"pose-capsule model (with 'capsules'), got a {type(model).__name__}; a "
                        "CNN has no couplings to trace")
    return model.capsules(images, iterations=iterations).routing


@checked
def trace_line(name: Name, trace: list[CouplingStep],
               trained_with: Int("the iterations the model was trained with", ge=1,
                                 le=MAX_ITERATIONS) = 3) -> str:
    """One line on a ``coupling_trace``: its mean entropy and polarised share after the
    ``trained_with`` iterations a model was trained with, and after its last iteration."""
    if not trace:
        raise ValueError("trace_line(): trace must hold at least one iteration's CouplingStep, "
                         "got []; pass coupling_trace(...) of a routing")
    if not 1 <= trained_with <= len(trace):
        raise ValueError(f"trace_line(): trained_with must be an iteration of the trace (1 to "
                         f"{len(trace)}), got {trained_with}; pass one of those")
    at, last = trace[trained_with - 1], trace[-1]
    return (f"{name:<28} after {trained_with} iterations: entropy {at.entropy:.3f}, "
            f"polarised {100 * at.polarised:.1f} %; after {len(trace)}: "
            f"entropy {last.entropy:.3f}, polarised {100 * last.polarised:.1f} %")

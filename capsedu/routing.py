"""Dynamic routing by agreement (Procedure 1 of Sabour, Frosst & Hinton 2017).

Every input (child) capsule i has made a prediction u_hat[j|i] for every output (parent)
capsule j. Routing decides how much of each child's vote goes to each parent: a child sends
more to the parents whose output agrees with its prediction. The coupling coefficients c_ij of
one child are a softmax over the *parents*, so they sum to 1 over j: each child distributes
one unit of vote. This module is the paper's routing and nothing else; the bugs that public
re-implementations shipped live in ``capsedu.buggy`` (notebook 09).
"""

import functools
import math
from collections.abc import Hashable
from typing import NamedTuple

import torch

from .course_settings import Checked
from .functional import squash
from .memory import check_memory
from .refusals import arguments, kind_of, shown
from .validate import Flag, Int, Tensor, checked

# Far past any use (the paper routes 3 times, notebook 09 up to 5): each iteration keeps its
# couplings and outputs for the backward pass, so a careless 10**6 would fill the memory.
MAX_ITERATIONS = 100


def _check_tensors(record: str, fix: str, **fields: tuple[object, int | tuple[int, ...]]) -> None:
    """Refuse, in the words of ``record`` (a NamedTuple made by hand: a model makes its own with
    ``_made``, unchecked), a field (``name=(value, ndim)``, or a tuple of the numbers of
    dimensions it may have) that is no torch.Tensor of that many dimensions."""
    for name, (got, ndim) in fields.items():
        ndims = (ndim,) if isinstance(ndim, int) else ndim
        if not isinstance(got, torch.Tensor) or got.ndim not in ndims:
            raise TypeError(f"{record}(): {name} must be a torch.Tensor with "
                            f"{' or '.join(map(str, ndims))} dimensions, got {kind_of(got)[:60]}; "
                            f"{fix}")


def _check_values(record: str, fix: str, within: tuple[float, float] | None = None,
                  **fields: torch.Tensor) -> None:
    """Refuse, in ``record``'s words, a field that holds no floating numbers, a NaN or an
    infinity, or (``within``) a number off ``[low, high]``: a record made by hand must hold
    what a model could give, or a consumer computes from it without a word."""
    for name, got in fields.items():
        if not got.is_floating_point():
            raise TypeError(f"{record}(): {name} must hold floating numbers, got dtype "
                            f"{got.dtype}; {fix}")
        bad = int((~torch.isfinite(got)).sum())
        span = f" in [{within[0]}, {within[1]}]" if within else ""
        if bad or (within and got.numel() and not within[0] <= got.min() <= got.max()
                   <= within[1]):
            got_ = f"{bad} NaN or infinite value(s)" if bad else \
                f"values from {got.min():.4g} to {got.max():.4g}"
            raise ValueError(f"{record}(): {name} must hold finite numbers{span}, got {got_}; "
                             f"{fix}")


def _rounding(x: torch.Tensor) -> float:
    """How far a sum of ``x``'s floats may stray from its exact value (a softmax's sum from 1)."""
    return max(1e-4, 100 * torch.finfo(x.dtype).eps)


def _check_shares(where: str, c: torch.Tensor, fix: str) -> None:
    """Refuse couplings ``c`` [batch, n_in, n_out] that are no child's split of one vote, in the
    words of ``where`` (a function or a record): a number off [0, 1] (logits b, or votes, where c
    belongs), or a child whose couplings do not sum to 1 over the parents (a softmax over j gives
    both, float rounding aside)."""
    c = c.detach()  # a check, not a step of the computation: autograd keeps nothing of it
    if c.numel() and (c.min() < 0 or c.max() > 1):
        raise ValueError(f"{where}(): c must hold couplings in [0, 1] (a softmax of the logits), "
                         f"got values from {c.min():.4g} to {c.max():.4g}; {fix}")
    sums = c.sum(dim=-1)  # [batch, n_in]: one unit of vote per child
    if sums.numel() and not torch.allclose(sums, torch.ones_like(sums), rtol=0,
                                           atol=_rounding(c)):
        raise ValueError(f"{where}(): c must sum to 1 over the parents for every child (a "
                         f"softmax over j), got sums from {sums.min():.4g} to {sums.max():.4g}; "
                         f"{fix}")


def _check_routed_values(record: str, fix: str, c: torch.Tensor, v: torch.Tensor) -> None:
    """Refuse couplings ``c`` [batch, n_in, n_out] that are not each child's split of one vote
    (``_check_shares``) and outputs ``v`` [batch, n_out, d_out] not squashed (a length above 1)."""
    _check_values(record, fix, v=v, c=c)
    _check_shares(record, c, fix)
    lengths = v.detach().norm(dim=2)  # [batch, n_out]
    if lengths.numel() and lengths.max() > 1 + _rounding(v):
        raise ValueError(f"{record}(): v must hold squashed outputs, each of length at most 1, "
                         f"got one of length {lengths.max():.4g}; {fix}")


class _Remade:
    """The first base of a NamedTuple record checked in its ``__new__`` when made by hand: its
    ``_make`` and ``_replace`` (which builds with ``_make``) go through that ``__new__`` too, so
    ``out._replace(lengths=...)`` is checked as a direct call is; a wrong number of values or an
    unknown field is refused in the record's words, naming its fields (NamedTuple's own, which
    this comes before, check nothing). A model or routing makes its records with ``_made``,
    unchecked: a forward pass pays nothing, and a buggy model's couplings (the bug it shows) are
    never refused."""

    __slots__ = ()

    @classmethod
    def _made(cls, *values):
        """The record of ``values`` as a model or routing computed them: trusted, not checked."""
        return tuple.__new__(cls, values)

    def __reduce__(self):  # a pickled or copied record comes back as it was, unchecked
        return type(self)._made, tuple(self)

    @classmethod
    def _make(cls, iterable):
        values = tuple(iterable)
        if len(values) != len(cls._fields):
            raise TypeError(f"{cls.__name__}._make(): iterable must hold {len(cls._fields)} "
                            f"values, one per field ({', '.join(cls._fields)}), got "
                            f"{len(values)}; pass one for each field")
        return cls(*values)

    def _replace(self, **changes):
        arguments(f"{type(self).__name__}._replace()", list(self._fields), (), changes)
        fields = zip(self._fields, self, strict=True)  # each field's value, changed or as it is
        return self._make(changes.get(field, value) for field, value in fields)


class _Step(NamedTuple):
    c: torch.Tensor  # [batch, n_in, n_out]
    v: torch.Tensor  # [batch, n_out, d_out]


class RoutingStep(_Remade, _Step):
    """One iteration of Procedure 1: the couplings used and the outputs they gave; checked when
    made by hand, shapes and values, as ``RoutingResult`` (routing makes one per iteration with
    ``_made``)."""

    __slots__ = ()

    def __new__(cls, c, v):
        _check_tensors("RoutingStep", "pass one iteration's couplings c and outputs v, e.g. a "
                      "step of dynamic_routing(u_hat).history", c=(c, 3), v=(v, 3))
        if v.shape[:2] != (c.shape[0], c.shape[2]):
            raise ValueError(f"RoutingStep(): c must be [batch, n_in, n_out] and v [batch, n_out, "
                             f"d_out], got c {tuple(c.shape)}, v {tuple(v.shape)}; pass one "
                             "iteration's")
        _check_routed_values("RoutingStep", "pass one iteration's, e.g. a step of "
                             "dynamic_routing(u_hat).history", c, v)
        return super().__new__(cls, c, v)


class _Routing(NamedTuple):
    v: torch.Tensor  # [batch, n_out, d_out]  output capsules of the last iteration
    c: torch.Tensor  # [batch, n_in, n_out]   coupling coefficients that produced v
    b: torch.Tensor  # [batch, n_in, n_out]   logits after the last agreement update
    history: list[RoutingStep]


class RoutingResult(_Remade, _Routing):
    """What routing computed, with one ``RoutingStep`` per iteration for plots and widgets;
    checked when made by hand: tensors of one routing's shapes, finite, the couplings each
    child's split of one vote, the outputs squashed (routing makes one per call with ``_made``,
    unchecked)."""

    __slots__ = ()

    def __new__(cls, v, c, b, history):
        _check_tensors("RoutingResult", "pass what routing computed, e.g. dynamic_routing(u_hat)",
                      v=(v, 3), c=(c, 3), b=(b, 3))
        if c.shape != b.shape or v.shape[:2] != (c.shape[0], c.shape[2]):
            raise ValueError(f"RoutingResult(): c and b must be [batch, n_in, n_out] and v "
                             f"[batch, n_out, d_out], got c {tuple(c.shape)}, b "
                             f"{tuple(b.shape)}, v {tuple(v.shape)}; pass one routing's")
        if not isinstance(history, list) or not all(isinstance(s, RoutingStep) for s in history):
            raise TypeError(f"RoutingResult(): history must be a list of RoutingStep, one per "
                            f"iteration, got {kind_of(history)[:60]}; pass [] or the steps")
        _check_steps("RoutingResult(): history", history, c, v)
        _check_routed_values("RoutingResult", "pass what routing computed, e.g. "
                             "dynamic_routing(u_hat)", c, v)
        _check_values("RoutingResult", "pass what routing computed", b=b)
        return super().__new__(cls, v, c, b, history)


def _check_routed(routing, name: str) -> RoutingResult:
    """Refuse anything but a ``RoutingResult`` of at least one step, each step's ``c`` and ``v``
    of the result's shapes: a record built by hand, read by a statistic or a figure, would give
    numbers off their bounds without a word (the results routing makes are never refused)."""
    if not isinstance(routing, RoutingResult):
        raise TypeError(f"{name} must be a RoutingResult (model(x).routing), got "
                        f"{kind_of(routing)[:60]}; pass the routing of a model's output")
    if not routing.history:
        raise ValueError(f"{name} must hold at least one routing step in its history, got none; "
                         "pass the routing of a model's output, which keeps every iteration")
    _check_steps(name, routing.history, routing.c, routing.v)
    return routing


def _check_steps(name: str, history: list, c: torch.Tensor, v: torch.Tensor) -> None:
    """Refuse a ``history`` whose steps' ``c`` and ``v`` are not of the routing's own shapes
    (the steps of another routing, another batch), in the words of ``name``."""
    for i, step in enumerate(history):
        for field, want in (("c", c), ("v", v)):
            got = getattr(step, field, None)
            if not isinstance(got, torch.Tensor) or got.shape != want.shape:
                shape = tuple(got.shape) if isinstance(got, torch.Tensor) else shown(got)[:40]
                raise ValueError(f"{name} must hold steps of its own shapes, got history[{i}]."
                                 f"{field} of shape {shape} where its {field} has "
                                 f"{tuple(want.shape)}; pass the routing of one model's output")


# the routing of a model's output (out.routing), its steps agreeing with it
Routed = Checked(_check_routed, "a RoutingResult (model(x).routing) of at least one step, each "
                 "of its c's and v's shapes", "record")


def _shaped(where: str, name: str, x: torch.Tensor, sizes: tuple[int, ...], layout: str,
            u_hat: torch.Tensor) -> None:
    """Refuse ``x`` unless its shape is ``sizes``, the one its partner ``u_hat`` implies."""
    if tuple(x.shape) != sizes:
        raise ValueError(f"{where}(): {name} must have shape {layout} = {list(sizes)} to match "
                         f"u_hat of shape {list(u_hat.shape)}, got shape {tuple(x.shape)}; pass "
                         f"the {name} computed from these votes")
    if x.dtype != u_hat.dtype:
        raise TypeError(f"{where}(): {name} must have u_hat's dtype {u_hat.dtype}, got {x.dtype}; "
                        f"convert one of them, e.g. {name}.to(u_hat.dtype)")


# the votes and logits a step is tried on (no random draw: the seed's stream stays untouched), and
# the shapes of the (c, v, b) it must give: [batch, n_in, n_out], [batch, n_out, d_out], as b
TRIAL_VOTES = (2, 3, 2, 4)
TRIAL_SHAPES = [(2, 3, 2), (2, 2, 4), (2, 3, 2)]


@functools.lru_cache(maxsize=64)
def _trial(step) -> str | None:
    """What goes wrong when ``step`` runs one iteration on small votes (None: nothing)."""
    u_hat = torch.linspace(-1, 1, math.prod(TRIAL_VOTES)).reshape(TRIAL_VOTES)
    b = torch.zeros(TRIAL_SHAPES[0])
    on = f"on votes {list(TRIAL_VOTES)} and logits {list(TRIAL_SHAPES[0])}"
    try:
        with torch.no_grad():
            out = step(u_hat, b)
    except Exception as err:  # whatever it raises, it is no routing step
        return f"{getattr(step, '__name__', 'it')} fails {on} ({str(err).split(';')[0][:200]})"
    shapes = [tuple(t.shape) if isinstance(t, torch.Tensor) else shown(t) for t in out] \
        if isinstance(out, tuple | list) else None
    if shapes != TRIAL_SHAPES:
        got = shown(out) if shapes is None else f"shapes {shapes}"
        return f"{getattr(step, '__name__', 'it')} gives {got} {on}, not {TRIAL_SHAPES}"
    return None


def _routing_step(step, name: str):
    """Refuse ``step`` unless it is a function that does one iteration of routing, ``(u_hat, b) ->
    (c, v, b)`` as ``routing_step``: tried once on small votes, so that a function of another
    form (``squash``) is refused by the caller's name for it, not by its own error inside."""
    if not callable(step):
        raise TypeError(f"{name} must be a routing step, a function (u_hat, b) -> (c, v, b), got "
                        f"{shown(step)}; pass the function itself, by its name without "
                        "parentheses: routing_step, not routing_step(u_hat, b)")
    problem = (_trial if isinstance(step, Hashable) else _trial.__wrapped__)(step)
    if problem:
        raise TypeError(f"{name} must return (c, v, b), the couplings, outputs and new logits of "
                        f"one iteration, as routing_step does, but {problem}; pass routing_step, "
                        "a step of capsedu.buggy, or a function of that form")
    return step


# one iteration of routing: (u_hat, b) -> (c, v, new b), tried before it routes
Step = Checked(_routing_step, "a routing step, a function (u_hat, b) -> (c, v, b) as "
               "routing_step", "function")


# What routing's pieces take, declared once (``buggy``'s steps take the same): finite numbers,
# as ``dynamic_routing`` checks its votes (a NaN would make every parent after it NaN)
Votes = Tensor("the votes u_hat [batch, n_in, n_out, d_out]", ndim=4, floating=True, finite=True)
Logits = Tensor("the logits b [batch, n_in, n_out]", ndim=3, floating=True, finite=True)
Parents = Tensor("the outputs v [batch, n_out, d_out]", ndim=3, floating=True, finite=True)
Couplings = Tensor("the couplings c [batch, n_in, n_out]", ndim=3, floating=True, finite=True,
                   within=(0, 1), fix="pass routing.couplings(b), not b")


def _check_some(where: str, name: str, x: torch.Tensor, layout: str) -> None:
    """Refuse a tensor with a dimension of size 0 (no child, no parent, no slot): a softmax over
    nothing, or a mean of nothing, gives an empty or a zero result without a word."""
    if 0 in x.shape:
        raise ValueError(f"{where}(): {name} must hold at least one of each of {layout}, got shape "
                         f"{tuple(x.shape)}; a softmax over nothing has nothing to weigh")


@checked
def couplings(b: Logits) -> torch.Tensor:
    """c ``[batch, n_in, n_out]`` from the logits ``b`` ``[batch, n_in, n_out]``: a softmax over
    the parents j, so each child's couplings sum to 1."""
    _check_some("couplings", "b", b, "[batch, n_in, n_out]")
    # c_ij = exp(b_ij) / sum_k exp(b_ik). Taken on the [batch, n_out, n_in] transpose (parents =
    # dim 1): on a CPU a softmax over a short last dimension (10 parents) is many times slower
    # than over a middle one.
    return torch.softmax(b.transpose(1, 2), dim=1).transpose(1, 2)


@checked
def outputs(u_hat: Votes, c: Couplings) -> torch.Tensor:
    """The parents' outputs v ``[batch, n_out, d_out]``: the votes ``u_hat``
    ``[batch, n_in, n_out, d_out]`` weighted by the couplings ``c`` and squashed; each child's
    couplings sum to 1 over the parents (``couplings(b)``)."""
    _check_some("outputs", "u_hat", u_hat, "[batch, n_in, n_out, d_out]")
    _shaped("outputs", "c", c, tuple(u_hat.shape[:3]), "[batch, n_in, n_out]", u_hat)
    _check_shares("outputs", c, "pass routing.couplings(b), not b")
    return _squashed_sum(u_hat, c)


def _squashed_sum(u_hat: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``outputs`` without its checks, for a step whose couplings are not the paper's
    (``buggy.step_softmax_over_children``: each parent's sum to 1 over the children)."""
    # v_j = squash(s_j), s_j = sum_i c_ij u_hat_j|i; [batch, n_out, d_out]
    return squash(torch.einsum("bij,bijd->bjd", c, u_hat))


@checked
def agreement(u_hat: Votes, v: Parents) -> torch.Tensor:
    """a ``[batch, n_in, n_out]``: how far each child's vote agrees with each parent's output."""
    _check_some("agreement", "u_hat", u_hat, "[batch, n_in, n_out, d_out]")
    batch, _, n_out, d_out = u_hat.shape
    _shaped("agreement", "v", v, (batch, n_out, d_out), "[batch, n_out, d_out]", u_hat)
    # a_ij = u_hat_j|i . v_j
    return torch.einsum("bijd,bjd->bij", u_hat, v)


@checked
def routing_step(u_hat: Votes, b: Logits) -> tuple[torch.Tensor, ...]:
    """One iteration of Procedure 1: logits ``b`` -> couplings ``c``, outputs ``v``, new ``b``.

    ``u_hat``: ``[batch, n_in, n_out, d_out]``; ``b``: ``[batch, n_in, n_out]``.
    """
    _check_some("routing_step", "u_hat", u_hat, "[batch, n_in, n_out, d_out]")
    _shaped("routing_step", "b", b, tuple(u_hat.shape[:3]), "[batch, n_in, n_out]", u_hat)
    c = couplings(b)
    v = outputs(u_hat, c)
    # b_ij <- b_ij + a_ij; [batch, n_in, n_out]
    return c, v, b + agreement(u_hat, v)


@checked
def dynamic_routing(
    u_hat: Votes,
    iterations: Int("routing iterations; the paper uses 3", ge=1, le=MAX_ITERATIONS) = 3,
    grad_through_routing: Flag("whether gradients flow through every iteration") = True,
    step: Step = routing_step,
) -> RoutingResult:
    """Route the predictions ``u_hat`` ``[batch, n_in, n_out, d_out]`` to the output capsules.

    Each example is routed on its own: the logits b are per example, never shared over the
    batch. ``iterations=1`` gives uniform coupling c_ij = 1 / n_out (no routing at all).

    ``grad_through_routing``: with ``True`` (Procedure 1 read literally) gradients flow through
    every iteration, including the agreement updates of b. With ``False`` the earlier iterations
    see a detached copy of u_hat: only the last iteration's weighted sum carries gradients back to
    u_hat, a cheaper variant many re-implementations use. Both are legitimate.

    ``step``: one iteration, ``(u_hat, b) -> (c, v, b)``; ``routing_step`` is the paper's
    (``capsedu.bug_zoo`` passes the buggy ones of notebook 09).

    Returns ``RoutingResult(v, c, b, history)``; ``c`` sums to 1 over the output capsules, and
    ``b`` includes the final update of Procedure 1 (so ``c = softmax(b)`` before that update).
    """
    _check_some("dynamic_routing", "u_hat", u_hat, "[batch, n_in, n_out, d_out]")
    if u_hat.requires_grad and torch.is_grad_enabled():
        # autograd keeps about 3 copies of u_hat per differentiated iteration (measured: 2.5)
        graphed = iterations if grad_through_routing else 1
        check_memory((3 * graphed + 2) * u_hat.numel() * u_hat.element_size(),
                     f"dynamic_routing() with gradients through {graphed} iteration(s) of u_hat "
                     f"{list(u_hat.shape)}", "pass fewer iterations (the paper uses 3), a smaller "
                     "batch, grad_through_routing=False, or u_hat.detach() under torch.no_grad()")
    u_hat_inner = u_hat if grad_through_routing else u_hat.detach()
    # b_ij = 0: the prior log-probability that child i couples to parent j; [batch, n_in, n_out],
    # stored parent-major (as u_hat from RoutingCapsules), so the softmax above needs no copy
    batch, n_in, n_out = u_hat.shape[:3]
    b = u_hat.new_zeros(batch, n_out, n_in).transpose(1, 2)
    history = []
    for r in range(iterations):
        # the last iteration sums u_hat itself: the loss reaches u_hat (and W) through v
        out = step(u_hat if r == iterations - 1 else u_hat_inner, b)
        if not (isinstance(out, tuple | list) and len(out) == 3
                and all(isinstance(t, torch.Tensor) for t in out)):
            raise TypeError(f"dynamic_routing(): step must return (c, v, b), three tensors, as "
                            f"routing_step does, got {type(out).__name__} {str(out)[:60]}; see "
                            "routing.routing_step for the form a step takes")
        c, v, b = out
        history.append(RoutingStep._made(c, v))
    return RoutingResult._made(v, c, b, history)

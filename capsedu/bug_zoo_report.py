"""The bug zoo, shown (notebook 09): the tables and sentences printed from its recorded runs, and
what its widget shows, a trained CapsNet's routing of one digit with a bug switched on.

The runs are ``bug_zoo``'s records (``ZooRun``, by name), each bug's effect a ``BugEffect``;
``describe_record``, ``live_table``, ``step_table`` and ``effect_lines`` turn them into text.
``zoo_state`` is the pure function behind ``widgets.BugZooExplorer``: a bug in the routing step
is switched on where it acts, at inference; a bug of training only leaves the paper's routing, and
its effect is shown by its recorded run. It returns a ``ZooState``.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch

from .bug_catalogue import BUGS
from .bug_zoo import COMMAND, CORRECT, BugEffect, CouplingStats, Zoo, ZooRun, coupling_stats
from .buggy import step_logits_shared_over_batch
from .checks import check_labels, check_same
from .coupling_polarisation import normalised_entropy
from .derived import check_read
from .layers import MAX_CHILDREN
from .routing import (
    MAX_ITERATIONS,
    RoutingResult,
    RoutingStep,
    dynamic_routing,
    routing_step,
)
from .statistics import running_mean
from .validate import (
    CheckedRecord,
    Choice,
    Flag,
    Float,
    Int,
    Numbers,
    Record,
    Some,
    Tensor,
    check_value,
    checked,
)

Bug = Choice(f"the bug switched on: {CORRECT!r} for none, or a key of bug_catalogue.BUGS",
             CORRECT, *BUGS)
SHOWN_CHILDREN = 20
NO_RUNS = f"no recorded runs yet: run {COMMAND}"


# --- Tables and sentences of the recorded runs --------------------------------------------------


@checked
def describe_record(record: ZooRun) -> str:
    """How a recorded run of the zoo was made: its command, the epochs it trained of its budget
    (``epochs``), training images, seed, minutes and threads."""
    return (f"recorded by {record.command!r}: {len(record.validation_by_epoch)} epoch(s) "
            f"of a budget of {record.epochs}, "
            f"{record.train_examples:,} training images, seed {record.seed}, "
            f"{record.train_time_s / 60:.1f} min on {record.threads} thread(s)")


@checked
def live_table(live: Annotated[dict[str, ZooRun], Some]) -> str:
    """One row per run of ``live`` (name -> a record of ``bug_zoo.run``, e.g. a short run): its
    test accuracy, its loss over its last 5 steps, and what its trained routing does to the
    couplings after its last iteration (``coupling_stats``: the entropy of each child's split of
    its vote, and the vote per child)."""
    iterations = len(next(iter(live.values())).couplings)
    lines = [f"{'':<26}{'test accuracy':>14}{'final loss':>12}   couplings after {iterations} "
             "iterations"]
    for name, record in live.items():
        last = record.couplings[-1]
        final_loss = np.mean(record.batch_loss[-5:])
        lines.append(f"{name:<26}{100 * record.test_accuracy:>13.1f}%{final_loss:>12.4f}"
                     f"   entropy {last.entropy:.3f}, vote per child {last.vote:.3f}")
    return "\n".join(lines)


@checked
def step_table(recorded: Zoo, live: Zoo) -> str:
    """The correct model and every bug, one row each: the test accuracy of its ``live`` run, the
    training accuracy of its ``recorded`` run (``bug_zoo.read_results``) over the 5 steps up to
    where the live run stopped, and the recorded run's test accuracy at its end."""
    for argument, runs in (("recorded", recorded), ("live", live)):
        if missing := [name for name in BUGS if name not in runs]:
            raise ValueError(f"step_table(): {argument} must hold a run of every bug of 09 (and "
                             f"the correct one), got none of {', '.join(map(repr, missing))}; pass "
                             "bug_zoo.read_results() and, live, bug_zoo.run(name) of each")
    steps = len(live[CORRECT].batch_loss)  # where the live run stopped
    at_step = f"recorded, at step {steps}"
    lines = [f"{'':<26}{'live run':>10}{at_step:>24}{'recorded, end':>15}"]
    for name in (CORRECT, *BUGS):
        early = np.mean(recorded[name].batch_accuracy[max(0, steps - 5):steps])
        lines.append(f"{name:<26}{100 * live[name].test_accuracy:>9.1f}%{100 * early:>23.1f}%"
                     f"{100 * recorded[name].test_accuracy:>14.1f}%")
    lines.append("(live run and recorded end: test accuracy; at the live run's last step: the "
                 "recorded run's training accuracy, mean of its last 5 steps)")
    return "\n".join(lines)


@checked
def effect_lines(effects: Annotated[dict[str, BugEffect], Some]) -> list[str]:
    """One line per bug of ``effects`` (``bug_zoo.bug_effects``): what it did to the test
    accuracy, the paired test, and whether accuracy reveals it by the noise criterion; and a last
    line that counts them and says whether the runs were finished (a count from unfinished runs
    says how far each bug had got, not where it ends)."""
    lines = [f"{name}: {effect.paired}; "
             f"{'beyond' if abs(effect.paired.difference) > effect.noise else 'within'} the seed "
             f"noise ({100 * effect.noise:.2f} points): "
             f"{'revealed' if effect.revealed else 'not revealed'} by accuracy"
             for name, effect in effects.items()]
    revealed = sum(effect.revealed for effect in effects.values())
    unfinished = sum(not effect.finished for effect in effects.values())
    where = ("every run met the course's rule: this is where they end" if not unfinished else
             f"{unfinished} of {len(effects)} bugs' runs (or the correct one) did not meet the "
             "course's rule: this is where training stopped, not where the runs would end")
    lines.append(f"accuracy reveals {revealed} of {len(effects)} bugs; {where}")
    return lines


# --- Notebook 09's widget: a trained CapsNet's routing with a bug switched on ---------------------


@checked
def inference_step(bug: Bug) -> Callable:
    """The routing step with which ``bug`` (``CORRECT`` or a key of ``BUGS``) routes at
    inference: its own for a bug in the routing step, the paper's for ``CORRECT`` and for a bug
    that changes only the loss, the decoder's training input or the gradients."""
    return BUGS[bug].step if bug in BUGS else routing_step


@checked
def one_example(routing: Record(RoutingResult, "model(x).routing"),
                k: Int("an example of the batch", ge=0)) -> RoutingResult:
    """Example ``k`` of a batch's ``routing``, as a batch of one."""
    check_value("one_example", "k", Int(f"an example of the batch of {len(routing.v)}", ge=0,
                                        le=len(routing.v) - 1), k)

    def pick(t):
        return t[k:k + 1]

    # a model's routing (a buggy one's couplings too): picked as it is, unchecked
    return RoutingResult._made(pick(routing.v), pick(routing.c), pick(routing.b),
                               [RoutingStep._made(pick(step.c), pick(step.v))
                                for step in routing.history])


@dataclass(frozen=True)
class ZooState(CheckedRecord):
    """What notebook 09's widget shows (``zoo_state``): test digit ``index`` (of ``n_digits``),
    its ``label``, routed for ``iterations`` with ``bug`` (``CORRECT`` or a key of ``BUGS``)."""

    index: Int("which digit of votes", ge=0)
    label: Int("its label, a class", ge=0)
    iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS)
    bug: Bug
    live: Flag("the bug is in the routing step: this routing has it")
    shared: Flag("the logits are shared over the batch: the digits were routed together")
    n_digits: Int("the digits of votes", ge=1)
    c: Numbers("the digit's couplings in the last iteration [n_in, n_out]", ndim=2, ge=0, le=1)
    shown: Numbers("the children with the longest votes, longest first [shown]", ndim=1,
                   whole=True, ge=0)
    # the mean normalised entropy of their splits of their votes (a float32 may pass 1 by 1e-7)
    shown_entropy: Float("a mean normalised entropy", ge=0)
    child_sums: Numbers("sum_j c_ij, each child's whole vote (1 in the paper) [n_in]", ndim=1,
                        ge=0)
    parent_sums: Numbers("sum_i c_ij (1 with the softmax over the children) [n_out]", ndim=1,
                         ge=0)
    # coupling_stats of the digit's routing, one per iteration
    trace: list[Record(CouplingStats, "bug_zoo.coupling_stats(routing)")]
    lengths: Numbers("the parents' lengths ||v_j|| [n_out]", ndim=1, ge=0, le=1)
    prediction: Int("the longest capsule's class", ge=0)
    recorded: dict[str, Record(ZooRun)]  # the recorded runs of CORRECT and bug, by name
    curve_note: str  # which runs are missing ("" when none is)
    # their training accuracy per step, smoothed (running_mean)
    curves: dict[str, Numbers("a training accuracy per step, smoothed", ndim=1, ge=0, le=1)]

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or fields of other digits, children,
        classes, iterations or runs than each other's."""
        super().__post_init__()
        n_in, n_out = np.shape(self.c)
        check_same("ZooState", "children (c's rows)", "pass zoo_state(...)'s", c=n_in,
                   child_sums=len(self.child_sums))
        check_same("ZooState", "classes (c's columns)", "pass zoo_state(...)'s", c=n_out,
                   parent_sums=len(self.parent_sums), lengths=len(self.lengths))
        check_same("ZooState", "iterations", "one CouplingStats per iteration",
                   iterations=self.iterations, trace=len(self.trace))
        for name, value, n, of in (("index", self.index, self.n_digits, "n_digits"),
                                   ("label", self.label, n_out, "the classes"),
                                   ("shown", max(self.shown, default=0), n_in, "the children")):
            if value >= n:
                raise ValueError(f"ZooState(): {name} must be < {of} ({n}), got {value}; pass "
                                 "zoo_state(...)'s")
        check_read("ZooState", "pass zoo_state(...)'s", "prediction", [self.prediction],
                   "lengths", self.lengths)
        for name, axis, over in (("child_sums", 1, "j"), ("parent_sums", 0, "i")):
            sums = np.sum(self.c, axis=axis)  # float32 sums of up to 1,152 couplings
            if not np.allclose(getattr(self, name), sums, rtol=1e-4, atol=1e-5):
                raise ValueError(f"ZooState(): {name} must be c's sums over {over}, from "
                                 f"{sums.min():.4g} to {sums.max():.4g}, got {getattr(self, name)}"
                                 "; pass zoo_state(...)'s")
        if list(self.curves) != list(self.recorded):
            raise ValueError(f"ZooState(): curves must be keyed by the runs recorded "
                             f"{list(self.recorded)}, got {list(self.curves)}; one curve per run")


@checked
@torch.no_grad()
def zoo_state(votes: Tensor("votes u_hat [n_digits, n_in, n_out, d_out]", ndim=4, finite=True),
              labels: Tensor("their labels [n_digits]", ndim=1),
              index: Int("which digit of votes", ge=0) = 0,
              iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3,
              bug: Bug = CORRECT, results: dict[str, ZooRun] | None = None,
              shown: Int("children the heatmap shows", ge=1, le=MAX_CHILDREN) = SHOWN_CHILDREN
              ) -> ZooState:
    """What notebook 09's widget shows: a trained CapsNet's routing of test digit ``index`` with
    ``bug`` (``CORRECT`` or a key of ``BUGS``) switched on where it acts, and the recorded runs
    found in ``results`` (the recorded runs by name, e.g. ``bug_zoo.read_results()``).

    ``votes`` ``[N, n_in, n_out, d_out]``: the u_hat of N test digits (``CapsNet.votes``), their
    ``labels`` ``[N]``. A bug in the routing step (``inference_step``) changes this routing: the
    trained model's votes are routed the buggy way (``live`` is True); with the logits shared over
    the batch, the N digits are routed together as one batch. A bug that acts in training only
    leaves the paper's routing here (``live`` is False); its effect is in its recorded run.
    ``shown``: how many children (those with the longest votes, mean ||u_hat_j|i|| over the
    parents) the heatmap shows.
    """
    if len(labels) != len(votes):
        raise ValueError(f"zoo_state(): labels must hold one label per digit of votes "
                         f"({len(votes)}), got {len(labels)}; pass the labels of those digits")
    check_labels(labels, "zoo_state(): labels", len(votes), votes.shape[2])  # classes: parents
    if index >= len(votes):
        raise ValueError(f"zoo_state(): index must be < {len(votes)} (the digits in votes), got "
                         f"{index}; pick one of them")
    step = inference_step(bug)
    shared = step is step_logits_shared_over_batch
    # the whole batch when the logits are shared, else the digit alone: [1 or N, n_in, n_out, d]
    routed = votes if shared else votes[index:index + 1]
    routing = one_example(dynamic_routing(routed, iterations, step=step), index if shared else 0)
    c = routing.c[0]  # [n_in, n_out]
    # the children with the longest votes: mean over j of ||u_hat_j|i||; [shown]
    order = votes[index].norm(dim=-1).mean(dim=-1).argsort(descending=True)[:shown]
    splits = c[order] / c[order].sum(dim=-1, keepdim=True)  # [shown, n_out]
    lengths = routing.v[0].norm(dim=-1)  # [n_out]
    results = results or {}
    names = dict.fromkeys((CORRECT, bug))  # the correct run, and the bug's (once)
    recorded = {name: results[name] for name in names if name in results}
    missing = [name for name in names if name not in results]
    curve_note = NO_RUNS if not results else (
        f"no recorded run of {' or '.join(missing)} yet: run {COMMAND}" if missing else "")
    return ZooState(
        index=index, label=int(labels[index]), iterations=iterations, bug=bug,
        live=step is not routing_step, shared=shared, n_digits=len(votes),
        c=c.numpy(), shown=order.numpy(),
        shown_entropy=float(normalised_entropy(splits[None]).mean()),
        child_sums=c.sum(dim=-1).numpy(), parent_sums=c.sum(dim=0).numpy(),
        trace=coupling_stats(routing), lengths=lengths.numpy(),
        prediction=int(lengths.argmax()), recorded=recorded, curve_note=curve_note,
        curves={name: running_mean(record.batch_accuracy) for name, record in recorded.items()})

"""The bug zoo (notebook 09): implementation bugs that public CapsNet re-implementations shipped.

``BUGS`` maps each bug's short name to a ``Bug``: what the buggy code does, why it is wrong, what
the public threads that discuss it show (and what they do not), their addresses, and the code of
this module that has it. It is the one description of the zoo: the notebook and its widget read
it. ``BuggyCapsNet(name, SMALL)`` builds a CapsNet with that bug.

The bugs live here only: each is the paper's function with one thing changed (a routing step, the
margin loss, what the decoder sees, where the gradient stops), and the core (``capsedu.routing``,
``capsedu.functional``, ``capsedu.capsnet``) implements the paper and nothing else.

The recorded runs: ``run(name)`` trains the correct ``CapsNet(LIVE)`` (``name=CORRECT``) or a
bug's, all the same way (same seed, data, batches and shifts), and records the loss and training
accuracy of every step, the held-out and test accuracy, and what the trained routing does to the
couplings. ``read_results()`` gives the shipped records to the notebook: the runs trained until
the rule stopped them, and (``read_results(epochs=1)``) the same runs stopped after one epoch.

The widget (``zoo_state``): a trained CapsNet's routing of one test digit, with a bug switched on
where it acts at inference (in the routing) or, for a bug of training only, the paper's routing
beside that bug's recorded run.

    python -m capsedu.bug_zoo --limit 512           # a trial of every run, into <data root>/runs
    python -m capsedu.bug_zoo --replace-shipped     # the shipped <data root>/results/bug_zoo.json
    python -m capsedu.bug_zoo --epochs 1 --replace-shipped   # ... and bug_zoo_1_epoch.json

A finished run is written at once, so an interrupted zoo resumes where it stopped (and a run
resumes from its last epoch); each record keeps the command, seed, epochs, time and threads.
"""

import sys
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from . import ablations, checkpoints, statistics
from .capsnet import LIVE, PAPER, CapsNet, CapsNetConfig, CapsNetOutput
from .couplings import coupling_trace, normalised_entropy
from .data.mnist import SPLITS, load_mnist
from .functional import class_targets, reconstruction_loss
from .loop import PATIENCE, chosen_epoch, converged, finished, held_out_scores, predict
from .recipes import Recipe, command_line, how_run, train_recipe
from .routing import (
    RoutingResult,
    RoutingStep,
    Step,
    agreement,
    couplings,
    dynamic_routing,
    outputs,
    routing_step,
)
from .statistics import Paired
from .train import experiment_parser, positive_int, record_missing, results_file
from .validate import check_choice, check_integer, check_labels, check_shape

# --- The bugs, as code: each the paper's function with one thing changed --------------------------


def step_softmax_over_children(u_hat: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``routing.routing_step`` with the softmax over the children i instead of the parents j."""
    # the bug: c_ij = exp(b_ij) / sum_k exp(b_kj), each parent's couplings sum to 1 over the
    # children; [batch, n_in, n_out] (taken on the parent-major transpose, as couplings does)
    c = torch.softmax(b.transpose(1, 2), dim=2).transpose(1, 2)
    v = outputs(u_hat, c)
    return c, v, b + agreement(u_hat, v)


def step_logits_shared_over_batch(u_hat: torch.Tensor,
                                  b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``routing.routing_step`` with one set of logits for the whole batch: every example's
    agreement is averaged into the b that all examples share."""
    c = couplings(b)
    v = outputs(u_hat, c)
    # the bug: a_ij = mean_n a_ij(n), one for the batch; [1, n_in, n_out], added to every b
    return c, v, b + agreement(u_hat, v).mean(dim=0, keepdim=True)


def unsquared_margin_loss(lengths: torch.Tensor, targets: torch.Tensor, m_plus: float = 0.9,
                          m_minus: float = 0.1, lam: float = 0.5) -> torch.Tensor:
    """``functional.margin_loss`` with both terms unsquared: zero in the same places, but its slope
    no longer fades near the margins (a length just short of m+ is pushed as hard as one far
    below it). ``lengths`` ``[batch, classes]``, ``targets`` ``[batch]`` labels."""
    check_labels(targets, "targets", *lengths.shape)
    T = class_targets(targets, lengths.shape[1]).to(lengths.dtype)  # [batch, classes]
    # the bug: L_k = T_k max(0, m+ - ||v_k||) + lambda (1 - T_k) max(0, ||v_k|| - m-), power 1
    L = T * F.relu(m_plus - lengths) + lam * (1 - T) * F.relu(lengths - m_minus)
    return L.sum(dim=1).mean()


@dataclass(frozen=True)
class Bug:
    name: str  # the registry's key, e.g. "softmax-over-children"
    description: str  # one line: what the buggy code does
    why_wrong: str  # what the paper does instead, and what the bug breaks
    evidence: str  # what the cited threads and code show, and what they do not
    citations: tuple[str, ...]  # issue and pull-request addresses
    code: str  # where the buggy code is, in this module
    step: Step = routing_step  # the routing step it uses: the paper's unless the bug is there


_BUGS = (
    Bug(
        name="softmax-over-children",
        description="The routing softmax normalises the logits b_ij over the children i instead "
                    "of over the parents j.",
        why_wrong="Procedure 1, line 4: c_i = softmax(b_i), so each child's couplings sum to 1 "
                  "over the parents: a child shares one vote among the parents, and agreement "
                  "moves its vote from one parent to another. Over the children, each parent's "
                  "couplings sum to 1 instead: a child can send everything to every parent at "
                  "once, and the parents no longer compete for it.",
        evidence="gram-ai/capsule-networks took softmax(logits, dim=2), the 1152 primary "
                 "capsules (issue 10, still open; commenters report that the fix trains only "
                 "with a smaller W initialisation). higgsfield's tutorial and timomernick's code "
                 "call F.softmax(b_ij) without dim on [1, 1152, 10, 1] logits, which PyTorch "
                 "applies to dim 1, the children (higgsfield issue 7, open; timomernick issue "
                 "12). motokimura/capsnet_pytorch merged the fix (PR 1); its maintainer reports "
                 "test accuracy going from 99.51% to 99.67% with it.",
        citations=(
            "https://github.com/gram-ai/capsule-networks/issues/10",
            "https://github.com/higgsfield/Capsule-Network-Tutorial/issues/7",
            "https://github.com/motokimura/capsnet_pytorch/pull/1",
            "https://github.com/timomernick/pytorch-capsule/issues/12",
        ),
        code="step_softmax_over_children, the routing step", step=step_softmax_over_children,
    ),
    Bug(
        name="unsquared-margin-loss",
        description="The margin loss uses max(0, m+ - ||v_k||) and max(0, ||v_k|| - m-) without "
                    "squaring them.",
        why_wrong="Eq. 4 squares both terms, so the push on a capsule's length fades to 0 as the "
                   "length reaches its margin. Unsquared, the slope stays 1 (lambda for an "
                   "absent class) right up to the margin: a length just short of 0.9 is pushed "
                   "as hard as one at 0.1, and the loss is a different function of the lengths "
                   "(larger everywhere a margin is missed by less than 1).",
        evidence="higgsfield's tutorial computes F.relu(0.9 - v_c) and F.relu(v_c - 0.1) with "
                 "no square (issue 1, open). timomernick/pytorch-capsule's margin loss took "
                 "torch.max(m_plus - v_mag, zero) unsquared; PR 4 lists the missing square "
                 "among its fixes and the maintainer answered that he could accept it at once "
                 "(the PR stayed open). jindongwang/Pytorch-CapsuleNet issue 20 reports the same "
                 "code.",
        citations=(
            "https://github.com/higgsfield/Capsule-Network-Tutorial/issues/1",
            "https://github.com/timomernick/pytorch-capsule/pull/4",
            "https://github.com/jindongwang/Pytorch-CapsuleNet/issues/20",
        ),
        code="unsquared_margin_loss, in BuggyCapsNet.loss",
    ),
    Bug(
        name="mask-by-prediction",
        description="During training the decoder reconstructs from the longest DigitCaps vector "
                    "(the prediction) instead of the true label's.",
        why_wrong="Section 4.1: \"During training, we mask out all but the activity vector of the "
                  "correct digit capsule.\" Masked by the prediction, a misclassified digit is "
                  "reconstructed from the wrong class's capsule: the reconstruction loss then "
                  "teaches that capsule to draw this digit and leaves the right capsule "
                  "untrained, on exactly the examples the network gets wrong.",
        evidence="In timomernick/pytorch-capsule issue 6 (open) the maintainer writes: \"At "
                 "train time I am using the longest capsule and masking the others\"; PR 4 "
                 "proposes the fix (\"Use the correct capsule to reconstruct\"). higgsfield's "
                 "tutorial does the same (its Decoder picks the longest capsule whatever the "
                 "labels), but no thread there says so: we read it in the notebook's code.",
        citations=(
            "https://github.com/timomernick/pytorch-capsule/issues/6",
            "https://github.com/timomernick/pytorch-capsule/pull/4",
        ),
        code="BuggyCapsNet.reconstruct: the decoder is given no targets",
    ),
    Bug(
        name="logits-shared-over-batch",
        description="The routing logits b_ij have no batch dimension: every iteration adds the "
                    "agreements of the whole batch (averaged here; some code sums them) to one b "
                    "that all examples share.",
        why_wrong="Procedure 1 routes one example: b_ij starts at 0 for each image and grows "
                  "only with that image's agreements. Shared, one image's couplings depend on "
                  "the other images of its batch: a digit can be classified differently alone "
                  "than in a batch, the result depends on the batch size (summed) or its "
                  "composition, and gradients flow from one example's loss into another's "
                  "predictions.",
        evidence="naturomics/CapsNet-Tensorflow added tf.reduce_sum(u_produce_v, axis=0) to a "
                 "b_IJ of shape [1, 1152, 10, 1, 1] (issue 21; the maintainer's first answer, "
                 "that b_IJ is reset to 0 at each batch, is true but answers another question; "
                 "issue 27 was closed as its duplicate). timomernick's code and higgsfield's "
                 "tutorial average instead, .mean(dim=0, keepdim=True) on [1, 1152, 10, 1] "
                 "logits (we read it in their code; jindongwang/Pytorch-CapsuleNet issue 16 asks "
                 "why, and gets no answer from the author).",
        citations=(
            "https://github.com/naturomics/CapsNet-Tensorflow/issues/21",
            "https://github.com/naturomics/CapsNet-Tensorflow/issues/27",
            "https://github.com/jindongwang/Pytorch-CapsuleNet/issues/16",
        ),
        code="step_logits_shared_over_batch, the routing step",
        step=step_logits_shared_over_batch,
    ),
    Bug(
        name="detached-output",
        description="The stop-gradient meant for the inner routing iterations covers the last "
                    "one too: v_j is summed from a detached u_hat.",
        why_wrong="Detaching u_hat in the inner iterations only (grad_through_routing=False) is "
                  "a legitimate, cheaper variant; the last iteration must sum the attached u_hat "
                  "so that the loss reaches W_ij. Detached there as well, the margin and "
                  "reconstruction losses never reach W_ij, PrimaryCaps or Conv1: their "
                  "gradients are zero and only the decoder learns.",
        evidence="We found no tutorial above that shipped it: gram-ai, higgsfield and "
                 "timomernick keep gradients through every iteration, and naturomics/CapsNet-"
                 "Tensorflow's PR 33 (\"Remove gradient flow in inner iterations\") stops them "
                 "in the inner iterations only: the code quoted in its issue 37 sums u_hat in "
                 "the last iteration and u_hat_stopped before (XifengGuo/CapsNet-Keras issue 26 "
                 "explains the same choice). bourdakos1/capsule-networks issue 9 says that with "
                 "u_hat_stopped \"I don't think W can be updated\": true only if the last "
                 "iteration used the stopped copy too, and the thread shows no code. In "
                 "HopefulRational/DeepCaps-PyTorch, PR 1 added stop-gradients and was reverted "
                 "(PR 2) after its author wrote that he had placed the detached tensor in the "
                 "wrong place; the threads do not show where. This entry is the bug those "
                 "threads warn of, not one we saw shipped.",
        citations=(
            "https://github.com/bourdakos1/capsule-networks/issues/9",
            "https://github.com/HopefulRational/DeepCaps-PyTorch/pull/1",
            "https://github.com/HopefulRational/DeepCaps-PyTorch/pull/2",
            "https://github.com/naturomics/CapsNet-Tensorflow/pull/33",
            "https://github.com/naturomics/CapsNet-Tensorflow/issues/37",
            "https://github.com/XifengGuo/CapsNet-Keras/issues/26",
        ),
        code="BuggyCapsNet.votes: every iteration routes a detached u_hat",
    ),
)
BUGS = {bug.name: bug for bug in _BUGS}


class BuggyCapsNet(CapsNet):
    """A ``CapsNet`` of ``config`` (with any field ``overrides``) with bug ``bug`` (a key of
    ``BUGS``), e.g. ``BuggyCapsNet("mask-by-prediction", SMALL)``. Its weights are drawn as the
    correct model's of the same seed: two runs differ only by the bug."""

    def __init__(self, bug: str, config: CapsNetConfig = PAPER, **overrides):
        check_choice(bug, "bug", {name: entry.description for name, entry in BUGS.items()})
        super().__init__(config, **overrides)
        self.bug = bug
        self.hparams = {"bug": bug, **self.hparams}
        self.digits.step = BUGS[bug].step  # the paper's, unless the bug is in the routing step

    def votes(self, x: torch.Tensor) -> torch.Tensor:
        u_hat = super().votes(x)
        # detached-output: the stop-gradient covers the last routing iteration too
        return u_hat.detach() if self.bug == "detached-output" else u_hat

    def reconstruct(self, v, lengths, targets=None) -> torch.Tensor:
        # mask-by-prediction: the decoder sees the longest capsule, in training too
        by_label = None if self.bug == "mask-by-prediction" else targets
        return super().reconstruct(v, lengths, by_label)

    def loss(self, out: CapsNetOutput, x, targets) -> torch.Tensor:
        if self.bug != "unsquared-margin-loss":
            return super().loss(out, x, targets)
        recon = reconstruction_loss(out.reconstruction, x)
        return unsquared_margin_loss(out.lengths, targets) + self.config.recon_weight * recon


# --- Recorded runs: the correct model and each bug's, trained the same way ------------------------

CORRECT = "correct"  # the run of the paper's CapsNet(LIVE), beside the bugs' runs
RESULTS = "bug_zoo.json"  # the runs with the full budget; another budget has a file of its own
EPOCHS = ablations.EPOCHS  # the budget: each run stops earlier, by the course's rule (PATIENCE)
COMMAND = "python -m capsedu.bug_zoo"
# the cell of 09's ablation grid whose recipe the correct run is (its seeds give the zoo's noise)
CELL = {"iterations": LIVE.iterations, "recon_weight": LIVE.recon_weight}
TEST_IMAGES = SPLITS[False][2]  # MNIST's test split
COUPLING_IMAGES = 128  # the first test images (one training batch), whose couplings a run reports


def recipe(name: str, limit: int | None = None, epochs: int = EPOCHS) -> Recipe:
    """The training run of the zoo's model ``name`` (``CORRECT`` or a key of ``BUGS``).

    Every run is trained as a cell of notebook 09's ablations (``ablations.recipe``: ``LIVE``,
    Adam at 2e-3, batches of 128, the paper's 2-pixel shifts, seed 0), until the course's rule
    stops it (``PATIENCE`` epochs without a held-out gain, ``loop.converged``) or ``epochs`` (the
    budget) run out: each bug is judged where its run ended, not after a fixed length. The
    bugs add no weights, so every run starts from the same weights and sees the same batches with
    the same shifts: two runs differ only by the bug. The last twelfth of the training images is
    held out (5,000 of MNIST's 60,000; a trial with ``limit`` holds out the same share)."""
    build = (lambda: CapsNet(LIVE)) if name == CORRECT else (lambda: BuggyCapsNet(name, LIVE))
    return replace(ablations.recipe({}), description=f"notebook 09's bug zoo: {name}",
                   build=build, epochs=epochs, patience=PATIENCE,
                   validation=max(1, (limit or 60_000) // 12))


def coupling_stats(routing: RoutingResult) -> list[dict]:
    """What a ``routing`` did to the couplings, one dict per iteration of its ``history``:
    ``coupling_trace``'s ``entropy``, ``distance`` from uniform and ``polarised`` share of each
    child's split of its vote, and ``vote``, a child's whole vote sum_j c_ij on average.

    In the paper a child's couplings sum to 1 over the parents: ``vote`` is 1 and the split is c
    itself. With the softmax over the children they do not (each child sends n_out / n_in of a
    vote on average), and the statistics read how each child splits what it sends."""
    # a child's split of its vote: c_ij / sum_k c_ik; [batch, n_in, n_out]
    splits = [RoutingStep(step.c / step.c.sum(dim=-1, keepdim=True), step.v)
              for step in routing.history]
    trace = coupling_trace(routing._replace(history=splits))
    return [{**stats, "vote": float(step.c.sum(dim=-1).mean())}
            for stats, step in zip(trace, routing.history, strict=True)]


def trained_couplings(model: CapsNet, images: torch.Tensor) -> list[dict]:
    """``coupling_stats`` of ``model``'s routing of ``images`` (on the CPU; the model is moved
    there)."""
    with torch.no_grad():
        return coupling_stats(model.cpu().eval()(images.cpu()).routing)


def run(name: str, epochs: int = EPOCHS, limit=None, progress=True, state_path=None) -> dict:
    """Train the zoo's model ``name`` (``recipe``) and score it: the record of the run.

    ``batch_loss`` and ``batch_accuracy`` hold one number per step (``steps_per_epoch`` of them
    per epoch). Every model is scored in batches of the training size, as ``fit`` scores the
    held-out images: the model whose routing logits are shared over the batch reads an image
    differently in another batch, so it is scored as it was trained (every other model reads an
    image the same way in any batch).

    What to expect: the detached-output bug trains the decoder only (W_ij, PrimaryCaps and Conv1
    keep their initial weights), so its loss falls through the reconstruction alone.
    Mask-by-prediction and the unsquared margin change only the loss: their routing differs from
    the correct model's only through the weights they learned.
    """
    training = recipe(name, limit, epochs)
    model, history, train_examples = train_recipe(training, epochs, limit, progress=progress,
                                                  state_path=state_path)
    test = load_mnist(False, limit)
    right = predict(model, test[0], training.batch_size) == test[1]  # [n_test]
    chosen, scores = chosen_epoch(history), held_out_scores(history)
    return {"seed": training.seed,
            "epochs": epochs, "patience": PATIENCE, "converged": converged(scores, PATIENCE),
            "limit": limit, "batch_size": training.batch_size,
            "train_examples": train_examples, "validation_examples": training.validation,
            "steps_per_epoch": len(history[0]["batch_loss"]),
            "batch_loss": [round(loss, 5) for h in history for loss in h["batch_loss"]],
            "batch_accuracy": [accuracy for h in history for accuracy in h["batch_accuracy"]],
            "validation_by_epoch": scores,
            "chosen_epoch": chosen["epoch"], "validation_accuracy": chosen["validation_accuracy"],
            "test_accuracy": right.float().mean().item(),
            # which test images it reads wrong: the zoo's paired tests (every run reads the same)
            "test_wrong": torch.nonzero(~right).flatten().tolist(),
            "couplings": trained_couplings(model, test[0][:COUPLING_IMAGES]),
            **how_run(history)}


def results_name(epochs: int = EPOCHS) -> str:
    """The results file of the runs with a budget of ``epochs``: ``RESULTS`` for the full budget,
    e.g. ``bug_zoo_1_epoch.json`` for runs stopped after one epoch (a file holds runs of one
    budget only, so that they can be compared)."""
    if epochs == EPOCHS:
        return RESULTS
    return f"{Path(RESULTS).stem}_{epochs}_epoch{'s' * (epochs > 1)}.json"


def read_results(path: Path | None = None, epochs: int = EPOCHS) -> dict[str, dict]:
    """The recorded runs by name, ``CORRECT`` and the keys of ``BUGS`` (the shipped ones with a
    budget of ``epochs`` by default; empty when none)."""
    return checkpoints.read_results(path or checkpoints.results_path(results_name(epochs), True))


def describe_record(record: dict) -> str:
    """How a recorded run of the zoo was made: its command, the epochs it trained of its budget
    (``epochs``), training images, seed, minutes and threads."""
    return (f"recorded by {record['command']!r}: {len(record['validation_by_epoch'])} epoch(s) "
            f"of a budget of {record['epochs']}, "
            f"{record['train_examples']:,} training images, seed {record['seed']}, "
            f"{record['train_time_s'] / 60:.1f} min on {record['threads']} thread(s)")


def live_table(live: dict[str, dict]) -> str:
    """One row per run of ``live`` (name -> a record of ``run``, e.g. a short run): its test
    accuracy, its loss over its last 5 steps, and what its trained routing does to the couplings
    after its last iteration (``coupling_stats``: the entropy of each child's split of its vote,
    and the vote per child)."""
    iterations = len(next(iter(live.values()))["couplings"])
    lines = [f"{'':<26}{'test accuracy':>14}{'final loss':>12}   couplings after {iterations} "
             "iterations"]
    for name, record in live.items():
        last = record["couplings"][-1]
        final_loss = np.mean(record["batch_loss"][-5:])
        lines.append(f"{name:<26}{100 * record['test_accuracy']:>13.1f}%{final_loss:>12.4f}"
                     f"   entropy {last['entropy']:.3f}, vote per child {last['vote']:.3f}")
    return "\n".join(lines)


def step_table(recorded: dict[str, dict], live: dict[str, dict]) -> str:
    """The correct model and every bug, one row each: the test accuracy of its ``live`` run, the
    training accuracy of its ``recorded`` run (``read_results``) over the 5 steps up to where
    the live run stopped, and the recorded run's test accuracy at its end."""
    steps = len(live[CORRECT]["batch_loss"])  # where the live run stopped
    at_step = f"recorded, at step {steps}"
    lines = [f"{'':<26}{'live run':>10}{at_step:>24}{'recorded, end':>15}"]
    for name in (CORRECT, *BUGS):
        early = np.mean(recorded[name]["batch_accuracy"][max(0, steps - 5):steps])
        lines.append(f"{name:<26}{100 * live[name]['test_accuracy']:>9.1f}%{100 * early:>23.1f}%"
                     f"{100 * recorded[name]['test_accuracy']:>14.1f}%")
    lines.append("(live run and recorded end: test accuracy; at the live run's last step: the "
                 "recorded run's training accuracy, mean of its last 5 steps)")
    return "\n".join(lines)


@dataclass(frozen=True)
class BugEffect:
    """What one bug did to its recorded run: its test accuracy against the correct run's, image by
    image on the same test images (``paired``: the bug's minus the correct model's), beside the
    run-to-run ``noise`` of the correct recipe over training seeds (a standard deviation of test
    accuracy, 0..1 units); ``finished``: both runs met the course's rule (``loop.finished``)."""

    bug: str
    paired: Paired
    noise: float
    finished: bool

    @property
    def revealed(self) -> bool:
        """Accuracy reveals the bug: the two runs are told apart on the shared test images and
        differ by more than another training seed of the same recipe would move either."""
        return self.paired.clear and abs(self.paired.difference) > self.noise


def bug_effects(recorded: dict[str, dict], noise: float) -> dict[str, BugEffect]:
    """``BugEffect`` of every bug of ``recorded`` (``read_results``) against ``CORRECT``: a paired
    test on the test images each run read wrong (``test_wrong``; every run reads the same
    test images: all of MNIST's, or a trial's first ``limit``), with the seed ``noise`` of the
    correct recipe (``ablations.seed_noise``)."""
    def right(record):
        wrong = np.zeros(min(record["limit"] or TEST_IMAGES, TEST_IMAGES), dtype=bool)
        wrong[record["test_wrong"]] = True
        return ~wrong

    correct = recorded[CORRECT]
    return {name: BugEffect(name, statistics.paired(right(recorded[name]), right(correct)), noise,
                          finished(recorded[name]["validation_by_epoch"])
                          and finished(correct["validation_by_epoch"]))
            for name in BUGS}


def effect_lines(effects: dict[str, BugEffect]) -> list[str]:
    """One line per bug of ``effects``: what it did to the test accuracy, the paired test, and
    whether accuracy reveals it by the noise criterion; and a last line that counts them and says
    whether the runs were finished (a count from unfinished runs says how far each bug had got,
    not where it ends)."""
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

CHOICES = {CORRECT: "no bug: the paper's routing",
           **{name: bug.description for name, bug in BUGS.items()}}
SHOWN_CHILDREN = 20
CURVE_WINDOW = 25  # training steps averaged in each point of a recorded curve
NO_RUNS = f"no recorded runs yet: run {COMMAND}"


def inference_step(bug: str) -> Step:
    """The routing step with which ``bug`` (``CORRECT`` or a key of ``BUGS``) routes at
    inference: its own for a bug in the routing step, the paper's for ``CORRECT`` and for a bug
    that changes only the loss, the decoder's training input or the gradients."""
    check_choice(bug, "bug", CHOICES)
    return BUGS[bug].step if bug in BUGS else routing_step


def running_mean(values, window: int = CURVE_WINDOW) -> np.ndarray:
    """Each step's mean over its last ``window`` values (fewer at the first steps): a per-step
    curve, smoothed. ``values`` ``[steps]`` -> ``[steps]``."""
    # total[t] = values[0] + ... + values[t - 1]
    total = np.concatenate([[0.0], np.cumsum(values)])
    end = np.arange(1, len(values) + 1)
    start = np.maximum(end - window, 0)
    return (total[end] - total[start]) / (end - start)


def one_example(routing: RoutingResult, k: int) -> RoutingResult:
    """Example ``k`` of a batch's ``routing``, as a batch of one."""
    def pick(t):
        return t[k:k + 1]

    return RoutingResult(pick(routing.v), pick(routing.c), pick(routing.b),
                         [RoutingStep(pick(step.c), pick(step.v)) for step in routing.history])


@torch.no_grad()
def zoo_state(votes: torch.Tensor, labels: torch.Tensor, index: int = 0, iterations: int = 3,
              bug: str = CORRECT, results: dict | None = None,
              shown: int = SHOWN_CHILDREN) -> dict:
    """What notebook 09's widget shows: a trained CapsNet's routing of test digit ``index`` with
    ``bug`` (``CORRECT`` or a key of ``BUGS``) switched on where it acts, and the recorded runs.

    ``votes`` ``[N, n_in, n_out, d_out]``: the u_hat of N test digits (``CapsNet.votes``), their
    ``labels`` ``[N]``. A bug in the routing step (``inference_step``) changes this routing: the
    trained model's votes are routed the buggy way (``live`` is True); with the logits shared over
    the batch, the N digits are routed together as one batch. A bug that acts in training only
    leaves the paper's routing here (``live`` is False); its effect is in its recorded run.

    * ``c`` ``[n_in, n_out]``: the digit's couplings in the last of ``iterations``; ``shown``: the
      ``shown`` children with the longest votes (mean ||u_hat_j|i|| over the parents), longest
      first; ``shown_entropy``: their mean normalised entropy (of each one's split of its vote);
    * ``child_sums`` ``[n_in]``: sum_j c_ij, each child's whole vote (1 in the paper);
      ``parent_sums`` ``[n_out]``: sum_i c_ij (1 with the softmax over the children);
    * ``trace``: ``coupling_stats`` of the digit's routing, one dict per iteration;
    * ``lengths`` ``[n_out]``: ||v_j||, the ``prediction`` (longest) and the ``label``;
    * ``recorded``: the runs of ``CORRECT`` and ``bug`` found in ``results`` (the recorded runs
      by name, e.g. ``read_results()``), by name; ``curves``: their training accuracy per step,
      smoothed (``running_mean``); ``curve_note``: which runs are missing ("" when none is).
    """
    check_shape(votes, "votes", "[n_digits, n_in, n_out, d_out] u_hat", ndim=4)
    if len(labels) != len(votes):
        raise ValueError(f"labels must hold one label per digit of votes ({len(votes)}), "
                         f"got {len(labels)}")
    check_integer(index, "index", 0, "which digit of votes")
    if index >= len(votes):
        raise ValueError(f"index must be < {len(votes)} (the number of digits), got {index}")
    check_integer(shown, "shown", 1, "how many children the heatmap shows")
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
    return {"index": index, "label": int(labels[index]), "iterations": iterations, "bug": bug,
            "live": step is not routing_step, "shared": shared, "n_digits": len(votes),
            "c": c.numpy(), "shown": order.numpy(),
            "shown_entropy": float(normalised_entropy(splits[None]).mean()),
            "child_sums": c.sum(dim=-1).numpy(), "parent_sums": c.sum(dim=0).numpy(),
            "trace": coupling_stats(routing),
            "lengths": lengths.numpy(), "prediction": int(lengths.argmax()),
            "recorded": recorded, "curve_note": curve_note,
            "curves": {name: running_mean(record["batch_accuracy"])
                       for name, record in recorded.items()}}


def main(argv=None) -> int:
    parser = experiment_parser(COMMAND, __doc__)
    parser.add_argument("--epochs", type=positive_int, default=EPOCHS,
                        help=f"the budget of every run, which stops earlier once {PATIENCE} "
                        f"epochs bring no held-out gain (default: {EPOCHS})")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    path = results_file(args, results_name(args.epochs))
    # a file holds runs of one budget only, so that they can be compared
    other = [name for name, record in read_results(path).items()
             if (record["epochs"], record["limit"]) != (args.epochs, args.limit)]
    if other:
        parser.error(f"{path} holds runs made with other --epochs or --limit ({', '.join(other)}):"
                     " finish it with their flags, or move it away to start again")
    record_missing(path, {name: partial(run, name, args.epochs, args.limit)
                          for name in (CORRECT, *BUGS)},
                   command_line(COMMAND, epochs=args.epochs, limit=args.limit,
                                threads=args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The bug zoo (notebook 09): implementation bugs that public CapsNet re-implementations shipped.

``BUGS`` maps each bug's short name to a ``Bug``: what the buggy code does, why it is wrong, what
the public threads that discuss it show (and what they do not), their addresses, and the
``CapsNetConfig`` fields that switch it on. It is the one description of the zoo: the notebook
and its widget read it. ``capsnet_with_bug(name, SMALL)`` builds a CapsNet with that bug on.

Every switch lives where its bug lives (``capsedu.routing``, ``capsedu.functional.margin_loss``,
``CapsNet.reconstruct``) and is off by default, so every other model of the course is unaffected.

The recorded runs: ``run(name)`` trains the correct ``CapsNet(LIVE)`` (``name=CORRECT``) or a
bug's, all the same way (same seed, data, batches and shifts), and records the loss and training
accuracy of every step, the held-out and test accuracy, and what the trained routing does to the
couplings. ``read_results()`` gives the shipped records to the notebook.

    python -m capsedu.bug_zoo --limit 512           # a trial of every run, into <data root>/runs
    python -m capsedu.bug_zoo --replace-shipped     # the shipped <data root>/results/bug_zoo.json

A finished run is written at once, so an interrupted zoo resumes where it stopped (and a run
resumes from its last epoch); each record keeps the command, seed, epochs, time and threads.
"""

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from . import ablations, checkpoints
from .capsnet import LIVE, PAPER, CapsNet, CapsNetConfig
from .couplings import coupling_trace
from .data.mnist import load_mnist
from .routing import RoutingStep
from .train import Recipe, chosen_epoch, evaluate, positive_int, train_recipe


@dataclass(frozen=True)
class Bug:
    name: str  # the registry's key, e.g. "softmax-over-children"
    description: str  # one line: what the buggy code does
    why_wrong: str  # what the paper does instead, and what the bug breaks
    evidence: str  # what the cited threads and code show, and what they do not
    citations: tuple[str, ...]  # issue and pull-request addresses
    overrides: dict  # the CapsNetConfig fields (and values) that switch the bug on


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
        overrides={"softmax_over": "children"},
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
        overrides={"squared_margin": False},
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
        overrides={"mask_by": "prediction"},
    ),
    Bug(
        name="logits-shared-over-batch",
        description="The routing logits b_ij have no batch dimension: every iteration adds the "
                    "agreements of the whole batch (averaged here; summed with "
                    "logits_over_batch=\"sum\") to one b that all examples share.",
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
        overrides={"logits_over_batch": "mean"},
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
        overrides={"grad_through_routing": False, "grad_through_output": False},
    ),
)
BUGS = {bug.name: bug for bug in _BUGS}


def capsnet_with_bug(name: str, config: CapsNetConfig = PAPER, **overrides) -> CapsNet:
    """A ``CapsNet`` of ``config`` (with any field ``overrides``) that has bug ``name`` switched on,
    e.g. ``capsnet_with_bug("mask-by-prediction", SMALL)``. Its ``hparams`` record the switch,
    so a checkpoint of it rebuilds the same buggy model."""
    if name not in BUGS:
        raise KeyError(f"no bug named {name!r} in capsedu.bug_zoo.BUGS; known: {', '.join(BUGS)}")
    return CapsNet(replace(config, **overrides), **BUGS[name].overrides)


# --- Recorded runs: the correct model and each bug's, trained the same way ------------------------

CORRECT = "correct"  # the run of the paper's CapsNet(LIVE), beside the bugs' runs
RESULTS = "bug_zoo.json"
EPOCHS = 1
COMMAND = "python -m capsedu.bug_zoo"
COUPLING_IMAGES = 128  # the first test images (one training batch), whose couplings a run reports


def recipe(name: str, limit: int | None = None) -> Recipe:
    """The training run of the zoo's model ``name`` (``CORRECT`` or a key of ``BUGS``).

    Every run is trained as a cell of notebook 09's ablations (``ablations.recipe``: ``LIVE``,
    Adam at 2e-3, batches of 128, the paper's 2-pixel shifts, seed 0), for ``EPOCHS`` epoch. The
    bugs add no weights, so every run starts from the same weights and sees the same batches with
    the same shifts: two runs differ only by the bug. The last twelfth of the training images is
    held out (5,000 of MNIST's 60,000; a trial with ``limit`` holds out the same share)."""
    build = (lambda: CapsNet(LIVE)) if name == CORRECT else (lambda: capsnet_with_bug(name, LIVE))
    return replace(ablations.recipe({}), description=f"notebook 09's bug zoo: {name}",
                   build=build, epochs=EPOCHS, validation=max(1, (limit or 60_000) // 12))


def trained_couplings(model: CapsNet, images: torch.Tensor) -> list[dict]:
    """What ``model``'s routing does to the couplings on ``images`` (on the CPU; the model is
    moved there), one dict per iteration:
    ``coupling_trace``'s ``entropy``, ``distance`` from uniform and ``polarised`` share of each
    child's split of its vote, and ``vote``, a child's whole vote sum_j c_ij on average.

    In the paper a child's couplings sum to 1 over the parents: ``vote`` is 1 and the split is c
    itself. With the softmax over the children they do not (each child sends n_out / n_in of a
    vote on average), and the statistics read how each child splits what it sends."""
    with torch.no_grad():
        routing = model.cpu().eval()(images.cpu()).routing
    # a child's split of its vote: c_ij / sum_k c_ik; [batch, n_in, n_out]
    splits = [RoutingStep(step.c / step.c.sum(dim=-1, keepdim=True), step.v)
              for step in routing.history]
    trace = coupling_trace(routing._replace(history=splits))
    return [{**stats, "vote": float(step.c.sum(dim=-1).mean())}
            for stats, step in zip(trace, routing.history, strict=True)]


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
    training = recipe(name, limit)
    model, history, train_examples = train_recipe(training, epochs, limit, progress=progress,
                                                  state_path=state_path)
    test = load_mnist(False, limit)
    chosen = chosen_epoch(history)
    return {"overrides": BUGS[name].overrides if name in BUGS else {}, "seed": training.seed,
            "epochs": epochs, "limit": limit, "batch_size": training.batch_size,
            "train_examples": train_examples, "validation_examples": training.validation,
            "steps_per_epoch": len(history[0]["batch_loss"]),
            "batch_loss": [round(loss, 5) for h in history for loss in h["batch_loss"]],
            "batch_accuracy": [accuracy for h in history for accuracy in h["batch_accuracy"]],
            "validation_by_epoch": [h["validation_accuracy"] for h in history],
            "chosen_epoch": chosen["epoch"], "validation_accuracy": chosen["validation_accuracy"],
            "test_accuracy": evaluate(model, test, training.batch_size),
            "couplings": trained_couplings(model, test[0][:COUPLING_IMAGES]),
            "train_time_s": round(sum(h["seconds"] for h in history), 1),
            "threads": torch.get_num_threads(), "torch_version": torch.__version__}


def read_results(path: Path | None = None) -> dict[str, dict]:
    """The recorded runs by name, ``CORRECT`` and the keys of ``BUGS`` (the shipped ones by
    default; empty when none)."""
    return checkpoints.read_results(path or checkpoints.results_path(RESULTS, True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=positive_int, default=EPOCHS,
                        help=f"epochs of every run (default: {EPOCHS})")
    parser.add_argument("--limit", type=positive_int,
                        help="train and test on the first N images only (a trial)")
    parser.add_argument("--threads", type=positive_int, help="CPU threads (default: all)")
    parser.add_argument("--replace-shipped", action="store_true",
                        help="write into the shipped results instead of <data root>/runs")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    path = checkpoints.results_path(RESULTS, args.replace_shipped)
    results = read_results(path)
    # a file holds runs of one length only, so that they can be compared
    other = [name for name, record in results.items()
             if (record["epochs"], record["limit"]) != (args.epochs, args.limit)]
    if other:
        parser.error(f"{path} holds runs made with other --epochs or --limit ({', '.join(other)}):"
                     " finish it with their flags, or move it away to start again")
    for name in (CORRECT, *BUGS):
        if name in results:
            continue
        state = path.parent / f"state-bug_zoo-{name}.pt"
        record = run(name, args.epochs, args.limit, state_path=state)
        record["command"] = COMMAND + "".join(
            f" --{k} {v}" for k, v in (("epochs", args.epochs), ("limit", args.limit),
                                       ("threads", args.threads)) if v)
        results[name] = record
        checkpoints.write_results(path, results)
        state.unlink()
        print(f"{name}: test accuracy {100 * record['test_accuracy']:.2f} %, "
              f"{record['train_time_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

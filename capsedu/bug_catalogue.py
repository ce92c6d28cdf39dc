"""The bug zoo's catalogue (notebook 09): what each implementation bug of public CapsNets is.

``BUGS`` maps each bug's short name to a ``Bug``: what the buggy code does, why it is wrong, what
the public threads that discuss it show (and what they do not), their addresses, where its code
is in capsedu, and the routing step it routes with. It is the one description of the zoo: the
model (``buggy_capsnet.BuggyCapsNet``), the recorded runs (``bug_zoo``), notebook 09 and its
widget read it.
"""

from dataclasses import dataclass

from .buggy import step_logits_shared_over_batch, step_softmax_over_children
from .course_settings import Name, Text
from .routing import Step, routing_step
from .validate import CheckedRecord


@dataclass(frozen=True)
class Bug(CheckedRecord):
    name: Name  # the registry's key, e.g. "softmax-over-children"
    description: Text  # one line: what the buggy code does
    why_wrong: Text  # what the paper does instead, and what the bug breaks
    evidence: Text  # what the cited threads and code show, and what they do not
    citations: tuple[Text, ...]  # issue and pull-request addresses
    code: Text  # where the buggy code is: a name in capsedu (module.name), and what it does
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
        code="buggy.step_softmax_over_children, the routing step", step=step_softmax_over_children,
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
        code="buggy.unsquared_margin_loss, in buggy_capsnet.BuggyCapsNet.loss",
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
        code="buggy_capsnet.BuggyCapsNet.reconstruct: the decoder is given no targets",
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
        code="buggy.step_logits_shared_over_batch, the routing step",
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
        code="buggy_capsnet.BuggyCapsNet.votes: every iteration routes a detached u_hat",
    ),
)
BUGS = {bug.name: bug for bug in _BUGS}

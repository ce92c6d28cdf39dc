"""The checker of an attack (notebook 11): the fast gradient sign method, written by the learner.
After a FAIL it names the known mistake the answers show: the sign forgotten (the gradient's own
size scaled by eps), eps lost inside the sign, a step down the gradient instead of up, no clamp to
[0, 1].
"""

from collections.abc import Callable

import torch

from ..attacks import attack_loss, fgsm, gradient
from ..baselines import MaxPoolCNN
from ..validate import Function, checked
from .checking import _hint, _near, check


def _model() -> MaxPoolCNN:
    """A small CNN with fixed weights: the model every case attacks (its logits, the scores)."""
    torch.manual_seed(0)
    return MaxPoolCNN(image_size=12, channels=(4,), hidden=(16,)).eval()


def _cases() -> list[tuple]:
    """(model, images [B, 1, 12, 12], labels [B], eps): digits with black and white pixels (where
    the clamp to [0, 1] acts) and grey ones, at small and large eps."""
    g = torch.Generator().manual_seed(0)
    model = _model()
    cases = []
    for batch, eps in ((4, 0.1), (6, 0.25), (1, 0.05), (5, 0.3)):
        images = torch.rand(batch, 1, 12, 12, generator=g)
        images[images < 0.3] = 0.0  # background
        images[images > 0.8] = 1.0  # ink
        cases.append((model, images, torch.randint(0, 10, (batch,), generator=g), eps))
    return cases


def _reference(model, images, labels, eps) -> torch.Tensor:
    return fgsm(model, images, labels, eps, "cross-entropy")


@checked(checker=True)
def check_fgsm(learner: Function("your fgsm(model, images, labels, eps)")) -> bool | None:
    """Check a learner's ``fgsm(model, images, labels, eps)``: images ``[B, 1, H, W]`` moved by
    ``eps`` along the sign of the gradient of the cross-entropy of ``model``'s logits at the
    true ``labels`` ``[B]``, then clamped to [0, 1] (notebook 11). A mean or a sum over the batch,
    ``torch.autograd.grad`` or ``.backward()``, any device: all pass (in the images' dtype)."""
    cases = _cases()
    passed = check("fgsm", learner, _reference, cases, describe=lambda case: (
        f"{len(case[1])} images of shape {tuple(case[1].shape[1:])}, eps={case[3]}"))
    if passed is False:  # hint calls the learner under no_grad: an attack needs the gradient
        _hint(_fgsm_mistake, lambda *case: _with_gradient(learner, *case), cases)
    return passed


def _with_gradient(learner: Callable, *case):
    with torch.enable_grad():
        return learner(*case)


def _gradient(model, images, labels) -> torch.Tensor:
    """d cross-entropy / d images, the loss a mean over the batch."""
    return gradient(lambda x: attack_loss(model, x, labels, "cross-entropy"), images)


def _up(model, images, labels, eps) -> torch.Tensor:
    """FGSM's move before the clamp: eps sign(grad)."""
    return eps * _gradient(model, images, labels).sign()


NO_SIGN = ("the sign is missing: you moved by eps times the gradient itself, so most pixels "
           "hardly move. FGSM moves every pixel by exactly eps: eps * grad.sign().")
# the known wrong answers, each (model, images, labels, eps) -> images, and what they are
MISTAKES = [
    (lambda m, x, y, eps: x + _up(m, x, y, eps),
     "your pixels leave [0, 1]: clamp the result, torch.clamp(x_adv, 0, 1). An image has no "
     "pixel darker than black or brighter than white."),
    (lambda m, x, y, eps: (x - _up(m, x, y, eps)).clamp(0, 1),
     "you step down the gradient (x - eps sign(grad)), which makes the loss smaller: the model "
     "reads the digit even more surely. The attacker climbs: x + eps sign(grad)."),
    (lambda m, x, y, eps: (x + eps * _gradient(m, x, y)).clamp(0, 1), NO_SIGN),
    (lambda m, x, y, eps: x + eps * _gradient(m, x, y), NO_SIGN),
    # the loss summed over the batch: its gradient is len(y) times the mean's
    (lambda m, x, y, eps: (x + eps * len(y) * _gradient(m, x, y)).clamp(0, 1), NO_SIGN),
    (lambda m, x, y, eps: x + eps * len(y) * _gradient(m, x, y), NO_SIGN),
    (lambda m, x, y, eps: (x + _gradient(m, x, y).sign()).clamp(0, 1),
     "every pixel moved by 1, not eps: sign(eps * grad) is sign(grad) (eps is lost inside the "
     "sign). Scale the sign: eps * grad.sign()."),
]


def _fgsm_mistake(answers: list, cases: list[tuple]) -> str | None:
    """The first of ``MISTAKES`` that the learner's answers show on every case, in words."""
    for wrong, words in MISTAKES:
        if all(_near(answer, wrong(*case)) for answer, case in zip(answers, cases, strict=True)):
            return words
    return None

"""Adversarial examples: the fast gradient sign method and projected gradient descent (notebook 11).

An attacker with the model's weights (white-box) moves every pixel of an image by at most ``eps``
(the L-infinity ball: ``|x' - x| <= eps`` pixel by pixel, and ``x'`` stays an image, in [0, 1]) in
the direction that raises a loss of the true label:

* **FGSM** (Goodfellow, Shlens & Szegedy 2015): one step of size ``eps`` along the sign of the
  gradient, ``x' = clip_[0,1](x + eps sign(grad_x L(x, y)))``.
* **PGD** (Madry et al. 2018): start at a random point of the ball, take ``steps`` steps of
  ``step_size`` along the sign of the gradient, each projected back into the ball and the pixel
  box; ``restarts`` random starts, keeping for each image the first that fools the model.

Which loss the attacker raises matters as much as the attack (``LOSSES``): the model's own
training loss (a CapsNet's margin loss is exactly 0, and so is its gradient, once the true
capsule is longer than 0.9 and every other shorter than 0.1: what is left of the gradient only
raises the reconstruction's error), the cross-entropy of the model's class scores, or the margin
of the best other class over the true one (Carlini & Wagner 2017). Each is a batch's mean, and
each works for every model of the course: a model's class scores are its forward pass's logits,
or a CapsNet's capsule lengths (``class_scores``). An evaluation attacks with all of them and
counts a digit as robust only if it survives every one (``capsedu.adversarial``).
"""

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from .checks import check_labels
from .course_settings import Name, Seed, evaluating, model_device, model_output
from .refusals import kind_of, with_article
from .validate import Choice, Flag, Float, Int, Numbers, Tensor, checked

LOSSES = ("training", "cross-entropy", "margin")
ATTACKS = ("pgd", "fgsm")  # the attacks the course runs: PGD's many steps, FGSM's one
Attack = Choice("an attack", *ATTACKS)
MAX_STEPS = 1000  # PGD's steps: 20 to 100 in the literature; each is a forward and backward pass
MAX_RESTARTS = 100  # random starts per image, each a whole run of PGD
# steps times restarts: forward and backward passes over the images, the attack's time (Madry et
# al.'s strongest: 100 steps, 10 restarts); past it, minutes on a few digits, on a CPU
MAX_PASSES = 1000
# images times passes (image-passes, one image's forward and backward pass each): what an attack's
# time grows with, bounded the same on every machine. The course's largest attack is 11's recorded
# check with more steps, 100 digits x 100 steps = 10,000; this is 5 times that: minutes on 2 CPU
# cores (about 5 ms an image-pass for the 28x28 CapsNet, 25 ms for 08's 40x40 one), seconds on a
# GPU; Madry et al.'s strongest attack (MAX_PASSES) on 50 digits
MAX_IMAGE_PASSES = 50_000

Images = Tensor("images [B, C, H, W], pixels in [0, 1]", ndim=4, pixels=True)
Labels = Numbers("their true classes [B]", ndim=1, whole=True, tensor=True)  # 0.5 is no class
Eps = Float("the largest change of a pixel (L-infinity), in pixel units", ge=0, le=1)
Loss = Choice("the loss the attacker raises", *LOSSES)
Objective = Callable[[torch.Tensor], torch.Tensor]  # images [B, C, H, W] -> a number to raise


@checked(reads=("model", "images"))
def class_scores(model: nn.Module, images: Images) -> torch.Tensor:
    """What ``model`` says of each class, ``[B, classes]``, with the gradient: a CapsNet's capsule
    lengths (its output's ``lengths``), any other model's forward pass (a CNN's logits); read in
    eval mode (``evaluating``: no dropout), as the attacks read it."""
    with evaluating(model):
        return _class_scores(model, images, "class_scores", "model")


def _class_scores(model: nn.Module, images: torch.Tensor, where: str, argument: str
                  ) -> torch.Tensor:
    """``class_scores``, a model that gives none refused in the words of ``where`` (the function
    the caller called) and its ``argument``."""
    def scores(x):  # a CapsNet's capsule lengths, another model's output
        out = model(x)
        return getattr(out, "lengths", out)

    return model_output(where, argument, model, images, scores, "class scores [B, classes]",
                        lambda z: torch.is_tensor(z) and z.ndim == 2 and len(z) == len(images),
                        "pass a model whose forward pass gives them (a CNN's logits, a "
                        "CapsNet's output with .lengths)")


@checked(reads=("model", "images"))
def attack_loss(model: nn.Module, images: Images, labels: Labels, loss: Loss) -> torch.Tensor:
    """The mean over the batch of the ``loss`` the attacker raises, for ``images`` ``[B, C, H, W]``
    of true class ``labels`` ``[B]``: a 0-d tensor with the gradient."""
    if loss == "training":  # a CapsNet's margin loss + 0.0005 x reconstruction; a CNN's CE
        _check_training_loss("attack_loss", "model", model, (loss,))
        return model.training_loss(images, labels)[0]
    z = _class_scores(model, images, "attack_loss", "model")  # [B, classes]
    check_labels(labels, "attack_loss(): labels", len(images), z.shape[1])
    if loss == "cross-entropy":  # -log softmax(z)_y: lengths in [0, 1] taken as logits
        return F.cross_entropy(z, labels)
    # max_{j != y} z_j - z_y: positive exactly when another class wins
    true = z.gather(1, labels[:, None])[:, 0]  # [B]
    others = z.scatter(1, labels[:, None], float("-inf"))  # [B, classes], the true one out
    return (others.amax(dim=1) - true).mean()


@checked
def check_attackable(where: Name, argument: Name, model: nn.Module, images: Images,
                     losses: tuple[Loss, ...], labels: Labels | None = None) -> None:
    """Refuse, in the words of ``where`` and its ``argument``, a model the attack cannot read: one
    that gives no class scores for (the first of) ``images``, or one without ``.training_loss``
    attacked with the loss 'training' (among ``losses``), its own training loss; and ``labels``,
    if given, that are not one class of the model per image. The model is tried as it reads a
    test image (``evaluating``), its weights and statistics unchanged."""
    _check_training_loss(where, argument, model, losses)
    if not len(images):  # nothing to attack: nothing to try it on
        return
    with evaluating(model), torch.no_grad():
        classes = _class_scores(model, images[:1], where, argument).shape[1]
    if labels is not None:  # by where's name: attack_loss's own check would name attack_loss
        check_labels(labels, f"{where}(): labels", len(images), classes)


def _check_training_loss(where: str, argument: str, model: nn.Module, losses: tuple) -> None:
    """``check_attackable``'s first check: a model attacked with the loss 'training' has one."""
    if "training" in losses and not callable(getattr(model, "training_loss", None)):
        raise TypeError(f"{where}(): {argument} must have .training_loss(x, y) to be attacked with "
                        f"the loss 'training' (its own training loss), got "
                        f"{with_article(type(model).__name__)}, which has none; pass another loss "
                        "('cross-entropy' or 'margin'), or a model of the course, e.g. CapsNet()")


@checked
def gradient(objective: Objective, images: Images) -> torch.Tensor:
    """d objective / d images ``[B, C, H, W]`` (the weights get no gradient)."""
    images = images.detach().requires_grad_(True)
    value = _one_number("gradient", "objective", objective(images))
    found = torch.autograd.grad(value, images, allow_unused=True)[0] if value.requires_grad \
        else None
    if found is None:
        raise ValueError("gradient(): objective must compute its number from images (with "
                         "gradients on), got one that does not depend on them; use images in "
                         "it, outside torch.no_grad()")
    return found


def _one_number(where: str, argument: str, value):
    """``value``, what a function given as ``argument`` returned, refused in ``where``'s words
    unless one number (a 0-d tensor), of which a gradient can be taken."""
    if not isinstance(value, torch.Tensor) or value.ndim != 0:
        raise ValueError(f"{where}(): {argument} must return one number (a 0-d tensor, e.g. a "
                         f"loss summed over the batch), got {kind_of(value)}; sum or average "
                         "what it returns")
    return value


@checked
def project(adversarial: Tensor("an adversarial batch [B, C, H, W]", ndim=4, floating=True),
            images: Images, eps: Eps) -> torch.Tensor:
    """The nearest point of the ball ``|x' - x| <= eps`` that is an image: each pixel's change
    clipped to [-eps, eps], then the pixel to [0, 1]. ``[B, C, H, W]``."""
    if adversarial.shape != images.shape:
        raise ValueError(f"project(): adversarial must have the shape of images "
                         f"{tuple(images.shape)}, got {tuple(adversarial.shape)}; pass the batch "
                         "the attack started from")
    delta = torch.clamp(adversarial - images, min=-eps, max=eps)
    return torch.clamp(images + delta, min=0, max=1).detach()


@checked(reads=("model", "images"))
def fgsm(model: nn.Module, images: Images, labels: Labels, eps: Eps,
         loss: Loss = "cross-entropy") -> torch.Tensor:
    """The fast gradient sign method: ``images`` ``[B, C, H, W]`` moved by ``eps`` along the sign
    of the gradient of ``loss`` at the true ``labels`` ``[B]``, kept in [0, 1]."""
    check_attackable("fgsm", "model", model, images, (loss,), labels)
    images, labels = _on_device(model, images, labels)
    with evaluating(model):
        grad = gradient(lambda x: attack_loss(model, x, labels, loss), images)  # [B, C, H, W]
    # x' = clip_[0,1](x + eps sign(grad_x L(x, y)))
    return torch.clamp(images + eps * grad.sign(), min=0, max=1).detach()


@checked
def ascend(objective: Objective, images: Images, start: Images, eps: Eps,
           steps: Int("steps", ge=0, le=MAX_STEPS),
           step_size: Float("how far a step moves each pixel", ge=0, le=1)) -> torch.Tensor:
    """PGD's loop from ``start`` ``[B, C, H, W]``, a point of the ball of ``images``: ``steps``
    signed gradient steps that raise ``objective`` (images -> a 0-d tensor), each projected into
    the ball."""
    if start.shape != images.shape:
        raise ValueError(f"ascend(): start must have the shape of images {tuple(images.shape)}, "
                         f"got {tuple(start.shape)}; start from the batch itself or "
                         "random_point(images, eps, generator)")
    away = (start.detach() - images.to(start.device)).abs().max().item() if start.numel() else 0
    if away > eps + 1e-6:  # with no step to project it, a start outside is what comes back
        raise ValueError(f"ascend(): start must lie in the ball of images (each pixel at most "
                         f"eps={eps:g} from its image), got a pixel {away:.4g} away; start from "
                         "the batch itself or random_point(images, eps, generator)")
    adversarial = start.detach()
    for _ in range(steps):
        # x <- Proj_{|x' - x| <= eps, [0, 1]}(x + step_size sign(grad objective(x)))
        step = step_size * gradient(objective, adversarial).sign()  # [B, C, H, W]
        adversarial = project(adversarial + step, images, eps)
    return adversarial


@checked
def random_point(images: Images, eps: Eps, generator: torch.Generator) -> torch.Tensor:
    """A point drawn uniformly from the ball, each pixel ``x + U(-eps, eps)``, kept in [0, 1]
    (drawn on the CPU with ``generator``, so a seed gives the same start on every device)."""
    noise = torch.empty(images.shape).uniform_(-eps, eps, generator=generator)
    return torch.clamp(images + noise.to(images.device), min=0, max=1).detach()


@checked
def check_restarts(where: str, restarts: Int("random starts", ge=1, le=MAX_RESTARTS),
                   random_start: Flag("True to start each restart at a random point"),
                   steps: Int("steps", ge=0, le=MAX_STEPS) = 1) -> None:
    """Refuse more than one restart without a random start: each would start from the image
    itself and walk the same steps, one run of PGD paid for ``restarts`` times; and more than
    ``MAX_PASSES`` steps in all (``steps`` times ``restarts``), the attack's time."""
    if steps * restarts > MAX_PASSES:
        raise ValueError(f"{where}(): steps and restarts must make at most {MAX_PASSES:,} passes "
                         f"(steps x restarts, each a forward and a backward pass over the "
                         f"images), got {steps:,} x {restarts:,} = {steps * restarts:,}; pass "
                         "fewer steps or restarts (100 steps and 10 restarts is a strong attack, "
                         f"on at most {MAX_IMAGE_PASSES // MAX_PASSES} images a call)")
    if restarts > 1 and not random_start:
        raise ValueError(f"{where}(): restarts and random_start contradict each other: "
                         f"restarts={restarts} random starts with random_start=False would run the "
                         "same attack from the image each time; pass restarts=1, or "
                         "random_start=True")


@checked
def check_image_passes(where: Name, images: Int("images attacked", ge=0),
                       steps: Int("steps", ge=0, le=MAX_STEPS),
                       restarts: Int("random starts", ge=1, le=MAX_RESTARTS)) -> None:
    """Refuse, before any pass, an attack of more than ``MAX_IMAGE_PASSES`` image-passes
    (``images`` x ``steps`` x ``restarts``, each a forward and a backward pass of one image), the
    attack's time on any machine, with how many images fit at those steps and restarts."""
    work = images * steps * restarts
    if work <= MAX_IMAGE_PASSES:
        return
    fit = MAX_IMAGE_PASSES // (steps * restarts)  # at least 50: steps x restarts <= MAX_PASSES
    raise ValueError(f"{where}(): images must be at most {fit:,} at steps={steps:,} and "
                     f"restarts={restarts:,} (images x steps x restarts make at most "
                     f"{MAX_IMAGE_PASSES:,} image-passes, each a forward and a backward pass of "
                     f"one image: past it, tens of minutes to hours on a CPU), got {images:,} "
                     f"images x {steps:,} x {restarts:,} = {work:,}; pass fewer images (attack "
                     f"them in batches of {fit:,}, one call each), or fewer steps or restarts")


@checked(reads=("model", "images"))
def pgd(model: nn.Module, images: Images, labels: Labels, eps: Eps,
        steps: Int("steps", ge=1, le=MAX_STEPS) = 20,
        step_size: Float("how far a step moves each pixel", ge=0, le=1) | None = None,
        loss: Loss = "cross-entropy",
        restarts: Int("random starts", ge=1, le=MAX_RESTARTS) = 1,
        random_start: Flag("True to start each restart at a random point of the ball") = True,
        seed: Seed = 0, penalty: Objective | None = None) -> torch.Tensor:
    """Projected gradient descent on ``loss`` (ascent, for the attacker) in the L-infinity ball of
    radius ``eps`` around ``images`` ``[B, C, H, W]`` of true class ``labels`` ``[B]``:
    ``steps`` steps of ``step_size`` (default 2.5 eps / steps, Madry et al.'s rule), from a
    random start (``random_start``; else from the image itself), ``restarts`` times, at most
    ``MAX_PASSES`` steps in all and ``MAX_IMAGE_PASSES`` passes of one image (images x steps x
    restarts, ``check_image_passes``). For each image, the first restart that makes the model
    misread it, else the last.

    ``penalty`` (images -> a 0-d tensor): a number the attacker keeps low at the same time,
    subtracted from the loss (notebook 11's attacker who knows about a detector)."""
    check_restarts("pgd", restarts, random_start, steps)
    check_image_passes("pgd", len(images), steps, restarts)
    check_attackable("pgd", "model", model, images, (loss,))
    images, labels = _on_device(model, images, labels)
    step_size = 2.5 * eps / steps if step_size is None else step_size
    generator = torch.Generator().manual_seed(seed)

    def objective(x):
        raised = attack_loss(model, x, labels, loss)
        return raised if penalty is None else raised - _one_number("pgd", "penalty", penalty(x))

    with evaluating(model):
        best, fooled = images, torch.zeros(len(images), dtype=torch.bool, device=images.device)
        for _ in range(restarts):
            start = random_point(images, eps, generator) if random_start else images
            adversarial = ascend(objective, images, start, eps, steps, step_size)
            misread = misreads(model, adversarial, labels)  # [B]
            keep = ~fooled  # images not fooled yet take this restart's example
            best = torch.where(keep[:, None, None, None], adversarial, best)
            fooled |= misread
    return best


@checked(reads=("model", "images"))
@torch.no_grad()
def misreads(model: nn.Module, images: Images, labels: Labels) -> torch.Tensor:
    """Whether ``model`` reads each image ``[B, C, H, W]`` as another class than its label
    ``[B]``: ``[B]`` booleans (the highest class score)."""
    scores = _class_scores(model, images, "misreads", "model")
    check_labels(labels, "misreads(): labels", len(images), scores.shape[1])
    return scores.argmax(dim=1) != labels


def _on_device(model: nn.Module, images: torch.Tensor, labels: torch.Tensor):
    """The images (float32) and labels (int64) where ``model`` is: an attack runs there."""
    device = model_device(model)
    return images.float().to(device), labels.long().to(device)

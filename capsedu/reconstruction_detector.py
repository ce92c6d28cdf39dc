"""The reconstruction detector of adversarial inputs (Frosst, Sabour & Hinton 2018, "DARCCC";
notebook 11).

A CapsNet redraws its input from the capsule of the class it reads (its decoder). On a digit it
reads right, the drawing is close to the input; on an adversarial input the capsule that wins is
often not the drawn digit, and the drawing lands far from the input. The detector flags an input
whose distance ``||x - r(x)||`` (L2 over the pixels, ``r`` drawn from the longest capsule) is
above a threshold, chosen on clean images the model never trained on: the ``quantile`` of the
distances of the held-out training digits (never the test digits), so about 5 % of clean inputs
are flagged (the false alarms, measured on the test digits).

An attacker who knows about it lowers the distance at the same time as the class margin
(``penalty``, a weighted sum in the attacker's loss: Qin et al. 2020; Gu, Wu & Tresp 2021).
"""

from dataclasses import dataclass
from typing import Annotated

import torch

from .attacks import Attack
from .capsnet import CapsNet
from .checks import check_same
from .course_settings import Images, Name  # at least one: a threshold of no digits is none
from .data import transformed_mnist
from .data.mnist import SPLITS
from .recipes import RECIPES
from .validate import CheckedRecord, Float, Int, Numbers, Some, Tensor, checked

BATCH = 100  # images read at once


# The share of clean held-out digits under the threshold. One under 0.5 is refused: 0.05 is a
# false-alarm share, and taken as the quantile it flags 95 % of the clean digits.
Quantile = Float("the share of clean held-out digits under the threshold: a fraction such as "
                 "0.95 (5 % of clean digits flagged), not the false-alarm share 0.05 nor a "
                 "percentage", ge=0.5, lt=1)


@dataclass(frozen=True)
class Settings(CheckedRecord):
    """How the threshold is chosen: the ``quantile`` of the distances of ``held_out`` clean
    digits, the last of the training split (held out by the recipes, never trained on)."""

    quantile: Quantile = 0.95
    held_out: Int("held-out training digits", ge=1, le=10_000) = 5000


SETTINGS = Settings()


@dataclass(frozen=True)
class Threshold(CheckedRecord):
    """A model's threshold: the ``quantile`` of its distances on ``held_out`` clean digits."""

    model: Name
    value: Float("the distance over which an image is flagged", ge=0)
    quantile: Quantile
    held_out: Int("the clean held-out digits it was chosen on", ge=1)


@checked
def held_out_images(settings: Settings = SETTINGS) -> torch.Tensor:
    """The held-out training digits of 08's recipes (the last ``RECIPES[...].validation`` of the
    training split, translated on the canvas as in training's held-out set), the last
    ``settings.held_out`` of them: ``[held_out, 1, 40, 40]``."""
    total, held = SPLITS[True][2], RECIPES["affnist-capsnet"].validation
    rows = torch.arange(total - min(held, settings.held_out), total)
    return transformed_mnist.translated_mnist(train=True, rows=rows)[0]


@checked(reads=("model", "images"))
def reconstruction_distance(model: CapsNet, images: Images) -> torch.Tensor:
    """``||x - r(x)||`` ``[N]`` with the gradient: the L2 distance between each image and the
    digit ``model``'s decoder draws from its longest capsule."""
    drawn = model(images).reconstruction  # no targets: the longest capsule is drawn
    return (images - drawn).flatten(1).norm(dim=1)


@checked(reads=("model", "images"))
@torch.no_grad()
def distances(model: CapsNet, images: Images) -> torch.Tensor:
    """``reconstruction_distance`` of many images, ``BATCH`` at a time, on the CPU: ``[N]``."""
    return torch.cat([reconstruction_distance(model, images[i:i + BATCH]).cpu()
                      for i in range(0, len(images), BATCH)])


@checked(reads=("model", "held_out"))
def threshold(model: CapsNet, held_out: Images, name: Name,
              settings: Settings = SETTINGS) -> Threshold:
    """``model``'s threshold (named ``name``) from its distances on the clean ``held_out``
    digits: their ``settings.quantile``."""
    value = torch.quantile(distances(model, held_out), settings.quantile).item()
    return Threshold(name, value, settings.quantile, len(held_out))


@checked
def penalty(model: CapsNet, weight: Float("the distance's weight", ge=0, le=100)):
    """What an attacker who knows the detector also keeps low: ``weight`` x the mean distance
    of a batch (``attacks.pgd``'s ``penalty``)."""
    return lambda images: weight * reconstruction_distance(model, images).mean()


@dataclass(frozen=True)
class Detection(CheckedRecord):
    """The detector against one attack on ``model``: ``fooled`` ``[n]``, the digits some example
    made it misread; ``caught`` ``[n]``, those whose every fooling example was flagged; and the
    share of clean test digits flagged (``false_alarms``)."""

    model: Name
    attack: Attack
    eps: Float("the attack's eps", ge=0, le=1)
    # of the distance in the attacker's loss: 0 for an attacker who ignores it
    weight: Float("the distance's weight in the attacker's loss", ge=0)
    threshold: Float("the detector's threshold", ge=0)
    # at least one digit: a share of no digits is no number (NaN)
    fooled: Annotated[Tensor("whether some example fooled each digit: booleans [n]", ndim=1), Some]
    caught: Tensor("whether each fooled digit was flagged: booleans [n]", ndim=1)
    false_alarms: Float("the share of clean digits flagged", ge=0, le=1)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), and ``fooled`` and ``caught`` of other
        digits or other than booleans (a digit caught is one fooled)."""
        super().__post_init__()
        check_same("Detection", "length, one per digit", "pass both of the same digits",
                   fooled=len(self.fooled), caught=len(self.caught))
        if self.fooled.dtype != torch.bool or self.caught.dtype != torch.bool or bool(
                (self.caught & ~self.fooled).any()):
            raise ValueError(f"Detection(): fooled and caught must be booleans with every digit "
                             f"caught also fooled, got dtypes {self.fooled.dtype} and "
                             f"{self.caught.dtype}; pass what detection(...) gives")

    @property
    def detection_rate(self) -> float:
        """The share of the fooled digits that the detector flags; refused when none was fooled
        (a share of nothing is no rate)."""
        fooled = int(self.fooled.sum())
        if not fooled:
            raise ValueError(f"Detection.detection_rate: fooled must hold at least one digit the "
                             f"attack fooled to give a share of them, got none of "
                             f"{len(self.fooled)} (the attack fooled no digit at eps={self.eps:g});"
                             " check d.fooled.any() first, or attack with a larger eps")
        return int(self.caught.sum()) / fooled

    @property
    def evaded(self) -> float:
        """The share of all digits the attacker wins: misread and not flagged."""
        return (self.fooled & ~self.caught).float().mean().item()


# one per loss of an attack: which digits its examples made the model misread, their distances
Wrong = Numbers("which digits an attack's examples made the model misread: booleans [n]",
                ndim=1, at_least=1, bools=True, tensor=True)
Distances = Numbers("the examples' reconstruction distances [n]", ndim=1, at_least=1, ge=0,
                    tensor=True)


@checked
def detection(model: str, attack: Attack, eps: Float("the attack's eps", ge=0, le=1),
              weight: Float("the distance's weight in the attacker's loss", ge=0),
              threshold: Float("the detector's threshold", ge=0),
              wrong_by_loss: Annotated[tuple[Wrong, ...], Some],
              distance_by_loss: Annotated[tuple[Distances, ...], Some],
              false_alarms: Float("the share of clean digits flagged", ge=0, le=1)) -> Detection:
    """A ``Detection`` from each loss's examples: which digits they made the model misread
    (``[n]`` booleans each) and their distances (``[n]`` each): a digit is fooled if any example
    fooled it, caught if every example that fooled it is over the ``threshold``."""
    check_same("detection", "length, one per loss", "pass each loss's "
               "readings and distances of the same digits", wrong_by_loss=len(wrong_by_loss),
               distance_by_loss=len(distance_by_loss))
    check_same("detection", "length, one per digit", "pass each loss's readings and distances "
               "of the same digits", **{f"wrong_by_loss[{k}]": len(w)
                                        for k, w in enumerate(wrong_by_loss)},
               **{f"distance_by_loss[{k}]": len(d) for k, d in enumerate(distance_by_loss)})
    wrong_by_loss = tuple(torch.as_tensor(w).bool() for w in wrong_by_loss)
    wrong = torch.stack(list(wrong_by_loss))  # [losses, n]
    flagged = torch.stack(list(distance_by_loss)) > threshold  # [losses, n]
    fooled = wrong.any(dim=0)
    caught = fooled & (flagged | ~wrong).all(dim=0)
    return Detection(model, attack, eps, weight, threshold, fooled, caught, false_alarms)

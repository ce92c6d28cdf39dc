"""Does a capsule's pose turn with its input? Angles read off capsules, measured (notebook 10).

Equivariance for pose: turn the input by an angle and a capsule that carries pose should turn by
the same angle, while its length (the probability that the entity is present) stays.

* the pose capsules' face angle against the angle the face was turned by: the line through them
  (``angle_slope`` on ``parts.pose_net.rotation_sweep``), slope 1 for a pose that turns with the
  input;
* what a CapsNet's digit capsule does as a digit turns (``capsule_under_rotation``: its length,
  its cosine with the upright capsule, where its change goes);
* whether its 16 numbers carry the digit's angle at all: a linear read-out of the angle, fitted
  on some digits and tested on others (``angle_from_vectors``, ``capsule_angle_readout``).

``equivariance`` measures the same question for convolutions, pooling and the C4 layers.
"""

from dataclasses import dataclass, fields
from typing import Annotated

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import AfterValidator
from torch import nn

from .capsnet import CapsNet
from .checks import check_labels, check_same
from .data import transformed_mnist
from .units import InDegrees
from .validate import Array, CheckedRecord, Float, Int, Numbers, Record, Some, Tensor, checked

MNIST_SIDE = 28  # digits are turned on their own 28x28 canvas (their ink stays inside)

# MNIST digits, one or more, each turned on its own 28x28 canvas: another side is refused here
Digits = Annotated[Tensor("MNIST digits [N, 1, 28, 28]", ndim=4, pixels=True, sizes={
    1: 1, 2: MNIST_SIDE, 3: MNIST_SIDE}), Some]
Labels = Tensor("their labels [N]", ndim=1)
Digit = Tensor("one MNIST digit [1, 28, 28]", ndim=3, pixels=True,
               sizes={0: 1, 1: MNIST_SIDE, 2: MNIST_SIDE})
# the angles a digit is turned by: a list, a range, an array or a tensor of degrees
Angles = Annotated[Numbers("a list of finite numbers (degrees) [n]", ndim=1, at_least=1,
                           fix="e.g. range(0, 360, 30)"), InDegrees]


def _different(angles: np.ndarray) -> np.ndarray:
    """Refuse angles that are all one: a read-out or a line of one angle fits it exactly,
    whatever the capsule holds (an error of 0 beside a baseline of 0 says nothing)."""
    if len(np.unique(angles)) < 2:
        raise ValueError(f"must hold at least 2 different angles (a read-out of one angle is "
                         f"exact whatever it reads: its error says nothing), got "
                         f"{angles.tolist()[:5]}; pass several, e.g. range(-45, 50, 15)")
    return angles


# angles a reading is compared across: at least two different ones, in degrees
Several = Annotated[Numbers("a list of different angles in degrees [n]",
                            ndim=1, at_least=2, fix="e.g. range(-45, 50, 15)"),
                    AfterValidator(_different), InDegrees]


@dataclass(frozen=True)
class AngleFit(CheckedRecord):
    """The line through the angles a model reads against the input's angles (``angle_slope``)."""

    # 1 when the reading turns with the input, 0 when it ignores the turn
    slope: Float("the reading's degrees per degree of the input")
    offset: Float("the reading at angle 0, degrees", ge=-180, lt=180)
    # the largest distance of an (unwrapped) reading from the line
    residual: Float("degrees off the line at most", ge=0)


@checked
def angle_slope(angles: Several,
                readings: Numbers("the angles a model read, degrees [n]", ndim=1)) -> AngleFit:
    """The least-squares line through angles a model reads (``readings``, degrees, each known
    only up to whole turns, e.g. in [-180, 180)) against the angles the input was turned by
    (``angles``, increasing in steps under 180 degrees): ``slope`` (1 when the reading turns
    with the input, 0 when it ignores the turn), ``offset`` (the reading at angle 0, in
    [-180, 180)) and the largest ``residual`` from the line.

    The readings are unwrapped first (``np.unwrap``): a step of more than 180 degrees between
    neighbours is taken as the shorter way round, so 170 -> -175 counts as +15, not -345."""
    angles, readings = angles.astype(float), readings.astype(float)
    check_same("angle_slope", "length", "pass one reading per angle, in the angles' order",
               angles=len(angles), readings=len(readings))
    if not (np.diff(angles) > 0).all() or (np.diff(angles) >= 180).any():
        raise ValueError(f"angle_slope(): angles must increase in steps under 180 degrees (else "
                         f"a reading cannot be unwrapped), got {angles.tolist()}; sort them, and "
                         "add angles between those further apart")
    unwrapped = np.unwrap(readings, period=360.0)
    # reading ~ slope * angle + offset, least squares
    slope, offset = np.polyfit(angles, unwrapped, 1)
    residual = np.abs(unwrapped - (slope * angles + offset)).max()
    return AngleFit(slope=float(slope), offset=float((offset + 180) % 360 - 180),
                    residual=float(residual))


@checked
def turned(digit: Digit, angles: Angles) -> torch.Tensor:
    """One MNIST ``digit`` ``[1, 28, 28]`` turned by each of ``angles`` (degrees,
    counter-clockwise on screen) on its 28x28 canvas: ``[len(angles), 1, 28, 28]``. The angles
    are checked as one sweep (``Angles``), each turn then taken (2.5 among 0 to 360)."""
    return torch.cat([transformed_mnist._affine(digit[None], rotation=a, side=MNIST_SIDE)
                      for a in angles.astype(float).tolist()])


def _classes(capsnet: nn.Module) -> int:
    """The classes a CapsNet reads (10 for one without a config)."""
    return getattr(getattr(capsnet, "config", None), "n_classes", 10)


# what shares of a capsule's change hold: each >= 0 (their sum over the axis is 1)
Shares = Numbers("shares of the change, each >= 0", ndim=2, ge=0)


@dataclass(frozen=True)
class CapsuleUnderRotation(CheckedRecord):
    """The true class's digit capsule of N digits, each turned by A angles
    (``capsule_under_rotation``); v0 is the capsule of the upright digit, D its dimension."""

    v: Array("the capsule of each turned digit [N, A, D]", ndim=3)
    # the probability that the class is present
    length: Numbers("the capsule's length [N, A]", ndim=2, ge=0, le=1)
    predictions: Numbers("the longest capsule's class [N, A]", ndim=2, whole=True, ge=0)
    right: Numbers("whether that is the true class [N, A]", ndim=2, bools=True)
    # v(a) . v0 / (|v(a)| |v0|): 1 where it points as upright
    cosine: Array("the cosine of each capsule with the upright one [N, A]", ndim=2)
    dimension_share: Shares  # [N, D] each dimension's share of sum_a (v(a) - v0)^2
    principal_share: Shares  # [N, min(A, D)] the share along each principal direction
    # the share along v0 itself (shrinking or growing)
    radial_share: Numbers("the share of the change along v0 [N]", ndim=1, ge=0)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or fields of other digits, angles or
        dimensions than ``v``'s [N, A, D]."""
        super().__post_init__()
        n, a, d = self.v.shape
        for name in ("length", "predictions", "right", "cosine"):
            check_same("CapsuleUnderRotation", "shape ([N, A])", "pass fields of the same "
                       "digits and angles", v=(n, a), **{name: np.shape(getattr(self, name))})
        check_same("CapsuleUnderRotation", "shape ([N, D])", "pass fields of the same digits",
                   v=(n, d), dimension_share=np.shape(self.dimension_share))
        check_same("CapsuleUnderRotation", "shape ([N, min(A, D)])", "pass fields of the same "
                   "digits", v=(n, min(a, d)), principal_share=np.shape(self.principal_share))
        check_same("CapsuleUnderRotation", "digits ([N])", "pass fields of the same digits",
                   v=n, radial_share=len(self.radial_share))


@checked
@torch.no_grad()
def capsule_under_rotation(capsnet: CapsNet, digits: Digits, labels: Labels, angles: Angles
                           ) -> CapsuleUnderRotation:
    """What a CapsNet (28x28 input) does with the digit capsule of the true class as each of
    ``digits`` ``[N, 1, 28, 28]`` (their classes ``labels`` ``[N]``) turns by each of ``angles``
    ``[A]``; ``v0`` is that capsule for the upright digit, ``v(a)`` for the digit turned by ``a``,
    D its dimension (16). For every digit:

    * ``v`` ``[N, A, D]``, its ``length`` ``[N, A]`` (the probability that the class is present),
      the ``predictions`` ``[N, A]`` (the longest capsule) and whether they are ``right``;
    * ``cosine`` ``[N, A]``: ``v(a) . v0 / (|v(a)| |v0|)``, 1 where the capsule points as for the
      upright digit;
    * ``dimension_share`` ``[N, D]``: each dimension's share of the total squared change
      sum_a (v(a) - v0)^2, and ``principal_share`` ``[N, min(A, D)]``: the share along each
      principal direction of the changes v(a) - v0, largest first. A change confined to a few
      dimensions (or directions) shows as a few large shares. Read them with ``length`` and
      ``radial_share`` ``[N]``, the share along v0 itself: a capsule that shrinks towards 0
      changes by about -v0, one direction, whatever it encodes.
    """
    if capsnet.config.image_size != MNIST_SIDE:
        raise ValueError(f"capsule_under_rotation(): capsnet must read 28x28 digits, got "
                         f"image_size {capsnet.config.image_size}")
    check_labels(labels, "capsule_under_rotation(): labels", len(digits), _classes(capsnet))
    angles = angles.astype(float).tolist()
    capsnet.eval()
    each = [_one_capsule_under_rotation(capsnet, digit, int(label), angles)
            for digit, label in zip(digits, labels, strict=True)]
    return CapsuleUnderRotation(**{f.name: np.stack([one[f.name] for one in each])
                                   for f in fields(CapsuleUnderRotation)})


def _one_capsule_under_rotation(capsnet, digit: torch.Tensor, label: int, angles) -> dict:
    """``capsule_under_rotation``'s fields for one ``digit`` ``[1, 28, 28]`` of class ``label``
    (each without the leading ``[N]``)."""
    out = capsnet(turned(digit, angles))
    v = out.v[:, label]  # [A, D]
    v0 = capsnet(digit[None]).v[0, label]  # [D]
    change = v - v0  # [A, D]
    total = (change**2).sum().clamp_min(torch.finfo(v.dtype).tiny)
    singular = torch.linalg.svdvals(change)  # [min(A, D)], largest first
    along = change @ (v0 / v0.norm().clamp_min(torch.finfo(v.dtype).tiny))  # [A]
    predictions = out.lengths.argmax(dim=1)
    return dict(
        v=v.numpy(), length=v.norm(dim=1).numpy(), predictions=predictions.numpy(),
        right=(predictions == label).numpy(),
        cosine=F.cosine_similarity(v, v0[None], dim=1).numpy(),
        dimension_share=((change**2).sum(dim=0) / total).numpy(),
        principal_share=(singular**2 / total).numpy(),
        radial_share=((along**2).sum() / total).numpy())


# a median absolute angle error: 0 to 180 degrees
Degrees = Float("a median angle error, degrees", ge=0, le=180)


@dataclass(frozen=True)
class AngleReadout(CheckedRecord):
    """How well a linear read-out recovers angles from vectors (``angle_from_vectors``)."""

    error: Degrees  # the median absolute angle error on the test vectors
    baseline: Degrees  # the same for the best read-out that ignores the vectors


@checked
def angle_from_vectors(train_v: Numbers("the training vectors [N, D]", ndim=2, at_least=2),
                       train_angles: Annotated[Numbers("their angles in degrees [N]", ndim=1),
                                               InDegrees],
                       test_v: Numbers("the test vectors [M, D]", ndim=2, at_least=1),
                       test_angles: Annotated[Numbers("their angles in degrees [M]", ndim=1),
                                              InDegrees],
                       ridge: Float("the ridge penalty", ge=0) = 1e-3) -> AngleReadout:
    """Can the angle be read off the vectors? Fit a linear read-out from each vector ``[N, D]``
    (with a constant term) to ``(cos a, sin a)`` of its angle ``a`` (degrees) by ridge least
    squares on ``train_v``, read ``atan2`` of the prediction for ``test_v``, and compare.

    Returns ``error``: the median absolute angle error on the test vectors (degrees), and
    ``baseline``: the same for the best read-out that ignores the vectors (it always answers the
    training angles' mean direction). A vector that carries the angle gives an error far below
    the baseline; one that does not gives about the baseline.

    The angles are judged as sweeps (``units.InDegrees``), drawn ones too: linspace(0, 3, 5)
    is refused as radians though its 3 is whole (as one per image, ``DrawnInDegrees``, it would
    pass); random draws in degrees fall all within 2 pi no more often under the one than the
    other."""
    for which, (v, a) in {"train": (train_v, train_angles), "test": (test_v, test_angles)}.items():
        check_same("angle_from_vectors", "length (one angle per vector)", "pass one angle per "
                   "vector", **{f"{which}_v": len(v), f"{which}_angles": len(a)})
    check_same("angle_from_vectors", "dimension D", "pass vectors of one capsule",
               train_v=train_v.shape[1], test_v=test_v.shape[1])

    def design(v):
        return np.hstack([v, np.ones((len(v), 1))])  # [N, D + 1]: the constant term

    def unit(angles):
        radians = np.deg2rad(angles)
        return np.stack([np.cos(radians), np.sin(radians)], axis=1)  # [N, 2]

    X, Y = design(train_v), unit(train_angles)
    # w = (X^T X + ridge I)^-1 X^T Y: [D + 1, 2]
    try:
        w = np.linalg.solve(X.T @ X + ridge * np.eye(X.shape[1]), X.T @ Y)
    except np.linalg.LinAlgError:  # vectors that repeat or lie on a line leave X^T X singular
        raise ValueError(f"angle_from_vectors(): ridge must be > 0 for these train_v, whose "
                         f"{train_v.shape[1]} columns and the constant are not independent: the "
                         f"least squares have no single answer, got ridge={ridge:g}; pass the "
                         "default 1e-3") from None
    guess = design(test_v) @ w  # [N, 2]
    read = np.rad2deg(np.arctan2(guess[:, 1], guess[:, 0]))
    mean = Y.mean(axis=0)
    constant = np.rad2deg(np.arctan2(mean[1], mean[0]))
    def off(a):  # absolute angle difference to the true angles, in [0, 180]
        return np.abs((a - test_angles + 180) % 360 - 180)
    return AngleReadout(error=float(np.median(off(read))),
                        baseline=float(np.median(off(constant))))


@dataclass(frozen=True)
class CapsuleAngleReadout(CheckedRecord):
    """Whether a CapsNet's digit capsule carries the angle of a turned digit
    (``capsule_angle_readout``)."""

    # class -> its read-out, tested on its held-out digits
    by_class: Annotated[dict[Int("a class", ge=0), Record(AngleReadout)], Some]
    error: Degrees  # the median over the classes of the read-out's error
    baseline: Degrees  # the median over the classes of the baseline's error

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or an ``error`` or ``baseline`` that
        is not the median of ``by_class``'s."""
        super().__post_init__()
        for name in ("error", "baseline"):
            median = float(np.median([getattr(r, name) for r in self.by_class.values()]))
            if self.by_class and not np.isclose(getattr(self, name), median):
                raise ValueError(f"CapsuleAngleReadout(): {name} must be the median of by_class's "
                                 f"{name}s ({median:g}), got {getattr(self, name)!r}; pass their "
                                 "median, as capsule_angle_readout(...) does")


@checked
def capsule_angle_readout(capsnet: CapsNet, images: Digits, labels: Labels, angles: Several
                          ) -> CapsuleAngleReadout:
    """Does a CapsNet's digit capsule carry the angle of a turned digit? Every digit of
    ``images`` ``[N, 1, 28, 28]`` is turned by each of ``angles``; for each class, the true
    class's capsule of the first half of its digits trains a linear read-out of the angle
    (``angle_from_vectors``) that is tested on the other half. Returns, per class and over all,
    the median angle error of the read-out and of the baseline that ignores the capsule
    (a ``CapsuleAngleReadout``: ``by_class``, and ``error`` and ``baseline``, medians over the
    classes)."""
    check_labels(labels, "capsule_angle_readout(): labels", len(images), _classes(capsnet))
    angles = angles.astype(float)
    by_class = {}
    for k in sorted(set(labels.tolist())):
        digits = images[labels == k]
        if len(digits) < 2:
            raise ValueError(f"capsule_angle_readout(): labels must hold at least 2 digits of "
                             f"each class they name (one to fit, one to test), got {len(digits)} "
                             f"of class {k}; pass more digits of it, or none")
        v = capsule_under_rotation(capsnet, digits, labels[labels == k], angles).v
        half = len(digits) // 2  # v: [digits, A, D]
        by_class[k] = angle_from_vectors(v[:half].reshape(-1, v.shape[-1]),
                                         np.tile(angles, half),
                                         v[half:].reshape(-1, v.shape[-1]),
                                         np.tile(angles, len(digits) - half))
    return CapsuleAngleReadout(
        by_class=by_class, error=float(np.median([r.error for r in by_class.values()])),
        baseline=float(np.median([r.baseline for r in by_class.values()])))

"""Invariance and equivariance, measured (notebook 10).

A map f is *equivariant* to a transformation T of its input when transforming the input
transforms the output in a known way, f(T x) = T' f(x); it is *invariant* when the output does
not change at all, f(T x) = f(x). Each function here measures one such equation on real tensors
and returns the numbers a notebook prints:

* a convolution and translations (``conv_shift_error``), pooling and translations
  (``pooling_shift_change``);
* the C4 layers and quarter turns (``rotation_error``, ``model_rotation_errors``), with an
  ordinary CNN for contrast;
* capsules and turns: the pose capsules' face angle against the input's (``angle_slope`` on
  ``parts.pose_net.rotation_sweep``), and what a CapsNet's digit capsule does as a digit turns
  (``capsule_under_rotation``), and whether its 16 numbers carry the digit's angle at all
  (``capsule_angle_readout``);
* what a rotation-invariant classifier cannot know: a 6 from a 9 turned upside down
  (``confusion_at``, ``six_nine``);
* what notebook 10's widget shows (``rotation_state``).

Errors are relative: the largest absolute difference divided by the largest absolute value of
what it is compared with, so 1e-7 means "equal up to float32 rounding" whatever the scale.
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .checks import check_labels
from .data import faces
from .data import transformed_mnist as tm
from .group_conv import N_ROTATIONS, rotate_c4
from .loop import predict
from .parts.pose_net import rotation_sweep
from .validate import MAX_SIDE, MAX_WIDTH, Choice, Float, Int, Tensor, checked

MNIST_SIDE = 28  # digits are turned on their own 28x28 canvas (their ink stays inside)
MAX_SHIFT = MAX_SIDE  # a shift past the largest canvas leaves nothing of any image
MAX_MAP = 1024  # a feature map drawn for a learner: 1024 x 1024 is already 4 MB of floats

Images = Tensor("images [B, C, H, W]", ndim=4, floating=True)
Digits = Tensor("MNIST digits [N, 1, 28, 28]", ndim=4, pixels=True)
Labels = Tensor("their labels [N]", ndim=1)
Digit = Tensor("one MNIST digit [1, 28, 28]", ndim=3, pixels=True)
Shift = Int("pixels", ge=-MAX_SHIFT, le=MAX_SHIFT)


@checked
def relative_error(got: Tensor("the values got", floating=True),
                   want: Tensor("the values wanted", floating=True)) -> float:
    """``max |got - want| / max |want|``: 0 when equal, about 1e-7 at float32 rounding."""
    if got.shape != want.shape:
        raise ValueError(f"relative_error(): got and want must have one shape, got "
                         f"{tuple(got.shape)} and {tuple(want.shape)}; compare the same outputs")
    if not want.any() and got.any():
        raise ValueError("relative_error(): want must not be all zeros when got is not: an error "
                         "relative to nothing has no scale; compare (got - want).abs().max()")
    scale = want.abs().max().clamp_min(torch.finfo(want.dtype).tiny)
    return float((got - want).abs().max() / scale)


# --- translations: convolution and pooling -------------------------------------------------------


@checked
def shift(x: Tensor("maps [B, C, H, W]", ndim=4), dy: Shift, dx: Shift) -> torch.Tensor:
    """Every map of ``x`` ``[B, C, H, W]`` moved ``dy`` pixels down and ``dx`` to the right,
    filled with zeros (``transformed_mnist.translate``: exact, no resampling)."""
    n = len(x)
    return tm.translate(x, torch.full((n,), dx), torch.full((n,), dy))


@checked
@torch.no_grad()
def conv_shift_error(conv: nn.Conv2d, x: Images, dy: Shift, dx: Shift) -> float:
    """How far a convolution is from translation-equivariant: conv(shift(x)) against
    shift(conv(x)), for images ``x`` ``[B, C, H, W]``, compared away from the borders.

    Near a border the two differ for a reason that is not the convolution's: what the shift
    pushes off one edge is lost, and the zeros it brings in at the other edge are not what the
    convolution's padding saw. So both sides are cut by ``max(|dy|, |dx|) + kernel // 2``."""
    if conv.stride != (1, 1):
        raise ValueError(f"conv must have stride 1 to be equivariant to every shift, got "
                         f"stride {conv.stride}")
    border = max(abs(dy), abs(dx)) + max(conv.kernel_size) // 2
    if 2 * border >= min(x.shape[-2:]):
        raise ValueError(f"a shift of ({dy}, {dx}) leaves nothing of a {tuple(x.shape[-2:])} "
                         f"image {border} px away from the borders; shift less or use a larger "
                         "image")
    h, w = x.shape[-2:]
    inner = (..., slice(border, h - border), slice(border, w - border))
    # f(T x) against T f(x)
    return relative_error(conv(shift(x, dy, dx))[inner], shift(conv(x), dy, dx)[inner])


@checked
def feature_map(*cells, size: Int("the map's side", ge=1, le=MAX_MAP) = 4) -> torch.Tensor:
    """A ``[size, size]`` feature map: 1 where the detector fired (each ``(row, col)`` of
    ``cells``), else 0 (notebook 01)."""
    m = torch.zeros(size, size)
    for row, col in cells:
        if not (0 <= row < size and 0 <= col < size):
            raise ValueError(f"cell {(row, col)} is outside a {size} x {size} map")
        m[row, col] = 1.0
    return m


POOLS = {  # name -> (what it keeps, the pooling of maps [B, C, H, W])
    "global max": ("the strongest response anywhere: [B, C]", lambda m: m.amax(dim=(-2, -1))),
    "global mean": ("the mean response: [B, C]", lambda m: m.mean(dim=(-2, -1))),
    "2x2 max": ("the strongest response in each 2x2 window: [B, C, H/2, W/2]",
                lambda m: F.max_pool2d(m, 2)),
}


@checked
def pooling_shift_change(maps: Tensor("feature maps [B, C, H, W]", ndim=4, floating=True),
                         pool: Choice("the pooling", *POOLS), shifts=(1, 2, 3, 4)) -> list[float]:
    """How much pooling's output changes when feature ``maps`` ``[B, C, H, W]`` move ``s``
    pixels to the right, for each ``s`` of ``shifts``: relative_error(pool(shift(maps)),
    pool(maps)). 0 means invariant. Keep the maps' content ``max(shifts)`` pixels away from the
    right edge, or what leaves the map changes the pooled value too."""
    _, pooling = POOLS[pool]
    return [relative_error(pooling(shift(maps, 0, s)), pooling(maps)) for s in shifts]


# --- quarter turns: the C4 layers, the G-CNN and the plain CNN -----------------------------------


@checked
def quarter_turn(t: Tensor("a map [B, n], [B, C, H, W] or [B, C, 4, H, W]"),
                 r: Int("quarter turns")) -> torch.Tensor:
    """What ``r`` quarter turns of the input do to ``t`` if the map that made it is equivariant:
    an image or ordinary feature map ``[B, C, H, W]`` turns (``torch.rot90``); a C4 map
    ``[B, C, 4, H, W]`` turns and cycles its rotation axis (``group_conv.rotate_c4``); one vector
    per example ``[B, n]`` (class logits) stays as it is: invariance."""
    if t.ndim == 5:
        return rotate_c4(t, r)
    if t.ndim == 4:
        return torch.rot90(t, r, dims=(-2, -1))
    if t.ndim == 2:
        return t
    raise ValueError(f"expected [B, n], [B, C, H, W] or [B, C, 4, H, W], got shape "
                     f"{tuple(t.shape)}")


@checked
@torch.no_grad()
def rotation_error(f, x: Tensor("an input of f: images or C4 maps", floating=True),
                   r: Int("quarter turns") = 1) -> float | list[float]:
    """How far ``f`` is from equivariant to ``r`` quarter turns of ``x``:
    relative_error(f(turn(x)), turn(f(x))), with ``quarter_turn`` saying what a turn does to each
    kind of tensor. ``f`` may be a layer (``LiftingConv``, ``GroupConv``, ``nn.Conv2d``), a
    model (its logits: the error is then how far it is from *invariant*) or ``model.features``,
    which returns one map per layer: then one error per layer."""
    turned, upright = f(quarter_turn(x, r)), f(x)
    if isinstance(upright, torch.Tensor):
        return relative_error(turned, quarter_turn(upright, r))
    return [relative_error(a, quarter_turn(b, r)) for a, b in zip(turned, upright, strict=True)]


@checked
def turned_only_filters(weight: Tensor("C4 filters [C_out, C_in, 4, k, k]", ndim=5)
                        ) -> torch.Tensor:
    """The tempting mistake in a group convolution's filters (notebook 10's exercise 1): each of
    the four copies of C4 filters ``weight`` ``[C_out, C_in, 4, k, k]`` turns its slices but
    does not cycle the rotation axis; stacked as ``group_conv.group_filters`` stacks the right
    copies, ``[C_out * 4, C_in * 4, k, k]``. A ``GroupConv`` with these filters is not
    equivariant."""
    copies = [torch.rot90(weight, r, dims=(-2, -1)) for r in range(N_ROTATIONS)]
    return torch.stack(copies, dim=1).flatten(0, 1).flatten(1, 2)


@dataclass(frozen=True)
class RotationErrors:
    """How far a model is from equivariant (its layers) and invariant (its logits) to quarter
    turns (``model_rotation_errors``)."""

    turns: list[int]  # the numbers of quarter turns measured
    features: np.ndarray  # [n_layers, len(turns)] each layer's equivariance error
    logits: np.ndarray  # [len(turns)] the logits' invariance error


@checked
def model_rotation_errors(model: nn.Module, x: Images, turns=(1, 2, 3)) -> RotationErrors:
    """``rotation_error`` of a ``gcnn.C4CNN`` or ``gcnn.PlainCNN`` (in eval mode) for images
    ``x`` ``[B, 1, H, W]`` and each number of quarter ``turns``:

    * ``features`` ``[n_layers, len(turns)]``: each layer's maps against the upright maps turned
      (and, for the G-CNN, cycled): its equivariance error;
    * ``logits`` ``[len(turns)]``: the logits against the upright logits: its invariance error.
    """
    model.eval()
    return RotationErrors(
        turns=list(turns),
        features=np.array([rotation_error(model.features, x, r) for r in turns]).T,
        logits=np.array([rotation_error(model, x, r) for r in turns]))


# --- capsules and turns ------------------------------------------------------------------------


@dataclass(frozen=True)
class AngleFit:
    """The line through the angles a model reads against the input's angles (``angle_slope``)."""

    slope: float  # 1 when the reading turns with the input, 0 when it ignores the turn
    offset: float  # degrees in [-180, 180): the reading at angle 0
    residual: float  # degrees: the largest distance of an (unwrapped) reading from the line


@checked
def angle_slope(angles, readings) -> AngleFit:
    """The least-squares line through angles a model reads (``readings``, degrees, each known
    only up to whole turns, e.g. in [-180, 180)) against the angles the input was turned by
    (``angles``, increasing in steps under 180 degrees): ``slope`` (1 when the reading turns
    with the input, 0 when it ignores the turn), ``offset`` (the reading at angle 0, in
    [-180, 180)) and the largest ``residual`` from the line.

    The readings are unwrapped first (``np.unwrap``): a step of more than 180 degrees between
    neighbours is taken as the shorter way round, so 170 -> -175 counts as +15, not -345."""
    angles, readings = np.asarray(angles, dtype=float), np.asarray(readings, dtype=float)
    if angles.ndim != 1 or angles.shape != readings.shape or len(angles) < 2:
        raise ValueError(f"angles and readings must be two lists of the same length >= 2, got "
                         f"shapes {angles.shape} and {readings.shape}")
    if not (np.diff(angles) > 0).all() or (np.diff(angles) >= 180).any():
        raise ValueError("angles must increase in steps under 180 degrees (else a reading "
                         "cannot be unwrapped)")
    unwrapped = np.unwrap(readings, period=360.0)
    # reading ~ slope * angle + offset, least squares
    slope, offset = np.polyfit(angles, unwrapped, 1)
    residual = np.abs(unwrapped - (slope * angles + offset)).max()
    return AngleFit(slope=float(slope), offset=float((offset + 180) % 360 - 180),
                    residual=float(residual))


@checked
def turned(digit: Digit, angles) -> torch.Tensor:
    """One MNIST ``digit`` ``[1, 28, 28]`` turned by each of ``angles`` (degrees,
    counter-clockwise on screen) on its 28x28 canvas: ``[len(angles), 1, 28, 28]``."""
    angles = _angles(angles, "turned")
    return torch.cat([tm.affine(digit[None], rotation=a, side=MNIST_SIDE) for a in angles])


def _classes(capsnet: nn.Module) -> int:
    """The classes a CapsNet reads (10 for one without a config)."""
    return getattr(getattr(capsnet, "config", None), "n_classes", 10)


def _angles(angles, where: str) -> list[float]:
    """``angles`` (a list, a range, an array or a tensor of degrees) as finite floats [n]."""
    try:
        values = np.asarray(angles.cpu() if isinstance(angles, torch.Tensor) else angles)
    except (TypeError, ValueError):
        values = np.asarray(None)
    if values.ndim != 1 or values.dtype.kind not in "iuf" or not np.isfinite(values).all():
        raise TypeError(f"{where}(): angles must be a list of finite numbers (degrees), got "
                        f"{angles!r:.60}; e.g. range(0, 360, 30)")
    return [float(a) for a in values]


@dataclass(frozen=True)
class CapsuleUnderRotation:
    """The true class's digit capsule of N digits, each turned by A angles
    (``capsule_under_rotation``); v0 is the capsule of the upright digit, D its dimension."""

    v: np.ndarray  # [N, A, D] the capsule of each turned digit
    length: np.ndarray  # [N, A] its length, the probability that the class is present
    predictions: np.ndarray  # [N, A] the longest capsule's class
    right: np.ndarray  # [N, A] bool: whether that is the true class
    cosine: np.ndarray  # [N, A] v(a) . v0 / (|v(a)| |v0|): 1 where it points as upright
    dimension_share: np.ndarray  # [N, D] each dimension's share of sum_a (v(a) - v0)^2
    principal_share: np.ndarray  # [N, min(A, D)] the share along each principal direction
    radial_share: np.ndarray  # [N] the share along v0 itself (shrinking or growing)


@checked
@torch.no_grad()
def capsule_under_rotation(capsnet: nn.Module, digits: Digits, labels: Labels, angles
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
    check_labels(labels, "labels", len(digits), _classes(capsnet))
    angles = _angles(angles, "capsule_under_rotation")
    capsnet.eval()
    each = [_one_capsule_under_rotation(capsnet, digit, int(label), angles)
            for digit, label in zip(digits, labels, strict=True)]
    return CapsuleUnderRotation(**{key: np.stack([one[key] for one in each]) for key in each[0]})


def _one_capsule_under_rotation(capsnet, digit: torch.Tensor, label: int, angles) -> dict:
    """``capsule_under_rotation`` for one ``digit`` ``[1, 28, 28]`` of class ``label``."""
    out = capsnet(turned(digit, angles))
    v = out.v[:, label]  # [A, D]
    v0 = capsnet(digit[None]).v[0, label]  # [D]
    change = v - v0  # [A, D]
    total = (change**2).sum().clamp_min(torch.finfo(v.dtype).tiny)
    singular = torch.linalg.svdvals(change)  # [min(A, D)], largest first
    along = change @ (v0 / v0.norm().clamp_min(torch.finfo(v.dtype).tiny))  # [A]
    predictions = out.lengths.argmax(dim=1)
    return {"v": v.numpy(), "length": v.norm(dim=1).numpy(), "predictions": predictions.numpy(),
            "right": (predictions == label).numpy(),
            "cosine": F.cosine_similarity(v, v0[None], dim=1).numpy(),
            "dimension_share": ((change**2).sum(dim=0) / total).numpy(),
            "principal_share": (singular**2 / total).numpy(),
            "radial_share": ((along**2).sum() / total).numpy()}


@dataclass(frozen=True)
class AngleReadout:
    """How well a linear read-out recovers angles from vectors (``angle_from_vectors``)."""

    error: float  # degrees: the median absolute angle error on the test vectors
    baseline: float  # degrees: the same for the best read-out that ignores the vectors


@checked
def angle_from_vectors(train_v: np.ndarray, train_angles: np.ndarray, test_v: np.ndarray,
                       test_angles: np.ndarray,
                       ridge: Float("the ridge penalty", ge=0) = 1e-3) -> AngleReadout:
    """Can the angle be read off the vectors? Fit a linear read-out from each vector ``[N, D]``
    (with a constant term) to ``(cos a, sin a)`` of its angle ``a`` (degrees) by ridge least
    squares on ``train_v``, read ``atan2`` of the prediction for ``test_v``, and compare.

    Returns ``error``: the median absolute angle error on the test vectors (degrees), and
    ``baseline``: the same for the best read-out that ignores the vectors (it always answers the
    training angles' mean direction). A vector that carries the angle gives an error far below
    the baseline; one that does not gives about the baseline."""
    for v, a, which in ((train_v, train_angles, "train"), (test_v, test_angles, "test")):
        v, a = np.asarray(v), np.asarray(a)
        if v.ndim != 2 or a.shape != (len(v),):
            raise ValueError(f"angle_from_vectors(): {which}_v [N, D] and {which}_angles [N] "
                             f"must hold one angle per vector, got shapes {v.shape} and "
                             f"{a.shape}")
    if np.shape(train_v)[1] != np.shape(test_v)[1]:
        raise ValueError(f"angle_from_vectors(): train_v and test_v must have one dimension D, "
                         f"got {np.shape(train_v)[1]} and {np.shape(test_v)[1]}")

    def design(v):
        return np.hstack([v, np.ones((len(v), 1))])  # [N, D + 1]: the constant term

    def unit(angles):
        radians = np.deg2rad(angles)
        return np.stack([np.cos(radians), np.sin(radians)], axis=1)  # [N, 2]

    X, Y = design(train_v), unit(train_angles)
    # w = (X^T X + ridge I)^-1 X^T Y: [D + 1, 2]
    w = np.linalg.solve(X.T @ X + ridge * np.eye(X.shape[1]), X.T @ Y)
    guess = design(test_v) @ w  # [N, 2]
    read = np.rad2deg(np.arctan2(guess[:, 1], guess[:, 0]))
    mean = Y.mean(axis=0)
    constant = np.rad2deg(np.arctan2(mean[1], mean[0]))
    def off(a):  # absolute angle difference to the true angles, in [0, 180]
        return np.abs((a - test_angles + 180) % 360 - 180)
    return AngleReadout(error=float(np.median(off(read))),
                        baseline=float(np.median(off(constant))))


@dataclass(frozen=True)
class CapsuleAngleReadout:
    """Whether a CapsNet's digit capsule carries the angle of a turned digit
    (``capsule_angle_readout``)."""

    by_class: dict[int, AngleReadout]  # class -> its read-out, tested on its held-out digits
    error: float  # degrees: the median over the classes of the read-out's error
    baseline: float  # degrees: the median over the classes of the baseline's error


@checked
def capsule_angle_readout(capsnet: nn.Module, images: Digits, labels: Labels, angles
                          ) -> CapsuleAngleReadout:
    """Does a CapsNet's digit capsule carry the angle of a turned digit? Every digit of
    ``images`` ``[N, 1, 28, 28]`` is turned by each of ``angles``; for each class, the true
    class's capsule of the first half of its digits trains a linear read-out of the angle
    (``angle_from_vectors``) that is tested on the other half. Returns, per class and over all,
    the median angle error of the read-out and of the baseline that ignores the capsule
    (a ``CapsuleAngleReadout``: ``by_class``, and ``error`` and ``baseline``, medians over the
    classes)."""
    check_labels(labels, "labels", len(images), _classes(capsnet))
    angles = np.asarray(_angles(angles, "capsule_angle_readout"), dtype=float)
    by_class = {}
    for k in sorted(set(labels.tolist())):
        digits = images[labels == k]
        if len(digits) < 2:
            raise ValueError(f"capsule_angle_readout needs at least 2 digits of each class (one "
                             f"to fit, one to test); class {k} has {len(digits)}")
        v = capsule_under_rotation(capsnet, digits, labels[labels == k], angles).v
        half = len(digits) // 2  # v: [digits, A, D]
        by_class[k] = angle_from_vectors(v[:half].reshape(-1, v.shape[-1]),
                                         np.tile(angles, half),
                                         v[half:].reshape(-1, v.shape[-1]),
                                         np.tile(angles, len(digits) - half))
    return CapsuleAngleReadout(
        by_class=by_class, error=float(np.median([r.error for r in by_class.values()])),
        baseline=float(np.median([r.baseline for r in by_class.values()])))


# --- what an invariant classifier cannot know --------------------------------------------------


@checked
def confusion_at(model: nn.Module, images: Digits, labels: Labels, rotation: Float("degrees"),
                 n_classes: Int("classes", ge=1, le=MAX_WIDTH) = 10) -> np.ndarray:
    """``[n_classes, n_classes]``: row y, column k is the share of the digits of class y
    (``images`` ``[N, 1, 28, 28]``, ``labels`` ``[N]``) that ``model`` reads as k once turned by
    ``rotation`` degrees; the diagonal is each class's accuracy. A class with no digits gets a
    row of NaN."""
    check_labels(labels, "labels", len(images), n_classes)
    predictions = predict(model, tm.sweep(images, "rotation", rotation, side=MNIST_SIDE))
    counts = torch.zeros(n_classes, n_classes)
    counts.index_put_((labels.long(), predictions), torch.ones(len(labels)), accumulate=True)
    return (counts / counts.sum(dim=1, keepdim=True)).numpy()


@dataclass(frozen=True)
class SixNine:
    """What a turn makes of 6s and 9s (``six_nine``)."""

    rotation: float  # degrees the test digits were turned by
    six_as_nine: float  # the share of 6s read as 9
    nine_as_six: float  # the share of 9s read as 6
    mixed_up: float  # the mean of the two
    per_class_accuracy: np.ndarray  # [10] each class's accuracy (confusion_at's diagonal)


@checked
def six_nine(model: nn.Module, images: Digits, labels: Labels,
             rotation: Float("degrees") = 180.0) -> SixNine:
    """The pair a rotation-invariant classifier cannot tell by orientation: a 6 turned by 180
    degrees looks like a 9. For the test digits turned by ``rotation``: ``six_as_nine``, the
    share of 6s read as 9, ``nine_as_six``, the share of 9s read as 6, ``mixed_up``, the mean
    of the two, and the ``per_class_accuracy`` ``[10]`` (``confusion_at``)."""
    confusion = confusion_at(model, images, labels, rotation)
    six_as_nine, nine_as_six = float(confusion[6, 9]), float(confusion[9, 6])
    return SixNine(rotation=rotation, six_as_nine=six_as_nine, nine_as_six=nine_as_six,
                   mixed_up=(six_as_nine + nine_as_six) / 2,
                   per_class_accuracy=np.diag(confusion))


# --- what notebook 10's widget shows -------------------------------------------------------------


@dataclass(frozen=True)
class RotationState:
    """What notebook 10's widget shows for one digit turned by one angle (``rotation_state``)."""

    rotation: float  # degrees, counter-clockwise
    layer: int  # the layer shown, of both models
    channel: int  # the G-CNN's channel shown
    image: np.ndarray  # [28, 28] what both models see
    gcnn_maps: np.ndarray  # [4, h, w] the G-CNN channel's maps in its four orientations
    cnn_maps: np.ndarray  # [4, h, w] the CNN's maps of cnn_channels
    cnn_channels: list[int]  # the CNN's 4 channels shown: 4 channel, ..., 4 channel + 3
    quarter_turns: int | None  # the rotation in whole quarter turns (0-3), else None
    gcnn_error: float | None  # at quarter turns: the G-CNN's maps against the upright, turned
    cnn_error: float | None  # at quarter turns: the CNN's maps against the upright, turned
    gcnn_probabilities: np.ndarray  # [10] the G-CNN's softmax
    gcnn_prediction: int
    cnn_probabilities: np.ndarray  # [10] the CNN's softmax
    cnn_prediction: int
    face_image: np.ndarray | None = None  # [32, 32] with a face model: the face, turned as far
    face_angle: float | None = None  # degrees: the angle the face capsule reads
    face_length: float | None = None  # the face capsule's length


@checked
@torch.no_grad()
def rotation_state(gcnn: nn.Module, cnn: nn.Module, digit: Digit,
                   rotation: Float("degrees, counter-clockwise") = 0.0,
                   layer: Int("a layer of the G-CNN", ge=0, le=MAX_WIDTH) = 0,
                   channel: Int("a channel of that layer", ge=0, le=MAX_WIDTH) = 0,
                   face_model: nn.Module | None = None) -> RotationState:
    """What notebook 10's widget shows (``RotationState``) for one MNIST ``digit`` ``[1, 28, 28]``
    turned by ``rotation`` degrees, read by a ``C4CNN`` and a ``PlainCNN``: the maps of
    ``layer`` (the G-CNN's ``channel`` in its four orientations, four of the CNN's channels); at
    whole quarter turns each layer's maps against the upright digit's turned (and, for the G-CNN,
    cycled: ``group_conv.rotate_c4``), as ``relative_error``; both softmaxes; and with a
    ``face_model`` (07's ``PoseCapsuleNet``) the upright face turned as far and what its face
    capsule reads (``parts.pose_net.rotation_sweep``)."""
    n_layers = len(gcnn.convs)
    if layer >= n_layers:
        raise ValueError(f"layer must be in [0, {n_layers - 1}], got {layer}")
    n_channels = gcnn.convs[layer].weight.shape[0]
    if channel >= n_channels:
        raise ValueError(f"channel must be in [0, {n_channels - 1}] (the G-CNN's layer {layer} "
                         f"has {n_channels} channels), got {channel}")
    gcnn.eval()
    cnn.eval()
    x = turned(digit, [rotation])  # [1, 1, 28, 28]
    gcnn_maps, cnn_maps = gcnn.features(x)[layer], cnn.features(x)[layer]  # [1, C, (4,) h, w]
    channels = [(4 * channel + k) % cnn_maps.shape[1] for k in range(4)]
    r = rotation / 90
    quarter_turns = int(r) % 4 if r.is_integer() else None
    errors = {"gcnn": None, "cnn": None}  # model -> its maps' error at a quarter turn
    if quarter_turns is not None:
        upright = turned(digit, [0.0])
        for name, model, maps in (("gcnn", gcnn, gcnn_maps), ("cnn", cnn, cnn_maps)):
            turn = quarter_turn(model.features(upright)[layer], quarter_turns)
            errors[name] = relative_error(maps, turn)
    gcnn_probabilities, cnn_probabilities = (torch.softmax(model(x), dim=1)[0]  # [10]
                                             for model in (gcnn, cnn))
    face = {}
    if face_model is not None:
        sweep = rotation_sweep(face_model, faces.face_parts(), [rotation])
        face = {"face_image": sweep.images[0], "face_angle": float(sweep.face_angle[0]),
                "face_length": float(sweep.face_length[0])}
    return RotationState(
        rotation=rotation, layer=layer, channel=channel, image=x[0, 0].numpy(),
        gcnn_maps=gcnn_maps[0, channel].numpy(), cnn_maps=cnn_maps[0, channels].numpy(),
        cnn_channels=channels, quarter_turns=quarter_turns, gcnn_error=errors["gcnn"],
        cnn_error=errors["cnn"], gcnn_probabilities=gcnn_probabilities.numpy(),
        gcnn_prediction=int(gcnn_probabilities.argmax()),
        cnn_probabilities=cnn_probabilities.numpy(),
        cnn_prediction=int(cnn_probabilities.argmax()), **face)

"""Invariance and equivariance, measured (notebook 10).

A map f is *equivariant* to a transformation T of its input when transforming the input
transforms the output in a known way, f(T x) = T' f(x); it is *invariant* when the output does
not change at all, f(T x) = f(x). Each function here measures one such equation on real tensors
and returns the numbers a notebook prints:

* a convolution and translations (``conv_shift_error``), pooling and translations
  (``pooling_shift_change``);
* the C4 layers and quarter turns (``rotation_error``, ``model_rotation_errors``), with an
  ordinary CNN for contrast;
* what a rotation-invariant classifier cannot know: a 6 from a 9 turned upside down
  (``confusion_at``, ``six_nine``);
* what notebook 10's widget shows (``rotation_state``).

Capsules and turns (does a capsule's pose turn with its input?) are measured in
``capsule_angles``.

Errors are relative: the largest absolute difference divided by the largest absolute value of
what it is compared with, so 1e-7 means "equal up to float32 rounding" whatever the scale.
"""

from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .capsule_angles import MNIST_SIDE, Digit, Digits, Labels, turned
from .checks import check_labels, check_model_dtype, check_same
from .course_settings import MAX_SIDE, MAX_WIDTH, Classes, Classifier
from .data import faces, transformed_mnist
from .data.affine_params import Rotation
from .derived import check_read
from .gcnn import C4CNN, PlainCNN
from .group_conv import N_ROTATIONS, QuarterTurns, rotate_c4
from .loop import predict
from .parts.pose_net import PoseCapsuleNet, rotation_sweep
from .validate import (
    Array,
    CheckedRecord,
    Choice,
    Float,
    Function,
    Int,
    Numbers,
    Some,
    Spec,
    Tensor,
    check_value,
    checked,
)

MAX_SHIFT = MAX_SIDE  # a shift past the largest canvas leaves nothing of any image
MAX_MAP = 1024  # a feature map drawn for a learner: 1024 x 1024 is already 4 MB of floats

Images = Annotated[Tensor("images [B, C, H, W]", ndim=4, floating=True, finite=True), Some]
Shift = Int("pixels", ge=-MAX_SHIFT, le=MAX_SHIFT)


@checked
def relative_error(got: Tensor("the values got", floating=True, finite=True),
                   want: Tensor("the values wanted", floating=True, finite=True)) -> float:
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
    filled with zeros (exact, no resampling); a move as large as a side, which would leave a
    blank map, is refused."""
    transformed_mnist._check_moves("shift", x, dx=dx, dy=dy)
    return _moved(x, dy, dx)


def _moved(x: torch.Tensor, dy: int, dx: int) -> torch.Tensor:
    """``shift`` without its bound: ``pooling_shift_change`` shows what pushing a map's content
    off its edge does to pooling."""
    out = torch.zeros_like(x)
    h, w = x.shape[-2:]
    if abs(dy) < h and abs(dx) < w:  # else every pixel has left: zeros
        out[..., max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
            x[..., max(-dy, 0):h - max(dy, 0), max(-dx, 0):w - max(dx, 0)]
    return out


@checked
@torch.no_grad()
def conv_shift_error(conv: nn.Conv2d, x: Images, dy: Shift, dx: Shift) -> float:
    """How far a convolution is from translation-equivariant: conv(shift(x)) against
    shift(conv(x)), for images ``x`` ``[B, C, H, W]``, compared away from the borders.

    Near a border the two differ for a reason that is not the convolution's: what the shift
    pushes off one edge is lost, and the zeros it brings in at the other edge are not what the
    convolution's padding saw. So both sides are cut by ``max(|dy|, |dx|) + kernel // 2``."""
    check_model_dtype(x, "conv_shift_error(): x", conv.weight.dtype)
    check_same("conv_shift_error", "channels", "pass images of as many channels as conv reads",
               **{"conv's in_channels": conv.in_channels, "x's channels": x.shape[1]})
    if conv.stride != (1, 1):
        raise ValueError(f"conv_shift_error(): conv must have stride 1 to be equivariant to "
                         f"every shift, got stride {conv.stride}; pass a convolution of stride 1")
    border = max(abs(dy), abs(dx)) + max(conv.kernel_size) // 2
    if 2 * border >= min(x.shape[-2:]):
        raise ValueError(f"conv_shift_error(): dy and dx must leave some of x away from the "
                         f"borders, got dy={dy}, dx={dx}: with the kernel's half that leaves "
                         f"nothing of a {tuple(x.shape[-2:])} image {border} px from the borders; "
                         "shift less or use a larger image")
    h, w = x.shape[-2:]
    inner = (..., slice(border, h - border), slice(border, w - border))
    # f(T x) against T f(x)
    return relative_error(conv(shift(x, dy, dx))[inner], shift(conv(x), dy, dx)[inner])


@checked
def feature_map(*cells, size: Int("the map's side", ge=1, le=MAX_MAP) = 4) -> torch.Tensor:
    """A ``[size, size]`` feature map: 1 where the detector fired (each ``(row, col)`` of
    ``cells``), else 0 (notebook 01)."""
    for cell in cells:
        if not (isinstance(cell, tuple | list) and len(cell) == 2
                and all(isinstance(i, int) and not isinstance(i, bool) for i in cell)):
            raise TypeError(f"feature_map(): each cell must be a (row, col) pair of ints, got "
                            f"{cell!r:.40}; pass the cells one by one: feature_map((0, 1), (2, 3))")
    m = torch.zeros(size, size)
    on_map = Int(f"a row or column of the {size} x {size} map", ge=0, le=size - 1)
    for row, col in cells:
        check_value("feature_map", f"cell {(row, col)}'s row", on_map, row)
        check_value("feature_map", f"cell {(row, col)}'s column", on_map, col)
        m[row, col] = 1.0
    return m


POOLS = {  # name -> (what it keeps, the pooling of maps [B, C, H, W])
    "global max": ("the strongest response anywhere: [B, C]", lambda m: m.amax(dim=(-2, -1))),
    "global mean": ("the mean response: [B, C]", lambda m: m.mean(dim=(-2, -1))),
    "2x2 max": ("the strongest response in each 2x2 window: [B, C, H/2, W/2]",
                lambda m: F.max_pool2d(m, 2)),
}


@checked
def pooling_shift_change(maps: Tensor("feature maps [B, C, H, W]", ndim=4, floating=True,
                                      finite=True),
                         pool: Choice("the pooling", *POOLS),
                         shifts: tuple[Shift, ...] | list[Shift] = (1, 2, 3, 4)) -> list[float]:
    """How much pooling's output changes when feature ``maps`` ``[B, C, H, W]`` move ``s``
    pixels to the right, for each ``s`` of ``shifts``: relative_error(pool(shift(maps)),
    pool(maps)). 0 means invariant. Keep the maps' content ``max(shifts)`` pixels away from the
    right edge, or what leaves the map changes the pooled value too."""
    width = maps.shape[-1]
    if beyond := [s for s in shifts if abs(s) > width]:  # a shift of the width empties it already
        raise ValueError(f"pooling_shift_change(): shifts must move the {width}-pixel-wide maps "
                         f"at most {width} pixels (that shift already pushes everything off the "
                         f"map), got {beyond}; pass shifts from -{width} to {width}")
    _, pooling = POOLS[pool]
    return [relative_error(pooling(_moved(maps, 0, s)), pooling(maps)) for s in shifts]


# --- quarter turns: the C4 layers, the G-CNN and the plain CNN -----------------------------------


@checked
def quarter_turn(t: Tensor("a map [B, n], [B, C, H, W] or [B, C, 4, H, W]"),
                 r: QuarterTurns) -> torch.Tensor:
    """What ``r`` quarter turns of the input do to ``t`` if the map that made it is equivariant:
    an image or ordinary feature map ``[B, C, H, W]`` turns (``torch.rot90``); a C4 map
    ``[B, C, 4, H, W]`` turns and cycles its rotation axis (``group_conv.rotate_c4``); one vector
    per example ``[B, n]`` (class logits) stays as it is: invariance."""
    return _turned(t, r, "quarter_turn", "t", "pass a model's output or one layer's maps")


def _turned(t: torch.Tensor, r: int, where: str, name: str, fix: str) -> torch.Tensor:
    """``quarter_turn`` of ``t``, refused as the argument ``name`` of the entry ``where``."""
    if isinstance(t, torch.Tensor) and t.ndim == 5 and t.shape[2] == N_ROTATIONS:
        return rotate_c4(t, r)
    if isinstance(t, torch.Tensor) and t.ndim in (2, 4):
        return torch.rot90(t, r, dims=(-2, -1)) if t.ndim == 4 else t
    got = f"shape {tuple(t.shape)}" if isinstance(t, torch.Tensor) else type(t).__name__
    raise ValueError(f"{where}(): {name} must be a map [B, n], [B, C, H, W] or [B, C, 4, H, W] "
                     f"(4: the rotations of a C4 map), got {got}; {fix}")


@checked
@torch.no_grad()
def rotation_error(f: Function("a layer, a model or model.features: what is turned through"),
                   x: Tensor("an input of f: images or C4 maps", floating=True, finite=True),
                   r: QuarterTurns = 1) -> float | list[float]:
    """How far ``f`` is from equivariant to ``r`` quarter turns of ``x``:
    relative_error(f(turn(x)), turn(f(x))), with ``quarter_turn`` saying what a turn does to each
    kind of tensor. ``f`` may be a layer (``LiftingConv``, ``GroupConv``, ``nn.Conv2d``), a
    model (its logits: the error is then how far it is from *invariant*) or ``model.features``,
    which returns one map per layer: then one error per layer."""
    fix = "pass a layer or model whose output is its maps or logits (or a list of maps)"
    from_turned = f(_turned(x, r, "rotation_error", "x", "pass images or C4 maps"))
    from_upright = f(x)
    if isinstance(from_upright, torch.Tensor):
        return relative_error(from_turned,
                              _turned(from_upright, r, "rotation_error", "f's output", fix))
    if not isinstance(from_upright, list | tuple):
        _turned(from_upright, r, "rotation_error", "f's output", fix)  # refused: no map
    return [relative_error(a, _turned(b, r, "rotation_error", f"f's output[{i}]", fix))
            for i, (a, b) in enumerate(zip(from_turned, from_upright, strict=True))]


@checked
def turned_only_filters(weight: Tensor("C4 filters [C_out, C_in, 4, k, k]", ndim=5,
                                        floating=True, finite=True, sizes={2: N_ROTATIONS})
                        ) -> torch.Tensor:
    """The tempting mistake in a group convolution's filters (notebook 10's exercise 1): each of
    the four copies of C4 filters ``weight`` ``[C_out, C_in, 4, k, k]`` turns its slices but
    does not cycle the rotation axis; stacked as ``group_conv.group_filters`` stacks the right
    copies, ``[C_out * 4, C_in * 4, k, k]``. A ``GroupConv`` with these filters is not
    equivariant."""
    check_same("turned_only_filters", "size: a filter turns a quarter only when it is square "
               "(k x k)", "pass square filters", **{"weight's height": weight.shape[3],
                                                    "weight's width": weight.shape[4]})
    copies = [torch.rot90(weight, r, dims=(-2, -1)) for r in range(N_ROTATIONS)]
    return torch.stack(copies, dim=1).flatten(0, 1).flatten(1, 2)


@dataclass(frozen=True)
class RotationErrors(CheckedRecord):
    """How far a model is from equivariant (its layers) and invariant (its logits) to quarter
    turns (``model_rotation_errors``)."""

    turns: list[QuarterTurns]  # the numbers of quarter turns measured
    features: Numbers("each layer's equivariance error [n_layers, len(turns)]", ndim=2, ge=0)
    logits: Numbers("the logits' invariance error [len(turns)]", ndim=1, ge=0)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or errors of other turns than
        ``turns``."""
        super().__post_init__()
        check_same("RotationErrors", "turns", "pass one error per number of quarter turns",
                   turns=len(self.turns), features=np.shape(self.features)[1],
                   logits=len(self.logits))


@checked(reads=("model", "x"))
def model_rotation_errors(model: Annotated[C4CNN | PlainCNN, Spec(
                              "a gcnn.C4CNN or gcnn.PlainCNN (their features are compared)",
                              "record")], x: Images,
                          turns: Annotated[tuple[QuarterTurns, ...] | list[QuarterTurns],
                                           Some] = (1, 2, 3)
                          ) -> RotationErrors:
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


# --- what an invariant classifier cannot know --------------------------------------------------


@checked
def confusion_at(model: Classifier, images: Digits, labels: Labels, rotation: Rotation,
                 n_classes: Classes = 10) -> np.ndarray:
    """``[n_classes, n_classes]``: row y, column k is the share of the digits of class y
    (``images`` ``[N, 1, 28, 28]``, ``labels`` ``[N]``) that ``model`` reads as k once turned by
    ``rotation`` degrees; the diagonal is each class's accuracy. A class with no digits gets a
    row of NaN."""
    check_labels(labels, "confusion_at(): labels", len(images), n_classes)
    predictions = predict(model, transformed_mnist.sweep(images, "rotation", rotation,
                                                         side=MNIST_SIDE))
    counts = torch.zeros(n_classes, n_classes)
    counts.index_put_((labels.long(), predictions), torch.ones(len(labels)), accumulate=True)
    return (counts / counts.sum(dim=1, keepdim=True)).numpy()


Share = Float("a share of digits, 0..1", ge=0, le=1)


@dataclass(frozen=True)
class SixNine(CheckedRecord):
    """What a turn makes of 6s and 9s (``six_nine``)."""

    rotation: Float("degrees the test digits were turned by")
    six_as_nine: Share  # the share of 6s read as 9
    nine_as_six: Share  # the share of 9s read as 6
    mixed_up: Share  # the mean of the two
    # confusion_at's diagonal: NaN for a class with no digits
    per_class_accuracy: Numbers("each class's accuracy [10]", ndim=1, ge=0, le=1, nan=True)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a ``mixed_up`` that is not the mean
        of the two shares."""
        super().__post_init__()
        mean = (self.six_as_nine + self.nine_as_six) / 2
        if not np.isclose(self.mixed_up, mean):
            raise ValueError(f"SixNine(): mixed_up must be the mean of six_as_nine and "
                             f"nine_as_six ({mean:g}), got {self.mixed_up!r}; pass their mean, "
                             "as six_nine(...) does")


@checked
def six_nine(model: Classifier, images: Digits, labels: Labels,
             rotation: Rotation = 180.0) -> SixNine:
    """The pair a rotation-invariant classifier cannot tell by orientation: a 6 turned by 180
    degrees looks like a 9. For the test digits turned by ``rotation``: ``six_as_nine``, the
    share of 6s read as 9, ``nine_as_six``, the share of 9s read as 6, ``mixed_up``, the mean
    of the two, and the ``per_class_accuracy`` ``[10]`` (``confusion_at``)."""
    confusion = confusion_at(model, images, labels, rotation)
    six_as_nine, nine_as_six = float(confusion[6, 9]), float(confusion[9, 6])
    if np.isnan([six_as_nine, nine_as_six]).any():  # a share of no digits
        raise ValueError("six_nine(): labels must hold at least one 6 and one 9, got "
                         f"{sorted(set(labels.tolist()))[:10]}; pass test digits of both")
    return SixNine(rotation=rotation, six_as_nine=six_as_nine, nine_as_six=nine_as_six,
                   mixed_up=(six_as_nine + nine_as_six) / 2,
                   per_class_accuracy=np.diag(confusion))


# --- what notebook 10's widget shows -------------------------------------------------------------


Maps = Array("maps in four orientations, or of four channels [4, h, w]", ndim=3)
MapsError = Float("maps against the upright's turned: relative_error", ge=0)
Softmax = Numbers("a softmax over the classes [10]", ndim=1, at_least=1, ge=0, le=1)


@dataclass(frozen=True)
class RotationState(CheckedRecord):
    """What notebook 10's widget shows for one digit turned by one angle (``rotation_state``)."""

    rotation: Float("degrees, counter-clockwise")
    layer: Int("the layer shown, of both models", ge=0, le=MAX_WIDTH)
    channel: Int("the G-CNN's channel shown", ge=0, le=MAX_WIDTH)
    image: Array("what both models see [28, 28]", ndim=2)
    gcnn_maps: Maps  # [4, h, w] the G-CNN channel's maps in its four orientations
    cnn_maps: Maps  # [4, h, w] the CNN's maps of cnn_channels
    # the CNN's 4 channels shown: 4 channel, ..., 4 channel + 3
    cnn_channels: list[Int("a channel of the CNN", ge=0, le=MAX_WIDTH)]
    # the rotation in whole quarter turns (0-3), else None
    quarter_turns: Int("whole quarter turns", ge=0, le=N_ROTATIONS - 1) | None
    gcnn_error: MapsError | None  # at quarter turns: the G-CNN's maps against the upright, turned
    cnn_error: MapsError | None  # at quarter turns: the CNN's maps against the upright, turned
    gcnn_probabilities: Softmax  # [10] the G-CNN's softmax
    gcnn_prediction: Int("the G-CNN's class", ge=0, le=MAX_WIDTH)
    cnn_probabilities: Softmax  # [10] the CNN's softmax
    cnn_prediction: Int("the CNN's class", ge=0, le=MAX_WIDTH)
    # [32, 32] with a face model: the face, turned as far
    face_image: Array("the face, turned as far [32, 32]", ndim=2) | None = None
    face_angle: Float("the angle the face capsule reads, degrees") | None = None
    face_length: Float("the face capsule's length", ge=0, le=1) | None = None

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a CNN channel per map that does not
        agree, a class no softmax holds, or errors without a quarter turn (or one without)."""
        super().__post_init__()
        check_same("RotationState", "channels", "pass the CNN's maps of cnn_channels",
                   cnn_channels=len(self.cnn_channels), cnn_maps=len(self.cnn_maps))
        for model in ("gcnn", "cnn"):
            check_read("RotationState", "pass what rotation_state(...) gives",
                       f"{model}_prediction", [getattr(self, f"{model}_prediction")],
                       f"{model}_probabilities", getattr(self, f"{model}_probabilities"))
            if (self.quarter_turns is None) != (getattr(self, f"{model}_error") is None):
                raise ValueError(f"RotationState(): {model}_error must be given exactly at a "
                                 f"quarter turn, got quarter_turns={self.quarter_turns!r} and "
                                 f"{model}_error={getattr(self, f'{model}_error')!r}; measure "
                                 "the error at whole quarter turns only")


@checked
@torch.no_grad()
def rotation_state(gcnn: C4CNN, cnn: PlainCNN, digit: Digit,
                   rotation: Rotation = 0.0,
                   layer: Int("a layer of the G-CNN", ge=0, le=MAX_WIDTH) = 0,
                   channel: Int("a channel of that layer", ge=0, le=MAX_WIDTH) = 0,
                   face_model: PoseCapsuleNet | None = None) -> RotationState:
    """What notebook 10's widget shows (``RotationState``) for one MNIST ``digit`` ``[1, 28, 28]``
    turned by ``rotation`` degrees, read by a ``C4CNN`` and a ``PlainCNN``: the maps of
    ``layer`` (the G-CNN's ``channel`` in its four orientations, four of the CNN's channels); at
    whole quarter turns each layer's maps against the upright digit's turned (and, for the G-CNN,
    cycled: ``group_conv.rotate_c4``), as ``relative_error``; both softmaxes; and with a
    ``face_model`` (07's ``PoseCapsuleNet``) the upright face turned as far and what its face
    capsule reads (``parts.pose_net.rotation_sweep``)."""
    n_layers = len(gcnn.convs)
    if layer >= n_layers:
        raise ValueError(f"rotation_state(): layer must be in [0, {n_layers - 1}] (the G-CNN's "
                         f"layers), got {layer}; pass one of them")
    n_channels = gcnn.convs[layer].weight.shape[0]
    if channel >= n_channels:
        raise ValueError(f"rotation_state(): channel must be in [0, {n_channels - 1}] (the "
                         f"G-CNN's layer {layer} has {n_channels} channels), got {channel}; pass "
                         "one of them")
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

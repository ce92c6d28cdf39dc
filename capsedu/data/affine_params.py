"""The affine maps of MNIST digits: the bounds a shear and a scale share in every entry that
applies one (past them the image is blank), a map's linear part (``affine_matrix``), and the maps
``transformed_mnist.random_affine`` drew on their canvas, one per digit: a record checked when it
is made, so one built by hand (to title a figure, to try ``drawn_ranges``) is held to the same
rules as the one ``random_affine`` returns."""

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated

import torch

from ..checks import check_on_canvas, check_same
from ..course_settings import MAX_SIDE
from ..units import DrawnInDegrees, InDegrees
from ..validate import CheckedRecord, Float, Int, Numbers, Tensor, check_value, checked

CANVAS = 40  # affNIST's image side
MAX_SHEAR = 10.0  # a shear past this lays a digit almost flat: its ink leaves any canvas
MAX_SCALE = 10.0  # a digit scaled past this fills any canvas of MAX_SIDE with one stroke
MIN_SCALE = 0.2  # a digit's 20 px of ink shrunk to 4; smaller, resampling loses its strokes
Shear = Float("a shear factor", ge=-MAX_SHEAR, le=MAX_SHEAR)
Scale = Float("a scale factor", ge=MIN_SCALE, le=MAX_SCALE)
PerDigit = Tensor("one value per digit [N]", ndim=1, finite=True)
# a drawn scale lies where random_affine's ranges can put it (AffineRanges' Scale): a negative
# one would be a mirror image, not an affNIST scale
Scales = Tensor("scale factors, one per digit [N]", ndim=1, finite=True,
                within=(MIN_SCALE, MAX_SCALE), fix="pass scales that random_affine can draw")
# a scale as a number or one per digit, in the one range AffineParams holds them to
Scaling = Scale | Scales
# one turn a caller chooses, in degrees (np.radians(45) is refused, not read as 0.79 degrees)
Rotation = Annotated[Float("degrees"), InDegrees]
# the turns of a sweep, in degrees, judged as one (2.5 is taken among 0 to 360, refused alone)
Rotations = Annotated[Numbers("angles in degrees [n]", ndim=1), InDegrees]
# random turns, one per digit, in degrees: refused where all read as radians (DrawnInDegrees)
DrawnRotations = Annotated[Tensor("angles, one per digit [N], degrees", ndim=1, finite=True),
                           DrawnInDegrees]
# shear factors, one per digit, within the bound a shear shares everywhere
Shears = Tensor("shear factors, one per digit [N]", ndim=1, finite=True,
                within=(-MAX_SHEAR, MAX_SHEAR), fix="pass shears that random_affine can draw")
# set while random_affine makes its record: angles the course drew, in a sample of a few all
# perhaps under 6.3 degrees, are not judged as radians (a record built by hand is)
_COURSE_DRAWN = ContextVar("the course drew these maps", default=False)


def _check_sweep_value(where: str, name: str, factor: str, value: float) -> None:
    """Refuse a ``transformed_mnist.sweep`` value past the bound its factor shares with
    ``affine`` (``Shear``, ``Scale``; an angle in degrees, ``Rotation``), in the words of the
    entry ``where``."""
    check_value(where, name, {"shear": Shear, "scale": Scale, "rotation": Rotation}[factor], value)


def _check_sweep_values(where: str, factor: str, values: list[float]) -> None:
    """Refuse the ``values`` of a sweep as ``_check_sweep_value`` does each, in the words of the
    entry ``where``; its angles as one sweep (``Rotations``: 2.5 among 0 to 360 is taken)."""
    if factor == "rotation":
        check_value(where, "values", Rotations, values)
        return
    for i, v in enumerate(values):
        _check_sweep_value(where, f"values[{i}]", factor, v)


@checked
def affine_matrix(rotation: Rotation | DrawnRotations, shear: Shear | Shears, scale_x: Scaling,
                  scale_y: Scaling) -> torch.Tensor:
    """The 2x2 linear part ``[N, 2, 2]`` of the map applied about the digit's centre (pixel
    coordinates, y down, a positive rotation counter-clockwise on screen):
    A = R(rotation) Sh(shear) S(scale_x, scale_y), i.e. scale, then shear, then turn. Each is a
    number or a tensor of them, one per digit; the shears and scales in ``Shear``'s and
    ``Scale``'s ranges (a shear of 20 lays a digit flat; a scale is never a mirror). An angle that
    reads as radians is refused (``Rotation``), and so are angles one per digit that all do
    (``DrawnInDegrees``)."""
    given = dict(rotation=rotation, shear=shear, scale_x=scale_x, scale_y=scale_y)
    check_same("affine_matrix", "length, one per digit", "pass one each, or a number",
               **{k: len(v) for k, v in given.items() if getattr(v, "ndim", 0)})
    return _affine_matrix(rotation, shear, scale_x, scale_y)


def _affine_matrix(rotation, shear, scale_x, scale_y) -> torch.Tensor:
    """``affine_matrix`` for maps the course drew or checked itself (``random_affine``'s angles,
    in a few digits all perhaps under 6.3 degrees; a sweep's, checked as a whole)."""
    # numbers and tensors [N] alike: each [N] (or each 0-d, where all are numbers)
    rotation, shear, scale_x, scale_y = torch.broadcast_tensors(
        *(torch.as_tensor(v, dtype=torch.float32) for v in (rotation, shear, scale_x, scale_y)))
    a = torch.deg2rad(rotation)
    c, s = torch.cos(a), torch.sin(a)
    one, zero = torch.ones_like(c), torch.zeros_like(c)
    R = torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)
    Sh = torch.stack([torch.stack([one, shear], -1), torch.stack([zero, one], -1)], -2)
    S = torch.diag_embed(torch.stack([scale_x, scale_y], -1))
    return R @ Sh @ S


def _drawn_params(*fields) -> "AffineParams":
    """The ``AffineParams`` of maps ``random_affine`` drew (its ``fields``), their angles taken as
    the course drew them: in a few digits all may fall under 6.3 degrees."""
    mark = _COURSE_DRAWN.set(True)
    try:
        return AffineParams(*fields)
    finally:
        _COURSE_DRAWN.reset(mark)


@dataclass(frozen=True)
class AffineParams(CheckedRecord):
    """The affine maps ``random_affine`` drew, one per digit, each field ``[N]``, on a canvas of
    ``side`` pixels."""

    rotation: PerDigit  # degrees
    shear: Shears  # x += shear * y
    scale_x: Scales
    scale_y: Scales
    tx: PerDigit  # the translation, pixels
    ty: PerDigit
    side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS  # the maps drawn on

    def __post_init__(self):
        """Refuse fields of unequal lengths, or a translation that moves a digit off the ``side``
        canvas under its map (``check_on_canvas``): random_affine keeps every digit's ink on it."""
        super().__post_init__()
        if not _COURSE_DRAWN.get():  # a record made by hand: radians refused, as in affine()
            check_value("AffineParams", "rotation", DrawnRotations, self.rotation)
        maps = {name: getattr(self, name) for name in ("rotation", "shear", "scale_x", "scale_y",
                                                       "tx", "ty")}
        check_same("AffineParams", "length, one map per digit", "give every field one value per "
                   "digit", **{name: len(values) for name, values in maps.items()})
        if len(self.tx):  # the furthest shift against the widest map: never a drawn one refused
            check_on_canvas("AffineParams", _affine_matrix(*list(maps.values())[:4]), self.side,
                            tx=self.tx.abs().max().item(), ty=self.ty.abs().max().item())

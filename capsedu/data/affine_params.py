"""The affine maps of MNIST digits: the bounds a shear and a scale share in every entry that
applies one (past them the image is blank), and the maps ``transformed_mnist.random_affine``
drew, one per digit: a record checked when it is made, so one built by hand (to title a figure,
to try ``drawn_ranges``) is held to the same rules as the one ``random_affine`` returns."""

from dataclasses import dataclass, fields

from ..checks import check_same
from ..validate import CheckedRecord, Float, Tensor, check_value

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


def _check_sweep_value(where: str, name: str, factor: str, value: float) -> None:
    """Refuse a ``transformed_mnist.sweep`` value past the bound its factor shares with
    ``affine`` (``Shear``, ``Scale``; any angle turns), in the words of the entry ``where``."""
    if factor in ("shear", "scale"):
        check_value(where, name, Shear if factor == "shear" else Scale, value)


@dataclass(frozen=True)
class AffineParams(CheckedRecord):
    """The affine maps ``random_affine`` drew, one per digit, each field ``[N]``."""

    rotation: PerDigit  # degrees
    shear: PerDigit  # x += shear * y
    scale_x: Scales
    scale_y: Scales
    tx: PerDigit  # the translation, pixels
    ty: PerDigit

    def __post_init__(self):
        super().__post_init__()
        check_same("AffineParams", "length, one map per digit", "give every field one value per "
                   "digit", **{f.name: len(getattr(self, f.name)) for f in fields(self)})

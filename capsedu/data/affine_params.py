"""The affine maps ``transformed_mnist.random_affine`` drew, one per digit: a record checked when
it is made, so one built by hand (to title a figure, to try ``drawn_ranges``) is held to the same
rules as the one ``random_affine`` returns."""

from dataclasses import dataclass, fields

from ..checks import check_same
from ..validate import CheckedRecord, Tensor

PerDigit = Tensor("one value per digit [N]", ndim=1, floating=True)


@dataclass(frozen=True)
class AffineParams(CheckedRecord):
    """The affine maps ``random_affine`` drew, one per digit, each field ``[N]``."""

    rotation: PerDigit  # degrees
    shear: PerDigit  # x += shear * y
    scale_x: PerDigit
    scale_y: PerDigit
    tx: PerDigit  # the translation, pixels
    ty: PerDigit

    def __post_init__(self):
        super().__post_init__()
        check_same("AffineParams", "length, one map per digit", "give every field one value per "
                   "digit", **{f.name: len(getattr(self, f.name)) for f in fields(self)})

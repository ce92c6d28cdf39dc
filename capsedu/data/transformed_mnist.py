"""MNIST under new viewpoints, generated from MNIST itself: the data of the paper's Section 5.2
(affNIST) and Section 6 (MultiMNIST), for notebook 08.

* **Translated MNIST** (the paper's training condition for the affNIST test): each 28x28 digit at a
  random place on a black 40x40 canvas.
* **affNIST-style** sets: each digit turned, sheared and scaled about its centre, then moved to a
  random place where its ink stays on the 40x40 canvas. The ranges are those of the affNIST data
  set (Tieleman, www.cs.toronto.edu/~tijmen/affNIST): rotation within +-20 degrees, shear within
  +-0.2, horizontal and vertical scale each within 0.8-1.2 (``AFFNIST_RANGES``); our translation
  keeps the ink on the canvas. Plus one-factor sweeps (``sweep``), centred on the canvas.
* **MultiMNIST-style** pairs (Section 6) are in ``digit_pairs``.

Every function is deterministic given its ``seed`` (a ``torch.Generator``), takes MNIST tensors
``[N, 1, 28, 28]`` in [0, 1] (``load_mnist``) and returns tensors, so nothing is stored on disk.
"""

from dataclasses import dataclass
from typing import Annotated

import torch
import torch.nn.functional as F

from .. import checks
from ..checks import check_whole_pixels
from ..course_settings import MAX_SIDE, Rows, Seed
from ..units import DrawnInDegrees, InDegrees
from ..validate import CheckedRecord, Choice, Flag, Float, Int, Numbers, Some, Tensor, checked
from .affine_params import (
    CANVAS,
    MAX_SHEAR,
    AffineParams,
    Rotation,
    Scale,
    Shear,
    _affine_matrix,
    _check_sweep_value,
    _drawn_params,
    affine_matrix,  # noqa: F401 (read here by notebooks 08 and 10: transformed_mnist.affine_matrix)
)
from .mnist import load_mnist

Labels = Numbers("their labels, classes 0 to 9 [N]", ndim=1, ge=0, le=9, whole=True, tensor=True)
# MNIST's digits, as every entry here takes them (uint8 pixels 0-255 are refused, never rescaled)
Digits = Tensor("MNIST digits [N, 1, 28, 28]", ndim=4, pixels=True, sizes={1: 1, 2: 28, 3: 28})
# digits to warp, at least one (torch's resampling refuses an empty batch in its own words)
SomeDigits = Annotated[Digits, Some]
Factor = Choice("the factor swept", "rotation", "shear", "scale")  # SWEEPS' and AffineRanges'


@dataclass(frozen=True)
class AffineRanges(CheckedRecord):
    """Uniform ranges of the random affine maps (rotation in degrees; shear as a factor)."""

    rotation: Annotated[Float("degrees a digit turns at most", ge=0, le=180),
                        InDegrees] = 20.0  # +- degrees
    shear: Float("the largest shear factor", ge=0, le=MAX_SHEAR) = 0.2  # +- x += shear * y
    # horizontal and vertical, drawn independently
    scale: tuple[Scale, ...] = (0.8, 1.2)

    def __post_init__(self):
        """Refuse ranges that draw nothing, naming the field: declared types and bounds
        (``CheckedRecord``), and the scale's (low, high) in order."""
        super().__post_init__()
        if len(self.scale) != 2 or self.scale[0] > self.scale[1]:
            raise ValueError(f"AffineRanges(): scale must be (low, high) with low <= high, got "
                             f"{self.scale!r}; give the smaller end first")

    @checked
    def band(self, factor: Factor) -> tuple[float, float]:
        """The lowest and highest value of one factor of ``SWEEPS`` ("rotation", "shear" or
        "scale") within these ranges."""
        if factor == "scale":
            return self.scale
        spread = getattr(self, factor)
        return -spread, spread


AFFNIST_RANGES = AffineRanges()


@checked
def pad_to(images: Tensor("images [N, 1, h, w]", ndim=4, pixels=True),
           side: Int("the canvas side in pixels", ge=1, le=MAX_SIDE)) -> torch.Tensor:
    """Centre images ``[N, 1, h, w]`` (floating-point pixels in [0, 1]) on a black ``side`` x
    ``side`` canvas."""
    h, w = images.shape[-2:]
    if side < max(h, w):
        raise ValueError(f"pad_to(): side must be at least the images' side ({h} x {w}) to centre "
                         f"them on a larger canvas, got {side}; crop them first to make them "
                         "smaller")
    return _centred(images, side)


def _centred(images: torch.Tensor, side: int) -> torch.Tensor:
    """``pad_to`` for images already checked (``Digits``): each pixel is scanned once."""
    h, w = images.shape[-2:]
    top, left = (side - h) // 2, (side - w) // 2
    return F.pad(images, (left, side - w - left, top, side - h - top))


CHUNK = 1024  # images moved or resampled at once: the index and grid tensors that ``translate``
# and ``warp`` build take 16 to 24 bytes per pixel, 380 MB for 10,000 40x40 images at once


def _in_chunks(transform, *tensors: torch.Tensor) -> torch.Tensor:
    """``transform(*tensors)`` on ``CHUNK`` images at a time, each sliced along dimension 0."""
    n = len(tensors[0])
    first = transform(*(t[:CHUNK] for t in tensors))
    if n <= CHUNK:
        return first
    # one result, filled chunk by chunk (chunks and their concatenation: every image twice)
    out = first.new_empty((n, *first.shape[1:]))
    out[:CHUNK] = first
    for i in range(CHUNK, n, CHUNK):
        out[i:i + CHUNK] = transform(*(t[i:i + CHUNK] for t in tensors))
    return out


@checked
def translate(images: Tensor("images [N, C, H, W]", ndim=4),
              tx: Tensor("whole pixels to the right [N]", ndim=1),
              ty: Tensor("whole pixels down [N]", ndim=1)) -> torch.Tensor:
    """Move each image ``[N, C, H, W]`` by whole pixels, ``tx`` ``[N]`` to the right and ``ty``
    ``[N]`` down, filling with zeros: exact, no resampling; what leaves the image is lost."""
    _one_per_image("translate", images, tx=tx, ty=ty)
    _check_moves("translate", images, tx=tx, ty=ty)
    return _in_chunks(_translate, images, tx, ty)


def _check_moves(where: str, images: torch.Tensor, **moves: torch.Tensor) -> None:
    """Refuse moves (across, then down) as large as the images' side: a blank image, no word."""
    for (name, move), side in zip(moves.items(), (images.shape[-1], images.shape[-2]), strict=True):
        move = torch.as_tensor(move).abs().flatten().float()
        most = float(move.max()) if len(move) else 0.0  # (no image: nothing moves)
        if most >= side:
            raise ValueError(f"{where}(): {name} must move less than the images' side ({side} px: "
                             f"further, the image is blank), got {most:g}; pass a smaller move")


def _one_per_image(where: str, images: torch.Tensor, **offsets: torch.Tensor) -> None:
    """Refuse offsets that are not one per image, or not whole pixels (a NaN would make a NaN
    image, 1.5 would be rounded)."""
    for name, t in offsets.items():
        if len(t) != len(images):
            raise ValueError(f"{where}(): {name} must hold one offset per image "
                             f"[{len(images)}], got shape {tuple(t.shape)}")
        check_whole_pixels(t, f"{where}(): {name}")


def _translate(images: torch.Tensor, tx: torch.Tensor, ty: torch.Tensor) -> torch.Tensor:
    """``translate`` for one chunk."""
    n, c, h, w = images.shape
    # output pixel (y, x) of image k shows input pixel (y - ty_k, x - tx_k)
    rows = torch.arange(h)[None, :] - ty.long()[:, None]  # [N, H]
    cols = torch.arange(w)[None, :] - tx.long()[:, None]  # [N, W]
    inside = ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]
    k = torch.arange(n)[:, None, None]
    # advanced indices around the channel slice put their [N, H, W] first: [N, H, W, C]
    moved = images[k, :, rows.clamp(0, h - 1)[:, :, None], cols.clamp(0, w - 1)[:, None, :]]
    return moved.permute(0, 3, 1, 2) * inside[:, None].to(images.dtype)


@checked
def on_canvas(images: Tensor("images [N, 1, h, w]", ndim=4, pixels=True),
              dx: Tensor("pixels to the right [N]", ndim=1), dy: Tensor("pixels down [N]", ndim=1),
              side: Int("the canvas side in pixels", ge=1, le=MAX_SIDE)) -> torch.Tensor:
    """Put images ``[N, 1, h, w]`` on a ``side`` x ``side`` canvas with their top-left corner at
    integer pixel offsets ``(dx, dy)`` ``[N]`` (0 .. side - w): exact, no resampling. The images
    hold floating-point pixels in [0, 1]."""
    _one_per_image("on_canvas", images, dx=dx, dy=dy)
    h, w = images.shape[-2:]
    if side < max(h, w):
        raise ValueError(f"on_canvas(): side must be at least the images' ({h} x {w} px), got "
                         f"{side}; pass a canvas as large as the images, or larger")
    checks.check_offsets("on_canvas", dx=(dx, side - w), dy=(dy, side - h))
    # padded a chunk at a time: the whole padded batch would be one more canvas-sized copy
    return _in_chunks(lambda x, tx, ty: _translate(F.pad(x, (0, side - w, 0, side - h)), tx, ty),
                      images, dx, dy)


@checked
def translated(images: Digits,
               seed: Seed = 0, side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS,
               rows: Rows | None = None) -> torch.Tensor:
    """Translated MNIST: each digit at a uniformly random place on a ``side`` x ``side`` canvas
    (the whole 28x28 box stays on it): ``[N, 1, side, side]``.

    ``rows`` (indices, e.g. ``mnist.fixed_sample(n)``): only those digits, each at the place it has
    in the whole set (the places are drawn for all of ``images``): a sample of the full set."""
    images = images.float()
    g = torch.Generator().manual_seed(seed)
    dx, dy = torch.randint(0, side - 27, (2, len(images)), generator=g)
    rows = checks.check_rows("translated", rows, len(images))
    _check_ink("translated", images[rows].flatten(1).amax(1) > 0.05)
    return on_canvas(images[rows], dx[rows], dy[rows], side)


TRANSLATED_SEEDS = {True: 0, False: 1}  # the placements of translated_mnist's train and test splits


@checked
def translated_mnist(train: Flag("True for the training split, False for the test split") = True,
                     limit: Int("the number of digits to keep", ge=1, le=60_000) | None = None,
                     rows: Rows | None = None):
    """The MNIST split translated onto the 40x40 canvas (``translated``, seed 0 for the training
    split, 1 for the test split): ``(images [N, 1, 40, 40], labels [N])``, the data of the affNIST
    recipes (``capsedu.train``). ``limit`` keeps the first N digits (a trial); ``rows`` keeps those
    digits of the whole split, each placed as in the whole split (a sample of the test set:
    ``mnist.fixed_sample``)."""
    if limit is not None and rows is not None:
        raise ValueError(f"translated_mnist(): limit and rows must not both be given (limit keeps "
                         f"the first digits, rows those digits), got limit={limit} and "
                         f"{len(rows)} rows; pass one of them")
    images, labels = load_mnist(train, limit)
    keep = checks.check_rows("translated_mnist", rows, len(labels))
    return translated(images, TRANSLATED_SEEDS[train], rows=rows), labels[keep]


@checked
def warp(images: Tensor("square images [N, 1, S, S]", ndim=4, floating=True),
         A: Tensor("linear maps [N, 2, 2]", ndim=3, floating=True, finite=True,
                   sizes={1: 2, 2: 2}),
         t: Tensor("translations in pixels [N, 2]", ndim=2, floating=True, finite=True,
                   sizes={1: 2})) -> torch.Tensor:
    """Resample square images ``[N, 1, S, S]`` so that the point p of the input (pixels, from the
    centre) lands at A p + t: ``A`` ``[N, 2, 2]``, ``t`` ``[N, 2]`` in pixels. Bilinear, zeros
    outside."""
    checks.check_square("warp", "images", images)
    checks.check_same("warp", "length, one map and one translation per image", "pass as many of "
                      "each", images=len(images), A=len(A), t=len(t))
    checks.check_nonzero("warp", **{"A's determinant": torch.linalg.det(A)})
    # the maps in the images' dtype (float64 ones from NumPy resample float32 images)
    return _in_chunks(_warp, images, A.to(images.dtype), t.to(images.dtype))


def _warp(images: torch.Tensor, A: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """``warp`` for one chunk."""
    n, _, side, _ = images.shape
    A_inv = torch.linalg.inv(A)  # output point q came from A^-1 (q - t)
    # affine_grid works in [-1, 1] units, the same scale on both axes for a square image
    theta = torch.cat([A_inv, (-A_inv @ t[..., None]) * (2 / side)], dim=2)  # [N, 2, 3]
    grid = F.affine_grid(theta, (n, 1, side, side), align_corners=False)
    return F.grid_sample(images, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def _ink_box(images: torch.Tensor, level: float = 0.05) -> torch.Tensor:
    """``[N, 4]``: first and last column, first and last row holding ink above ``level``."""
    inked, ends = images[:, 0] > level, []
    for mask in (inked.any(dim=1), inked.any(dim=2)):  # columns [N, W], then rows [N, H]
        idx = torch.arange(mask.shape[1])
        ends += [torch.where(mask, idx, mask.shape[1]).amin(dim=1),
                 torch.where(mask, idx, -1).amax(dim=1)]
    return torch.stack(ends, dim=1)


@checked
def random_affine(images: SomeDigits,
                  seed: Seed = 0, ranges: AffineRanges = AFFNIST_RANGES,
                  side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS,
                  rows: Rows | None = None) -> tuple[torch.Tensor, AffineParams]:
    """affNIST-style: each digit turned, sheared and scaled (uniformly within ``ranges``) about its
    centre, then moved to a uniformly random place where its ink stays on the ``side`` canvas.

    Returns ``(images [N, 1, side, side], params)``; ``params``, an ``AffineParams``, holds the
    drawn ``rotation``, ``shear``, ``scale_x``, ``scale_y`` and translation ``tx``, ``ty``
    (pixels), each ``[N]``.

    ``rows`` (indices, e.g. ``mnist.fixed_sample(n)``): only those digits, each under the map it
    has in the whole set (the maps are drawn for all of ``images``): a sample of the full set."""
    digits = images.float()
    n = len(digits)
    rows = checks.check_rows("random_affine", rows, n)
    g = torch.Generator().manual_seed(seed)

    def uniform(lo, hi):
        return lo + (hi - lo) * torch.rand(n, generator=g)

    rotation = uniform(-ranges.rotation, ranges.rotation)[rows]  # drawn for the whole set
    shear = uniform(-ranges.shear, ranges.shear)[rows]
    scale_x = uniform(*ranges.scale)[rows]
    scale_y = uniform(*ranges.scale)[rows]
    u = _uniform_pairs(n, g)  # [n, 2]: where each digit goes, drawn for the whole set
    digits, u = digits[rows], u[rows]
    A = _affine_matrix(rotation, shear, scale_x, scale_y)

    def warped(x, A, t):  # centred and resampled a chunk at a time, never the whole canvas twice
        return _warp(_centred(x, side), A, t)

    boxes = _in_chunks(lambda x, A: _ink_box(warped(x, A, torch.zeros(len(x), 2))), digits, A)
    t = _offsets_within(boxes, side, u, "random_affine")  # [N, 2]
    return (_in_chunks(warped, digits, A, t).clamp_(0, 1),
            _drawn_params(rotation, shear, scale_x, scale_y, *t.unbind(1), side))


@checked
def drawn_ranges(params: AffineParams) -> str:
    """The range of the maps ``random_affine`` drew (its ``params``), in words: the lowest and
    highest rotation, shear and scale (either axis)."""
    if not len(params.rotation):
        raise ValueError("drawn_ranges(): params must hold at least one map, got none; pass the "
                         "params of random_affine on some images")
    low_scale = min(params.scale_x.min(), params.scale_y.min())
    high_scale = max(params.scale_x.max(), params.scale_y.max())
    return (f"rotation {params.rotation.min():+.1f} to {params.rotation.max():+.1f} "
            f"degrees, shear {params.shear.min():+.2f} to {params.shear.max():+.2f}, "
            f"scales {low_scale:.2f} to {high_scale:.2f}")


@checked
def ink_keeping_offsets(images: Tensor("images [N, 1, S, S]", ndim=4),
                        generator: torch.Generator) -> torch.Tensor:
    """For each image ``[N, 1, S, S]``, a whole-pixel translation ``(tx, ty)`` ``[N, 2]``, uniform
    among those that keep its ink on the canvas: tx from -x0 (ink touching the left edge) to
    S - 1 - x1 (touching the right edge), where x0 .. x1 are its inked columns; ty likewise."""
    return _ink_offsets(images, generator, "ink_keeping_offsets")


def _ink_offsets(images: torch.Tensor, generator: torch.Generator, where: str) -> torch.Tensor:
    """``ink_keeping_offsets`` of the function ``where`` the caller called."""
    return _offsets_within(_ink_box(images), images.shape[-1],
                           _uniform_pairs(len(images), generator), where)


def _check_ink(where: str, inked: torch.Tensor) -> None:
    """Refuse blank images (``inked`` ``[N]``: each has a pixel above 0.05): no digit to move."""
    if blank := (~inked).nonzero().flatten().tolist():
        raise ValueError(f"{where}(): images must each hold ink (a pixel above 0.05), got "
                         f"{len(blank)} blank image(s), the first at index {blank[0]}; drop "
                         "them (images[images.amax((1, 2, 3)) > 0.05])")


def _uniform_pairs(n: int, generator: torch.Generator) -> torch.Tensor:
    """``[n, 2]`` uniform numbers in [0, 1): all n first numbers, then all n second ones."""
    return torch.stack([torch.rand(n, generator=generator) for _ in range(2)], dim=1)


def _offsets_within(boxes: torch.Tensor, side: int, u: torch.Tensor, where: str) -> torch.Tensor:
    """``ink_keeping_offsets`` from the ink boxes ``[N, 4]`` (``_ink_box``) on a ``side`` canvas
    and uniform numbers ``u`` ``[N, 2]`` (``_uniform_pairs``): u = 0 at one edge, towards 1 at the
    other. A blank image has no ink to keep on the canvas: refused (``where``: the entry)."""
    x0, x1, y0, y1 = boxes.unbind(1)
    _check_ink(where, x0 <= x1)
    offsets = [lo + (u[:, k] * (hi - lo + 1)).long().clamp(max=hi - lo)
               for k, (lo, hi) in enumerate(((-x0, side - 1 - x1), (-y0, side - 1 - y1)))]
    return torch.stack(offsets, dim=1).float()


@checked
def move(images: Tensor("images [N, 1, S, S]", ndim=4), generator: torch.Generator) -> torch.Tensor:
    """The training augmentation of the affNIST recipes: each image ``[N, 1, S, S]`` moved to a
    new random place on its canvas (``ink_keeping_offsets``), so a digit is seen at a new place in
    every epoch. Exact: a whole-pixel move does not resample."""
    checks.check_square("move", "images", images)
    return translate(images, *_ink_offsets(images, generator, "move").unbind(1))


SWEEPS = {  # one Factor at a time, the others at identity; values for notebook 08's curves
    "rotation": [0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0],
    "shear": [-0.4, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4],
    "scale": [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4],
}


@checked
def affine(images: SomeDigits,
           rotation: Rotation | Annotated[Tensor("one angle per digit [N], degrees", finite=True),
                                          DrawnInDegrees] = 0.0,
           shear: Shear = 0.0, scale_x: Scale = 1.0,
           scale_y: Scale = 1.0, tx: Float("pixels to the right") = 0.0,
           ty: Float("pixels down") = 0.0,
           side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS) -> torch.Tensor:
    """Every digit ``[N, 1, 28, 28]`` under one affine map: turned by ``rotation`` degrees,
    sheared and scaled about its centre (``affine_matrix``), then moved by ``(tx, ty)`` pixels
    from the centre of the ``side`` canvas. ``[N, 1, side, side]``. ``rotation`` may also be
    ``[N]``, one angle per digit (each digit turned by its own); the shear and scales within
    ``Shear`` and ``Scale`` (past them the digit leaves the canvas or shrinks to nothing). An
    angle that reads as radians is refused (np.radians(45) would turn by 0.79 degrees): one
    angle, or all of the angles one per digit (``units.InDegrees``)."""
    return _affine(images, rotation, shear, scale_x, scale_y, tx, ty, side)


def _affine(images, rotation=0.0, shear=0.0, scale_x=1.0, scale_y=1.0, tx=0.0, ty=0.0,
            side=CANVAS) -> torch.Tensor:
    """``affine`` for angles the course drew itself, one per digit (``full_sets.turned_mnist``),
    not refused where a sample of a few holds only turns under 6.3 degrees, or for an angle of a
    sweep its caller checked as a whole (``capsule_angles.turned``: 2.5 degrees is taken in a
    sweep past 6.3, refused alone)."""
    images = _centred(images.float(), side)
    n = len(images)
    rotation = torch.as_tensor(rotation, dtype=torch.float32)
    if rotation.ndim > 1 or rotation.numel() not in (1, n):
        raise ValueError(f"affine(): rotation must be one angle or one per digit ([{n}]), got "
                         f"shape {tuple(rotation.shape)}; give as many angles as digits")
    A = _affine_matrix(rotation.expand(n), float(shear), float(scale_x), float(scale_y))  # [N,2,2]
    checks.check_on_canvas("affine", A, side, tx=tx, ty=ty)
    t = torch.tensor([float(tx), float(ty)]).expand(n, 2)  # [N, 2]
    return warp(images, A, t).clamp(0, 1)


@checked
def sweep(images: SomeDigits,
          factor: Factor,
          value: Float("its value: degrees, or a factor"),
          side: Int("the canvas side in pixels", ge=28, le=MAX_SIDE) = CANVAS) -> torch.Tensor:
    """Every digit under one transformation, centred on the canvas: ``factor`` is "rotation"
    (degrees), "shear" or "scale" (both axes), set to ``value``. ``[N, 1, side, side]``."""
    _check_sweep_value("sweep", "value", factor, value)
    return _sweep(images, factor, value, side)


def _sweep(images, factor, value, side=CANVAS) -> torch.Tensor:
    """``sweep`` for a value its caller checked with the others of its sweep
    (``robustness.sweep_accuracy``: an angle of 2.5 degrees is taken in a sweep past 6.3, refused
    alone)."""
    given = dict(scale_x=value, scale_y=value) if factor == "scale" else {factor: value}
    return _affine(images, side=side, **given)

"""What convolutions and pooling see: feature maps as grids of numbers with their pooling
windows (01), the window of a CNN's receptive field on a face (01), how much pooling's output
changes as the maps shift (10), and a lifting convolution's maps in four orientations (10).
"""

import itertools
from typing import Annotated

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import FigureBase
from matplotlib.patches import Rectangle

from ..checks import check_same
from ..course_settings import MAX_IMAGE, MAX_SIDE, MIN_SIDE, Checked, Pictures
from ..data import sprites
from ..data.sprites import Parts
from ..refusals import kind_of
from ..validate import Instances, Int, Numbers, Some, checked
from .canvas import FlatAxes, check_distinct_axes
from .colours import Colour

Window = Int("the side of a pooling window in cells", ge=1, le=MAX_IMAGE)
Field = Int("a receptive field's side in pixels", ge=1, le=MAX_IMAGE)
SHIFT_STYLES = ("o-", "s--", "^-")  # draw_shift_changes' markers and lines, pooling by pooling
WINDOW_COLOURS = ("tab:orange", "tab:cyan")  # draw_receptive_field's windows, in turn


def _is_map(m) -> bool:
    """Whether ``m`` is a feature map ``[H, W]`` of finite real numbers (a tensor, an array or a
    list of lists)."""
    if isinstance(m, str | bytes | dict):
        return False
    try:
        array = np.asarray(m.detach().cpu() if isinstance(m, torch.Tensor) else m)
    except (TypeError, ValueError, RuntimeError):  # a ragged list
        return False
    return array.ndim == 2 and array.dtype.kind in "iuf" and bool(np.isfinite(array).all())


def _panel_row(row, name: str) -> list:
    """A row of ``draw_feature_maps``' panels: at least one (title, feature map [H, W])."""
    if not isinstance(row, list | tuple) or not row:
        error = ValueError if isinstance(row, list | tuple) else TypeError  # [] is a row of none
        raise error(f"{name} must be a row of panels, a list of (title, feature map [H, W]) "
                    f"pairs, at least one, got {kind_of(row)[:60]}; pass e.g. [('fired', m)]")
    for i, panel in enumerate(row):
        if not (isinstance(panel, list | tuple) and len(panel) == 2 and isinstance(panel[0], str)
                and _is_map(panel[1])):
            raise TypeError(f"{name} must be a row of (title, feature map [H, W]) pairs, the map "
                            f"finite real numbers, its item {i} is {kind_of(panel)[:60]}; pass "
                            "e.g. [('fired', m)]")
    return list(row)


def _check_window(where: str, m, window: int | None) -> None:
    """Refuse a pooling ``window`` larger than the map ``m`` ``[H, W]``'s smaller side."""
    if window and window > min(m.shape):
        raise ValueError(f"{where}(): window must fit on the map, at most its smaller side "
                         f"{min(m.shape)}, got {window} on a {m.shape[0]}x{m.shape[1]} map; pass "
                         "the pooling's window, or None for no lines")


@checked
def draw_feature_map(ax: FlatAxes, m: Numbers("a feature map [H, W]", ndim=2), title: str,
                     window: Window | None = None) -> None:
    """A feature map ``m`` ``[H, W]`` as a grid of its numbers (blue = fired), with lines between
    the ``window`` x ``window`` pooling windows when ``window`` is given (at most the map's
    smaller side: a larger window does not fit on it)."""
    _check_window("draw_feature_map", m, window)
    ax.imshow(m, cmap="Blues", vmin=0, vmax=1.5)
    for (row, col), value in np.ndenumerate(m):
        ax.text(col, row, f"{value:g}", ha="center", va="center")
    for k in range(window, len(m), window) if window else []:
        ax.axhline(k - 0.5, color="k", lw=2)
        ax.axvline(k - 0.5, color="k", lw=2)
    ax.set(xticks=[], yticks=[], title=title)


@checked
def draw_feature_maps(fig: FigureBase, rows: Annotated[list[Checked(
        _panel_row, "a row of (title, feature map [H, W]) panels", "list")], Some],
                      window: Window | None = None):
    """A grid of ``draw_feature_map`` panels on ``fig``: ``rows`` is a list of rows, each a list
    of ``(title, map [H, W])``; ``window`` as in ``draw_feature_map``, fitting every map (no
    line on a map of one window). Returns the axes ``[rows, cols]``."""
    check_same("draw_feature_maps", "length", "give every row as many panels",
               **{f"rows[{i}]": len(row) for i, row in enumerate(rows)})
    for _, m in itertools.chain(*rows):  # refused before any panel is drawn
        _check_window("draw_feature_maps", np.asarray(m), window)
    axes = fig.subplots(len(rows), len(rows[0]), squeeze=False)
    for ax_row, row in zip(axes, rows, strict=True):
        for ax, (title, m) in zip(ax_row, row, strict=True):
            draw_feature_map(ax, m, title, window)
    return axes


@checked
def draw_receptive_field(ax: FlatAxes, image: Pictures("an image [H, W]", ndim=2), size: Field,
                         centres: Numbers("pixels (row, col) to centre windows on [n, 2]",
                                          ndim=2, last=2),
                         colors: list[Colour] | tuple[Colour, ...] | None = None):
    """Draw ``image`` and, at each pixel ``centre`` (row, col) on it, a ``size`` x ``size``
    square: the window that one output unit of a conv stack with that receptive field sees; one
    of ``colors`` per centre (None: ``WINDOW_COLOURS`` in turn)."""
    h, w = image.shape
    if min(h, w) > 2 and ((centres >= 0) & (centres <= 1)).all() and (centres % 1 != 0).any():
        raise ValueError(f"draw_receptive_field(): centres must be pixels (row, col) of the "
                         f"{h}x{w} image, got {centres.tolist()[:3]}, all within 0 .. 1: fractions "
                         f"of the image, as faces' parts are; pass pixels, e.g. (y * {h} - 0.5, "
                         f"x * {w} - 0.5)")
    off = [(row, col) for row, col in centres.tolist()
           if not (-0.5 <= row <= h - 0.5 and -0.5 <= col <= w - 0.5)]
    if off:  # a pixel's centre is at a whole number: the image spans -0.5 .. side - 0.5
        raise ValueError(f"draw_receptive_field(): centres must lie on the {h}x{w} image (rows "
                         f"from -0.5 to {h - 0.5}, columns from -0.5 to {w - 0.5}), got "
                         f"{off[:3]}; pass pixels of the image")
    colors = colors or [WINDOW_COLOURS[k % len(WINDOW_COLOURS)] for k in range(len(centres))]
    check_same("draw_receptive_field", "length", "pass one colour per centre",
               centres=len(centres), colors=len(colors))
    ax.imshow(image, cmap="gray", vmin=0, vmax=1)
    for (row, col), color in zip(centres, colors, strict=True):
        ax.add_patch(Rectangle((col - size / 2, row - size / 2), size, size, fill=False,
                               edgecolor=color, lw=2))
    pad = max(0, (size - min(h, w)) / 2 + 1)  # widen the view when the window is bigger
    ax.set(xlim=(-0.5 - pad, w - 0.5 + pad), ylim=(h - 0.5 + pad, -0.5 - pad),
           xticks=[], yticks=[])


@checked
def draw_receptive_fields(fig: FigureBase, face: Parts, bag_rf: Field, deep_rf: Field,
                          size: Int("the image's side in pixels", ge=MIN_SIDE, le=MAX_SIDE) = 32):
    """Two panels on ``fig``: the ``face`` (parts, as ``faces.face_parts`` returns them) with the
    bag-of-parts CNN's ``bag_rf`` window on its left eye and between the eye and the nose, and
    with the deep CNN's ``deep_rf`` window at the centre (dashed: the image's border)."""
    image = sprites.render(face, size)
    found = {p.kind: p for p in map(sprites.as_part, face)}
    if not {"left_eye", "nose"} <= set(found):  # where the bag-of-parts window sits
        raise ValueError(f"draw_receptive_fields(): face must hold a left_eye and a nose (the "
                         f"bag-of-parts window sits on them), got {sorted(found)}; pass e.g. "
                         "faces.face_parts()")
    left_eye, nose = found["left_eye"], found["nose"]

    def pixel(x, y):  # image fractions (x, y) -> pixel coordinates (row, col)
        return y * size - 0.5, x * size - 0.5

    ax_bag, ax_deep = fig.subplots(1, 2)
    between = pixel((left_eye.x + nose.x) / 2, (left_eye.y + nose.y) / 2)
    draw_receptive_field(ax_bag, image, bag_rf, [pixel(left_eye.x, left_eye.y), between])
    ax_bag.set_title(f"bag-of-parts CNN: {bag_rf}x{bag_rf} px")
    draw_receptive_field(ax_deep, image, deep_rf, [pixel(0.5, 0.5)])
    ax_deep.set_title(f"deep CNN: {deep_rf}x{deep_rf} px (dashed: the image)")
    ax_deep.add_patch(Rectangle((-0.5, -0.5), size, size, fill=False, ls="--", color="0.6"))
    return ax_bag, ax_deep


@checked
def draw_shift_changes(ax: FlatAxes,
                       shifts: Numbers("shifts of the feature maps in px [n]", ndim=1),
                       changes: Annotated[dict[str, Numbers(
                           "relative changes after pooling, one per shift [n]", ndim=1, ge=0)],
                           Some]) -> None:
    """How much each pooling's output changes (``changes``: pooling -> one value per shift, at
    most 3 poolings, ``equivariance.pooling_shift_change``) against the shift of the feature
    maps in px (10 §1)."""
    if len(changes) > len(SHIFT_STYLES):
        raise ValueError(f"draw_shift_changes(): changes must hold at most {len(SHIFT_STYLES)} "
                         f"poolings (one style each), got {len(changes)}; draw fewer at once")
    for pool, change in changes.items():
        check_same("draw_shift_changes", "length", "pass one change per shift",
                   shifts=len(shifts), **{f"changes[{pool!r}]": len(change)})
    for (pool, change), style in zip(changes.items(), SHIFT_STYLES, strict=False):
        ax.plot(shifts, change, style, label=pool)
    ax.set(xticks=shifts, xlabel="shift of the feature maps (px)",
           ylabel="relative change after pooling", title="pooling and shifts")
    ax.legend()


@checked
def draw_lifted_maps(axes: Instances(Axes, "axes [2, 5]", ndim=2),
                     digits: Pictures("a digit upright and turned 90° [2, H, W]",
                                      shape=(2, None, None), fix="pass the two digits"),
                     maps: Numbers("each digit's maps in 4 orientations [2, 4, H, W]",
                                   shape=(2, 4, None, None), fix="pass the lifting "
                                   "convolution's 4 maps of one filter for each digit")
                     ) -> None:
    """10 §3, on axes [2, 5]: each of ``digits`` (upright, turned 90°) and its lifting
    convolution's map of one filter in its 4 orientations (``maps`` [2, 4, H, W])."""
    if axes.shape != (2, 5):
        raise ValueError(f"draw_lifted_maps(): axes must be [2, 5], a row per digit of the digit "
                         f"and its 4 maps, got shape {axes.shape}; make them with "
                         "plt.subplots(2, 5)")
    check_distinct_axes("draw_lifted_maps", axes=axes)
    for row, (digit, maps_) in enumerate(zip(digits, maps, strict=True)):
        axes[row, 0].imshow(digit, cmap="gray_r")
        axes[row, 0].set_title(["the digit", "turned 90°"][row])
        for r in range(4):
            axes[row, 1 + r].imshow(maps_[r], cmap="viridis")
            axes[row, 1 + r].set_title(f"filter turned {90 * r}°", fontsize=9)
    for ax in axes.flat:
        ax.set(xticks=[], yticks=[])

"""Digits and other images, side by side: rows of digits (05, 06, 08, 10) and titled panels
(10), a digit capsule's values and what editing them redraws (Fig. 4, 06), digits under new
viewpoints (08) and a two-digit CapsNet's two reconstructions in two colours (Fig. 5, 08 and its
overlap widget).
"""

import difflib
import inspect
from typing import Annotated

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import FigureBase
from matplotlib.image import AxesImage

from ..checks import check_one_each, check_same
from ..course_settings import MAX_BATCH, Pictures
from ..data import transformed_mnist
from ..data.affine_params import AffineParams
from ..digit_capsules import DELTAS, MEASURES, DimensionStudy
from ..units import Points
from ..validate import Flag, Instances, Int, Numbers, Record, Spec, Tensor, checked
from .canvas import FlatAxes, check_distinct_axes, check_on_figure
from .colours import ColourMap

Titles = list[str] | tuple[str, ...]  # one title per panel
Pixels = Tensor("images [n, 1, S, S], pixels in [0, 1]", ndim=4, pixels=True)
Row = Instances(Axes, "one axes per image")
Panels = Annotated[list[tuple[Numbers("an image [H, W]", ndim=2), str, ColourMap]],
                   Spec("a list of (image [H, W], title, colour map) panels", "list")]


@checked
def mosaic(images: Numbers("images [rows, cols, H, W] (a tensor or an array)", ndim=4)
           ) -> np.ndarray:
    """Tile ``images`` ``[rows, cols, H, W]`` into one ``[rows * H, cols * W]`` array."""
    if not images.size:  # a mosaic of no tiles, or of empty ones, shows nothing
        raise ValueError(f"mosaic(): images must hold at least one row and one column of images "
                         f"of at least one pixel, got shape {images.shape}; pass some images")
    rows, cols, h, w = images.shape
    return images.transpose(0, 2, 1, 3).reshape(rows * h, cols * w)


@checked
def draw_digits(axes: Row,
                images: Pictures("images, one per axes: [n, H, W], or [n, H, W, 3] in colour"),
                titles: Titles | None = None,
                fontsize: Points("the titles' font size") | None = 9,
                frame: Flag("True to draw a frame round each image") = False,
                cmap: ColourMap = "gray_r", **imshow) -> None:
    """One image ``[H, W]`` of ``images`` per axes, without ticks (and without a frame unless
    ``frame``), each titled by ``titles`` if given, in the colour map ``cmap``; ``imshow``: more
    of matplotlib's, e.g. ``vmin``."""
    if not (images.ndim == 3 or images.ndim == 4 and images.shape[-1] in (3, 4)):
        raise ValueError(f"draw_digits(): images must be [H, W] each (or [H, W, 3] in colour), "
                         f"got images of shape {images.shape}; pass images[:, 0] for a batch "
                         "[n, 1, H, W]")
    for name, given in (("images", images), ("titles", titles)):
        if given is not None and len(given) != len(axes):
            raise ValueError(f"draw_digits(): {name} must hold one item per axes ({len(axes)}), "
                             f"got {len(given)}; make as many axes as images")
    _check_imshow(imshow)
    check_distinct_axes("draw_digits", axes=axes)  # one Axes twice: one image over the other
    for k, (ax, image) in enumerate(zip(axes, images, strict=True)):
        ax.imshow(image, cmap=cmap, **imshow)
        ax.set(xticks=[], yticks=[])
        ax.set_frame_on(frame)
        if titles is not None:
            ax.set_title(titles[k], fontsize=fontsize)


def _check_imshow(imshow: dict) -> None:
    """Refuse ``draw_digits``' ``imshow`` options that matplotlib's ``imshow`` does not take (its
    own or its image's, ``set_<name>``), or ``vmin`` above ``vmax``: matplotlib's own error
    comes at the call, or when the figure is drawn, in words that name neither."""
    known = ({*inspect.signature(Axes.imshow).parameters} - {"self", "X", "kwargs"}
             | {name.removeprefix("set_") for name in dir(AxesImage) if name.startswith("set_")})
    for name in imshow:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            raise TypeError(f"draw_digits(): {name} must be one of matplotlib's imshow options "
                            f"(passed on to it), got {name}={imshow[name]!r}; pass one it takes"
                            + (f", e.g. {close[0]}" if close else ", such as vmin or vmax"))
    low, high = imshow.get("vmin"), imshow.get("vmax")
    if low is not None and high is not None and not low <= high:
        raise ValueError(f"draw_digits(): vmin must be at most vmax (the darkest and the lightest "
                         f"pixel values shown), got vmin={low!r}, vmax={high!r}; swap them")


@checked
def draw_panels(axes: Row, panels: Panels) -> None:
    """One ``(image [H, W], title, cmap)`` of ``panels`` per axes, without ticks (10 §1: a digit,
    its shift and their feature maps)."""
    check_same("draw_panels", "length", "make one axes per panel", axes=len(axes),
               panels=len(panels))
    for ax, (image, title, cmap) in zip(axes, panels, strict=True):
        ax.imshow(image, cmap=cmap)
        ax.set(xticks=[], yticks=[], title=title)


@checked
def draw_perturbation_grid(ax: FlatAxes,
                           grid: Tensor("images [dims, Deltas, H, W] (perturbation_grid)",
                                        ndim=4, pixels=True),
                           deltas: Tensor("the Deltas [Deltas]", ndim=1, finite=True) = DELTAS,
                           title: str | None = None):
    """Show a ``perturbation_grid`` as one image: a row per dimension, a column per Delta."""
    dim, k, h, w = grid.shape
    check_same("draw_perturbation_grid", "length", "pass the Deltas the grid was made with",
               **{"grid's columns": k, "deltas": len(deltas)})
    ax.imshow(mosaic(grid), cmap="gray", vmin=0, vmax=1)
    ax.set_xticks(np.arange(k) * w + w / 2, [f"{d:+.2f}" for d in deltas.tolist()], fontsize=7,
                  rotation=90)
    ax.set_yticks(np.arange(dim) * h + h / 2, [f"dim {d}" for d in range(dim)], fontsize=7)
    ax.set_xlabel("Δ added to that dimension")
    if title:
        ax.set_title(title)


@checked
def draw_capsule_values(fig: FigureBase, ax: FlatAxes,
                        capsules: Tensor("capsules [rows, dims]", ndim=2, finite=True),
                        row_labels: Titles) -> None:
    """Capsules ``[rows, dims]`` as a heatmap, one row each (labelled ``row_labels``), a colour
    scale symmetric about 0 and its colour bar (on ``fig``, which must hold ``ax``)."""
    check_on_figure("draw_capsule_values", fig, ax)
    check_one_each("draw_capsule_values", "row_labels", row_labels, len(capsules),
                   "row of capsules")
    lim = float(capsules.abs().max())
    im = ax.imshow(capsules, cmap="coolwarm", vmin=-lim, vmax=lim)
    ax.set(xticks=range(capsules.shape[1]), yticks=range(len(row_labels)), xlabel="dimension",
           yticklabels=row_labels)
    fig.colorbar(im, ax=ax, label="value")


@checked
def draw_dimension_changes(fig: FigureBase, study: Record(DimensionStudy)) -> None:
    """One heatmap per class of ``study`` (``digit_capsules.measure_dimensions``): a row per
    dimension, a column per shape measure, each cell its change from Δ = -0.25 to +0.25 in
    standard deviations of real digits, written in. ``fig``: ``layout="constrained"``."""
    axes = fig.subplots(1, len(study.relative), sharey=True, squeeze=False)[0]
    for ax, (d, r) in zip(axes, study.relative.items(), strict=True):
        im = ax.imshow(r, cmap="coolwarm", vmin=-3, vmax=3, aspect="auto")
        for (i, j), value in np.ndenumerate(r.numpy()):
            ax.text(j, i, f"{value:+.1f}", ha="center", va="center", fontsize=7)
        n = len(study.changes[d].ink)  # the digits measured
        ax.set(xticks=range(len(MEASURES)), xticklabels=MEASURES, yticks=range(r.shape[0]),
               title=f"capsule {d} ({n} test {d}s)")
    axes[0].set_ylabel("dimension")
    fig.colorbar(im, ax=axes, shrink=0.8, label="change, in standard deviations of real digits")
    fig.suptitle("change from Δ = -0.25 to +0.25, in standard deviations of real digits")


TWO_COLOURS = ("tab:orange", "tab:blue")  # the two digits of a MultiMNIST pair (notebook 08)
# a pair's two classes, [n, 2]: digits
Pairs = Numbers("two classes per pair [n, 2], digits 0 to 9", shape=(None, 2), ge=0, le=9,
                whole=True, fix="pass one row of two classes per pair")


@checked
def two_colour(images: Pictures("two grey images [2, S, S]", shape=(2, None, None),
                                fix="pass the two reconstructions of one pair")) -> np.ndarray:
    """Two grey images ``[2, S, S]`` in [0, 1] drawn as ink of ``TWO_COLOURS`` on white, over each
    other: ``[S, S, 3]`` RGB (the paper's Fig. 5 draws its two reconstructions so)."""
    ink = 1 - np.array([to_rgb(c) for c in TWO_COLOURS])  # [2, 3]: what full ink takes from white
    return np.clip(1 - np.einsum("kxy,kc->xyc", images, ink), 0, 1)


@checked
def draw_segmentation(fig: FigureBase, pairs: Pixels,
                      labels: Pairs, read: Pairs,
                      redrawn: Tensor("the two reconstructions [n, 2, 1, S, S]", ndim=5,
                                      pixels=True, sizes={1: 2})) -> None:
    """The paper's Fig. 5 on ``fig``: test ``pairs`` ``[n, 1, S, S]`` with their true ``labels``
    ``[n, 2]`` on top, below them the two digits a two-digit CapsNet redraws from the two
    capsules it reads (``read`` ``[n, 2]``, ``redrawn`` ``[n, 2, 1, S, S]``, from
    ``reconstruct_each``) in the two colours of ``two_colour``."""
    check_same("draw_segmentation", "length, one row per pair", "pass the labels, the classes "
               "read and the reconstructions of these pairs", pairs=len(pairs),
               labels=len(labels), read=len(read), redrawn=len(redrawn))
    axes = fig.subplots(2, len(pairs), squeeze=False)
    draw_digits(axes[0], pairs[:, 0], [f"true {sorted(pair)}" for pair in labels.tolist()],
                frame=True)
    draw_digits(axes[1], [two_colour(images[:, 0].numpy()) for images in redrawn],
                [f"read {first} / {second}" for first, second in read.tolist()], frame=True)
    first, second = (colour.removeprefix("tab:") for colour in TWO_COLOURS)
    fig.suptitle(f"top: test pairs; bottom: the CapsNet's two reconstructions ({first} = the "
                 f"smaller class read, {second} = the larger)", y=1.0)


@checked
def affine_titles(params: Record(AffineParams),
                  n: Int("maps to title", ge=0, le=MAX_BATCH)) -> list[str]:
    """Short titles of the first ``n`` maps ``random_affine`` drew (its ``params``): the rotation
    in whole degrees, the shear, the two scales."""
    if n > len(params.rotation):
        raise ValueError(f"affine_titles(): n must be at most the {len(params.rotation)} maps "
                         f"params holds, got {n}; pass n <= len(params.rotation)")
    return [f"{round(float(params.rotation[k])):+d}°, sh {params.shear[k]:+.2f}\n"
            f"s {params.scale_x[k]:.2f}x{params.scale_y[k]:.2f}" for k in range(n)]


@checked
def draw_affine_examples(fig: FigureBase, translated: Pixels, affine: Pixels,
                         params: Record(AffineParams)) -> None:
    """The same digits twice on ``fig``: ``translated`` ``[n, 1, S, S]`` on the top row, under
    their affNIST-style maps (``affine`` ``[n, 1, S, S]``, each titled by its map of
    ``params``, which may hold more maps than are drawn: the first ones title them) on the
    bottom row."""
    check_same("draw_affine_examples", "length, one per digit", "pass the digits random_affine "
               "mapped and what it made of them", translated=len(translated), affine=len(affine))
    if len(params.rotation) < len(affine):
        raise ValueError(f"draw_affine_examples(): params must hold a map for each of the "
                         f"{len(affine)} digits of affine, got {len(params.rotation)} maps; pass "
                         "the params random_affine drew with affine")
    axes = fig.subplots(2, len(translated), squeeze=False)
    draw_digits(axes[0], translated[:, 0], frame=True)
    draw_digits(axes[1], affine[:, 0], affine_titles(params, len(affine)), fontsize=8,
                frame=True)
    axes[0, 0].set_ylabel("translated")
    axes[1, 0].set_ylabel("affNIST-style")
    fig.suptitle("the same test digits, as the models are trained (top) and as the affNIST test "
                 "shows them")


@checked
def draw_sweep_examples(fig: FigureBase,
                        digit: Tensor("one MNIST digit [1, 28, 28], pixels in [0, 1]", ndim=3,
                                      pixels=True, sizes={0: 1, 1: 28, 2: 28})) -> None:
    """One MNIST ``digit`` ``[1, 28, 28]`` at every value of each sweep of
    ``transformed_mnist.SWEEPS``, one row per factor, each image titled by its value."""
    columns = max(len(values) for values in transformed_mnist.SWEEPS.values())
    axes = fig.subplots(len(transformed_mnist.SWEEPS), columns, squeeze=False)
    for row, (factor, values) in zip(axes, transformed_mnist.SWEEPS.items(), strict=True):
        images = torch.cat([transformed_mnist._sweep(digit[None], factor, value)
                            for value in values])
        draw_digits(row[:len(values)], images[:, 0], [f"{v:g}" for v in values], fontsize=8,
                    frame=True)
        for ax in row[len(values):]:
            ax.axis("off")
        row[0].set_ylabel(factor)

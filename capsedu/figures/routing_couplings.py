"""The coupling coefficients routing by agreement computes: a heatmap of children by parents
(``draw_coupling_heatmap``, updated in place by ``update_coupling_heatmap`` for the widgets of 04,
07 and 09), one per routing iteration (04), how far they move from uniform iteration by iteration
(``coupling_polarisation.coupling_trace``, 09), and a CapsNet's couplings over its primary
capsules' grid (06).

Procedure 1 itself, drawn as a flow of tensors, is in ``architecture``.
"""

from typing import Annotated

import numpy as np
from matplotlib.figure import FigureBase
from matplotlib.image import AxesImage
from matplotlib.text import Text

from ..capsnet import CapsNetConfig, Output
from ..checks import check_one_each, check_same
from ..coupling_polarisation import CouplingStep
from ..course_settings import MAX_BATCH, MAX_WIDTH, Checked
from ..digit_capsules import couplings_on_grid, grid_extent
from ..refusals import kind_of
from ..routing import MAX_ITERATIONS
from ..units import FontSize
from ..validate import Flag, Int, Numbers, Record, Some, Tensor, check_value, checked
from .canvas import FlatAxes

MAX_COLUMNS = 64  # draw_map_couplings' panels in a row

Class = Int("a class", ge=0, le=MAX_WIDTH)
# couplings [rows, cols] as a heatmap shows them, each a softmax's share, in [0, 1]
Couplings = Numbers("coupling coefficients [rows, cols]", ndim=2, ge=0, le=1)
# what a heatmap shows after it is drawn: couplings, or their sums over the parents (09's zoo
# widget: a bug can make a child's couplings sum past 1)
Shown = Numbers("coupling coefficients, or their sums, [rows, cols]", ndim=2, ge=0)
# the cells of a heatmap left blank, where no coupling was computed (a part not routed)
Blank = Numbers("True where a cell is left blank [rows, cols]", ndim=2, bools=True)
# one label per row or column of a heatmap: the children's or the parents' names or numbers
Labels = list[str | int] | tuple[str | int, ...] | range


def _text_grid(texts, name: str) -> list:
    """The texts of a heatmap's cells, ``[rows][cols]`` matplotlib ``Text``s, as
    ``draw_coupling_heatmap`` returns them ([] for a heatmap without values)."""
    rows = texts if isinstance(texts, list | tuple) else None
    if rows is None or not all(isinstance(row, list | tuple) and len(row) == len(rows[0])
                               and all(isinstance(t, Text) for t in row) for row in rows):
        raise TypeError(f"{name} must be the texts draw_coupling_heatmap returned, rows of "
                        f"matplotlib Text of one length (or [] for none), got "
                        f"{kind_of(texts)[:60]}; pass the texts it returned with the image")
    return list(rows)


@checked
def draw_coupling_heatmap(ax: FlatAxes, c: Couplings, rows: Labels, cols: Labels,
                          title: str | None = None, fontsize: FontSize | None = None,
                          values: Flag("True to write each value in its cell") = True,
                          blank: Blank | None = None):
    """Coupling coefficients ``c`` [rows, cols] as a heatmap with the values written in (none
    with ``values=False``), the cells where ``blank`` is True left blank. Returns the image and
    the texts ``[rows][cols]`` (empty without values), which ``update_coupling_heatmap``
    updates."""
    check_one_each("draw_coupling_heatmap", "rows", rows, c.shape[0], "row of c")
    check_one_each("draw_coupling_heatmap", "cols", cols, c.shape[1], "column of c")
    if blank is not None:
        check_same("draw_coupling_heatmap", "shape", "pass one blank per cell of c", c=c.shape,
                   blank=blank.shape)
    image = ax.imshow(np.zeros((len(rows), len(cols))), cmap="viridis", vmin=0, vmax=1,
                      aspect="auto")
    texts = [[ax.text(j, i, "", ha="center", va="center", fontsize=fontsize)
              for j in range(len(cols))] for i in range(len(rows))] if values else []
    update_coupling_heatmap(image, texts, c, blank)
    ax.set(xticks=range(len(cols)), xticklabels=cols, yticks=range(len(rows)), yticklabels=rows)
    if title:
        ax.set_title(title)
    return image, texts


@checked
def update_coupling_heatmap(image: AxesImage, texts: Checked(
        _text_grid, "the texts draw_coupling_heatmap returned, [rows][cols] Text", "list"),
                            c: Shown, blank: Blank | None = None) -> None:
    """Show the couplings ``c`` [rows, cols] (or their sums) in a ``draw_coupling_heatmap``'s
    image and texts (``[]``: none), the cells where ``blank`` is True left blank."""
    blank = np.zeros(c.shape, bool) if blank is None else blank
    check_same("update_coupling_heatmap", "shape", "pass couplings of the shape the heatmap was "
               "drawn with, and one blank per cell", image=image.get_array().shape, c=c.shape,
               blank=blank.shape)
    if texts and (len(texts), len(texts[0])) != c.shape:
        raise ValueError(f"update_coupling_heatmap(): texts must hold one text per cell of c "
                         f"{c.shape}, got {len(texts)} rows of {len(texts[0])}; pass the texts "
                         "draw_coupling_heatmap returned with image")
    image.set_data(np.ma.masked_array(c, blank))
    for i, row in enumerate(texts):
        for j, text in enumerate(row):
            text.set_text("" if blank[i, j] else f"{c[i, j]:.2f}")
            text.set_color("black" if c[i, j] > 0.6 else "white")


@checked
def draw_couplings_by_iteration(fig: FigureBase,
                                trace: Numbers("couplings [iterations, rows, cols]", ndim=3,
                                               ge=0, le=1, at_least=1),
                                rows: Labels, cols: Labels) -> None:
    """One ``draw_coupling_heatmap`` per iteration: ``trace`` ``[iterations, rows, cols]``."""
    axes = fig.subplots(1, len(trace), sharey=True, squeeze=False)[0]
    for r, (ax, c) in enumerate(zip(axes, trace, strict=True), start=1):
        draw_coupling_heatmap(ax, c, rows, cols, title=f"iteration {r}")
    fig.suptitle("coupling coefficients c_ij (rows sum to 1: softmax over the parents)")
    fig.tight_layout()


COUPLING_STATS = {"entropy": "normalised entropy", "distance": "distance from uniform",
                  "polarised": "share polarised (> 0.9)"}  # coupling_polarisation.CouplingStep's


@checked
def draw_coupling_traces(fig: FigureBase,
                         traces: Annotated[dict[str, Annotated[list[Record(CouplingStep)], Some]],
                                           Some],
                         trained_with: Int("the routing iterations the models were trained with",
                                           ge=1, le=MAX_ITERATIONS) = 3) -> None:
    """One panel per number of ``coupling_polarisation.coupling_trace`` (``COUPLING_STATS``):
    each model's value at every routing iteration (``traces``: name -> trace; a name with
    "permuted" in it dashed), the iterations the models were trained with marked by a grey
    line."""
    axes = fig.subplots(1, len(COUPLING_STATS))
    iterations = range(1, max(len(trace) for trace in traces.values()) + 1)
    for name, trace in traces.items():
        style = "--" if "permuted" in name else "-"
        for ax, stat in zip(axes, COUPLING_STATS, strict=True):
            ax.plot(range(1, len(trace) + 1), [getattr(step, stat) for step in trace], style,
                    marker="o", ms=3, label=name)
    for ax, title in zip(axes, COUPLING_STATS.values(), strict=True):
        ax.axvline(trained_with, color="0.8", zorder=0)
        ax.set(xlabel="routing iteration", title=title, xticks=iterations)
    axes[-1].legend(fontsize=8)
    fig.suptitle(f"grey line: the {trained_with} iterations each model was trained with", y=1.02)


@checked
def draw_couplings_on_grid(fig: FigureBase, out: Output,
                           image: Tensor("the image [28, 28], pixels in [0, 1]", ndim=2,
                                         pixels=True),
                           example: Int("the image's index in the batch", ge=0, le=MAX_BATCH),
                           classes: Annotated[tuple[Class, ...] | list[Class], Some],
                           sizes: Record(CapsNetConfig)) -> None:
    """For each class j of ``classes`` a row: the ``image`` ``[28, 28]`` with the length of its
    capsule j, then the couplings of every primary grid position to j (mean over the maps) at
    each routing iteration, laid over the image where those capsules look (``grid_extent``).
    ``out``: the ``CapsNetOutput`` of a batch of a CapsNet of ``sizes``, ``example`` the image's
    index in it."""
    batch, n_classes = out.lengths.shape
    check_value("draw_couplings_on_grid", "example", Int(f"an image of out's batch of {batch}",
                                                         ge=0, le=batch - 1), example)
    for i, j in enumerate(classes):
        check_value("draw_couplings_on_grid", f"classes[{i}]", Int(
            f"a class of out's {n_classes} classes", ge=0, le=n_classes - 1), j)
    check_same("draw_couplings_on_grid", "primary capsules", "pass the CapsNetConfig of the "
               "model that made out (model.config)", out=out.routing.c.shape[1],
               sizes=sizes.n_primary)
    iterations = len(out.routing.history)
    axes = fig.subplots(len(classes), iterations + 1, squeeze=False)
    extent = grid_extent(sizes)
    for row, j in enumerate(classes):
        # [iterations, maps, grid, grid]; out may come from a forward that kept its gradients
        c = couplings_on_grid(out.routing, example, j, sizes).detach()
        axes[row, 0].imshow(image, cmap="gray")
        axes[row, 0].set_title(f"#{example}: ‖v_{j}‖ = {out.lengths[example, j]:.2f}")
        for r in range(iterations):
            ax = axes[row, r + 1]
            ax.imshow(image, cmap="gray", extent=(0, 28, 28, 0))
            im = ax.imshow(c[r].mean(dim=0), cmap="coolwarm", vmin=0, vmax=0.2, alpha=0.75,
                           extent=extent)
            ax.set(xlim=(0, 28), ylim=(28, 0), title=f"c(i -> {j}), iteration {r + 1}")
    for ax in axes.flat:
        ax.set(xticks=[], yticks=[])
    fig.colorbar(im, ax=axes, shrink=0.6, label="coupling, mean over maps (uniform = 0.1)")


@checked
def draw_map_couplings(fig: FigureBase,
                       c: Tensor("couplings [maps, grid, grid]", ndim=3, finite=True,
                                 within=(0, 1), fix="pass couplings, each a softmax's share"),
                       cols: Int("panels per row", ge=1, le=MAX_COLUMNS) = 8) -> None:
    """The couplings ``c`` ``[maps, grid, grid]`` of every primary map, one panel each, ``cols``
    a row, on one colour scale (uniform coupling to one of ten classes is 0.1)."""
    if not len(c):
        raise ValueError(f"draw_map_couplings(): c must hold at least one map, got shape "
                         f"{tuple(c.shape)}; pass couplings_on_grid's maps")
    rows = -(-len(c) // cols)
    axes = fig.subplots(rows, cols, squeeze=False)
    for m, ax in enumerate(axes.flat):
        ax.set(xticks=[], yticks=[])
        if m < len(c):
            im = ax.imshow(c[m], cmap="coolwarm", vmin=0, vmax=0.2)
            ax.set_title(f"map {m}", fontsize=8)
        else:
            ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="coupling (uniform = 0.1)")

"""Figures turned into pictures for widgets: the PNG bytes of a figure (``png_bytes``), and frames
that redraw only what changed (``Blitter``).

A widget draws into a ``matplotlib.figure.Figure`` (not pyplot, so nothing is shown twice) and
sends the PNG bytes to an ``ipywidgets.Image``: the update is one assignment, and a test can check
the bytes changed. Every widget of ``capsedu.widgets`` (00-10) renders through this module, and
``benchmarks/widgets.py`` times it.
"""

import io
from typing import Annotated

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure, FigureBase
from PIL import Image
from pydantic import AfterValidator, InstanceOf

from .. import course_settings
from ..course_settings import Name
from ..memory import check_memory
from ..validate import Int, checked


def _flat(ax: Axes) -> Axes:
    """What ``FlatAxes`` declares: an Axes of the plane (x and y), on a figure, of linear scales.
    A 3-D one's methods take other arguments (its text a z too), a polar or a map one reads x as
    an angle or a longitude (a figure drawn bent, without a word), a removed one draws nowhere,
    and a log scale (an Axes reused after ``loglog``) drops every value <= 0 without a word (the
    turns under 0 of a rotation curve). A course figure drawn on log axes sets its scale itself,
    after this check (``spikes.draw_readout``)."""
    if ax.name != "rectilinear":
        raise ValueError(f"must be a flat Axes of x and y, got one of projection={ax.name!r}; pass "
                         "fig.add_subplot() without a projection")
    if ax.figure is None:
        raise ValueError("must be an Axes on a figure, got one removed from its figure; pass one "
                         "that fig.add_subplot() made")
    for axis, scale in (("x", ax.get_xscale()), ("y", ax.get_yscale())):
        if scale != "linear":
            raise ValueError(f"must be an Axes of linear scales, got one whose {axis} scale is "
                             f"{scale!r} (it hides every value <= 0); pass a fresh Axes "
                             f"(fig.add_subplot()) or set it back: ax.set_{axis}scale('linear')")
    return ax


# the Axes a figure draws on: of the plane, on a figure, linear (no 3-D, polar, map or log one)
FlatAxes = Annotated[Axes, AfterValidator(_flat)]


@checked
def check_distinct_axes(where: Name, **panels) -> None:
    """Refuse one Axes passed for two panels of a figure (``draw_part_votes(ax, ax, ...)``, or
    ``axes`` holding one twice): both panels would be drawn into it, the second's title and
    labels over the first's, without a word. ``panels``: each argument's name -> its Axes, or
    an array of Axes (``validate.Instances``), whose items are named ``axes[i]``."""
    named = {}
    for name, value in panels.items():
        cells = [(name, value)] if isinstance(value, Axes) else [
            (f"{name}[{', '.join(map(str, index))}]", ax) for index, ax in np.ndenumerate(value)]
        for label, ax in cells:
            if ax in named:
                raise ValueError(f"{where}(): {named[ax]} and {label} must be two Axes, one for "
                                 "each panel, got the same Axes for both (the second panel would "
                                 "be drawn over the first); pass one Axes each, e.g. from "
                                 "plt.subplots(1, 2)")
            named[ax] = label


@checked
def check_on_figure(where: Name, fig: FigureBase, ax: Axes) -> None:
    """Refuse an Axes of another figure than ``fig`` (``draw_capsule_values(fig, ax)`` takes
    both: ``ax`` for the drawing, ``fig`` for its colour bar): the drawing would go to the other
    figure and ``fig`` stay empty, with only matplotlib's warning."""
    if _root_figure(ax) is not _root_figure(fig):
        raise ValueError(f"{where}(): ax must be an Axes of fig, got one of another figure (fig "
                         "would stay empty); pass an Axes fig made, e.g. ax = fig.add_subplot()")

# a PNG's dots per inch: widgets draw at course_settings.WIDGET_DPI (under 100); print quality: 300
MAX_DPI = 1200
# the pixels a side of a picture must stay under: a poster at 300 dpi is 10,000 pixels a side;
# past that, Agg draws for tens of seconds (a figsize given in pixels, read as inches: 400 x 400)
MAX_PIXELS_SIDE = 10_000


def _check_picture_size(where: str, fig: Figure, dpi: float) -> None:
    """Refuse to render ``fig`` at ``dpi`` where the picture would hold no pixel (a side under
    one), or be too large to draw (a side of ``MAX_PIXELS_SIDE`` pixels or more) or to hold in
    memory (4 bytes a pixel), before matplotlib fails deep inside, in words that name no
    argument."""
    inches = fig.get_size_inches()
    width, height = (int(round(side * dpi)) for side in inches)
    if min(inches) * dpi < 1:  # no whole pixel: matplotlib's bare "cannot write empty image"
        raise ValueError(f"{where}(): fig must render at least 1 pixel a side, got "
                         f"{inches[0]:g} x {inches[1]:g} inches at {dpi:g} dpi: under a pixel; "
                         "make the figure larger (figsize, in inches) or pass a higher dpi")
    fix = "make the figure smaller (figsize, in inches) or pass a lower dpi"
    if max(width, height) >= MAX_PIXELS_SIDE:
        raise ValueError(f"{where}(): fig must render under {MAX_PIXELS_SIDE:,} pixels a side, "
                         f"got {inches[0]:g} x {inches[1]:g} inches at {dpi:g} dpi: {width:,} x "
                         f"{height:,} pixels; {fix}")
    check_memory(4 * width * height, f"{where}(): a {width:,} x {height:,}-pixel picture of fig",
                 fix)


@checked
def png_bytes(fig: Figure, dpi: Int("dots per inch", ge=1, le=MAX_DPI) | None = None) -> bytes:
    """Render ``fig`` to PNG bytes at ``dpi`` (default: ``course_settings.WIDGET_DPI``, the
    widgets'); PNG rather than SVG: SVG output embeds a date.

    No ``bbox_inches="tight"``: it draws the figure twice, and widgets redraw on every change;
    lay the figure out once instead (``layout="constrained"`` or ``subplots_adjust``).
    """
    dpi = dpi or course_settings.WIDGET_DPI
    _check_picture_size("png_bytes", fig, dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def _root_figure(artist: Artist) -> Figure | None:
    """The figure ``artist`` is drawn on (a subfigure's parent figure), None when on none; the
    ``.figure`` links up, which every matplotlib the course runs on has."""
    figure = artist.figure
    while figure is not None and figure.figure is not figure:
        figure = figure.figure
    return figure


class Blitter:
    """PNG frames of ``figure`` where only ``artists`` change: everything else is drawn once and
    kept as a background; each frame restores it and draws just those artists over it.

    Every artist that changes between frames must be listed (and must stay inside its axes), or
    it keeps showing its first state.
    """

    @checked
    def __init__(self, figure: Figure,
                 artists: list[InstanceOf[Artist]] | tuple[InstanceOf[Artist], ...]):
        self.figure, self.artists = figure, list(artists)
        strays = [a for a in self.artists if _root_figure(a) is not figure]
        if strays:  # drawn on this figure's canvas, it would show nothing of it, without a word
            raise ValueError(f"Blitter(): artists must be artists of figure, got a "
                             f"{type(strays[0]).__name__} of another figure; pass the artists "
                             "drawn on figure's axes")
        _check_picture_size("Blitter", figure, figure.dpi)
        for artist in self.artists:
            artist.set_animated(True)  # left out of the full draw, which is the background
        self.canvas = FigureCanvasAgg(figure)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(figure.bbox)

    def png(self) -> bytes:
        self.canvas.restore_region(self.background)
        for artist in self.artists:
            self.figure.draw_artist(artist)
        buf = io.BytesIO()
        Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(buf, format="png",
                                                                    compress_level=1)
        return buf.getvalue()

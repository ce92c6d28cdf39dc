"""Plotting helpers shared by notebooks and widgets.

Widgets draw into a ``matplotlib.figure.Figure`` (not pyplot, so nothing is shown twice) and send
the PNG bytes to an ``ipywidgets.Image``: the update is one assignment, and a test can check the
bytes changed.
"""

import io

from matplotlib.figure import Figure


def png_bytes(fig: Figure, dpi: int = 80) -> bytes:
    """Render ``fig`` to PNG bytes (PNG rather than SVG: SVG output embeds a date).

    No ``bbox_inches="tight"``: it draws the figure twice, and widgets redraw on every change;
    lay the figure out once instead (``layout="constrained"`` or ``subplots_adjust``).
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def draw_vector(ax, x: float, y: float, color="tab:blue", label=None):
    """An arrow from the origin to (x, y) on a square unit-circle canvas."""
    ax.annotate("", xy=(x, y), xytext=(0, 0),
                arrowprops=dict(arrowstyle="-|>", color=color, lw=2.5, mutation_scale=20))
    if label:
        ax.text(x * 1.12, y * 1.12, label, color=color, ha="center", va="center")
    ax.add_patch(_unit_circle())
    ax.set(xlim=(-1.25, 1.25), ylim=(-1.25, 1.25), aspect="equal", xticks=[], yticks=[])


def _unit_circle():
    from matplotlib.patches import Circle

    return Circle((0, 0), 1.0, fill=False, ls="--", color="0.7")


# One colour per face part, the same in every figure of the course.
PART_COLORS = {"left_eye": "tab:blue", "right_eye": "tab:orange", "nose": "tab:green",
               "mouth": "tab:red", "stroke": "0.6"}


def ghost_lines(ghosts: dict) -> tuple[list, list]:
    """The line segments ``[n, 2, 2]`` of ghost faces and one colour per segment: ``ghosts``
    maps a part kind to the face pose (x, y, angle, scale) it predicts."""
    from .data import faces

    segments, colors = [], []
    for kind, pose in ghosts.items():
        lines = faces.segments(faces.face_parts(*pose)).reshape(-1, 2, 2)
        segments.extend(lines)
        colors += [PART_COLORS[kind]] * len(lines)
    return segments, colors


def draw_scene(ax, parts, size: int = 96, ghosts=None):
    """The rendered parts (grey) and, optionally, ghost faces: ``ghosts`` maps a part kind to the
    face pose (x, y, angle, scale) it predicts, drawn as a face outline in that part's colour."""
    from matplotlib.collections import LineCollection

    from .data import faces

    ax.imshow(faces.render(parts, size=size), cmap="gray", extent=(0, 1, 1, 0), vmin=0, vmax=1,
              interpolation="nearest")
    segments, colors = ghost_lines(ghosts or {})
    ax.add_collection(LineCollection(segments, colors=colors, alpha=0.6, lw=1.5))
    for kind, pose in (ghosts or {}).items():
        ax.plot(pose[0], pose[1], "+", color=PART_COLORS[kind], ms=10, mew=2)
    ax.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])


def coupling_heatmap(ax, c, rows, cols, title=None):
    """Coupling coefficients ``c`` [rows, cols] as a heatmap with the values written in."""
    ax.imshow(c, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            ax.text(j, i, f"{c[i, j]:.2f}", ha="center", va="center",
                    color="black" if c[i, j] > 0.6 else "white")
    ax.set(xticks=range(len(cols)), xticklabels=cols, yticks=range(len(rows)), yticklabels=rows)
    if title:
        ax.set_title(title)


def draw_detections(ax, image, poses, presence, threshold: float = 0.5):
    """``image`` ``[H, W]`` with each detected part (presence > ``threshold``) drawn as a dot in
    its colour and an arrow along its "up" direction (the part frame's -y axis, turned by its
    angle). ``poses`` ``[4, 4]`` (x, y, angle, scale), ``presence`` ``[4]``, in PART_KINDS order."""
    import numpy as np

    from .data import faces

    ax.imshow(image, cmap="gray", extent=(0, 1, 1, 0), vmin=0, vmax=1)
    for kind, (x, y, angle, _), p in zip(faces.PART_KINDS, poses, presence, strict=True):
        if p > threshold:
            # "up" in the part's frame is (0, -1); on screen it turns to (-sin a, -cos a)
            a = np.radians(float(angle))
            ax.annotate("", xy=(x - 0.1 * np.sin(a), y - 0.1 * np.cos(a)), xytext=(x, y),
                        arrowprops=dict(arrowstyle="-|>", color=PART_COLORS[kind], lw=2))
            ax.plot(x, y, "o", color=PART_COLORS[kind], ms=5)
    ax.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])


class Blitter:
    """PNG frames of ``figure`` where only ``artists`` change: everything else is drawn once and
    kept as a background; each frame restores it and draws just those artists over it.

    Every artist that changes between frames must be listed (and must stay inside its axes), or
    it keeps showing its first state.
    """

    def __init__(self, figure: Figure, artists):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure, self.artists = figure, list(artists)
        for artist in self.artists:
            artist.set_animated(True)  # left out of the full draw, which is the background
        self.canvas = FigureCanvasAgg(figure)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(figure.bbox)

    def png(self) -> bytes:
        import numpy as np
        from PIL import Image

        self.canvas.restore_region(self.background)
        for artist in self.artists:
            self.figure.draw_artist(artist)
        buf = io.BytesIO()
        Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(buf, format="png",
                                                                    compress_level=1)
        return buf.getvalue()

"""Plotting helpers shared by notebooks and widgets.

Widgets draw into a ``matplotlib.figure.Figure`` (not pyplot, so nothing is shown twice) and send
the PNG bytes to an ``ipywidgets.Image``: the update is one assignment, and a test can check the
bytes changed.
"""

import io

from matplotlib.figure import Figure


def png_bytes(fig: Figure, dpi: int = 80) -> bytes:
    """Render ``fig`` to PNG bytes (PNG rather than SVG: SVG output embeds a date)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
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

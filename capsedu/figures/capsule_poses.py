"""A capsule's vector and the pose it describes (02): the vector as an arrow on the unit circle
(``draw_vector``, also drawn by the widgets of 00, 02 and 03), the part a 2-D capsule describes
(``draw_pose_vectors``), the parts 5-D capsules decode to (``draw_decoded_poses``) and a bank of
turned templates (``draw_templates``).

How a capsule's length is made and read is in ``capsule_lengths``; what turns with the input, in
``rotations``.
"""

import math
from typing import Annotated

import numpy as np
from matplotlib.figure import FigureBase
from matplotlib.patches import Circle

from ..capsule_vectors import decode_pose, draw, part_from_vector, pose_vector
from ..checks import check_same
from ..data.faces import PART_KINDS
from ..data.sprites import STROKE, Part
from ..units import InDegrees, Points
from ..validate import Choice, Float, Numbers, Record, Some, Tensor, checked
from .canvas import FlatAxes
from .colours import Colour

Kind = Choice("a kind of part", *PART_KINDS, STROKE)


@checked
def draw_vector(ax: FlatAxes, x: Float("the arrow's x"), y: Float("the arrow's y"),
                color: Colour = "tab:blue", label: str | None = None,
                head: Points("the size of the arrow's head") = 20):
    """An arrow from the origin to (x, y) on a square unit-circle canvas, widened to show an
    arrow longer than 1 whole; ``head``: the size of its head in points (smaller for an arrow
    drawn short on a larger canvas, which a full-size head would hide)."""
    ax.annotate("", xy=(x, y), xytext=(0, 0),
                arrowprops=dict(arrowstyle="-|>", color=color, lw=2.5, mutation_scale=head))
    if label:
        ax.text(x * 1.12, y * 1.12, label, color=color, ha="center", va="center")
    ax.add_patch(_unit_circle())
    reach = 1.25 * max(1.0, math.hypot(x, y))  # the unit circle, or the arrow and its label
    ax.set(xlim=(-reach, reach), ylim=(-reach, reach), aspect="equal", xticks=[], yticks=[])


def _unit_circle():
    return Circle((0, 0), 1.0, fill=False, ls="--", color="0.7")


@checked
def draw_part(ax: FlatAxes, part: Record(Part),
              presence: Float("the ink, a capsule's length in [0, 1]", ge=0, le=1 + 1e-6),
              title: str) -> None:
    """One part drawn with ink ``presence`` (``capsule_vectors.draw``), titled, without ticks."""
    ax.imshow(draw(part, presence), cmap="gray", vmin=0, vmax=1)
    ax.set(xticks=[], yticks=[], title=title)


@checked
def draw_pose_vectors(fig: FigureBase,
                      examples: Annotated[list[tuple[Annotated[Float("an angle in degrees"),
                                                               InDegrees],
                                                     Float("a presence", ge=0, le=1)]], Some],
                      kind: Kind = "nose"):
    """Top row: each 2-D capsule of ``examples`` (a list of ``(angle in degrees, presence)``) as
    an arrow; bottom row: the ``kind`` part it describes. Returns the axes ``[2, n]``."""
    axes = fig.subplots(2, len(examples), squeeze=False)
    for (angle, presence), ax_v, ax_part in zip(examples, *axes, strict=True):
        v = pose_vector(angle, presence)
        draw_vector(ax_v, float(v[0]), float(v[1]))
        ax_v.set_title(f"v = ({v[0]:+.2f}, {v[1]:+.2f})")
        part, p = part_from_vector(kind, v)
        draw_part(ax_part, part, p, f"{kind} at {part.angle:.0f}°, p = {p:.2f}")
    fig.suptitle("top: the capsule's vector (dashed: length 1); bottom: the part it describes")
    return axes


@checked
def draw_decoded_poses(fig: FigureBase, kind: Kind,
                       vectors: Numbers("5-D capsules, one per panel [n, 5]", ndim=2, last=5,
                                        at_least=1)) -> None:
    """One panel per 5-D capsule of ``vectors`` (each ``[5]``): the ``kind`` part it decodes to
    (``capsule_vectors.decode_pose``), drawn with ink = its length."""
    if ((lengths := np.linalg.norm(vectors, axis=-1)) > 1 + 1e-6).any():  # as decode_pose's
        raise ValueError(f"draw_decoded_poses(): vectors must be capsules of length at most 1 "
                         f"(a length is the part's presence, a probability), got length "
                         f"{lengths.max():.4g} (vectors[{int(lengths.argmax())}]); squash them "
                         "first: squash(v)")
    axes = fig.subplots(1, len(vectors), squeeze=False)[0]
    for ax, v in zip(axes, vectors, strict=True):
        part, p = decode_pose(kind, v)
        draw_part(ax, part, p, f"||v|| = {p:.1f}, angle {part.angle:.0f}°")


@checked
def draw_templates(fig: FigureBase,
                   templates: Tensor("template images [n, 1, h, w]", ndim=4, pixels=True),
                   angles: Annotated[Tensor("their angles in degrees [n]", ndim=1, finite=True),
                                     InDegrees]) -> None:
    """A row of template images ``[n, 1, h, w]``, at least one, each titled with its angle
    ``[n]``."""
    if not len(templates):
        raise ValueError("draw_templates(): templates must hold at least one template, got shape "
                         f"{tuple(templates.shape)}; pass template_bank's templates")
    check_same("draw_templates", "length", "pass one angle per template",
               templates=len(templates), angles=len(angles))
    axes = fig.subplots(1, len(templates), squeeze=False)[0]
    for ax, t, a in zip(axes, templates, angles, strict=True):
        ax.imshow(t[0], cmap="gray")
        ax.set(xticks=[], yticks=[], title=f"{a:.0f}°")

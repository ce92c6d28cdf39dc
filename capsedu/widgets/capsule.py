"""Notebooks 02 and 03: one capsule's vector, live.

* ``PoseVectorExplorer`` (02): sliders turn and stretch a 2-D pose vector; the arrow, the part it
  describes (drawn with ink = presence) and the numbers follow.
* ``SquashExplorer`` (03): a slider over ||s|| (and one over its direction); the squash curve with
  a marker, the arrows s and v = squash(s), and the numbers follow.

The callbacks call the pure functions ``pose_vector_state`` and ``squash_state`` and keep their
result (a ``PoseVectorState`` or ``SquashState`` record) in ``.state``.
"""

import math
from dataclasses import dataclass
from typing import Annotated

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from ..capsule_vectors import draw, part_from_vector, pose_vector
from ..data.faces import PART_KINDS, PartKind
from ..data.sprites import Part
from ..derived import check_derived
from ..figures.canvas import png_bytes
from ..figures.capsule_poses import draw_vector
from ..functional import squash
from ..poses import wrap_angle
from ..units import InDegrees
from ..validate import Array, CheckedRecord, Float, Numbers, Record, checked
from .base import Widget
from .sliders import Dropdown, FloatSlider

IMAGE_SIZE = 48  # pixels of the drawn part
MAX_NORM = 5.0  # the squash slider's range of ||s||

# what each widget's sliders take, declared once for the widget and its pure function
PoseAngle = Annotated[Float("the pose's angle in degrees", ge=-180, le=180), InDegrees]
Presence = Float("the vector's length: the part's presence", ge=0, le=1)
Norm = Float("the length ||s||", ge=0, le=MAX_NORM)
Direction = Annotated[Float("s's angle in degrees", ge=0, le=360), InDegrees]
# a length of a capsule (1e-6 over for a length's rounding); a 2-D vector as a list (x, y)
Length = Float("the vector's length: the part's presence", ge=0, le=1 + 1e-6)
Vector = Numbers("a 2-D vector [x, y]", shape=(2,))


def _slider(description: str, value: float, low: float, high: float, step: float):
    """A slider of this module's widgets: 320 px wide, labelled ``description``."""
    return FloatSlider(value=value, min=low, max=high, step=step,
                       description=description, layout=widgets.Layout(width="320px"))


def _redraw_vector(ax, x: float, y: float, **kwargs):
    """Replace the arrow on ``ax`` (cheaper than clearing the axes and setting them up again)."""
    for artist in [*ax.texts, *ax.patches]:
        artist.remove()
    draw_vector(ax, x, y, **kwargs)


@dataclass(frozen=True)
class PoseVectorState(CheckedRecord):
    """What notebook 02's widget shows (``pose_vector_state``): one part's 2-D capsule."""

    kind: PartKind  # the face part the capsule stands for
    angle: PoseAngle  # the vector's direction in degrees: the part's pose
    presence: Length  # the vector's length: the probability the part is present
    x: Float("the vector's first component")
    y: Float("the vector's second component")
    part: Record(Part, "capsule_vectors.part_from_vector(kind, v)")  # what the vector describes
    image: Array("the part drawn with ink = presence [size, size]", ndim=2)

    def __post_init__(self):
        super().__post_init__()  # and the part, its pose and its ink the vector's
        # the angles compared as directions: -180 and 180 are one (the part's is wrapped)
        if self.part.kind != self.kind or abs(wrap_angle(self.part.angle - self.angle)) > 1e-3:
            raise ValueError(f"PoseVectorState(): part must be the {self.kind} at angle "
                             f"{self.angle:g}, got {self.part}; pass part_from_vector(kind, v)")
        if not math.isclose(math.hypot(self.x, self.y), self.presence, abs_tol=1e-5):
            raise ValueError(f"PoseVectorState(): presence must be the length of (x, y) "
                             f"({math.hypot(self.x, self.y):.4f}), got {self.presence:.4f}; "
                             "pass pose_vector_state(kind, angle, length)")


@checked
def pose_vector_state(kind: PartKind, angle: PoseAngle, length: Presence) -> PoseVectorState:
    """A 2-D capsule for ``kind`` at ``angle`` degrees with length (= presence) ``length``."""
    v = pose_vector(angle, length)
    part, presence = part_from_vector(kind, v)
    return PoseVectorState(kind, angle, presence, float(v[0]), float(v[1]), part,
                           draw(part, presence, IMAGE_SIZE))


class PoseVectorExplorer(Widget):
    """Turn and stretch a pose vector; the part it describes is redrawn with ink = its length."""

    figure_alt = (
        "Left: the capsule's 2-D vector as an arrow from the centre of a dashed unit circle, its "
        "length the part's presence and its direction the part's pose; right: the face part it "
        "describes, turned to the arrow's angle and drawn with ink as bright as the arrow is long.")

    @checked
    def __init__(self, kind: PartKind = "nose", angle: PoseAngle = 30.0, length: Presence = 0.8):
        self.kind = Dropdown(options=PART_KINDS, value=kind,
                             description="part", layout=widgets.Layout(width="320px"))
        self.angle = _slider("angle (°)", angle, -180, 180, 5)
        self.length = _slider("length", length, 0, 1, 0.05)
        self.readout, self.image = widgets.HTML(), widgets.Image(format="png", width=480)
        self.figure = Figure(figsize=(6, 3))
        self.ax_v, self.ax_part = self.figure.subplots(1, 2)
        # the part's image is one artist, refilled at each update (faster than redrawing)
        self.part_image = self.ax_part.imshow(np.zeros((IMAGE_SIZE, IMAGE_SIZE)), cmap="gray",
                                              vmin=0, vmax=1)
        self.ax_part.set(xticks=[], yticks=[])
        self.ax_v.set_title("the capsule's vector")
        for control in (self.kind, self.angle, self.length):
            control.observe(self._changed, names="value")
        self.widget = widgets.VBox([self.kind, self.angle, self.length, self.readout, self.image])
        self.update()

    def update(self):
        self.state = s = pose_vector_state(self.kind.value, self.angle.value, self.length.value)
        self.readout.value = (
            f"<b>{s.kind}</b>: v = ({s.x:+.2f}, {s.y:+.2f}); "
            f"length ||v|| = {s.presence:.2f} = P(present); direction {s.angle:.0f}° = pose")
        _redraw_vector(self.ax_v, s.x, s.y, label="v")
        self.part_image.set_data(s.image)
        self.ax_part.set_title(f"the {s.kind} it describes")
        self.image.value = png_bytes(self.figure)


LENGTH_TOLERANCE = 1e-6  # how far a recorded length may be from its vector's (float rounding)


@dataclass(frozen=True)
class SquashState(CheckedRecord):
    """What notebook 03's widget shows (``squash_state``): one vector ``s`` and ``squash(s)``."""

    norm_s: Norm  # ||s||
    angle: Direction  # s's (and v's) direction in degrees
    s: Vector  # the input
    v: Vector  # the output squash(s)
    norm_v: Float("||v|| = ||s||^2 / (1 + ||s||^2)", ge=0, lt=1)
    slope: Float("d||v|| / d||s|| = 2 ||s|| / (1 + ||s||^2)^2", ge=0)

    def __post_init__(self):
        super().__post_init__()  # and ||s|| and ||v|| the lengths of s and v
        for name, vector, norm in (("norm_s", self.s, self.norm_s), ("norm_v", self.v,
                                                                      self.norm_v)):
            length = math.hypot(*vector)
            if not math.isclose(length, norm, abs_tol=LENGTH_TOLERANCE):  # 7 decimals show it
                raise ValueError(f"SquashState(): {name} must be the length of {name[-1]}, "
                                 f"{length:.7f} (within {LENGTH_TOLERANCE:g}), got {norm:.7f}, "
                                 f"off by {abs(length - norm):.1e}; pass squash_state(norm, "
                                 "angle)")
        n, a = self.norm_s, math.radians(self.angle)  # and v squash(s), s at angle
        check_derived("SquashState", "pass squash_state(norm, angle)", LENGTH_TOLERANCE, **{
            "s[0]": (self.s[0], n * math.cos(a), "||s|| cos(angle)"),
            "s[1]": (self.s[1], n * math.sin(a), "||s|| sin(angle)"),
            "norm_v": (self.norm_v, n**2 / (1 + n**2), "||s||^2 / (1 + ||s||^2)"),
            "v[0]": (self.v[0], self.norm_v * math.cos(a), "||v|| cos(angle)"),
            "v[1]": (self.v[1], self.norm_v * math.sin(a), "||v|| sin(angle)"),
            "slope": (self.slope, 2 * n / (1 + n**2) ** 2, "2 ||s|| / (1 + ||s||^2)^2")})


@checked
def squash_state(norm: Norm, angle: Direction = 30.0) -> SquashState:
    """``s`` of length ``norm`` at ``angle`` degrees, ``v = squash(s)``, and the slope there."""
    a = math.radians(angle)
    s = torch.tensor([norm * math.cos(a), norm * math.sin(a)], dtype=torch.float64)
    v = squash(s)
    return SquashState(norm_s=norm, angle=angle, s=s.tolist(), v=v.tolist(),
                       norm_v=float(v.norm()), slope=2 * norm / (1 + norm**2) ** 2)


class SquashExplorer(Widget):
    """Drag ||s|| along the squash curve; the arrows s and v = squash(s) follow."""

    figure_alt = (
        "Three panels: the squash curve, the output length ‖v‖ against the input length ‖s‖ from 0 "
        "to 5, rising towards a dotted line at 1, with a red dot at the slider's ‖s‖; the input s "
        "as a grey arrow, with a dashed circle of radius 1; and the output v = squash(s) as a red "
        "arrow in a dashed unit circle. The two arrows point the same way: squashing changes only "
        "the length.")

    @checked
    def __init__(self, norm: Norm = 1.0, angle: Direction = 30.0):
        self.norm = _slider("||s||", norm, 0, MAX_NORM, 0.05)
        self.angle = _slider("angle (°)", angle, 0, 360, 5)
        self.readout, self.image = widgets.HTML(), widgets.Image(format="png", width=720)
        self.figure = Figure(figsize=(9, 3), layout="constrained")  # room for the axis labels
        ax_curve, self.ax_s, self.ax_v = self.figure.subplots(1, 3)
        r = torch.linspace(0, MAX_NORM, 201, dtype=torch.float64)
        # the curve ||v|| = ||s||^2 / (1 + ||s||^2) is drawn once; only the marker moves
        ax_curve.plot(r, r**2 / (1 + r**2), color="tab:blue")
        (self.marker,) = ax_curve.plot([0], [0], "o", color="tab:red")
        ax_curve.axhline(1, ls=":", color="0.6")
        ax_curve.set(xlabel="||s||", ylabel="||v||", ylim=(-0.05, 1.05), title="squash")
        self.ax_s.set_title("input s")
        self.ax_v.set_title("output v = squash(s)")
        for control in (self.norm, self.angle):
            control.observe(self._changed, names="value")
        self.widget = widgets.VBox([self.norm, self.angle, self.readout, self.image])
        self.update()

    def update(self):
        self.state = st = squash_state(self.norm.value, self.angle.value)
        self.readout.value = (
            f"||s|| = {st.norm_s:.2f} &rarr; ||v|| = {st.norm_v:.3f}; "
            f"slope d||v||/d||s|| = {st.slope:.3f}; same direction ({st.angle:.0f}°)")
        self.marker.set_data([st.norm_s], [st.norm_v])
        lim = 1.1 * MAX_NORM  # s lives on a larger canvas; the dashed circle is still ||s|| = 1
        # the head shrinks with the arrow's drawn length (the unit canvas spans 1.25), so a short s
        # is still an arrow, not a triangle
        head = max(6.0, 20 * min(1.0, 1.25 * st.norm_s / lim))
        _redraw_vector(self.ax_s, *st.s, color="tab:gray", label="s", head=head)
        self.ax_s.set(xlim=(-lim, lim), ylim=(-lim, lim))
        _redraw_vector(self.ax_v, *st.v, color="tab:red", label="v")
        self.image.value = png_bytes(self.figure)


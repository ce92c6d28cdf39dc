"""Notebook 00: a slider turns an arrow, to prove that widgets render and respond."""

import math
from dataclasses import dataclass
from typing import Annotated

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..figures.canvas import png_bytes
from ..figures.capsule_poses import draw_vector
from ..units import InDegrees
from ..validate import CheckedRecord, Float, Int, checked
from .base import Widget
from .sliders import IntSlider

Angle = Annotated[Float("degrees counter-clockwise from the x axis", ge=0, le=360), InDegrees]
Component = Float("a unit vector's component", ge=-1, le=1)


@dataclass(frozen=True)
class ArrowState(CheckedRecord):
    """What notebook 00's widget shows (``arrow_state``): the unit vector at one angle."""

    angle: Angle
    x: Component  # cos(angle)
    y: Component  # sin(angle)

    def __post_init__(self):
        super().__post_init__()  # and (x, y) the unit vector at angle
        a = math.radians(self.angle)
        if not math.isclose(self.x, math.cos(a), abs_tol=1e-6) or not math.isclose(
                self.y, math.sin(a), abs_tol=1e-6):
            raise ValueError(f"ArrowState(): x, y must be cos(angle), sin(angle) (angle="
                             f"{self.angle:g}: {math.cos(a):.4f}, {math.sin(a):.4f}), got x="
                             f"{self.x:.4f}, y={self.y:.4f}; pass arrow_state(angle)")


@checked
def arrow_state(angle: Angle) -> ArrowState:
    """The unit vector at ``angle`` degrees (counter-clockwise from the x axis)."""
    rad = math.radians(angle)
    return ArrowState(angle, math.cos(rad), math.sin(rad))


class WidgetCheck(Widget):
    """Notebook 00's proof that widgets work: a slider turns an arrow and the numbers follow."""

    figure_alt = ("An arrow from the centre of a dashed unit circle to the point at the slider's "
                  "angle, counted counter-clockwise from the x axis, labelled with the angle.")

    @checked
    def __init__(self, angle: Int("the slider's angle in degrees", ge=0, le=360) = 30):
        self.slider = IntSlider(value=angle, min=0, max=360, step=5,
                                description="angle (°)", continuous_update=True)
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png", width=260)
        self.figure = Figure(figsize=(3, 3), layout="constrained")
        self.slider.observe(self._changed, names="value")
        self.widget = widgets.VBox([self.slider, self.readout, self.image])
        self.update()

    def update(self):
        self.state = s = arrow_state(self.slider.value)
        self.readout.value = (f"<b>angle {s.angle:g}°</b>: vector = ({s.x:+.2f}, "
                              f"{s.y:+.2f}), length {math.hypot(s.x, s.y):.2f}")
        self.figure.clear()
        draw_vector(self.figure.add_subplot(), s.x, s.y, label=f"{s.angle:g}°")
        self.image.value = png_bytes(self.figure)

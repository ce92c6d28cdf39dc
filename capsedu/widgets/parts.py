"""Controls that edit a face's parts: pick a part, move or turn it, swap two parts, scramble,
turn the whole face, reset. Notebooks 01, 04 and 07 put different views next to the same editor.

The editor owns the list of parts (``.parts``); after every edit it calls ``on_change(parts)``.
All edits go through the pure functions of ``capsedu.data.faces``, so tests can check them alone.
"""

from collections.abc import Callable
from typing import Annotated

import ipywidgets as widgets

from ..checks import check_takes
from ..course_settings import Name, Seed
from ..data import faces, sprites
from ..data.sprites import ChosenParts, Parts
from ..poses import wrap_angle
from ..units import InDegrees
from ..validate import Float, checked
from .controls import Owner
from .sliders import Dropdown, FloatSlider


class PartsEditor(Owner):
    """Edit a list of ``sprites.Part``; ``on_change(parts)`` runs after every edit. ``owner``:
    the widget a learner passed ``parts`` to, which a refusal of them names (e.g.
    "RoutingExplorer"), where the editor is part of one. Its controls are its own (``Owner``):
    bounded by the ranges it computes and named as its attributes ("PartsEditor.x", or
    "FaceVerdicts.editor.x" inside a widget)."""

    @checked
    def __init__(self, parts: ChosenParts | None = None, on_change: Callable | None = None,
                 seed: Seed = 0, owner: Name = "PartsEditor"):
        self.initial = list(parts) if parts is not None else faces.face_parts()
        if on_change is not None:  # refused now, not at the first edit
            check_takes(on_change, "PartsEditor(): on_change", 1,
                        "as on_change(parts), called with the parts after every edit")
        self.on_change = on_change
        self.seed = seed  # the next scramble's seed; increases at each press, so runs repeat
        layout = widgets.Layout(width="260px")
        self.part = Dropdown(options=faces.PART_KINDS, description="part", layout=layout)
        self.x = FloatSlider(min=0, max=1, step=0.01, description="x", layout=layout)
        self.y = FloatSlider(min=0, max=1, step=0.01, description="y", layout=layout)
        self.angle = FloatSlider(min=-180, max=180, step=5, description="angle (°)",
                                 layout=layout)
        self.swap_with = Dropdown(options=faces.PART_KINDS,
                                  value="mouth", description="swap with", layout=layout)
        self.swap_button = widgets.Button(description="swap")
        self.scramble_button = widgets.Button(description="scramble", icon="random")
        self.rotate_button = widgets.Button(description="turn face 30°", icon="repeat")
        self.reset_button = widgets.Button(description="reset", icon="undo")
        self._syncing = False
        self.part.observe(lambda _: self._show_selected(), names="value")
        for slider in (self.x, self.y, self.angle):
            slider.observe(self._slider_moved, names="value")
        self.swap_button.on_click(lambda _: self.swap(self.part.value, self.swap_with.value))
        self.scramble_button.on_click(lambda _: self.scramble())
        self.rotate_button.on_click(lambda _: self.rotate(30))
        self.reset_button.on_click(lambda _: self.set_parts(self.initial))
        self.widget = widgets.VBox([
            self.part, self.x, self.y, self.angle,
            widgets.HBox([self.swap_with, self.swap_button]),
            widgets.HBox([self.scramble_button, self.rotate_button, self.reset_button]),
        ])
        self._load(self.initial, owner)

    # --- edits: each one replaces self.parts and notifies -------------------------------------
    @checked
    def set_parts(self, parts: Parts):
        """Replace the scene (it may hold fewer than four face parts, but at least one, and at
        most one of each kind)."""
        self._load(parts, "PartsEditor.set_parts")
        if self.on_change:
            self.on_change(self.parts)

    @checked
    def move(self, kind: str, x: Float("x, a fraction of the width", ge=0, le=1) | None = None,
             y: Float("y, a fraction of the height", ge=0, le=1) | None = None,
             angle: Annotated[Float("degrees", ge=-180, le=180), InDegrees] | None = None):
        """Move and/or turn the part ``kind`` (values out of range raise ``ValueError``)."""
        self._held("move", kind=kind)
        new = {k: v for k, v in dict(x=x, y=y, angle=angle).items() if v is not None}
        self.set_parts([p._replace(**new) if p.kind == kind else p for p in self.parts])

    @checked
    def swap(self, a: str, b: str):
        self._held("swap", a=a, b=b)
        self.set_parts(faces.swap(self.parts, a, b))

    def scramble(self):
        self.seed += 1
        self.set_parts(faces.scramble(self.parts, self.seed))

    @checked
    def rotate(self, degrees: Annotated[Float("degrees, counter-clockwise on screen"),
                                        InDegrees]):
        turned = faces.rotate(self.parts, degrees, about=faces.face_centre(self.parts))
        if off := sprites._outside(turned):
            raise ValueError(f"PartsEditor.rotate(): degrees must keep every face part in the "
                             f"image (x and y from 0 to 1), got {degrees:g}, which turns "
                             f"{off.kind} to x={off.x:.2f}, y={off.y:.2f}; turn by less, or move "
                             "the parts nearer the centre first")
        self.set_parts(turned)

    # --- keeping the controls on the scene ----------------------------------------------------
    def _held(self, method: str, **kinds: str):
        """Refuse a part kind the scene does not hold: nothing would move, without a word."""
        held = [p.kind for p in self.parts]
        for name, kind in kinds.items():
            if kind not in held:
                raise ValueError(f"PartsEditor.{method}(): {name} must be a part of the scene "
                                 f"{held}, got {kind!r}; pick one it holds")

    def _load(self, parts, where: str):
        """Show ``parts``, refused (naming ``where``) without a face part, with a kind twice
        (the controls pick a part by its kind, and would move both noses of two), or with a face
        part outside the image (where the x and y sliders, 0 to 1, cannot show it)."""
        parts = sprites._one_each(parts, where, "parts")
        kinds = tuple(k for k in faces.PART_KINDS if any(p.kind == k for p in parts))
        if not kinds:
            raise ValueError(f"{where}(): parts must hold at least one face part of "
                             f"{faces.PART_KINDS}, got {[p.kind for p in parts]}; pass e.g. "
                             "faces.face_parts()")
        if off := sprites._outside(parts):
            raise ValueError(f"{where}(): parts must place each face part in the image (x and y "
                             f"from 0 to 1, as the editor's sliders run), got {off.kind} at "
                             f"x={off.x:g}, y={off.y:g}; move it into the image")
        self.parts = parts
        if kinds != self.part.options:  # offer only the parts the scene holds, the first chosen
            self.part.replace_options(kinds)
            self.swap_with.replace_options(kinds)
        self._show_selected()

    def _selected(self) -> sprites.Part:
        return next(p for p in self.parts if p.kind == self.part.value)

    def _show_selected(self):
        p = self._selected()
        self._syncing = True  # setting the sliders must not count as an edit
        self.x.value, self.y.value, self.angle.value = p.x, p.y, wrap_angle(p.angle)
        self._syncing = False

    def _slider_moved(self, change):
        if not self._syncing:
            self.move(self.part.value, x=self.x.value, y=self.y.value, angle=self.angle.value)

"""The panels that notebooks 04 and 07 draw beside the parts editor: the scene with each part's
predicted face (a ghost), the coupling coefficients part -> parent, the parents' lengths per
routing iteration and, in 07, every model's verdict.

The artists are made once; an update only changes their data and redraws those artists over a
saved background (blitting), so it costs a fraction of a full matplotlib draw.
"""

from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from .. import course_settings
from ..checks import check_same
from ..course_settings import MAX_SIDE, MIN_SIDE, Text
from ..data import faces
from ..data.faces import PartKind
from ..data.sprites import ChosenParts
from ..figures.canvas import Blitter
from ..figures.colours import PART_COLORS
from ..figures.face_scenes import ghost_lines
from ..figures.routing_couplings import draw_coupling_heatmap, update_coupling_heatmap
from ..parts.voting import PARENTS, ParentLengths, Pose
from ..routing import MAX_ITERATIONS
from ..validate import Array, CheckedRecord, Float, Int, Numbers, Record, checked
from .base import Widget
from .parts import PartsEditor
from .sliders import IntSlider
from .verdicts import Names, VerdictBars

SLIDER_ITERATIONS = 5  # the iteration sliders run 1..5 (routing itself allows MAX_ITERATIONS)
Iteration = Int("routing iterations", ge=1, le=SLIDER_ITERATIONS)
FaceThreshold = Float("the face capsule's length that counts as a face", ge=0, le=1)


@dataclass(frozen=True)
class RoutingView(CheckedRecord):
    """What ``RoutingPanels`` draws and ``RoutingWidget`` reads out: parts routed to the parents
    (face, background) for ``iteration`` iterations. Notebook 04's ``RoutingState`` and notebook
    07's ``FaceState`` extend it."""

    iteration: Int("the routing iterations run", ge=1, le=MAX_ITERATIONS)
    image: Array("the scene (any size, drawn over the unit square)", ndim=2)
    found: list[PartKind]  # the part kinds routed: the rows of ``c``
    predictions: dict[PartKind, Pose]  # part kind -> the face pose it predicts
    c: Numbers("the couplings part -> parent used in the last iteration [found, 2]", ndim=2,
               last=2, ge=0, le=1)
    c_face: dict[PartKind, Float("a coupling to the face, to 3 decimals", ge=0, le=1)]
    face_length: Float("the face capsule's length after the last iteration", ge=0, le=1)
    lengths: ParentLengths  # [iteration, 2] the parents' lengths, iteration by iteration

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a view whose rows disagree: one row
        of ``c`` and one prediction and coupling per part ``found``, one row of ``lengths`` per
        iteration."""
        super().__post_init__()
        check_same(type(self).__name__, "rows", "one row of c per part found", found=len(
            self.found), c=len(self.c))
        for name in ("predictions", "c_face"):
            if list(getattr(self, name)) != list(self.found):
                raise ValueError(f"{type(self).__name__}(): {name} must be keyed by found "
                                 f"{self.found}, got {list(getattr(self, name))}; one entry "
                                 "per part found, in its order")
        check_same(type(self).__name__, "iterations", "one row of lengths per iteration run",
                   iteration=self.iteration, lengths=len(self.lengths))


class RoutingPanels:
    """``show(state)`` draws a ``RoutingView``; with ``verdicts`` (model names), the state must
    also have ``face_probability``, ``threshold`` and ``called_face`` per name (a ``FaceState``).
    ``face_threshold``: the face length that counts as a face, a dashed line on the lengths."""

    @checked
    def __init__(self, scene_title: Text, verdicts: Names | None = None,
                 size: Int("the scene's side in pixels", ge=MIN_SIDE, le=MAX_SIDE) = 32,
                 face_threshold: FaceThreshold | None = None):
        self.names = list(verdicts or [])  # none: no panel of verdicts
        n_panels = 3 + bool(self.names)
        ratios = [1, 0.8, 1, 1.1][:n_panels]
        self.figure = Figure(figsize=(3.25 * n_panels, 3.4), dpi=course_settings.WIDGET_DPI)
        axes = self.figure.subplots(1, n_panels, gridspec_kw={"width_ratios": ratios})
        self.figure.subplots_adjust(left=0.01, right=0.99, bottom=0.16, top=0.88, wspace=0.45)
        scene, heat, curve = axes[:3]
        dynamic = []
        # 1. the scene, and each part's predicted face (a ghost in the part's colour)
        self._image = scene.imshow(np.zeros((size, size)), cmap="gray", vmin=0, vmax=1,
                                   extent=(0, 1, 1, 0), interpolation="nearest")
        self._ghosts = scene.add_collection(LineCollection([], alpha=0.6, lw=1.5))
        self._centres = {k: scene.plot([], [], "+", color=PART_COLORS[k], ms=10, mew=2)[0]
                         for k in faces.PART_KINDS}
        scene.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])
        scene.set_title(scene_title, fontsize="medium")
        dynamic += [self._image, self._ghosts, *self._centres.values()]
        # 2. couplings part -> parent (a row per part kind; blank where it is not routed)
        none = np.zeros((len(faces.PART_KINDS), len(PARENTS)))
        self._heat, self._values = draw_coupling_heatmap(heat, none, faces.PART_KINDS, PARENTS,
                                                         blank=np.ones(none.shape, bool))
        self._heat_title = heat.set_title(" ")
        dynamic += [self._heat, *sum(self._values, []), self._heat_title]
        # 3. the parents' lengths, iteration by iteration; a length never exceeds 1, so the
        # legend sits in a band above 1, where it covers no curve
        self._curves = [curve.plot([], [], "o-", label=f"‖v_{p}‖")[0] for p in PARENTS]
        curve.axhline(1, color="0.6", lw=0.8)
        if face_threshold is not None:
            curve.axhline(face_threshold, color="0.3", ls="--", lw=1,
                          label=f"face above {face_threshold:g}")
        curve.set(xlabel="iteration", ylim=(0, 1.32), yticks=np.linspace(0, 1, 6),
                  xlim=(0.8, SLIDER_ITERATIONS + 0.2), xticks=range(1, SLIDER_ITERATIONS + 1),
                  title="parent lengths")
        curve.legend(loc="upper center", ncol=2, fontsize="small", frameon=False,
                     borderaxespad=0.2, columnspacing=1, handlelength=1.5)
        dynamic += self._curves
        # 4. every model's score, and the value where that model cuts between face and not
        if self.names:
            self._verdicts = VerdictBars(axes[3], self.names, "score (black: where the model cuts)",
                                         "verdicts (green: face)")
            dynamic += self._verdicts.artists
        self.blitter = Blitter(self.figure, dynamic)

    @checked
    def show(self, s: Record(RoutingView, "a RoutingWidget's compute()")) -> bytes:
        """Draw the state ``s`` and return the figure as PNG bytes."""
        self._image.set_data(s.image)
        segments, colors = ghost_lines(s.predictions)
        self._ghosts.set_segments(segments)
        self._ghosts.set_color(colors)
        for kind, marker in self._centres.items():
            pose = s.predictions.get(kind)
            marker.set_data([pose[0]] if pose else [], [pose[1]] if pose else [])
        c = np.zeros((len(faces.PART_KINDS), len(PARENTS)))
        routed = [faces.PART_KINDS.index(kind) for kind in s.found]  # the rows of s.c
        c[routed] = s.c
        blank = np.ones(c.shape, bool)
        blank[routed] = False
        update_coupling_heatmap(self._heat, self._values, c, blank)
        self._heat_title.set_text(f"c_ij, iteration {s.iteration}")
        steps = np.arange(1, s.iteration + 1)
        for j, line in enumerate(self._curves):
            line.set_data(steps, s.lengths[:, j])
        if self.names:
            self._verdicts.show(s.face_probability, s.called_face, s.threshold)
        return self.blitter.png()


class RoutingWidget(Widget):
    """What notebooks 04 and 07's widgets share: a ``PartsEditor``, an iteration slider and any
    ``extra`` controls on the left; a readout and the ``panels`` (a ``RoutingPanels``) on the
    right. A subclass says what to compute (``compute() -> state``) and may add lines to the
    readout (``_more_readout(state)``); every change recomputes and redraws at once."""

    @checked
    def __init__(self, panels: RoutingPanels, parts: ChosenParts | None = None,
                 iteration: Iteration = 3, extra: tuple | list = ()):
        if type(self) is RoutingWidget:  # nothing to compute of its own: only its subclasses do
            made = ", ".join(sorted(kind.__name__ for kind in RoutingWidget.__subclasses__()))
            raise TypeError(f"RoutingWidget(): RoutingWidget is the base of notebooks 04 and 07's "
                            f"routing widgets, with nothing to compute of its own; make one of "
                            f"them: {made} (or a subclass of it that defines compute())")
        self.panels = panels
        self.editor = PartsEditor(parts, on_change=lambda _: self.update(),
                                  owner=type(self).__name__)
        self.iteration = IntSlider(value=iteration, min=1, max=SLIDER_ITERATIONS,
                                   description="iteration")
        for control in (self.iteration, *extra):
            control.observe(lambda _: self.update(), names="value")
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        controls = widgets.VBox([self.editor.widget, self.iteration, *extra])
        self.widget = widgets.VBox([widgets.HBox([controls, self.readout]), self.image])
        self.update()

    @property
    def figure(self):
        return self.panels.figure

    def compute(self) -> RoutingView:
        raise NotImplementedError(f"{type(self).__name__}: a RoutingWidget says what to show in "
                                  "compute(), which returns a RoutingView")

    def _more_readout(self, state: RoutingView) -> str:
        return ""

    def update(self):
        self.state = s = self.compute()
        couplings = ", ".join(f"{k} {v:.2f}" for k, v in s.c_face.items()) or "none"
        self.readout.value = (
            f"<h4>after iteration {s.iteration}</h4>"
            f"face capsule length ‖v_face‖ = <b>{s.face_length:.3f}</b><br>"
            f"couplings to the face: {couplings}{self._more_readout(s)}")
        self.image.value = self.panels.show(s)

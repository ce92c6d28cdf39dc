"""Every model's verdict on an edited face: the bars that notebooks 01 and 07 draw, and notebook
01's widget.

Move, turn or swap parts with the ``PartsEditor`` (or press scramble / turn face / reset); after
every edit the pure function ``verdicts_state`` renders the parts and asks every model for its
score for "face" and where it cuts (``parts.scoring.verdicts``).
"""

from dataclasses import dataclass
from typing import Annotated

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..checks import input_shape
from ..course_settings import Name
from ..data import sprites
from ..data.sprites import ChosenParts, Parts, Scene, Side
from ..figures.canvas import FlatAxes, png_bytes
from ..parts.scoring import NamedFaceNets, Score, Verdicts, verdicts
from ..validate import Array, Distinct, Flag, Record, Some, checked
from .base import Widget
from .parts import PartsEditor


@dataclass(frozen=True)
class VerdictsState(Verdicts):
    """What notebook 01's widget shows (``verdicts_state``): every model's verdict on one edited
    face (the three dicts of ``parts.scoring.Verdicts``, checked as there), and the face."""

    parts: Scene  # the parts rendered
    image: Array("what the models see [size, size]", ndim=2)


# the models' names, one bar each: at least one, each once
Names = Annotated[list[Name] | tuple[Name, ...], Some, Distinct]
# the side of the scenes the course's face models train on (parts.training.training_set's)
SCENE_SIDE = 32


def _check_reads(models: dict, size: int) -> None:
    """Refuse a ``size`` other than the side each model reads: the one it was made for
    (``input_shape``) or, for one that reads any size (the CNNs, the pose capsules), the
    ``SCENE_SIDE`` it trained on; another side gives a number that means nothing."""
    for name, model in models.items():
        side = (input_shape(model) or (1, SCENE_SIDE))[1]
        if size != side:
            raise ValueError(f"verdicts_state(): size must be the side of the scenes "
                             f"models[{name!r}] reads, {side} (a {type(model).__name__} of "
                             f"{side}x{side} scenes), got {size}; leave size at {side}, or pass "
                             f"a model trained on {size}x{size} scenes")


@checked
def verdicts_state(models: NamedFaceNets, parts: Parts, size: Side = SCENE_SIDE) -> VerdictsState:
    """Render ``parts`` at ``size`` x ``size`` (the side the models read) and ask each model of
    ``models`` (name -> model) for its verdict."""
    _check_reads(models, size)
    x = sprites.render_many([parts], size=size)  # [1, 1, size, size]; ValueError on a bad part
    v = verdicts(models, x)
    return VerdictsState(face_probability=v.face_probability, threshold=v.threshold,
                         called_face=v.called_face, parts=list(parts), image=x[0, 0].numpy())


class VerdictBars:
    """One horizontal bar per model in ``ax``: its score for "face" (green where it says face,
    red where it does not) and a black tick where that model cuts between the two."""

    @checked
    def __init__(self, ax: FlatAxes, names: Names, xlabel: str, title: str):
        self.names = list(names)
        y = np.arange(len(self.names))
        self.bars = list(ax.barh(y, np.zeros(len(y)), height=0.6))
        self.labels = [ax.text(0.02, yi, "", va="center") for yi in y]
        self.cuts = [ax.plot([0, 0], [yi - 0.4, yi + 0.4], "k-", lw=2)[0] for yi in y]
        ax.invert_yaxis()
        ax.set(xlim=(0, 1), yticks=[], xlabel=xlabel, title=title)

    @property
    def artists(self) -> list:
        return self.bars + self.labels + self.cuts

    @checked
    def show(self, scores: dict[str, Score], called: dict[str, Flag("whether the model calls "
                                                                    "the image a face")],
             cuts: dict[str, Score]):
        """``scores``, ``called`` (bool) and ``cuts``: dicts keyed by model name, an entry for
        each model of the bars (``names``)."""
        for name, given in (("scores", scores), ("called", called), ("cuts", cuts)):
            if not set(self.names) <= set(given):
                raise ValueError(f"VerdictBars.show(): {name} must hold an entry for each model "
                                 f"of the bars, {self.names}, got {sorted(given)}; pass one "
                                 "for each")
        for bar, label, cut, name in zip(self.bars, self.labels, self.cuts, self.names,
                                         strict=True):
            bar.set_width(scores[name])
            bar.set_color("#8fd19e" if called[name] else "#f4a6a6")  # light green / light red
            label.set_text(f"{name}: {scores[name]:.2f}")
            cut.set_xdata([cuts[name]] * 2)


class VerdictsFigure:
    """The rendered image on the left, one bar per model's P(face) on the right.

    The axes are drawn once; ``show(state)`` only changes the image data and the bar widths,
    which keeps an update fast.
    """

    @checked
    def __init__(self, names: Names, size: Side = SCENE_SIDE):
        self.figure = Figure(figsize=(5.5, 2.4))
        ax_image, ax_bars = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.3]})
        self._image = ax_image.imshow(np.zeros((size, size)), cmap="gray", vmin=0, vmax=1)
        ax_image.set(xticks=[], yticks=[], title="what the CNNs see")
        self.bars = VerdictBars(ax_bars, names, "P(face)", "verdicts (face if > 0.5)")

    @checked
    def show(self, state: Record(VerdictsState, "verdicts_state(...)")) -> bytes:
        """Draw ``state`` (from ``verdicts_state``) and return the figure as PNG bytes."""
        self._image.set_data(state.image)
        self.bars.show(state.face_probability, state.called_face, state.threshold)
        return png_bytes(self.figure)


class FaceVerdicts(Widget):
    """A ``PartsEditor`` beside the rendered image and every model's P(face), updated live."""

    figure_alt = (
        "Left: the edited face's parts as the CNNs see them, white strokes on black; right: one "
        "horizontal bar per model for its score for face, from 0 to 1, with the score written on "
        "it, light green where the model calls the image a face and light red where it does not, "
        "and a black tick where that model cuts between the two.")

    @checked
    def __init__(self, models: NamedFaceNets, parts: ChosenParts | None = None):
        self.models = models
        self.view = VerdictsFigure(list(models))
        self.image = widgets.Image(format="png", width=420)
        self.readout = widgets.HTML()
        self.editor = PartsEditor(parts, on_change=lambda _: self.update(),
                                  owner=type(self).__name__)
        self.widget = widgets.HBox([self.editor.widget, widgets.VBox([self.image, self.readout])])
        self.update()

    def update(self):
        self.state = s = verdicts_state(self.models, self.editor.parts)
        self.readout.value = "<br>".join(
            f"<b>{name}</b>: P(face) = {p:.2f} &rarr; "
            f"{'face' if s.called_face[name] else 'not a face'}"
            for name, p in s.face_probability.items())
        self.image.value = self.view.show(s)

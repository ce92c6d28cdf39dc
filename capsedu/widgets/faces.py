"""Notebook 07's headline widget: move, swap, turn or scramble a face's parts, and watch

* the part capsules the detector reads off the image, each with the face it predicts (a ghost);
* the coupling coefficients part -> parent (face, background) at the chosen routing iteration;
* the face and background capsules' lengths, iteration by iteration;
* the verdicts of all four models of notebook 07 side by side.

Everything shown is computed by the pure function ``face_state``, kept in ``.state``.
"""

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..data import faces
from ..face_experiments import called_face, face_probability, face_threshold
from ..plots import PART_COLORS, ghost_lines, png_bytes
from ..pose_capsules import PARENTS, predicted_faces
from ..routing import dynamic_routing
from .base import Widget
from .parts import PartsEditor

MAX_ITERATIONS = 5


def face_state(pose_model, models: dict, parts, iteration: int = 3) -> dict:
    """Render ``parts``, read the part capsules off the image with ``pose_model`` (a
    ``PoseCapsuleNet``), route them for ``iteration`` iterations, and ask every model of
    ``models`` (name -> model, the pose-capsule model included or not) for its verdict."""
    if not 1 <= iteration <= MAX_ITERATIONS:
        raise ValueError(f"iteration must be in [1, {MAX_ITERATIONS}], got {iteration}")
    image = faces.render(parts)  # [32, 32]; raises ValueError on a bad part
    x = torch.from_numpy(image)[None, None]  # [1, 1, 32, 32]
    u_hat, poses, presence = pose_model.votes(x)
    routing = dynamic_routing(u_hat, iteration)
    found = [k for k, p in zip(faces.PART_KINDS, presence[0].tolist(), strict=True) if p > 0.5]
    rows = [faces.PART_KINDS.index(k) for k in found]
    ghosts = predicted_faces(poses[0].double().numpy(), pose_model.W.numpy())  # [4, 4]
    c = routing.c[0].numpy()  # [4, 2] couplings used in the last iteration
    return {
        "image": image,
        "iteration": iteration,
        "found": found,  # the parts the detector is sure of (presence > 0.5)
        "presence": dict(zip(faces.PART_KINDS, presence[0].tolist(), strict=True)),
        "poses": {k: tuple(poses[0, i].tolist()) for k, i in zip(found, rows, strict=True)},
        "predictions": {k: tuple(ghosts[i]) for k, i in zip(found, rows, strict=True)},
        "c": c[rows],  # [found, 2]
        "c_face": {k: round(float(c[i, 0]), 3) for k, i in zip(found, rows, strict=True)},
        "face_length": float(routing.v[0, 0].norm()),
        "lengths": torch.stack([s.v[0].norm(dim=-1) for s in routing.history]).numpy(),
        "face_probability": {name: float(face_probability(m, x)[0]) for name, m in models.items()},
        "threshold": {name: float(face_threshold(m, x)[0]) for name, m in models.items()},
        "called_face": {name: bool(called_face(m, x)[0]) for name, m in models.items()},
    }


class FacePanels:
    """The widget's four panels. The artists are made once; ``show(state)`` only changes their
    data (image, ghost lines, heatmap values, curves, bars), which keeps an update fast."""

    def __init__(self, names, size: int = 32):
        self.figure = Figure(figsize=(13, 3.4))
        scene, heat, curve, bars = self.figure.subplots(
            1, 4, gridspec_kw={"width_ratios": [1, 0.8, 1, 1.1]})
        self.figure.subplots_adjust(left=0.01, right=0.99, bottom=0.16, top=0.88, wspace=0.45)
        # 1. the image the models see, and each detected part's predicted face (a ghost)
        self._image = scene.imshow(np.zeros((size, size)), cmap="gray", vmin=0, vmax=1,
                                   extent=(0, 1, 1, 0), interpolation="nearest")
        self._ghosts = LineCollection([], alpha=0.6, lw=1.5)
        scene.add_collection(self._ghosts)
        self._centres = {k: scene.plot([], [], "+", color=PART_COLORS[k], ms=10, mew=2)[0]
                         for k in faces.PART_KINDS}
        scene.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])
        scene.set_title("image, detected parts' face votes", fontsize="medium")
        # 2. couplings part -> parent (a row per part kind; blank where none was found)
        self._heat = heat.imshow(np.zeros((len(faces.PART_KINDS), len(PARENTS))),
                                 cmap="viridis", vmin=0, vmax=1, aspect="auto")
        self._values = [[heat.text(j, i, "", ha="center", va="center")
                         for j in range(len(PARENTS))] for i in range(len(faces.PART_KINDS))]
        heat.set(xticks=range(len(PARENTS)), xticklabels=PARENTS,
                 yticks=range(len(faces.PART_KINDS)), yticklabels=faces.PART_KINDS)
        self._heat_title = heat.set_title("")
        # 3. the parents' lengths, iteration by iteration
        self._curves = [curve.plot([], [], "o-", label=f"‖v_{p}‖")[0] for p in PARENTS]
        curve.set(xlabel="iteration", ylim=(0, 1), xlim=(0.8, MAX_ITERATIONS + 0.2),
                  title="parent lengths")
        curve.legend(loc="lower left")
        # 4. every model's score, and the value where that model cuts between face and not
        self.names = list(names)
        y = np.arange(len(self.names))
        self._bars = bars.barh(y, np.zeros(len(y)), height=0.6)
        self._labels = [bars.text(0.02, yi, "", va="center") for yi in y]
        self._cuts = [bars.plot([0, 0], [yi - 0.4, yi + 0.4], "k-", lw=2)[0] for yi in y]
        bars.invert_yaxis()
        bars.set(xlim=(0, 1), yticks=[], xlabel="score (black: where the model cuts)",
                 title="verdicts (green: face)")

    def show(self, s: dict) -> bytes:
        """Draw the state ``s`` (from ``face_state``) and return the figure as PNG bytes."""
        self._image.set_data(s["image"])
        ghosts = s["predictions"]
        segments, colors = ghost_lines(ghosts)
        self._ghosts.set_segments(segments)
        self._ghosts.set_color(colors)
        for kind, marker in self._centres.items():
            marker.set_data(*([[ghosts[kind][0]], [ghosts[kind][1]]] if kind in ghosts
                              else [[], []]))
        c = np.full((len(faces.PART_KINDS), len(PARENTS)), np.nan)
        for row, kind in zip(s["c"], s["found"], strict=True):
            c[faces.PART_KINDS.index(kind)] = row
        self._heat.set_data(np.ma.masked_invalid(c))
        for i, texts in enumerate(self._values):
            for j, text in enumerate(texts):
                text.set_text("" if np.isnan(c[i, j]) else f"{c[i, j]:.2f}")
                text.set_color("black" if c[i, j] > 0.6 else "white")
        self._heat_title.set_text(f"c_ij, iteration {s['iteration']}")
        steps = np.arange(1, s["iteration"] + 1)
        for j, line in enumerate(self._curves):
            line.set_data(steps, s["lengths"][:, j])
        for bar, label, cut, n in zip(self._bars, self._labels, self._cuts, self.names,
                                      strict=True):
            bar.set_width(s["face_probability"][n])
            bar.set_color("#8fd19e" if s["called_face"][n] else "#f4a6a6")
            label.set_text(f"{n}: {s['face_probability'][n]:.2f}")
            cut.set_xdata([s["threshold"][n]] * 2)
        return png_bytes(self.figure)


class FaceCapsulesExplorer(Widget):
    """A ``PartsEditor``, an iteration slider, and four live panels (see the module doc)."""

    def __init__(self, pose_model, models: dict, parts=None, iteration: int = 3):
        self.pose_model, self.models = pose_model, models
        self.panels = FacePanels(models)
        self.editor = PartsEditor(parts, on_change=lambda _: self.update())
        self.iteration = widgets.IntSlider(value=iteration, min=1, max=MAX_ITERATIONS,
                                           description="iteration")
        self.iteration.observe(lambda _: self.update(), names="value")
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        controls = widgets.VBox([self.editor.widget, self.iteration])
        self.widget = widgets.VBox([widgets.HBox([controls, self.readout]), self.image])
        self.update()

    @property
    def figure(self):
        return self.panels.figure

    def update(self):
        self.state = s = face_state(self.pose_model, self.models, self.editor.parts,
                                    self.iteration.value)
        couplings = ", ".join(f"{k} {v:.2f}" for k, v in s["c_face"].items()) or "none"
        verdicts = "<br>".join(
            f"<b>{name}</b>: {p:.2f} (face above {s['threshold'][name]:.2f}) &rarr; "
            f"{'face' if s['called_face'][name] else 'not a face'}"
            for name, p in s["face_probability"].items())
        self.readout.value = (
            f"<h4>after routing iteration {s['iteration']}</h4>"
            f"face capsule length ‖v_face‖ = <b>{s['face_length']:.3f}</b><br>"
            f"couplings to the face: {couplings}<br><br>{verdicts}")
        self.image.value = self.panels.show(s)


def face_capsules_explorer(pose_model, models: dict, parts=None, iteration: int = 3):
    """Build notebook 07's widget: ``pose_model`` drives the capsule panels, ``models`` (name ->
    trained model) give the verdicts."""
    return FaceCapsulesExplorer(pose_model, models, parts, iteration)

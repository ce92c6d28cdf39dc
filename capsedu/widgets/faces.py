"""Notebook 07's headline widget: move, swap, turn or scramble a face's parts, and watch

* the part capsules the detector reads off the image, each with the face it predicts (a ghost);
* the coupling coefficients part -> parent (face, background) at the chosen routing iteration;
* the face and background capsules' lengths, iteration by iteration;
* the verdicts of all four models of notebook 07 side by side.

Everything shown is computed by the pure function ``face_state``, kept in ``.state``.
"""

import ipywidgets as widgets
import torch

from ..data import faces
from ..face_experiments import called_face, face_probability, face_threshold
from ..pose_capsules import predicted_faces
from ..routing import dynamic_routing
from .base import Widget
from .panels import MAX_ITERATIONS, RoutingPanels
from .parts import PartsEditor


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


class FaceCapsulesExplorer(Widget):
    """A ``PartsEditor``, an iteration slider, and four live panels (see the module doc)."""

    def __init__(self, pose_model, models: dict, parts=None, iteration: int = 3):
        self.pose_model, self.models = pose_model, models
        self.panels = RoutingPanels("image, detected parts' face votes", verdicts=list(models))
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

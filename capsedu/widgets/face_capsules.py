"""Notebook 07's headline widget: move, swap, turn or scramble a face's parts, and watch

* the part capsules the detector reads off the image, each with the face it predicts (a ghost);
* the coupling coefficients part -> parent (face, background) at the chosen routing iteration;
* the face and background capsules' lengths, iteration by iteration;
* the verdicts of all five models of notebook 07 side by side.

Everything shown is computed by the pure function ``face_state``, kept in ``.state``.
"""

from dataclasses import dataclass

import torch

from ..data import faces, sprites
from ..data.faces import PartKind
from ..data.sprites import ChosenParts, Parts
from ..parts.pose_net import PoseCapsuleNet
from ..parts.scoring import NamedFaceNets, Score, check_verdicts, verdicts
from ..parts.voting import Pose, _face_poses
from ..validate import Flag, Float, checked
from .panels import Iteration, RoutingPanels, RoutingView, RoutingWidget


@dataclass(frozen=True)
class FaceState(RoutingView):
    """What notebook 07's widget shows (``face_state``): the fields of ``RoutingView``, its
    ``image`` the rendered 32 x 32 image the detector reads, ``found`` the parts it is sure of;
    then what it read of every part, and every model's verdict (dicts keyed by model name)."""

    # part kind -> the detector's presence, for all four kinds
    presence: dict[PartKind, Float("a part's presence", ge=0, le=1)]
    poses: dict[PartKind, Pose]  # found part kind -> its pose read off the image
    face_probability: dict[str, Score]  # each model's score for "face"
    threshold: dict[str, Score]  # where each model cuts between face and not
    called_face: dict[str, Flag("whether the model calls the image a face")]  # score > cut

    def __post_init__(self):
        super().__post_init__()
        check_verdicts(self)


@checked
def face_state(pose_model: PoseCapsuleNet, models: NamedFaceNets, parts: Parts,
               iteration: Iteration = 3) -> FaceState:
    """Render ``parts``, read the part capsules off the image with ``pose_model`` (a
    ``PoseCapsuleNet``), route them for ``iteration`` iterations, and ask every model of
    ``models`` (name -> model, the pose-capsule model included or not) for its verdict."""
    x = sprites.render_many([parts])  # [1, 1, 32, 32]; raises ValueError on a bad part
    image = x[0, 0].numpy()  # [32, 32]
    poses, presence, _, routing = pose_model.capsules(x, iteration)
    found = [k for k, p in zip(faces.PART_KINDS, presence[0].tolist(), strict=True) if p > 0.5]
    rows = [faces.PART_KINDS.index(k) for k in found]
    # [4, 4]: the faces the parts it read predict (unchecked: a reading's angle may be 0.3)
    ghosts = _face_poses("predicted_faces", poses[0].double().numpy(), pose_model.W.numpy())
    c = routing.c[0].numpy()  # [4, 2] couplings used in the last iteration
    v = verdicts(models, x)
    return FaceState(
        iteration=iteration,
        image=image,
        found=found,  # the parts the detector is sure of (presence > 0.5)
        predictions={k: tuple(ghosts[i]) for k, i in zip(found, rows, strict=True)},
        c=c[rows],  # [found, 2]
        c_face={k: round(float(c[i, 0]), 3) for k, i in zip(found, rows, strict=True)},
        face_length=float(routing.v[0, 0].norm()),
        lengths=torch.stack([s.v[0].norm(dim=-1) for s in routing.history]).numpy(),
        presence=dict(zip(faces.PART_KINDS, presence[0].tolist(), strict=True)),
        poses={k: tuple(poses[0, i].tolist()) for k, i in zip(found, rows, strict=True)},
        face_probability=v.face_probability,
        threshold=v.threshold,
        called_face=v.called_face,
    )


class FaceCapsulesExplorer(RoutingWidget):
    """A ``PartsEditor``, an iteration slider, and four live panels (see the module doc)."""

    figure_alt = (
        "Four panels: the rendered 32×32 image with each detected part's predicted face drawn over "
        "it as a ghost outline in the part's colour, a plus sign at its centre; a heatmap of the "
        "coupling coefficients at the chosen iteration, the parts as rows and the face and "
        "background parents as columns, with the values written in; the face and background "
        "capsules' lengths, iteration by iteration, with a dashed line at the length that counts "
        "as a face; and one bar per model of notebook 07 for its score for face, green where it "
        "calls the image a face and red where it does not, a black tick where it cuts.")

    @checked
    def __init__(self, pose_model: PoseCapsuleNet, models: NamedFaceNets,
                 parts: ChosenParts | None = None, iteration: Iteration = 3):
        self.pose_model, self.models = pose_model, models
        panels = RoutingPanels("image, detected parts' face votes", verdicts=list(models),
                               face_threshold=round(float(pose_model.threshold), 3))
        super().__init__(panels, parts, iteration)

    def compute(self) -> FaceState:
        return face_state(self.pose_model, self.models, self.editor.parts, self.iteration.value)

    def _more_readout(self, s: FaceState) -> str:
        return "<br><br>" + "<br>".join(
            f"<b>{name}</b>: {p:.2f} (face above {s.threshold[name]:.2f}) &rarr; "
            f"{'face' if s.called_face[name] else 'not a face'}"
            for name, p in s.face_probability.items())

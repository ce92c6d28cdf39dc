"""Notebook 04's headline widget: scramble a face's parts and watch routing by agreement.

Left, the face-parts editor, an iteration slider (1-5) and the softmax axis (the paper's, or the
common bug). Right, the image with each part's predicted face drawn as a ghost, the coupling
coefficients part -> parent at the chosen iteration, and the parents' lengths per iteration.
"""

from dataclasses import dataclass

from ..buggy import step_softmax_over_children
from ..data import sprites
from ..data.faces import PART_KINDS
from ..data.sprites import ChosenParts, Parts
from ..parts.voting import _route_parts
from ..routing import Step, routing_step
from ..validate import Float, checked
from .panels import FaceThreshold, Iteration, RoutingPanels, RoutingView, RoutingWidget
from .sliders import ToggleButtons

SCENE_SIZE = 96  # pixels of the drawn scene (the parts' true poses, no model looks at it)


@dataclass(frozen=True)
class RoutingState(RoutingView):
    """What notebook 04's widget shows (``routing_state``): the fields of ``RoutingView``, its
    ``image`` the true parts drawn large, and the pose the face capsule decodes to."""

    # decoded from the face capsule's final vector
    face_pose: tuple[Float("x"), Float("y"), Float("angle, degrees")]


@checked
def routing_state(parts: Parts, iteration: Iteration = 3, step: Step = routing_step
                  ) -> RoutingState:
    """Everything the widget shows after ``iteration`` iterations of Procedure 1 (pure), each
    iteration a ``step`` (the paper's, or the zoo's softmax over the children)."""
    if not any(sprites.as_part(p).kind in PART_KINDS for p in parts):
        raise ValueError(f"routing_state(): parts must hold at least one face part (left_eye, "
                         f"right_eye, nose, mouth), got {list(parts)!r:.60}; add one, e.g. "
                         "faces.face_parts()")
    r = _route_parts(parts, iterations=iteration, step=step)
    return RoutingState(
        iteration=iteration,
        image=sprites.render(parts, size=SCENE_SIZE),  # the true parts, drawn large
        found=r.kinds,
        predictions=dict(zip(r.kinds, r.predictions, strict=True)),
        c=r.c[-1],  # [n_parts, 2] couplings used in this iteration
        c_face=dict(zip(r.kinds, r.c[-1, :, 0].round(3).tolist(), strict=True)),
        face_length=float(r.lengths[-1, 0]),
        lengths=r.lengths,  # [iteration, 2]
        face_pose=r.face_pose,
    )


class RoutingExplorer(RoutingWidget):
    """Edit the parts; the routing is recomputed and redrawn at once (``.state`` holds it).
    ``face_threshold``: the face length that counts as a face (a dashed line on the lengths)."""

    figure_alt = (
        "Three panels: the edited face's parts in white on black, each part's predicted face drawn "
        "over them as a ghost outline in the part's colour with a plus sign at its centre; a "
        "heatmap of the coupling coefficients at the chosen iteration, the parts as rows and the "
        "face and background parents as columns, with the values written in; and the face and "
        "background capsules' lengths, iteration by iteration. Where the ghosts land on one "
        "another the parts agree, and routing sends their votes to the face.")

    @checked
    def __init__(self, parts: ChosenParts | None = None, iteration: Iteration = 3,
                 face_threshold: FaceThreshold | None = None):
        self.softmax = ToggleButtons(
            options=[("over parents (paper)", routing_step),
                     ("over children (bug)", step_softmax_over_children)],
            description="softmax")
        panels = RoutingPanels("parts and the faces they predict", size=SCENE_SIZE,
                               face_threshold=face_threshold)
        super().__init__(panels, parts, iteration, extra=[self.softmax])

    def compute(self) -> RoutingState:
        return routing_state(self.editor.parts, self.iteration.value, self.softmax.value)

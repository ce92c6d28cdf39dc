"""Widget factories for the notebooks. Each callback calls a pure function (tested without a
browser) and redraws; the computed result is kept in ``.state`` so tests can set a control and
check what it computed."""

from .capsule import PoseVectorExplorer, SquashExplorer
from .check import WidgetCheck, arrow_state, widget_check
from .faces import FaceCapsulesExplorer, face_capsules_explorer, face_state
from .parts import PartsEditor
from .pooling import FaceVerdicts, face_verdicts, verdicts
from .pose_space import PoseSpaceExplorer, pose_space_explorer
from .routing import RoutingExplorer, routing_explorer, routing_state

__all__ = [
    "WidgetCheck", "arrow_state", "widget_check", "PartsEditor", "RoutingExplorer",
    "routing_explorer", "routing_state", "PoseVectorExplorer", "SquashExplorer", "FaceVerdicts",
    "face_verdicts", "verdicts", "PoseSpaceExplorer", "pose_space_explorer",
    "FaceCapsulesExplorer", "face_capsules_explorer", "face_state",
]

"""The course's widgets, one class each. A widget's callbacks call a pure function (tested
without a browser) and redraw; the computed result is kept in ``.state`` so tests can set a
control and check what it computed. A notebook cell that ends with a widget displays it.

docs/api.md lists every widget with its notebook and its pure function.

``PartsEditor`` (01, 04, 07) edits a face's parts; ``panels`` holds what 04 and 07 draw beside it.
"""

from .adversarial import AttackExplorer
from .bug_zoo import BugZooExplorer
from .capsule import PoseVectorExplorer, SquashExplorer
from .check import WidgetCheck
from .digit_capsules import PoseSpaceExplorer
from .face_capsules import FaceCapsulesExplorer
from .overlap import OverlapExplorer
from .parts import PartsEditor
from .rotation import RotationExplorer
from .routing import RoutingExplorer
from .spiking import SpikingNeuron
from .verdicts import FaceVerdicts
from .viewpoint import ViewpointExplorer

__all__ = [
    "WidgetCheck", "FaceVerdicts", "PoseVectorExplorer", "SquashExplorer", "RoutingExplorer",
    "PoseSpaceExplorer", "FaceCapsulesExplorer", "ViewpointExplorer", "OverlapExplorer",
    "BugZooExplorer", "RotationExplorer", "SpikingNeuron", "AttackExplorer", "PartsEditor",
]

"""capsedu: a small, readable Capsule Network package for the capsedu course.

The contract the notebooks rely on lives at the top level: ``squash`` (Eq. 1),
``dynamic_routing`` (Procedure 1) and ``margin_loss`` (Eq. 4) from Sabour, Frosst & Hinton (2017),
the layers and models, and ``pretrained`` to load a verified checkpoint. ``import capsedu`` loads
this core only; the faces world (``capsedu.parts``), figures and widgets are imported on demand.
ARCHITECTURE.md maps the modules.
"""

from . import course_settings
from .baselines import BagOfPartsCNN, DeepCNN
from .capsnet import LIVE, PAPER, SMALL, CapsNet, CapsNetConfig, count_parameters
from .checkpoints import ChecksumError, pretrained
from .functional import margin_loss, reconstruction_loss, squash
from .layers import PrimaryCapsules, RoutingCapsules
from .routing import RoutingResult, RoutingStep, dynamic_routing, routing_step

__all__ = [
    "course_settings", "pretrained", "ChecksumError", "squash", "margin_loss",
    "reconstruction_loss", "dynamic_routing", "routing_step", "RoutingResult", "RoutingStep",
    "PrimaryCapsules", "RoutingCapsules",
    "CapsNet", "CapsNetConfig", "PAPER", "SMALL", "LIVE", "BagOfPartsCNN", "DeepCNN",
    "count_parameters",
]

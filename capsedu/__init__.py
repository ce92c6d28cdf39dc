"""capsedu: a small, readable Capsule Network package for the capsedu course.

The contract the notebooks rely on lives at the top level: ``squash`` (Eq. 1),
``dynamic_routing`` (Procedure 1) and ``margin_loss`` (Eq. 4) from Sabour, Frosst & Hinton (2017),
the layers and models, and ``pretrained`` to load a verified checkpoint.
"""

from . import config
from .checkpoints import ChecksumError, pretrained
from .functional import margin_loss, reconstruction_loss, squash
from .layers import PrimaryCapsules, RoutingCapsules
from .models import (
    LIVE,
    PAPER,
    SMALL,
    BagOfPartsCNN,
    CapsNet,
    CapsNetConfig,
    DeepCNN,
    count_parameters,
)
from .routing import RoutingResult, RoutingStep, dynamic_routing, routing_step

__all__ = [
    "config", "pretrained", "ChecksumError", "squash", "margin_loss", "reconstruction_loss",
    "dynamic_routing", "routing_step", "RoutingResult", "RoutingStep",
    "PrimaryCapsules", "RoutingCapsules",
    "CapsNet", "CapsNetConfig", "PAPER", "SMALL", "LIVE", "BagOfPartsCNN", "DeepCNN",
    "count_parameters",
]

"""Exercise checkers: compare a learner's function with the reference on fixed inputs.

A checker never raises: it prints PASS or FAIL with the largest difference (or the first case it
gets wrong), or "not implemented yet" while the learner's function still raises
``NotImplementedError`` -- so a notebook with unsolved exercises still runs top to bottom. It also
returns ``True``/``False``/``None``. Every checker is ``check`` on its own cases
(``checking``); the checkers are grouped by topic, and a notebook imports them from here, e.g.
``from capsedu.exercises import check_squash``.

======== ================================================ ============
notebook checker                                          module
======== ================================================ ============
01       ``check_receptive_field``                        ``networks``
02       ``check_pose_vector``                            ``capsules``
03       ``check_squash``                                 ``capsules``
04       ``check_routing_step``                           ``capsules``
05       ``check_digitcaps_parameters``                   ``networks``
06       ``check_decoder_input``                          ``networks``
07       ``check_face_vote``, ``check_fit_transform``     ``geometry``
08       ``check_affine_matrix``                          ``geometry``
08       ``check_both_correct``                           ``networks``
09       ``check_dynamic_routing``                        ``capsules``
10       ``check_c4_filters``                             ``geometry``
11       ``check_fgsm``                                   ``attacks``
======== ================================================ ============
"""

from .attacks import check_fgsm
from .capsules import check_dynamic_routing, check_pose_vector, check_routing_step, check_squash
from .checking import check
from .geometry import check_affine_matrix, check_c4_filters, check_face_vote, check_fit_transform
from .networks import (
    check_both_correct,
    check_decoder_input,
    check_digitcaps_parameters,
    check_receptive_field,
)

__all__ = [
    "check", "check_receptive_field", "check_pose_vector", "check_squash", "check_routing_step",
    "check_digitcaps_parameters", "check_decoder_input", "check_face_vote", "check_fit_transform",
    "check_affine_matrix", "check_both_correct", "check_dynamic_routing", "check_c4_filters",
    "check_fgsm",
]

"""Pose geometry: the one home of how a pose (x, y, angle, scale) maps a frame into the image.

Conventions, shared by the faces renderer, the pose capsules and every figure of the course:

* ``x`` and ``y`` are fractions of the image width and height, ``y`` growing downward (rows);
* ``angle`` is in degrees, positive = counter-clockwise *as seen on screen*;
* ``scale`` multiplies lengths.

A pose maps a point (u, v) of its own frame to the image point

    (x + scale (c u + s v),  y + scale (-s u + c v)),     c = cos(angle), s = sin(angle),

which as a 3x3 matrix acting on (u, v, 1) is ``pose_matrix``. Composing poses is multiplying
matrices: a part whose pose is P predicts a face with pose P W (notebooks 04 and 07).
"""

import numpy as np


def wrap_angle(angle):
    """An angle (degrees; a number or an array) wrapped into [-180, 180): the same direction."""
    return (angle + 180) % 360 - 180


def place(points, x, y, angle, scale) -> np.ndarray:
    """Map ``points`` ``[..., 2]`` (u, v) of a frame into the image by the pose (see above).

    e.g. +90 degrees sends a point below the centre, (0, +d), to its right, (+d, 0). The pose may
    be arrays of shape ``[m, 1]`` (m poses at once): the result is then ``[m, points, 2]``.
    """
    a = np.radians(angle)
    c, s = np.cos(a), np.sin(a)
    points = np.asarray(points, dtype=float)
    u, v = points[..., 0], points[..., 1]
    # (u, v) -> (x + scale (c u + s v), y + scale (-s u + c v))
    return np.stack([x + scale * (c * u + s * v), y + scale * (-s * u + c * v)], axis=-1)


def pose_matrix(x, y, angle, scale) -> np.ndarray:
    """The 3x3 matrix of a pose: ``pose_matrix(...) @ (u, v, 1)`` is ``place((u, v), ...)``.

    Scalars give one ``[3, 3]`` matrix; arrays of one shape ``S`` give ``[*S, 3, 3]``.
    """
    x, y, angle, scale = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                               for v in (x, y, angle, scale)))
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    zero, one = np.zeros_like(x), np.ones_like(x)
    rows = [[scale * c, scale * s, x], [-scale * s, scale * c, y], [zero, zero, one]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def pose_from_matrix(M: np.ndarray):
    """Inverse of ``pose_matrix``: (x, y, angle in (-180, 180], scale); floats for one ``[3, 3]``
    matrix, arrays of shape ``S`` for ``[*S, 3, 3]``."""
    M = np.asarray(M, dtype=float)
    scale = np.hypot(M[..., 0, 0], M[..., 1, 0])
    angle = np.degrees(np.arctan2(M[..., 0, 1], M[..., 0, 0]))
    pose = (M[..., 0, 2], M[..., 1, 2], angle, scale)
    return tuple(float(v) for v in pose) if M.ndim == 2 else pose

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

from typing import Annotated

import numpy as np
from pydantic import AfterValidator

from .units import DrawnInDegrees, ImageFraction, InDegrees
from .validate import Array, Float, Tensor, checked

# A pose's numbers: one pose, or arrays of many (of one shape, or shapes that broadcast); a
# place within one image side of the image (a frame there may reach onto it): pixels (16) refused
X = ImageFraction("x", off=1.0) | Array("x of many poses")
Y = ImageFraction("y, growing downward", off=1.0) | Array("y of many poses")
Angle = Float("an angle in degrees, counter-clockwise on screen") | Array("angles in degrees")
# the angle of a pose a caller builds: radians refused (one, or all of many poses' angles)
Turn = (Annotated[Float("an angle in degrees, counter-clockwise on screen"), InDegrees]
        | Annotated[Array("angles in degrees"), DrawnInDegrees])


def _positive(scales: np.ndarray) -> np.ndarray:
    """Refuse scales that are not > 0: a scale multiplies lengths, so 0 draws a dot and a negative
    one turns the part half round, without a word."""
    if (scales <= 0).any():
        raise ValueError(f"must be > 0 (a scale multiplies lengths), got {scales.min():g}; pass "
                         "positive scales")
    return scales


Scale = Float("a scale: it multiplies lengths", gt=0) | Annotated[
    Array("scales of many poses, each > 0"), AfterValidator(_positive)]


def _check_broadcast(where: str, **arrays) -> None:
    """Refuse numbers (``name=value``: a number or an array) whose shapes do not broadcast
    together (one pose's x, y, angle and scale: a number, or arrays of one shape), naming them."""
    shapes = {name: np.shape(value) for name, value in arrays.items()}
    try:
        np.broadcast_shapes(*shapes.values())
    except ValueError:
        got = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"{where}(): {', '.join(shapes)} must be numbers or arrays of shapes "
                         f"that broadcast together, got shapes {got}; give one value per pose "
                         "in each (or one number for all)") from None


@checked
def wrap_angle(angle: Angle | Tensor("angles in degrees", floating=True, finite=True)):
    """An angle (degrees; a number, an array or a tensor) wrapped into [-180, 180): the same
    direction."""
    return (angle + 180) % 360 - 180


@checked
def place(points: Array("points [..., 2]: (u, v) in the pose's frame"), x: X, y: Y, angle: Turn,
          scale: Scale) -> np.ndarray:
    """Map ``points`` ``[..., 2]`` (u, v) of a frame into the image by the pose (see above).

    e.g. +90 degrees sends a point below the centre, (0, +d), to its right, (+d, 0). The pose may
    be arrays of shape ``[m, 1]`` (m poses at once): the result is then ``[m, points, 2]``.
    An angle that reads as radians (np.pi / 4) and a place in pixels (16) are refused.
    """
    if points.shape[-1:] != (2,):
        raise ValueError(f"place(): points must be an array [..., 2] of (u, v) points, got shape "
                         f"{points.shape}; give each point as a pair")
    _check_broadcast("place", x=x, y=y, angle=angle, scale=scale,
                     **{"points[..., 0]": points[..., 0]})
    # one shape for the pose (x [m, 1] with a scalar y: both [m, 1]), so x' and y' stack
    pose = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (x, y, angle, scale)))
    return _place(points, *pose)


def _place(points, x, y, angle, scale) -> np.ndarray:
    """``place`` without the checks at the door: the renderer calls it once per part (thousands
    of times per data set), with poses it has checked already (``sprites._as_part``)."""
    a = np.radians(angle)
    c, s = np.cos(a), np.sin(a)
    points = np.asarray(points, dtype=float)
    u, v = points[..., 0], points[..., 1]
    # (u, v) -> (x + scale (c u + s v), y + scale (-s u + c v))
    return np.stack([x + scale * (c * u + s * v), y + scale * (-s * u + c * v)], axis=-1)


@checked
def pose_matrix(x: X, y: Y, angle: Turn, scale: Scale) -> np.ndarray:
    """The 3x3 matrix of a pose: ``pose_matrix(...) @ (u, v, 1)`` is ``place((u, v), ...)``.

    Scalars give one ``[3, 3]`` matrix; arrays of one shape ``S`` give ``[*S, 3, 3]``.
    """
    _check_broadcast("pose_matrix", x=x, y=y, angle=angle, scale=scale)
    x, y, angle, scale = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                               for v in (x, y, angle, scale)))
    if (scale <= 0).any():
        raise ValueError(f"pose_matrix(): scale must be > 0 (it multiplies lengths), got "
                         f"{np.count_nonzero(scale <= 0)} value(s) <= 0; pass positive scales")
    return _pose_matrix(x, y, angle, scale)


def _pose_matrix(x, y, angle, scale) -> np.ndarray:
    """``pose_matrix`` for arrays already checked, or holding the zero poses of missing parts
    (``parts.voting.predicted_faces``: their votes are multiplied by a presence of 0), or poses a
    model read (``parts.pose_net.face_frame``: a few faces' angles may all be under 6.3)."""
    x, y, angle, scale = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                               for v in (x, y, angle, scale)))
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    zero, one = np.zeros_like(x), np.ones_like(x)
    rows = [[scale * c, scale * s, x], [-scale * s, scale * c, y], [zero, zero, one]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


@checked
def pose_from_matrix(M: Array("pose matrices [..., 3, 3]")):
    """Inverse of ``pose_matrix``: (x, y, angle in (-180, 180], scale); floats for one ``[3, 3]``
    matrix, arrays of shape ``S`` for ``[*S, 3, 3]``."""
    if M.shape[-2:] != (3, 3):
        raise ValueError(f"pose_from_matrix(): M must be pose matrices [..., 3, 3], got shape "
                         f"{M.shape}; pass the 3x3 matrices of pose_matrix")
    if (np.hypot(M[..., 0, 0], M[..., 1, 0]) == 0).any():
        raise ValueError(f"pose_from_matrix(): M must be pose matrices, whose linear part (scale "
                         f"cos, scale sin) is non-zero, got "
                         f"{np.count_nonzero(np.hypot(M[..., 0, 0], M[..., 1, 0]) == 0)} of scale "
                         "0, which have no angle; pass matrices of pose_matrix")
    if not np.allclose(M[..., 2, :], (0, 0, 1)):
        raise ValueError(f"pose_from_matrix(): M must be pose matrices, whose last row is (0, 0, "
                         f"1), got {np.count_nonzero(~np.isclose(M[..., 2, :], (0, 0, 1)).all(-1))}"
                         " with another last row (a projective map, no pose); pass matrices of "
                         "pose_matrix, or a product of them")
    a, b, c, d = M[..., 0, 0], M[..., 0, 1], M[..., 1, 0], M[..., 1, 1]
    scale = np.hypot(a, c)
    turned = np.isclose(d, a, atol=1e-6 * scale) & np.isclose(c, -b, atol=1e-6 * scale)
    if not turned.all():
        raise ValueError(f"pose_from_matrix(): M must be pose matrices, whose linear part is a "
                         f"turn times one scale ((s cos, s sin), (-s sin, s cos)), got "
                         f"{np.count_nonzero(~turned)} that also stretch or shear; pass matrices "
                         "of pose_matrix, or a product of them")
    return _pose_from_matrix(M)


def _pose_from_matrix(M: np.ndarray):
    """``pose_from_matrix`` for matrices already checked, or of missing parts (scale 0, read as
    the zero pose: ``parts.voting.predicted_faces``)."""
    M = M.astype(float)
    scale = np.hypot(M[..., 0, 0], M[..., 1, 0])
    angle = np.degrees(np.arctan2(M[..., 0, 1], M[..., 0, 0]))
    pose = (M[..., 0, 2], M[..., 1, 2], angle, scale)
    return tuple(float(v) for v in pose) if M.ndim == 2 else pose

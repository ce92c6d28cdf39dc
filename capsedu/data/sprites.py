"""A part and how it is drawn: the sprite of each kind of part, and the renderer that turns parts
into pixels (the faces-of-parts world of ``faces`` is drawn with it; notebooks 01, 02, 04 and 07
show its images, and 07's part detector reads them).

Coordinate conventions are those of ``capsedu.poses``: ``x`` and ``y`` are fractions of the image
(``(0, 0)`` top-left, ``y`` growing downward, like image rows), ``angle`` is in degrees,
counter-clockwise as seen on screen, and ``scale`` multiplies a part's size (not the pen width,
which is the same for every part). A part's pose is ``(x, y, angle, scale)``; sprites are drawn in
the part's own frame, with the same conventions, centred on the part's position, at scale 1.
"""

from typing import Annotated, NamedTuple

import numpy as np
import torch
from pydantic import AfterValidator, BeforeValidator

from ..checks import check_same
from ..course_settings import MAX_SIDE, MIN_SIDE, Checked
from ..memory import check_memory
from ..poses import Angle, Scale, X, Y, _place
from ..refusals import declared_error, kind_of, shown
from ..units import DrawnInDegrees
from ..validate import Choice, Int, Spec, checked

STROKE = "stroke"  # a distractor: a short straight line, not a face part
PEN = 0.04  # half-width of the pen, in image fractions (about 1.3 px at 32 x 32)
STROKE_LENGTH = 0.13  # a stroke at scale 1; faces.dataset draws lengths in [0.10, 0.16]
# the largest image side a caller may ask for: past it a sprite's pen (PEN, about 1.3 px at 32)
# is a thin line in a sea of pixels, no longer a parts world, and each image is side**2 floats;
# the least (MIN_SIDE) is where a part's pen still covers a pixel centre wherever it is drawn
Side = Int("an image's side in pixels", ge=MIN_SIDE, le=MAX_SIDE)
# scenes one call draws (faces.MAX_IMAGES reads it): the course's largest draw is 18,000 images
# (the part detector's, 3 x 6,000 examples); 100,000 faces took 3 minutes on a busy 2-core
# machine, 20,000 well under one (probe 30: no call a learner makes runs past a minute)
MAX_SCENES = 20_000


class _Pose(NamedTuple):
    kind: str
    x: float
    y: float
    angle: float = 0.0
    scale: float = 1.0


class Part(_Pose):
    """One sprite and its pose: ``kind`` is one of ``faces.PART_KINDS`` or ``STROKE``; checked
    when made (``_replace`` too): a known kind, a finite pose, a scale > 0 (``_checked``)."""

    __slots__ = ()

    def __new__(cls, kind, x, y, angle=0.0, scale=1.0):
        return super().__new__(cls, *_checked(_Pose(kind, x, y, angle, scale), "Part"))

    @classmethod
    def _make(cls, iterable):  # what _replace builds with: checked too
        return cls(*iterable)


# --- Sprites ----------------------------------------------------------------------------------
# A sprite is a list of line segments in the part's frame, one row (ax, ay, bx, by) per segment.
# Arcs are short polylines; a dot is a segment of length zero (the pen makes it round).


def _polyline(points) -> np.ndarray:
    points = np.asarray(points, dtype=float)
    return np.column_stack([points[:-1], points[1:]])


def _arc(rx, ry, t0=0.0, t1=360.0, n=8, cy=0.0) -> np.ndarray:
    """Segments along an ellipse arc; t in degrees from +x toward +y (down): 90 is the bottom."""
    t = np.radians(np.linspace(t0, t1, n + 1))
    return _polyline(np.column_stack([rx * np.cos(t), cy + ry * np.sin(t)]))


_LEFT_EYE = np.vstack(
    [
        _arc(0.08, 0.05),  # the eye's outline
        [0.03, 0.0, 0.03, 0.0],  # the pupil, looking right (toward the nose)
        [-0.09, -0.085, 0.06, -0.115],  # the brow, rising toward the nose
    ]
)
_SPRITES: dict[str, np.ndarray] = {
    "left_eye": _LEFT_EYE,
    "right_eye": _LEFT_EYE * [-1, 1, -1, 1],  # the mirror image (x -> -x): looks at the nose too
    # An upside-down T: a bridge with a foot, so that the nose has an up and a down.
    "nose": np.array([[0.0, -0.06, 0.0, 0.05], [-0.045, 0.05, 0.045, 0.05]]),
    # A smile: the lower part of an ellipse, ends up. Upside down it reads as a frown.
    "mouth": _arc(0.14, 0.09, 15, 165, n=6, cy=-0.05),
    STROKE: np.array([[-STROKE_LENGTH / 2, 0.0, STROKE_LENGTH / 2, 0.0]]),
}


def _is_part(value) -> bool:
    """Whether ``value`` reads as one part, ``Part(kind, x, y, ...)`` or ``(kind, x, y, ...)``:
    a tuple or a list whose first item is a kind, a string (a scene's first item is a part)."""
    return isinstance(value, tuple | list) and len(value) > 0 and isinstance(value[0], str)


def _many(value, one: str, items: str, wrap: str):
    """A list of ``items`` (parts, scenes), refusing one of them given itself (``one``), whose
    own items would be taken as the list's, saying to ``wrap`` it."""
    listed = isinstance(value, tuple | list) and not _is_part(value)
    if _is_part(value) if one == "part" else listed and any(map(_is_part, value)):
        raise declared_error(TypeError, f"must be a list of {items}, got one {one}, "
                             f"{shown(value)}; wrap one {one} as {wrap}", "sequence")
    return value


def _at_most_scenes(scenes):
    """Refuse more than ``MAX_SCENES`` scenes before any is read: each is checked, then drawn."""
    if isinstance(scenes, list | tuple) and len(scenes) > MAX_SCENES:
        raise declared_error(ValueError, f"must hold at most {MAX_SCENES:,} scenes (the most one "
                             f"call draws), got {len(scenes):,}; draw them in chunks", "sequence")
    return scenes


def _each_part(parts):
    """Refuse parts holding one ``as_part`` refuses (an unknown kind, a NaN pose) by its index,
    as the caller's argument: the renderer or the router that would meet it is not the caller's."""
    for i, p in enumerate(parts):
        try:
            _as_part(p, "")
        except (TypeError, ValueError) as err:
            raise declared_error(type(err), f"must hold parts of known kinds and finite poses; "
                                 f"its item {i}: {str(err).removeprefix('(): ')}",
                                 "sequence") from None
    return parts


# A scene's parts: a list or a tuple, never a string (whose letters would be taken as parts one
# by one) or a single Part (whose fields would), each part of a known kind and a finite pose
Parts = Annotated[list | tuple, BeforeValidator(lambda v: _many(v, "part", "parts", "[part]")),
                  AfterValidator(lambda v: _each_part(v))]
# scenes: a list (or a tuple) of scenes, each a list or a tuple of parts (never a string), never
# one scene (whose parts would be taken as scenes)
Scene = Annotated[Parts, Spec("a scene: a list of parts, e.g. [('nose', 0.5, 0.5)]", "list")]
Scenes = Annotated[list[Scene] | tuple[Scene, ...], BeforeValidator(
    lambda v: _many(v, "scene", "scenes (each a list of parts)", "[parts]")),
                   BeforeValidator(lambda v: _at_most_scenes(v))]


ONE_PART = "a Part or a tuple (kind, x, y[, angle, scale])"


def _one_part(value, name: str) -> Part:
    """``value`` as a ``Part``: a ``Part``, or a plain tuple (or a list, as a scene may hold it)
    ``(kind, x, y[, angle, scale])`` of a known kind and a finite pose, refused by ``name``."""
    if not _is_part(value) or not 3 <= len(value) <= len(_Pose._fields):
        raise TypeError(f"{name} must be {ONE_PART}, got {shown(value)}; pass e.g. "
                        "Part('nose', 0.5, 0.5) or ('nose', 0.5, 0.5)")
    try:
        return _as_part(value, "")
    except (TypeError, ValueError) as err:  # an unknown kind, a pose that is not finite numbers
        raise type(err)(f"{name} must be {ONE_PART} of a known kind and a finite pose: "
                        f"{str(err).removeprefix('(): ')}") from None


# one part, however it is written: handed on as a Part
OnePart = Checked(_one_part, ONE_PART, "record")


def _angles_in_degrees(parts):
    """Refuse parts a caller placed whose angles all read as radians (``units.DrawnInDegrees``:
    ('nose', 0.5, 0.5, 0.5236) for a nose turned 30 degrees; a scene's angles may be the random
    ones of ``faces.scramble``, a few of them under 6.3 degrees, not all); hands them on.
    Checked once at the entry, not part by part: a scene the course drew goes unchecked."""
    angles = [p[3] if len(p) > 3 else 0.0 for p in ([parts] if _is_part(parts) else parts)]
    try:
        DrawnInDegrees.func(np.array(angles, dtype=float))
    except ValueError as err:
        raise ValueError(str(err).replace("must be", "must hold", 1).replace(
            "in degrees,", "in degrees (a part's fourth number),", 1)) from None
    return parts


# one part, or the parts of a scene, a caller placed: their angles in degrees, radians refused
ChosenPart = Annotated[OnePart, AfterValidator(_angles_in_degrees)]
ChosenParts = Annotated[Parts, AfterValidator(_angles_in_degrees)]


@checked
def as_part(p: OnePart) -> Part:
    """``p`` (a ``Part`` or a plain ``(kind, x, y, angle, scale)`` tuple) as a ``Part``, checked:
    a known kind, a finite pose (a NaN would blank the image)."""
    return p


def _as_part(p, where: str) -> Part:
    """``as_part`` for the renderer and ``faces``, which call it for every part of every scene:
    the part's own checks only, their messages naming ``where`` it was called."""
    if isinstance(p, Part):  # checked when made
        return p
    try:
        part = _Pose(*p)
    except TypeError:  # too few or too many fields, or not a sequence at all
        raise TypeError(f"{where}(): a part must be a Part or a tuple (kind, x, y[, angle, "
                        f"scale]), got {p!r}; e.g. Part('nose', 0.5, 0.5)") from None
    return tuple.__new__(Part, _checked(part, where))  # checked above: made as it is


def _checked(part: _Pose, where: str) -> _Pose:
    """Refuse a part of an unknown kind, a pose that is not finite numbers or a scale <= 0, in
    words naming ``where`` it was made (a NaN would blank the image)."""
    if any(isinstance(v, str | bytes | bool | np.bool_) for v in part[1:]):
        raise TypeError(f"{where}(): part {part.kind!r}'s pose (x, y, angle, scale) must be "
                        f"numbers, got {tuple(part[1:])}; pass floats, e.g. 0.5, not '0.5'")
    if part.kind not in _SPRITES:
        raise ValueError(f"{where}(): a part's kind must be one of {tuple(_SPRITES)}, got "
                         f"{part.kind!r}; pass a face part or {STROKE!r}")
    pose = np.asarray(part[1:], dtype=float)
    if not np.isfinite(pose).all() or pose[3] <= 0:
        raise ValueError(
            f"{where}(): part {part.kind!r}'s pose (x, y, angle, scale) must be finite numbers, "
            f"its scale > 0, got {tuple(part[1:])}; find where the NaN, the infinity or the "
            "scale came from (a division by 0?)")
    return part


def _one_each(parts, where: str, name: str) -> list[Part]:
    """``parts`` as ``Part`` records (``_as_part``), refusing a face part's kind twice (strokes may
    repeat): where one of each is meant (a slot per kind, a part named) the second would
    overwrite the first, or go unread."""
    parts = [_as_part(p, where) for p in parts]
    kinds = [p.kind for p in parts]
    if twice := sorted({k for k in kinds if k != STROKE and kinds.count(k) > 1}):
        raise ValueError(f"{where}(): {name} must hold at most one part of each kind (strokes "
                         f"aside), got {', '.join(twice)} more than once; drop the extra ones")
    return parts


# --- Where a part's ink is ------------------------------------------------------------------------


@checked
def segments(parts: Parts) -> np.ndarray:
    """The strokes that draw ``parts``, in image coordinates: rows (ax, ay, bx, by).

    ``render`` turns them into pixels; plots draw them as lines (e.g. a "ghost" face). Parts
    that put no ink on the image at all are refused, as ``render`` refuses them (x and y are
    fractions of the image, not pixels); a part reaching past its edge (a ghost face half out)
    is drawn.
    """
    parts = [_as_part(p, "segments") for p in parts]
    _refuse_off_canvas("segments", "parts", parts, every=False)
    return np.vstack([_segments(p) for p in parts] + [np.zeros((0, 4))])


def _segments(part: Part) -> np.ndarray:
    """One part's segments in image coordinates: rows (ax, ay, bx, by)."""
    ends = _place(_SPRITES[part.kind].reshape(-1, 2), part.x, part.y, part.angle, part.scale)
    return ends.reshape(-1, 4)


@checked
def ink_boxes(kind: Choice("a kind of part", *_SPRITES), x: X, y: Y, angle: Angle,
              scale: Scale) -> np.ndarray:
    """Boxes around a sprite's ink for m poses (numbers, or arrays of shape [m]): [m, 4] as
    (x0, y0, x1, y1)."""
    varied = {k: np.size(v) for k, v in dict(x=x, y=y, angle=angle, scale=scale).items()
              if np.size(v) > 1}  # the poses given as arrays [m]: the same m each
    check_same("ink_boxes", "length", "pass m values for each pose that varies, one number for "
               "each that does not", **varied)
    return _ink_boxes(kind, x, y, angle, scale)


def _ink_boxes(kind, x, y, angle, scale) -> np.ndarray:
    """``ink_boxes`` without the checks at the door: ``faces`` calls it for every batch of
    candidate places it draws (thousands per dataset), with kinds and poses it made itself."""
    # [m, 1] each (one number, or one array of 1, stands for all m)
    x, y, angle, scale = np.broadcast_arrays(*(np.asarray(v, dtype=float).reshape(-1, 1)
                                               for v in (x, y, angle, scale)))
    ends = _place(_SPRITES[kind].reshape(-1, 2), x, y, angle, scale)  # [m, points, 2]
    return np.concatenate([ends.min(axis=1) - PEN, ends.max(axis=1) + PEN], axis=1)


def _on_canvas(parts: list[Part]) -> np.ndarray:
    """``[len(parts)]`` bool: whether each part's ink box reaches into the image (``[0, 1]`` in
    x and y); a part outside it draws nothing."""
    if not parts:
        return np.zeros(0, dtype=bool)
    boxes = np.vstack([_ink_boxes(p.kind, p.x, p.y, p.angle, p.scale) for p in parts])
    return (boxes[:, 0] < 1) & (boxes[:, 2] > 0) & (boxes[:, 1] < 1) & (boxes[:, 3] > 0)


def _outside(parts: list[Part]) -> Part | None:
    """The first part of ``parts`` placed outside the image (x or y outside 0 to 1), where a
    slider or the detector's grid cannot put it; None if there is none (a stroke, a distractor,
    may leave)."""
    return next((p for p in parts if p.kind != STROKE and not (0 <= p.x <= 1 and 0 <= p.y <= 1)),
                None)


def _refuse_off_canvas(where: str, name: str, parts: list[Part], every: bool = True,
                       fix: str = "pass fractions, e.g. 0.5 for the centre, not pixels") -> None:
    """Refuse ``parts`` with a part wholly off the image (``every``), or (not ``every``) with no
    part on it at all: x and y are fractions of the image, so pixel coordinates (16, not 0.5)
    put a part far off it, and a blank image would come back without a word."""
    off = [p for p, on in zip(parts, _on_canvas(parts), strict=True) if not on]
    if off and (every or len(off) == len(parts)):
        shown = ", ".join(f"{p.kind!r} at ({p.x:g}, {p.y:g})" for p in off[:4])
        raise ValueError(f"{where}(): {name} must put ink on the image (x and y are fractions of "
                         f"it, from 0 to 1), got {shown} wholly off it; {fix}")


# --- Rendering --------------------------------------------------------------------------------


@checked
def render(parts: Parts, size: Side = 32
           ) -> np.ndarray:
    """Draw parts (``Part`` or plain ``(kind, x, y, angle, scale)`` tuples) as a float32 image.

    Returns ``[size, size]`` in [0, 1], black background, ink = 1. A part whose ink falls wholly
    off the image (x, y are fractions of it, not pixels) is refused: it would draw nothing.
    """
    parts = [_as_part(p, "render") for p in parts]
    _refuse_off_canvas("render", "parts", parts)
    return _render_many([parts], size, "render(): parts")[0]


@checked
def render_many(scenes: Scenes, size: Side = 32
                ) -> torch.Tensor:
    """``render`` for a list of scenes at once, as the models read them: a batch
    ``[len(scenes), 1, size, size]`` float32 tensor."""
    scenes = [[_as_part(p, "render_many") for p in parts] for parts in scenes]
    return torch.from_numpy(_render_many(scenes, size, "render_many(): scenes")).unsqueeze(1)


def _drawn_scene(scene, name: str) -> list | tuple:
    """A scene ``render_scenes`` takes as it is: a list of ``Part`` of known kinds (an isinstance
    and a lookup per part, not ``as_part``'s checks of every pose)."""
    if not isinstance(scene, list | tuple):
        raise TypeError(f"{name} must be a scene, a list of Part, got {kind_of(scene)[:60]}; pass "
                        "a list of scenes, each a list of parts")
    for i, p in enumerate(scene):
        if not isinstance(p, Part) or p.kind not in _SPRITES:
            error = TypeError if not isinstance(p, Part) else ValueError
            raise error(f"{name} must be a scene, a list of Part of the kinds {tuple(_SPRITES)}, "
                        f"its item {i} is {kind_of(p)[:60]}; pass such Parts, or plain tuples to "
                        "render_many, which checks each")
    return scene


@checked
def render_scenes(scenes: Annotated[list[Checked(_drawn_scene, "a scene: a list of Part", "list")],
                                    BeforeValidator(_at_most_scenes)],
                  size: Side) -> torch.Tensor:
    """``render_many`` of scenes that are lists of valid ``Part`` already (those ``faces`` draws),
    without checking every part again: ``[len(scenes), 1, size, size]``."""
    return torch.from_numpy(_render_many(scenes, size, "render_scenes(): scenes")).unsqueeze(1)


# The renderer's temporaries: about this many float32 arrays of [images, segments, pixels] are
# alive at once in its loop, and it renders as many images at a time as keep them within
# RENDER_CHUNK_BYTES (at most RENDER_CHUNK images).
RENDER_TEMPORARIES = 6
RENDER_CHUNK_BYTES = 2**28  # 256 MiB
RENDER_CHUNK = 32


def _render_many(scenes: list[list[Part]], size: int, where: str) -> np.ndarray:
    """Render several lists of parts at once: ``[len(scenes), size, size]`` float32.

    Every segment is placed in the image by its part's pose; then each pixel centre gets the
    distance d to the nearest segment, and intensity clip(1 - d / PEN, 0, 1) (a soft pen of
    half-width PEN). Placing the segments is the same as pulling the pixel grid back into each
    part's frame (a pose is a turn, a uniform scale and a shift), only cheaper; and the nearest
    segment over all parts gives the max of the parts' intensities. ``where``: the caller's
    function and argument, for the memory refusal.
    """
    if not scenes:
        return np.zeros((0, size, size), dtype=np.float32)
    # every scene padded to the most segments any has (a point far outside the image)
    n_segs = max(max(sum(len(_SPRITES[p.kind]) for p in parts) for parts in scenes), 1)
    # the memory it needs before it asks for any: the images, the segments (float64 per scene,
    # stacked, then float32: 4 numbers of 8 + 8 + 4 bytes each) and one chunk's temporaries
    per_image = RENDER_TEMPORARIES * n_segs * size * size * 4
    chunk = int(max(1, min(RENDER_CHUNK, RENDER_CHUNK_BYTES // per_image)))
    check_memory(len(scenes) * (size * size * 4 + n_segs * 4 * 20) + chunk * per_image,
                 f"{where} ({len(scenes):,} images of {size}x{size} pixels, {n_segs} segments "
                 "each, temporaries counted)", "draw fewer scenes at a time, or smaller ones")
    segs = [np.vstack([_segments(p) for p in parts] + [np.zeros((0, 4))]) for parts in scenes]
    out = np.zeros((len(scenes), size * size), dtype=np.float32)
    segs = np.stack([np.vstack([s, np.full((n_segs - len(s), 4), -9.0)]) for s in segs])
    segs = segs.astype(np.float32)  # float32 halves the work, and is plenty for pixels

    centres = ((np.arange(size) + 0.5) / size).astype(np.float32)
    px = np.tile(centres, size)  # pixel (row i, column j) has centre (x_j, y_i), row-major
    py = np.repeat(centres, size)
    for i in range(0, len(scenes), chunk):
        s = segs[i : i + chunk, :, :, None]  # [images, segments, field, 1]: against every pixel
        ax, ay, abx, aby = s[:, :, 0], s[:, :, 1], s[:, :, 2] - s[:, :, 0], s[:, :, 3] - s[:, :, 1]
        dx, dy = px - ax, py - ay  # [images, segments, pixels]
        # The closest point of segment a-b is a + t (b - a), t clipped to [0, 1].
        t = np.clip((dx * abx + dy * aby) / np.maximum(abx**2 + aby**2, 1e-12), 0.0, 1.0)
        dist2 = ((dx - t * abx) ** 2 + (dy - t * aby) ** 2).min(axis=1)
        out[i : i + chunk] = np.clip(1.0 - np.sqrt(dist2) / PEN, 0.0, 1.0)
    return out.reshape(len(scenes), size, size)

"""A synthetic world of faces made of parts: two eyes, a nose and a mouth, plus distractor strokes.

Why: a CNN that ends in global pooling sees a "bag of parts". It can tell *which* parts are in an
image, but not *where* they are relative to one another, so it calls a scrambled face (right
parts, wrong places) a face. Capsules carry each part's pose (position, orientation, scale) and
check that the poses agree on one face. This module generates both kinds of image, with no
download, and returns the poses of the parts that drew each image so that you can inspect them.

Coordinate conventions are those of ``capsedu.poses``: ``x`` and ``y`` are fractions of the image
(``(0, 0)`` top-left, ``y`` growing downward, like image rows), ``angle`` is in degrees,
counter-clockwise as seen on screen, and ``scale`` multiplies a part's size (not the pen width,
which is the same for every part). A part's pose is ``(x, y, angle, scale)``; sprites are drawn in
the part's own frame, with the same conventions, centred on the part's position, at scale 1.

No face outline is drawn: a contour alone would tell a face from a scramble.
"""

from dataclasses import astuple, dataclass
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from ..poses import place
from ..validate import check_integer, check_memory

PART_KINDS = ("left_eye", "right_eye", "nose", "mouth")
STROKE = "stroke"  # a distractor: a short straight line, not a face part
KINDS = ("face", "nonface", "swapped", "permuted", "random", "upside_down", "rotated")
SCRAMBLED_KINDS = ("swapped", "permuted", "random", "upside_down")
LABELS = {kind: int(kind in ("face", "rotated")) for kind in KINDS}  # 1 = face, 0 = not a face

# Where each part sits relative to the face centre, in the face frame at scale 1 (x right, y down).
# "left_eye" is the eye on the viewer's left (smaller x).
CANONICAL_OFFSETS: dict[str, tuple[float, float]] = {
    "left_eye": (-0.18, -0.14),
    "right_eye": (0.18, -0.14),
    "nose": (0.0, 0.03),
    "mouth": (0.0, 0.23),
}

PEN = 0.04  # half-width of the pen, in image fractions (about 1.3 px at 32 x 32)
MARGIN = 0.01  # ink keeps at least this far from the image border
STROKE_LENGTH = 0.13  # a stroke at scale 1; dataset() draws lengths in [0.10, 0.16]
_OFFSETS = [CANONICAL_OFFSETS[k] for k in PART_KINDS]


class Part(NamedTuple):
    """One sprite and its pose: ``kind`` is one of ``PART_KINDS`` or ``STROKE``."""

    kind: str
    x: float
    y: float
    angle: float = 0.0
    scale: float = 1.0


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


# --- Placing parts ------------------------------------------------------------------------------


def face_parts(x=0.5, y=0.5, angle=0.0, scale=1.0) -> list[Part]:
    """The four parts of a face with pose ``(x, y, angle, scale)``, in ``PART_KINDS`` order.

    Each part sits at face pose o canonical offset (the offset turned by the face angle, times the
    scale, added to the centre) and inherits the face's angle and scale.
    """
    return _parts_at(_OFFSETS, x, y, angle, scale)


def _parts_at(offsets, x, y, angle, scale) -> list[Part]:
    """The four part kinds, in order, at these offsets from a face with this pose."""
    centres = place(offsets, x, y, angle, scale)
    return [
        Part(k, float(cx), float(cy), float(angle), float(scale))
        for k, (cx, cy) in zip(PART_KINDS, centres, strict=True)
    ]


def _as_part(p) -> Part:
    """``p`` as a ``Part``, checked: a known kind, a finite pose (a NaN would blank the image)."""
    part = p if isinstance(p, Part) else Part(*p)
    if part.kind not in _SPRITES:
        raise ValueError(
            f"unknown part kind {part.kind!r}; expected one of {PART_KINDS + (STROKE,)}"
        )
    if not np.isfinite(np.asarray(part[1:], dtype=float)).all():
        raise ValueError(
            f"part {part.kind!r} has pose (x, y, angle, scale) = {tuple(part[1:])}; every value "
            "must be a finite number. Find where the NaN or infinity came from (a division by 0?)."
        )
    return part


def _index(parts: list[Part], kind: str) -> int:
    """Where the part of ``kind`` is in ``parts``; a clear ``ValueError`` when it is missing."""
    for i, p in enumerate(parts):
        if p.kind == kind:
            return i
    raise ValueError(f"parts holds no {kind!r} (it holds {[p.kind for p in parts]}); "
                     f"choose a part it has, from {PART_KINDS + (STROKE,)}")


def segments(parts) -> np.ndarray:
    """The strokes that draw ``parts``, in image coordinates: rows (ax, ay, bx, by).

    ``render`` turns them into pixels; plots draw them as lines (e.g. a "ghost" face).
    """
    return np.vstack([_segments(_as_part(p)) for p in parts] + [np.zeros((0, 4))])


def _segments(part: Part) -> np.ndarray:
    """One part's segments in image coordinates: rows (ax, ay, bx, by)."""
    ends = place(_SPRITES[part.kind].reshape(-1, 2), part.x, part.y, part.angle, part.scale)
    return ends.reshape(-1, 4)


def _boxes(kind, x, y, angle, scale) -> np.ndarray:
    """Boxes around a sprite's ink for m poses (arrays of shape [m]): [m, 4] as (x0, y0, x1, y1)."""
    x, y, angle, scale = (np.asarray(v, dtype=float).reshape(-1, 1) for v in (x, y, angle, scale))
    ends = place(_SPRITES[kind].reshape(-1, 2), x, y, angle, scale)  # [m, points, 2]
    return np.concatenate([ends.min(axis=1) - PEN, ends.max(axis=1) + PEN], axis=1)


def _box(part: Part) -> np.ndarray:
    return _boxes(part.kind, part.x, part.y, part.angle, part.scale)[0]


def _inside(boxes) -> np.ndarray:
    """Which boxes [m, 4] keep their ink at least MARGIN inside the image."""
    return np.all(boxes[:, :2] >= MARGIN, axis=1) & np.all(boxes[:, 2:] <= 1 - MARGIN, axis=1)


def _clear(boxes, placed, gap=0.01) -> np.ndarray:
    """Which boxes [m, 4] stay at least ``gap`` away from every box in ``placed`` [p, 4]."""
    b, p = boxes[:, None, :], np.reshape(placed, (1, -1, 4))
    overlap = (b[..., 0] < p[..., 2] + gap) & (p[..., 0] < b[..., 2] + gap)
    overlap &= (b[..., 1] < p[..., 3] + gap) & (p[..., 1] < b[..., 3] + gap)
    return ~overlap.any(axis=1)


# --- Rendering --------------------------------------------------------------------------------


def render(parts, size=32) -> np.ndarray:
    """Draw parts (``Part`` or plain ``(kind, x, y, angle, scale)`` tuples) as a float32 image.

    Returns ``[size, size]`` in [0, 1], black background, ink = 1.
    """
    return _render_many([[_as_part(p) for p in parts]], size)[0]


def render_many(scenes, size=32) -> torch.Tensor:
    """``render`` for a list of scenes at once, as the models read them: a batch
    ``[len(scenes), 1, size, size]`` float32 tensor."""
    return _as_batch(_render_many([[_as_part(p) for p in parts] for parts in scenes], size))


def _as_batch(images: np.ndarray) -> torch.Tensor:
    """Rendered images ``[n, size, size]`` as the models' batch ``[n, 1, size, size]``."""
    return torch.from_numpy(images).unsqueeze(1)


def _render_many(scenes: list[list[Part]], size: int, chunk: int = 32) -> np.ndarray:
    """Render several lists of parts at once: ``[len(scenes), size, size]`` float32.

    Every segment is placed in the image by its part's pose; then each pixel centre gets the
    distance d to the nearest segment, and intensity clip(1 - d / PEN, 0, 1) (a soft pen of
    half-width PEN). Placing the segments is the same as pulling the pixel grid back into each
    part's frame (a pose is a turn, a uniform scale and a shift), only cheaper; and the nearest
    segment over all parts gives the max of the parts' intensities.
    """
    if not isinstance(size, (int, np.integer)) or size <= 0:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    out = np.zeros((len(scenes), size * size), dtype=np.float32)
    if not scenes:
        return out.reshape(0, size, size)
    segs = [np.vstack([_segments(p) for p in parts] + [np.zeros((0, 4))]) for parts in scenes]
    # Pad every scene to the same number of segments with a point far outside the image.
    n_segs = max([len(s) for s in segs] + [1])
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


# --- Scenes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FacePoses:
    """The ranges a scene's face pose is drawn from, and how far each face part strays from it.

    The defaults (``TRAINING_POSES``) are the ones every training and held-out set of the course
    uses; other values make faces the models never trained on (smaller, larger, off-centre,
    sloppier), to test a claim on cases it was not designed for.
    """

    shift: tuple[float, float] = (0.0, 0.06)  # face centre - image centre, per axis: |dx|, |dy|
    #                                           at most the high end, the larger at least the low
    angle: float = 15.0  # an upright face turns by up to this many degrees (rotated: any angle)
    scale: tuple[float, float] = (0.85, 1.1)
    jitter: tuple[float, float] = (0.0, 0.0)  # each face part moves this far (image fractions)
    jitter_angle: float = 0.0  # ... and turns by up to this many degrees
    displace: tuple[float, float] = (0.0, 0.0)  # then one part, drawn at random, moves this far


TRAINING_POSES = FacePoses()


def _face_pose(rng, rotated: bool, poses: FacePoses):
    """A face pose: centre offset by ``poses.shift``, angle within +-``poses.angle`` (any angle if
    ``rotated``), scale within ``poses.scale``."""
    lo, hi = poses.shift
    while True:
        dx, dy = rng.uniform(-hi, hi, size=2)
        if max(abs(dx), abs(dy)) >= lo:
            break
    angle = rng.uniform(-180.0, 180.0) if rotated else rng.uniform(-poses.angle, poses.angle)
    return float(0.5 + dx), float(0.5 + dy), float(angle), float(rng.uniform(*poses.scale))


def _stray(parts: list[Part], rng, poses: FacePoses) -> list[Part]:
    """Move each face part a distance drawn from ``poses.jitter`` in a random direction and turn
    it by up to ``poses.jitter_angle`` degrees; then move one part, drawn at random, a distance
    drawn from ``poses.displace``. No draw at all for the ranges that are zero."""
    out = list(parts)
    if poses.jitter != (0.0, 0.0) or poses.jitter_angle != 0.0:
        for k, p in enumerate(out):
            r, direction = rng.uniform(*poses.jitter), rng.uniform(0, 2 * np.pi)
            turn = rng.uniform(-poses.jitter_angle, poses.jitter_angle)
            out[k] = p._replace(x=p.x + r * np.cos(direction), y=p.y + r * np.sin(direction),
                                angle=p.angle + turn)
    if poses.displace != (0.0, 0.0):
        k = rng.integers(len(out))
        r, direction = rng.uniform(*poses.displace), rng.uniform(0, 2 * np.pi)
        out[k] = out[k]._replace(x=out[k].x + r * np.cos(direction),
                                 y=out[k].y + r * np.sin(direction))
    return out


def _derangement(rng, n=4) -> np.ndarray:
    """A uniformly random permutation with no fixed point (rejection sampling: 9 of 24 for n=4)."""
    while True:
        perm = rng.permutation(n)
        if not np.any(perm == np.arange(n)):
            return perm


def _scatter(rng, kind, boxes: list, angle, scale, rounds: int, batch: int = 16,
             gap: float = 0.01) -> Part | None:
    """A part of ``kind`` at a random spot, inside the image and clear of ``boxes``, or None.

    ``angle`` and ``scale`` are (low, high) ranges; ``gap`` is the least distance between boxes
    (negative: boxes may overlap by that much). Draws ``batch`` candidates at a time and keeps
    the first that fits (rejection sampling, vectorised). Appends the new part's box to ``boxes``.
    """
    for _ in range(rounds):
        x, y = rng.uniform(0.0, 1.0, size=(2, batch))
        a, s = rng.uniform(*angle, size=batch), rng.uniform(*scale, size=batch)
        cand = _boxes(kind, x, y, a, s)
        ok = np.flatnonzero(_inside(cand) & _clear(cand, boxes, gap))
        if len(ok):
            i = ok[0]
            boxes.append(cand[i])
            return Part(kind, float(x[i]), float(y[i]), float(a[i]), float(s[i]))
    return None


def _random_parts(rng, kinds, angle, scale) -> list[Part]:
    """Parts anywhere in the image, not overlapping, turned by the face angle +- 15 degrees."""
    parts, boxes = [], []
    for kind in kinds:
        part = _scatter(rng, kind, boxes, (angle - 15, angle + 15), (scale, scale), rounds=800)
        if part is None:
            raise RuntimeError("could not place the parts without overlap")
        parts.append(part)
    return parts


def _layout(kind: str, pose, rng) -> list[Part]:
    """The face parts of one image of ``kind`` (no strokes yet), for a face pose."""
    x, y, angle, scale = pose
    if kind in ("face", "rotated"):
        return face_parts(*pose)
    if kind == "upside_down":  # "Thatcher": every part turned 180 degrees where it stands
        return [p._replace(angle=angle + 180.0) for p in face_parts(*pose)]
    if kind == "swapped":
        # Rows swapped: reflect each offset top <-> bottom about the line halfway between the eye
        # row and the mouth row (face frame), parts staying upright. The eyes land on the mouth's
        # row, the mouth on the eyes' row, and the nose (near that line) moves down a little.
        twice_mid = CANONICAL_OFFSETS["left_eye"][1] + CANONICAL_OFFSETS["mouth"][1]
        return _parts_at([(dx, twice_mid - dy) for dx, dy in _OFFSETS], *pose)
    if kind == "permuted":  # kinds shuffled among the four slots, none left in its own slot
        perm = _derangement(rng)  # part kind PART_KINDS[i] goes to the slot of PART_KINDS[perm[i]]
        return _parts_at([_OFFSETS[j] for j in perm], *pose)
    if kind == "random":
        return _random_parts(rng, PART_KINDS, angle, scale)
    # nonface: keep 0 to 3 of the parts, at their face positions or at random positions
    keep = [PART_KINDS[i] for i in sorted(rng.choice(4, size=rng.integers(0, 4), replace=False))]
    if rng.random() < 0.5:
        return [p for p in face_parts(*pose) if p.kind in keep]
    return _random_parts(rng, keep, angle, scale)


def _scene(kind: str, rng, poses: FacePoses = TRAINING_POSES) -> list[Part]:
    """Parts and 1-3 distractor strokes (clear of the parts) of one image of ``kind``."""
    for _ in range(1000):  # resample the face pose until every part is inside the image
        pose = _face_pose(rng, kind == "rotated", poses)
        parts = _stray(_layout(kind, pose, rng), rng, poses)
        boxes = [_box(p) for p in parts]
        if _inside(np.reshape(boxes, (-1, 4))).all():
            break
    else:
        raise RuntimeError(f"could not fit a {kind!r} layout inside the image")
    return _add_strokes(parts, boxes, rng)


def _add_strokes(parts: list[Part], boxes: list, rng) -> list[Part]:
    """``parts`` and 1-3 distractor strokes clear of them (lengths 0.10-0.16, any angle)."""
    lengths = (0.10 / STROKE_LENGTH, 0.16 / STROKE_LENGTH)
    for i in range(rng.integers(1, 4)):
        # The first stroke always finds room (the corners are free); later ones may give up.
        stroke = _scatter(rng, STROKE, boxes, (0.0, 180.0), lengths, rounds=400 if i == 0 else 12)
        if stroke is None:
            break
        parts.append(stroke)
    return parts


def scattered(n: int, seed: int = 0, size: int = 32, scale=(0.85, 1.1)):
    """``n`` images of 1-4 face parts, each anywhere, at any angle and a scale drawn from
    ``scale`` (low, high), with 1-3 strokes: ``(images [n, 1, size, size], parts)``.

    Not faces and not one of ``KINDS``: training images for a *part detector*, which must find
    a part wherever it is, however it is turned and sized, whatever surrounds it. Parts may touch:
    their boxes may overlap by up to 0.04 (about a pixel), as neighbours do in a scramble.
    """
    check_integer(seed, "seed", 0, "the same seed gives the same images")
    rng = np.random.default_rng([seed, len(KINDS)])  # a stream no kind of dataset() uses
    scenes = []
    for _ in range(n):
        kinds = [PART_KINDS[i] for i in sorted(rng.choice(4, size=rng.integers(1, 5),
                                                           replace=False))]
        parts, boxes = [], []
        for kind in kinds:
            part = _scatter(rng, kind, boxes, (-180.0, 180.0), scale, rounds=800, gap=-0.04)
            if part is not None:
                parts.append(part)
        scenes.append(_add_strokes(parts, boxes, rng))
    return _as_batch(_render_many(scenes, size)), scenes


PART_LIST_BYTES = 2_000  # about what one image's list of Part tuples takes in memory


def dataset(
    kind: str, n: int, seed: int = 0, size: int = 32, poses: FacePoses = TRAINING_POSES
) -> tuple[torch.Tensor, torch.Tensor, list[list[Part]]]:
    """``n`` images of one kind: ``(images, labels, parts)``.

    * ``images``: ``[n, 1, size, size]`` float32 in [0, 1];
    * ``labels``: ``[n]`` int64, 1 for ``face`` and ``rotated``, 0 for every other kind;
    * ``parts``: per image, the list of ``Part`` (face parts first, then strokes) that drew it,
      so ``render(parts[i], size)`` gives back ``images[i, 0]``.

    Kinds: ``face`` (a face, pose jittered), ``rotated`` (a face turned by any angle), ``nonface``
    (0-3 parts, at face or random positions), and the scrambles, which hold all four parts once:
    ``swapped`` (eye and mouth rows swapped), ``permuted`` (no part in its own slot), ``random``
    (parts anywhere), ``upside_down`` (each part turned 180 degrees in place). Every image has 1-3
    distractor strokes, so strokes say nothing about the label.

    ``poses``: the ranges of the face pose (``FacePoses``); the default is the course's training
    range. Deterministic in (kind, n, seed, size, poses); the random stream depends on seed, kind
    and poses, so sets drawn with other ranges share no draws with the training sets.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not isinstance(size, (int, np.integer)) or size <= 0:
        raise ValueError(f"size must be a positive integer, got {size!r}")
    check_integer(seed, "seed", 0, "the same seed gives the same images")
    check_memory(n * (4 * size * size + PART_LIST_BYTES), f"dataset({kind!r}, n={n})",
                 "ask for fewer images, or draw them in chunks with different seeds")
    stream = [seed, KINDS.index(kind)]
    if poses != TRAINING_POSES:  # another stream for every other set of ranges
        stream += [round(1e4 * v) % 2**32 for v in np.hstack(astuple(poses))]
    rng = np.random.default_rng(stream)
    scenes = [_scene(kind, rng, poses) for _ in range(n)]
    images = _as_batch(_render_many(scenes, size))
    labels = torch.full((n,), LABELS[kind], dtype=torch.int64)
    return images, labels, scenes


# --- Editing (used by the widgets) --------------------------------------------------------------


def swap(parts, a: str, b: str) -> list[Part]:
    """Swap the positions of the parts of kinds ``a`` and ``b``; each keeps its own angle."""
    parts = [_as_part(p) for p in parts]
    i, j = _index(parts, a), _index(parts, b)
    parts[i], parts[j] = (parts[i]._replace(x=parts[j].x, y=parts[j].y),
                          parts[j]._replace(x=parts[i].x, y=parts[i].y))
    return parts


def rotate(parts, degrees: float, about=(0.5, 0.5)) -> list[Part]:
    """Turn every part by ``degrees`` (on-screen counter-clockwise) about the point ``about``."""
    out = []
    for p in map(_as_part, parts):
        (x, y), = place([[p.x - about[0], p.y - about[1]]], *about, degrees, 1.0)
        out.append(p._replace(x=float(x), y=float(y), angle=p.angle + degrees))
    return out


def scramble(parts, seed: int) -> list[Part]:
    """The same parts at random non-overlapping positions (angles jittered by up to 15°)."""
    parts = [_as_part(p) for p in parts]
    rng = np.random.default_rng(seed)
    face = [p for p in parts if p.kind in PART_KINDS]
    angle = float(np.mean([p.angle for p in face])) if face else 0.0
    scale = float(np.mean([p.scale for p in face])) if face else 1.0
    moved = iter(_random_parts(rng, [p.kind for p in face], angle, scale))
    return [next(moved) if p.kind in PART_KINDS else p for p in parts]


def face_centre(parts) -> tuple[float, float]:
    """The centre (x, y) of the face parts among ``parts`` (strokes are left out)."""
    face = [p for p in map(_as_part, parts) if p.kind in PART_KINDS]
    if not face:
        raise ValueError(f"parts holds no face part of {PART_KINDS}")
    return float(np.mean([p.x for p in face])), float(np.mean([p.y for p in face]))


def spread(parts, factor: float) -> list[Part]:
    """Move every part ``factor`` times farther from the centre of the four face parts.

    A uniform stretch of the layout: the arrangement stays a face's, each sprite keeps its size
    and angle, and only the gaps between neighbouring sprites grow (so none start to overlap).
    """
    parts = [_as_part(p) for p in parts]
    cx, cy = face_centre(parts)
    # x' = c + factor (x - c), the same for y
    return [p._replace(x=float(cx + factor * (p.x - cx)), y=float(cy + factor * (p.y - cy)))
            for p in parts]


def turn_over(parts, kinds) -> list[Part]:
    """Turn the parts of the given ``kinds`` by 180 degrees where they stand (``upside_down``
    does this to all four): each keeps its place, and looks as it would in a face upside down."""
    parts = [_as_part(p) for p in parts]
    unknown = set(kinds) - set(PART_KINDS)
    if unknown:
        raise ValueError(f"unknown part kinds {sorted(unknown)}; choose from {PART_KINDS}")
    return [p._replace(angle=p.angle + 180.0) if p.kind in kinds else p for p in parts]


# --- Reading scenes ------------------------------------------------------------------------------


def part_slots(scenes) -> tuple[np.ndarray, np.ndarray]:
    """The face parts of each scene, one slot per part kind: poses ``[len(scenes), 4, 4]`` (x, y,
    angle, scale; slot i holds the part of kind ``PART_KINDS[i]``, zeros where it is missing) and
    presence ``[len(scenes), 4]`` (1 or 0). Distractor strokes have no slot."""
    poses, presence = np.zeros((len(scenes), len(PART_KINDS), 4)), np.zeros((len(scenes), 4))
    for b, parts in enumerate(scenes):
        for part in map(_as_part, parts):
            if part.kind in PART_KINDS:
                i = PART_KINDS.index(part.kind)
                poses[b, i], presence[b, i] = part[1:], 1.0
    return poses, presence


def _ink(parts, kind: str, size: int) -> np.ndarray:
    """``[size, size]`` bool: the pixels where part ``kind`` alone puts ink (> 0.5)."""
    parts = [_as_part(p) for p in parts]
    return render([parts[_index(parts, kind)]], size) > 0.5


def ink_gap(parts, a: str, b: str, size: int = 32) -> float:
    """Distance in pixels between the nearest inked pixels (> 0.5) of parts ``a`` and ``b``."""
    pa, pb = np.argwhere(_ink(parts, a, size)), np.argwhere(_ink(parts, b, size))  # [pixels, 2]
    return float(np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1)).min())


def windows_holding_both(parts, a: str, b: str, window: int, size: int = 32) -> int:
    """How many ``window`` x ``window`` squares, one centred on each pixel (the inputs of the
    units of a padded stack of convolutions with that receptive field), hold ink of both parts.

    A unit can only respond to how two parts meet if its window holds some of each.
    """
    if window < 1 or window % 2 == 0:
        raise ValueError(f"window must be an odd number of pixels >= 1, got {window}")
    held = []
    for kind in (a, b):
        ink = torch.from_numpy(_ink(parts, kind, size)).float()[None, None]  # [1, 1, size, size]
        # a window holds some of the part <=> the max of its ink mask over the window is 1
        held.append(F.max_pool2d(ink, window, stride=1, padding=window // 2)[0, 0])
    return int((held[0] * held[1]).sum())


def pair_table(parts, pairs, window: int, size: int = 32) -> str:
    """One line per pair ``(a, b)`` of ``pairs``: how far apart the parts' ink is (``ink_gap``)
    and how many of the ``size * size`` windows of ``window`` pixels hold ink of both
    (``windows_holding_both``)."""
    lines = []
    for a, b in pairs:
        both = windows_holding_both(parts, a, b, window, size)
        lines.append(f"{a:>9} - {b:<9}: {ink_gap(parts, a, b, size):.1f} px apart, "
                     f"{both:>2} of the {size * size} {window}x{window} windows hold ink of both")
    return "\n".join(lines)

"""A synthetic world of faces made of parts: two eyes, a nose and a mouth, plus distractor strokes.

Why: a CNN that ends in global pooling sees a "bag of parts". It can tell *which* parts are in an
image, but not *where* they are relative to one another, so it calls a scrambled face (right
parts, wrong places) a face. Capsules carry each part's pose (position, orientation, scale) and
check that the poses agree on one face. This module generates both kinds of image, with no
download, and returns the poses of the parts that drew each image so that you can inspect them
(notebooks 01, 04, 07 and 10). It holds where a face's parts go, the kinds of image and the ranges
of their poses (``dataset``, ``FacePoses``), the edits the widgets make (``swap``, ``scramble``,
...). What a scene's ink shows a convolution is in ``face_ink``; a part (``sprites.Part``), its
sprite and the renderer are in ``sprites``, whose coordinate conventions (those of
``capsedu.poses``) every pose here follows.

No face outline is drawn: a contour alone would tell a face from a scramble.
"""

from dataclasses import astuple, dataclass
from typing import Annotated

import numpy as np
import torch

from ..checks import check_different
from ..course_settings import Seed
from ..memory import check_memory
from ..poses import _place
from ..units import InDegrees
from ..validate import CheckedRecord, Choice, Float, Int, checked
from .sprites import (
    MAX_SCENES,
    STROKE,
    STROKE_LENGTH,
    Part,
    Parts,
    Scenes,
    Side,
    _as_part,
    _ink_boxes,
    _on_canvas,
    _one_each,
    _refuse_off_canvas,
    render_scenes,
)

PART_KINDS = ("left_eye", "right_eye", "nose", "mouth")
KINDS = ("face", "nonface", "swapped", "permuted", "random", "upside_down", "rotated")
SCRAMBLED_KINDS = ("swapped", "permuted", "random", "upside_down")
LABELS = {kind: int(kind in ("face", "rotated")) for kind in KINDS}  # 1 = face, 0 = not a face
PartKind = Choice("a face part", *PART_KINDS)

# Where each part sits relative to the face centre, in the face frame at scale 1 (x right, y down).
# "left_eye" is the eye on the viewer's left (smaller x).
CANONICAL_OFFSETS: dict[str, tuple[float, float]] = {
    "left_eye": (-0.18, -0.14),
    "right_eye": (0.18, -0.14),
    "nose": (0.0, 0.03),
    "mouth": (0.0, 0.23),
}

MARGIN = 0.01  # ink keeps at least this far from the image border
_OFFSETS = [CANONICAL_OFFSETS[k] for k in PART_KINDS]

# Bounds on what a caller can ask for: a face at MAX_SCALE already fills the image; one call
# draws at most MAX_IMAGES images (sprites.MAX_SCENES: every bound on a count of drawn images
# reads it); an image's side past MAX_SIDE is no longer a parts world.
MAX_SCALE = 3.0
MAX_IMAGES = MAX_SCENES
MAX_PER_KIND = MAX_IMAGES // len(KINDS)  # n of each kind, for a draw of every kind in one call
SHIFT_DRAWS = 100_000  # a face's shift is drawn again at most this many times


# --- Placing parts ------------------------------------------------------------------------------


@checked
def face_parts(x: Float("the face centre's x, in image fractions") = 0.5,
               y: Float("the face centre's y, in image fractions") = 0.5,
               angle: Annotated[Float("degrees, counter-clockwise on screen"), InDegrees] = 0.0,
               scale: Float("the face's scale", gt=0, le=MAX_SCALE) = 1.0) -> list[Part]:
    """The four parts of a face with pose ``(x, y, angle, scale)``, in ``PART_KINDS`` order.

    Each part sits at face pose o canonical offset (the offset turned by the face angle, times the
    scale, added to the centre) and inherits the face's angle and scale. A face wholly off the
    image (``x=16``: pixels, not fractions of the image) is refused, as is an angle in radians.
    """
    return _face_parts(x, y, angle, scale)


def _face_parts(x, y, angle, scale) -> list[Part]:
    """``face_parts`` for a pose a model read (``figures.face_scenes.ghost_lines``): its angle may
    be a fraction of a degree, not refused as radians."""
    parts = _parts_at(_OFFSETS, x, y, angle, scale)
    _refuse_off_canvas("face_parts", "x and y", parts, every=False)
    return parts


def _parts_at(offsets, x, y, angle, scale) -> list[Part]:
    """The four part kinds, in order, at these offsets from a face with this pose."""
    centres = _place(offsets, x, y, angle, scale)
    return [
        Part(k, float(cx), float(cy), float(angle), float(scale))
        for k, (cx, cy) in zip(PART_KINDS, centres, strict=True)
    ]


def _index(parts: list[Part], kind: str, where: str) -> int:
    """Where the part of ``kind`` is in ``parts``, refused naming ``where`` when it is missing or
    when parts holds a face part twice."""
    if kind in (kinds := [p.kind for p in _one_each(parts, where, "parts")]):
        return kinds.index(kind)
    raise ValueError(f"{where}(): each part named must be one that parts holds "
                     f"({kinds}), got {kind!r}; choose a part it has")


def _box(part: Part) -> np.ndarray:
    return _ink_boxes(part.kind, part.x, part.y, part.angle, part.scale)[0]


def _inside(boxes) -> np.ndarray:
    """Which boxes [m, 4] keep their ink at least MARGIN inside the image."""
    return np.all(boxes[:, :2] >= MARGIN, axis=1) & np.all(boxes[:, 2:] <= 1 - MARGIN, axis=1)


def _clear(boxes, placed, gap=0.01) -> np.ndarray:
    """Which boxes [m, 4] stay at least ``gap`` away from every box in ``placed`` [p, 4]."""
    b, p = boxes[:, None, :], np.reshape(placed, (1, -1, 4))
    overlap = (b[..., 0] < p[..., 2] + gap) & (p[..., 0] < b[..., 2] + gap)
    overlap &= (b[..., 1] < p[..., 3] + gap) & (p[..., 1] < b[..., 3] + gap)
    return ~overlap.any(axis=1)


# --- Scenes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FacePoses(CheckedRecord):
    """The ranges a scene's face pose is drawn from, and how far each face part strays from it.

    The defaults (``TRAINING_POSES``) are the ones every training and held-out set of the course
    uses; other values make faces the models never trained on (smaller, larger, off-centre,
    sloppier), to test a claim on cases it was not designed for.
    """

    # face centre - image centre, per axis: |dx|, |dy| at most the high end, the larger at least
    # the low one
    shift: tuple[Float("a shift in image fractions", ge=0, lt=0.5), ...] = (0.0, 0.06)
    # an upright face turns by up to this many degrees (rotated: any angle)
    angle: Annotated[Float("degrees an upright face turns at most", ge=0, le=180),
                     InDegrees] = 15.0
    scale: tuple[Float("a face's scale", gt=0, le=MAX_SCALE), ...] = (0.85, 1.1)
    # each face part moves this far (image fractions) ...
    jitter: tuple[Float("a distance in image fractions", ge=0, le=1), ...] = (0.0, 0.0)
    # ... and turns by up to this many degrees
    jitter_angle: Annotated[Float("degrees a part turns at most", ge=0, le=180),
                            InDegrees] = 0.0
    # then one part, drawn at random, moves this far
    displace: tuple[Float("a distance in image fractions", ge=0, le=1), ...] = (0.0, 0.0)

    def __post_init__(self):
        """Refuse ranges that draw nothing, naming the field: declared types and bounds
        (``CheckedRecord``), and each (low, high) pair in order; a shift's low end below
        its high end, or both 0 (the shift is drawn again until the larger one reaches the low
        end: equal ends never would)."""
        super().__post_init__()
        for name in ("shift", "scale", "jitter", "displace"):
            low_high = getattr(self, name)
            if len(low_high) != 2 or low_high[0] > low_high[1]:
                raise ValueError(f"FacePoses(): {name} must be (low, high) with low <= high, got "
                                 f"{low_high!r}; give the smaller end first")
        if 0 < self.shift[0] == self.shift[1]:
            raise ValueError(f"FacePoses(): shift must have low < high (or both 0), got "
                             f"{self.shift!r}: no draw would land exactly on the low end")


TRAINING_POSES = FacePoses()


def _face_pose(rng, rotated: bool, poses: FacePoses):
    """A face pose: centre offset by ``poses.shift``, angle within +-``poses.angle`` (any angle if
    ``rotated``), scale within ``poses.scale``."""
    lo, hi = poses.shift
    for _ in range(SHIFT_DRAWS):  # each draw lands past lo with chance 1 - (lo / hi)^2
        dx, dy = rng.uniform(-hi, hi, size=2)
        if max(abs(dx), abs(dy)) >= lo:
            break
    else:
        raise ValueError(f"FacePoses(shift={poses.shift!r}): {SHIFT_DRAWS:,} draws never reached "
                         "the low end; leave more room between low and high")
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
        cand = _ink_boxes(kind, x, y, a, s)
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
        return _parts_at(_OFFSETS, *pose)
    if kind == "upside_down":  # "Thatcher": every part turned 180 degrees where it stands
        return [p._replace(angle=angle + 180.0) for p in _parts_at(_OFFSETS, *pose)]
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
        return [p for p in _parts_at(_OFFSETS, *pose) if p.kind in keep]
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


@checked
def scattered(n: Int("images to draw", ge=1, le=MAX_IMAGES), seed: Seed = 0, size: Side = 32,
              scale: tuple[Float("a part's scale", gt=0, le=MAX_SCALE), ...] = (0.85, 1.1)):
    """``n`` images of 1-4 face parts, each anywhere, at any angle and a scale drawn from
    ``scale`` (low, high), with 1-3 strokes: ``(images [n, 1, size, size], parts)``.

    Not faces and not one of ``KINDS``: training images for a *part detector*, which must find
    a part wherever it is, however it is turned and sized, whatever surrounds it. Parts may touch:
    their boxes may overlap by up to 0.04 (about a pixel), as neighbours do in a scramble.
    """
    if len(scale) != 2 or scale[0] > scale[1]:
        raise ValueError(f"scattered(): scale must be (low, high) with low <= high, got {scale}; "
                         "give the smaller end first, e.g. (0.85, 1.1)")
    check_memory(n * (4 * size * size + PART_LIST_BYTES), f"scattered(n={n})",
                 "ask for fewer images, or draw them in chunks with different seeds")
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
    return render_scenes(scenes, size), scenes


PART_LIST_BYTES = 2_000  # about what one image's list of Part tuples takes in memory


@checked
def dataset(
    kind: Choice("the kind of image", *KINDS), n: Int("images to draw", ge=1, le=MAX_IMAGES),
    seed: Seed = 0, size: Side = 32, poses: FacePoses = TRAINING_POSES,
) -> tuple[torch.Tensor, torch.Tensor, list[list[Part]]]:
    """``n`` images of one kind: ``(images, labels, parts)``.

    * ``images``: ``[n, 1, size, size]`` float32 in [0, 1];
    * ``labels``: ``[n]`` int64, 1 for ``face`` and ``rotated``, 0 for every other kind;
    * ``parts``: per image, the list of ``Part`` (face parts first, then strokes) that drew it,
      so ``sprites.render(parts[i], size)`` gives back ``images[i, 0]``.

    Kinds: ``face`` (a face, pose jittered), ``rotated`` (a face turned by any angle), ``nonface``
    (0-3 parts, at face or random positions), and the scrambles, which hold all four parts once:
    ``swapped`` (eye and mouth rows swapped), ``permuted`` (no part in its own slot), ``random``
    (parts anywhere), ``upside_down`` (each part turned 180 degrees in place). Every image has 1-3
    distractor strokes, so strokes say nothing about the label.

    ``poses``: the ranges of the face pose (``FacePoses``); the default is the course's training
    range. Deterministic in (kind, n, seed, size, poses); the random stream depends on seed, kind
    and poses, so sets drawn with other ranges share no draws with the training sets.
    """
    check_memory(n * (4 * size * size + PART_LIST_BYTES), f"dataset({kind!r}, n={n})",
                 "ask for fewer images, or draw them in chunks with different seeds")
    stream = [seed, KINDS.index(kind)]
    if poses != TRAINING_POSES:  # another stream for every other set of ranges
        stream += [round(1e4 * v) % 2**32 for v in np.hstack(astuple(poses))]
    rng = np.random.default_rng(stream)
    scenes = [_scene(kind, rng, poses) for _ in range(n)]
    images = render_scenes(scenes, size)
    labels = torch.full((n,), LABELS[kind], dtype=torch.int64)
    return images, labels, scenes


# --- Editing (used by the widgets) --------------------------------------------------------------


@checked
def swap(parts: Parts, a: str, b: str) -> list[Part]:
    """Swap the positions of the parts of kinds ``a`` and ``b``; each keeps its own angle."""
    check_different("swap", "swapping a part with itself changes nothing", a=a, b=b)
    parts = [_as_part(p, "swap") for p in parts]
    i, j = _index(parts, a, "swap"), _index(parts, b, "swap")
    parts[i], parts[j] = (parts[i]._replace(x=parts[j].x, y=parts[j].y),
                          parts[j]._replace(x=parts[i].x, y=parts[i].y))
    return parts


@checked
def rotate(parts: Parts, degrees: Annotated[Float("degrees, counter-clockwise on screen"),
                                            InDegrees],
           about: tuple[Float("the turning point's x"), Float("the turning point's y")]
           = (0.5, 0.5)) -> list[Part]:
    """Turn every part by ``degrees`` (on-screen counter-clockwise) about the point ``about``, in
    fractions of the image (not pixels): a turn that takes every part off the image is refused."""
    return _rotate(parts, degrees, about)


def _rotate(parts, degrees, about=(0.5, 0.5)) -> list[Part]:
    """``rotate`` for a turn its caller checked with the others of its sweep
    (``scoring.turned_face_scores``, ``pose_net.rotation_sweep``: 2.5 degrees is taken in a sweep
    past 6.3, refused alone)."""
    given, out = [_as_part(p, "rotate") for p in parts], []
    for p in given:
        (x, y), = _place([[p.x - about[0], p.y - about[1]]], *about, degrees, 1.0)
        out.append(p._replace(x=float(x), y=float(y), angle=p.angle + degrees))
    if _on_canvas(given).any():  # it was on the image: the turn took it off
        _refuse_off_canvas("rotate", "about", out, every=False)
    return out


@checked
def scramble(parts: Parts, seed: Seed) -> list[Part]:
    """The same parts at random non-overlapping positions (angles jittered by up to 15°)."""
    parts = [_as_part(p, "scramble") for p in parts]
    rng = np.random.default_rng(seed)
    face = [p for p in parts if p.kind in PART_KINDS]
    angle = float(np.mean([p.angle for p in face])) if face else 0.0
    scale = float(np.mean([p.scale for p in face])) if face else 1.0
    moved = iter(_random_parts(rng, [p.kind for p in face], angle, scale))
    return [next(moved) if p.kind in PART_KINDS else p for p in parts]


@checked
def face_centre(parts: Parts) -> tuple[float, float]:
    """The centre (x, y) of the face parts among ``parts`` (strokes are left out)."""
    parts = [_as_part(p, "face_centre") for p in parts]
    face = [p for p in parts if p.kind in PART_KINDS]
    if not face:
        raise ValueError(f"face_centre(): parts must hold a face part of {PART_KINDS}, got "
                         f"{[p.kind for p in parts]}; strokes alone have no face centre")
    return float(np.mean([p.x for p in face])), float(np.mean([p.y for p in face]))


@checked
def spread(parts: Parts, factor: Float("how many times farther from the face centre (1 keeps the "
                                       "layout)", gt=0, le=10)) -> list[Part]:
    """Move every part ``factor`` times farther from the centre of the four face parts: a uniform
    stretch of the layout (the arrangement stays a face's, each sprite keeps its size and angle,
    only the gaps between neighbouring sprites grow, so none start to overlap). A face part it
    takes wholly off the image is refused (a stroke may leave: it is a distractor)."""
    parts = [_as_part(p, "spread") for p in parts]
    cx, cy = face_centre(parts)  # then x' = c + factor (x - c), the same for y
    out = [p._replace(x=float(cx + factor * (p.x - cx)), y=float(cy + factor * (p.y - cy)))
           for p in parts]
    face = [q for q in out if q.kind != STROKE]
    _refuse_off_canvas("spread", "factor", face, fix="pass a smaller factor, e.g. 1.2")
    return out


@checked
def turn_over(parts: Parts, kinds: tuple[PartKind, ...] | list[PartKind]) -> list[Part]:
    """Turn the parts of ``kinds``, each one ``parts`` holds, by 180 degrees where they stand."""
    parts = [_as_part(p, "turn_over") for p in parts]
    turned = [_index(parts, kind, "turn_over") for kind in kinds]  # a kind missing: refused
    return [p._replace(angle=p.angle + 180.0) if i in turned else p for i, p in enumerate(parts)]


# --- Reading scenes ------------------------------------------------------------------------------


@checked
def part_slots(scenes: Scenes) -> tuple[np.ndarray, np.ndarray]:
    """The face parts of each scene, one slot per part kind: poses ``[len(scenes), 4, 4]`` (x, y,
    angle, scale; slot i holds the part of kind ``PART_KINDS[i]``, zeros where it is missing) and
    presence ``[len(scenes), 4]`` (1 or 0). Distractor strokes have no slot."""
    poses, presence = np.zeros((len(scenes), len(PART_KINDS), 4)), np.zeros((len(scenes), 4))
    for b, parts in enumerate(scenes):
        for part in _one_each(parts, "part_slots", f"scenes[{b}]"):
            if part.kind in PART_KINDS:
                i = PART_KINDS.index(part.kind)
                poses[b, i], presence[b, i] = part[1:], 1.0
    return poses, presence

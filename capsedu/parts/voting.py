"""Parts vote for a face: pose votes through transformation matrices, routed by agreement.

A toy of routing by agreement where every pose is known. Each part capsule (left eye, right eye,
nose, mouth) has a pose: its position, angle and scale in the image. A pose is a 3x3 matrix P that
maps the part's own frame into the image. The part-to-face transformation W_i is fixed by where the
part sits in a face (``faces.CANONICAL_OFFSETS``), so each part predicts the face's pose:

    P_face|i = P_i W_i

When the parts are arranged like a face the four predictions coincide; when they are scrambled
they scatter. Dynamic routing (Procedure 1) then decides, per part, whether it belongs to the
face or to a "background" parent, and the face capsule's length says whether there is a face.
"""

from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch

from ..checks import PIXEL_ROUNDING, check_same
from ..course_settings import Seed
from ..data import faces, sprites
from ..data.sprites import ChosenPart, ChosenParts, Scenes, _refuse_off_canvas
from ..memory import check_memory
from ..poses import _pose_from_matrix, _pose_matrix, wrap_angle
from ..routing import MAX_ITERATIONS, Step, dynamic_routing, routing_step
from ..units import DrawnInDegrees, ImageFraction, InDegrees
from ..validate import Array, CheckedRecord, Choice, Float, Int, Numbers, checked

PARENTS = ("face", "background")

# --- Part -> face transforms --------------------------------------------------------------------


@checked
def part_to_face(kind: faces.PartKind) -> np.ndarray:
    """W_i: the face's frame seen from the part's frame, the inverse of the part's offset."""
    dx, dy = faces.CANONICAL_OFFSETS[kind]
    # a part of a face with pose F sits at P_i = F T(dx, dy), so F = P_i T(dx, dy)^-1
    return np.linalg.inv(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]))


# part poses (x, y, angle, scale), and the part-to-face transforms W_i: any number of them
# (predicted_faces broadcasts them), or one per part, as exact_transforms() gives them or a model
# learns them
Poses = Numbers("part poses [..., 4] (x, y, angle, scale)", last=4,
                fix="pass one row (x, y, angle, scale) per part")
AnyTransforms = Numbers("transforms [..., 3, 3], one per part (e.g. exact_transforms())",
                        last=3, fix="pass 3x3 matrices, e.g. exact_transforms()")
Transforms = Numbers("transforms W [4, 3, 3], one per part in faces.PART_KINDS order",
                     shape=(4, 3, 3), fix="pass exact_transforms() or a trained model's W")


def exact_transforms() -> np.ndarray:
    """``[4, 3, 3]``: every part's W_i from the generator's offsets, in ``PART_KINDS`` order."""
    return np.stack([part_to_face(kind) for kind in faces.PART_KINDS])


@checked
def predicted_faces(poses: Poses, W: AnyTransforms) -> np.ndarray:
    """The face pose each part predicts, P_face|i = P_i W_i, as (x, y, angle, scale):
    part poses ``[..., 4]`` and transforms ``W`` broadcastable to ``[..., 3, 3]`` -> ``[..., 4]``.
    """
    if W.shape[-2:] != (3, 3):
        raise ValueError(f"predicted_faces(): W must be transforms [..., 3, 3] (one per part, "
                         f"e.g. exact_transforms()), got shape {W.shape}")
    _check_pose_angles("predicted_faces", poses)
    return _face_poses("predicted_faces", poses, W)


def _check_pose_angles(where: str, poses: np.ndarray) -> None:
    """Refuse part poses ``[..., 4]`` whose angles (column 2) all read as radians
    (``units.DrawnInDegrees``: a learner's np.radians(30) would vote for a face turned half a
    degree); checked once at the entry, never for the poses a model read (``_pose_votes``)."""
    try:
        DrawnInDegrees.func(poses[..., 2])
    except ValueError as err:
        raise ValueError(f"{where}(): poses' angles (column 2) {err}") from None


def _face_poses(where: str, poses: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``predicted_faces`` for the entry ``where``: refuses a part of scale <= 0 (a missing part,
    all zeros, has no pose to predict from) and a W that predicts a face of scale 0 (its linear
    part is zero: no face frame, no angle)."""
    if (poses[..., 3] <= 0).any():
        raise ValueError(f"{where}(): poses must have scales (the last column) > 0: a missing part "
                         f"(all zeros) predicts no face, got {np.count_nonzero(poses[..., 3] <= 0)}"
                         " of scale <= 0; keep the parts that are present")
    predicted = _predicted(poses, W)
    if (predicted[..., 3] == 0).any():
        raise ValueError(f"{where}(): W must map a part's frame onto a face's (a linear part that "
                         "is not zero), got transforms that predict faces of scale 0; pass "
                         "exact_transforms() or a trained model's W")
    return predicted


def _predicted(poses: np.ndarray, W: np.ndarray) -> np.ndarray:
    """P_i W_i read as (x, y, angle, scale), unchecked: ``pose_votes`` passes the zero poses of
    missing parts (their votes are weighted by 0)."""
    P = _pose_matrix(*np.moveaxis(poses.astype(float), -1, 0))  # [..., 3, 3]
    return np.stack(_pose_from_matrix(P @ W), axis=-1)


@checked
def predict_face(part: ChosenPart, W: Transforms | None = None
                 ) -> tuple[float, float, float, float]:
    """The face pose (x, y, angle, scale) that one ``part`` (a ``Part`` or a tuple (kind, x, y,
    angle, scale)) predicts: P_face|i = P_i W_i.

    ``W``: ``[4, 3, 3]`` transforms in ``PART_KINDS`` order (default: ``exact_transforms()``).
    A part wholly off the image (``('nose', 16, 16)``: pixels, not fractions of it) and an angle
    that reads as radians are refused.
    """
    _refuse_off_canvas("predict_face", "part", [part])
    return _predict_face(part, W)


def _predict_face(part: sprites.Part, W: np.ndarray | None = None
                  ) -> tuple[float, float, float, float]:
    """``predict_face`` of a part checked at its entry (``prediction_table``, ``route_parts``),
    or read by a model (``figures.face_scenes``: its angle may be a fraction of a degree)."""
    W_i = part_to_face(part.kind) if W is None else W[faces.PART_KINDS.index(part.kind)]
    return tuple(float(v) for v in _face_poses("predict_face", np.array(part[1:], float), W_i))


@checked
def prediction_table(parts: ChosenParts, W: Transforms | None = None) -> str:
    """A table, one row per part of ``parts``: its pose (x, y, angle, scale) and the face pose it
    predicts, P_face|i = P_i W_i (``predict_face``)."""
    rows = [f"{'part':>10} | {'its pose (x, y, angle, scale)':^30} | predicted face pose"]
    for part in map(sprites.Part._make, parts):
        pose = f"{part.x:.3f}, {part.y:.3f}, {part.angle:5.1f}, {part.scale:.2f}"
        x, y, angle, scale = _predict_face(part, W)
        rows.append(f"{part.kind:>10} | {pose:^30} | {x:.3f}, {y:.3f}, {angle:5.1f}, {scale:.2f}")
    return "\n".join(rows)


@checked
def raw_pose(x: ImageFraction("x"), y: ImageFraction("y"),
             angle: Annotated[Float("degrees"), InDegrees] = 0.0,
             scale: Float("the scale", gt=0) = 1.0) -> np.ndarray:
    """The raw pose numbers as one vector ``[4]``: (s cos a, s sin a, x, y), angle a in degrees,
    x and y fractions of the image (``raw_pose(16, 16)``, pixels, is refused). Its dot product
    does not measure closeness (notebook 04, section 2): ``pose_code`` does."""
    a = np.radians(angle)
    return np.array([scale * np.cos(a), scale * np.sin(a), x, y])


# --- Poses as vectors that a dot product can compare ---------------------------------------------
# Procedure 1 measures agreement with a dot product. Raw pose numbers (x, y, angle, scale) are a
# poor fit: a far-away prediction can have a *larger* dot product than a close one. So a predicted
# pose is written as the activity of "pose cells", each tuned to one position and orientation; the
# vector has unit length, and two vectors have a dot product near 1 when their poses are close and
# near 0 when they are far apart.

GRID = 16  # pose cells per image side (positions)
ANGLE_CELLS = 8  # preferred orientations, every 45 degrees
SIGMA_XY = 0.06  # tuning width in position (fraction of the image)
SIGMA_ANGLE = 30.0  # tuning width in orientation (degrees)
_CENTRES = (np.arange(GRID) + 0.5) / GRID
_ANGLES = np.arange(ANGLE_CELLS) * 360.0 / ANGLE_CELLS


# the pose cells' tuning widths: in position a fraction of the image's side (at 2.0, two image
# widths, no two places are told apart: pixels refused); in angle degrees, at least 1 (0.5 reads
# as radians, 29 degrees, and under a degree only a cell's own angle excites it)
PlaceWidth = Float("a tuning width in position, a fraction of the image's side", gt=0, le=1)
AngleWidth = Float("a tuning width in degrees; radians refused", ge=1, le=360)
Gain = Float("a vote's length", ge=0)


@checked
def pose_code(x: ImageFraction("x") | Array("x of many poses"),
              y: ImageFraction("y") | Array("y of many poses"),
              angle: Annotated[Float("an angle in degrees"), InDegrees]
              | Annotated[Array("angles of many poses, degrees"), DrawnInDegrees],
              sigma_xy: PlaceWidth = SIGMA_XY, sigma_angle: AngleWidth = SIGMA_ANGLE
              ) -> np.ndarray:
    """Unit vectors of pose-cell activities ``[..., ANGLE_CELLS * GRID * GRID]``, one per pose
    (x, y, angle may be scalars or arrays of the same shape); zero for a pose so far outside the
    image that no cell responds. ``sigma_xy`` and ``sigma_angle``: the cells' tuning widths
    (wider: poses further apart still count as agreeing)."""
    check_same("pose_code", "shape, one pose each", "pass as many of each, or a number",
               **{k: np.shape(v) for k, v in dict(x=x, y=y, angle=angle).items() if np.ndim(v)})
    return _pose_code(x, y, angle, sigma_xy, sigma_angle)


def _pose_code(x, y, angle, sigma_xy=SIGMA_XY, sigma_angle=SIGMA_ANGLE) -> np.ndarray:
    """``pose_code`` for poses the course predicted (``pose_votes``: off the image, at any
    angle) or a figure's own sweep (``figures.face_scenes.draw_code_agreement``)."""
    x, y, angle = (np.asarray(v, dtype=float)[..., None] for v in (x, y, angle))
    gx = np.exp(-((x - _CENTRES) ** 2) / (2 * sigma_xy**2))  # [..., GRID]
    gy = np.exp(-((y - _CENTRES) ** 2) / (2 * sigma_xy**2))  # [..., GRID]
    dang = wrap_angle(angle - _ANGLES)
    ga = np.exp(-(dang**2) / (2 * sigma_angle**2))  # [..., ANGLE_CELLS]
    code = np.einsum("...a,...i,...j->...aij", ga, gy, gx)  # [..., ANGLE_CELLS, GRID, GRID]
    code = code.reshape(*code.shape[:-3], ANGLE_CELLS * GRID * GRID)  # (-1 fails for no pose)
    # a pose far outside the image excites no cell at all: its code is zero, not 0 / 0
    return code / np.maximum(np.linalg.norm(code, axis=-1, keepdims=True), 1e-300)


@checked
def decode_pose_code(v: Numbers("a face capsule's vector [ANGLE_CELLS * GRID * GRID (+ 1)]",
                                 ndim=1, at_least=ANGLE_CELLS * GRID * GRID,
                                 fix="pass one face vector, e.g. v[0, 0] of a routing")
                     ) -> tuple[float, float, float]:
    """Read (x, y, angle) off a face vector ``v``: the activity-weighted mean of the pose cells'
    preferred positions, and the circular mean of their preferred angles ("population vector")."""
    cells = np.clip(v[: ANGLE_CELLS * GRID * GRID], 0, None).reshape(ANGLE_CELLS, GRID, GRID)
    if not cells.any():  # the weights of the means below would sum to 0
        raise ValueError("decode_pose_code(): v must have a pose cell above 0, got none: no pose "
                         "to read; pass the vector of a face capsule that is there")
    by_x, by_y, by_angle = cells.sum(axis=(0, 1)), cells.sum(axis=(0, 2)), cells.sum(axis=(1, 2))
    x = float(by_x @ _CENTRES / by_x.sum())
    y = float(by_y @ _CENTRES / by_y.sum())
    rad = np.radians(_ANGLES)
    angle = float(np.degrees(np.arctan2(by_angle @ np.sin(rad), by_angle @ np.cos(rad))))
    return x, y, angle


# --- Votes and routing ---------------------------------------------------------------------------

FACE_GAIN = 1.5  # length of a part's vote for the face
BACKGROUND_GAIN = 1.0  # length of a part's vote for the background


# what pose_votes holds at once per part, in float64 numbers: u_hat (2 parents x D + 1) and the
# pose code's temporaries (its einsum, the reshaped copy, the normalised code, the scaled one)
VOTE_NUMBERS = 2 * (ANGLE_CELLS * GRID * GRID + 1) + 4 * ANGLE_CELLS * GRID * GRID


@checked
def pose_votes(poses: Numbers("part poses [batch, 4, 4] (x, y, angle, scale)", ndim=3, last=4,
                              fix="pass faces.part_slots(scenes)"),
               presence: Numbers("presence [batch, 4], how likely each part is there", ndim=2,
                                 fix="pass faces.part_slots(scenes)"),
               W: Transforms | None = None, face_gain: Gain = FACE_GAIN,
               background_gain: Gain = BACKGROUND_GAIN, sigma_xy: PlaceWidth = SIGMA_XY,
               sigma_angle: AngleWidth = SIGMA_ANGLE):
    """u_hat ``[batch, 4, 2, D + 1]`` from part capsules: poses ``[batch, 4, 4]`` (x, y, angle,
    scale) and presence ``[batch, 4]`` in [0, 1], with transforms W ``[4, 3, 3]`` (default:
    ``exact_transforms()``).

    The face vote of part i is the pose code of its predicted face pose P_i W_i; the background
    vote is the same vector (one extra dimension) for every part: the background is the default
    explanation that always agrees with itself, so a part stays with the face only where it
    agrees better. Both votes are scaled by the part's presence, so a missing part (presence 0)
    adds nothing to any parent. Angles (column 2) that all read as radians are refused.
    """
    _check_pose_angles("pose_votes", poses)
    return _pose_votes(poses, presence, W, face_gain, background_gain, sigma_xy, sigma_angle)


def _pose_votes(poses, presence, W=None, face_gain=FACE_GAIN, background_gain=BACKGROUND_GAIN,
                sigma_xy=SIGMA_XY, sigma_angle=SIGMA_ANGLE):
    """``pose_votes`` of poses the course drew or a model read (``votes``,
    ``pose_net.PoseCapsuleNet``): a few faces' angles may all be fractions of a degree."""
    poses, presence = poses.astype(float), presence.astype(float)
    if poses.shape[1] != 4 or presence.shape != poses.shape[:2]:
        raise ValueError(f"pose_votes(): poses must be [batch, 4, 4] and presence [batch, 4], one "
                         f"row per part of each scene, got shapes {poses.shape} and "
                         f"{presence.shape}; pass faces.part_slots(scenes)")
    if presence.size and (presence.min() < -PIXEL_ROUNDING or presence.max() > 1 + PIXEL_ROUNDING):
        raise ValueError(f"pose_votes(): presence must be in [0, 1] (how likely each part is "
                         f"there), got values from {presence.min():g} to {presence.max():g}; "
                         "pass probabilities, e.g. PartDetector.detect's or faces.part_slots'")
    check_memory(presence.size * VOTE_NUMBERS * 8, f"pose_votes of {len(presence):,} scenes",
                 "route fewer scenes at once (PoseCapsuleNet routes VOTE_BATCH at a time)")
    W = exact_transforms() if W is None else W.astype(float)
    d = ANGLE_CELLS * GRID * GRID
    # P_face|i = P_i W_i, read as (x, y, angle, scale); [batch, 4, 4]
    x, y, angle, _ = np.moveaxis(_predicted(poses, W), -1, 0)
    u_hat = np.zeros((*presence.shape, len(PARENTS), d + 1))
    u_hat[:, :, 0, :d] = face_gain * _pose_code(x, y, angle, sigma_xy, sigma_angle)
    u_hat[:, :, 1, d] = background_gain
    u_hat *= presence[:, :, None, None]
    return torch.from_numpy(u_hat)


@checked
def votes(scenes: Scenes, face_gain: Gain = FACE_GAIN, background_gain: Gain = BACKGROUND_GAIN):
    """u_hat ``[batch, 4, 2, D + 1]`` and presence ``[batch, 4]`` (bool) for a list of scenes,
    with the exact transforms: ``pose_votes`` on the scenes' true part poses."""
    _some_scenes("votes", scenes)
    poses, presence = faces.part_slots(scenes)
    return _pose_votes(poses, presence, None, face_gain, background_gain), presence > 0


def _some_scenes(where: str, scenes) -> None:
    """Refuse no scene at all: there are no votes to route, nothing to read a face from."""
    if not scenes:
        raise ValueError(f"{where}(): scenes must hold at least one scene (a list of parts), got "
                         "none; pass e.g. [faces.face_parts()]")


Iterations = Int("routing iterations", ge=1, le=MAX_ITERATIONS)
FaceKind = Choice("the kind of image", *faces.KINDS)
# the face capsule's length per kind, kind -> [n] (face_lengths_by_kind)
KindLengths = dict[FaceKind, Numbers("face-capsule lengths [n]", ndim=1, ge=0, at_least=1)]
REPORTED = ("face", "rotated", *faces.SCRAMBLED_KINDS)  # the kinds the reports compare


def _check_reported(where: str, name: str, lengths: dict) -> None:
    """Refuse face lengths that miss a kind the reports compare."""
    missing = [k for k in REPORTED if k not in lengths]
    if missing:
        raise ValueError(f"{where}(): {name} must hold the face lengths of every kind of "
                         f"faces.KINDS, got kinds {sorted(lengths)}, missing {missing}; pass "
                         "face_lengths_by_kind(...)")


@checked
def face_lengths(scenes: Scenes, iterations: Iterations = 3, step: Step = routing_step
                 ) -> np.ndarray:
    """The face capsule's length ``[len(scenes)]`` after routing each scene's parts (``step``: one
    routing iteration, the paper's unless notebook 04 passes a bug of ``capsedu.buggy``)."""
    _some_scenes("face_lengths", scenes)
    u_hat, _ = votes(scenes)
    result = dynamic_routing(u_hat, iterations, step=step)
    return result.v[:, 0].norm(dim=-1).numpy()


# a pose (x, y, angle, scale): a part's, or the face's a part predicts; the parents' lengths
Pose = tuple[Float("x, in image fractions"), Float("y, in image fractions"),
             Float("angle, degrees"), Float("scale")]
ParentLengths = Numbers("the parents' lengths ||v|| [iterations, 2]", ndim=2, last=2, ge=0,
                        le=1)


@dataclass(frozen=True)
class PartRouting(CheckedRecord):
    """What routing the parts found; arrays are numpy, one row per iteration where relevant."""

    kinds: list[faces.PartKind]  # the voting parts, in PART_KINDS order
    predictions: list[Pose]  # each part's predicted face pose
    c: Numbers("couplings part -> parent at each iteration [iterations, parts, 2]", ndim=3,
               last=2, ge=0, le=1)
    lengths: ParentLengths  # [iterations, 2]  ||v|| of face and background after each iteration
    face_pose: tuple[Float("x"), Float("y"), Float("angle, degrees")]  # the face capsule's

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a trace of other iterations or
        parts than the others'."""
        super().__post_init__()
        check_same("PartRouting", "iterations", "pass route_parts(parts)'s",
                   lengths=len(self.lengths), c=len(self.c))
        check_same("PartRouting", "parts", "one prediction and one row of c per part",
                   kinds=len(self.kinds), predictions=len(self.predictions),
                   c=np.shape(self.c)[1])


@checked
def route_parts(parts: ChosenParts, iterations: Iterations = 3, step: Step = routing_step
                ) -> PartRouting:
    """Run Procedure 1 on one scene's votes (see ``capsedu.dynamic_routing``; ``step`` as in
    ``face_lengths``), keeping the trace of every iteration for the present parts. Angles that
    read as radians are refused (``sprites.ChosenParts``)."""
    return _route_parts(parts, iterations, step)


def _route_parts(parts, iterations: int = 3, step=routing_step) -> PartRouting:
    """``route_parts`` of a scene a widget's editor holds (scrambled: its angles jittered)."""
    sprites._one_each(parts, "route_parts", "parts")  # two left eyes: refused in its own words
    u_hat, present = votes([parts])
    if not present.any():
        raise ValueError(f"route_parts(): parts must hold at least one face part (left_eye, "
                         f"right_eye, nose, mouth), got {parts!r:.60}; add one, e.g. "
                         "faces.face_parts()")
    result = dynamic_routing(u_hat, iterations, step=step)
    rows = np.flatnonzero(present[0])
    by_kind = {p[0]: sprites.as_part(p) for p in parts}
    kinds = [faces.PART_KINDS[i] for i in rows]
    return PartRouting(
        kinds=kinds,
        predictions=[_predict_face(by_kind[k]) for k in kinds],
        c=torch.stack([step.c[0] for step in result.history]).numpy()[:, rows],
        lengths=torch.stack([step.v[0].norm(dim=-1) for step in result.history]).numpy(),
        face_pose=decode_pose_code(result.v[0, 0].numpy()),
    )


@checked
def face_lengths_by_kind(n: Int("scenes of each kind", ge=1, le=faces.MAX_IMAGES),
                         iterations: Iterations = 3, step: Step = routing_step, seed: Seed = 1,
                         kinds: tuple[FaceKind, ...] | list[FaceKind] = faces.KINDS
                         ) -> dict[str, np.ndarray]:
    """For each kind of ``kinds``, the face capsule's length ``[n]`` after routing ``n`` scenes
    of ``faces.dataset(kind, n, seed)`` (``face_lengths``)."""
    return {kind: face_lengths(faces.dataset(kind, n, seed=seed)[2], iterations, step)
            for kind in kinds}


@checked
def face_length_report(lengths: KindLengths, threshold: Float("the face length's threshold")
                       ) -> str:
    """A table, one row per kind of ``lengths`` (kind -> face lengths ``[n]``): the mean length
    and the percentage of scenes whose length is above ``threshold`` (called a face); then the
    percentages of faces and rotated faces accepted, and the scramble kind accepted most often."""
    _check_reported("face_length_report", "lengths", lengths)
    rows = [f"{'kind':>12} | mean |v_face| | called a face"]
    for kind, L in lengths.items():
        rows.append(f"{kind:>12} | {L.mean():13.3f} | {100 * (L > threshold).mean():6.1f} %")
    rate = {kind: 100 * (L > threshold).mean() for kind, L in lengths.items()}
    worst = max(faces.SCRAMBLED_KINDS, key=rate.get)
    rows.append(f"\nfaces accepted: {rate['face']:.1f} %, rotated faces: {rate['rotated']:.1f} %; "
                f"the scramble kind accepted most often is '{worst}', at {rate[worst]:.1f} %")
    return "\n".join(rows)


Accepted = Numbers("whether each scene was accepted [len(scenes)]", ndim=1, bools=True)


@checked
def acceptance_by_part_count(scenes: Scenes, accepted: Accepted) -> dict[int, tuple[int, float]]:
    """Scenes grouped by how many face parts (``faces.PART_KINDS``) they hold: for each count
    that occurs, ``(number of scenes, fraction of them accepted)``; ``accepted`` ``[len(scenes)]``
    bool."""
    check_same("acceptance_by_part_count", "length", "pass one bool per scene, in the scenes' "
               "order", scenes=len(scenes), accepted=len(accepted))
    n_parts = np.array([sum(p[0] in faces.PART_KINDS for p in s) for s in scenes])
    return {int(k): (int((n_parts == k).sum()), float(accepted[n_parts == k].mean()))
            for k in np.unique(n_parts)}


@checked
def compare_steps(paper: KindLengths, bug: KindLengths,
                  threshold: Float("the face length's threshold")) -> str:
    """Face lengths routed with the paper's step (``paper``: kind -> ``[n]``, as
    ``face_lengths_by_kind`` returns them) beside the same scenes routed with a bug's step
    (``bug``): a table of the mean length per kind, then, for each, the shortest face, the
    longest scramble, the gap between them and the percentage of faces above ``threshold``."""
    _check_reported("compare_steps", "paper", paper)
    if set(bug) != set(paper):
        raise ValueError(f"compare_steps(): bug must hold the kinds of paper ({sorted(paper)}), "
                         f"got {sorted(bug)}; route the same scenes both ways")
    for kind in paper:
        check_same("compare_steps", "length", "route the same scenes both ways",
                   **{f"paper[{kind!r}]": len(paper[kind]), f"bug[{kind!r}]": len(bug[kind])})
    lines = [f"{'kind':>12} | mean |v_face|, paper's softmax | with the bug"]
    for kind in paper:
        lines.append(f"{kind:>12} | {paper[kind].mean():29.3f} | {bug[kind].mean():12.3f}")
    lines.append("")
    for name, L in (("paper's softmax", paper), ("with the bug", bug)):
        longest_scramble = max(L[kind].max() for kind in faces.SCRAMBLED_KINDS)
        lines.append(f"{name:>15}: shortest face {L['face'].min():.3f}, longest scramble "
                     f"{longest_scramble:.3f} (gap {L['face'].min() - longest_scramble:+.3f}); "
                     f"faces above the threshold {threshold}: "
                     f"{100 * (L['face'] > threshold).mean():.0f} %")
    return "\n".join(lines)

"""The pose-capsule model of notebook 07: part capsules from pixels, routed to a face.

1. ``PartDetector`` (``parts.detector``) reads each part capsule off the image: presence p_i and
   pose P_i.
2. Each part predicts the face's pose through a transformation matrix, P_face|i = P_i W_i.
   ``fit_transforms`` learns the W_i by least squares from clean faces alone.
3. Routing by agreement with two parents (face, background) decides, per part, where its vote
   goes (``parts.voting.pose_votes`` and ``dynamic_routing``). The face capsule's length says
   whether there is a face; the threshold on it is chosen on training faces and non-faces.

``PoseCapsuleNet`` holds the three pieces and speaks the same language as the CNNs (``predict``,
``score``), so notebook 07 measures all models the same way; ``parts.training`` trains it.
"""

import warnings
from dataclasses import asdict, dataclass, fields
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from ..checks import check_input, check_pixels, check_same
from ..course_settings import Batch, Label, evaluating
from ..data import faces, sprites
from ..data.sprites import Parts
from ..poses import _pose_matrix, wrap_angle
from ..routing import (
    MAX_ITERATIONS,
    RoutingResult,
    _check_routed,
    _check_tensors,
    _check_values,
    _Remade,
    dynamic_routing,
)
from ..validate import Array, CheckedRecord, Float, Int, Numbers, check_value, checked
from .detector import MAX_CHANNELS, N_KINDS, PartDetector
from .scoring import Turns
from .voting import (
    BACKGROUND_GAIN,
    FACE_GAIN,
    PARENTS,
    SIGMA_ANGLE,
    SIGMA_XY,
    AngleWidth,
    Gain,
    PlaceWidth,
    Transforms,
    _pose_votes,
    decode_pose_code,
)

# --- Part -> face transforms, learned from clean faces ---------------------------------------


# the four parts' poses (x, y, angle, scale) of N faces, faces.part_slots(scenes)[0]
PartPoses = Numbers("the four parts' poses of N faces [N, 4, 4]", shape=(None, N_KINDS, 4),
                    at_least=1, fix="pass faces.part_slots(scenes)[0]")
Lengths = Numbers("a 1-d array of at least one finite face length (a capsule's length)", ndim=1,
                  at_least=1, ge=0, le=1, fix="score some training images of each kind")


def _check_present(where: str, poses: np.ndarray) -> None:
    """Refuse part poses ``[N, 4, 4]`` with a scale (the last column) <= 0: a missing part (all
    zeros) has no pose to fit or to average."""
    if (poses[..., 3] <= 0).any():
        raise ValueError(f"{where}(): poses must hold finite poses whose scales (the last column) "
                         "are > 0: a missing part (all zeros) has no pose; keep the faces whose "
                         "four parts are present")


@checked
def face_frame(poses: PartPoses) -> np.ndarray:
    """The frame we call the face's pose, ``[N, 3, 3]``: the mean position, circular mean angle
    and mean scale of its four parts' poses ``[N, 4, 4]``. Defined from the parts alone, so no
    face pose label is needed to learn the W_i."""
    _check_present("face_frame", poses)
    x, y = poses[..., 0].mean(1), poses[..., 1].mean(1)
    rad = np.radians(poses[..., 2])
    angle = np.degrees(np.arctan2(np.sin(rad).mean(1), np.cos(rad).mean(1)))
    return _pose_matrix(x, y, angle, poses[..., 3].mean(1))  # read angles: no radians check


@checked
def fit_transforms(poses: PartPoses) -> np.ndarray:
    """W ``[4, 3, 3]`` by least squares from the part poses of N clean faces ``[N, 4, 4]``:

        W_i = argmin_W  sum_n || P_i^n W - F^n ||^2,   F^n = face_frame(poses^n)

    with W's last row fixed at (0, 0, 1), as for every pose matrix. The top two rows of
    P W = F read A W_top = B, with A = P[:2, :2] and B = F[:2] - P[:2, 2] (0, 0, 1); stacking
    the N faces' equations gives one linear least-squares problem per part.
    """
    poses = poses.astype(float)
    _check_present("fit_transforms", poses)
    F_ = face_frame(poses)  # [N, 3, 3]
    P = _pose_matrix(*np.moveaxis(poses, -1, 0))  # [N, 4, 3, 3]
    W = np.zeros((N_KINDS, 3, 3))
    W[:, 2, 2] = 1.0
    for i in range(N_KINDS):
        A = P[:, i, :2, :2].reshape(-1, 2)  # [2N, 2]
        B = (F_[:, :2, :] - P[:, i, :2, 2:3] * np.array([0.0, 0.0, 1.0])).reshape(-1, 3)
        W[i, :2] = np.linalg.lstsq(A, B, rcond=None)[0]  # [2, 3]
    return W


@checked
def format_offsets(W: Transforms) -> str:
    """A table comparing each part's offset from the face's frame learned in ``W`` ``[4, 3, 3]``
    (the translation of W_i^-1) with the generator's offset from the centre of the four parts
    (``faces.CANONICAL_OFFSETS``): one row per part."""
    centre = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    lines = [f"{'part':>10} | learned offset (x, y) | generator's offset from the parts' centre"]
    for kind, W_i in zip(faces.PART_KINDS, W, strict=True):
        learned = np.linalg.inv(W_i)[:2, 2]
        true = np.subtract(faces.CANONICAL_OFFSETS[kind], centre)
        lines.append(f"{kind:>10} | ({learned[0]:+.3f}, {learned[1]:+.3f})      | "
                     f"({true[0]:+.3f}, {true[1]:+.3f})")
    return "\n".join(lines)


@checked
def fit_threshold(face_lengths: Lengths, nonface_lengths: Lengths) -> float:
    """The face-length threshold that classifies the most training faces and non-faces right
    (equal weight to both); the middle of the best range, so it sits between the two groups.
    Warns when the faces are the shorter (the arguments swapped?): the threshold calls a face
    only what is longer than it. Warned, not refused: a model that learned little (early in
    training, or a run that failed) scores faces this way too, and training goes on to show its
    face rates, the place to see that it failed; the threshold is still the best cut there is."""
    face_median, nonface_median = np.median(face_lengths), np.median(nonface_lengths)
    if face_median < nonface_median:
        warnings.warn(f"fit_threshold(): face_lengths (median {face_median:.3g}) are shorter than "
                      f"nonface_lengths (median {nonface_median:.3g}), yet a face is what is "
                      "longer than the threshold; were the two swapped? Pass the faces' lengths "
                      "first. If the model is untrained, train it first", UserWarning,
                      stacklevel=3)
    values = np.sort(np.concatenate([face_lengths, nonface_lengths]))
    cuts = np.concatenate([[values[0] - 1e-6], (values[1:] + values[:-1]) / 2, [values[-1]]])
    score = [(face_lengths > t).mean() + (nonface_lengths <= t).mean() for t in cuts]
    best = np.flatnonzero(np.isclose(score, max(score)))
    return float((cuts[best[0]] + cuts[best[-1]]) / 2)


VOTE_BATCH = 128  # images routed at once by ``PoseCapsuleNet.forward``
Channels = Int("a layer's channels", ge=1, le=MAX_CHANNELS)


class _Capsules(NamedTuple):
    poses: torch.Tensor  # [B, 4, 4]  each part's pose (x, y, angle, scale), PART_KINDS order
    presence: torch.Tensor  # [B, 4]  each part capsule's presence p_i
    u_hat: torch.Tensor  # [B, 4, 2, D + 1]  the votes for the face and the background
    routing: RoutingResult  # couplings and the face / background capsules


class PoseCapsules(_Remade, _Capsules):
    """What ``PoseCapsuleNet.capsules`` computes for a batch of images; checked when made by
    hand, shapes and values (finite poses and votes, presence probabilities in [0, 1]): every
    pass makes one with ``_made``, unchecked."""

    __slots__ = ()

    def __new__(cls, poses, presence, u_hat, routing):
        fix = "pass what a model gives, model.capsules(x)"
        _check_tensors("PoseCapsules", fix, poses=(poses, 3), presence=(presence, 2),
                      u_hat=(u_hat, 4))
        _check_routed(routing, "PoseCapsules(): routing")
        check_same("PoseCapsules", "batch (one row per image)", fix, poses=len(poses),
                   presence=len(presence), u_hat=len(u_hat), routing=len(routing.v))
        check_same("PoseCapsules", "parts", fix, poses=poses.shape[1],
                   presence=presence.shape[1], u_hat=u_hat.shape[1],
                   **{"routing's children": routing.c.shape[1]})
        check_same("PoseCapsules", "numbers of a pose", fix, **{"(x, y, angle, scale)": 4},
                   poses=poses.shape[2])
        check_same("PoseCapsules", "wholes voted for", fix, u_hat=u_hat.shape[2],
                   **{"routing's parents": routing.v.shape[1]})
        check_same("PoseCapsules", "numbers of a vote", fix, u_hat=u_hat.shape[3],
                   **{"routing's outputs": routing.v.shape[2]})
        _check_values("PoseCapsules", fix, poses=poses, u_hat=u_hat)
        _check_values("PoseCapsules", fix, (0, 1), presence=presence)
        return super().__new__(cls, poses, presence, u_hat, routing)


@dataclass(frozen=True)
class VoteTuning(CheckedRecord):
    """How a pose-capsule model votes (``PoseCapsuleNet.tuning``): the keyword arguments of
    ``parts.voting.pose_votes``."""

    face_gain: Gain  # the length of a vote for the face
    background_gain: Gain  # the length of a vote for the background
    sigma_xy: PlaceWidth  # the pose cells' tuning width in position (image widths)
    sigma_angle: AngleWidth  # and in angle, degrees


class PoseCapsuleNet(nn.Module):
    """Part detector -> part capsules (p_i, P_i) -> votes P_i W_i -> routing to (face,
    background). ``fit_transforms`` and ``fit_threshold`` set the buffers W and threshold."""

    @checked
    def __init__(self, channels: tuple[Channels, ...] | list[Channels] = (32, 64, 64, 64),
                 iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3,
                 face_gain: Float("a face vote's length", ge=0) = FACE_GAIN,
                 background_gain: Float("a background vote's length", ge=0) = BACKGROUND_GAIN,
                 sigma_xy: PlaceWidth = SIGMA_XY, sigma_angle: AngleWidth = SIGMA_ANGLE):
        super().__init__()
        # the votes' lengths and the pose cells' tuning widths (``parts.voting.pose_votes``); a
        # checkpoint saved before they were hyperparameters loads with the defaults, its values
        self.hparams = dict(channels=tuple(channels), iterations=iterations, face_gain=face_gain,
                            background_gain=background_gain, sigma_xy=sigma_xy,
                            sigma_angle=sigma_angle)
        self.detector = PartDetector(channels)
        self.register_buffer("W", torch.eye(3, dtype=torch.float64).repeat(N_KINDS, 1, 1))
        self.register_buffer("threshold", torch.tensor(0.5))

    @property
    def tuning(self) -> "VoteTuning":
        """The votes' lengths and tuning widths this model votes with (from ``hparams``)."""
        return VoteTuning(**{f.name: self.hparams[f.name] for f in fields(VoteTuning)})

    @property
    def iterations(self) -> int:
        """How many times the model routes (``hparams``; ``capsnet.routing_iterations`` sets it
        for a ``with`` block)."""
        return self.hparams["iterations"]

    @iterations.setter
    def iterations(self, iterations: int) -> None:
        self.hparams["iterations"] = check_value(
            "PoseCapsuleNet.iterations", "iterations",
            Int("routing iterations", ge=1, le=MAX_ITERATIONS), iterations)

    @checked
    @torch.no_grad()
    def capsules(self, x: Batch, iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS)
                 | None = None) -> "PoseCapsules":
        """Everything the model computes for images ``x``, in one pass: the part capsules, their
        votes, and the routing to the face and background capsules (``iterations``: the
        model's own, unless given)."""
        check_input(x, f"{type(self).__name__}.capsules(): x", self.detector)
        return self._capsules(x, iterations)

    def _capsules(self, x: torch.Tensor, iterations: int | None = None) -> "PoseCapsules":
        """``capsules`` of images checked."""
        poses, presence = self.detector.detect(x)
        u_hat = _pose_votes(poses.double().numpy(), presence.double().numpy(), self.W.numpy(),
                           **asdict(self.tuning))
        routing = dynamic_routing(u_hat, iterations or self.iterations)
        return PoseCapsules._made(poses, presence, u_hat, routing)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The parents' lengths ``[B, 2]`` (face, background), in ``PARENTS`` order; in batches of
        ``VOTE_BATCH`` images (each image's votes u_hat are 4 x 2 x 2,049 doubles, 131 kB).
        ``x`` is checked by hand at every pass (the detector's size, and pixels in [0, 1])."""
        check_input(x, f"{type(self).__name__}(): x", self.detector, some=True)
        check_pixels(x, f"{type(self).__name__}(): x")
        with torch.no_grad():
            return torch.cat([self._capsules(batch).routing.v.norm(dim=-1).float()
                              for batch in x.split(VOTE_BATCH)])

    @checked
    def face_probability(self, x: Batch) -> torch.Tensor:
        """The face capsule's length ``[B]``: the probability that a face is present."""
        check_input(x, f"{type(self).__name__}.face_probability(): x", self.detector)
        return self(x)[:, PARENTS.index("face")]

    @checked
    @torch.no_grad()
    def predict(self, x: Batch) -> torch.Tensor:
        """1 ("face") where the face capsule is longer than the threshold, else 0."""
        check_input(x, f"{type(self).__name__}.predict(): x", self.detector)
        with evaluating(self):  # as every model's predict and score read (no dropout)
            return (self(x)[:, PARENTS.index("face")] > self.threshold).long()

    @checked
    @torch.no_grad()
    def score(self, x: Batch, label: Label) -> tuple[torch.Tensor, torch.Tensor]:
        """The face capsule's length ``[B]`` and the threshold it must pass ``[B]``. The model
        has one verdict, face or not, so ``label`` must be the face label (1)."""
        if label != faces.LABELS["face"]:
            raise ValueError(f"{type(self).__name__}.score(): label must be the face label "
                             f"{faces.LABELS['face']} (the model scores faces only), got {label}; "
                             f"pass {faces.LABELS['face']}")
        check_input(x, f"{type(self).__name__}.score(): x", self.detector)
        with evaluating(self):
            p = self(x)[:, PARENTS.index("face")]
        return p, self.threshold.float().expand(len(p))


@dataclass(frozen=True)
class RotationSweep(CheckedRecord):
    """What a pose-capsule model reads off a scene turned by each of ``angles``
    (``rotation_sweep``)."""

    angles: Array("degrees the scene was turned by [A]", ndim=1)
    # the detected part angles, degrees, in PART_KINDS order
    part_angles: Array("the detected part angles, degrees [A, 4]", ndim=2)
    face_angle: Array("the angle decoded from the face capsule, degrees [A]", ndim=1)
    face_length: Numbers("the face capsule's length [A]", ndim=1, ge=0, le=1)
    images: Array("what the model read [A, size, size]", ndim=3)
    part_error: Numbers("|part angle - turn|, wrapped [A, 4]", ndim=2, ge=0, le=180)
    face_error: Numbers("|face angle - turn|, wrapped [A]", ndim=1, ge=0, le=180)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or readings of other turns or parts."""
        super().__post_init__()
        check_same("RotationSweep", "turns", "one reading per turn of angles", angles=len(
            self.angles), **{name: len(getattr(self, name)) for name in (
                "part_angles", "face_angle", "face_length", "images", "part_error", "face_error")})
        check_same("RotationSweep", "parts", f"one angle per part of {faces.PART_KINDS}",
                   kinds=N_KINDS, part_angles=self.part_angles.shape[1],
                   part_error=np.shape(self.part_error)[1])
        for name, read, turns in (("part_error", "part_angles", self.angles[:, None]),
                                  ("face_error", "face_angle", self.angles)):
            off = np.abs(np.abs(wrap_angle(getattr(self, read) - turns)) - getattr(self, name))
            if off.max() > 1e-3:  # degrees: float32 readings
                raise ValueError(f"RotationSweep(): {name} must be |{read} - angles|, wrapped "
                                 f"into [0, 180], got values off it by up to {off.max():.4g} "
                                 "degrees; pass what rotation_sweep(...) gives")


@checked
def rotation_sweep(model: PoseCapsuleNet, parts: Parts, angles: Turns) -> RotationSweep:
    """Turn the scene ``parts`` about its face parts' centre by each of ``angles`` (degrees)
    and record what the model reads: detected part angles ``[len(angles), 4]``, the face pose
    decoded from the face capsule (its angle ``[len(angles)]``) and the face length, with the
    ``images`` ``[len(angles), size, size]`` it read them from; and how far each read angle is
    from the turn, wrapped into [0, 180]: ``part_error`` ``[len(angles), 4]`` and ``face_error``
    ``[len(angles)]``."""
    centre = faces.face_centre(parts)
    scenes = [faces._rotate(parts, a, about=centre) for a in angles]  # checked as a sweep
    size = model.detector.hparams["image_size"]
    x = sprites.render_many(scenes, size)  # [angles, 1, size, size]
    out = model.capsules(x)
    face = out.routing.v[:, PARENTS.index("face")]  # [angles, D + 1]
    part_angles = out.poses[..., 2].numpy()
    face_angle = np.array([decode_pose_code(v)[2] for v in face.numpy()])
    return RotationSweep(
        angles=angles.astype(float), part_angles=part_angles, face_angle=face_angle,
        face_length=face.norm(dim=-1).float().numpy(), images=x[:, 0].numpy(),
        part_error=np.abs(wrap_angle(part_angles - angles[:, None])),
        face_error=np.abs(wrap_angle(face_angle - angles)))

"""Part capsules read off pixels, then routed to a face: notebook 07's "capsules that carry pose".

Notebook 04 routed the *true* part poses. Here a small network has to find them in the image:

1. ``PartDetector`` looks at the pixels and, for each part kind (left eye, right eye, nose, mouth),
   outputs a **part capsule**: its presence p_i in [0, 1] and its pose P_i (x, y, angle, scale).
   It is trained on the generator's ground-truth part poses. That is supervision a real CapsNet
   does not get; it is "what if the capsule promise is kept": primary capsules that really carry
   the pose of a part.
2. Each part predicts the face's pose through a transformation matrix, P_face|i = P_i W_i.
   ``fit_transforms`` learns the W_i by least squares from clean faces alone.
3. Routing by agreement with two parents (face, background) decides, per part, where its vote
   goes (``pose_capsules.pose_votes`` and ``dynamic_routing``). The face capsule's length says
   whether there is a face; the threshold on it is chosen on training faces and non-faces.

``PoseCapsuleNet`` holds the three pieces and speaks the same language as the CNNs
(``predict``, ``face_probability``), so notebook 07 measures all models the same way;
``face_experiments.train_pose_capsules`` trains it.
"""

from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .data import faces
from .pose_capsules import PARENTS, decode_pose, pose_matrix, pose_votes
from .routing import RoutingResult, dynamic_routing
from .validate import check_finite, check_shape

N_KINDS = len(faces.PART_KINDS)
# per part kind and cell: "where" logit, offset dx, dy in the cell, cos and sin of the angle,
# log of the scale
_OUTPUTS = 6


class PartDetector(nn.Module):
    """Finds each face part in a 32x32 image and reads off its pose: the part capsules.

    Convolutions (one of stride 2) give a grid of cells, 16x16 for a 32x32 image. For each part
    kind, a softmax over all cells *and* one extra "absent" slot says where the part is, or that
    it is not in the image; the winning cell also regresses the part's exact position in the cell,
    its angle (as cos, sin) and its scale. All layers are convolutions, so a part is found the same
    way wherever it is and whatever surrounds it (each cell sees a 13x13-pixel window).
    """

    def __init__(self, channels=(32, 64, 64, 64), image_size: int = 32):
        super().__init__()
        self.hparams = dict(channels=tuple(channels), image_size=image_size)
        layers, c_in = [], 1
        for k, c in enumerate(channels):
            layers += [nn.Conv2d(c_in, c, 3, stride=2 if k == 1 else 1, padding=1), nn.ReLU()]
            c_in = c
        self.features = nn.Sequential(*layers)
        self.head = nn.Conv2d(c_in, N_KINDS * _OUTPUTS, 1)
        self.absent = nn.Parameter(torch.zeros(N_KINDS))  # logit of "this part is not here"
        self.grid = (image_size + 1) // 2

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x`` ``[B, 1, H, W]`` -> where-logits ``[B, 4, cells + 1]`` (last: absent) and the
        regressions ``[B, 4, 5, cells]`` (dx, dy, cos, sin, log scale per cell)."""
        check_shape(x, "x", "[batch, 1, height, width]", ndim=4)
        size = self.hparams["image_size"]
        if tuple(x.shape[1:]) != (1, size, size):
            raise ValueError(f"x must have shape [batch, 1, {size}, {size}], got {tuple(x.shape)}")
        check_finite(x, "x")
        out = self.head(self.features(x)).flatten(2)  # [B, 4 * 6, cells]
        out = out.view(len(x), N_KINDS, _OUTPUTS, -1)  # [B, 4, 6, cells]
        absent = self.absent.expand(len(x), N_KINDS)[..., None]  # [B, 4, 1]
        return torch.cat([out[:, :, 0], absent], dim=2), out[:, :, 1:]

    def training_loss(self, x, targets):
        """Cross-entropy on where each part is (or that it is absent), plus squared errors of
        the pose read at the true cell. ``targets`` ``[B, 4, 5]``: present, x, y, angle, scale
        (as ``part_targets`` makes them). Returns ``(loss, None)``: no class predictions."""
        where, regress = self(x)
        present = targets[..., 0] > 0.5  # [B, 4]
        col, row, cell = self._cells(targets[..., 1], targets[..., 2])
        label = torch.where(present, cell, torch.full_like(cell, self.grid**2))  # [B, 4]
        where_loss = F.cross_entropy(where.flatten(0, 1), label.flatten())
        at_cell = regress.gather(3, cell[..., None, None].expand(-1, -1, 5, 1))[..., 0]  # [B,4,5]
        angle = torch.deg2rad(targets[..., 3])
        want = torch.stack([targets[..., 1] * self.grid - col - 0.5,  # dx in the cell
                            targets[..., 2] * self.grid - row - 0.5,  # dy
                            torch.cos(angle), torch.sin(angle),
                            torch.log(targets[..., 4].clamp(min=1e-3))], dim=-1)
        pose_loss = ((at_cell - want) ** 2).sum(-1)[present].mean() if present.any() else 0.0
        return where_loss + pose_loss, None

    def _cells(self, x, y):
        """Column, row and flat index of the cell that holds image point (x, y)."""
        col = (x * self.grid).long().clamp(0, self.grid - 1)
        row = (y * self.grid).long().clamp(0, self.grid - 1)
        return col, row, row * self.grid + col

    @torch.no_grad()
    def detect(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The part capsules of images ``x``: poses ``[B, 4, 4]`` (x, y, angle in degrees,
        scale), read at each kind's most likely cell, and presences ``[B, 4]`` in [0, 1]."""
        self.eval()
        where, regress = self(x)
        p = torch.softmax(where, dim=2)  # [B, 4, cells + 1]
        presence = 1 - p[..., -1]
        cell = p[..., :-1].argmax(dim=2)  # [B, 4]
        at = regress.gather(3, cell[..., None, None].expand(-1, -1, 5, 1))[..., 0]  # [B, 4, 5]
        row, col = cell // self.grid, cell % self.grid
        poses = torch.stack([(col + 0.5 + at[..., 0]) / self.grid,
                             (row + 0.5 + at[..., 1]) / self.grid,
                             torch.rad2deg(torch.atan2(at[..., 3], at[..., 2])),
                             torch.exp(at[..., 4])], dim=-1)
        return poses, presence


def part_targets(scenes) -> torch.Tensor:
    """``[len(scenes), 4, 5]`` float: for each part kind, (present, x, y, angle, scale) of that
    part in the scene (zeros where it is missing; strokes are not parts)."""
    out = torch.zeros(len(scenes), N_KINDS, 5)
    for b, parts in enumerate(scenes):
        for part in map(faces.Part._make, parts):
            if part.kind in faces.PART_KINDS:
                out[b, faces.PART_KINDS.index(part.kind)] = torch.tensor([1.0, *part[1:]])
    return out


DETECTOR_KINDS = ("face", "rotated")  # with faces.scattered; no scramble is ever shown


def detector_training_set(n: int, seed: int = 0):
    """``n`` faces, ``n`` rotated faces and ``n`` images of parts scattered at any place and angle
    (``faces.scattered``), with their part targets, shuffled: ``([3n, 1, 32, 32], [3n, 4, 5])``.
    The scattered parts teach the detector parts alone, not faces."""
    images, targets = [], []
    for kind in DETECTOR_KINDS:
        x, _, scenes = faces.dataset(kind, n, seed)
        images.append(x)
        targets.append(part_targets(scenes))
    x, scenes = faces.scattered(n, seed)
    images.append(x)
    targets.append(part_targets(scenes))
    order = torch.randperm(3 * n, generator=torch.Generator().manual_seed(seed))
    return torch.cat(images)[order], torch.cat(targets)[order]


def detection_quality(detector: PartDetector, images: torch.Tensor, scenes) -> dict:
    """How well ``detector`` finds the parts that drew ``images``:

    * ``presence``: fraction of (image, part kind) pairs where it is right about whether the
      part is there (presence > 0.5);
    * ``position_px``: median distance in pixels (at 32 x 32) between the detected and the true
      centre of the parts that are there;
    * ``angle_deg``: median error of their angle, in degrees;
    * ``good``: fraction of the parts that are there found within 2 px and 30 degrees.
    """
    target = part_targets(scenes)
    poses, presence = detector.detect(images)
    there = target[..., 0] > 0.5  # [N, 4]
    size = detector.hparams["image_size"]
    position = (poses[..., :2] - target[..., 1:3]).norm(dim=-1)[there] * size
    angle = ((poses[..., 2] - target[..., 3] + 180) % 360 - 180).abs()[there]
    return {"presence": ((presence > 0.5) == there).float().mean().item(),
            "position_px": position.median().item(), "angle_deg": angle.median().item(),
            "good": ((position <= 2) & (angle <= 30)).float().mean().item()}


# --- Part -> face transforms, learned from clean faces ---------------------------------------


def face_frame(poses: np.ndarray) -> np.ndarray:
    """The frame we call the face's pose, ``[N, 3, 3]``: the mean position, circular mean angle
    and mean scale of its four parts' poses ``[N, 4, 4]``. Defined from the parts alone, so no
    face pose label is needed to learn the W_i."""
    x, y = poses[..., 0].mean(1), poses[..., 1].mean(1)
    rad = np.radians(poses[..., 2])
    angle = np.degrees(np.arctan2(np.sin(rad).mean(1), np.cos(rad).mean(1)))
    return pose_matrix(x, y, angle, poses[..., 3].mean(1))


def fit_transforms(poses: np.ndarray) -> np.ndarray:
    """W ``[4, 3, 3]`` by least squares from the part poses of N clean faces ``[N, 4, 4]``:

        W_i = argmin_W  sum_n || P_i^n W - F^n ||^2,   F^n = face_frame(poses^n)

    with W's last row fixed at (0, 0, 1), as for every pose matrix. The top two rows of
    P W = F read A W_top = B, with A = P[:2, :2] and B = F[:2] - P[:2, 2] (0, 0, 1); stacking
    the N faces' equations gives one linear least-squares problem per part.
    """
    poses = np.asarray(poses, dtype=float)
    F_ = face_frame(poses)  # [N, 3, 3]
    P = pose_matrix(*np.moveaxis(poses, -1, 0))  # [N, 4, 3, 3]
    W = np.zeros((N_KINDS, 3, 3))
    W[:, 2, 2] = 1.0
    for i in range(N_KINDS):
        A = P[:, i, :2, :2].reshape(-1, 2)  # [2N, 2]
        B = (F_[:, :2, :] - P[:, i, :2, 2:3] * np.array([0.0, 0.0, 1.0])).reshape(-1, 3)
        W[i, :2] = np.linalg.lstsq(A, B, rcond=None)[0]  # [2, 3]
    return W


def fit_threshold(face_lengths: np.ndarray, nonface_lengths: np.ndarray) -> float:
    """The face-length threshold that classifies the most training faces and non-faces right
    (equal weight to both); the middle of the best range, so it sits between the two groups."""
    values = np.sort(np.concatenate([face_lengths, nonface_lengths]))
    cuts = np.concatenate([[values[0] - 1e-6], (values[1:] + values[:-1]) / 2, [values[-1]]])
    score = [(face_lengths > t).mean() + (nonface_lengths <= t).mean() for t in cuts]
    best = np.flatnonzero(np.isclose(score, max(score)))
    return float((cuts[best[0]] + cuts[best[-1]]) / 2)


class PoseCapsules(NamedTuple):
    """What ``PoseCapsuleNet.capsules`` computes for a batch of images."""

    poses: torch.Tensor  # [B, 4, 4]  each part's pose (x, y, angle, scale), PART_KINDS order
    presence: torch.Tensor  # [B, 4]  each part capsule's presence p_i
    u_hat: torch.Tensor  # [B, 4, 2, D + 1]  the votes for the face and the background
    routing: RoutingResult  # couplings and the face / background capsules


class PoseCapsuleNet(nn.Module):
    """Part detector -> part capsules (p_i, P_i) -> votes P_i W_i -> routing to (face,
    background). ``fit_transforms`` and ``fit_threshold`` set the buffers W and threshold."""

    def __init__(self, channels=(32, 64, 64, 64), iterations: int = 3):
        super().__init__()
        self.hparams = dict(channels=tuple(channels), iterations=iterations)
        self.detector = PartDetector(channels)
        self.register_buffer("W", torch.eye(3, dtype=torch.float64).repeat(N_KINDS, 1, 1))
        self.register_buffer("threshold", torch.tensor(0.5))

    @torch.no_grad()
    def capsules(self, x: torch.Tensor, iterations: int | None = None) -> "PoseCapsules":
        """Everything the model computes for images ``x``, in one pass: the part capsules, their
        votes, and the routing to the face and background capsules."""
        poses, presence = self.detector.detect(x)
        u_hat = pose_votes(poses.double().numpy(), presence.double().numpy(), self.W.numpy())
        routing = dynamic_routing(u_hat, iterations or self.hparams["iterations"])
        return PoseCapsules(poses, presence, u_hat, routing)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The parents' lengths ``[B, 2]`` (face, background), in ``PARENTS`` order."""
        return self.capsules(x).routing.v.norm(dim=-1).float()

    def face_probability(self, x: torch.Tensor) -> torch.Tensor:
        """The face capsule's length ``[B]``: the probability that a face is present."""
        return self(x)[:, PARENTS.index("face")]

    @torch.no_grad()
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        """1 ("face") where the face capsule is longer than the threshold, else 0."""
        return (self.face_probability(x) > self.threshold).long()



def rotation_sweep(model: PoseCapsuleNet, parts, angles) -> dict:
    """Turn the scene ``parts`` about its face parts' centre by each of ``angles`` (degrees)
    and record what the model reads: detected part angles ``[len(angles), 4]``, the face pose
    decoded from the face capsule (its angle ``[len(angles)]``) and the face length."""
    face = [faces.Part(*p) for p in parts if p[0] in faces.PART_KINDS]
    centre = (np.mean([p.x for p in face]), np.mean([p.y for p in face]))
    scenes = [faces.rotate(parts, a, about=centre) for a in angles]
    size = model.detector.hparams["image_size"]
    x = torch.from_numpy(faces.render_many(scenes, size))[:, None]  # [angles, 1, size, size]
    out = model.capsules(x)
    face = out.routing.v[:, PARENTS.index("face")]  # [angles, D + 1]
    return {"angles": np.asarray(angles, dtype=float),
            "part_angles": out.poses[..., 2].numpy(),
            "face_angle": np.array([decode_pose(v)[2] for v in face.numpy()]),
            "face_length": face.norm(dim=-1).float().numpy()}

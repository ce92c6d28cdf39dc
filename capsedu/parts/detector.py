"""Part capsules read off pixels: a detector finds each face part and regresses its pose.

For each part kind (left eye, right eye, nose, mouth) ``PartDetector`` outputs a **part capsule**:
its presence p_i in [0, 1] and its pose P_i (x, y, angle, scale). It is trained on the
generator's ground-truth part poses, supervision a real CapsNet does not get: it is "what if the
capsule promise is kept", primary capsules that really carry the pose of a part.
"""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..checks import check_input, check_order, check_pixels, check_same
from ..course_settings import MAX_SIDE, MIN_SIDE, Batch, Seed
from ..data import faces
from ..data.sprites import Scenes, _as_part, _outside
from ..poses import wrap_angle
from ..validate import CheckedRecord, Float, Int, Tensor, checked
from .scoring import Count, Kinds, held_out

N_KINDS = len(faces.PART_KINDS)
# per part kind and cell: "where" logit, offset dx, dy in the cell, cos and sin of the angle,
# log of the scale
_OUTPUTS = 6
DETECT_BATCH = 128  # images per forward pass in ``PartDetector.detect``
MAX_CHANNELS = 1024  # a layer's channels: 1024 x 1024 3x3 filters are already 38 MB of weights
MAX_LAYERS = 16  # convolutions: past this the 13x13 window of a 32x32 image's cell is long gone
Channels = Int("a layer's channels", ge=1, le=MAX_CHANNELS)
# what the detector learns from, per image: for each part kind, (present, x, y, angle, scale)
Targets = Tensor("part targets [B, 4, 5] (part_targets)", ndim=3, finite=True,
                 sizes={1: N_KINDS, 2: 5})


class PartDetector(nn.Module):
    """Finds each face part in a 32x32 image and reads off its pose: the part capsules.

    Convolutions (one of stride 2) give a grid of cells, 16x16 for a 32x32 image. For each part
    kind, a softmax over all cells *and* one extra "absent" slot says where the part is, or that
    it is not in the image; the winning cell also regresses the part's exact position in the cell,
    its angle (as cos, sin) and its scale. All layers are convolutions, so a part is found the same
    way wherever it is and whatever surrounds it (each cell sees a 13x13-pixel window).
    """

    @checked
    def __init__(self, channels: tuple[Channels, ...] | list[Channels] = (32, 64, 64, 64),
                 image_size: Int("the images' side in pixels: faces are drawn at "
                                 f"{MIN_SIDE} or more", ge=MIN_SIDE, le=MAX_SIDE) = 32):
        if not 1 <= len(channels) <= MAX_LAYERS:
            raise ValueError(f"PartDetector(): channels must name 1 to {MAX_LAYERS} layers, got "
                             f"{len(channels)}")
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
        check_input(x, "PartDetector(): x", self)
        check_pixels(x, f"{type(self).__name__}(): x")
        out = self.head(self.features(x)).flatten(2)  # [B, 4 * 6, cells]
        out = out.view(len(x), N_KINDS, _OUTPUTS, -1)  # [B, 4, 6, cells]
        absent = self.absent.expand(len(x), N_KINDS)[..., None]  # [B, 4, 1]
        return torch.cat([out[:, :, 0], absent], dim=2), out[:, :, 1:]

    @checked(reads=("self", "x"))
    def training_loss(self, x: Batch, targets: Targets):
        """Cross-entropy on where each part is (or that it is absent), plus squared errors of
        the pose read at the true cell. ``targets`` ``[B, 4, 5]``: present, x, y, angle, scale
        (as ``part_targets`` makes them). Returns ``(loss, None)``: no class predictions."""
        check_same("PartDetector.training_loss", "batch", "pass the targets of these images "
                   "(part_targets)", x=len(x), targets=len(targets))
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

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def detect(self, x: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """The part capsules of images ``x``: poses ``[B, 4, 4]`` (x, y, angle in degrees,
        scale), read at each kind's most likely cell, and presences ``[B, 4]`` in [0, 1].

        In batches of ``DETECT_BATCH`` images: the first feature maps take 131 kB per image."""
        self.eval()
        poses, presences = zip(*(self._detect(batch) for batch in x.split(DETECT_BATCH)),
                               strict=True)
        return torch.cat(poses), torch.cat(presences)

    def _detect(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``detect`` for one batch."""
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


@checked
def part_targets(scenes: Scenes) -> torch.Tensor:
    """``[len(scenes), 4, 5]`` float: for each part kind, (present, x, y, angle, scale) of that
    part in the scene (zeros where it is missing; strokes are not parts), each face part in the
    image: the detector's grid covers the image, no cell holds a part off it."""
    for b, parts in enumerate(scenes):
        if off := _outside([_as_part(p, "part_targets") for p in parts]):
            raise ValueError(f"part_targets(): scenes[{b}] must place each face part in the image "
                             f"(x and y are fractions of it, from 0 to 1), got {off.kind} at "
                             f"x={off.x:g}, y={off.y:g}; pass fractions, e.g. 0.5 for the centre")
    poses, presence = faces.part_slots(scenes)  # [n, 4, 4], [n, 4]
    return torch.from_numpy(np.concatenate([presence[..., None], poses], axis=-1)).float()


PART_SCALES = (0.5, 1.6)  # the scales of the scattered parts the detector learns from


@checked
def detector_training_set(n: Int("images to draw", ge=1, le=faces.MAX_IMAGES), seed: Seed = 0,
                          part_scales: tuple[Float("a part's scale", gt=0,
                                                   le=faces.MAX_SCALE), ...] = PART_SCALES):
    """``n`` images of face parts scattered at any place and angle and at a scale in
    ``part_scales`` (``faces.scattered``), with their part targets: ``([n, 1, 32, 32],
    [n, 4, 5])``.

    No face is ever shown: the detector learns the four parts, alone or in random company, and
    what it knows of every angle and size it knows of parts, not of faces."""
    if len(part_scales) != 2:
        raise ValueError(f"detector_training_set(): part_scales must be (low, high), two scales, "
                         f"got {part_scales!r}; pass e.g. {PART_SCALES}")
    check_order("detector_training_set", "give the smaller end first",
                **{"part_scales[0]": part_scales[0], "part_scales[1]": part_scales[1]})
    images, scenes = faces.scattered(n, seed, scale=part_scales)
    return images, part_targets(scenes)


@dataclass(frozen=True)
class DetectionQuality(CheckedRecord):
    """How well a detector finds the parts that drew a set of images (``detection_quality``)."""

    # fraction of (image, part kind) pairs right about whether the part is there
    presence: Float("a fraction of (image, part kind) pairs", ge=0, le=1)
    # median distance in pixels (at 32 x 32), detected to true centre
    position_px: Float("a median distance in pixels", ge=0)
    # median error of the angle of the parts that are there, in degrees
    angle_deg: Float("a median angle error in degrees", ge=0, le=180)
    # fraction of the parts that are there found within 2 px and 30 degrees
    good: Float("a fraction of the parts there", ge=0, le=1)


@checked
def detection_quality(detector: PartDetector,
                      images: Tensor("images [N, 1, H, W]", ndim=4, pixels=True),
                      scenes: Scenes) -> DetectionQuality:
    """How well ``detector`` finds the parts that drew ``images``:

    * ``presence``: fraction of (image, part kind) pairs where it is right about whether the
      part is there (presence > 0.5);
    * ``position_px``: median distance in pixels (at 32 x 32) between the detected and the true
      centre of the parts that are there;
    * ``angle_deg``: median error of their angle, in degrees;
    * ``good``: fraction of the parts that are there found within 2 px and 30 degrees.
    """
    check_same("detection_quality", "length", "pass the scenes that drew the images, one each",
               images=len(images), scenes=len(scenes))
    target = part_targets(scenes)
    poses, presence = detector.detect(images)
    there = target[..., 0] > 0.5  # [N, 4]
    size = detector.hparams["image_size"]
    position = (poses[..., :2] - target[..., 1:3]).norm(dim=-1)[there] * size
    angle = wrap_angle(poses[..., 2] - target[..., 3]).abs()[there]
    return DetectionQuality(presence=((presence > 0.5) == there).float().mean().item(),
                            position_px=position.median().item(),
                            angle_deg=angle.median().item(),
                            good=((position <= 2) & (angle <= 30)).float().mean().item())


@checked
def format_detection_quality(detector: PartDetector,
                             kinds: Kinds,
                             n: Count
                             ) -> str:
    """A table of ``detection_quality`` on ``n`` held-out images (``scoring.held_out``) of each
    of ``kinds``: one row per kind."""
    lines = [f"{'kind':>16} | presence right | position error | angle error | "
             "parts within 2 px and 30°"]
    for kind in kinds:
        q = detection_quality(detector, *held_out(kind, n))
        lines.append(f"{kind:>16} | {q.presence:>14.3f} | {q.position_px:>11.2f} px | "
                     f"{q.angle_deg:>9.1f}° | {q.good:.3f}")
    return "\n".join(lines)

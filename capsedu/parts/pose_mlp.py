"""The control for notebook 07's pose capsules: a plain classifier over the same part poses.

The pose-capsule model (``parts.pose_net``) has two ingredients: part capsules that carry an
explicit pose, and a face that is found by the *agreement* of the parts' votes P_i W_i. This
model keeps the first and drops the second: it reads the very same part capsules (a frozen copy
of a trained pose-capsule model's detector) and feeds their presences and poses to a small
multilayer perceptron trained on faces vs non-faces. Where it does as well as the pose capsules,
explicit poses are enough; where it fails, agreement is what the capsules add.
"""

import torch
from torch import nn

from ..baselines import LogitClassifier
from ..checks import check_input, check_pixels
from ..course_settings import MAX_WIDTH, Batch
from ..validate import Int, checked
from .detector import N_KINDS, Channels, PartDetector

FEATURES = 6  # per part: presence p, and p x (x, y, cos angle, sin angle, scale)


class PartPoseMLP(LogitClassifier):
    """Part detector (frozen) -> presences and poses of the four parts -> MLP -> 2 logits."""

    @checked
    def __init__(self, channels: tuple[Channels, ...] | list[Channels] = (32, 64, 64, 64),
                 hidden: Int("the MLP's hidden units", ge=1, le=MAX_WIDTH) = 64):
        super().__init__()
        self.hparams = dict(channels=tuple(channels), hidden=hidden)
        self.detector = PartDetector(channels).requires_grad_(False)
        self.mlp = nn.Sequential(nn.Linear(N_KINDS * FEATURES, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    @checked
    def features(self, x: Batch) -> torch.Tensor:
        """``[B, 4 * 6]``: each part's presence p and its pose scaled by p (an absent part's
        pose read-out is meaningless, so it is zeroed)."""
        check_input(x, f"{type(self).__name__}.features(): x", self.detector)
        return self._features(x)

    def _features(self, x: torch.Tensor) -> torch.Tensor:
        """``features`` of images checked."""
        poses, presence = self.detector.detect(x)  # [B, 4, 4], [B, 4]
        angle = torch.deg2rad(poses[..., 2])
        pose = torch.stack([poses[..., 0], poses[..., 1], torch.cos(angle), torch.sin(angle),
                            poses[..., 3]], dim=-1)  # [B, 4, 5]
        return torch.cat([presence[..., None], presence[..., None] * pose], dim=-1).flatten(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits ``[B, 2]`` (not a face, face) for images ``[B, 1, 32, 32]``, checked by
        hand at every pass (the detector's size, and pixels in [0, 1])."""
        check_input(x, f"{type(self).__name__}(): x", self.detector, some=True)
        check_pixels(x, f"{type(self).__name__}(): x")
        return self.mlp(self._features(x))

    def train(self, mode: bool = True):
        """Train the MLP only: the detector stays in eval mode, as it was trained."""
        if not isinstance(mode, bool):  # torch's own words name neither the method nor mode
            raise TypeError(f"PartPoseMLP.train(): mode must be True (train) or False (evaluate), "
                            f"got {mode!r}; pass a bool, or call model.eval()")
        super().train(mode)
        self.detector.eval()
        return self

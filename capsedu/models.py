"""The paper's CapsNet and the CNN baselines it is compared with.

Every model here keeps the keyword arguments that built it in ``self.hparams`` so that a
checkpoint can rebuild it (``capsedu.checkpoints``), and offers the same two methods to the
training loop: ``training_loss(x, y) -> (loss, predictions)`` and ``predict(x)``.
"""

from dataclasses import asdict, dataclass, replace
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .functional import margin_loss, reconstruction_loss
from .layers import PrimaryCapsules, RoutingCapsules
from .part_capsules import PoseCapsuleNet
from .routing import RoutingResult
from .validate import check_finite, check_shape


@dataclass(frozen=True)
class CapsNetConfig:
    """Sizes of a CapsNet. The defaults are the paper's (Section 4, Fig. 1 and 2)."""

    in_channels: int = 1
    image_size: int = 28
    conv_channels: int = 256  # Conv1: 256 channels, 9x9, stride 1, ReLU
    conv_kernel: int = 9
    primary_maps: int = 32  # PrimaryCaps: 32 maps of 8D capsules, 9x9, stride 2
    primary_dim: int = 8
    primary_kernel: int = 9
    primary_stride: int = 2
    n_classes: int = 10  # DigitCaps: one 16D capsule per class
    digit_dim: int = 16
    iterations: int = 3
    grad_through_routing: bool = True
    decoder_hidden: tuple[int, ...] = (512, 1024)
    recon_weight: float = 0.0005  # "scaled down by 0.0005" (Section 4.1)

    @property
    def primary_grid(self) -> int:
        """Side of the PrimaryCaps grid: 28 -> 20 (Conv1) -> 6 (PrimaryCaps) in the paper."""
        after_conv = self.image_size - self.conv_kernel + 1
        return (after_conv - self.primary_kernel) // self.primary_stride + 1

    @property
    def n_primary(self) -> int:
        """Number of primary capsules, 6 * 6 * 32 = 1152 in the paper."""
        return self.primary_grid**2 * self.primary_maps


PAPER = CapsNetConfig()
# A CPU-friendly CapsNet: 64 Conv1 channels and 8 primary maps (288 capsules instead of 1152).
SMALL = CapsNetConfig(conv_channels=64, primary_maps=8)
# The CapsNet a learner trains live in notebook 05: half of SMALL's Conv1 channels.
LIVE = CapsNetConfig(conv_channels=32, primary_maps=8)


class CapsNetOutput(NamedTuple):
    v: torch.Tensor  # [B, n_classes, digit_dim]  DigitCaps vectors
    lengths: torch.Tensor  # [B, n_classes]  ||v_j||: the probability that class j is present
    reconstruction: torch.Tensor  # [B, C, H, W]  the decoder's image from the masked v
    routing: RoutingResult  # couplings and per-iteration trace of the DigitCaps routing


class CapsNet(nn.Module):
    """Conv1 -> PrimaryCaps -> DigitCaps (routing) -> decoder (Sabour et al. 2017, Fig. 1-2).

    ``CapsNet()`` is the paper's network, ``CapsNet(SMALL)`` the CPU-sized one; any
    ``CapsNetConfig`` field can be overridden by keyword, e.g. ``CapsNet(SMALL, iterations=1)``.
    """

    def __init__(self, config: CapsNetConfig = PAPER, **overrides):
        super().__init__()
        cfg = self.config = replace(config, **overrides)
        self.hparams = asdict(cfg)
        self.conv1 = nn.Conv2d(cfg.in_channels, cfg.conv_channels, cfg.conv_kernel)
        self.primary = PrimaryCapsules(
            cfg.conv_channels, cfg.primary_maps, cfg.primary_dim, cfg.primary_kernel,
            cfg.primary_stride,
        )
        self.digits = RoutingCapsules(
            cfg.n_primary, cfg.primary_dim, cfg.n_classes, cfg.digit_dim, cfg.iterations,
            cfg.grad_through_routing,
        )
        sizes = [cfg.n_classes * cfg.digit_dim, *cfg.decoder_hidden]
        layers = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            layers += [nn.Linear(a, b), nn.ReLU()]
        n_pixels = cfg.in_channels * cfg.image_size**2
        self.decoder = nn.Sequential(*layers, nn.Linear(sizes[-1], n_pixels), nn.Sigmoid())

    def forward(self, x: torch.Tensor, targets: torch.Tensor | None = None) -> CapsNetOutput:
        """``x``: ``[B, C, H, W]`` images. The decoder sees only one DigitCaps vector: the
        true class's when ``targets`` ``[B]`` is given (training), else the longest (test)."""
        cfg = self.config
        shape = f"[batch, {cfg.in_channels}, {cfg.image_size}, {cfg.image_size}]"
        check_shape(x, "x", shape, ndim=4)
        if tuple(x.shape[1:]) != (cfg.in_channels, cfg.image_size, cfg.image_size):
            raise ValueError(f"x must have shape {shape}, got {tuple(x.shape)}")
        check_finite(x, "x")
        u = self.primary(F.relu(self.conv1(x)))  # [B, n_primary, primary_dim]
        routing = self.digits(u)
        v = routing.v  # [B, n_classes, digit_dim]
        lengths = v.norm(dim=-1)  # [B, n_classes]
        return CapsNetOutput(v, lengths, self.reconstruct(v, lengths, targets), routing)

    def reconstruct(self, v, lengths, targets=None) -> torch.Tensor:
        """Mask all but one capsule (the target's, else the longest) and decode it to an image."""
        chosen = targets if targets is not None else lengths.argmax(dim=1)
        mask = F.one_hot(chosen, self.config.n_classes).to(v.dtype)  # [B, n_classes]
        flat = (v * mask.unsqueeze(-1)).flatten(1)  # [B, n_classes * digit_dim]
        cfg = self.config
        return self.decoder(flat).view(-1, cfg.in_channels, cfg.image_size, cfg.image_size)

    def loss(self, out: CapsNetOutput, x, targets) -> torch.Tensor:
        """Margin loss (Eq. 4) plus 0.0005 x the reconstruction's sum of squared errors."""
        recon = reconstruction_loss(out.reconstruction, x)
        return margin_loss(out.lengths, targets) + self.config.recon_weight * recon

    def training_loss(self, x, y):
        out = self(x, y)  # the decoder is masked by the TRUE label during training
        return self.loss(out, x, y), out.lengths.argmax(dim=1)

    @torch.no_grad()
    def predict(self, x) -> torch.Tensor:
        return self(x).lengths.argmax(dim=1)


class _CNN(nn.Module):
    """A stack of conv layers, a global max-pool over positions and a linear classifier."""

    def __init__(self, features: nn.Sequential, n_features: int, n_classes: int, hparams: dict):
        super().__init__()
        self.hparams = hparams
        self.features = features
        self.classifier = nn.Linear(n_features, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, H, W]`` -> class logits ``[B, n_classes]``."""
        check_shape(x, "x", "[batch, channels, height, width]", ndim=4)
        check_finite(x, "x")
        in_channels = self.hparams["in_channels"]
        if x.shape[1] != in_channels:
            raise ValueError(f"x must have {in_channels} channel(s), got shape {tuple(x.shape)}")
        # global max-pool: "is this feature anywhere?" -- where it is, is thrown away
        return self.classifier(self.features(x).amax(dim=(2, 3)))

    def training_loss(self, x, y):
        logits = self(x)
        return F.cross_entropy(logits, y), logits.argmax(dim=1)

    @torch.no_grad()
    def predict(self, x) -> torch.Tensor:
        return self(x).argmax(dim=1)

    @property
    def receptive_field(self) -> int:
        return receptive_field(self.features)


class BagOfPartsCNN(_CNN):
    """Two 3x3 convolutions (receptive field 5x5 pixels: a piece of one face part on a 32x32
    face, less than the gap between two parts) then a global max-pool: it can report *which*
    parts are present, never *where* they are relative to each other."""

    def __init__(self, in_channels=1, n_classes=2, channels=(32, 64)):
        convs, c_in = [], in_channels
        for c in channels:
            convs += [nn.Conv2d(c_in, c, 3, padding=1), nn.ReLU()]
            c_in = c
        hp = dict(in_channels=in_channels, n_classes=n_classes, channels=tuple(channels))
        super().__init__(nn.Sequential(*convs), c_in, n_classes, hp)


class DeepCNN(_CNN):
    """Conv + 2x2 max-pool blocks and a last conv: its receptive field (38 px with the defaults)
    covers a whole 32x32 input, so its features can encode the arrangement of parts."""

    def __init__(self, in_channels=1, n_classes=2, channels=(16, 32, 64, 64)):
        layers, c_in = [], in_channels
        for k, c in enumerate(channels):
            layers += [nn.Conv2d(c_in, c, 3, padding=1), nn.ReLU()]
            if k < len(channels) - 1:
                layers.append(nn.MaxPool2d(2))
            c_in = c
        hp = dict(in_channels=in_channels, n_classes=n_classes, channels=tuple(channels))
        super().__init__(nn.Sequential(*layers), c_in, n_classes, hp)


def receptive_field(layers: nn.Sequential) -> int:
    """Side, in input pixels, of the window one output unit of ``layers`` can see.

    r <- r + (k - 1) * j and j <- j * s for each conv / pool of kernel k and stride s, where j is
    the distance in input pixels between neighbouring units (the "jump").
    """
    r, jump = 1, 1
    for layer in layers:
        if isinstance(layer, (nn.Conv2d, nn.MaxPool2d)):
            k = layer.kernel_size if isinstance(layer.kernel_size, int) else layer.kernel_size[0]
            s = layer.stride if isinstance(layer.stride, int) else layer.stride[0]
            r, jump = r + (k - 1) * jump, jump * s
    return r


MODELS = {cls.__name__: cls for cls in (CapsNet, BagOfPartsCNN, DeepCNN, PoseCapsuleNet)}


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

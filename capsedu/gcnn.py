"""Notebook 10's pair: a C4 group-equivariant CNN (Cohen & Welling 2016) and an ordinary CNN of
the same depth and parameter count, both trained on upright MNIST and tested at every angle.

Both are the same stack: a first convolution, three more, a 2x2 max-pool after the second and
the third, batch normalisation and ReLU after each, then a max over positions (and, for the
G-CNN, over the four rotations) and a linear classifier. The G-CNN's layers are
``group_conv.LiftingConv`` and ``group_conv.GroupConv``; its features turn with the input, and
the final max makes its prediction exactly invariant to quarter turns of the input, as long as
the image side is a multiple of 4 (MNIST's 28 is): the two 2x2 max-pools then pool the same
pixel pairs of a turned image. On another side (e.g. 30) a pool drops a row on one side only,
and the equivariance of the later layers is approximate.
"""

import torch
from torch import nn

from .baselines import LogitClassifier
from .group_conv import GroupConv, LiftingConv
from .validate import check_finite, check_model_dtype, check_shape


class _Stack(LogitClassifier):
    """``[B, 1, H, W]`` images -> class logits; ``features(x)`` returns every layer's maps."""

    def __init__(self, convs: list[nn.Module], norm: type, channels: tuple, n_classes: int,
                 hparams: dict):
        super().__init__()
        self.hparams = hparams
        self.convs = nn.ModuleList(convs)
        self.norms = nn.ModuleList(norm(c) for c in channels)
        self.classifier = nn.Linear(channels[-1], n_classes)

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        """The maps after each block: ``[B, C, H, W]`` for the CNN, ``[B, C, 4, H, W]`` for the
        G-CNN (its rotation axis kept)."""
        check_shape(x, "x", "[batch, 1, height, width]", ndim=4)
        check_model_dtype(x, "x", self.classifier.weight.dtype)
        check_finite(x, "x")
        maps = []
        for k, (conv, norm) in enumerate(zip(self.convs, self.norms, strict=True)):
            x = torch.relu(norm(conv(x)))
            if k in (1, 2):  # 2x2 max-pool over positions (the last two axes): 28 -> 14 -> 7
                x = nn.functional.max_pool2d(x.flatten(1, -3), 2).unflatten(1, x.shape[1:-2])
            maps.append(x)
        return maps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        last = self.features(x)[-1]  # [B, C, (4,) H, W]
        # max over everything but the channel: positions, and the G-CNN's rotations
        return self.classifier(last.flatten(2).amax(dim=2))


class C4CNN(_Stack):
    """The C4 group-equivariant CNN: a lifting convolution then three group convolutions."""

    def __init__(self, channels=(8, 16, 16, 32), kernel_size=5, n_classes=10):
        convs = [LiftingConv(1, channels[0], kernel_size)]
        convs += [GroupConv(a, b, 3) for a, b in zip(channels, channels[1:], strict=False)]
        hp = dict(channels=tuple(channels), kernel_size=kernel_size, n_classes=n_classes)
        # BatchNorm3d over [B, C, 4, H, W]: one mean and scale per channel, shared by its four
        # rotations, so normalising keeps the layer equivariant
        super().__init__(convs, nn.BatchNorm3d, tuple(channels), n_classes, hp)


class PlainCNN(_Stack):
    """The same stack with ordinary convolutions: twice the channels of ``C4CNN`` gives about
    its number of parameters (a group convolution holds 4 filter slices per channel pair)."""

    def __init__(self, channels=(16, 32, 32, 64), kernel_size=5, n_classes=10):
        convs = [nn.Conv2d(1, channels[0], kernel_size, padding=kernel_size // 2)]
        convs += [nn.Conv2d(a, b, 3, padding=1) for a, b in zip(channels, channels[1:],
                                                                 strict=False)]
        hp = dict(channels=tuple(channels), kernel_size=kernel_size, n_classes=n_classes)
        super().__init__(convs, nn.BatchNorm2d, tuple(channels), n_classes, hp)

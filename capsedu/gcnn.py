"""Notebook 10's pair: a C4 group-equivariant CNN (Cohen & Welling 2016) and an ordinary CNN of
the same depth and parameter count, both trained on upright MNIST and tested at every angle.

Both are the same stack: a first convolution, more after it, 2x2 max-pools after two of them
(``pool_after``), batch normalisation and ReLU after each, then a max over positions (and, for the
G-CNN, over the four rotations) and a linear classifier. ``ANCHOR_CHANNELS`` is the size of the
UvA deep-learning tutorial's C4 G-CNN (a lifting convolution and four group convolutions of 16
channels, 5x5 filters: about 103k parameters), which 10 quotes as its anchor. The G-CNN's layers are
``group_conv.LiftingConv`` and ``group_conv.GroupConv``; its features turn with the input, and
the final max makes its prediction exactly invariant to quarter turns of the input, as long as
the image side is a multiple of 4 (MNIST's 28 is): the two 2x2 max-pools then pool the same
pixel pairs of a turned image. On another side (e.g. 30) a pool drops a row on one side only,
and the equivariance of the later layers is approximate.
"""

from typing import Annotated

import torch
from torch import nn

from .baselines import ImageSide, LogitClassifier
from .checks import check_input, check_model_dtype, check_pixels, check_shape
from .course_settings import MAX_WIDTH, Distinct, LogitClasses
from .group_conv import N_ROTATIONS, GroupConv, Kernel, LiftingConv
from .memory import check_memory
from .validate import Int, checked

# The anchor's size: five layers of 16 channels (x 4 rotations), every filter 5x5; pooling after
# the first and the third layer (28 -> 14 -> 7) costs less than half the time of pooling after the
# second and third, for the same parameters
ANCHOR_CHANNELS = (16, 16, 16, 16, 16)
ANCHOR_POOLS = (0, 2)

# Bounds on a stack's sizes, far past the anchor's (16 channels, 5x5 filters, 5 layers); the
# weights of the whole stack are estimated against the memory too (``_check_weights``).
MAX_LAYERS = 256  # a pool index names one of the stack's layers (the anchor has 5)
Width = Int("a layer's channels", ge=1, le=MAX_WIDTH)
Widths = tuple[Width, ...] | list[Width]  # one per layer, a tuple or a list
Pool = Int("a layer a 2x2 max-pool follows", ge=0, le=MAX_LAYERS)
# each layer named once: a layer pools once, however often it is named
Pools = Annotated[tuple[Pool, ...] | list[Pool], Distinct]


def _check_weights(channels, kernel_size: int, hidden_kernel_size: int, slices: int,
                   copies: int) -> None:
    """Refuse up front a stack whose float32 weights do not fit (and, in ``_pools``, a pool after
    a layer the stack does not have): one input channel, then
    ``channels``; a filter after the first is ``slices`` slices deep per input channel (4 for a
    group convolution), and the weights are held ``copies`` times (a C4 layer's while drawn and
    scaled, and its stacked copies at every forward pass)."""
    kernels = [kernel_size] + [hidden_kernel_size] * (len(channels) - 1)
    depths = [1] + [slices] * (len(channels) - 1)
    numbers = sum(a * b * d * k**2 for a, b, d, k in zip([1, *channels], channels, depths, kernels,
                                                         strict=False))
    check_memory(4 * copies * numbers, f"a stack of {len(channels)} convolutions",
                 "use fewer channels or layers, or smaller filters")


def _pools(where: str, pool_after, channels) -> None:
    """Refuse a pool after a layer the stack lacks: it would never pool, silently."""
    beyond = [k for k in pool_after if k >= len(channels)]
    if beyond:
        raise ValueError(f"{where}(): pool_after must name layers of the stack, 0 to "
                         f"{len(channels) - 1} (one per item of channels), got {list(beyond)}; "
                         "a pool after a layer that does not exist never pools")


class _Stack(LogitClassifier):
    """``[B, 1, H, W]`` images -> class logits; ``features(x)`` returns every layer's maps."""

    def __init__(self, convs: list[nn.Module], norm: type, channels: tuple, n_classes: int,
                 hparams: dict):
        super().__init__()
        self.hparams = hparams
        self.pool_after = hparams["pool_after"]
        self.convs = nn.ModuleList(convs)
        self.norms = nn.ModuleList(norm(c) for c in channels)
        self.classifier = nn.Linear(channels[-1], n_classes)
        self._check_image_size(len(self.pool_after))

    def features(self, x: torch.Tensor) -> list[torch.Tensor]:
        """The maps after each block: ``[B, C, H, W]`` for the CNN, ``[B, C, 4, H, W]`` for the
        G-CNN (its rotation axis kept)."""
        where = f"{type(self).__name__}(): x"
        check_shape(x, where, "[batch, 1, height, width]", ndim=4)
        if x.shape[1] != 1:
            raise ValueError(f"{where} must have 1 channel [batch, 1, height, width], got shape "
                             f"{tuple(x.shape)}; pass grey images")
        if not len(x):  # an empty batch would give empty scores without a word
            raise ValueError(f"{where} must hold at least one image, got {tuple(x.shape)}; pass "
                             "some")
        self._check_side(x, len(self.pool_after))
        check_input(x, where, self)  # the side it was made for (hparams' image_size)
        check_model_dtype(x, where, self.classifier.weight.dtype)
        check_pixels(x, where)
        maps = []
        for k, (conv, norm) in enumerate(zip(self.convs, self.norms, strict=True)):
            x = torch.relu(norm(conv(x)))
            if k in self.pool_after:  # 2x2 max-pool over positions (the last two axes)
                x = nn.functional.max_pool2d(x.flatten(1, -3), 2).unflatten(1, x.shape[1:-2])
            maps.append(x)
        return maps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        last = self.features(x)[-1]  # [B, C, (4,) H, W]
        # max over everything but the channel: positions, and the G-CNN's rotations
        return self.classifier(last.flatten(2).amax(dim=2))


class C4CNN(_Stack):
    """The C4 group-equivariant CNN: a lifting convolution then group convolutions, one per
    channel count after the first (``hidden_kernel_size`` filters). ``image_size``: the side it
    reads, 28 (the MNIST digits it is trained on: ``check_input`` refuses others), or None for
    any (the stack is fully convolutional)."""

    @checked
    def __init__(self, channels: Widths = ANCHOR_CHANNELS, kernel_size: Kernel = 5,
                 n_classes: LogitClasses = 10, hidden_kernel_size: Kernel = 5,
                 pool_after: Pools = ANCHOR_POOLS, image_size: ImageSide | None = 28):
        if not channels:
            raise ValueError(f"C4CNN(): channels must name at least one layer, got {channels!r}; "
                             "e.g. channels=(8, 16)")
        _check_weights(channels, kernel_size, hidden_kernel_size, N_ROTATIONS, 2 + N_ROTATIONS)
        _pools("C4CNN", pool_after, channels)
        convs = [LiftingConv(1, channels[0], kernel_size)]
        convs += [GroupConv(a, b, hidden_kernel_size)
                  for a, b in zip(channels, channels[1:], strict=False)]
        hp = dict(channels=tuple(channels), kernel_size=kernel_size, n_classes=n_classes,
                  hidden_kernel_size=hidden_kernel_size, pool_after=tuple(pool_after),
                  image_size=image_size)
        # BatchNorm3d over [B, C, 4, H, W]: one mean and scale per channel, shared by its four
        # rotations, so normalising keeps the layer equivariant
        super().__init__(convs, nn.BatchNorm3d, tuple(channels), n_classes, hp)


class PlainCNN(_Stack):
    """The same stack with ordinary convolutions: twice the channels of ``C4CNN`` gives about
    its number of parameters (a group convolution holds 4 filter slices per channel pair);
    ``image_size`` as ``C4CNN``'s."""

    @checked
    def __init__(self, channels: Widths = tuple(2 * c for c in ANCHOR_CHANNELS),
                 kernel_size: Kernel = 5, n_classes: LogitClasses = 10,
                 hidden_kernel_size: Kernel = 5, pool_after: Pools = ANCHOR_POOLS,
                 image_size: ImageSide | None = 28):
        if not channels:
            raise ValueError(f"PlainCNN(): channels must name at least one layer, got "
                             f"{channels!r}; "
                             "e.g. channels=(8, 16)")
        _check_weights(channels, kernel_size, hidden_kernel_size, 1, 1)
        _pools("PlainCNN", pool_after, channels)
        k = hidden_kernel_size
        convs = [nn.Conv2d(1, channels[0], kernel_size, padding=kernel_size // 2)]
        convs += [nn.Conv2d(a, b, k, padding=k // 2)
                  for a, b in zip(channels, channels[1:], strict=False)]
        hp = dict(channels=tuple(channels), kernel_size=kernel_size, n_classes=n_classes,
                  hidden_kernel_size=hidden_kernel_size, pool_after=tuple(pool_after),
                  image_size=image_size)
        super().__init__(convs, nn.BatchNorm2d, tuple(channels), n_classes, hp)

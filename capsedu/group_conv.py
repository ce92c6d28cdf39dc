"""Rotation-equivariant convolutions for the group C4 of quarter turns (Cohen & Welling 2016,
"Group Equivariant Convolutional Networks"), written out in plain PyTorch for notebook 10.

A feature map of a C4 network has one extra axis: ``[B, C, 4, H, W]``, the response of each
filter turned by 0, 90, 180 and 270 degrees. Turning the input by a quarter turn turns every
such map and shifts it by one step along that axis (``rotate_c4``): the network's features
*transform with* the input instead of changing unpredictably (equivariance). A max over the
rotation axis and the positions then gives features that do not change at all (invariance).

``torch.rot90(x, r, dims=(-2, -1))`` is the quarter turn used throughout, for images, filters
and feature maps alike; odd kernels with "same" padding keep every layer exactly equivariant.
"""

import math
from typing import Annotated

import torch
import torch.nn.functional as F
from pydantic import AfterValidator
from torch import nn

from .checks import check_model_dtype, check_same, check_shape
from .course_settings import MAX_WIDTH
from .memory import check_memory
from .validate import Int, Tensor, checked

N_ROTATIONS = 4  # C4: the turns by 0, 90, 180 and 270 degrees
# Bounds on a layer's sizes, far past 10's (16 channels, 5x5 filters); a layer's weights are
# estimated against the memory too, since sizes in range can still multiply past it.
MAX_KERNEL = 255  # a filter's side: 10's are 5 pixels; 255 is wider than any image here
# a rotation in whole quarter turns, counter-clockwise (negative: back), as torch.rot90 takes
# it: four turn all the way round, so -3 .. 3 names every one; 90 is degrees, not turns


def _odd(kernel_size: int) -> int:
    """Refuse an even filter side: a filter turns about its centre pixel, which it then lacks."""
    if kernel_size % 2 != 1:
        raise ValueError(f"must be odd (a centre pixel to turn about), got {kernel_size}; pass "
                         f"{kernel_size - 1} or {kernel_size + 1}")
    return kernel_size


# a filter's side: odd, so that "same" padding keeps every layer exactly equivariant
Kernel = Annotated[Int("a filter's side, odd", ge=1, le=MAX_KERNEL), AfterValidator(_odd)]
QuarterTurns = Int("counter-clockwise, negative turning back: r counts quarter turns, 90 "
                   "degrees -> 1", ge=-3, le=3)


@checked
def rotate_c4(features: Tensor("a C4 feature map [B, C, 4, H, W] (or C4 filters)", ndim=5,
                              sizes={2: N_ROTATIONS}),
              r: QuarterTurns = 1
              ) -> torch.Tensor:
    """What ``r`` quarter turns of the input do to a C4 feature map ``[B, C, 4, H, W]``: every
    map turns by ``r`` quarter turns and the rotation axis shifts by ``r``:
    out[:, :, s] = rot^r(features[:, :, s - r])."""
    return torch.rot90(features, r, dims=(-2, -1)).roll(r, dims=2)


@checked
def lifting_filters(weight: Tensor("filters [C_out, C_in, k, k]", ndim=4, floating=True,
                                   finite=True)
                    ) -> torch.Tensor:
    """The four turned copies of ordinary filters ``[C_out, C_in, k, k]``, stacked for one
    convolution: ``[C_out * 4, C_in, k, k]`` (output channel o * 4 + r is filter o turned r
    times)."""
    check_same("lifting_filters", "size, a square that a quarter turn keeps", "pass square "
               "filters [C_out, C_in, k, k]", **{"weight's height": weight.shape[2],
                                                 "weight's width": weight.shape[3]})
    turned = torch.stack([torch.rot90(weight, r, dims=(-2, -1)) for r in range(N_ROTATIONS)],
                         dim=1)  # [C_out, 4, C_in, k, k]
    return turned.flatten(0, 1)


@checked
def group_filters(weight: Tensor("C4 filters [C_out, C_in, 4, k, k]", ndim=5, floating=True,
                                 finite=True, sizes={2: N_ROTATIONS})
                  ) -> torch.Tensor:
    """The four transformed copies of C4 filters ``[C_out, C_in, 4, k, k]``, stacked for one
    convolution over the input's ``C_in * 4`` channels: ``[C_out * 4, C_in * 4, k, k]``.
    Copy r turns every filter slice by r quarter turns *and* shifts the rotation axis by r:
    W_r[:, :, s] = rot^r(W[:, :, s - r])."""
    check_same("group_filters", "size: a filter turns a quarter only when it is square (k x k)",
               "pass square filters", **{"weight's height": weight.shape[3],
                                         "weight's width": weight.shape[4]})
    turned = torch.stack([rotate_c4(weight, r) for r in range(N_ROTATIONS)], dim=1)
    return turned.flatten(0, 1).flatten(1, 2)  # [C_out * 4, C_in * 4, k, k]


class _C4Conv(nn.Module):
    """What both C4 layers share: odd filters, one convolution with all transformed copies of
    them stacked (``stack``), a ``[B, C_out, 4, H, W]`` output and one bias per filter, shared by
    its four copies."""

    def __init__(self, weight_shape: tuple, fan_in: int, stack):
        super().__init__()
        # the weights, float32, twice while they are drawn and scaled; the four stacked copies
        # a forward pass makes
        check_memory(4 * (2 + N_ROTATIONS) * math.prod(weight_shape),
                     f"{type(self).__name__}'s weights {tuple(weight_shape)}",
                     "use fewer channels or smaller filters")
        self.weight = nn.Parameter(torch.randn(weight_shape) / fan_in**0.5)
        self.bias = nn.Parameter(torch.zeros(weight_shape[0]))
        self.stack = stack

    def convolve(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` ``[B, C, H, W]`` (the input's channels, flattened) -> ``[B, C_out, 4, H, W]``."""
        k = self.weight.shape[-1]
        per = 1 if isinstance(self, LiftingConv) else N_ROTATIONS  # a group map: 4 per channel
        if x.shape[1] != self.weight.shape[1] * per:
            raise ValueError(f"{type(self).__name__}(): x must have {self.weight.shape[1]} "
                             f"channels (in_channels), got {x.shape[1] // per}; pass maps of that "
                             f"many channels, or build the layer with in_channels="
                             f"{x.shape[1] // per}")
        # [B, C_out * 4, H, W]: channel o * 4 + r is filter o's copy r
        out = F.conv2d(x, self.stack(self.weight), padding=k // 2)
        return out.unflatten(1, (-1, N_ROTATIONS)) + self.bias[:, None, None, None]


class LiftingConv(_C4Conv):
    """Image ``[B, C_in, H, W]`` -> C4 feature map ``[B, C_out, 4, H, W]``: one convolution with
    each filter in its four orientations ("lifting" the image onto the group)."""

    @checked
    def __init__(self, in_channels: Int("the image's channels", ge=1, le=MAX_WIDTH),
                 out_channels: Int("filters, each in four orientations", ge=1, le=MAX_WIDTH),
                 kernel_size: Kernel):
        super().__init__((out_channels, in_channels, kernel_size, kernel_size),
                         in_channels * kernel_size**2, lifting_filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_shape(x, "LiftingConv(): x", "[batch, channels, height, width]", ndim=4)
        check_model_dtype(x, "LiftingConv(): x", self.weight.dtype)
        return self.convolve(x)


class GroupConv(_C4Conv):
    """C4 feature map ``[B, C_in, 4, H, W]`` -> ``[B, C_out, 4, H, W]``: each filter sees all four
    rotation channels of its input, and is applied in four transformed copies
    (``group_filters``)."""

    @checked
    def __init__(self, in_channels: Int("the input's channels (each with 4 rotations)", ge=1,
                                        le=MAX_WIDTH),
                 out_channels: Int("filters, each in four transformed copies", ge=1,
                                   le=MAX_WIDTH),
                 kernel_size: Kernel):
        super().__init__((out_channels, in_channels, N_ROTATIONS, kernel_size, kernel_size),
                         in_channels * N_ROTATIONS * kernel_size**2, group_filters)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        check_shape(x, "GroupConv(): x", "[batch, channels, 4, height, width]", ndim=5)
        if x.shape[2] != N_ROTATIONS:
            raise ValueError(f"GroupConv(): x must have {N_ROTATIONS} rotation channels (dim 2), "
                             f"got shape {tuple(x.shape)}; lift an image with LiftingConv first")
        check_model_dtype(x, "GroupConv(): x", self.weight.dtype)
        return self.convolve(x.flatten(1, 2))

"""Capsule layers: PrimaryCapsules (convolutional capsules) and RoutingCapsules (W_ij + routing)."""

import torch
from torch import nn

from .functional import squash
from .routing import RoutingResult, Step, dynamic_routing, routing_step
from .validate import check_shape


class PrimaryCapsules(nn.Module):
    """A convolution whose channels are grouped into capsules (Section 4, "PrimaryCapsules").

    In the paper: 32 maps of 8D capsules, 9x9 kernels, stride 2, on 256 input channels; a
    20x20 input grid gives 6x6x32 = 1152 capsules. Capsule index i runs over (map, row, col).
    """

    def __init__(self, in_channels=256, n_maps=32, dim=8, kernel_size=9, stride=2):
        super().__init__()
        self.n_maps, self.dim = n_maps, dim
        self.conv = nn.Conv2d(in_channels, n_maps * dim, kernel_size, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, H, W]`` feature maps -> ``u``: ``[B, n_maps * H' * W', dim]``."""
        out = self.conv(x)  # [B, n_maps * dim, H', W']
        B, _, H, W = out.shape
        # [B, maps * dim, H', W'] -> [B, maps, H', W', dim]
        out = out.view(B, self.n_maps, self.dim, H, W).permute(0, 1, 3, 4, 2)
        # u_i = squash(s_i): each capsule's 8 channels form one vector
        return squash(out.reshape(B, self.n_maps * H * W, self.dim))


class RoutingCapsules(nn.Module):
    """Fully connected capsules with one transformation matrix W_ij per (child i, parent j).

    u_hat[j|i] = W_ij u_i is child i's prediction of parent j's pose; dynamic routing then picks
    the couplings. The paper's DigitCaps: 1152 children of 8D, 10 parents of 16D, 3 iterations.
    ``grad_through_routing`` and ``step`` (one routing iteration, the paper's by default) go to
    ``dynamic_routing`` unchanged.
    """

    def __init__(self, n_in, d_in, n_out, d_out, iterations=3, grad_through_routing=True,
                 step: Step = routing_step):
        super().__init__()
        self.n_in, self.d_in = n_in, d_in
        self.iterations, self.grad_through_routing = iterations, grad_through_routing
        self.step = step
        # W: [n_in, n_out, d_out, d_in]. The paper gives no initialisation; a small normal keeps
        # the first squashed outputs well inside (0, 1).
        self.W = nn.Parameter(0.05 * torch.randn(n_in, n_out, d_out, d_in))

    def votes(self, u: torch.Tensor) -> torch.Tensor:
        """``u``: ``[B, n_in, d_in]`` -> ``u_hat``: ``[B, n_in, n_out, d_out]``."""
        check_shape(u, "u", f"[batch, {self.n_in}, {self.d_in}]", 3, (self.n_in, self.d_in))
        # u_hat_j|i = W_ij u_i. Computed parent-major ([B, n_out, n_in, d_out] in memory) and
        # returned as a [B, n_in, n_out, d_out] view: the routing sums over i then read
        # contiguous memory, which makes a training step measurably faster on a CPU
        return torch.einsum("ijdk,bik->bjid", self.W, u).contiguous().transpose(1, 2)

    def route(self, u_hat: torch.Tensor) -> RoutingResult:
        """Dynamic routing of the predictions ``u_hat`` ``[B, n_in, n_out, d_out]`` with this
        layer's options."""
        return dynamic_routing(u_hat, self.iterations, self.grad_through_routing, self.step)

    def forward(self, u: torch.Tensor) -> RoutingResult:
        return self.route(self.votes(u))

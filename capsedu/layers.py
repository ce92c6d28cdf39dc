"""Capsule layers: PrimaryCapsules (convolutional capsules) and RoutingCapsules (W_ij + routing)."""

import torch
from torch import nn

from .checks import check_model_dtype, check_shape
from .course_settings import MAX_IMAGE, MAX_WIDTH
from .functional import squash
from .memory import check_memory
from .routing import MAX_ITERATIONS, RoutingResult, RoutingStep, Step, dynamic_routing, routing_step
from .validate import Flag, Int, Tensor, checked

# Bounds on a layer's sizes, as capsnet.CapsNetConfig's (every config it accepts builds): far
# past the paper's (256 channels, 32 maps, 16D, 9x9 kernels), so that a typo is refused before it
# allocates; the weights' memory is estimated up front too, since sizes in range can still
# multiply past it.
# children of a RoutingCapsules layer: a 1024x1024 grid of one map (the paper has 1,152); W then
# holds n_in x n_out x d_out x d_in numbers, checked against the memory
MAX_CHILDREN = 1_000_000

# The most votes RoutingCapsules routes at once, in bytes. The paper's routing is per example,
# so a batch can be routed a piece at a time with the same numbers; glibc's malloc keeps and
# reuses blocks up to 32 MiB but maps every larger one afresh, which the kernel then fills page
# by page on first touch. The paper's votes for a batch of 128 take 94 MB (5 gradients of that
# size follow in the backward pass): in pieces of 43 examples, a training step's page faults
# drop several-fold and the step runs faster on a CPU (benchmarks/routing.py times it).
PIECE_BYTES = 32 * 2**20


def _joined(results: list[RoutingResult]) -> RoutingResult:
    """The routings of consecutive pieces of one batch as the routing of the whole batch: each
    tensor, and each iteration's couplings and outputs, concatenated along the batch."""
    def cat(tensors):
        return torch.cat(list(tensors))  # along dim 0, the batch

    history = [RoutingStep._made(cat(step.c for step in steps), cat(step.v for step in steps))
               for steps in zip(*(r.history for r in results), strict=True)]
    return RoutingResult._made(cat(r.v for r in results), cat(r.c for r in results),
                               cat(r.b for r in results), history)


class PrimaryCapsules(nn.Module):
    """A convolution whose channels are grouped into capsules (Section 4, "PrimaryCapsules").

    In the paper: 32 maps of 8D capsules, 9x9 kernels, stride 2, on 256 input channels; a
    20x20 input grid gives 6x6x32 = 1152 capsules. Capsule index i runs over (map, row, col).
    """

    @checked
    def __init__(self, in_channels: Int("input channels", ge=1, le=MAX_WIDTH) = 256,
                 n_maps: Int("capsule maps", ge=1, le=MAX_WIDTH) = 32,
                 dim: Int("a capsule's dimensions", ge=1, le=MAX_WIDTH) = 8,
                 kernel_size: Int("the kernel's side", ge=1, le=MAX_IMAGE) = 9,
                 stride: Int("the stride", ge=1, le=MAX_IMAGE) = 2):
        # the convolution's weights and biases, float32, made in place
        check_memory(4 * n_maps * dim * (in_channels * kernel_size**2 + 1),
                     f"PrimaryCapsules(): its weights ({n_maps * dim:,} channels of "
                     f"{in_channels:,} x {kernel_size}x{kernel_size})", "use fewer channels or "
                     "maps, or a smaller kernel")
        super().__init__()
        self.n_maps, self.dim = n_maps, dim
        self.conv = nn.Conv2d(in_channels, n_maps * dim, kernel_size, stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, H, W]`` feature maps -> ``u``: ``[B, n_maps * H' * W', dim]``."""
        channels = self.conv.in_channels
        check_shape(x, "PrimaryCapsules(): x", f"[batch, {channels}, height, width]", 4)
        if x.shape[1] != channels:
            raise ValueError(f"PrimaryCapsules(): x must have {channels} channels (in_channels), "
                             f"got shape {tuple(x.shape)}; pass Conv1's feature maps")
        check_model_dtype(x, "PrimaryCapsules(): x", self.conv.weight.dtype)
        k = self.conv.kernel_size[0]
        if min(x.shape[-2:]) < k:
            raise ValueError(f"PrimaryCapsules(): x must be at least {k} x {k} (the kernel_size) "
                             f"to hold one capsule, got shape {tuple(x.shape)}; pass larger maps "
                             "or build the layer with a smaller kernel_size")
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

    @checked
    def __init__(self, n_in: Int("input (child) capsules", ge=1, le=MAX_CHILDREN),
                 d_in: Int("their dimensions", ge=1, le=MAX_WIDTH),
                 n_out: Int("output (parent) capsules", ge=1, le=MAX_WIDTH),
                 d_out: Int("their dimensions", ge=1, le=MAX_WIDTH),
                 iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3,
                 grad_through_routing: Flag("whether gradients flow through the routing "
                                            "iterations") = True,
                 step: Step = routing_step):
        # W = 0.05 * randn: two float32 tensors of n_in x n_out x d_out x d_in while it is made
        check_memory(8 * n_in * n_out * d_out * d_in,
                     f"RoutingCapsules(): its W ({n_in:,} x {n_out:,} matrices of {d_out} x "
                     f"{d_in})", "use fewer or smaller capsules")
        super().__init__()
        self.n_in, self.d_in = n_in, d_in
        self.iterations, self.grad_through_routing = iterations, grad_through_routing
        self.step = step
        # W: [n_in, n_out, d_out, d_in]. The paper gives no initialisation; a small normal keeps
        # the first squashed outputs well inside (0, 1).
        self.W = nn.Parameter(0.05 * torch.randn(n_in, n_out, d_out, d_in))

    @checked
    def votes(self, u: Tensor("child capsules [B, n_in, d_in]", ndim=3, floating=True)
              ) -> torch.Tensor:
        """``u``: ``[B, n_in, d_in]`` -> ``u_hat``: ``[B, n_in, n_out, d_out]``."""
        check_shape(u, "RoutingCapsules.votes(): u", f"[batch, {self.n_in}, {self.d_in}]", 3,
                    (self.n_in, self.d_in))
        check_model_dtype(u, "RoutingCapsules.votes(): u", self.W.dtype)
        # u_hat_j|i = W_ij u_i. Computed parent-major ([B, n_out, n_in, d_out] in memory) and
        # returned as a [B, n_in, n_out, d_out] view: the routing sums over i then read
        # contiguous memory, which makes a training step measurably faster on a CPU
        return torch.einsum("ijdk,bik->bjid", self.W, u).contiguous().transpose(1, 2)

    @checked
    def route(self, u_hat: Tensor("votes [B, n_in, n_out, d_out]", ndim=4, floating=True)
              ) -> RoutingResult:
        """Dynamic routing of the predictions ``u_hat`` ``[B, n_in, n_out, d_out]`` with this
        layer's options, in pieces of the batch of at most ``PIECE_BYTES`` of votes each."""
        n_out, d_out = self.W.shape[1:3]
        check_shape(u_hat, "RoutingCapsules.route(): u_hat", f"[batch, {self.n_in}, {n_out}, "
                    f"{d_out}] (votes)", 4, (self.n_in, n_out, d_out))
        # the paper's step routes every example on its own; a step that mixes the examples
        # (buggy.step_logits_shared_over_batch, notebook 09) must see the whole batch
        per_example = u_hat.shape[1:].numel() * u_hat.element_size()
        size = PIECE_BYTES // max(per_example, 1) if self.step is routing_step else len(u_hat)
        return _joined([dynamic_routing(piece, self.iterations, self.grad_through_routing,
                                        self.step) for piece in u_hat.split(max(size, 1))])

    def forward(self, u: torch.Tensor) -> RoutingResult:
        u_hat = self.votes(u)
        if not len(u_hat):
            raise ValueError(f"RoutingCapsules(): u must hold at least one example, got shape "
                             f"{tuple(u.shape)}; pass a batch of one or more")
        return self.route(u_hat)

"""What a CapsNet costs: output shape, parameters and multiply-adds of each layer, and the wall
time of routing within a training step (notebook 05).

Everything is read from a model instance (its layers' weights and the shapes a forward pass
produces), not from the paper's numbers, so the table stays right for any ``CapsNetConfig``.
One multiply-add (MAC) is one ``a * b + c``; FLOPs are often quoted as 2 x MACs.
"""

import statistics
import time
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .capsnet import CapsNet, CapsNetConfig


class LayerCost(NamedTuple):
    """One row of the anatomy table, per image."""

    name: str
    output_shape: tuple[int, ...]  # without the batch dimension
    parameters: int
    macs: int  # multiply-adds for one image, forward pass


def _n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _conv_macs(conv: nn.Conv2d, out: torch.Tensor) -> int:
    """Every output value is a dot product over (in_channels / groups) x kh x kw inputs."""
    kh, kw = conv.kernel_size
    return out[0].numel() * (conv.in_channels // conv.groups) * kh * kw


def anatomy(model: CapsNet) -> list[LayerCost]:
    """Conv1, PrimaryCaps, the W_ij predictions, routing and the decoder of ``model``.

    The output shapes come from one forward pass on a blank image; the parameters from the
    layers' tensors; the MACs from the layers' sizes and those shapes.
    """
    cfg = model.config
    outputs = {}
    hooks = [layer.register_forward_hook(lambda m, i, o, name=name: outputs.__setitem__(name, o))
             for name, layer in (("conv1", model.conv1), ("primary", model.primary.conv))]
    x = torch.zeros(1, cfg.in_channels, cfg.image_size, cfg.image_size)
    try:
        with torch.no_grad():
            out = model.eval()(x)
    finally:
        for hook in hooks:
            hook.remove()
    digits = model.digits
    n_in, n_out, d_out, d_in = digits.W.shape  # W: [n_in, n_out, d_out, d_in]
    linears = [m for m in model.decoder if isinstance(m, nn.Linear)]
    return [
        LayerCost("Conv1 + ReLU", tuple(outputs["conv1"].shape[1:]), _n_params(model.conv1),
                  _conv_macs(model.conv1, outputs["conv1"])),
        # the primary conv's channels regrouped into n_primary capsules of primary_dim
        LayerCost("PrimaryCaps + squash", (n_in, d_in), _n_params(model.primary),
                  _conv_macs(model.primary.conv, outputs["primary"])),
        # u_hat_j|i = W_ij u_i: one [d_out x d_in] matrix-vector product per (i, j)
        LayerCost("DigitCaps: u_hat = W u", (n_in, n_out, d_out), digits.W.numel(),
                  n_in * n_out * d_out * d_in),
        # per iteration: s_j = sum_i c_ij u_hat_j|i and b_ij += u_hat_j|i . v_j, both
        # n_in * n_out * d_out MACs (this implementation updates b in every iteration)
        LayerCost(f"DigitCaps: routing x{digits.iterations}", tuple(out.v.shape[1:]), 0,
                  digits.iterations * 2 * n_in * n_out * d_out),
        LayerCost("Decoder (masked v -> image)", tuple(out.reconstruction.shape[1:]),
                  _n_params(model.decoder), sum(m.in_features * m.out_features for m in linears)),
    ]


@torch.no_grad()
def format_table(configs: dict[str, CapsNetConfig]) -> str:
    """A text table of ``anatomy`` for each named config: one line per (layer, config), totals."""
    tables = {name: anatomy(CapsNet(cfg)) for name, cfg in configs.items()}
    head = f"{'layer':<28} {'config':<8} {'output':>12} {'parameters':>11} {'MACs':>13}"
    lines = [head, "-" * len(head)]
    layers = [row.name for row in next(iter(tables.values()))]
    for k, layer in enumerate([*layers, "total"]):
        for n, (name, rows) in enumerate(tables.items()):
            if layer == "total":
                shape, params, macs = "", sum(r.parameters for r in rows), sum(r.macs for r in rows)
            else:
                row = rows[k]
                shape, params, macs = "x".join(map(str, row.output_shape)), row.parameters, row.macs
            lines.append(f"{layer if n == 0 else '':<28} {name:<8} {shape:>12} {params:>11,} "
                         f"{macs:>13,}")
        lines.append("-" * len(head))
    return "\n".join(lines[:-1])


class StepTimes(NamedTuple):
    """Seconds for one training batch: the whole model, and routing alone on the same batch."""

    forward: float  # the model's forward pass and its loss
    backward: float  # the backward pass of that loss
    routing_forward: float  # Procedure 1 on the batch's predictions u_hat
    routing_backward: float  # the gradient of the routing's output v back to u_hat


def time_training_step(model: CapsNet, images: torch.Tensor, labels: torch.Tensor,
                       repeats: int = 5) -> StepTimes:
    """Time a training step of ``model`` on ``images`` ``[B, C, H, W]`` and ``labels`` ``[B]``
    (forward with the loss, then backward; no weight update), and the routing inside it: the
    model's own ``dynamic_routing`` call, run alone on the ``u_hat`` of the same batch, forward
    and backward. Each time is the median of ``repeats`` runs, after one warm-up run."""
    device = images.device
    model.train()

    def now():
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        return time.perf_counter()

    def whole_step():
        start = now()
        loss, _ = model.training_loss(images, labels)
        middle = now()
        loss.backward()
        end = now()
        model.zero_grad(set_to_none=True)
        return middle - start, end - middle

    digits = model.digits
    with torch.no_grad():  # the routing's input, exactly as the model computes it
        u_hat = digits.predictions(model.primary(F.relu(model.conv1(images))))
    upstream = torch.randn(u_hat.shape[0], u_hat.shape[2], u_hat.shape[3], device=device)

    def routing_alone():
        x = u_hat.detach().requires_grad_(True)
        start = now()
        v = digits.route(x).v
        middle = now()
        v.backward(upstream)
        return middle - start, now() - middle

    runs = []
    for _ in range(repeats + 1):  # the first run warms up (memory, kernels) and is dropped
        runs.append((*whole_step(), *routing_alone()))
    return StepTimes(*(statistics.median(column) for column in zip(*runs[1:], strict=True)))

"""What a CapsNet's layers cost: output shape, parameters and multiply-adds of each layer
(notebook 05). What routing costs in time and memory is ``routing_costs``.

Everything is read from a model instance (its layers' weights and the shapes a forward pass
produces), not from the paper's numbers, so the table stays right for any ``CapsNetConfig``.
One multiply-add (MAC) is one ``a * b + c``; FLOPs are often quoted as 2 x MACs.
"""

from dataclasses import dataclass

import torch
from torch import nn

from . import course_settings
from .capsnet import CapsNet
from .validate import CheckedRecord, Int, checked

ROUTING_ROW = "DigitCaps: routing"  # how the name of anatomy's routing row begins


@dataclass(frozen=True)
class LayerCost(CheckedRecord):
    """One row of the anatomy table, per image."""

    name: course_settings.Name
    # without the batch dimension
    output_shape: tuple[Int("a size of the layer's output", ge=1), ...]
    parameters: Int("the layer's parameters", ge=0)
    macs: Int("multiply-adds for one image, forward pass", ge=0)


def _n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _conv_macs(conv: nn.Conv2d, out: torch.Tensor) -> int:
    """Every output value is a dot product over (in_channels / groups) x kh x kw inputs."""
    kh, kw = conv.kernel_size
    return out[0].numel() * (conv.in_channels // conv.groups) * kh * kw


@checked
def anatomy(model: CapsNet) -> list[LayerCost]:
    """Conv1, PrimaryCaps, the W_ij predictions, routing and the decoder of ``model``.

    The output shapes come from one forward pass on a blank image; the parameters from the
    layers' tensors; the MACs from the layers' sizes and those shapes.
    """
    cfg = model.config
    outputs = {}
    hooks = [layer.register_forward_hook(lambda m, i, o, name=name: outputs.__setitem__(name, o))
             for name, layer in (("conv1", model.conv1), ("primary", model.primary.conv))]
    x = torch.zeros(1, cfg.in_channels, cfg.image_size, cfg.image_size,
                    device=course_settings.model_device(model))
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
        LayerCost(f"{ROUTING_ROW} x{digits.iterations}", tuple(out.v.shape[1:]), 0,
                  digits.iterations * 2 * n_in * n_out * d_out),
        LayerCost("Decoder (masked v -> image)", tuple(out.reconstruction.shape[1:]),
                  _n_params(model.decoder), sum(m.in_features * m.out_features for m in linears)),
    ]

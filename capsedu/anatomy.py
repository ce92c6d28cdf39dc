"""The anatomy of a CapsNet: output shape, parameters and multiply-adds of each layer (notebook 05).

Everything is read from a model instance (its layers' weights and the shapes a forward pass
produces), not from the paper's numbers, so the table stays right for any ``CapsNetConfig``.
One multiply-add (MAC) is one ``a * b + c``; FLOPs are often quoted as 2 x MACs.
"""

from collections.abc import Callable
from typing import NamedTuple

import torch
from matplotlib.patches import FancyBboxPatch
from torch import nn

from .functional import margin_loss
from .models import CapsNet, CapsNetConfig


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


def draw_architecture(ax, model: CapsNet) -> None:
    """A block diagram of ``model`` (the paper's Fig. 1 and 2) on a matplotlib ``ax``."""
    cfg = model.config
    rows = anatomy(model)
    blocks = [
        ("input", f"{cfg.in_channels}x{cfg.image_size}x{cfg.image_size}\nimage"),
        ("Conv1", f"{cfg.conv_channels} @ {cfg.conv_kernel}x{cfg.conv_kernel}, ReLU\n"
                  + "x".join(map(str, rows[0].output_shape))),
        ("PrimaryCaps", f"{cfg.primary_maps} maps x {cfg.primary_dim}D\n"
                        f"{cfg.primary_kernel}x{cfg.primary_kernel}, stride {cfg.primary_stride}\n"
                        f"{cfg.n_primary} capsules"),
        ("DigitCaps", f"W_ij: {cfg.n_primary}x{cfg.n_classes}\nmatrices "
                      f"{cfg.digit_dim}x{cfg.primary_dim}\n{cfg.iterations} routing iter."),
        ("lengths ||v_j||", f"{cfg.n_classes} class\nprobabilities\n-> margin loss"),
        ("decoder", "mask all but one v_j\nFC " + "-".join(
            map(str, [*cfg.decoder_hidden, cfg.in_channels * cfg.image_size**2]))
         + "\n-> reconstruction"),
    ]
    positions = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1.6), (4, 0.3)]
    for (title, text), (x, y) in zip(blocks, positions, strict=True):
        ax.add_patch(FancyBboxPatch((x + 0.06, y - 0.4), 0.78, 0.8, boxstyle="round,pad=0.02",
                                    fc="#dde8f5", ec="#3b6ea5"))
        ax.text(x + 0.45, y + 0.28, title, ha="center", fontweight="bold", fontsize=9)
        ax.text(x + 0.45, y - 0.05, text, ha="center", va="center", fontsize=7.5)
    arrows = [((0.84, 1), (1.06, 1)), ((1.84, 1), (2.06, 1)), ((2.84, 1), (3.06, 1)),
              ((3.84, 1.1), (4.06, 1.5)), ((3.84, 0.9), (4.06, 0.4))]
    for start, end in arrows:
        ax.annotate("", end, start, arrowprops=dict(arrowstyle="->", color="#3b6ea5"))
    ax.set(xlim=(0, 5), ylim=(-0.2, 2.1))
    ax.axis("off")


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


def margin_loss_curves(lengths: torch.Tensor, **margins) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 4's loss L_k of one class as a function of its capsule length ``||v_k||``.

    Returns ``(present, absent)``: L_k when k is the true class (T_k = 1) and when it is not
    (T_k = 0), each the shape of ``lengths`` (1D). Computed with ``capsedu.margin_loss`` on
    one-class and two-class examples, so the plot shows the function the model trains with.
    ``margins``: ``m_plus``, ``m_minus``, ``lam`` as in ``margin_loss``.
    """
    target = torch.zeros(1, dtype=torch.long)  # class 0 is the true class
    present = [margin_loss(length.view(1, 1), target, **margins) for length in lengths]
    # class 1 is absent; class 0 has length 1, above m_plus, so it adds no loss
    absent = [margin_loss(torch.stack([torch.ones(()), length]).view(1, 2), target, **margins)
              for length in lengths]
    return torch.stack(present), torch.stack(absent)


def digitcaps_parameters(cfg: CapsNetConfig) -> int:
    """Reference for notebook 05's exercise: the number of W_ij weights, read off a model."""
    return CapsNet(cfg).digits.W.numel()


EXERCISE_CONFIGS = {
    "PAPER": CapsNetConfig(),
    "SMALL": CapsNetConfig(conv_channels=64, primary_maps=8),
    "16x16 images, 4 maps, 12D digits": CapsNetConfig(image_size=16, conv_kernel=5,
                                                      primary_maps=4, digit_dim=12),
    "3 classes, 4D primary capsules, stride 1": CapsNetConfig(
        n_classes=3, primary_dim=4, primary_stride=1, primary_maps=2),
}


def check_digitcaps_parameters(learner: Callable[[CapsNetConfig], int]) -> bool | None:
    """Check a learner's ``digitcaps_parameters(cfg) -> int`` on the configs above.

    Prints PASS, FAIL with the first config where it differs, or "not implemented yet"; never
    raises, so the notebook runs on with the exercise unsolved.
    """
    name = "digitcaps_parameters"
    for label, cfg in EXERCISE_CONFIGS.items():
        try:
            got = learner(cfg)
        except NotImplementedError:
            print(f"{name}: not implemented yet - replace the `raise NotImplementedError` line.")
            return None
        want = digitcaps_parameters(cfg)
        if got != want:
            print(f"{name}: FAIL - for {label} ({cfg.n_primary} primary capsules) expected "
                  f"{want:,}, got {got!r}.")
            return False
    print(f"{name}: PASS ({len(EXERCISE_CONFIGS)} configs)")
    return True

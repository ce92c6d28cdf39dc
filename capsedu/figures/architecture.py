"""What a network is built of and what it costs: a CapsNet as a block diagram (Fig. 1 and 2,
05), Procedure 1 as a flow of tensors with their shapes (04), and the time of a DigitCaps
training step against its size and routing iterations (09).
"""

from typing import Annotated

from matplotlib.patches import FancyBboxPatch
from pydantic import InstanceOf

from ..capsnet import CapsNet
from ..costs import anatomy
from ..course_settings import MAX_BATCH
from ..routing_costs import RoutingCost
from ..validate import Float, Int, Some, checked
from .canvas import FlatAxes

# one size of the votes u_hat [batch, children, parents, dims]: a label here, no work
VoteSize = Int("a size of the votes u_hat", ge=1, le=MAX_BATCH)


@checked
def draw_architecture(ax: FlatAxes, model: CapsNet) -> None:
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


@checked
def draw_routing_flow(ax: FlatAxes, u_hat_shape: tuple[VoteSize, VoteSize, VoteSize, VoteSize]
                      ) -> None:
    """Procedure 1 as a flow of tensors with their shapes, for votes ``u_hat`` of
    ``u_hat_shape`` ``[B, children, parents, dims]``: the logits b give the couplings c (softmax
    over the parents), c weighs the votes into s (a sum over the children), squash gives v, the
    agreement of each vote with v goes back into b."""
    batch, n_in, n_out, dims = u_hat_shape
    pair, parent = f"[{batch}, {n_in}, {n_out}]", f"[{batch}, {n_out}, {dims}]"
    boxes = [  # (x, y, text): one tensor each
        (0.06, 0.35, f"$b_{{ij}}$ logits\n{pair}\nstart at 0"),
        (0.27, 0.35, f"$c_{{ij}}$ couplings\n{pair}\nsoftmax over parents $j$"),
        (0.50, 0.35, f"$s_j = \\sum_i c_{{ij}}\\,\\hat u_{{j|i}}$\n{parent}\n"
                     "sum over children $i$"),
        (0.72, 0.35, f"$v_j$ = squash($s_j$)\n{parent}"),
        (0.93, 0.35, f"$\\hat u_{{j|i}} \\cdot v_j$ agreement\n{pair}"),
        (0.50, 0.90, f"$\\hat u_{{j|i}}$ votes\n[{batch}, {n_in}, {n_out}, {dims}]"),
    ]
    for x, y, text in boxes:
        ax.text(x, y, text, ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round", "fc": "white", "ec": "0.4"})
    arrow = {"arrowstyle": "->", "color": "0.3"}
    for (x0, y0), (x1, y1) in (((0.13, 0.35), (0.19, 0.35)), ((0.36, 0.35), (0.40, 0.35)),
                               ((0.60, 0.35), (0.66, 0.35)), ((0.78, 0.35), (0.85, 0.35)),
                               ((0.50, 0.79), (0.50, 0.50)), ((0.56, 0.82), (0.90, 0.47))):
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops=arrow)
    ax.annotate("", xy=(0.06, 0.17), xytext=(0.93, 0.22),
                arrowprops={**arrow, "connectionstyle": "arc3,rad=-0.15"})
    ax.text(0.50, -0.16, "b += agreement: the next iteration", ha="center", fontsize=9)
    ax.set(xlim=(-0.04, 1.04), ylim=(-0.2, 1.05))
    ax.axis("off")


@checked
def draw_routing_cost(ax: FlatAxes, rows: Annotated[list[InstanceOf[RoutingCost]], Some],
                      references: dict[str, Float("seconds a step takes", ge=0)] | None = None
                      ) -> None:
    """Milliseconds of a DigitCaps training step (forward + backward) against n_in x n_out x
    d_out, the numbers in one example's u_hat: one line per iteration count of ``rows``
    (``capsedu.routing_costs.routing_sweep``), and each of ``references`` (label -> seconds, e.g. a
    whole CNN's training step on the same batch) as a horizontal line (notebook 09)."""
    for r in sorted({row.iterations for row in rows}):
        points = sorted((row.size, 1000 * (row.forward + row.backward))
                        for row in rows if row.iterations == r)
        label = "u_hat = W u only" if r == 0 else f"{r} routing iteration{'s' * (r > 1)}"
        ax.plot(*zip(*points, strict=True), marker="o", label=label)
    for k, (label, seconds) in enumerate((references or {}).items()):
        ax.axhline(1000 * seconds, color="0.4", ls=("--", ":", "-.")[k % 3], label=label)
    ax.set(xlabel="n_in × n_out × d_out (numbers in one example's u_hat)",
           ylabel="ms per batch, forward + backward", ylim=(0, None))
    ax.legend(fontsize="small")

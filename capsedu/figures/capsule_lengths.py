"""A capsule's length, and what it is made and judged by: squash's output length and slope
against its input length (Eq. 1, 03), the margin loss of one class against the capsule's length
(Eq. 4, 05), and the face capsule's length for each kind of image against the threshold that
makes it a face (04, 07).
"""

from typing import Annotated

import torch
from matplotlib.figure import FigureBase

from ..checks import check_same
from ..functional import margin_loss_curves
from ..validate import Flag, Float, Numbers, Some, Tensor, checked
from .canvas import FlatAxes


@checked
def draw_squash_curves(fig: FigureBase,
                       r: Tensor("lengths ||s|| [n]", ndim=1, floating=True, finite=True),
                       slope_autograd: Tensor("squash's slope by autograd [n]", ndim=1,
                                              floating=True, finite=True),
                       slope_formula: Tensor("squash's slope by formula [n]", ndim=1,
                                             floating=True, finite=True)) -> None:
    """Left: the output length against ``||s|| = r`` ``[n]`` (increasing) for squash,
    r^2 / (1 + r^2), beside sigmoid(r) and tanh(r); right: squash's slope ``[n]`` by autograd and
    by formula."""
    check_same("draw_squash_curves", "length", "pass one slope of each per length",
               r=len(r), slope_autograd=len(slope_autograd), slope_formula=len(slope_formula))
    if len(r) > 1 and not bool((r[1:] > r[:-1]).all()):  # a line through them would zigzag
        k = int((r[1:] <= r[:-1]).nonzero()[0]) + 1
        raise ValueError(f"draw_squash_curves(): r must be lengths in increasing order (each "
                         f"curve is drawn as a line through them), got r[{k}] = {float(r[k]):.4g} "
                         f"after {float(r[k - 1]):.4g}; pass sorted lengths, e.g. "
                         "torch.linspace(0, 5, 200)")
    ax_len, ax_slope = fig.subplots(1, 2)
    ax_len.plot(r, r**2 / (1 + r**2), label="squash: r² / (1 + r²)", lw=2.5)
    ax_len.plot(r, torch.sigmoid(r), "--", label="sigmoid(r)")
    ax_len.plot(r, torch.tanh(r), ":", label="tanh(r)")
    ax_len.axhline(1, color="0.6", lw=0.8)
    ax_len.set(xlabel="||s|| = r", ylabel="output length", title="length out vs length in")
    ax_len.legend()
    ax_slope.plot(r, slope_autograd, lw=2.5, label="autograd through capsedu.squash")
    ax_slope.plot(r, slope_formula, "--", color="k", label="2r / (1 + r²)²")
    ax_slope.set(xlabel="||s||", ylabel="d||v|| / d||s||", title="the slope")
    ax_slope.legend()


@checked
def draw_margin_loss(ax: FlatAxes) -> None:
    """Eq. 4's loss L_k of one class against its capsule length, present and absent
    (``margin_loss_curves``), with the margins m+ = 0.9 and m- = 0.1 marked."""
    lengths = torch.linspace(0, 1, 101)
    present, absent = margin_loss_curves(lengths)
    ax.plot(lengths, present, label="class present ($T_k = 1$)")
    ax.plot(lengths, absent, label="class absent ($T_k = 0$)")
    for m, name in ((0.9, "$m^+$"), (0.1, "$m^-$")):
        ax.axvline(m, color="gray", ls=":")
        ax.text(m, 0.88, name, ha="center")
    ax.set(xlabel="capsule length $||v_k||$", ylabel="$L_k$", ylim=(-0.03, 0.95),
           title="margin loss of one class (Eq. 4)")
    ax.legend(loc="center")


@checked
def draw_face_lengths(ax: FlatAxes, lengths: Annotated[dict[str, Numbers(
                          "face-capsule lengths [n]", ndim=1, ge=0, le=1, at_least=1,
                          fix="pass the lengths of face capsules, each in [0, 1]")], Some],
                      threshold: Float("the face capsule's length that counts as a face", ge=0,
                                       le=1),
                      legend_below: Flag("True to put the key below the axes") = False) -> None:
    """A box of face-capsule lengths per kind (``lengths``: kind -> ``[n]``) and the
    ``threshold`` above which a length counts as a face, dashed; its key in the lower left, or
    with ``legend_below`` below the axes (a figure with ``layout="constrained"``), where it hides
    no box."""
    ax.boxplot(list(lengths.values()), showfliers=True)
    ax.set_xticks(range(1, len(lengths) + 1), list(lengths))
    ax.axhline(threshold, color="gray", ls="--", label=f"threshold {threshold:.3g}")
    ax.set(ylabel="face capsule length after routing", ylim=(0, 1))
    if legend_below:
        ax.figure.legend(loc="outside lower center")
    else:
        ax.legend(loc="lower left")

"""Models compared by their scores: face rates per kind over seeds (01, 07) and on edited faces
(01), accuracies as bars, measured beside quoted (05, 08) and by group (08), the mistakes of a
confusion matrix (05), accuracy along each viewpoint sweep (08), and per class, a CapsNet's
capsule lengths beside a CNN's probabilities (the figure of 08's widgets,
``capsnet_vs_cnn_figure``, its bars updated by ``update_class_bars``, as are those of 09's and
10's widgets).

Each model's colour is ``colours.model_colour``.
"""

from typing import Annotated

import numpy as np
import torch
from matplotlib.container import BarContainer
from matplotlib.figure import Figure, FigureBase
from pydantic import InstanceOf

from ..checks import check_one_each, check_same
from ..course_settings import MAX_WIDTH
from ..data import faces
from ..data.transformed_mnist import AFFNIST_RANGES, SWEEPS, AffineRanges
from ..parts.scoring import Probe, ProbeRates, SeedRuns
from ..statistics import over_seeds
from ..units import InPercent
from ..validate import Choice, Float, Has, Int, Numbers, Record, Some, Spec, checked
from .canvas import FlatAxes
from .colours import Colour, model_colour, model_kind

Percent = Float("an accuracy in %", ge=0, le=100)


# accuracies in % by name, at least one
Accuracies = Annotated[dict[str, Percent], Some, InPercent]
Names = list[str] | tuple[str, ...]  # one label per group or kind
Colours = Annotated[Colour | list[Colour] | tuple[Colour, ...],
                    Spec("one matplotlib colour, or a list of them, one per bar", "union")]


@checked
def within_rates(means: Numbers("mean rates [n]", ndim=1, ge=0, le=1),
                 half_widths: Numbers("their intervals' half-widths [n]", ndim=1, ge=0)
                 ) -> np.ndarray:
    """Error bars ``[2, n]`` (below, above) of intervals mean ± half-width, cut where they would
    pass a rate of 0 or 1."""
    check_same("within_rates", "length", "pass one half-width per mean", means=len(means),
               half_widths=len(half_widths))
    means, half = means.astype(float), half_widths.astype(float)
    return np.stack([np.minimum(half, means), np.minimum(half, 1 - means)])


@checked
def draw_face_rates(ax: FlatAxes, runs: Annotated[list[InstanceOf[SeedRuns]], Some],
                    kinds: Annotated[Names, Some] = faces.KINDS):
    """Grouped bars: one group per kind, one bar per model (``runs``: ``parts.scoring.SeedRuns``;
    mean over seeds, its 95 % t interval as error bar, cut at the rates 0 and 1 that a face rate
    cannot pass; one black dot per seed)."""
    for run in runs:
        missing = [kind for kind in kinds if kind not in run.rates]
        if missing:
            raise ValueError(f"draw_face_rates(): kinds must be kinds each run was measured on, "
                             f"got {missing} that {run.name!r} was not (it holds "
                             f"{list(run.rates)}); pass kinds of its rates")
    width = 0.8 / len(runs)
    x = np.arange(len(kinds))
    for k, run in enumerate(runs):
        at = x + (k - (len(runs) - 1) / 2) * width
        means = [run.mean(kind) for kind in kinds]
        errors = (within_rates(means, [run.interval(kind).half_width for kind in kinds])
                  if len(run.seeds) > 1 else None)
        ax.bar(at, means, width, yerr=errors, capsize=3, ecolor="0.4",
               label=f"{run.name} ({len(run.seeds)} seed{'s' * (len(run.seeds) > 1)})")
        per_seed = np.array([run.rates[kind] for kind in kinds])  # [kinds, seeds]
        for seed_rates in per_seed.T:
            ax.plot(at, seed_rates, "k.", ms=4)
    ax.axhline(0.5, color="0.6", ls=":", lw=1)
    # long names slant, each ending under its own tick, so that no name runs into its neighbour's
    slant = max(len(kind) for kind in kinds) > 12
    ax.set_xticks(x, kinds, rotation=20 if slant else 0, ha="right" if slant else "center",
                  rotation_mode="anchor")
    ax.set(ylim=(0, 1.05), yticks=np.linspace(0, 1, 6), ylabel='face rate (fraction called "face")')
    # outside the axes, to their right: a bar can reach 1, and no bar is hidden behind the key
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")


@checked
def draw_probe(fig: FigureBase, probe: Probe, rates: ProbeRates, xlabel: str):
    """Left: the first image of every set of ``probe`` (label -> images) side by side; right:
    each model's face rate on every set (``rates``: name -> ``probe_rates`` array ``[seeds,
    sets]``; mean over seeds, its 95 % t interval as error bar, within 0 and 1)."""
    for name, r in rates.items():
        check_same("draw_probe", "sets", "pass the rates probe_rates measured on probe",
                   probe=len(probe), **{f"rates[{name!r}]": r.shape[1]})
    ax_examples, ax_rates = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    labels, side = list(probe), next(iter(probe.values())).shape[-1]
    ax_examples.imshow(torch.cat([images[0, 0] for images in probe.values()], dim=1),
                       cmap="gray", vmin=0, vmax=1)
    ax_examples.set(xticks=[side / 2 + side * k for k in range(len(labels))], yticks=[],
                    title="one held-out face, edited")
    ax_examples.set_xticklabels(labels)
    x = np.arange(len(labels))
    for name, r in rates.items():
        half = ([over_seeds(column).half_width for column in r.T] if len(r) > 1
                else np.zeros(r.shape[1]))
        ax_rates.errorbar(x, r.mean(0), yerr=within_rates(r.mean(0), half), marker="o",
                          capsize=3, label=name)
    ax_rates.set_xticks(x, labels)
    ax_rates.set(xlabel=xlabel, ylabel="face rate", ylim=(-0.05, 1.05))
    ax_rates.legend(fontsize="small")


@checked
def draw_accuracy_bars(ax: FlatAxes, accuracies: Accuracies, colors: Colours) -> None:
    """One horizontal bar per named accuracy (in %), top to bottom, its value written beside it;
    ``colors``: one for all, or one per accuracy."""
    if not isinstance(colors, str):
        check_one_each("draw_accuracy_bars", "colors", colors, len(accuracies), "accuracy")
    names, values = list(accuracies), list(accuracies.values())
    ax.barh(range(len(values)), values, color=colors)  # numeric rows: any flat Axes takes them
    ax.set_yticks(range(len(values)), names)
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:.2f} %", va="center")
    ax.set(xlim=(min(values) - 1, 100.5), xlabel="MNIST test accuracy (%)")
    ax.invert_yaxis()


@checked
def draw_confusion(fig: FigureBase,
                   confusion: Numbers("counts [classes, classes] (loop.confusion)", ndim=2,
                                      ge=0, whole=True, tensor=True)) -> None:
    """Two panels on ``fig`` from ``confusion`` ``[classes, classes]`` counts
    (``loop.confusion``): the mistakes (true digit by row, prediction by column, the diagonal left
    out, each count written in its cell) and the accuracy of each true digit."""
    check_same("draw_confusion", "size, a row and a column per class", "pass loop.confusion's "
               "counts", **{"confusion's rows": len(confusion), "confusion's columns":
                            confusion.shape[1]})
    unseen = (confusion.sum(dim=1) == 0).nonzero().flatten().tolist()
    if unseen:  # their accuracy would be 0 / 0
        raise ValueError(f"draw_confusion(): confusion must count at least one example of every "
                         f"true class (a row each), got none of class(es) {unseen}; count the "
                         "predictions of a set that holds every class")
    per_class = confusion.diag() / confusion.sum(dim=1)  # [classes]
    classes = range(len(confusion))
    errors = confusion.clone().fill_diagonal_(0)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.imshow(errors, cmap="Reds")
    for t, p in errors.nonzero().tolist():
        white = errors[t, p] > errors.max() / 2
        ax1.text(p, t, int(errors[t, p]), ha="center", va="center", fontsize=8,
                 color="white" if white else "black")
    ax1.set(xticks=classes, yticks=classes, xlabel="predicted", ylabel="true",
            title="mistakes (diagonal left out)")
    ax2.bar(classes, 100 * per_class)
    ax2.set(xticks=classes, xlabel="true digit", ylabel="accuracy (%)",
            ylim=(100 * per_class.min().item() - 1, 100), title="per-class accuracy")


@checked
def draw_quoted_bars(ax: FlatAxes, measured: Accuracies, quoted: Accuracies) -> None:
    """One horizontal bar per accuracy (%), top to bottom: the ``measured`` ones (name -> %) in
    each model's colour (``model_colour``), then the ``quoted`` ones (source: model -> %) in grey,
    a lighter grey for each next source; each value written beside its bar."""
    unsourced = [name for name in quoted if ": " not in name]
    if unsourced:
        raise ValueError(f"draw_quoted_bars(): quoted must name each accuracy 'source: model' "
                         f"(e.g. 'paper: CapsNet'), got {unsourced[:3]}; say where it is quoted "
                         "from, as robustness.QUOTED_AFFINE does")
    kinds = {model_kind(name) for name in measured} - {None}
    if not kinds & {model_kind(name.split(": ", 1)[1]) for name in quoted}:
        raise ValueError(f"draw_quoted_bars(): measured and quoted must share a kind of model "
                         f"(a CapsNet, a CNN, ...) for the bars to compare, got measured "
                         f"{list(measured)[:3]} and quoted {list(quoted)[:3]}; quote accuracies "
                         "of the kinds measured (robustness.QUOTED_AFFINE)")
    sources = list(dict.fromkeys(name.split(":")[0] for name in quoted))
    greys = {source: f"{0.55 + 0.1 * k:.2f}" for k, source in enumerate(sources)}
    colors = ([model_colour(name) for name in measured]
              + [greys[name.split(":")[0]] for name in quoted])
    values = [*measured.values(), *quoted.values()]
    ax.barh([*measured, *quoted], values, color=colors)
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:.1f} %", va="center")
    ax.set(xlim=(0, 109), xlabel="accuracy on affine-transformed digits (%)")
    ax.invert_yaxis()


@checked
def draw_group_bars(ax: FlatAxes, scores: Annotated[dict[str, Annotated[list[Percent], InPercent]],
                                                Some],
                    labels: Names) -> None:
    """Grouped bars: one group per label, one bar per model (``scores``: name -> one accuracy in %
    per group, e.g. ``robustness.accuracy_by_group``), in each model's colour."""
    for name, values in scores.items():
        check_one_each("draw_group_bars", f"scores[{name!r}]", values, len(labels), "label")
    width = 0.8 / len(scores)
    for k, (name, values) in enumerate(scores.items()):
        at = np.arange(len(labels)) + (k - (len(scores) - 1) / 2) * width
        ax.bar(at, values, width, label=name, color=model_colour(name))
    ax.set(xticks=range(len(labels)), xticklabels=labels, ylim=(0, 100))
    ax.legend(loc="lower left")


SWEEP_STYLES = ("o-", "^--", "s-")  # the markers and lines of 08's sweep curves, model by model


@checked
def draw_sweep_curves(fig: FigureBase, curves: Annotated[dict[str, Has(
        "a model's sweeps, one per factor of SWEEPS, each", "factor", "values", "accuracy",
        source="robustness.sweep_curves(...)'s sweeps", many=True)], Some],
                      n: Int("digits each accuracy was measured on", ge=1),
                      ranges: Record(AffineRanges) = AFFNIST_RANGES) -> None:
    """One panel per factor of ``transformed_mnist.SWEEPS``: each model's accuracy (%) at every
    value of the sweep (``curves``: name -> ``robustness.sweep_curves``' sweeps, one per factor
    in the order of ``SWEEPS``, on ``n`` digits), the range of that factor in ``ranges`` as a
    grey band."""
    if len(curves) > len(SWEEP_STYLES):
        raise ValueError(f"draw_sweep_curves(): curves must hold at most {len(SWEEP_STYLES)} "
                         f"models (one style each), got {len(curves)}; draw fewer at once")
    for name, sweeps in curves.items():
        if [sweep.factor for sweep in sweeps] != list(SWEEPS):
            raise ValueError(f"draw_sweep_curves(): curves[{name!r}] must hold one sweep per "
                             f"factor of SWEEPS, in order {list(SWEEPS)}, got "
                             f"{[sweep.factor for sweep in sweeps]}; pass robustness.sweep_curves")
    axes = fig.subplots(1, len(SWEEPS), sharey=True, squeeze=False)[0]
    for k, (ax, factor) in enumerate(zip(axes, SWEEPS, strict=True)):
        for (name, sweeps), style in zip(curves.items(), SWEEP_STYLES, strict=False):
            ax.plot(sweeps[k].values, [100 * a for a in sweeps[k].accuracy], style,
                    color=model_colour(name), ms=4, label=name)
        ax.axvspan(*ranges.band(factor), color="0.92", zorder=0)
        ax.set(xlabel=factor + (" (degrees)" if factor == "rotation" else ""),
               title=f"sweep of {factor}")
    axes[0].set_ylabel(f"accuracy (%), {n:,} digits")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle("grey band: the affNIST range of that factor", y=1.02)


@checked
def capsnet_vs_cnn_figure(cnn_output: Choice("the CNN's output", "softmax", "sigmoid")):
    """The figure of notebook 08's widgets: two image panels (what both models see, what the
    CapsNet redraws) and, per class, the CapsNet's capsule length beside the CNN's
    ``cnn_output`` probability. Returns ``(figure, (seen_ax, recon_ax), (lengths, probabilities))``
    where the last two are the bar containers ``update_class_bars`` updates."""
    figure = Figure(figsize=(10, 2.9))
    figure.subplots_adjust(left=0.02, right=0.98, bottom=0.17, top=0.86, wspace=0.25)
    seen, recon, bars = figure.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 2.2]})
    for ax in (seen, recon):
        ax.set(xticks=[], yticks=[])
    seen.set_title("what both models see")
    classes = np.arange(10)
    lengths = bars.bar(classes - 0.2, np.zeros(10), 0.4, color="tab:orange",
                       label="CapsNet: capsule length ‖v_j‖")
    probabilities = bars.bar(classes + 0.2, np.zeros(10), 0.4, color="tab:blue",
                             label=f"CNN: {cnn_output} probability")
    bars.set(xticks=classes, xlabel="class", ylim=(0, 1.05))
    bars.legend(loc="upper left", fontsize=8)
    return figure, (seen, recon), (lengths, probabilities)


@checked
def update_class_bars(bars: BarContainer,
                      values: Numbers("one bar's height per class [classes]", ndim=1, ge=0),
                      chosen: list[Int("a class", ge=0, le=MAX_WIDTH)] | None = None) -> None:
    """Set one bar per class to ``values``; with ``chosen`` classes, the others are drawn pale."""
    check_one_each("update_class_bars", "values", values, len(bars), "bar")
    if chosen and max(chosen) >= len(bars):
        raise ValueError(f"update_class_bars(): chosen must hold classes from 0 to "
                         f"{len(bars) - 1} (one per bar), got {chosen}; pass classes the bars show")
    for j, (bar, value) in enumerate(zip(bars, values, strict=True)):
        bar.set_height(value)
        bar.set_alpha(1.0 if chosen is None or j in chosen else 0.45)

"""How training went, and how it varies from seed to seed: the held-out accuracy of every epoch
of a recorded run with the kept epoch circled (05, 08, 10), the face models' held-out curves
(07), many runs' curves at once and each setting's value per seed with its interval (09), and the
bug zoo's step-by-step loss and accuracy beside the correct model's (09).
"""

from typing import Annotated

from matplotlib.axes import Axes
from matplotlib.figure import FigureBase
from matplotlib.lines import Line2D

from ..bug_zoo import COMMAND, ZooRun
from ..checks import check_one_each
from ..convergence import CurvedRow, finished
from ..parts.curves import FaceCurve
from ..statistics import PerSeed, over_seeds, running_mean
from ..stopping_rule import PATIENCE, Patience, best_epoch
from ..validate import Instances, Int, Numbers, Record, Some, check_value, checked
from .canvas import FlatAxes, check_distinct_axes
from .colours import Colour, model_colour


@checked
def draw_held_out_curves(ax: FlatAxes, rows: Annotated[dict[str, CurvedRow], Some],
                         patience: Patience = PATIENCE) -> None:
    """The held-out accuracy of every epoch of each recorded run (``rows``: name -> manifest
    row), the kept epoch circled; a dashed line marks a run that had not finished (``finished``:
    the rule had not stopped it, or its last epochs were still rising)."""
    for name, row in rows.items():
        scores = row.metrics.validation_by_epoch
        curve, best = [100 * a for a in scores], best_epoch(scores)
        done = finished(scores, patience)
        ax.plot(range(1, len(curve) + 1), curve, "-" if done else "--", marker="o", ms=3,
                color=model_colour(name),
                label=f"{name} ({'converged' if done else 'still improving'})")
        ax.plot(best, curve[best - 1], "o", ms=9, mfc="none", color=model_colour(name))
    ax.set(xlabel="epoch", ylabel="held-out accuracy (%)")
    ax.legend(fontsize=8, loc="lower right")


@checked
def draw_face_curves(axes: Instances(Axes, "one axes per model"),
                     records: Annotated[dict[str, Record(FaceCurve)], Some]) -> None:
    """The face models' held-out curves (``parts.curves.read_results``), one panel of ``axes``
    per model in the order the records first name them: each seed's held-out accuracy after every
    epoch, its best epoch circled, and a dotted line at the epoch the shipped recipe stops at."""
    models = list(dict.fromkeys(record.model for record in records.values()))
    check_one_each("draw_face_curves", "axes", axes, len(models), "model of records")
    check_distinct_axes("draw_face_curves", axes=axes)
    for ax, model in zip(axes, models, strict=True):
        for record in (r for r in records.values() if r.model == model):
            curve = [100 * a for a in record.validation_by_epoch]
            line, = ax.plot(range(1, len(curve) + 1), curve, marker="o", ms=3,
                            label=f"seed {record.seed}")
            best = record.best_epoch
            ax.plot(best, curve[best - 1], "o", ms=9, mfc="none", color=line.get_color())
        ax.axvline(record.recipe_epochs, color="grey", ls=":", lw=1)
        ax.set(title=model, xlabel="epoch")
    axes[0].set_ylabel("held-out accuracy (%)")
    axes[0].legend(fontsize=8, loc="lower right")


@checked
def draw_epoch_curves(ax: FlatAxes, curves: Annotated[dict[str, Numbers(
        "held-out accuracies, one per epoch [epochs]", ndim=1, ge=0, le=1, at_least=1)],
        Some], color: Colour = "tab:orange") -> None:
    """Every run's held-out accuracy (%) after each epoch (``curves``: name -> accuracy in [0, 1]
    per epoch), one faint line each."""
    for curve in curves.values():
        ax.plot(range(1, len(curve) + 1), [100 * a for a in curve], "-", color=color,
                alpha=0.4, marker="o", ms=3)
    epochs = max(len(curve) for curve in curves.values())
    ax.set(xlabel="epoch", ylabel="held-out accuracy (%)", xticks=range(1, epochs + 1))


@checked
def draw_seed_spread(ax: FlatAxes, errors: Annotated[dict[str, PerSeed], Some], ylabel: str,
                     gap_after: Int("settings before the gap", ge=1) | None = None) -> None:
    """Each setting's value per seed (``errors``: label -> ``[seeds]``, e.g. a test error in %,
    named by ``ylabel``) as grey dots and their mean with its 95 % t interval over the seeds in
    orange (``statistics.over_seeds``), one column per setting; after the first ``gap_after``
    settings, a gap."""
    if gap_after is not None and len(errors) < 2:  # no bounds to declare: a gap goes between two
        raise ValueError(f"draw_seed_spread(): gap_after must be None where errors holds one "
                         f"setting (a gap goes between two), got {gap_after}; leave it out, or "
                         "pass more settings")
    if gap_after is not None:
        check_value("draw_seed_spread", "gap_after", Int(f"settings before the gap, fewer than "
                                                         f"errors' {len(errors)}", ge=1,
                                                         le=len(errors) - 1), gap_after)
    x = [k + 0.6 * (gap_after is not None and k >= gap_after) for k in range(len(errors))]
    for at, values in zip(x, errors.values(), strict=True):
        ax.scatter([at] * len(values), values, color="0.5", s=14, zorder=3)
        ax.errorbar(at, values.mean(), yerr=over_seeds(values).half_width, fmt="o",
                    color="tab:orange", capsize=4, zorder=4)
    ax.set(xticks=x, xticklabels=list(errors), ylabel=ylabel,
           title="each grey dot one seed; orange: the mean and its 95 % t interval over seeds")


@checked
def draw_zoo_curves(fig: FigureBase, zoo: Annotated[dict[str, Record(ZooRun)], Some], correct: str,
                    bugs: Annotated[list[str] | tuple[str, ...] | dict, Some],
                    stopped_at: Int("the training step where a live run stopped", ge=1)) -> None:
    """One column per bug of ``bugs`` (names, or a dict by name such as
    ``bug_catalogue.BUGS``): its recorded run's loss (top, log scale) and training
    accuracy (bottom) of every step, each the mean of its last steps (``statistics.running_mean``),
    in red over the ``correct`` run's in grey (``zoo``: the recorded runs by name, each a
    ``bug_zoo.ZooRun``, ``bug_zoo.read_results``); a dotted line at step ``stopped_at`` (where a
    live run stopped). Steps run 1, 2, ... on a logarithmic axis, so that the first epoch, where
    the bugs differ most, is as wide as the many epochs after it."""
    missing = [name for name in (correct, *bugs) if name not in zoo]
    if missing:
        raise ValueError(f"draw_zoo_curves(): zoo must hold the runs of correct and of every bug "
                         f"of bugs, got {sorted(zoo)}, missing {missing}; record them ({COMMAND}) "
                         "or draw the bugs it holds")
    steps = max(len(zoo[name].batch_loss) for name in (correct, *bugs))
    check_value("draw_zoo_curves", "stopped_at", Int(f"a step of the runs drawn (they run 1 to "
                                                     f"{steps})", ge=1, le=steps), stopped_at)
    axes = fig.subplots(2, len(bugs), sharex=True, squeeze=False)
    for col, name in enumerate(bugs):
        for row, key in enumerate(("batch_loss", "batch_accuracy")):
            ax = axes[row, col]
            for run, colour in ((correct, "0.6"), (name, "tab:red")):
                curve = running_mean(getattr(zoo[run], key))
                ax.plot(range(1, len(curve) + 1), curve, color=colour, label=run)
            ax.axvline(stopped_at, color="0.3", ls=":")
            ax.set(xscale="log", yscale="log" if key == "batch_loss" else "linear")
        axes[0, col].set_title(f"{name}\ntest {100 * zoo[name].test_accuracy:.1f} % "
                               f"(correct {100 * zoo[correct].test_accuracy:.1f} %)",
                               fontsize=9)
        axes[1, col].set_xlabel("training step")
    axes[0, 0].set_ylabel("loss (log scale)")
    axes[1, 0].set_ylabel("training accuracy")
    key_lines = [Line2D([], [], color="0.6"), Line2D([], [], color="tab:red"),
                 Line2D([], [], color="0.3", ls=":")]
    fig.legend(key_lines, ["the correct model", "the panel's bug", "where the live run stopped"],
               loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.06), fontsize=9)

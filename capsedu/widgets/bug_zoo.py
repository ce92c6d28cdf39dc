"""Notebook 09's widget: switch one of the bug zoo's bugs on and change the routing iterations;
a trained CapsNet's couplings of one test digit, its capsule lengths and the recorded training
curves answer (``bug_zoo_report.zoo_state``).

The digits go through Conv1, PrimaryCaps and the W_ij once, when the widget is built; a control
change only re-routes the cached votes u_hat and redraws the artists that change (blitting).
"""

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure
from pydantic import InstanceOf

from .. import course_settings
from ..bug_catalogue import BUGS
from ..bug_zoo import COMMAND, CORRECT, ZooRun, read_results
from ..bug_zoo_report import SHOWN_CHILDREN, ZooState, zoo_state
from ..capsnet import CapsNet
from ..checks import check_weights_dtype
from ..figures.canvas import Blitter
from ..figures.model_scores import update_class_bars
from ..figures.routing_couplings import draw_coupling_heatmap, update_coupling_heatmap
from ..statistics import CURVE_WINDOW
from ..validate import Choice, Int, Record, Tensor, checked
from .base import Widget
from .panels import SLIDER_ITERATIONS
from .sliders import Dropdown, IntSlider, RadioButtons

# the histogram's bins: c_ij from 1e-4 (and below) to 1, evenly spaced on a log scale
BINS = np.logspace(-4, 0, 33)


class BugZooExplorer(Widget):
    """Pick a test digit, the routing iterations (1-5) and a bug (or none): the couplings c_ij of
    that digit (the heatmap of the children with the longest votes, with each row's sum, and a
    histogram of all of them), its output capsules' lengths and the recorded training curve of
    that configuration beside the correct one's. ``.state`` holds ``zoo_state``'s ``ZooState``.

    ``model``: a trained ``CapsNet``; ``images`` ``[N, 1, 28, 28]`` and ``labels`` ``[N]``: the
    digits to pick from (with the logits-shared-over-batch bug they are routed as one batch);
    ``results``: the recorded runs by name (default: ``bug_zoo.read_results()``)."""

    figure_alt = (
        "Left: a heatmap, dark for 0 and bright for 1, of the chosen digit's couplings from the 20 "
        "children with the longest votes (rows) to the ten digit classes (columns), with each "
        "row's sum beside it; top middle: a histogram, on a logarithmic axis, of the share of all "
        "the digit's couplings in each bin, with a dashed line at uniform coupling, 1/10, and a "
        "red dotted one at one over the number of children; top right: the ten digit capsules' "
        "lengths, the true class drawn full and the others pale; bottom: the recorded training "
        "accuracy, step by step, of the correct model (grey) and of the chosen bug's model "
        "(orange).")

    @checked(reads=("model", "images"))
    def __init__(self, model: CapsNet,
                 images: Tensor("test digits [N, 1, 28, 28], pixels in [0, 1]", ndim=4,
                                pixels=True),
                 labels: Tensor("their true classes [N]", ndim=1),
                 results: dict[str, Record(ZooRun)] | None = None,
                 iterations: Int("routing iterations", ge=1, le=SLIDER_ITERATIONS) = 3):
        self._check_digits(images, labels, model.config.n_classes)
        # here, where the images were given: the model reads them once, in its own dtype
        check_weights_dtype(images, "BugZooExplorer(): images", model)
        self.labels = labels
        self.results = read_results() if results is None else results
        with torch.no_grad():
            self.votes = model.votes(images)  # [N, n_in, n_out, d_out], routed on demand
        n_in, n_out = self.votes.shape[1:3]
        self.shown = min(SHOWN_CHILDREN, n_in)  # the heatmap's rows
        self.digit = Dropdown(
            options=[(f"#{k}: a {int(y)}", k) for k, y in enumerate(labels)], description="digit")
        self.iterations = IntSlider(value=iterations, min=1, max=SLIDER_ITERATIONS,
                                    description="iterations")
        self.bug = RadioButtons(
            options=[("none (the paper's routing)", CORRECT), *((name, name) for name in BUGS)],
            description="bug", layout=widgets.Layout(width="max-content"))
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self._build_figure(n_in, n_out)
        for control in (self.digit, self.iterations, self.bug):
            control.observe(lambda _: self.update(), names="value")
        controls = widgets.VBox([self.digit, self.iterations, self.bug])
        self.widget = widgets.VBox([widgets.HBox([controls, self.readout]), self.image])
        self.update()

    def _build_figure(self, n_in: int, n_out: int):
        self.figure = Figure(figsize=(12, 4.8), dpi=course_settings.WIDGET_DPI)
        grid = self.figure.add_gridspec(2, 3, width_ratios=[1.5, 1, 1], left=0.04, right=0.98,
                                        bottom=0.1, top=0.9, wspace=0.4, hspace=0.55)
        heat, sums = (self.figure.add_subplot(g) for g in
                      grid[:, 0].subgridspec(1, 2, width_ratios=[10, 1.4], wspace=0.08))
        hist, bars = self.figure.add_subplot(grid[0, 1]), self.figure.add_subplot(grid[0, 2])
        curve = self.figure.add_subplot(grid[1, 1:])
        # 1. c_ij of the children with the longest votes (rows), and each row's sum, sum_j c_ij
        rows = [""] * self.shown
        self._heat, _ = draw_coupling_heatmap(heat, np.zeros((self.shown, n_out)), rows,
                                              range(n_out), values=False)
        heat.set(xlabel="parent j (digit class)", ylabel="child i (longest votes first)")
        self._heat_title = heat.set_title(" ", fontsize="medium", loc="left")
        self._sums, self._sum_values = draw_coupling_heatmap(
            sums, np.zeros((self.shown, 1)), rows, ["Σ_j c_ij"], fontsize="small")
        sums.set_yticks([])
        self.figure.colorbar(self._heat, cax=sums.inset_axes([1.25, 0, 0.35, 1]),
                             ticks=[0, 0.5, 1])
        # 2. every c_ij of the digit: the share of them in each bin, and uniform coupling
        self._hist = hist.bar(BINS[:-1], np.zeros(len(BINS) - 1), np.diff(BINS), align="edge",
                              color="tab:blue")
        hist.axvline(1 / n_out, color="0.3", ls="--", lw=1)
        hist.axvline(1 / n_in, color="tab:red", ls=":", lw=1)
        hist.text(1 / n_out, 0.97, f" 1/{n_out}", va="top", fontsize="small")
        hist.text(1 / n_in, 0.97, f"1/{n_in} ", va="top", ha="right", fontsize="small",
                  color="tab:red")
        hist.set(xscale="log", xlim=(BINS[0], BINS[-1]), ylim=(0, 1), xlabel="c_ij",
                 ylabel="share of the c_ij")
        hist.set_title(f"all {n_in} x {n_out} couplings", fontsize="medium")
        # 3. the output capsules' lengths; the true class's bar is drawn full, the others pale
        self._bars = bars.bar(range(n_out), np.zeros(n_out), color="tab:orange")
        bars.set(xticks=range(n_out), ylim=(0, 1.05), xlabel="class j")
        self._bars_title = bars.set_title(" ", fontsize="medium")
        # 4. the recorded runs: training accuracy per step, the correct run in grey
        steps = max([len(r.batch_accuracy) for r in self.results.values()], default=1)
        self._correct_curve = curve.plot([], [], color="0.6", lw=2, label="correct")[0]
        self._bug_curve = curve.plot([], [], color="tab:orange", lw=1.5, label="the chosen bug")[0]
        curve.set(xlim=(0, steps), ylim=(0, 1.02), xlabel="training step",
                  ylabel="training accuracy")
        curve.legend(loc="lower right", fontsize="small")
        self._curve_note = curve.text(0.5, 0.35, "", ha="center", va="center",
                                      transform=curve.transAxes, fontsize="medium")
        self._curve_title = curve.set_title(" ", fontsize="medium")
        self.blitter = Blitter(self.figure, [
            self._heat, self._heat_title, self._sums, *sum(self._sum_values, []), *self._hist,
            *self._bars, self._bars_title, self._correct_curve, self._bug_curve, self._curve_note,
            self._curve_title])

    def update(self):
        self.state = s = zoo_state(self.votes, self.labels, self.digit.value,
                                   self.iterations.value, self.bug.value, self.results,
                                   self.shown)
        self.readout.value = readout(s)
        self.image.value = self._draw(s)

    def _draw(self, s: ZooState) -> bytes:
        update_coupling_heatmap(self._heat, [], s.c[s.shown])
        update_coupling_heatmap(self._sums, self._sum_values, s.child_sums[s.shown, None])
        self._heat_title.set_text(f"c_ij, iteration {s.iterations}: {len(s.shown)} of "
                                  f"{len(s.c)} children")
        shares = np.histogram(np.clip(s.c, BINS[0], BINS[-1]), BINS)[0] / s.c.size
        for bar, share in zip(self._hist, shares, strict=True):
            bar.set_height(share)
        update_class_bars(self._bars, s.lengths, chosen=[s.label])
        self._bars_title.set_text(f"‖v_j‖: longest {s.prediction}, true class {s.label}")
        bug = s.bug if s.bug != CORRECT else None  # no orange line without a bug
        for line, name in ((self._correct_curve, CORRECT), (self._bug_curve, bug)):
            curve = s.curves.get(name, [])
            line.set_data(np.arange(1, len(curve) + 1), curve)
        self._curve_note.set_text(s.curve_note)
        tested = ", ".join(f"{name} {100 * record.test_accuracy:.2f} %"
                           for name, record in s.recorded.items())
        self._curve_title.set_text(f"recorded runs (mean of {CURVE_WINDOW} steps)"
                                   + (f"; test accuracy: {tested}" if tested else ""))
        return self.blitter.png()


@checked
def readout(s: Record(ZooState)) -> str:
    """The widget's text for a ``zoo_state``."""
    bug, trace = s.bug, s.trace
    lines = [f"<b>digit #{s.index}, a {s.label}</b> · {s.iterations} routing "
             f"iterations · bug: <b>{'none' if bug == CORRECT else bug}</b>"]
    if bug != CORRECT:
        lines.append(BUGS[bug].description)
    if s.live:
        lines.append("Switched on in this model's routing at inference (the model was trained "
                     "with the paper's routing): its trained votes, routed the buggy way.")
    if s.shared:
        lines.append(f"This digit is routed in one batch with the other {s.n_digits - 1} "
                     "digits given to the widget: its couplings depend on theirs.")
    if bug != CORRECT and not s.live:
        lines.append("<b>This bug changes training, not routing</b>: at inference the model "
                     "routes as the paper does, so the couplings shown are the correct ones. "
                     + recorded_effect(s.recorded, bug))
    entropies = " → ".join(f"{step.entropy:.3f}" for step in trace)
    lines.append(f"mean normalised entropy of the couplings, iteration by iteration: {entropies}"
                 f" (all {len(s.c)} children; {s.shown_entropy:.3f} for the "
                 f"{len(s.shown)} shown); polarised (over 90 % of a child's vote to one "
                 f"parent): {100 * trace[-1].polarised:.1f} %")
    lines.append(f"sums: Σ_j c_ij = {s.child_sums.mean():.3f} per child, Σ_i c_ij = "
                 f"{s.parent_sums.mean():.3f} per parent (means)")
    right = "right" if s.prediction == s.label else "<b>wrong</b>"
    lines.append(f"longest capsule: {s.prediction} (‖v‖ = "
                 f"{s.lengths[s.prediction]:.3f}, {right})")
    return "<br>".join(lines)


@checked
def recorded_effect(recorded: dict[str, InstanceOf[ZooRun]],
                    bug: Choice("a bug of bug_catalogue.BUGS", *BUGS)) -> str:
    """What the recorded runs (by name) say of a training-only ``bug``, in a sentence or two."""
    if bug not in recorded:
        return f"Its recorded run is not there yet: run {COMMAND}."
    record, last = recorded[bug], recorded[bug].couplings[-1]
    correct = (f" (the correct model's: {100 * recorded[CORRECT].test_accuracy:.2f} %)"
               if CORRECT in recorded else "")
    return (f"Trained with it, the recorded CapsNet(LIVE) reached "
            f"{100 * record.test_accuracy:.2f} % test accuracy{correct}; its trained routing "
            f"left the couplings at entropy {last.entropy:.3f}, "
            f"{100 * last.polarised:.1f} % polarised, after {len(record.couplings)} "
            "iterations.")

"""Notebook 08's MultiMNIST widget: overlay two digits, see what each model reads and the
CapsNet's two reconstructions in two colours (``robustness.overlap_state``; the paper's Fig. 5)."""

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.figure import Figure

from ..data.transformed_mnist import MULTI_CANVAS, MULTI_SHIFT
from ..plots import png_bytes, two_colour
from ..robustness import overlap_state
from .base import Widget


class OverlapExplorer(Widget):
    """Pick two test digits and move the second over the first: the CapsNet's two
    reconstructions in two colours, both models' readings and the CapsNet's capsule lengths."""

    def __init__(self, capsnet, cnn, images: torch.Tensor, labels: torch.Tensor):
        self.capsnet, self.cnn, self.images, self.labels = capsnet, cnn, images, labels
        options = [(f"#{k}: a {int(y)}", k) for k, y in enumerate(labels)]
        second = next(k for k, y in enumerate(labels) if y != labels[0])
        self.first = widgets.Dropdown(options=options, value=0, description="first")
        self.second = widgets.Dropdown(options=options, value=second, description="second")
        self.sliders = {name: widgets.IntSlider(value=0, min=-MULTI_SHIFT, max=MULTI_SHIFT,
                                                description=name, continuous_update=False)
                        for name in ("dx", "dy")}
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = Figure(figsize=(10, 2.9))
        self.figure.subplots_adjust(left=0.02, right=0.98, bottom=0.17, top=0.86, wspace=0.25)
        pair, recon, bars = self.figure.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 2.2]})
        blank = np.zeros((MULTI_CANVAS, MULTI_CANVAS))
        self._pair = pair.imshow(blank, cmap="gray_r", vmin=0, vmax=1)
        self._recon = recon.imshow(np.ones((MULTI_CANVAS, MULTI_CANVAS, 3)))
        pair.set(xticks=[], yticks=[], title="what both models see")
        recon.set(xticks=[], yticks=[])
        self._recon_ax = recon
        classes = np.arange(10)
        self._lengths = bars.bar(classes - 0.2, np.zeros(10), 0.4, color="tab:orange",
                                 label="CapsNet: capsule length ‖v_j‖")
        self._probabilities = bars.bar(classes + 0.2, np.zeros(10), 0.4, color="tab:blue",
                                       label="CNN: sigmoid probability")
        bars.set(xticks=classes, xlabel="class", ylim=(0, 1.05))
        bars.legend(loc="upper left", fontsize=8)
        for control in (self.first, self.second, *self.sliders.values()):
            control.observe(lambda _: self.update(), names="value")
        self.widget = widgets.VBox([
            widgets.HBox([self.first, self.second]), widgets.HBox(list(self.sliders.values())),
            self.readout, self.image])
        self.update()

    def update(self):
        a, b = self.first.value, self.second.value
        dx, dy = (s.value for s in self.sliders.values())
        self.state = s = overlap_state(self.capsnet, self.cnn, self.images[a], self.images[b],
                                       dx, dy)
        truth = sorted({int(self.labels[a]), int(self.labels[b])})
        s["labels"] = truth

        def reading(read):
            return f"{read[0]} and {read[1]} ({'right' if read == truth else '<b>wrong</b>'})"

        same = " (the same class twice: MultiMNIST pairs never are)" if len(truth) == 1 else ""
        self.readout.value = (
            f"true: {' and '.join(map(str, truth))}{same}, ink boxes overlap "
            f"{100 * s['overlap']:.0f} %<br>CapsNet reads {reading(s['capsnet_read'])} · "
            f"CNN reads {reading(s['cnn_read'])}")
        self._pair.set_data(s["pair"])
        self._recon.set_data(two_colour(s["reconstructions"]))
        first, second = s["capsnet_read"]
        self._recon_ax.set_title(f"CapsNet redraws {first} (orange) and {second} (blue)")
        for bars, values in ((self._lengths, s["lengths"]),
                             (self._probabilities, s["probabilities"])):
            for bar, value in zip(bars, values, strict=True):
                bar.set_height(value)
        self.image.value = png_bytes(self.figure)

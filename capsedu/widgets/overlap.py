"""Notebook 08's MultiMNIST widget: overlay two digits, see what each model reads and the
CapsNet's two reconstructions in two colours (``viewpoint_states.overlap_state``; the paper's
Fig. 5)."""

import ipywidgets as widgets
import numpy as np
import torch

from ..checks import check_pair_labels
from ..data.digit_pairs import MULTI_CANVAS, MULTI_SHIFT
from ..figures.canvas import png_bytes
from ..figures.digit_images import two_colour
from ..figures.model_scores import capsnet_vs_cnn_figure, update_class_bars
from ..multi_digit import MultiDigitCapsNet, TwoDigitCNN
from ..viewpoint_states import overlap_state
from .base import TwoReaders
from .sliders import Dropdown, IntSlider


class OverlapExplorer(TwoReaders):
    """Pick two test digits and move the second over the first: the CapsNet's two
    reconstructions in two colours, both models' readings and the CapsNet's capsule lengths.
    ``.state`` holds the last ``viewpoint_states.OverlapState``, ``.truth`` the pair's true classes
    (sorted)."""

    figure_alt = (
        "Left: the two chosen test digits drawn over each other in dark ink on white, the second "
        "moved by the sliders; middle: the CapsNet's two reconstructions over each other, the "
        "first class it reads in orange and the second in blue, as the panel's title says; right: "
        "for each class 0 to 9, the CapsNet's capsule length (orange) beside the CNN's sigmoid "
        "probability (blue). Where the orange and the blue fall on different digits, the CapsNet "
        "has split the shared ink between the two.")

    side = MULTI_CANVAS  # both models read the pairs' canvas
    least_digits = 2  # one digit, overlaid on another
    readers = {"capsnet": (MultiDigitCapsNet, "a CapsNet that reads two overlapping digits at "
                           "once and redraws each, 08's MultiMNIST CapsNet"),
               "cnn": (TwoDigitCNN, "a CNN that reads two overlapping digits at once, 08's "
                       "MultiMNIST CNN")}

    def _check_digits(self, images, labels, n_classes: int) -> None:
        """As every widget over digits, and at least two classes among them: a pair's two digits
        differ (MultiMNIST's never share a class)."""
        super()._check_digits(images, labels, n_classes)
        check_pair_labels(type(self).__name__, labels, images, "images")

    def build(self):
        options = self.digit_options
        # the first digit of another class; among digits of one class, the last digit
        second = next((k for k, y in enumerate(self.labels) if y != self.labels[0]),
                      len(self.labels) - 1)
        self.first = Dropdown(options=options, value=0, description="first")
        self.second = Dropdown(options=options, value=second, description="second")
        self.sliders = {name: IntSlider(value=0, min=-MULTI_SHIFT, max=MULTI_SHIFT,
                                        description=name, continuous_update=False)
                        for name in ("dx", "dy")}
        self.figure, (pair, recon), (self._lengths, self._probabilities) = \
            capsnet_vs_cnn_figure("sigmoid")
        self._pair = pair.imshow(np.zeros((MULTI_CANVAS, MULTI_CANVAS)), cmap="gray_r", vmin=0,
                                 vmax=1)
        self._recon = recon.imshow(np.ones((MULTI_CANVAS, MULTI_CANVAS, 3)))
        self._recon_ax = recon
        for control in (self.first, self.second, *self.sliders.values()):
            control.observe(lambda _: self.update(), names="value")
        self.widget = widgets.VBox([
            widgets.HBox([self.first, self.second]), widgets.HBox(list(self.sliders.values())),
            self.readout, self.image])

    def update(self):
        a, b = self.first.value, self.second.value
        if torch.equal(self.images[a], self.images[b]):  # one digit twice (overlap_state
            # refuses it): the last pair stays, and the readout says why
            self.readout.value = ("first and second are the same digit: a digit overlaid on "
                                  "itself is no pair; pick another second digit")
            return
        dx, dy = (s.value for s in self.sliders.values())
        self.state = s = overlap_state(self.capsnet, self.cnn, self.images[a], self.images[b],
                                       dx, dy)
        self.truth = truth = sorted({int(self.labels[a]), int(self.labels[b])})

        def reading(read):
            return f"{read[0]} and {read[1]} ({'right' if read == truth else '<b>wrong</b>'})"

        same = " (the same class twice: MultiMNIST pairs never are)" if len(truth) == 1 else ""
        self.readout.value = (
            f"true: {' and '.join(map(str, truth))}{same}, ink boxes overlap "
            f"{100 * s.overlap:.0f} %<br>CapsNet reads {reading(s.capsnet_read)} · "
            f"CNN reads {reading(s.cnn_read)}")
        self._pair.set_data(s.pair)
        self._recon.set_data(two_colour(s.reconstructions))
        first, second = s.capsnet_read
        self._recon_ax.set_title(f"CapsNet redraws {first} (orange) and {second} (blue)")
        update_class_bars(self._lengths, s.lengths)
        update_class_bars(self._probabilities, s.probabilities)
        self.image.value = png_bytes(self.figure)

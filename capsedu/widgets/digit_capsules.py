"""Notebook 06's widget: 16 sliders edit a digit capsule and the decoder redraws the digit.

Each image is run through the CapsNet once, when the widget is built (routing included); moving a
slider only adds the Deltas to the cached capsule and runs the decoder (``pose_state``).
"""

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ..capsnet import CapsNet
from ..checks import check_one_each
from ..digit_capsules import MAX_DELTA, encode, pose_state
from ..figures.canvas import png_bytes
from ..validate import Tensor, checked
from .base import Widget
from .sliders import Dropdown, FloatSlider


class PoseSpaceExplorer(Widget):
    """Pick a test digit, move its true-class capsule with 16 Delta sliders, see the decoding.
    ``.state`` holds the last ``digit_capsules.PoseState``, ``.index`` the digit shown."""

    figure_alt = (
        "Left: the chosen test digit; middle: what the decoder draws from its true class's capsule "
        "once the sliders' changes are added to it; right: the ten digit capsules' lengths as "
        "bars, the true class in orange and the others in blue, with a dashed line at 1. Each "
        "slider moves one of the capsule's 16 dimensions, and the middle image shows what that "
        "dimension changes in the drawn digit.")

    @checked(reads=("model", "images"))
    def __init__(self, model: CapsNet,
                 images: Tensor("test digits [N, C, H, W] of the model's input, pixels in [0, 1]",
                                pixels=True),
                 labels: Tensor("their true classes [N]", ndim=1),
                 names: list[str] | tuple[str, ...] | None = None):
        self._check_digits(images, labels, model.config.n_classes)
        self.model, self.images, self.labels = model, images, labels
        self.v = encode(model, images).v  # [N, 10, 16], cached: sliders never re-route
        dim = self.v.shape[2]
        names = names or [f"#{k}" for k in range(len(images))]
        check_one_each("PoseSpaceExplorer", "names", names, len(images), "image")
        self.digit = Dropdown(
            options=[(f"{name}: a {int(y)}", k) for k, (name, y) in enumerate(zip(names, labels,
                                                                                   strict=True))],
            description="digit")
        self.sliders = tuple(FloatSlider(value=0.0, min=-MAX_DELTA, max=MAX_DELTA, step=0.05,
                                         description=f"dim {d}", readout_format="+.2f",
                                         layout=widgets.Layout(width="280px"))
                             for d in range(dim))  # a tuple: a slider is not replaced
        self.reset_button = widgets.Button(description="reset", icon="undo")
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = Figure(figsize=(9, 3))
        self.figure.subplots_adjust(left=0.02, right=0.98, bottom=0.16, top=0.86, wspace=0.3)
        original, recon, bars = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1, 1, 1.6]})
        blank = np.zeros(images.shape[-2:])
        self._original = original.imshow(blank, cmap="gray", vmin=0, vmax=1)
        self._recon = recon.imshow(blank, cmap="gray", vmin=0, vmax=1)
        for ax, title in ((original, "test image"), (recon, "decoded capsule")):
            ax.set(xticks=[], yticks=[], title=title)
        self._bars = bars.bar(range(self.v.shape[1]), np.zeros(self.v.shape[1]))
        bars.set(xticks=range(self.v.shape[1]), xlabel="class j", title="capsule lengths ‖v_j‖")
        bars.axhline(1.0, color="0.7", ls="--", lw=1)
        self._bars_ax = bars

        for s in self.sliders:
            s.observe(self._changed, names="value")
        self.digit.observe(self._changed, names="value")
        self.reset_button.on_click(lambda _: self.reset())
        half = (dim + 1) // 2
        sliders = widgets.HBox([widgets.VBox(self.sliders[:half]),
                                widgets.VBox(self.sliders[half:])])
        top = widgets.HBox([self.digit, self.reset_button, self.readout])
        self.widget = widgets.VBox([top, self.image, sliders])
        self.update()

    @property
    def deltas(self) -> list[float]:
        return [s.value for s in self.sliders]

    def reset(self):
        """All Deltas back to 0, with a single redraw."""
        with self.moving_several():
            for s in self.sliders:
                s.value = 0.0


    def update(self):
        k = self.digit.value
        label = int(self.labels[k])
        self.state = s = pose_state(self.model, self.v[k], label, self.deltas)
        self.index = k
        edited = [f"dim {d} {x:+.2f}" for d, x in enumerate(s.deltas) if x != 0]
        self.readout.value = (
            f"true class {label}, ‖v_{label}‖ = <b>{s.lengths[label]:.3f}</b>, "
            f"longest capsule: {s.prediction}<br>edited: {', '.join(edited) or 'nothing'}")
        self._draw(s)

    def _draw(self, s):
        self._original.set_data(self.images[self.index, 0].numpy())
        self._recon.set_data(s.reconstruction)
        for j, (bar, length) in enumerate(zip(self._bars, s.lengths, strict=True)):
            bar.set_height(length)
            bar.set_color("tab:orange" if j == s.label else "tab:blue")
        self._bars_ax.set_ylim(0, 1.1 * max(1.0, float(s.lengths.max())))  # edits can pass 1
        self.image.value = png_bytes(self.figure)

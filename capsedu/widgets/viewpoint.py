"""Notebook 08's widget: sliders turn, shear, scale and move a test digit; both affNIST models
answer live (``viewpoint_states.viewpoint_state``)."""

import ipywidgets as widgets

from ..viewpoint_states import viewpoint_state
from .base import TwoReaders
from .sliders import Dropdown, FloatSlider


class ViewpointExplorer(TwoReaders):
    """Pick a test digit and transform it: the CapsNet's capsule lengths and reconstruction and
    the CNN's softmax probabilities, for the image both of them see. ``.state`` holds the last
    ``viewpoint_states.ViewpointState``, ``.label`` the digit's true class."""

    figure_alt = (
        "Left: the test digit on the 40×40 canvas as both models see it, turned, sheared, scaled "
        "and moved by the sliders; middle: the CapsNet's reconstruction of it; right: for each "
        "class 0 to 9, the CapsNet's capsule length (orange) beside the CNN's softmax probability "
        "(blue), each model's answer drawn full and the other classes pale. When the CapsNet reads "
        "the digit, its reconstruction follows the turn and the shear.")

    def build(self):
        self.digit = Dropdown(options=self.digit_options, description="digit")

        def slider(description, low, high, step, fmt):
            value = 1.0 if description == "scale" else 0.0
            return FloatSlider(value=value, min=low, max=high, step=step,
                               description=description, readout_format=fmt,
                               continuous_update=False)

        self.sliders = {
            "rotation": slider("rotation", -90, 90, 5, "+.0f"),
            "shear": slider("shear", -0.6, 0.6, 0.05, "+.2f"),
            "scale": slider("scale", 0.5, 1.5, 0.05, ".2f"),
            "dx": slider("dx", -12, 12, 1, "+.0f"),
            "dy": slider("dy", -12, 12, 1, "+.0f"),
        }
        self.reset_button = widgets.Button(description="reset", icon="undo")
        self._readers_figure("what both models see")

        for s in self.sliders.values():
            s.observe(self._changed, names="value")
        self.digit.observe(self._changed, names="value")
        self.reset_button.on_click(lambda _: self.reset())
        top = widgets.HBox([self.digit, self.reset_button])
        controls = widgets.HBox([widgets.VBox(list(self.sliders.values())[:3]),
                                 widgets.VBox(list(self.sliders.values())[3:])])
        self.widget = widgets.VBox([top, controls, self.readout, self.image])

    def reset(self):
        """Back to the upright, centred digit, with a single redraw."""
        with self.moving_several():
            for name, s in self.sliders.items():
                s.value = 1.0 if name == "scale" else 0.0


    def update(self):
        k = self.digit.value
        values = {name: s.value for name, s in self.sliders.items()}
        self.state = s = viewpoint_state(self.capsnet, self.cnn, self.images[k], **values)
        self.label = label = int(self.labels[k])
        caps, cnn = s.capsnet_prediction, s.cnn_prediction

        def verdict(prediction):
            return "right" if prediction == label else "<b>wrong</b>"

        self.readout.value = (
            f"a {label} turned {values['rotation']:+.0f}°, sheared {values['shear']:+.2f}, "
            f"scaled {values['scale']:.2f}, moved ({values['dx']:+.0f}, {values['dy']:+.0f}) px"
            f"<br>CapsNet: {caps} (‖v‖ = {s.lengths[caps]:.2f}, {verdict(caps)}) · "
            f"CNN: {cnn} (p = {s.probabilities[cnn]:.2f}, {verdict(cnn)})")
        self._draw_readings(s.image, s.reconstruction, s.lengths, s.probabilities, caps, cnn)

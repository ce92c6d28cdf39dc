"""Notebook 10's widget: turn a digit and watch the feature maps of a C4 G-CNN turn and cycle
with it while a plain CNN's change in no predictable way; both models' predictions; and the pose
capsules of notebook 07 reading the angle of a face turned as far (``equivariance.rotation_state``).
"""

import ipywidgets as widgets
import numpy as np
import torch

from .. import course_settings
from ..checks import check_shape
from ..equivariance import rotation_state
from ..figures.canvas import Blitter
from ..figures.model_scores import update_class_bars
from ..figures.rotations import rotation_figure
from ..gcnn import C4CNN, PlainCNN
from ..parts.pose_net import PoseCapsuleNet
from ..validate import Tensor, checked
from .base import Widget
from .sliders import Dropdown, IntSlider


class RotationExplorer(Widget):
    """A rotation slider and a digit; a layer and a channel of the G-CNN to look at. With a
    ``face_model`` (notebook 07's ``PoseCapsuleNet``) a face turns by the same angle."""

    figure_alt = (
        "Left: the digit turned by the slider, as both models see it, and below it, when a face "
        "model is given, a face turned as far with an orange line along the angle its face capsule "
        "reads; middle: one channel of the chosen G-CNN layer as four feature maps, one per "
        "rotation of 0°, 90°, 180° and 270° (top row), above four feature maps of the plain CNN "
        "(bottom row); right: for each class, the G-CNN's softmax probability (green) beside the "
        "CNN's (blue), each model's answer drawn full. At quarter turns the G-CNN's maps turn with "
        "the digit and move one place along the row; the CNN's follow no such rule.")

    @checked
    def __init__(self, gcnn: C4CNN, cnn: PlainCNN,
                 images: Tensor("MNIST digits [N, 1, 28, 28], pixels in [0, 1]", pixels=True),
                 labels: Tensor("their true classes [N]", ndim=1),
                 face_model: PoseCapsuleNet | None = None):
        check_shape(images, "RotationExplorer(): images", "[N, 1, 28, 28] (MNIST digits)",
                    ndim=4, sizes=(1, 28, 28))
        self._check_digits(images, labels, n_classes=10)
        self.gcnn, self.cnn, self.images, self.labels = gcnn, cnn, images, labels
        self.face_model = face_model
        self.digit = Dropdown(
            options=[(f"#{k}: a {int(y)}", k) for k, y in enumerate(labels)], description="digit")
        self.rotation = IntSlider(value=0, min=0, max=345, step=15,
                                  description="rotation", readout_format="d",
                                  continuous_update=False)
        blank = torch.zeros(1, 1, 28, 28, device=course_settings.model_device(gcnn))
        sizes = [m.shape[-1] for m in gcnn.features(blank)]
        self.layer = Dropdown(
            options=[(f"layer {k + 1} ({s}x{s})", k) for k, s in enumerate(sizes)],
            description="layer")
        widest = max(conv.weight.shape[0] for conv in gcnn.convs) - 1  # the last channel of any
        self.channel = IntSlider(value=0, min=0, max=widest, description="channel",
                                 continuous_update=False)  # each layer spans its own
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        face_size = face_model.detector.hparams["image_size"] if face_model is not None else None
        self.figure, self._panels, self._maps, self._bars = rotation_figure(face_size)
        # only the images, the arrow and the bars change: the rest is drawn once
        self.blitter = Blitter(self.figure, [*self._panels.values(), *self._maps["gcnn"],
                                             *self._maps["cnn"], *self._bars[0], *self._bars[1]])
        self.layer.observe(self._layer_changed, names="value")
        for control in (self.digit, self.rotation, self.channel):
            control.observe(self._changed, names="value")
        self.widget = widgets.VBox([widgets.HBox([self.digit, self.rotation]),
                                    widgets.HBox([self.layer, self.channel]),
                                    self.readout, self.image])
        self._layer_changed(None)

    def _layer_changed(self, _):
        """A layer has its own number of channels: the channel slider follows, then one redraw."""
        top = self.gcnn.convs[self.layer.value].weight.shape[0] - 1
        with self.moving_several():  # the value first: the slider refuses a max below it
            self.channel.value = min(self.channel.value, top)
            self.channel.span(0, top)  # the layer's channels: a max beyond has none to show


    def update(self):
        k = self.digit.value
        self.state = s = rotation_state(self.gcnn, self.cnn, self.images[k],
                                        float(self.rotation.value), self.layer.value,
                                        self.channel.value, self.face_model)
        self.label = label = int(self.labels[k])  # the true class: not part of the state
        self._panels["digit"].set_data(s.image)
        for name, maps in (("gcnn", s.gcnn_maps), ("cnn", s.cnn_maps)):
            top = max(float(maps.max()), 1e-6)  # one colour scale for the four
            for im, m in zip(self._maps[name], maps, strict=True):
                im.set_data(m)
                im.set_clim(0, top)
        update_class_bars(self._bars[0], s.gcnn_probabilities, chosen=[s.gcnn_prediction])
        update_class_bars(self._bars[1], s.cnn_probabilities, chosen=[s.cnn_prediction])
        lines = [f"a {label} turned {s.rotation:.0f}° · G-CNN reads "
                 f"{s.gcnn_prediction} (p = {s.gcnn_probabilities.max():.2f}) · CNN reads "
                 f"{s.cnn_prediction} (p = {s.cnn_probabilities.max():.2f})",
                 f"layer {s.layer + 1}: the G-CNN's channel {s.channel} in its four "
                 f"rotations (top), the CNN's channels "
                 f"{', '.join(map(str, s.cnn_channels))} (bottom)"]
        if s.quarter_turns is None:
            lines.append("between quarter turns: C4 promises nothing about the maps here")
        else:
            lines.append(f"maps against the upright digit's maps turned {s.rotation:.0f}° "
                         f"(G-CNN: and cycled {s.quarter_turns} step(s)): error G-CNN "
                         f"{s.gcnn_error:.1e}, CNN {s.cnn_error:.2f}")
        if self.face_model is not None:
            self._panels["face"].set_data(s.face_image)
            centre, a = s.face_image.shape[0] / 2 - 0.5, np.radians(s.face_angle)
            # the face's "up" turned counter-clockwise on screen by its angle (y points down)
            tip = (centre - 10 * np.sin(a), centre - 10 * np.cos(a))
            self._panels["arrow"].set_data([centre, tip[0]], [centre, tip[1]])
            lines.append(f"a face turned {s.rotation:.0f}°: the face capsule reads "
                         f"{s.face_angle:.0f}°, length {s.face_length:.2f}")
        self.readout.value = "<br>".join(lines)
        self.image.value = self.blitter.png()

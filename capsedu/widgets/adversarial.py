"""Notebook 11's widget: pick an attack, its radius eps and the model it is made on; see the
adversarial digit, both models' answers, the CapsNet's capsule lengths and reconstruction, and
the reconstruction detector's verdict (``adversarial.attack_state``)."""

import ipywidgets as widgets
import numpy as np

from ..adversarial import attack_state
from ..attacks import ATTACKS
from ..capsnet import CapsNet, LogitsCNN
from ..validate import Float, checked
from .base import DigitLabels, Digits, TwoReaders
from .sliders import Dropdown, FloatSlider, ToggleButtons

MAX_EPS = 0.3  # the slider's end: the largest radius of the recorded run


class AttackExplorer(TwoReaders):
    """Attack a test digit of 08's translated set with FGSM or PGD at ``eps``, made on the CapsNet
    or the CNN; both models read the same adversarial image. ``threshold``: the CapsNet's
    reconstruction-distance threshold (chosen on clean held-out digits)."""

    figure_alt = (
        "Left: the adversarial digit on the 40×40 canvas, as both models see it; middle: the "
        "CapsNet's reconstruction of it from its longest capsule; right: for each class 0 to 9, "
        "the CapsNet's capsule length (orange) beside the CNN's softmax probability (blue), each "
        "model's answer drawn full. At eps 0 it is the clean digit; as eps grows the change to "
        "the digit stays faint while the answers move.")

    digit_side = 40  # the translated set's images, attacked as they are on the canvas

    @checked
    def __init__(self, capsnet: CapsNet, cnn: LogitsCNN, images: Digits, labels: DigitLabels,
                 threshold: Float("the CapsNet's reconstruction-distance threshold", ge=0)):
        self.threshold = threshold
        super().__init__(capsnet, cnn, images, labels)

    def build(self):
        self.digit = Dropdown(options=self.digit_options, description="digit")
        self.attack = ToggleButtons(options=ATTACKS, value="pgd", description="attack")
        self.against = ToggleButtons(options=[("made on the CapsNet", "capsnet"),
                                              ("made on the CNN", "cnn")],
                                     value="capsnet", description="examples")
        # each move runs an attack (PGD: 20 gradient steps), so it runs when the handle is let go
        self.eps = FloatSlider(value=0.1, min=0, max=MAX_EPS, step=0.01,
                               description="eps", readout_format=".2f",
                               continuous_update=False)
        self._readers_figure("the adversarial digit")
        for control in (self.digit, self.attack, self.against, self.eps):
            control.observe(self._changed, names="value")
        self.widget = widgets.VBox([widgets.HBox([self.digit, self.eps]), self.attack,
                                    self.against, self.readout, self.image])

    def update(self):
        self.state = s = attack_state(self.capsnet, self.cnn, self.images, self.labels,
                                      self.digit.value, self.attack.value, self.eps.value,
                                      self.against.value, self.threshold)

        def verdict(prediction):
            return "right" if prediction == s.label else "<b>fooled</b>"

        caps, cnn = s.capsnet_prediction, s.cnn_prediction
        flag = "<b>flagged</b>" if s.flagged else "not flagged"
        self.readout.value = (
            f"a {s.label}, {s.attack.upper()} at eps {s.eps:.2f} made on the "
            f"{'CapsNet' if s.against == 'capsnet' else 'CNN'}; largest pixel change "
            f"{np.abs(s.adversarial - s.image).max():.2f}<br>"
            f"CapsNet: {caps} (‖v‖ = {s.lengths[caps]:.2f}, {verdict(caps)}) · "
            f"CNN: {cnn} (p = {s.probabilities[cnn]:.2f}, {verdict(cnn)})<br>"
            f"reconstruction distance {s.distance:.2f} against the threshold "
            f"{s.threshold:.2f}: {flag}")
        self._draw_readings(s.adversarial, s.reconstruction, s.lengths, s.probabilities, caps, cnn)

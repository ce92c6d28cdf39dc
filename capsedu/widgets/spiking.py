"""Notebook 10 §9: drive a leaky integrate-and-fire neuron, and send a capsule's length as spikes.

``SpikingNeuron``: sliders set the input current and the membrane time constant of a LIF neuron
(its trace against the threshold, its spikes, its rate beside the closed form), and a capsule's
length (its spike train and the length a reader decodes from it). The callback calls the pure
function ``neuron_state`` and keeps its result in ``.state``.
"""

from dataclasses import dataclass

import ipywidgets as widgets
import torch
from matplotlib.figure import Figure

from ..course_settings import Seed
from ..figures.canvas import png_bytes
from ..figures.spikes import draw_membrane, draw_spike_trains
from ..spiking import Neuron, Trace, decode_rate, rate_code, rate_theory, simulate
from ..validate import CheckedRecord, Float, Record, Tensor, checked
from .base import Widget
from .sliders import FloatSlider

DURATION_MS = 200.0  # what the widget simulates
DT_MS = 0.25  # its time step: fine enough that the rate is within about 2 % of the closed form
MAX_CURRENT = 4.0  # the current slider's end, in units of the threshold
MAX_RATE_HZ = 200.0  # the rate of a capsule of length 1
CODE_DT_MS = 1.0  # the spike train's time step

# what the sliders take, declared once for the widget and its pure function
Current = Float("the input current, in units of the threshold", ge=0, le=MAX_CURRENT)
Tau = Float("the membrane time constant, ms", ge=1, le=100)
Length = Float("a capsule's length", ge=0, le=1)


@dataclass(frozen=True)
class NeuronState(CheckedRecord):
    """What the widget shows: the neuron's ``trace`` and its ``rate_hz`` beside the closed form's
    ``theory_hz``; a capsule of ``length`` as a spike ``train`` ``[steps]`` and the ``decoded``
    length."""

    current: Current
    tau_ms: Tau
    length: Length
    trace: Record(Trace, "spiking.simulate(...)")
    rate_hz: Float("the simulated rate, spikes per second", ge=0)
    theory_hz: Float("the closed form's rate, spikes per second", ge=0)
    train: Tensor("the capsule's spike train [steps]", ndim=1)
    decoded: Float("the length decoded from the train", ge=0)

    def __post_init__(self):
        super().__post_init__()  # and the trace one neuron's
        if len(self.trace.v) != 1:
            raise ValueError(f"NeuronState(): trace must be one neuron's, got "
                             f"{len(self.trace.v)}; pass simulate(...) of one current")
        # the rates must be those of this current and time constant (a current replaced alone
        # would leave the trace and the rates of another)
        theory = float(rate_theory(torch.tensor([self.current], dtype=torch.float64),
                                   Neuron(tau_ms=self.tau_ms))[0])
        for name, value, rate in (("rate_hz", self.rate_hz, float(self.trace.rates_hz[0])),
                                  ("theory_hz", self.theory_hz, theory)):
            if abs(value - rate) > 1e-6 * max(1.0, rate):
                raise ValueError(f"NeuronState(): {name} must be the rate of this neuron "
                                 f"(current={self.current!r}, tau_ms={self.tau_ms!r}): {rate:g} "
                                 f"Hz, got {value!r}; make it with neuron_state(...), not by "
                                 "replacing one field")


@checked
def neuron_state(current: Current, tau_ms: Tau, length: Length, seed: Seed = 0) -> NeuronState:
    """A LIF neuron (threshold 1, reset 0, 2 ms refractory) under a constant ``current`` for
    ``DURATION_MS``, and a capsule of ``length`` coded as spikes over the same time."""
    neuron = Neuron(tau_ms=tau_ms)
    currents = torch.tensor([current], dtype=torch.float64)
    trace = simulate(currents, neuron, DURATION_MS, DT_MS)
    train = rate_code(torch.tensor([length]), DURATION_MS, MAX_RATE_HZ, CODE_DT_MS, seed)[0]
    return NeuronState(current, tau_ms, length, trace, float(trace.rates_hz[0]),
                       float(rate_theory(currents, neuron)[0]), train,
                       float(decode_rate(train, MAX_RATE_HZ, CODE_DT_MS)))


class SpikingNeuron(Widget):
    """Drag the current and the time constant: the membrane, its spikes and its rate follow; drag
    the capsule's length: its spike train and the decoded length follow."""

    figure_alt = (
        "Top: a leaky integrate-and-fire neuron's membrane potential over 200 ms, rising towards "
        "the input current (dotted), with a dashed threshold line; each time it reaches the "
        "threshold a spike is drawn as a tick and the potential drops to 0. Bottom: the spike "
        "train of a capsule whose length sets how often it fires.")

    @checked
    def __init__(self, current: Current = 1.5, tau_ms: Tau = 20.0, length: Length = 0.6):
        layout = widgets.Layout(width="360px")
        self.current = FloatSlider(value=current, min=0, max=MAX_CURRENT, step=0.05,
                                   description="current I", layout=layout)
        self.tau = FloatSlider(value=tau_ms, min=1, max=100, step=1,
                               description="tau (ms)", layout=layout)
        self.length = FloatSlider(value=length, min=0, max=1, step=0.05,
                                  description="length", layout=layout)
        self.readout, self.image = widgets.HTML(), widgets.Image(format="png", width=640)
        self.figure = Figure(figsize=(8, 4.2), layout="constrained")
        self.ax_v, self.ax_code = self.figure.subplots(
            2, 1, gridspec_kw={"height_ratios": [3, 1]})
        for control in (self.current, self.tau, self.length):
            control.observe(self._changed, names="value")
        self.widget = widgets.VBox([self.current, self.tau, self.length, self.readout,
                                    self.image])
        self.update()

    def update(self):
        self.state = s = neuron_state(self.current.value, self.tau.value, self.length.value)
        spikes = int(s.trace.spikes.sum())
        self.readout.value = (
            f"I = {s.current:.2f}, tau = {s.tau_ms:.0f} ms: <b>{spikes} spikes</b> in "
            f"{DURATION_MS:.0f} ms, {s.rate_hz:.0f} Hz (closed form {s.theory_hz:.1f} Hz)<br>"
            f"a capsule of length {s.length:.2f} fires {int(s.train.sum())} times; a reader "
            f"counting them decodes length {s.decoded:.2f}")
        self.ax_v.clear()
        draw_membrane(self.ax_v, s.trace, Neuron(tau_ms=s.tau_ms), s.current)
        self.ax_v.set_title("a leaky integrate-and-fire neuron")
        self.ax_code.clear()
        draw_spike_trains(self.ax_code, s.train[None], [f"length {s.length:.2f}"], CODE_DT_MS)
        self.image.value = png_bytes(self.figure)

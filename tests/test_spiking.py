"""The leaky integrate-and-fire neuron against its closed form, the rate code's statistics, the
spike read-out, and notebook 10's spiking widget driven kernel-side."""

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import floats, integers

from capsedu.spiking import (
    Neuron,
    decode_rate,
    rate_code,
    rate_theory,
    simulate,
    spike_readout,
)


@settings(max_examples=15, deadline=None)
@given(current=floats(1.2, 4.0), tau=floats(5.0, 40.0), refractory=floats(0.0, 5.0))
def test_the_simulated_rate_is_the_closed_form(current, tau, refractory):
    """Above the threshold, the time from reset to the next spike is tau ln((I - reset) / (I -
    theta)) plus the refractory time; with a fine step, the simulation fires at that rate (within
    one spike over the run, and Euler's error at dt = 0.02 ms)."""
    neuron = Neuron(tau_ms=tau, refractory_ms=refractory)
    trace = simulate(torch.tensor([current]), neuron, duration_ms=400.0, dt_ms=0.02)
    period = refractory + tau * math.log(current / (current - 1.0))  # written out again here
    expected = 1000 / period
    assert float(rate_theory(torch.tensor([current]), neuron)[0]) == pytest.approx(expected)
    assert abs(float(trace.rates_hz[0]) - expected) <= 1000 / 400 + 0.02 * expected


def test_below_the_threshold_the_potential_approaches_the_current_and_never_fires():
    """tau dV/dt = -V + I from V = 0 is V(t) = I (1 - exp(-t / tau)); I below the threshold
    never fires, and the closed form says 0 Hz."""
    neuron = Neuron(tau_ms=10.0)
    currents = torch.tensor([0.0, 0.5, 0.99])
    trace = simulate(currents, neuron, duration_ms=100.0, dt_ms=0.01)
    exact = currents[:, None].double() * (1 - torch.exp(-trace.t_ms / 10.0))
    assert torch.allclose(trace.v, exact, atol=1e-3)
    assert not trace.spikes.any()
    assert rate_theory(currents, neuron).eq(0).all()


def test_after_a_spike_the_neuron_rests_at_reset_for_the_refractory_time():
    neuron = Neuron(tau_ms=5.0, reset=-0.2, refractory_ms=3.0)
    trace = simulate(torch.tensor([3.0]), neuron, duration_ms=50.0, dt_ms=0.1)
    first = int(trace.spikes[0].nonzero()[0])
    assert torch.allclose(trace.v[0, first:first + 30], torch.tensor(-0.2, dtype=torch.float64))
    assert trace.v[0, first + 31] > -0.2


@settings(max_examples=10, deadline=None)
@given(length=floats(0.0, 1.0), seed=integers(0, 2**16))
def test_a_rate_code_decodes_to_its_length_within_its_spread(length, seed):
    """Spikes are Bernoulli(L p) per step: the decoded length's mean is L, its standard deviation
    sqrt(L p (1 - L p) / n) / p over n steps; 5 of them is a bound a correct code passes."""
    p, steps = 200 * 1.0 / 1000, 2000
    trains = rate_code(torch.full((50,), length), duration_ms=float(steps), seed=seed)
    decoded = decode_rate(trains).mean()
    spread = math.sqrt(length * p * (1 - length * p) / (steps * 50)) / p
    assert abs(float(decoded) - length) <= 5 * spread + 1e-12


def test_a_rate_code_is_seeded_and_silent_at_length_zero():
    lengths = torch.tensor([[0.0, 0.3, 1.0]])
    a, b = rate_code(lengths, seed=3), rate_code(lengths, seed=3)
    assert torch.equal(a, b) and a.shape == (1, 3, 100)
    assert not a[0, 0].any()
    assert not torch.equal(a, rate_code(lengths, seed=4))


def test_the_read_out_agrees_more_the_longer_it_counts():
    """Lengths far apart: a long window reads the longest capsule every time; a window of one
    step cannot (ties, or too few spikes); the error of the decoded lengths falls."""
    generator = torch.Generator().manual_seed(0)
    lengths = torch.rand(200, 10, generator=generator) * 0.3
    lengths[torch.arange(200), torch.randint(10, (200,), generator=generator)] = 0.95
    readout = spike_readout(lengths, (1.0, 10.0, 1000.0))
    assert readout.agreement[0] < 0.5 < readout.agreement[-1] == 1.0
    assert readout.length_error[0] > readout.length_error[1] > readout.length_error[2]
    assert readout.spikes_per_example[-1] == pytest.approx(
        float(lengths.sum(-1).mean()) * 200, rel=0.05)


@pytest.mark.parametrize("call, words", [
    (lambda: Neuron(reset=1.0), "reset must be below threshold"),
    (lambda: simulate(torch.tensor([1.0]), duration_ms=1e6, dt_ms=1e-3), "time steps"),
    (lambda: rate_code(torch.tensor([1.2])), "lengths must be a torch.Tensor in [0, 1]"),
    (lambda: rate_code(torch.tensor([0.5]), max_rate_hz=1000.0, dt_ms=2.0), "shorten dt_ms"),
    (lambda: simulate([1.0]), "currents must be a torch.Tensor"),
])
def test_bad_input_is_refused_naming_it(call, words):
    with pytest.raises((TypeError, ValueError), match=re.escape(words)):
        call()


def test_the_widget_follows_its_sliders():
    from capsedu.widgets import SpikingNeuron

    widget = SpikingNeuron(current=0.8)
    assert widget.state.rate_hz == 0 and "0 spikes" in widget.readout.value
    widget.current.value = 2.0
    assert widget.state.rate_hz > 0
    assert abs(widget.state.rate_hz - widget.state.theory_hz) <= 0.05 * widget.state.theory_hz + 5
    faster = widget.state.rate_hz
    widget.tau.value = 5
    assert widget.state.rate_hz > faster  # a shorter time constant climbs faster
    widget.length.value = 0.0
    assert widget.state.train.sum() == 0 and widget.state.decoded == 0
    assert widget.image.value[:4] == b"\x89PNG"

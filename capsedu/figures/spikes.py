"""Spikes (10 §9): a leaky integrate-and-fire neuron's membrane against its threshold, its firing
rate against its input current beside the closed form, capsule lengths sent as spike trains, and
how long a reader must count spikes to read the longest capsule.
"""

import numpy as np
import torch

from ..checks import check_one_each, check_same
from ..spiking import MAX_NEURONS, Neuron, SpikeReadout, Trace, rate_theory
from ..validate import Float, Int, Numbers, Record, check_value, checked
from .canvas import FlatAxes, check_distinct_axes

Rates = Numbers("firing rates in Hz, one per current [n]", ndim=1, ge=0)


@checked
def draw_membrane(ax: FlatAxes, trace: Record(Trace), neuron: Record(Neuron),
                  current: Float("the constant input current"),
                  row: Int("the neuron's row in trace", ge=0, le=MAX_NEURONS) = 0) -> None:
    """Neuron ``row``'s membrane potential over time under the constant ``current`` (dotted:
    where V would settle without a threshold), the threshold dashed, each spike a tick above it;
    the key to the right of the axes. A ``neuron`` or ``current`` that the trace was not
    simulated with is refused: its threshold and current lines would contradict the trace."""
    n = len(trace.v)
    check_value("draw_membrane", "row", Int(f"a row of trace's {n} neurons", ge=0, le=n - 1), row)
    _check_simulated_with(trace, neuron, current, row)
    t, v = trace.t_ms.numpy(), trace.v[row].numpy()
    top = max(neuron.threshold, current) * 1.25
    ax.plot(t, v, lw=1.2, color="tab:blue", label="membrane potential V")
    ax.axhline(current, ls=":", color="0.4", lw=1, label="input current I")
    ax.axhline(neuron.threshold, ls="--", color="tab:red", lw=1, label="threshold")
    spike_times = t[trace.spikes[row].numpy()]
    ax.vlines(spike_times, neuron.threshold, neuron.threshold * 1.2, color="k", lw=1.2,
              label="spikes")
    ax.set(xlabel="time (ms)", ylabel="V", xlim=(0, t[-1]),
           ylim=(min(neuron.reset, 0) - 0.05, top))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)


def _check_simulated_with(trace: Trace, neuron: Neuron, current: float, row: int) -> None:
    """Refuse a ``neuron`` or ``current`` that contradicts row ``row`` of ``trace``: simulate's
    Euler step ``V + dt / tau (I - V)`` must give each next potential, reach the threshold at
    each spike and stay below it everywhere else (a step at reset is refractory)."""
    v, fired = trace.v[row].double(), trace.spikes[row]
    before = torch.cat([v.new_zeros(1), v[:-1]])  # each step starts from the last (rest first)
    stepped = before + trace.dt_ms / neuron.tau_ms * (current - before)
    tol = 1e-6 * max(1.0, abs(current), neuron.threshold)
    moved = ~fired & (v != neuron.reset)  # steps with no spike and no refractory hold
    wrong = [what for what, bad in (
        ("a potential at or above the threshold without a spike", (moved & (v >= neuron.threshold
                                                                          + tol)).any()),
        ("a spike below the threshold", (fired & (stepped < neuron.threshold - tol)).any()),
        ("a step that is not V + dt / tau (I - V)", ((v - stepped).abs() > tol)[moved].any()),
    ) if bad]
    if wrong:
        raise ValueError(f"draw_membrane(): neuron and current must be the ones trace was "
                         f"simulated with, got threshold={neuron.threshold!r}, "
                         f"tau_ms={neuron.tau_ms!r} and current={current!r}, under which row "
                         f"{row} of trace has {' and '.join(wrong)}; pass the Neuron and the "
                         "current you gave simulate(...)")


@checked
def draw_rate_curve(ax: FlatAxes, currents: Numbers("input currents [n]", ndim=1), simulated: Rates,
                    theory: Rates, neuron: Record(Neuron)) -> None:
    """Firing rate against input current: the simulation's ``simulated`` (dots) over the closed
    form's ``theory`` (a line), both ``[n]``; nothing fires below the threshold. Refused:
    currents that do not increase (rates passed where the currents belong), and a ``theory`` that
    is not ``rate_theory(currents, neuron)`` (another neuron's curve, or the arguments swapped)."""
    check_same("draw_rate_curve", "length", "pass one rate per current", currents=len(currents),
               simulated=len(simulated), theory=len(theory))
    if len(currents) > 1 and not (np.diff(currents) > 0).all():
        raise ValueError("draw_rate_curve(): currents must increase from left to right (the x "
                         f"axis), got {len(currents)} values from {currents[0]:g} to "
                         f"{currents[-1]:g} that do not; pass the currents first, then the "
                         "simulated rates and the theory's")
    expected = rate_theory(torch.as_tensor(currents, dtype=torch.float64), neuron).numpy()
    if not np.allclose(theory, expected, rtol=1e-4, atol=1e-6):
        worst = int(np.abs(np.asarray(theory) - expected).argmax())
        raise ValueError(f"draw_rate_curve(): theory must be rate_theory(currents, neuron) for "
                         f"this neuron, got {float(theory[worst]):g} Hz at current "
                         f"{currents[worst]:g} where it gives {expected[worst]:g} Hz; pass "
                         "spiking.rate_theory(currents, neuron) with the neuron you simulated")
    ax.plot(currents, theory, color="k", lw=1, label="closed form")
    ax.plot(currents, simulated, "o", ms=4, color="tab:blue", label="simulated")
    ax.axvline(neuron.threshold, ls=":", color="tab:red", label="threshold")
    ax.set(xlabel="input current I", ylabel="firing rate (Hz)", title="rate against current")
    ax.legend(fontsize=8)


@checked
def draw_spike_trains(ax: FlatAxes,
                      trains: Numbers("spike trains [rows, steps], True at a spike", ndim=2,
                                      bools=True),
                      names: list[str] | tuple[str, ...],
                      dt_ms: Float("the time step, ms", gt=0, le=100)) -> None:
    """A raster: one row of ticks per spike train of ``trains`` ``[rows, steps]`` (bool), each
    row named by ``names``."""
    check_one_each("draw_spike_trains", "names", names, len(trains), "row of trains")
    for row, train in enumerate(trains):
        times = np.flatnonzero(train) * dt_ms
        ax.vlines(times, row - 0.4, row + 0.4, color="k", lw=0.8)
    ax.set_yticks(range(len(names)), names)
    ax.set(xlabel="time (ms)", xlim=(0, trains.shape[-1] * dt_ms),
           ylim=(len(names) - 0.5, -0.5))


@checked
def draw_readout(ax_agree: FlatAxes, ax_error: FlatAxes, readout: Record(SpikeReadout)) -> None:
    """Against the counting window: how often the class with the most spikes is the longest
    capsule's (left), and the decoded lengths' mean error (right), with the spikes sent, on
    log scales it sets itself."""
    check_distinct_axes("draw_readout", ax_agree=ax_agree, ax_error=ax_error)
    windows = readout.windows_ms
    ax_agree.semilogx(windows, 100 * np.array(readout.agreement), "o-")
    ax_agree.set(xlabel="counting window (ms)", ylabel="agrees with the lengths (%)",
                 ylim=(0, 102), title="the longest capsule, read from spikes")
    for w, a, n in zip(windows, readout.agreement, readout.spikes_per_example, strict=True):
        ax_agree.annotate(f"{n:.0f}", (w, 100 * a), textcoords="offset points", xytext=(0, 6),
                          ha="center", fontsize=7, color="0.4")
    ax_error.loglog(windows, readout.length_error, "o-", color="tab:orange", label="measured")
    # a count's spread grows as sqrt(window), its mean as window: the error falls as 1/sqrt(w)
    first = readout.length_error[0] * np.sqrt(windows[0] / np.array(windows))
    ax_error.loglog(windows, first, ":", color="0.5", label="∝ 1/√window")
    ax_error.set(xlabel="counting window (ms)", ylabel="mean |decoded - true| length",
                 title="a length, read from spikes")
    ax_error.legend(fontsize=8)

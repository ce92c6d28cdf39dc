"""Spikes (10 §9): a leaky integrate-and-fire neuron, and a capsule's length sent as spikes.

The seed's "what's next" names spiking networks: units that send "discrete spikes in time rather
than continuous activations". The simplest such unit is the leaky integrate-and-fire (LIF) neuron
(Lapicque 1907; Gerstner, Kistler, Naud & Paninski, *Neuronal Dynamics*, 2014, ch. 1.3). Its
membrane potential ``V`` leaks towards rest (0) and is pushed up by an input current ``I`` (in
units of the potential, so the resistance is 1):

    tau dV/dt = -V + I

When ``V`` reaches the threshold ``theta`` the neuron emits a spike, ``V`` drops to ``reset`` and
stays there for a refractory time. Under a constant current above the threshold the time from
reset to the next spike has a closed form, which the tests check the simulation against:

    T = tau ln((I - reset) / (I - theta)),   rate = 1 / (refractory + T)

and below the threshold ``V`` only approaches ``I``: no spike, ever. A rate code carries a number
in how often a neuron fires: a capsule of length ``L`` fires in each time step with probability
``L * max_rate * dt``, and a reader counts spikes for a while to estimate ``L``.
"""

from dataclasses import dataclass
from typing import Annotated

import torch

from .checks import check_same
from .course_settings import Seed
from .validate import CheckedRecord, Distinct, Float, Tensor, checked

MAX_STEPS = 1_000_000  # time steps of one simulation or spike train: duration / dt
MAX_NEURONS = 100_000  # neurons simulated at once (currents, or capsule lengths)
# The longest Euler step, as a share of the membrane time constant: each step's error in the
# approach to the current's potential is about (dt / tau)^2 / 2 (3 % at a quarter), and from
# dt = tau on the step overshoots that potential, so a neuron held below threshold fires.
MAX_STEP_OF_TAU = 0.25


@dataclass(frozen=True)
class Neuron(CheckedRecord):
    """A leaky integrate-and-fire neuron's settings: times in milliseconds, potentials in units
    where rest is 0 and the input current is measured as the potential it would hold ``V`` at."""
    tau_ms: Float("the membrane time constant, ms", gt=0, le=10_000) = 20.0
    threshold: Float("the potential at which it spikes", gt=0, le=1e6) = 1.0
    reset: Float("the potential after a spike", ge=-1e6, le=1e6) = 0.0
    refractory_ms: Float("the time it stays at reset after a spike, ms", ge=0, le=10_000) = 2.0

    def __post_init__(self):
        super().__post_init__()
        if self.reset >= self.threshold:
            raise ValueError(f"Neuron(): reset must be below threshold, got reset={self.reset} "
                             f"and threshold={self.threshold}; a reset at or above the threshold "
                             "would fire at every step")


@dataclass(frozen=True)
class Trace(CheckedRecord):
    """A simulation: the membrane potential ``v`` and the ``spikes`` (bool) of every neuron at
    every step, ``[neurons, steps]``, and the times of the steps, ``t_ms`` ``[steps]``."""
    t_ms: Tensor("the times of the steps, ms [steps]", ndim=1, floating=True)
    v: Tensor("the membrane potentials [neurons, steps]", ndim=2, floating=True)
    spikes: Tensor("whether each neuron spiked at each step: booleans [neurons, steps]", ndim=2)
    dt_ms: Float("the time step, ms", gt=0, le=100)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), spikes other than booleans (or 0/1), or
        potentials, spikes and times of other neurons or steps."""
        super().__post_init__()
        other = self.spikes[(self.spikes != 0) & (self.spikes != 1)]  # neither spike nor none
        if len(other):
            raise ValueError(f"Trace(): spikes must be booleans (or 0/1), whether each neuron "
                             f"spiked at each step, got dtype {self.spikes.dtype} holding "
                             f"{other[0].item():g}; pass simulate(...)'s spikes, or a bool tensor")
        check_same("Trace", "shape [neurons, steps]", "pass what simulate(...) gives",
                   v=tuple(self.v.shape), spikes=tuple(self.spikes.shape))
        check_same("Trace", "steps", "one time per step", t_ms=len(self.t_ms),
                   v=self.v.shape[1])
        steps = self.t_ms.diff()  # rates_hz counts time in steps of dt_ms
        if len(steps) and not torch.allclose(steps, torch.full_like(steps, self.dt_ms), rtol=1e-2):
            raise ValueError(f"Trace(): t_ms must step by dt_ms ({self.dt_ms!r} ms), got steps "
                             f"from {steps.min().item():g} to {steps.max().item():g} ms; pass "
                             "the dt_ms the times were made with, as simulate(...) does")

    @property
    def rates_hz(self) -> torch.Tensor:
        """Each neuron's firing rate over the whole run, spikes per second ``[neurons]``."""
        seconds = self.spikes.shape[-1] * self.dt_ms / 1000
        return self.spikes.sum(-1) / seconds


def _steps(where: str, name: str, duration_ms: float, dt_ms: float) -> int:
    """The time steps of dt_ms in ``duration_ms`` (the caller's ``name`` for it), 1 to
    ``MAX_STEPS``: else refused, with the way out that fits (too few: a shorter step)."""
    steps = round(duration_ms / dt_ms)
    if not 1 <= steps <= MAX_STEPS:
        fix = (f"lengthen {name} or shorten dt_ms" if steps < 1 else
               f"shorten {name} or lengthen dt_ms")
        raise ValueError(f"{where}(): {name} / dt_ms must give 1 to {MAX_STEPS:,} time steps, "
                         f"got {duration_ms} / {dt_ms} = {duration_ms / dt_ms:,.2f}; {fix}")
    return steps


@checked
def simulate(currents: Tensor("constant input currents, one per neuron [neurons]", ndim=1,
                              finite=True),
             neuron: Neuron = Neuron(),
             duration_ms: Float("how long to simulate, ms", gt=0, le=1e6) = 500.0,
             dt_ms: Float("the time step, ms", gt=0, le=100) = 0.1) -> Trace:
    """Run LIF neurons, one per current of ``currents`` ``[N]``, from rest for ``duration_ms``
    in steps of ``dt_ms`` (Euler's method), and return their ``Trace``. A ``dt_ms`` past
    ``neuron.tau_ms / 4`` (``MAX_STEP_OF_TAU``) is refused: Euler's steps would be too coarse for
    the membrane's decay, and from ``dt_ms = tau_ms`` on a neuron below threshold fires."""
    if dt_ms > MAX_STEP_OF_TAU * neuron.tau_ms:
        raise ValueError(f"simulate(): dt_ms must be at most neuron's tau_ms / 4 (Euler's step "
                         f"must be short beside the membrane time constant), got dt_ms={dt_ms!r} "
                         f"with tau_ms={neuron.tau_ms!r}; pass dt_ms <= "
                         f"{MAX_STEP_OF_TAU * neuron.tau_ms:g}, or tau_ms in milliseconds "
                         "(20 ms is tau_ms=20.0, not 0.02)")
    if len(currents) > MAX_NEURONS:
        raise ValueError(f"simulate(): currents must hold at most {MAX_NEURONS:,} neurons, got "
                         f"{len(currents):,}; simulate fewer at once")
    steps = _steps("simulate", "duration_ms", duration_ms, dt_ms)
    current = currents.double()
    v = torch.zeros_like(current)  # [N], starting at rest
    resting = torch.zeros_like(current)  # [N] refractory time left, ms
    vs, spikes = [], []
    for _ in range(steps):
        # tau dV/dt = -V + I, one Euler step; a refractory neuron stays at reset
        v = torch.where(resting > 0, v, v + dt_ms / neuron.tau_ms * (-v + current))
        resting = (resting - dt_ms).clamp_min(0)
        fired = v >= neuron.threshold  # [N] bool
        v = torch.where(fired, torch.full_like(v, neuron.reset), v)
        resting = torch.where(fired, torch.full_like(v, neuron.refractory_ms), resting)
        vs.append(v)
        spikes.append(fired)
    t_ms = torch.arange(1, steps + 1, dtype=torch.float64) * dt_ms
    return Trace(t_ms, torch.stack(vs, -1), torch.stack(spikes, -1), dt_ms)


@checked
def rate_theory(currents: Tensor("constant input currents [neurons]", ndim=1, finite=True),
                neuron: Neuron = Neuron()) -> torch.Tensor:
    """The firing rate (Hz) of a LIF neuron under each constant current, in closed form:
    ``1 / (refractory + tau ln((I - reset) / (I - theta)))`` above the threshold, 0 below."""
    current = currents.double()
    above = current > neuron.threshold
    # time from reset to threshold, ms (inf where the current never gets there)
    safe = torch.where(above, current, torch.full_like(current, neuron.threshold + 1))
    climb = neuron.tau_ms * torch.log((safe - neuron.reset) / (safe - neuron.threshold))
    return torch.where(above, 1000 / (neuron.refractory_ms + climb), torch.zeros_like(current))


@checked
def rate_code(lengths: Tensor("capsule lengths", finite=True, within=(0, 1),
                             fix="pass the lengths of squashed capsules"),
              duration_ms: Float("how long each capsule fires, ms", gt=0, le=1e6) = 100.0,
              max_rate_hz: Float("the rate of a capsule of length 1, Hz", gt=0, le=1000) = 200.0,
              dt_ms: Float("the time step, ms", gt=0, le=100) = 1.0,
              seed: Seed = 0) -> torch.Tensor:
    """Spike trains ``[*lengths.shape, steps]`` (bool): a capsule of length ``L`` fires in each
    step with probability ``L * max_rate_hz * dt`` (a Bernoulli, or Poisson, rate code)."""
    p = max_rate_hz * dt_ms / 1000  # a length-1 capsule's chance to fire in one step
    if p > 1:
        raise ValueError(f"rate_code(): max_rate_hz * dt_ms must be at most 1,000 (one spike per "
                         f"step), got {max_rate_hz} * {dt_ms}; shorten dt_ms")
    steps = _steps("rate_code", "duration_ms", duration_ms, dt_ms)
    if lengths.numel() * steps > MAX_NEURONS * 1000:
        raise ValueError(f"rate_code(): {lengths.numel():,} capsules x {steps:,} steps is more "
                         "than this course ever needs; code fewer capsules or fewer steps")
    generator = torch.Generator().manual_seed(seed)
    draws = torch.rand(*lengths.shape, steps, generator=generator, dtype=torch.float64)
    return draws < lengths.double().unsqueeze(-1) * p  # [..., steps]


@checked
def decode_rate(spikes: Tensor("spike trains [..., steps] of bool"),
                max_rate_hz: Float("the rate of a capsule of length 1, Hz", gt=0, le=1000) = 200.0,
                dt_ms: Float("the time step, ms", gt=0, le=100) = 1.0) -> torch.Tensor:
    """The lengths a reader estimates from spike counts: ``count / (max_rate * duration)``."""
    if spikes.dtype != torch.bool and not ((spikes == 0) | (spikes == 1)).all():
        raise ValueError(f"decode_rate(): spikes must be spike trains of booleans (or 0/1), got "
                         f"dtype {spikes.dtype} with other values; pass rate_code's trains, not "
                         "rates, lengths or counts")
    if spikes.ndim == 0 or spikes.shape[-1] == 0:
        raise ValueError(f"decode_rate(): spikes must hold at least one time step [..., steps], "
                         f"got shape {tuple(spikes.shape)}")
    seconds = spikes.shape[-1] * dt_ms / 1000
    return spikes.sum(-1) / (max_rate_hz * seconds)


@dataclass(frozen=True)
class SpikeReadout(CheckedRecord):
    """How well spike counts over a window stand in for the lengths they code (``windows_ms``
    ``[W]``): the share of examples whose most-spiking class is the longest capsule's class
    (``agreement``; a tie for the most spikes counts as no answer), the mean error of the decoded
    lengths (``length_error``) and the spikes sent per example (``spikes_per_example``)."""
    windows_ms: Annotated[tuple[Float("a counting window, ms", gt=0), ...], Distinct]
    agreement: tuple[Float("the share of examples read as the lengths read them", ge=0, le=1),
                     ...]
    length_error: tuple[Float("the mean error of the decoded lengths", ge=0), ...]
    spikes_per_example: tuple[Float("the spikes sent per example", ge=0), ...]

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or numbers of other windows."""
        super().__post_init__()
        check_same("SpikeReadout", "length, one number per window", "give one of each per "
                   "window", windows_ms=len(self.windows_ms), agreement=len(self.agreement),
                   length_error=len(self.length_error),
                   spikes_per_example=len(self.spikes_per_example))


@checked
def spike_readout(lengths: Tensor("capsule lengths [examples, classes]", ndim=2, finite=True,
                                  within=(0, 1), fix="pass the lengths of squashed capsules"),
                  # each window once: one twice would give its row twice
                  windows_ms: Annotated[tuple[Float("a counting window, ms", gt=0, le=1e5), ...],
                                        Distinct],
                  max_rate_hz: Float("the rate of a capsule of length 1, Hz", gt=0,
                                     le=1000) = 200.0,
                  dt_ms: Float("the time step, ms", gt=0, le=100) = 1.0,
                  seed: Seed = 0) -> SpikeReadout:
    """Code every capsule's length as spikes (``rate_code``), count each class's spikes over
    each window of ``windows_ms`` (from the start), and compare with the lengths themselves."""
    if not windows_ms:
        raise ValueError("spike_readout(): windows_ms must hold at least one counting window, "
                         "got (); pass e.g. (25.0, 100.0)")
    steps = [_steps("spike_readout", f"windows_ms[{i}]", window, dt_ms)
             for i, window in enumerate(windows_ms)]  # each window's, named as the caller's
    trains = rate_code(lengths, max(windows_ms), max_rate_hz, dt_ms, seed)  # [N, K, steps]
    longest = lengths.argmax(-1)  # [N]: the class the lengths choose
    agreement, error, sent = [], [], []
    for window in steps:
        counts = trains[..., :window].sum(-1)  # [N, K]
        top = counts.max(-1, keepdim=True).values  # [N, 1]
        alone = (counts == top).sum(-1) == 1  # one class has the most spikes
        agrees = alone & (counts.argmax(-1) == longest)
        decoded = decode_rate(trains[..., :window], max_rate_hz, dt_ms)
        agreement.append(agrees.double().mean().item())
        error.append((decoded - lengths.double()).abs().mean().item())
        sent.append(counts.sum(-1).double().mean().item())
    return SpikeReadout(tuple(windows_ms), tuple(agreement), tuple(error), tuple(sent))

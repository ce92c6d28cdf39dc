"""What routing costs, in time and memory (notebooks 05 and 09): training-step times of any
model (``time_passes``, ``model_step``), routing's share of a CapsNet's step (``routing_share``),
the DigitCaps layer alone against its sizes and iterations (``routing_sweep``), the memory routing
keeps for the backward pass (``routing_memory``), and a run recorded on a GPU (``recorded_cost``).

Times are measured, never assumed: ``time_passes`` runs forward and backward passes and reports
median seconds. They depend on the machine and on what else it is doing; compare times measured
in the same call, not across runs or machines.
"""

import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from . import course_settings
from .capsnet import AFFNIST, LIVE, MULTIMNIST, PAPER, CapsNet, CapsNetConfig
from .checks import check_input, check_read_labels, check_same
from .costs import ROUTING_ROW, anatomy
from .course_settings import MAX_BATCH, MAX_REPEATS, Seed, Text, Trainable
from .derived import check_derived
from .functional import squash
from .layers import RoutingCapsules
from .memory import check_memory
from .routing import MAX_ITERATIONS
from .validate import CheckedRecord, Float, Function, Int, Record, Tensor, checked

# Bounds on the sizes a caller can time: far past any CapsNet of the course (1,152 primary
# capsules of 8D, 10 parents of 16D, batches of 128)
MAX_CAPSULES = 100_000
MAX_DIM = 1024

Repeats = Int("timed runs of each pass; their median is reported", ge=1, le=MAX_REPEATS)
Images = Tensor("a batch of images [B, C, H, W]", ndim=4)
Labels = Tensor("the batch's labels")
Batch = Int("examples per batch", ge=1, le=MAX_BATCH)
Iterations = Int("routing iterations; 0 times u_hat = W u alone", ge=0, le=MAX_ITERATIONS)
Seconds = Float("seconds", ge=0)
StepSeconds = Float("seconds of a training step, which takes some time", gt=0)
Bytes = Int("bytes", ge=0)
Share = Float("routing's share of the multiply-adds, 0..1", ge=0, le=1)
# routing timed alone against the whole step: noise can take it past 1 on a tiny model
TimeShare = Float("routing's share of the time (timed alone, against the whole step)", ge=0)


@dataclass(frozen=True)
class Times(CheckedRecord):
    """Median seconds of a forward pass and of its backward pass."""

    forward: Seconds
    backward: Seconds


@dataclass(frozen=True)
class Pass(CheckedRecord):
    """A forward pass to time, and what its backward pass differentiates."""

    forward: Function("runs the forward pass and returns its output")
    # the tensors the backward pass computes gradients for, each requires_grad
    inputs: list[Tensor("a tensor the backward pass differentiates", floating=True)]
    # dL/d(output) to start from; None for a scalar loss
    gradient: Tensor("dL/d(output)", floating=True) | None = None

    def __post_init__(self):
        """Refuse fields of the wrong kind (``CheckedRecord``), and inputs that no gradient
        reaches (autograd would fail inside ``time_passes``)."""
        super().__post_init__()
        if not self.inputs:
            raise ValueError("Pass(): inputs must hold at least one tensor the backward pass "
                             "differentiates, got none (a backward pass of nothing is no pass to "
                             "time); pass the weights the forward pass uses (model.parameters())")
        for i, tensor in enumerate(self.inputs):
            if not tensor.requires_grad:
                raise ValueError(f"Pass(): inputs[{i}] must require a gradient, got a tensor "
                                 "with requires_grad=False; pass the weights the forward pass "
                                 "uses (model.parameters()) or call .requires_grad_() on it")


APass = Record(Pass, "model_step(...)")


def _now() -> float:
    """The clock, read once the GPU (if there is one) has finished the work queued so far."""
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter()


@checked
def time_passes(passes: list[APass] | tuple[APass, ...],
                repeats: Repeats = 5) -> list[Times]:
    """Median seconds of the forward and of the backward pass of each of ``passes``.

    Each pass runs ``repeats`` + 1 times; the first run warms up (memory, kernel choice) and is
    dropped. The passes take turns within every round, so that load from other processes hits
    all of them alike and the ratios between them stay fair.

    The backward pass is ``torch.autograd.grad``: it computes the same gradients as
    ``loss.backward()`` but hands them back instead of adding them to ``.grad``, so nothing
    accumulates from one run to the next and the model is left as it was.
    """
    runs = [[] for _ in passes]
    for _ in range(repeats + 1):
        for step, seconds in zip(passes, runs, strict=True):
            start = _now()
            out = step.forward()
            middle = _now()
            torch.autograd.grad(out, step.inputs, step.gradient, allow_unused=True)
            seconds.append((middle - start, _now() - middle))
    return [Times(*(statistics.median(column) for column in zip(*seconds[1:], strict=True)))
            for seconds in runs]


@checked(reads=("model", "images"))
def model_step(model: Trainable, images: Images, labels: Labels) -> Pass:
    """A training step of any model of the course (a CapsNet, a ``MaxPoolCNN``, ...): forward is
    ``model.training_loss(images, labels)`` (the loss included), backward the loss's gradient
    for every trainable weight; no weight update. The model is put in training mode (dropout
    on), as in training."""
    model.train()
    weights = [p for p in model.parameters() if p.requires_grad]
    return Pass(lambda: model.training_loss(images, labels)[0], weights)


@dataclass(frozen=True)
class StepTimes(CheckedRecord):
    """Seconds for one training batch: the whole model, and routing alone on the same batch."""

    forward: Seconds  # the model's forward pass and its loss
    backward: Seconds  # the backward pass of that loss
    routing_forward: Seconds  # Procedure 1 on the batch's predictions u_hat
    routing_backward: Seconds  # the gradient of the routing's output v back to u_hat
    # no rule between a part and its whole: timed apart, on a busy machine routing alone can
    # measure longer than the step it is part of (format_share says so where it prints them)


@checked(reads=("model", "images"))
def time_training_step(model: CapsNet, images: Images, labels: Labels,
                       repeats: Repeats = 5) -> StepTimes:
    """Time a training step of ``model`` on ``images`` ``[B, C, H, W]`` and ``labels`` ``[B]``
    (``model_step``), and the routing inside it: the model's own ``dynamic_routing`` call, run
    alone on the ``u_hat`` of the same batch, forward and backward. Each time is the median of
    ``repeats`` runs, after one warm-up run (``time_passes``)."""
    whole = model_step(model, images, labels)
    digits = model.digits
    with torch.no_grad():  # the routing's input, exactly as the model computes it
        u_hat = model.votes(images)
    u_hat.requires_grad_()  # [B, n_in, n_out, d_out]
    upstream = torch.randn(u_hat.shape[0], u_hat.shape[2], u_hat.shape[3], device=u_hat.device)
    routing = Pass(lambda: digits.route(u_hat).v, [u_hat], upstream)  # dL/dv: [B, n_out, d_out]
    model_times, routing_times = time_passes([whole, routing], repeats)
    return StepTimes(model_times.forward, model_times.backward, routing_times.forward,
                     routing_times.backward)


@dataclass(frozen=True)
class RoutingShare(CheckedRecord):
    """Routing's part of a CapsNet's forward multiply-adds, and of its measured time."""

    macs: Share  # routing's share of the forward multiply-adds (anatomy)
    forward: TimeShare  # routing's share of the forward time (loss included)
    backward: TimeShare  # routing's share of the backward time
    times: Record(StepTimes)  # the seconds the two time shares come from

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a time share other than routing's
        seconds over the step's in ``times`` (``format_share`` prints both side by side)."""
        super().__post_init__()
        t, fix = self.times, "make it with routing_share(...), or pass the times it comes from"
        for name, part, whole in (("forward", t.routing_forward, t.forward),
                                  ("backward", t.routing_backward, t.backward)):
            check_derived("RoutingShare", fix, **{name: (
                getattr(self, name), part / whole if whole else float("nan"),
                f"times.routing_{name} / times.{name}")})


@checked(reads=("model", "images"))
def routing_share(model: CapsNet, images: Images, labels: Labels,
                  repeats: Repeats = 5) -> RoutingShare:
    """Routing's share of the forward multiply-adds of ``model`` beside its share of the time of
    a training step on ``images`` and ``labels`` (``time_training_step``).

    On a CPU the time share usually comes out far above the multiply-add share (notebook 05
    prints both; measure, do not assume). Why, for learners:

    * A convolution runs as one large matrix product (GEMM, or a kernel blocked like one):
      every weight and input it loads is used in many multiply-adds, so the processor runs
      near its peak arithmetic rate.
    * Routing is a chain of small steps: a softmax over 10 parents, two einsums over d_out = 16
      numbers, a squash, an addition to b; in every iteration. Each step does a few
      multiply-adds per number it reads (low arithmetic intensity), so it waits for memory,
      not for arithmetic.
    * Every iteration reads the whole u_hat, ``batch x n_in x n_out x d_out`` numbers, twice
      (for s_j and for the agreement a_ij), and its backward pass reads it again: about one
      multiply-add per number read, where a convolution reuses every number it loads many
      times.
    * Each step is a separate operator call (a kernel launch on a GPU), with a fixed overhead
      that the little work per call does not hide.
    """
    costs = anatomy(model)
    routing = next(row for row in costs if row.name.startswith(ROUTING_ROW))
    times = time_training_step(model, images, labels, repeats)
    return RoutingShare(macs=routing.macs / sum(row.macs for row in costs),
                        forward=times.routing_forward / times.forward,
                        backward=times.routing_backward / times.backward, times=times)


@checked
def routing_shares(configs: dict[str, CapsNetConfig], images: Images, labels: Labels,
                   repeats: Repeats = 5, seed: Seed = 0) -> dict[str, RoutingShare]:
    """``routing_share`` of a freshly built ``CapsNet`` of each named config (initial weights from
    ``seed``, on the device of ``images`` ``[B, 1, 28, 28]``), on the same batch."""
    shares = {}
    for name, sizes in configs.items():
        torch.manual_seed(seed)
        model = CapsNet(sizes).to(images.device)
        check_input(images, "routing_shares(): images", model)  # in this function's words,
        check_read_labels(labels, "routing_shares(): labels", images, model)  # not the callee's
        shares[name] = routing_share(model, images, labels, repeats)
    return shares


# --- The DigitCaps layer alone: time against its sizes -----------------------------------------


@checked
def digit_caps_pass(n_in: Int("input (child) capsules", ge=1, le=MAX_CAPSULES),
                    d_in: Int("their dimension", ge=1, le=MAX_DIM),
                    n_out: Int("output (parent) capsules", ge=1, le=MAX_CAPSULES),
                    d_out: Int("their dimension", ge=1, le=MAX_DIM),
                    batch: Batch, iterations: Iterations,
                    device: course_settings.Device = "cpu") -> Pass:
    """A training step of a DigitCaps layer alone (``RoutingCapsules``), on ``batch`` random
    squashed input capsules ``u`` ``[batch, n_in, d_in]``:

    * ``iterations >= 1``: the predictions u_hat = W u, then Procedure 1 with that many
      iterations; the output is v ``[batch, n_out, d_out]``.
    * ``iterations = 0``: the predictions u_hat = W u only, no routing at all (not even the
      uniform coupling of ``iterations = 1``); the output is u_hat ``[batch, n_in, n_out,
      d_out]``. It is the part of the layer that routing comes on top of.

    The backward pass computes the gradients for W and for u (in a CapsNet, u comes from
    PrimaryCaps and needs its gradient), from a random dL/d(output).
    """
    if torch.device(device).type == "cpu":
        check_memory(digit_caps_bytes(n_in, d_in, n_out, d_out, batch, iterations),
                     f"a DigitCaps step of batch {batch:,} ({n_in:,} x {n_out:,} capsules)",
                     "use a smaller batch or fewer capsules")
    # W: [n_in, n_out, d_out, d_in]; with iterations = 0 its routing is never called (a layer
    # routes at least once)
    layer = RoutingCapsules(n_in, d_in, n_out, d_out, max(iterations, 1)).to(device)
    # u: [batch, n_in, d_in], capsules of length < 1 as PrimaryCaps makes them
    u = squash(torch.randn(batch, n_in, d_in, device=device)).requires_grad_()
    if iterations == 0:
        # u_hat_j|i = W_ij u_i; dL/du_hat: [batch, n_in, n_out, d_out]
        return Pass(lambda: layer.votes(u), [layer.W, u],
                    torch.randn(batch, n_in, n_out, d_out, device=device))
    # v = routing(W u); dL/dv: [batch, n_out, d_out]
    return Pass(lambda: layer(u).v, [layer.W, u], torch.randn(batch, n_out, d_out, device=device))


@checked
def digit_caps_bytes(n_in: Int("input (child) capsules", ge=1, le=MAX_CAPSULES),
                     d_in: Int("their dimension", ge=1, le=MAX_DIM),
                     n_out: Int("output (parent) capsules", ge=1, le=MAX_CAPSULES),
                     d_out: Int("their dimension", ge=1, le=MAX_DIM),
                     batch: Batch, iterations: Iterations) -> int:
    """About the memory of ``digit_caps_pass``'s step, float32, temporaries counted: W and its
    gradient, u and its gradient, three u_hat-sized tensors (u_hat, its gradient, and dL/du_hat
    or what routing saves) and three ``[batch, n_in, n_out]`` per iteration (b, c, a)."""
    u_hat = batch * n_in * n_out * d_out
    return 4 * (2 * n_in * n_out * d_out * d_in + 2 * batch * n_in * d_in + 3 * u_hat
                + 3 * iterations * batch * n_in * n_out)


@checked
def time_digit_caps(n_in: Int("input (child) capsules", ge=1, le=MAX_CAPSULES),
                    d_in: Int("their dimension", ge=1, le=MAX_DIM),
                    n_out: Int("output (parent) capsules", ge=1, le=MAX_CAPSULES),
                    d_out: Int("their dimension", ge=1, le=MAX_DIM),
                    batch: Batch, iterations: Iterations, repeats: Repeats = 5,
                    device: course_settings.Device = "cpu") -> Times:
    """Median seconds (forward, backward) of a DigitCaps layer's training step, after one
    warm-up run; ``iterations = 0`` times the predictions u_hat = W u alone, with no routing
    (``digit_caps_pass``)."""
    return time_passes([digit_caps_pass(n_in, d_in, n_out, d_out, batch, iterations, device)],
                       repeats)[0]


@dataclass(frozen=True)
class RoutingCost(CheckedRecord):
    """One row of ``routing_sweep``: a DigitCaps layer's training step on one batch."""

    n_in: Int("primary capsules (children i)", ge=1)
    n_out: Int("digit capsules (parents j)", ge=1)
    d_out: Int("the digit capsules' dimension", ge=1)
    iterations: Iterations  # 0: u_hat = W u only
    size: Int("n_in * n_out * d_out: the numbers in one example's u_hat", ge=1)
    # u_hat of the whole batch ([batch, n_in, n_out, d_out], float32)
    u_hat_bytes: Int("bytes of the batch's u_hat", ge=0)
    forward: Seconds
    backward: Seconds

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a size other than the sizes'
        product."""
        super().__post_init__()
        check_same("RoutingCost", "numbers (size = n_in * n_out * d_out)", "pass their product",
                   size=self.size, n_in_n_out_d_out=self.n_in * self.n_out * self.d_out)


@checked
def routing_sweep(configs: tuple[CapsNetConfig, ...] | list[CapsNetConfig]
                  = (LIVE, AFFNIST, MULTIMNIST, PAPER),
                  iterations: tuple[Iterations, ...] | list[Iterations] = (0, 1, 3, 5),
                  batch: Batch = 32, repeats: Repeats = 3,
                  device: course_settings.Device = "cpu") -> list[RoutingCost]:
    """Time the DigitCaps layer of each of ``configs`` with each number of ``iterations``: one
    ``RoutingCost`` row per (config, iterations), in that order.

    The default configs are the course's CapsNets, whose PrimaryCaps grids give n_in = 288
    (LIVE and SMALL, 6x6x8), 512 (AFFNIST, 8x8x8), 800 (MULTIMNIST, 10x10x8) and 1152 (the
    paper, 6x6x32) children, each routed to 10 parents of 16D. Only the configs' sizes are
    read: every layer routes as the paper does. All the layers are timed in the same rounds
    (``time_passes``), so background load hits them alike.

    More iterations cost time, and do not buy accuracy without end: Hinton, Sabour & Frosst
    ("Matrix capsules with EM routing", ICLR 2018) report smallNORB test errors of 9.7, 2.2,
    1.8 and 3.9 % with 1, 2, 3 and 5 iterations of EM routing (quoted from issue 14, to verify
    against the paper's table).
    """
    if not configs:
        raise ValueError("routing_sweep(): configs must name at least one CapsNetConfig, got "
                         "none; pass e.g. (LIVE, PAPER), or leave configs out for the course's")
    cells = [(cfg, r) for cfg in configs for r in iterations]
    if torch.device(device).type == "cpu":  # every layer is made before the first is timed
        check_memory(sum(digit_caps_bytes(cfg.n_primary, cfg.primary_dim, cfg.n_classes,
                                          cfg.digit_dim, batch, r) for cfg, r in cells),
                     f"a sweep of {len(cells)} DigitCaps steps of batch {batch:,}",
                     "use a smaller batch, or fewer configs or iterations")
    passes = [digit_caps_pass(cfg.n_primary, cfg.primary_dim, cfg.n_classes, cfg.digit_dim,
                              batch, r, device) for cfg, r in cells]
    rows = []
    for (cfg, r), t in zip(cells, time_passes(passes, repeats), strict=True):
        size = cfg.n_primary * cfg.n_classes * cfg.digit_dim  # one example's u_hat
        rows.append(RoutingCost(cfg.n_primary, cfg.n_classes, cfg.digit_dim, r, size,
                                batch * size * torch.float32.itemsize, t.forward, t.backward))
    return rows


@checked
def iteration_cost(rows: list[Record(RoutingCost, "routing_sweep(...)")]) -> dict[int, float]:
    """For each n_in of ``routing_sweep``'s rows, what one routing iteration adds to a training
    step (forward + backward), on average up to the most iterations swept, in multiples of the
    step with 0 iterations (the predictions u_hat = W u alone): n_in -> ratio."""
    ratios = {}
    for n_in in sorted({row.n_in for row in rows}):
        # iterations -> seconds of a training step (forward + backward)
        step_time = {row.iterations: row.forward + row.backward
                     for row in rows if row.n_in == n_in}
        if 0 not in step_time or len(step_time) < 2:
            raise ValueError(f"iteration_cost(): rows must hold 0 and more iterations for n_in "
                             f"{n_in}, got iterations {sorted(step_time)}; pass the rows of a "
                             "routing_sweep whose iterations include 0, e.g. (0, 1, 3)")
        most = max(step_time)
        added = (step_time[most] - step_time[0]) / most  # what one iteration adds, on average
        ratios[n_in] = added / step_time[0]
    return ratios


# --- Memory: what routing keeps for the backward pass -----------------------------------------


@dataclass(frozen=True)
class RoutingMemory(CheckedRecord):
    """Bytes that the DigitCaps routing of one batch keeps alive for the backward pass."""

    u_hat: Bytes  # the predictions [batch, n_in, n_out, d_out], made once by W u
    couplings: Bytes  # one c [batch, n_in, n_out] per differentiated iteration
    capsules: Bytes  # per differentiated iteration: 3 x [batch, n_out, d_out] + 4 x [batch, n_out]


@checked
def routing_memory(sizes: CapsNetConfig, batch: Batch,
                   dtype: course_settings.FloatDtype = torch.float32) -> RoutingMemory:
    """The memory that ``dynamic_routing`` makes autograd keep for one batch of ``batch``
    examples of a CapsNet of config ``sizes`` (its sizes and ``iterations``), in bytes of ``dtype``.

    Autograd saves, in the forward pass, what each step's gradient will need. One iteration of
    ``routing_step``, with b, c, a: ``[batch, n_in, n_out]`` and s, v: ``[batch, n_out,
    d_out]``:

    * c = softmax(b) saves its output c (new memory: one ``[batch, n_in, n_out]``);
    * s_j = sum_i c_ij u_hat_j|i saves c and u_hat, as references (no copy);
    * v = squash(s) saves s, q = ||s||^2, 1 + q, q / (1 + q), (q / (1 + q)) s and
      sqrt(q + eps): two ``[batch, n_out, d_out]`` and four ``[batch, n_out, 1]``;
    * a_ij = u_hat_j|i . v_j saves u_hat (a reference again) and v, a third
      ``[batch, n_out, d_out]``; b + a saves nothing.

    In the first iteration b = 0 needs no gradient, so the softmax saves nothing, but s still
    saves that uniform c (u_hat's gradient needs it): one c per iteration all the same. u_hat
    is saved 2 x iterations - 1 times and never copied: it costs its own size once, but stays
    alive until the backward pass has run. So r iterations add r / d_out of u_hat in couplings
    (3/16 for the paper) and a little for the capsules. With ``grad_through_routing=False``
    only the last iteration is differentiated: it keeps one c, one set of capsules, and saves
    u_hat once.

    The derivation holds for the paper's routing (``capsedu.routing``).
    ``tests/test_costs.py`` checks it against the tensors autograd really saves.
    """
    n_in, n_out, d_out = sizes.n_primary, sizes.n_classes, sizes.digit_dim
    differentiated = sizes.iterations if sizes.grad_through_routing else 1
    return RoutingMemory(
        # u_hat: [batch, n_in, n_out, d_out]
        u_hat=batch * n_in * n_out * d_out * dtype.itemsize,
        # c: [batch, n_in, n_out] per iteration
        couplings=differentiated * batch * n_in * n_out * dtype.itemsize,
        # s, (q / (1 + q)) s, v: [batch, n_out, d_out]; q, 1 + q, q / (1 + q), sqrt(q + eps):
        # [batch, n_out, 1]; per iteration
        capsules=differentiated * (3 * batch * n_out * d_out + 4 * batch * n_out) * dtype.itemsize,
    )


# --- Routing's cost on a GPU, recorded ------------------------------------------------------------

GPU_RECORD = "routing_cost_gpu.json"  # in <data root>/results: benchmarks/routing_cost.py --json


@dataclass(frozen=True)
class RecordedCost(CheckedRecord):
    """A run of ``benchmarks/routing_cost.py --json`` on another machine than the learner's: what
    08's parameter-matched pair costs per training step there, and routing's shares."""

    device: Text  # the accelerator's name, or "cpu"
    date: Text
    command: Text
    batch: Batch
    capsnet_step: StepSeconds  # forward + backward, CapsNet(AFFNIST)
    cnn_step: StepSeconds  # the same for MaxPoolCNN(); the ratio of the two is reported
    macs: Share  # routing's share of CapsNet(AFFNIST)'s forward multiply-adds
    forward: TimeShare  # routing's share of the forward time
    backward: TimeShare  # and of the backward time


COST_KEYS = ("command", "date", "device", "batch", "capsnet_step", "cnn_step", "routing_share")


def _cost_record(path: Path) -> dict:
    """The record of ``benchmarks/routing_cost.py --json`` at ``path``; another file (not JSON,
    or an experiment's results file, its runs by name) refused naming it and what it is."""
    try:
        run = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        run = f"not JSON ({type(err).__name__})"
    lacks = [key for key in COST_KEYS if key not in run] if isinstance(run, dict) else COST_KEYS
    if lacks:
        what = run if isinstance(run, str) else f"a file without {', '.join(lacks)}"
        if isinstance(run, dict) and isinstance(run.get("runs"), dict):
            what = (f"an experiment's results file, its runs by name "
                    f"({', '.join(list(run['runs'])[:3])}, ...), not a cost record")
        raise ValueError(f"recorded_cost(): file must be a record of python "
                         f"benchmarks/routing_cost.py --json (its {', '.join(COST_KEYS)}), got "
                         f"{path.name!r}, {what}; pass e.g. {GPU_RECORD!r}")
    return run


@checked
def recorded_cost(file: str | Path = GPU_RECORD) -> RecordedCost:
    """The shipped record ``file`` of ``benchmarks/routing_cost.py --json`` (the GPU's, by
    default), from ``<data root>/results``."""
    if Path(file).name != str(file) or str(file) in ("", ".", ".."):
        raise ValueError(f"recorded_cost(): file must be the name of a record in <data "
                         f"root>/results (no folder, no '..'), got {str(file)!r}; pass e.g. "
                         f"{GPU_RECORD!r}")
    path = course_settings.data_root() / "results" / file
    if not path.exists() and str(file) == GPU_RECORD:  # the shipped record, deleted
        raise FileNotFoundError(f"{path} is missing: restore it (git checkout -- {path}) or record "
                                "it with python benchmarks/routing_cost.py --json FILE")
    if not path.exists():
        kept = sorted(p.name for p in path.parent.glob("routing_cost*.json"))
        raise FileNotFoundError(f"recorded_cost(): file must name a record in {path.parent}, got "
                                f"{str(file)!r}, which is none; the records there: "
                                f"{', '.join(kept) or 'none'} (record one with python "
                                "benchmarks/routing_cost.py --json FILE)")
    run = _cost_record(path)
    share = run["routing_share"]
    return RecordedCost(run["device"], run["date"], run["command"], run["batch"],
                        sum(run["capsnet_step"].values()), sum(run["cnn_step"].values()),
                        share["macs"], share["forward"], share["backward"])

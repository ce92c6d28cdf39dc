"""Throughput of the paper CapsNet: capsedu's vectorised DigitCaps vs. a naive reference.

    python benchmarks/routing.py [--batch 128] [--repeats N] [--threads T] [--quick]

Both models are the paper's ``CapsNet()`` (Conv1 256@9x9 -> 1152 8D PrimaryCaps -> 10 16D
DigitCaps, 3 routing iterations, decoder) with the *same weights*; only the DigitCaps layer
differs. The naive one expands W over the batch and matmuls (u_hat materialises B copies of W),
then routes with Python loops over the iterations *and* over the output capsules j, the whole
batch at once; capsedu's computes the votes in one einsum and routes them in pieces of the batch
(``layers.PIECE_BYTES``, reused memory instead of fresh pages: see its comment). Before
timing, the script asserts that both give the same capsule lengths and the same loss gradient on
W, so both sides do the same work.

Measured, in the same run, for each model (images/second, higher is better):
  forward     model(x) in eval mode under torch.no_grad()
  train step  zero_grad + training_loss(x, y) + backward + Adam step
Each number is the median over ``--repeats`` timings (time.perf_counter, after warm-up, the two
models interleaved so that background load hits both alike). "ratio" = vectorised / naive: how
many times faster capsedu is. Beside the times, the median minor page faults per call: memory
the OS maps afresh (about a microsecond per 4 KiB page), a large share of the naive side's cost
and of the variation between runs. Conv1 and PrimaryCaps (a 256->256 9x9 conv) are identical on both
sides and dominate the cost, so the ratio says how much the DigitCaps layer matters end to end.
"""

import argparse
import copy
import os
import platform
import statistics
import time

import torch
from torch import nn

from capsedu.capsnet import CapsNet
from capsedu.costs import anatomy
from capsedu.functional import squash
from capsedu.recipes import RECIPES
from capsedu.routing import RoutingResult, RoutingStep

try:
    import resource  # page faults (Unix)
except ImportError:  # Windows
    resource = None

TARGET = 2.6  # required train-step speed-up of the vectorised path on CPU
# a training step is timed at the batch size the course trains with
TRAIN_BATCH = RECIPES["capsnet-mnist"].batch_size


class NaiveRoutingCapsules(nn.Module):
    """DigitCaps the textbook way: W broadcast over the batch, loops over iterations and j."""

    def __init__(self, W: torch.Tensor, iterations: int):
        super().__init__()
        self.W = nn.Parameter(W.detach().clone())  # [n_in, n_out, d_out, d_in]
        self.iterations = iterations

    def votes(self, u: torch.Tensor) -> torch.Tensor:
        """u_hat_j|i = W_ij u_i for ``u`` ``[B, n_in, d_in]``: ``[B, n_in, n_out, d_out]``."""
        B = u.shape[0]
        n_in, n_out, d_out, d_in = self.W.shape
        # W_ij for every example: [B, n_in, n_out, d_out, d_in]; matmul copies it B times
        W = self.W.unsqueeze(0).expand(B, n_in, n_out, d_out, d_in)
        # u_hat_j|i = W_ij u_i:  [B, n_in, n_out, d_out, d_in] @ [B, n_in, 1, d_in, 1]
        return (W @ u[:, :, None, :, None]).squeeze(-1)

    def route(self, u_hat: torch.Tensor) -> RoutingResult:
        """Procedure 1 with Python loops over the iterations and the parents j."""
        B, n_in, n_out, _ = u_hat.shape
        b = u_hat.new_zeros(B, n_in, n_out)  # b_ij = 0
        history = []
        for _ in range(self.iterations):
            # c_i = softmax(b_i) over the parents j: each child splits one unit of vote
            c = torch.softmax(b, dim=2)  # [B, n_in, n_out]
            vs, agreements = [], []
            for j in range(n_out):
                u_j = u_hat[:, :, j, :]  # u_hat_j|i for all i: [B, n_in, d_out]
                c_j = c[:, :, j].unsqueeze(-1)  # c_ij: [B, n_in, 1]
                s_j = (c_j * u_j).sum(dim=1)  # s_j = sum_i c_ij u_hat_j|i: [B, d_out]
                v_j = squash(s_j)  # v_j = squash(s_j): [B, d_out]
                vs.append(v_j)
                # a_ij = u_hat_j|i . v_j: [B, n_in]
                agreements.append((u_j * v_j.unsqueeze(1)).sum(dim=-1))
            v = torch.stack(vs, dim=1)  # [B, n_out, d_out]
            b = b + torch.stack(agreements, dim=2)  # b_ij <- b_ij + a_ij
            history.append(RoutingStep(c, v))
        return RoutingResult(v=v, c=c, b=b, history=history)

def naive_copy(model: CapsNet) -> CapsNet:
    """The same network with the same weights, its DigitCaps replaced by the naive layer."""
    assert model.config.grad_through_routing, "the naive layer routes with gradients throughout"
    naive = copy.deepcopy(model)
    naive.digits = NaiveRoutingCapsules(model.digits.W, model.config.iterations)
    return naive


def check_same(vec: CapsNet, naive: CapsNet, device) -> None:
    """Both models must compute the same lengths and the same dLoss/dW (equal work)."""
    x = torch.rand(4, 1, 28, 28, device=device)
    y = torch.tensor([0, 3, 7, 9], device=device)
    vec.eval(), naive.eval()
    with torch.no_grad():
        la, lb = vec(x).lengths, naive(x).lengths
    assert torch.allclose(la, lb, atol=1e-5), f"lengths differ by {(la - lb).abs().max():.2e}"
    grads = []
    for m in (vec, naive):
        m.train()
        m.zero_grad()
        m.training_loss(x, y)[0].backward()
        grads.append(m.digits.W.grad.clone())
        m.zero_grad()
    ga, gb = grads
    err = ((ga - gb).norm() / ga.norm()).item()
    assert err < 1e-4, f"dLoss/dW differs: relative error {err:.2e}"
    print(f"check: lengths max |diff| {(la - lb).abs().max():.1e}, dLoss/dW rel. error {err:.1e}")


def sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def make_steps(model: CapsNet, x, y):
    """Return (forward, train_step) closures for one model, each with its own Adam."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def forward():
        model.eval()
        with torch.no_grad():
            model(x)

    def train_step():
        model.train()
        opt.zero_grad(set_to_none=True)
        loss, _ = model.training_loss(x, y)
        loss.backward()
        opt.step()

    return forward, train_step


def page_faults() -> int:
    """Minor page faults of this process so far (0 where the OS does not count them)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0


def bench(fns: dict, warmup: int, repeats: int, device) -> tuple[dict, dict]:
    """Median seconds per call of each fn, and median minor page faults per call (memory the
    OS hands over afresh: each costs about a microsecond); the fns are interleaved in every
    round."""
    times = {name: [] for name in fns}
    faults = {name: [] for name in fns}
    for r in range(warmup + repeats):
        for name, fn in fns.items():
            sync(device)
            before, t0 = page_faults(), time.perf_counter()
            fn()
            sync(device)
            if r >= warmup:
                times[name].append(time.perf_counter() - t0)
                faults[name].append(page_faults() - before)
    median = statistics.median
    return ({name: median(ts) for name, ts in times.items()},
            {name: median(fs) for name, fs in faults.items()})


def machine(device) -> str:
    """One line: torch version, device name, threads and the load other processes put on it."""
    if device.type == "cuda":
        name = torch.cuda.get_device_name()
    else:
        name = platform.processor() or platform.machine()
        try:
            with open("/proc/cpuinfo") as f:
                name = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
        except (OSError, StopIteration):
            pass
    load = f" | load avg {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"torch {torch.__version__} | {device.type}: {name} | {os.cpu_count()} cores, "
        f"torch threads {torch.get_num_threads()}{load}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=None,
                   help=f"images per step (default {TRAIN_BATCH}, the training recipes' batch)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds (default 9)")
    p.add_argument("--warmup", type=int, default=None, help="untimed rounds (default 2)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all)")
    p.add_argument("--quick", action="store_true", help="batch 16, 3 repeats: about 30 s")
    args = p.parse_args()
    batch = args.batch or (16 if args.quick else TRAIN_BATCH)
    repeats = args.repeats or (3 if args.quick else 9)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 2)

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(machine(device))
    print(f"batch {batch}, warm-up {warmup}, median of {repeats} interleaved rounds")

    vec = CapsNet().to(device)
    naive = naive_copy(vec)
    check_same(vec, naive, device)

    x = torch.rand(batch, 1, 28, 28, device=device)
    y = torch.randint(0, 10, (batch,), device=device)
    fns = {}
    for label, model in (("vectorised", vec), ("naive", naive)):
        fns[label, "forward"], fns[label, "train"] = make_steps(model, x, y)
    t, faults = bench(fns, warmup, repeats, device)
    ips = {key: batch / sec for key, sec in t.items()}

    print(f"\n{'images/s':<12}{'forward':>10}{'train step':>12}")
    for label in ("vectorised", "naive"):
        print(f"{label:<12}{ips[label, 'forward']:>10.1f}{ips[label, 'train']:>12.1f}")
    ratio_f = ips["vectorised", "forward"] / ips["naive", "forward"]
    ratio_t = ips["vectorised", "train"] / ips["naive", "train"]
    print(f"{'ratio':<12}{ratio_f:>9.2f}x{ratio_t:>11.2f}x")
    if resource:
        print(f"\n{'page faults':<12}{'forward':>10}{'train step':>12}   (median per call)")
        for label in ("vectorised", "naive"):
            print(f"{label:<12}{faults[label, 'forward']:>10,.0f}{faults[label, 'train']:>12,.0f}")
    verdict = "meets" if ratio_t >= TARGET else "is BELOW"
    print(f"\ntrain-step speed-up {ratio_t:.2f}x {verdict} the {TARGET}x target")
    roofline(vec, ips, device)


def roofline(model, ips, device):
    """Achieved GFLOP/s of the vectorised model against a large matmul timed in the same run.

    FLOPs per image come from ``capsedu.anatomy`` (2 per multiply-add); a training step is
    counted as 3x the forward pass (forward, and the two products of the backward pass).
    """
    flops = 2 * sum(layer.macs for layer in anatomy(model))  # forward, per image
    n = 2048
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    t = bench({"matmul": lambda: a @ b}, warmup=1, repeats=5, device=device)[0]["matmul"]
    peak = 2 * n**3 / t / 1e9
    print(f"\nroofline: {n}x{n} matmul {peak:.1f} GFLOP/s on this device, same run")
    for step, factor in (("forward", 1), ("train", 3)):
        achieved = factor * flops * ips["vectorised", step] / 1e9
        print(f"vectorised {step:<8} {achieved:6.1f} GFLOP/s = {100 * achieved / peak:4.0f} % "
              f"of the matmul roofline")


if __name__ == "__main__":
    main()

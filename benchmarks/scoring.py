"""How the batch size of ``capsedu.loop.predict`` changes the time to score images on a CPU.

    python benchmarks/scoring.py [--images 2000] [--repeats 3] [--threads T]

A CapsNet's predictions u_hat grow with the batch (B x n_in x 10 x 16 floats: 168 MB for a batch
of 512 on notebook 08's network). Allocating and freeing tensors that large costs page faults
(system time) on every batch, which small batches avoid. The script scores the same images with
``CapsNet(AFFNIST)`` and ``MaxPoolCNN()`` (notebook 08's pair, untrained: the weights do not
change the time) at several batch sizes, in interleaved rounds, and prints each time as a ratio
to batch 64 measured in the same rounds, with its user and system CPU seconds. ``predict``'s
default, ``loop.SCORING_BATCH`` (32), is chosen for the memory a kernel keeps as much as for
time (its comment says what was measured).
"""

import argparse
import resource
import statistics
import time

import torch
from routing import machine  # benchmarks/routing.py

from capsedu import CapsNet
from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import AFFNIST
from capsedu.loop import predict

BATCHES = (512, 128, 64, 32)
REFERENCE = 64


def cpu_seconds() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all)")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(machine(torch.device("cpu")))
    torch.manual_seed(0)
    images = torch.rand(args.images, 1, 40, 40)
    for name, model in (("CapsNet(AFFNIST)", CapsNet(AFFNIST)), ("MaxPoolCNN()", MaxPoolCNN())):
        wall = {b: [] for b in BATCHES}
        user = {b: [] for b in BATCHES}
        system = {b: [] for b in BATCHES}
        for _ in range(args.repeats):  # interleaved: background load hits every batch size alike
            for batch in BATCHES:
                (u0, s0), t0 = cpu_seconds(), time.perf_counter()
                predict(model, images, batch_size=batch)
                (u1, s1), t1 = cpu_seconds(), time.perf_counter()
                wall[batch].append(t1 - t0)
                user[batch].append(u1 - u0)
                system[batch].append(s1 - s0)
        reference = statistics.median(wall[REFERENCE])
        print(f"\n{name}, {args.images} images, median of {args.repeats} rounds")
        print(f"{'batch':>6} {'wall s':>8} {'/ batch 64':>11} {'user s':>8} {'system s':>9}")
        for batch in BATCHES:
            t, u, s = (statistics.median(times[batch]) for times in (wall, user, system))
            print(f"{batch:>6} {t:>8.2f} {t / reference:>11.2f} {u:>8.2f} {s:>9.2f}")


if __name__ == "__main__":
    main()

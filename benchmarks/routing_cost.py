"""What routing costs: a DigitCaps training step against its sizes and routing iterations, and a
CapsNet's training step against a max-pool CNN with as many parameters.

    python benchmarks/routing_cost.py [--batch 128] [--repeats N] [--threads T] [--quick]
                                      [--json FILE]

Every ratio is taken against a reference measured in the same run, in the same interleaved
rounds (``capsedu.routing_costs.time_passes``), so that background load hits both sides alike:

  step / W u      a DigitCaps step with r iterations (forward + backward) over the step that only
                  computes the predictions u_hat = W u (r = 0), same sizes and batch
  iteration / W u what one routing iteration adds, (t_r - t_0) / r, over t_0
  CapsNet / CNN   the training step (loss, forward + backward) of notebook 08's parameter-matched
                  pair: CapsNet(AFFNIST) over MaxPoolCNN(), on the same batch of 40x40 images

The DigitCaps sizes are the course's CapsNets: n_in = 288 (LIVE, SMALL), 512 (AFFNIST), 800
(MULTIMNIST), 1152 (the paper), each routed to 10 capsules of 16D. The script also prints u_hat's
memory (``routing_memory``) and routing's share of the CapsNet's multiply-adds beside its share
of the time (``routing_share``). Seconds are printed for context only; on a busy machine (see
the load average) re-run, or use ``--threads 1``. ``--json FILE`` also records the run (its
command, machine, date and every time) for a notebook to quote:
``data/results/routing_cost_gpu.json`` is one, measured on a GPU, which 09 and 10 quote.
"""

import argparse
import datetime
import json
import sys

import torch
from routing import TRAIN_BATCH, machine  # benchmarks/routing.py

from capsedu import CapsNet, count_parameters
from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import AFFNIST
from capsedu.routing_costs import model_step, routing_share, routing_sweep, time_passes


def digit_caps_table(batch: int, repeats: int, device) -> list:
    """The sweep, one line per (n_in, iterations), with its ratios to the W u step: its rows."""
    rows = routing_sweep(iterations=(0, 1, 3, 5), batch=batch, repeats=repeats, device=device)
    print(f"\nDigitCaps alone, batch {batch}: 10 parents of 16D; r = 0 is u_hat = W u only")
    print(f"{'n_in':>5} {'n_in*n_out*d':>12} {'u_hat MB':>9} {'r':>2} {'fwd ms':>8} "
          f"{'bwd ms':>8} {'step / W u':>11} {'iteration / W u':>16}")
    for row in rows:
        base = next(b for b in rows if b.n_in == row.n_in and b.iterations == 0)
        step, base_step = row.forward + row.backward, base.forward + base.backward
        # one iteration's share: (t_r - t_0) / r, in units of t_0
        per_iteration = (f"{(step - base_step) / row.iterations / base_step:.2f}x"
                         if row.iterations else "-")
        print(f"{row.n_in:>5} {row.size:>12,} {row.u_hat_bytes / 1e6:>9.1f} {row.iterations:>2} "
              f"{1000 * row.forward:>8.1f} {1000 * row.backward:>8.1f} {step / base_step:>10.2f}x "
              f"{per_iteration:>16}")
    return rows


def capsnet_vs_cnn(batch: int, repeats: int, device) -> dict:
    """Notebook 08's pair, one training step each, interleaved; then routing's shares: the
    times (seconds) and shares, for the record."""
    torch.manual_seed(0)
    capsnet, cnn = CapsNet(AFFNIST).to(device), MaxPoolCNN().to(device)
    images = torch.rand(batch, 1, 40, 40, device=device)
    labels = torch.randint(0, 10, (batch,), device=device)
    caps, pool = time_passes([model_step(capsnet, images, labels),
                              model_step(cnn, images, labels)], repeats)
    print(f"\ntraining step, batch {batch} of 40x40 images (loss, forward + backward)")
    for name, model, t in (("CapsNet(AFFNIST)", capsnet, caps), ("MaxPoolCNN()", cnn, pool)):
        print(f"{name:<17} {count_parameters(model):>10,} parameters  "
              f"forward {1000 * t.forward:8.1f} ms  backward {1000 * t.backward:8.1f} ms")
    print(f"CapsNet / CNN: forward {caps.forward / pool.forward:.2f}x, "
          f"backward {caps.backward / pool.backward:.2f}x, "
          f"step {sum(caps) / sum(pool):.2f}x")
    share = routing_share(capsnet, images, labels, repeats)
    print(f"routing in CapsNet(AFFNIST): {100 * share.macs:.1f} % of the forward multiply-adds, "
          f"{100 * share.forward:.0f} % of the forward time, "
          f"{100 * share.backward:.0f} % of the backward time")
    return {"capsnet_step": caps._asdict(), "cnn_step": pool._asdict(),
            "routing_share": {"macs": share.macs, "forward": share.forward,
                              "backward": share.backward}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=None,
                   help=f"examples per step (default {TRAIN_BATCH}, the training recipes' batch)")
    p.add_argument("--repeats", type=int, default=None, help="timed rounds (default 7)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all)")
    p.add_argument("--quick", action="store_true", help="batch 8, 2 repeats: a smoke run")
    p.add_argument("--json", metavar="FILE", help="also record the run in FILE (JSON)")
    args = p.parse_args()
    batch = args.batch or (8 if args.quick else TRAIN_BATCH)
    repeats = args.repeats or (2 if args.quick else 7)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(machine(device))
    print(f"median of {repeats} interleaved rounds, after one warm-up round")
    rows = digit_caps_table(batch, repeats, device)
    pair = capsnet_vs_cnn(batch, repeats, device)
    if args.json:
        record = {"command": " ".join(["python benchmarks/routing_cost.py", *sys.argv[1:]]),
                  "machine": machine(device), "date": datetime.date.today().isoformat(),
                  "device": (torch.cuda.get_device_name() if device.type == "cuda" else "cpu"),
                  "batch": batch, "repeats": repeats,
                  "digit_caps": [row._asdict() for row in rows], **pair}
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()

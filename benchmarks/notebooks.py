"""Each notebook run top to bottom in a fresh kernel: its wall time and its kernel's peak memory.

    python benchmarks/notebooks.py [NOTEBOOK ...] [--quick] [--json PATH] [--note TEXT]

Runs every ``notebooks/NN_*.ipynb`` (or the ones named) with nbclient, in a new ``python3`` kernel
of this environment, from the ``notebooks/`` folder, as a learner's "Run All" would. The notebooks
read their mode from ``CAPSEDU_QUICK``: unset here (default mode, what learners get) unless
``--quick``. The executed notebook stays in memory; nothing on disk changes.

For each notebook it measures

  seconds   wall time of the whole run: kernel start, every cell, kernel shutdown
  VmHWM     the kernel process's own peak resident memory, kept by Linux (/proc/PID/status);
            it only grows, so its last reading, at most 0.1 s before the kernel exits, is the
            peak of the kernel's whole life (its start, every cell, its shutdown)
  sampled   the largest resident memory of the kernel and all its child processes together
            (psutil), the fallback where there is no VmHWM and the only figure that sees child
            processes
  peak      the larger of the two

A kernel that only imports what every notebook imports (torch, matplotlib, ipywidgets, capsedu)
is measured the same way first (``imports_mb`` in the results): what is left of a notebook's peak
is the notebook's own. Much of that floor is the torch build: a CUDA build imports far more than
a CPU-only one (Binder's and the course's conda environments), so compare notebooks above it.

It checks them against the course's limits: at most 1 GB (10^9 bytes) and 120 s per notebook,
on 2 idle cores. Machines differ in speed, and so does one virtual machine from day to day: before
the first notebook and after the last it times a fixed workload (``reference_seconds``: training
steps of notebook 05's live CapsNet on one batch, the median of three rounds), so that two runs'
times can be compared as ratios to it. ``--json`` writes the results with how they were measured
(date, command, cores, load average at start and end, torch threads, mode, the reference), after
every notebook, so a run cut short keeps what it measured. A load average near or above the
core count means other processes shared the cores and the times are slower than on an idle
machine: say so with ``--note``.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import psutil
import torch
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, DeadKernelError

from capsedu.capsnet import LIVE, CapsNet

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LIMIT_BYTES = 10**9  # 1 GB
LIMIT_SECONDS = 120
SAMPLE_EVERY = 0.1  # seconds between psutil samples
CELL_TIMEOUT = 1800  # seconds; a cell that takes longer is reported as an error


def vmhwm(pid: int) -> int | None:
    """The process's peak resident memory in bytes (``VmHWM``), or None where Linux's /proc
    does not give it."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # the value is in kB
    except OSError:
        pass
    return None


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of a process and all its children, now."""
    total = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:  # a child that ended between the listing and the reading
            pass
    return total


class KernelWatch(threading.Thread):
    """A thread that reads, every ``SAMPLE_EVERY`` seconds until the kernel exits or ``stop``,
    the kernel's VmHWM and the resident memory of the kernel and its children."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.process = pid, psutil.Process(pid)
        self.sampled, self.hwm = 0, None
        self.done = threading.Event()

    def run(self) -> None:
        while True:
            try:
                self.sampled = max(self.sampled, tree_rss(self.process))
                self.hwm = vmhwm(self.pid) or self.hwm
            except psutil.NoSuchProcess:  # the kernel has exited
                return
            if self.done.wait(SAMPLE_EVERY):
                return

    def stop(self) -> None:
        self.done.set()
        self.join()


def run_notebook(path: Path, quick: bool) -> dict:
    """Run one notebook top to bottom in a fresh kernel; its seconds and peaks (MB = 10^6 bytes)."""
    env = {k: v for k, v in os.environ.items() if k != "CAPSEDU_QUICK"}
    if quick:
        env["CAPSEDU_QUICK"] = "1"
    client = NotebookClient(nbformat.read(path, as_version=4), kernel_name="python3",
                            timeout=CELL_TIMEOUT,
                            resources={"metadata": {"path": str(path.parent)}})  # its cwd
    watch = None

    def started(**_) -> None:
        nonlocal watch
        watch = KernelWatch(client.km.provisioner.pid)
        watch.start()

    client.on_notebook_start = started
    load, error = os.getloadavg()[0], None
    start = time.perf_counter()
    try:
        client.execute(env=env)
    except (CellExecutionError, DeadKernelError, TimeoutError) as e:
        error = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
    seconds = time.perf_counter() - start
    if watch is not None:
        watch.stop()
    hwm = watch.hwm if watch else None
    sampled = watch.sampled if watch else 0
    result = {"notebook": path.stem, "mode": "quick" if quick else "default",
              "seconds": round(seconds, 1), "peak_mb": round(max(hwm or 0, sampled) / 1e6),
              "vmhwm_mb": None if hwm is None else round(hwm / 1e6),
              "sampled_mb": round(sampled / 1e6), "load_at_start": round(load, 2), "error": error}
    result["within_limits"] = verdict(result) == "yes"
    return result


IMPORTS = "import capsedu\nimport ipywidgets\nimport matplotlib.pyplot\nimport torch"


def imports_peak() -> int:
    """The peak (MB) of a kernel that only imports what every notebook imports: the floor under
    every notebook's figure."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "imports.ipynb"
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(IMPORTS)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, path)
        result = run_notebook(path, quick=False)
    if result["error"]:
        raise RuntimeError(f"the imports alone failed: {result['error']}")
    return result["peak_mb"]


def reference_seconds(steps: int = 5, rounds: int = 3) -> float:
    """Median seconds, over ``rounds``, of ``steps`` Adam steps of notebook 05's live CapsNet
    (``capsnet.LIVE``) on one fixed batch of 64 random 28x28 images, in this process (the
    torch threads of the run): the machine's speed at the moment, the unit of a time ratio."""
    torch.manual_seed(0)
    model = CapsNet(LIVE)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    images, labels = torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,))
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(steps):
            optimiser.zero_grad()
            model.training_loss(images, labels)[0].backward()
            optimiser.step()
        times.append(time.perf_counter() - start)
    return round(sorted(times)[len(times) // 2], 2)


def verdict(result: dict) -> str:
    """"yes" when the run ended without error within the limits, else "no" and why (judged on
    the reported, rounded figures, so that a table agrees with itself)."""
    if result["error"]:
        return f"no: {result['error']}"
    over = [f"{result['peak_mb']} MB" if result["peak_mb"] * 1e6 > LIMIT_BYTES else "",
            f"{result['seconds']:.0f} s" if result["seconds"] > LIMIT_SECONDS else ""]
    return "no: " + ", ".join(o for o in over if o) if any(over) else "yes"


def markdown_table(results: list[dict], imports_mb: int | None = None) -> str:
    """The results as a markdown table (for the README and notebook 00); with ``imports_mb``, a
    column for each peak above the imports' floor."""
    above = imports_mb is not None
    lines = ["| Notebook | Mode | Seconds | Peak MB |" + (" Above the imports, MB |" * above)
             + " Within 1 GB and 120 s |", "|---|---|--:|--:|" + ("--:|" * above) + "---|"]
    lines += [f"| {r['notebook']} | {r['mode']} | {r['seconds']:.0f} | {r['peak_mb']} |"
              + (f" {r['peak_mb'] - imports_mb} |" if above else "") + f" {verdict(r)} |"
              for r in results]
    return "\n".join(lines)


def git(*args: str) -> str:
    """Output of a git command in the repository ("" where git is unavailable)."""
    try:
        return subprocess.run(["git", *args], cwd=NOTEBOOKS.parent, capture_output=True,
                              text=True).stdout.rstrip()
    except OSError:
        return ""


def how_measured(quick: bool, note: str | None) -> dict:
    """The conditions of this run, recorded beside its results: what ran (the commit, and the
    notebooks and package files that differed from it), where, and under what load."""
    return {"commit": git("rev-parse", "HEAD"),
            "uncommitted": git("status", "--porcelain", "notebooks", "capsedu").splitlines(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join(["python", *sys.argv]), "mode": "quick" if quick else "default",
            "cores": os.cpu_count(), "load_average_start": os.getloadavg(),
            "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
            "python": platform.python_version(), "platform": platform.platform(),
            "cpu": platform.processor() or platform.machine(), "note": note,
            "limits": {"peak_mb": LIMIT_BYTES / 1e6, "seconds": LIMIT_SECONDS}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("notebooks", nargs="*", type=Path,
                   help="notebooks to run (default: every notebooks/NN_*.ipynb)")
    p.add_argument("--quick", action="store_true", help="set CAPSEDU_QUICK=1 (quick mode)")
    p.add_argument("--json", type=Path, help="write the results and how they were measured here")
    p.add_argument("--note", help="a remark stored with the results, e.g. what else ran")
    args = p.parse_args()
    paths = [n.resolve() for n in args.notebooks] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    measured = how_measured(args.quick, args.note)
    measured["reference_seconds"] = {"start": reference_seconds()}
    measured["imports_mb"] = imports_peak()
    print(f"{measured['cores']} cores, load average {measured['load_average_start'][0]:.2f}, "
          f"torch threads {measured['torch_threads']}, {measured['mode']} mode; the reference "
          f"workload took {measured['reference_seconds']['start']:.2f} s; a kernel that "
          f"only imports torch, matplotlib, ipywidgets and capsedu peaks at "
          f"{measured['imports_mb']} MB")
    print(f"{'notebook':<38} {'mode':<8} {'seconds':>8} {'peak MB':>8} {'VmHWM':>6} "
          f"{'sampled':>8} {'load':>5}  within 1 GB, 120 s", flush=True)
    results = []
    for path in paths:
        r = run_notebook(path, args.quick)
        results.append(r)
        print(f"{r['notebook']:<38} {r['mode']:<8} {r['seconds']:>8.1f} {r['peak_mb']:>8} "
              f"{r['vmhwm_mb'] if r['vmhwm_mb'] is not None else '-':>6} {r['sampled_mb']:>8} "
              f"{r['load_at_start']:>5.2f}  {verdict(r)}", flush=True)
        if path == paths[-1]:
            measured["reference_seconds"]["end"] = reference_seconds()
            print(f"the reference workload took {measured['reference_seconds']['end']:.2f} s "
                  "after the last notebook")
        if args.json:
            measured["load_average_end"] = os.getloadavg()
            measured["finished"] = f"{len(results)} of {len(paths)}"
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({"measured": measured, "notebooks": results},
                                            indent=1) + "\n")


if __name__ == "__main__":
    main()

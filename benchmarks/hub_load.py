"""What a class costs a JupyterHub: N learners at once on this machine, each in their own server.

    python benchmarks/hub_load.py [--learners 1 4 8] [--threads T] [--moves 5] [--json PATH]

For each N it starts N learners together on one real JupyterHub on 127.0.0.1 (the hub test's
harness, tests/hub/hubdriver.py: the same login, server, nbgitpuller pull of this repository's
HEAD and kernel websocket), each running notebook 03 in quick mode (``CAPSEDU_QUICK=1``) and then
moving its ``||s||`` slider ``--moves`` times. Per learner it reports:

* peak memory: the largest sum of resident memory (RSS) of the learner's Jupyter server and its
  kernel, sampled every 0.1 s with psutil from server start to the end of the visit (pages the
  processes share, such as torch's libraries, count once per process, as a container's limit
  would count them once per learner);
* the time to run the notebook's cells (first cell sent to last cell done, kernel start not
  included) and to start the server and pull the course;
* widget latency: from sending the slider's new value (the message a browser sends) to receiving
  the readout's new text, the median of the moves (a round trip through server and kernel, on
  127.0.0.1; a browser adds its network and drawing the PNG).

The servers of one round are stopped before the next. ``--threads T`` sets ``OMP_NUM_THREADS``
(torch's threads) in every learner's server, as a hub's spawner environment would; by default
each kernel uses every core. It prints a table and, with ``--json``, writes the results with how
they were measured (date, command, commit, cores, load average before and after each round).
Other processes on the machine change the times: the load average is recorded beside them.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "hub"))

import hubdriver  # noqa: E402


def one_round(hub, repository: str, n: int, moves: int, prefix: str) -> dict:
    """N learners at once; their lessons as rows, and the load average around the round."""
    names = [f"{prefix}{i}" for i in range(n)]
    values = [round(0.5 + 0.5 * (i % 8), 2) for i in range(moves)]  # on the slider's 0.05 grid
    load_before = os.getloadavg()
    start = time.perf_counter()
    with ThreadPoolExecutor(n) as pool:
        lessons = list(pool.map(
            lambda name: hubdriver.take_the_lesson(hub, name, repository, values), names))
    wall = time.perf_counter() - start
    load_after = os.getloadavg()
    for name in names:
        hub.stop_server(name)
    rows = [{"learner": lesson.name, "peak_memory_mb": lesson.peak_memory / 1e6,
             "high_water_memory_mb": lesson.high_water_memory / 1e6,
             "start_server_s": lesson.start_server, "pull_s": lesson.pull,
             "run_notebook_s": lesson.run_notebook,
             "widget_latency_ms": 1e3 * statistics.median(lesson.widget_latencies),
             "widget_latencies_ms": [1e3 * t for t in lesson.widget_latencies]}
            for lesson in lessons]
    return {"learners": n, "wall_s": wall, "load_before": load_before, "load_after": load_after,
            "rows": rows}


def summary(result: dict) -> dict:
    """Median and largest of each figure over the round's learners."""
    out = {"learners": result["learners"]}
    for key in ("peak_memory_mb", "start_server_s", "pull_s", "run_notebook_s",
                "widget_latency_ms"):
        values = [row[key] for row in result["rows"]]
        out[key] = (statistics.median(values), max(values))
    return out


def markdown_table(results: list[dict]) -> str:
    """One line per N: median (largest) over the learners of each figure, and the load."""
    lines = ["| learners at once | peak memory per learner (MB) | run notebook 03 (s) "
             "| start server (s) | pull course (s) | widget latency (ms) | load average (1 min) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        s = summary(result)
        cells = [f"{s[k][0]:.0f} ({s[k][1]:.0f})" if k.endswith(("mb", "ms"))
                 else f"{s[k][0]:.1f} ({s[k][1]:.1f})"
                 for k in ("peak_memory_mb", "run_notebook_s", "start_server_s", "pull_s",
                           "widget_latency_ms")]
        load = f"{result['load_before'][0]:.1f} → {result['load_after'][0]:.1f}"
        lines.append(f"| {result['learners']} | " + " | ".join(cells) + f" | {load} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--threads", type=int, help="OMP_NUM_THREADS in every learner's server")
    parser.add_argument("--moves", type=int, default=5, help="slider moves per learner")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)

    environment = {} if args.threads is None else {"OMP_NUM_THREADS": str(args.threads)}
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    meta = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": "python " + " ".join([f"benchmarks/{Path(__file__).name}",
                                            *(argv if argv is not None else sys.argv[1:])]),
            "commit": commit, "cores": os.cpu_count(), "threads": args.threads or "default",
            "notebook": hubdriver.NOTEBOOK, "mode": "quick (CAPSEDU_QUICK=1)",
            "memory": "largest sum of RSS of the learner's server and kernel (psutil, 0.1 s)",
            "load_average_start": os.getloadavg()}
    results = []
    with tempfile.TemporaryDirectory(prefix="capsedu-hub-load-") as tmp:
        work = Path(tmp)
        repository = hubdriver.course_repository(work)
        hub = hubdriver.start_hub(work / "hub", environment)
        try:
            for n in args.learners:
                result = one_round(hub, repository, n, args.moves, prefix=f"n{n}-learner")
                results.append(result)
                print(f"N = {n}: done in {result['wall_s']:.0f} s", flush=True)
                if args.json:
                    args.json.write_text(json.dumps({**meta, "results": results}, indent=1))
        finally:
            hubdriver.stop_hub(hub)
    meta["load_average_end"] = os.getloadavg()
    print(f"{meta['date']}, {meta['cores']} cores, threads per kernel: {meta['threads']}, "
          f"load average {meta['load_average_start'][0]:.1f} at the start")
    print(markdown_table(results))
    if args.json:
        args.json.write_text(json.dumps({**meta, "results": results}, indent=1))


if __name__ == "__main__":
    main()

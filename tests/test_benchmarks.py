"""The benchmarks' references compute what capsedu computes (so a ratio compares equal work), and
the notebook benchmark measures a real run and reports it."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import torch

from capsedu.capsnet import SMALL, CapsNet

ROOT = Path(__file__).resolve().parents[1]


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_naive_digitcaps_routes_like_the_vectorised_one():
    routing = load("routing")
    torch.manual_seed(0)
    model = CapsNet(SMALL)
    naive = routing.naive_copy(model)
    routing.check_same(model, naive, torch.device("cpu"))  # asserts equal lengths and dLoss/dW
    x = torch.rand(3, 1, 28, 28)
    with torch.no_grad():
        a, b = model(x).routing, naive(x).routing
    torch.testing.assert_close(b.c, a.c, atol=1e-6, rtol=1e-5)  # couplings of the last iteration
    torch.testing.assert_close(b.b, a.b, atol=1e-5, rtol=1e-5)


def test_the_notebook_benchmark_measures_notebook_00(tmp_path):
    """A real run of the cheapest notebook in quick mode: a time, a kernel-sized peak, no error."""
    out = tmp_path / "notebooks.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "notebooks.py"), "--quick",
                    "--json", str(out), str(ROOT / "notebooks" / "00_start_here.ipynb")],
                   check=True, capture_output=True)
    report = json.loads(out.read_text())
    (result,) = report["notebooks"]
    assert result["notebook"] == "00_start_here" and result["mode"] == "quick"
    assert result["error"] is None and result["seconds"] > 0
    assert result["peak_mb"] > 50  # a Python kernel with torch imported is far above 50 MB
    assert report["measured"]["mode"] == "quick" and report["measured"]["cores"] >= 1
    # the floor under it, give or take a kernel's start: two kernels importing the same modules
    # differ from run to run by the resident pages of torch's libraries (969 MB against the
    # notebook's 925 with the CUDA build on a busy machine), so within 10 %
    assert 50 < report["measured"]["imports_mb"] <= 1.1 * result["peak_mb"]
    assert len(report["measured"]["load_average_start"]) == 3
    speed = report["measured"]["reference_seconds"]  # the fixed workload, before and after
    assert speed.keys() == {"start", "end"} and all(s > 0 for s in speed.values())


def test_the_notebook_table_says_which_limit_a_notebook_exceeds():
    notebooks = load("notebooks")
    row = {"mode": "default", "vmhwm_mb": None, "sampled_mb": 0, "load_at_start": 0.0,
           "error": None}
    results = [dict(row, notebook="00_start_here", seconds=12.3, peak_mb=400),
               dict(row, notebook="05_capsnet_on_mnist", seconds=150.0, peak_mb=1200),
               dict(row, notebook="07_faces", seconds=1.0, peak_mb=1, error="ValueError: x")]
    assert notebooks.markdown_table(results).splitlines() == [
        "| Notebook | Mode | Seconds | Peak MB | Within 1 GB and 120 s |",
        "|---|---|--:|--:|---|",
        "| 00_start_here | default | 12 | 400 | yes |",
        "| 05_capsnet_on_mnist | default | 150 | 1200 | no: 1200 MB, 150 s |",
        "| 07_faces | default | 1 | 1 | no: ValueError: x |"]
    assert notebooks.markdown_table(results[1:2], imports_mb=700).splitlines()[::2] == [
        "| Notebook | Mode | Seconds | Peak MB | Above the imports, MB | Within 1 GB and 120 s |",
        "| 05_capsnet_on_mnist | default | 150 | 1200 | 500 | no: 1200 MB, 150 s |"]

"""The benchmarks' references compute what capsedu computes (so a ratio compares equal work)."""

import importlib.util
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

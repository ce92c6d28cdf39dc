"""Kernel-side latency of every course widget: one control change -> state + figure + PNG.

    python benchmarks/widgets.py [--repeats 15]

For each widget the script changes one control ``--repeats`` times and prints the median time per
update in milliseconds, next to a reference measured in the same run: rendering an empty
matplotlib figure of the same size to PNG (the floor that any redraw pays). The browser adds its
own time on top (sending the PNG and painting it). The course aims at well under 100 ms.
"""

import argparse
import os
import statistics
import time

import torch
from matplotlib.figure import Figure

from capsedu import LIVE, SMALL, BagOfPartsCNN, CapsNet, DeepCNN
from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import AFFNIST
from capsedu.figures.canvas import png_bytes
from capsedu.gcnn import C4CNN, PlainCNN
from capsedu.multi_digit import MultiDigitCapsNet, TwoDigitCNN
from capsedu.parts.pose_net import PoseCapsuleNet
from capsedu.recipes import PIXEL_CAPSNET
from capsedu.widgets import (
    BugZooExplorer,
    FaceCapsulesExplorer,
    FaceVerdicts,
    OverlapExplorer,
    PoseSpaceExplorer,
    PoseVectorExplorer,
    RotationExplorer,
    RoutingExplorer,
    SquashExplorer,
    ViewpointExplorer,
    WidgetCheck,
)


def median_ms(action, values) -> float:
    times = []
    for value in values:
        start = time.perf_counter()
        action(value)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def sweep(n: int, low: float, high: float, step: float) -> list:
    """``n`` distinct values on the slider's grid, so every change triggers an update."""
    return [round(low + (k % int((high - low) / step)) * step, 6) for k in range(1, n + 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    n = parser.parse_args().repeats
    torch.manual_seed(0)
    cnns = {"bag-of-parts CNN": BagOfPartsCNN().eval(), "deep CNN": DeepCNN().eval()}
    cases = [  # (notebook, widget, the control a learner moves, values)
        ("00", WidgetCheck(), "slider", sweep(n, 0, 360, 5)),
        ("01", FaceVerdicts(cnns), "editor.x", sweep(n, 0.2, 0.8, 0.01)),
        ("02", PoseVectorExplorer(), "angle", sweep(n, -180, 180, 5)),
        ("03", SquashExplorer(), "norm", sweep(n, 0, 5, 0.05)),
        ("04", RoutingExplorer(), "editor.x", sweep(n, 0.1, 0.9, 0.01)),
        # untrained weights: the decoder costs the same as in the trained checkpoint
        ("06", PoseSpaceExplorer(CapsNet(LIVE).eval(), torch.rand(2, 1, 28, 28),
                                   torch.tensor([3, 7])), "sliders.0", sweep(n, -0.25, 0.25, 0.05)),
        # untrained detector: the same work per update as the shipped one (detect, route, draw)
        ("07", FaceCapsulesExplorer(PoseCapsuleNet().eval(), {
            **cnns, "pixel CapsNet": CapsNet(PIXEL_CAPSNET).eval()}), "editor.x",
         sweep(n, 0.1, 0.9, 0.01)),
        # the shipped affNIST and MultiMNIST pairs' sizes, untrained: the same work per update
        ("08", ViewpointExplorer(CapsNet(AFFNIST).eval(), MaxPoolCNN().eval(),
                                 torch.rand(2, 1, 28, 28), torch.tensor([3, 7])),
         "sliders.rotation", sweep(n, -90, 90, 5)),
        ("08", OverlapExplorer(MultiDigitCapsNet().eval(), TwoDigitCNN().eval(),
                               torch.rand(2, 1, 28, 28), torch.tensor([3, 7])),
         "sliders.dx", sweep(n, -4, 4, 1)),
        # the shipped CapsNet's sizes (SMALL, 288 primary capsules), untrained: the same routing
        # and drawing per update; no recorded runs, so the curve panel shows its note
        ("09", BugZooExplorer(CapsNet(SMALL), torch.rand(8, 1, 28, 28), torch.arange(8),
                              results={}), "iterations", sweep(n, 1, 5, 1)),
        # the rotmnist pair's sizes, untrained, and an untrained pose-capsule model: the same
        # work per update as the checkpoints (two forward passes each at quarter turns, a face)
        ("10", RotationExplorer(C4CNN().eval(), PlainCNN().eval(), torch.rand(2, 1, 28, 28),
                                torch.tensor([3, 7]), PoseCapsuleNet().eval()),
         "rotation", sweep(n, 0, 345, 15)),
    ]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"load average {os.getloadavg()[0]:.1f}; median of {n} updates\n")
    print(f"{'nb':>2}  {'widget':<20} {'update (ms)':>11} {'empty PNG (ms)':>15} {'ratio':>6}")
    for notebook, widget, name, values in cases:
        control = widget
        for attr in name.split("."):  # "editor.x", "sliders.0" or "sliders.rotation"
            if isinstance(control, dict):
                control = control[attr]
            else:
                control = control[int(attr)] if attr.isdigit() else getattr(control, attr)
        update = median_ms(lambda v, c=control: setattr(c, "value", v), values)
        size = widget.figure.get_size_inches() if hasattr(widget, "figure") else (6, 3)
        empty = Figure(figsize=size)
        floor = median_ms(lambda _, f=empty: png_bytes(f), values)
        print(f"{notebook:>2}  {type(widget).__name__:<20} {update:11.1f} {floor:15.1f} "
              f"{update / floor:6.1f}")


if __name__ == "__main__":
    main()

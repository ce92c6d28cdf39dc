"""The plot helpers keep their keys off the data: a bar that reaches 1 is never behind a legend."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from capsedu.data import faces  # noqa: E402
from capsedu.parts.scoring import SeedRuns  # noqa: E402
from capsedu.plots import bar_face_rates  # noqa: E402


@pytest.mark.parametrize("width", [7, 11])
def test_bar_face_rates_puts_its_legend_beside_the_bars_not_over_them(width):
    kinds = faces.KINDS
    # notebook 07's five models; every bar reaches the top, its caps and seed dots above 0.9
    names = ["pose capsules", "part-pose MLP", "pixel CapsNet", "bag-of-parts CNN", "deep CNN"]
    runs = [SeedRuns(name, [0, 1, 2], [], {kind: [1.0, 0.92, 0.98] for kind in kinds})
            for name in names]
    fig, ax = plt.subplots(figsize=(width, 4))
    bar_face_rates(ax, runs, kinds)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    key = ax.get_legend().get_window_extent(renderer)
    bars = [patch.get_window_extent(renderer) for patch in ax.patches]
    assert len(bars) == 5 * len(kinds)
    marks = [line.get_window_extent(renderer) for line in ax.lines[:-1]]  # seed dots, caps
    assert not any(key.overlaps(box) for box in bars + marks)
    # and outside the axes altogether: wherever a later run's bars or error bars reach, the key
    # cannot be in their way (a key in headroom above the bars sits where a tall error bar goes)
    assert not key.overlaps(ax.get_window_extent(renderer))
    assert ax.get_ylim()[1] >= 1.0  # and the bars are not cut off
    plt.close(fig)

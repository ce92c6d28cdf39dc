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


def test_course_figures_of_notebook_05_draw_what_they_are_given():
    import torch

    from capsedu.plots import draw_accuracy_bars, draw_confusion, draw_digits, draw_margin_loss

    fig, ax = plt.subplots()
    draw_margin_loss(ax)
    present, absent = (line.get_ydata() for line in ax.lines[:2])
    assert present[0] == pytest.approx(0.81) and absent[-1] == pytest.approx(0.405)  # Eq. 4
    fig, ax = plt.subplots()
    draw_accuracy_bars(ax, {"a": 98.0, "b": 99.5}, colors=["red", "blue"])
    assert [t.get_text() for t in ax.texts] == [" 98.00 %", " 99.50 %"]
    fig = plt.figure()
    # 10 right of every digit; digits 0-8 are also read twice as the next digit
    counts = 10 * torch.eye(10, dtype=torch.long) + 2 * torch.diag(torch.ones(9).long(), 1)
    draw_confusion(fig, counts)
    mistakes, per_class = fig.axes
    assert len(mistakes.texts) == 9  # one count per off-diagonal cell that is not zero
    heights = [round(float(b.get_height()), 2) for b in per_class.patches]
    assert heights == [83.33] * 9 + [100.0]  # 10 / 12 right, and digit 9 always right
    fig, axes = plt.subplots(1, 2)
    draw_digits(axes, torch.rand(2, 28, 28), ["x", "y"])
    assert [ax.get_title() for ax in axes] == ["x", "y"] and not axes[0].get_frame_on()
    plt.close("all")

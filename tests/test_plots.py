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


def test_course_figures_of_notebook_07_draw_what_the_models_read():
    import numpy as np
    import torch

    from capsedu.data.faces import part_slots
    from capsedu.parts.pose_net import PoseCapsuleNet
    from capsedu.parts.votes import exact_transforms
    from capsedu.plots import (
        draw_detected_parts,
        draw_part_votes,
        draw_rotation_sweep,
        draw_turned_scores,
        face_length_boxplot,
    )

    scene = faces.face_parts(0.5, 0.5, 20.0)
    model = PoseCapsuleNet()
    model.W.copy_(torch.from_numpy(exact_transforms()))
    truth = torch.from_numpy(part_slots([scene])[0]).float()  # [1, 4, 4]
    model.detector.detect = lambda x: (truth.expand(len(x), -1, -1), torch.ones(len(x), 4))
    fig, (ax_scene, ax_c) = plt.subplots(1, 2)
    routing = draw_part_votes(ax_scene, ax_c, model, scene, "a face")
    expected = model.capsules(torch.zeros(1, 1, 32, 32)).routing
    torch.testing.assert_close(routing.c, expected.c)
    assert ax_scene.get_title() == f"a face: |v_face| = {expected.v[0, 0].norm().item():.2f}"
    fig = plt.figure(layout="constrained")
    draw_detected_parts(fig, model.detector, {"one": torch.zeros(1, 1, 32, 32),
                                              "two": torch.zeros(1, 1, 32, 32)})
    assert [ax.get_title() for ax in fig.axes] == ["one", "two"] and len(fig.legends) == 1
    fig, ax = plt.subplots(layout="constrained")
    face_length_boxplot(ax, {"face": np.array([0.9, 0.95]), "permuted": np.array([0.2])}, 0.92712,
                        legend_below=True)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["face", "permuted"]
    assert ax.lines[-1].get_ydata()[0] == 0.92712  # the threshold, dashed
    assert ax.get_legend() is None and fig.legends[0].texts[0].get_text() == "threshold 0.927"
    fig, (ax1, ax2) = plt.subplots(1, 2)
    angles = np.array([0.0, 350.0])
    sweep = {"angles": angles, "part_angles": np.array([[1.0] * 4, [-5.0] * 4]),
             "face_angle": np.array([2.0, -8.0])}
    draw_rotation_sweep(ax1, sweep)
    assert ax1.lines[0].get_ydata().tolist() == [1.0, 355.0]  # -5° read at a turn of 350°
    assert ax1.lines[-1].get_ydata().tolist() == [2.0, 352.0]
    draw_turned_scores(ax2, angles, {"m": (torch.tensor([0.75, 0.25]), torch.tensor([0.5, 0.5]))})
    assert [line.get_ydata().tolist() for line in ax2.lines] == [[0.75, 0.25], [0.5, 0.5]]
    plt.close("all")

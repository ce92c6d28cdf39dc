"""The figures (``capsedu.figures``) draw what they are given, and keep their keys off the data: a
bar that reaches 1 is never behind a legend."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from capsedu.data import faces  # noqa: E402
from capsedu.figures.model_scores import draw_face_rates  # noqa: E402
from capsedu.parts.scoring import SeedRuns  # noqa: E402


@pytest.mark.parametrize("width", [7, 11])
def test_draw_face_rates_puts_its_legend_beside_the_bars_not_over_them(width):
    kinds = faces.KINDS
    # notebook 07's five models; every bar reaches the top, its caps and seed dots above 0.9
    names = ["pose capsules", "part-pose MLP", "pixel CapsNet", "bag-of-parts CNN", "deep CNN"]
    runs = [SeedRuns(name, [0, 1, 2], [], {kind: [1.0, 0.92, 0.98] for kind in kinds})
            for name in names]
    fig, ax = plt.subplots(figsize=(width, 4))
    draw_face_rates(ax, runs, kinds)
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

    from capsedu.figures.capsule_lengths import draw_margin_loss
    from capsedu.figures.digit_images import draw_digits
    from capsedu.figures.model_scores import draw_accuracy_bars, draw_confusion

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
    from capsedu.figures.capsule_lengths import draw_face_lengths
    from capsedu.figures.face_scenes import draw_detected_parts, draw_part_votes
    from capsedu.figures.rotations import draw_rotation_sweep, draw_turned_scores
    from capsedu.parts.pose_net import PoseCapsuleNet, RotationSweep
    from capsedu.parts.voting import exact_transforms

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
    draw_face_lengths(ax, {"face": np.array([0.9, 0.95]), "permuted": np.array([0.2])}, 0.92712,
                        legend_below=True)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["face", "permuted"]
    assert ax.lines[-1].get_ydata()[0] == 0.92712  # the threshold, dashed
    assert ax.get_legend() is None and fig.legends[0].texts[0].get_text() == "threshold 0.927"
    fig, (ax1, ax2) = plt.subplots(1, 2)
    angles = np.array([0.0, 350.0])
    sweep = RotationSweep(angles=angles, part_angles=np.array([[1.0] * 4, [-5.0] * 4]),
                          face_angle=np.array([2.0, -8.0]), face_length=np.ones(2),
                          images=np.zeros((2, 32, 32)),
                          part_error=np.array([[1.0] * 4, [5.0] * 4]), face_error=np.full(2, 2.0))
    draw_rotation_sweep(ax1, sweep)
    assert ax1.lines[0].get_ydata().tolist() == [1.0, 355.0]  # -5° read at a turn of 350°
    assert ax1.lines[-1].get_ydata().tolist() == [2.0, 352.0]
    draw_turned_scores(ax2, angles, {"m": (torch.tensor([0.75, 0.25]), torch.tensor([0.5, 0.5]))})
    assert [line.get_ydata().tolist() for line in ax2.lines] == [[0.75, 0.25], [0.5, 0.5]]
    plt.close("all")


def test_the_figures_of_notebook_08_draw_what_they_are_given():
    import numpy as np
    import torch

    from capsedu.data import affine_params, transformed_mnist
    from capsedu.figures.digit_images import (
        affine_titles,
        draw_affine_examples,
        draw_segmentation,
        draw_sweep_examples,
    )
    from capsedu.figures.model_scores import draw_group_bars, draw_quoted_bars, draw_sweep_curves

    params = affine_params.AffineParams(rotation=torch.tensor([-19.6, 4.4]),
                                            shear=torch.tensor([0.1, -0.15]),
                                            scale_x=torch.tensor([0.8, 1.2]),
                                            scale_y=torch.tensor([1.0, 0.9]),
                                            tx=torch.zeros(2), ty=torch.zeros(2))
    assert affine_titles(params, 2) == ["-20°, sh +0.10\ns 0.80x1.00", "+4°, sh -0.15\ns 1.20x0.90"]
    fig = plt.figure()
    draw_affine_examples(fig, torch.rand(2, 1, 40, 40), torch.rand(2, 1, 40, 40), params)
    assert len(fig.axes) == 4 and fig.axes[2].get_ylabel() == "affNIST-style"
    assert fig.axes[3].get_title() == affine_titles(params, 2)[1]
    fig = plt.figure()  # params of more digits than drawn (08 draws 8 of its 500): the first ones
    draw_affine_examples(fig, torch.rand(1, 1, 40, 40), torch.rand(1, 1, 40, 40), params)
    assert fig.axes[1].get_title() == affine_titles(params, 1)[0]
    with pytest.raises(ValueError, match=r"params must hold a map for each of the 3 digits of "
                                         r"affine, got 2 maps"):
        draw_affine_examples(plt.figure(), torch.rand(3, 1, 40, 40), torch.rand(3, 1, 40, 40),
                             params)
    fig = plt.figure()
    draw_sweep_examples(fig, torch.rand(1, 28, 28))
    shown = [ax for ax in fig.axes if ax.axison]
    # 28 of 3 x 10
    assert len(shown) == sum(len(values) for values in transformed_mnist.SWEEPS.values())
    assert [ax.get_title() for ax in shown[:2]] == ["0", "5"]
    fig, ax = plt.subplots()
    draw_quoted_bars(ax, {"affnist-capsnet": 96.2, "affnist-cnn": 97.6},
                     {"paper: CapsNet": 79.0, "paper: CNN": 66.0, "other: X": 93.21})
    assert [t.get_text() for t in ax.texts] == [" 96.2 %", " 97.6 %", " 79.0 %", " 66.0 %",
                                               " 93.2 %"]
    greys = [patch.get_facecolor()[0] for patch in ax.patches[2:]]
    assert greys == pytest.approx([0.55, 0.55, 0.65])  # one grey per source
    fig, ax = plt.subplots()
    draw_group_bars(ax, {"multimnist-capsnet": [80.0, 70.0], "multimnist-cnn": [90.0, 85.0]},
                    ["0-50 %", "50-100 %"])
    assert [round(p.get_height()) for p in ax.patches] == [80, 70, 90, 85]
    assert [round(p.get_x() + p.get_width() / 2, 2) for p in ax.patches] == [-0.2, 0.8, 0.2, 1.2]
    fig = plt.figure()
    from capsedu.robustness import Sweep

    curves = {name: tuple(Sweep(f, tuple(v), (accuracy,) * len(v))
                          for f, v in transformed_mnist.SWEEPS.items())
              for name, accuracy in (("affnist-capsnet", 1.0), ("affnist-cnn", 0.5))}
    draw_sweep_curves(fig, curves, 100)
    rotation = fig.axes[0]
    assert rotation.get_ylabel() == "accuracy (%), 100 digits"
    assert [line.get_ydata()[0] for line in rotation.lines] == [100.0, 50.0]
    band = rotation.patches[0].get_bbox()  # the grey band of the affNIST range
    assert (band.x0, band.x1) == (-20.0, 20.0)
    with pytest.raises(ValueError, match="at most 3 models"):
        draw_sweep_curves(plt.figure(), {str(k): curves["affnist-cnn"] for k in range(4)}, 1)
    fig = plt.figure()
    redrawn = torch.zeros(2, 2, 1, 36, 36)
    redrawn[:, 0] = 1.0  # all ink in the first colour
    draw_segmentation(fig, torch.rand(2, 1, 36, 36), torch.tensor([[7, 3], [1, 2]]),
                      torch.tensor([[3, 7], [1, 2]]), redrawn)
    assert [ax.get_title() for ax in fig.axes] == ["true [3, 7]", "true [1, 2]", "read 3 / 7",
                                                   "read 1 / 2"]
    image = fig.axes[2].get_images()[0].get_array()
    assert np.allclose(image[0, 0], matplotlib.colors.to_rgb("tab:orange"))
    plt.close("all")


def test_the_figures_of_notebook_09_draw_what_they_are_given():
    import numpy as np
    from test_bug_zoo import zoo_run

    from capsedu.coupling_polarisation import CouplingStep
    from capsedu.figures.routing_couplings import draw_coupling_traces
    from capsedu.figures.training_curves import draw_epoch_curves, draw_seed_spread, draw_zoo_curves

    fig, ax = plt.subplots()
    errors = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.0, 1.0]),
              "c": np.array([2.0, 2.0, 2.0])}
    draw_seed_spread(ax, errors, "error (%)", gap_after=2)
    assert ax.get_xticks().tolist() == pytest.approx([0.0, 1.0, 2.6])  # a gap before "c"
    means = [bars.lines[0].get_ydata()[0] for bars in ax.containers]  # each setting's mean
    assert means == [2.0, 1.0, 2.0] and ax.get_ylabel() == "error (%)"
    fig, ax = plt.subplots()
    draw_epoch_curves(ax, {"r1": [0.9, 0.95], "r2": [0.5, 0.6, 0.7]})
    assert [line.get_ydata().tolist() for line in ax.lines] == [[90.0, 95.0], [50.0, 60.0, 70.0]]
    assert ax.get_xticks().tolist() == [1, 2, 3]
    fig = plt.figure()
    step = CouplingStep(entropy=0.5, distance=0.25, polarised=0.0)
    draw_coupling_traces(fig, {"m": [step] * 4, "m, permuted": [step] * 4}, trained_with=2)
    entropy = fig.axes[0]
    assert entropy.get_title() == "normalised entropy" and len(fig.axes) == 3
    assert [line.get_linestyle() for line in entropy.lines[:2]] == ["-", "--"]
    assert entropy.lines[-1].get_xdata()[0] == 2  # the grey line: trained with 2
    fig = plt.figure()
    run = zoo_run(batch_loss=(1.0, 0.5, 0.25), batch_accuracy=(0.0, 0.5, 1.0), test_accuracy=0.9)
    bug = zoo_run(batch_loss=(1.0, 0.5, 0.25), batch_accuracy=(0.0, 0.5, 1.0), test_accuracy=0.1)
    draw_zoo_curves(fig, {"correct": run, "bug": bug}, "correct", ["bug"], stopped_at=2)
    loss, accuracy = fig.axes
    assert loss.get_title() == "bug\ntest 10.0 % (correct 90.0 %)" and loss.get_yscale() == "log"
    assert accuracy.lines[0].get_ydata().tolist() == [0.0, 0.25, 0.5]  # means of the last steps
    assert len(fig.legends) == 1
    plt.close("all")


def test_course_figures_of_notebook_06_lay_out_one_panel_per_class_map_and_iteration():
    import torch

    from capsedu import SMALL, CapsNet
    from capsedu.digit_capsules import DimensionStudy, ShapeMeasures, encode
    from capsedu.figures.digit_images import draw_capsule_values, draw_dimension_changes
    from capsedu.figures.routing_couplings import draw_couplings_on_grid, draw_map_couplings

    fig, ax = plt.subplots()
    draw_capsule_values(fig, ax, torch.tensor([[0.5, -1.0], [0.2, 0.0]]), ["a", "b"])
    assert ax.images[0].get_clim() == (-1.0, 1.0)  # symmetric about 0
    names = ["ink", "x", "y", "width", "height", "slant"]
    spread = ShapeMeasures(**{n: torch.tensor(1.0) for n in names})
    study = DimensionStudy(spread, {7: torch.ones(16)},
                           {7: ShapeMeasures(**{n: torch.zeros(3, 16) for n in names})},
                           {7: torch.zeros(16, 6)})
    fig = plt.figure(layout="constrained")
    draw_dimension_changes(fig, study)
    assert fig.axes[0].get_title() == "capsule 7 (3 test 7s)" and len(fig.axes[0].texts) == 96
    torch.manual_seed(0)
    net = CapsNet(SMALL).eval()
    out = encode(net, torch.rand(2, 1, 28, 28))
    fig = plt.figure()
    draw_couplings_on_grid(fig, out, torch.rand(28, 28), 1, (3, 5), SMALL)
    titles = [ax.get_title() for ax in fig.axes[:4]]
    assert titles == [f"#1: ‖v_3‖ = {out.lengths[1, 3]:.2f}", "c(i -> 3), iteration 1",
                      "c(i -> 3), iteration 2", "c(i -> 3), iteration 3"]
    fig = plt.figure()
    draw_map_couplings(fig, torch.rand(SMALL.primary_maps, 6, 6), cols=3)
    panels = [ax for ax in fig.axes if ax.get_title().startswith("map")]
    assert len(panels) == SMALL.primary_maps  # and a colour bar
    plt.close("all")


def test_notebook_10_figures_draw_what_they_are_given():
    import numpy as np

    from capsedu.figures import digit_images, feature_maps, rotations
    from capsedu.parts.pose_net import RotationSweep

    fig, axes = plt.subplots(1, 2)
    digit_images.draw_panels(axes, [(np.zeros((4, 4)), "a", "gray_r"),
                                    (np.ones((4, 4)), "b", "Reds")])
    assert [ax.get_title() for ax in axes] == ["a", "b"]
    assert [len(ax.images) for ax in axes] == [1, 1] and axes[1].images[0].get_cmap().name == "Reds"

    fig, ax = plt.subplots()
    feature_maps.draw_shift_changes(ax, [1, 2], {"global max": [0, 0], "2x2 max": [0.5, 0.7],
                                                 "2x2 average": [0.2, 0.3]})
    assert [line.get_ydata().tolist() for line in ax.lines] == [[0, 0], [0.5, 0.7], [0.2, 0.3]]
    assert ax.get_title() == "pooling and shifts"

    fig = plt.figure()
    angles = np.arange(0, 360, 45)
    sweep = RotationSweep(angles=angles, part_angles=np.zeros((8, 4)), face_angle=angles + 2.0,
                          face_length=np.ones(8), images=np.zeros((8, 5, 5)),
                          part_error=np.repeat(180 - np.abs(180 - angles)[:, None], 4, axis=1),
                          face_error=np.full(8, 2.0))
    rotations.draw_face_sweep(fig, angles, sweep, 1.0)
    assert len(fig.axes) == 1 + 8
    assert fig.axes[0].lines[1].get_label() == "fitted line, slope 1.00"
    assert fig.axes[2].get_title() == "45° -> 47°"

    fig, axes = plt.subplots(1, 3)
    angles = np.array([-15, 0, 15])
    rotations.draw_capsule_under_rotation(axes, angles, np.ones((2, 3)), np.zeros((2, 3)),
                                          np.zeros((3, 16)), "the 4")
    assert [len(ax.lines) for ax in axes] == [3, 3, 0] and len(fig.axes) == 4  # and a colorbar
    assert axes[0].get_legend().get_texts()[0].get_text() == "mean of the 2"
    assert axes[2].get_title() == "the 4" and axes[2].images[0].get_extent() == [-22.5, 22.5, 15.5,
                                                                                   -0.5]

    fig, axes = plt.subplots(2, 5)
    feature_maps.draw_lifted_maps(axes, np.zeros((2, 6, 6)), np.zeros((2, 4, 6, 6)))
    assert sum(len(ax.images) for ax in axes.flat) == 10
    assert [ax.get_title() for ax in axes[1]] == ["turned 90°"] + [f"filter turned {a}°"
                                                                  for a in (0, 90, 180, 270)]

    fig, ax = plt.subplots()
    rotations.draw_rotation_curves(ax, [0, 90], {"G-CNN": [90.0, 80.0], "CNN": [95.0, 20.0]}, 1000)
    assert len(ax.lines) == 2 + 3  # two curves, three quarter turns
    assert ax.get_ylabel() == "accuracy (%), 1,000 digits"
    plt.close("all")


def test_the_routing_flow_names_every_tensor_with_its_shape():
    from capsedu.figures.architecture import draw_routing_flow

    fig, ax = plt.subplots()
    draw_routing_flow(ax, (2, 5, 3, 7))  # batch 2, 5 children, 3 parents, 7-D votes
    texts = [t.get_text() for t in ax.texts]
    assert sum("[2, 5, 3, 7]" in t for t in texts) == 1  # the votes
    assert sum("[2, 5, 3]" in t for t in texts) == 3  # logits, couplings, agreement
    assert sum("[2, 3, 7]" in t for t in texts) == 2  # s and v
    assert any("softmax over parents" in t for t in texts)
    assert any("sum over children" in t for t in texts)
    plt.close(fig)


def test_draw_face_rates_slants_long_names_so_they_do_not_run_into_each_other():
    from capsedu.parts import scoring

    for kinds, slanted in ((faces.KINDS, False), (list(scoring.UNSEEN), True)):
        runs = [SeedRuns("deep CNN", [0, 1], [], {kind: [0.2, 0.4] for kind in kinds})]
        fig, ax = plt.subplots(figsize=(12, 4))
        draw_face_rates(ax, runs, kinds)
        fig.canvas.draw()
        labels = ax.get_xticklabels()
        assert {label.get_rotation() for label in labels} == {20 if slanted else 0}
        boxes = [label.get_window_extent() for label in labels]
        if slanted:  # each name ends under its own tick, running down and away from the next
            ticks = ax.transData.transform([(k, 0) for k in range(len(kinds))])[:, 0]
            assert all(abs(box.x1 - tick) < 8 for box, tick in zip(boxes, ticks, strict=True))
        else:
            assert not any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False))
        plt.close(fig)

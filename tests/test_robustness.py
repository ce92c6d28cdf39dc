"""Notebook 08's measurements: models read test images right or wrong, and the lines and tables
made of that, checked by hand on models whose answers are known."""

import pytest
import torch

from capsedu import robustness
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.data import transformed_mnist
from capsedu.manifest_rows import ManifestRow, Metrics
from capsedu.robustness import (
    accuracies,
    accuracy_by_overlap,
    lowest_points,
    paired_verdict,
    pairs_line,
    read_right,
    run_line,
    sweep_curves,
    viewpoint_table,
)


class Says(torch.nn.Module):
    """Predicts the class ``answers[k]`` for the k-th image it is shown (any batch size)."""

    def __init__(self, answers):
        super().__init__()
        self.answers, self.seen = torch.tensor(answers), 0

    def predict(self, x):
        out = self.answers[self.seen:self.seen + len(x)]
        self.seen += len(x)
        return out


def row(scores, chosen_epoch=None):
    """A manifest row of a run whose held-out accuracy per epoch is ``scores``."""
    return ManifestRow(name="x", file="x.pt", sha256="0" * 64, arch="CapsNet", seed=0,
                       train_time_s=600, threads=1, train_examples=1000,
                       command="python -m capsedu.train x",
                       metrics=Metrics(validation_by_epoch=tuple(scores),
                                       chosen_epoch=chosen_epoch or scores.index(max(scores)) + 1))


def test_read_right_marks_each_image_and_accuracies_count_them():
    images, labels = torch.zeros(4, 1, 2, 2), torch.tensor([1, 2, 3, 4])
    right = read_right({"a": Says([1, 2, 0, 4]), "b": Says([0, 0, 3, 4])}, images, labels)
    assert right["a"].tolist() == [True, True, False, True]
    assert right["b"].tolist() == [False, False, True, True]
    assert accuracies(right) == {"a": 0.75, "b": 0.5}


def test_read_right_routes_a_capsnet_as_asked_and_gives_its_iterations_back():
    torch.manual_seed(0)
    tiny = CapsNetConfig(image_size=12, conv_channels=4, conv_kernel=5, primary_maps=2,
                         primary_kernel=3, primary_stride=2, decoder_hidden=(8,))
    model = CapsNet(tiny).eval()
    images, labels = torch.rand(6, 1, 12, 12), torch.arange(6)
    right = read_right({"3": model, "1": model}, images, labels, iterations={"1": 1})
    with torch.no_grad():
        model.digits.iterations = 1
        once = model.predict(images)
        model.digits.iterations = 3
        three = model.predict(images)
    assert right["1"].tolist() == (once == labels).tolist()
    assert right["3"].tolist() == (three == labels).tolist()
    assert model.digits.iterations == 3
    with pytest.raises(ValueError, match=r"read_right\(\): iterations. names must each be one "
                                         r"of the names of models: .3.; got .one."):
        read_right({"3": model}, images, labels, iterations={"one": 1})


def test_viewpoint_table_rows_and_drop_by_hand():
    table = viewpoint_table({"m": 0.99, "n": 0.9}, {"m": 0.96, "n": 0.5},
                            quoted={"q": (99.0, 80.0), "r": (None, 85.5)})
    lines = table.split("\n")
    assert lines[0].split() == ["translated", "affNIST-style", "drop"]
    assert lines[1].split() == ["m", "99.00%", "96.00%", "3.0"]
    assert lines[2].split() == ["n", "90.00%", "50.00%", "40.0"]
    assert lines[3].split() == ["q", "99.00%", "80.00%", "19.0"]
    assert lines[4].split() == ["r", "85.50%"]
    assert len({len(line.rstrip()) for line in lines[1:4]}) == 1  # the columns line up
    with pytest.raises(ValueError, match="same models"):
        viewpoint_table({"m": 0.9}, {"n": 0.9})


def test_the_quoted_rows_are_the_papers_numbers():
    assert robustness.QUOTED["paper: CapsNet"] == (99.23, 79.0)
    assert robustness.QUOTED_AFFINE["paper: CNN"] == 66.0
    assert list(robustness.QUOTED_AFFINE)[-1] == "Gu & Tresp 2020: Aff-CapsNet"


def test_paired_verdict_rests_only_on_the_recorded_runs():
    right = {"a": torch.tensor([True] * 8 + [False] * 2), "b": torch.tensor([False] * 10),
             "a once": torch.tensor([True] * 10), "b once": torch.tensor([False] * 10)}
    manifest = {"a": row([0.5, 0.9, 0.8, 0.8, 0.8]), "b": row([0.5, 0.6])}
    comparison, line = paired_verdict(right, right, "a", "b", manifest)
    assert comparison.difference == pytest.approx(0.8) and comparison.full.only_a == 8
    assert line.endswith("NOT FINAL: b still improving")
    assert "sample" not in line  # the sample is the whole set: one line
    _, line = paired_verdict(right, right, "a once", "a", manifest)  # "a once": no recorded run
    assert line.endswith("final: every run it rests on converged")
    with pytest.raises(ValueError, match="neither"):
        paired_verdict(right, right, "a once", "b once", manifest)
    with pytest.raises(ValueError, match="first and second must differ .*got 'a' for both"):
        paired_verdict(right, right, "a", "a", manifest)
    with pytest.raises(ValueError, match="first and second"):
        paired_verdict(right, right, "a", "c", manifest)


def test_the_verdict_is_the_full_sets_and_a_sample_that_differs_says_so():
    # 60 images: a right on all, b wrong on the first 12; a sample of the last 40 sees no split
    full = {"a": torch.ones(60, dtype=torch.bool),
            "b": torch.tensor([False] * 12 + [True] * 48)}
    sample = {name: right[20:] for name, right in full.items()}
    manifest = {"a": row([0.5, 0.9, 0.8, 0.8, 0.8]), "b": row([0.5, 0.9, 0.8, 0.8, 0.8])}
    comparison, line = paired_verdict(sample, full, "a", "b", manifest)
    assert comparison.clear and comparison.full.n == 60 and comparison.sample.n == 40
    assert not comparison.sample.clear and not comparison.agrees
    first, second = line.split("\n")
    assert first.startswith("all 60 test images (recorded): +20.00 points")
    assert "told apart" in first
    assert second.strip().startswith("this run's sample of 40: +0.00 points")
    assert second.endswith("NOT the full set's verdict, so no conclusion")
    # a sample that sees the split tells the same
    agreeing, line = paired_verdict({n: r[:40] for n, r in full.items()}, full, "a", "b", manifest)
    assert agreeing.agrees and line.endswith("the full set's verdict too")


def test_run_and_pairs_lines_say_how_a_run_was_made_and_ended():
    record = row([0.5, 0.9, 0.8, 0.8, 0.8], chosen_epoch=2)
    line = run_line("x", record)
    assert line.startswith("x: python -m capsedu.train x | seed 0 | 10 min on 1 CPU thread(s) | ")
    assert line.endswith("converged, no held-out gain in the 3 epochs after it")
    line = pairs_line("x", torch.tensor([True, True, True, False]), record)
    assert "both digits right in 75.00 % of the test pairs (error 25.0 %)" in line
    assert "0.00M training pairs seen" in line  # 1,000 pairs an epoch, 2 epochs: 0.002M


def test_accuracy_by_overlap_splits_into_equal_groups():
    overlap = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    right = {"m": torch.tensor([True, True, True, False, False, False, True, False])}
    scores, ranges = by_overlap = accuracy_by_overlap(right, overlap)
    assert scores == {"m": [100.0, 50.0, 0.0, 50.0]}  # two pairs a group, least overlap first
    assert by_overlap.scores is scores and by_overlap.ranges is ranges
    assert ranges[0].startswith("10-") and ranges[-1].endswith("-80 %") and len(ranges) == 4
    with pytest.raises(ValueError, match="overlap"):
        accuracy_by_overlap(right, overlap[None])
    # a NamedTuple (08 unpacks it), checked when made: an accuracy per group of overlap
    with pytest.raises(ValueError, match=r"ByOverlap\(\): scores\['m'\] must match ranges"):
        type(by_overlap)(scores={"m": [50.0]}, ranges=["10-50 %", "50-80 %"])


def test_sweep_curves_and_their_lowest_points():
    class Upright(torch.nn.Module):
        """Says 1 when the ink is taller than wide: right only near upright."""

        def predict(self, x):
            ink = x[:, 0] > 0.5
            return (ink.any(2).sum(1) > ink.any(1).sum(1)).long()

    x = torch.zeros(2, 1, 28, 28)
    x[:, 0, 6:22, 12:16] = 1.0
    curves = sweep_curves({"upright": Upright()}, x, torch.ones(2, dtype=torch.long))
    assert [sweep.factor for sweep in curves["upright"]] == list(transformed_mnist.SWEEPS)
    rotation = curves["upright"][0]
    assert rotation.accuracy[0] == 1.0
    assert rotation.values == tuple(transformed_mnist.SWEEPS["rotation"])
    assert all(len(sweep.accuracy) == len(transformed_mnist.SWEEPS[sweep.factor])
               for sweep in curves["upright"])
    lowest = {sweep.factor: 100 * min(sweep.accuracy) for sweep in curves["upright"]}
    assert lowest_points(curves) == ["upright: lowest accuracy per sweep: " + ", ".join(
        f"{f} {a:.1f} %" for f, a in lowest.items())]


def test_sample_line_counts_the_readings_that_differ_from_the_record():
    from capsedu.robustness import sample_line

    full = {"a": torch.tensor([True, False, True, True, False]),
            "b": torch.tensor([True, True, True, True, True])}
    rows = [4, 1, 0]
    sample = {name: right[rows] for name, right in full.items()}
    line = sample_line(sample, full, rows)
    assert line == ("this run's sample of 3 (rows of the full set): a 33.33 %, b 100.00 %; each "
                    "reads every image as the record does")
    sample["b"] = torch.tensor([False, True, False])
    assert sample_line(sample, full, rows).endswith("2 readings differ from the record's")

"""Notebook 09's widget and the function behind it (``bug_zoo_report.zoo_state``), driven
kernel-side on the shipped CapsNet and the first MNIST test digits."""

import numpy as np
import pytest
import torch
from test_bug_zoo import zoo_run

from capsedu import dynamic_routing, pretrained, routing_step
from capsedu.bug_catalogue import BUGS
from capsedu.bug_zoo import CORRECT, CouplingStats, ZooRun
from capsedu.bug_zoo_report import NO_RUNS, inference_step, zoo_state
from capsedu.buggy import step_logits_shared_over_batch, step_softmax_over_children
from capsedu.statistics import running_mean
from capsedu.widgets import BugZooExplorer

TRAINING_ONLY = ["unsquared-margin-loss", "mask-by-prediction", "detached-output"]


@pytest.fixture(scope="module")
def digits():
    """The shipped CapsNet, 8 test digits and their votes u_hat [8, 288, 10, 16]."""
    from capsedu.data.mnist import load_mnist

    try:
        images, labels = load_mnist(False, 8)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    model = pretrained("capsnet-mnist")
    with torch.no_grad():
        return model, images, labels, model.votes(images)


def record(accuracy: float, steps: int = 40) -> ZooRun:
    """A recorded run whose fields that the widget reads are given."""
    return zoo_run(batch_accuracy=tuple(np.linspace(0.1, accuracy, steps)), test_accuracy=accuracy,
                   couplings=(CouplingStats(entropy=1.0, distance=0.0, polarised=0.0, vote=1.0),
                              CouplingStats(entropy=0.95, distance=0.1, polarised=0.02, vote=1.0)))


def test_correct_routing_couplings_sum_to_one_over_the_parents(digits):
    _, _, labels, votes = digits
    s = zoo_state(votes, labels, index=2, iterations=3)
    np.testing.assert_allclose(s.c, dynamic_routing(votes[2:3], 3).c[0].numpy())
    np.testing.assert_allclose(s.child_sums, 1.0, atol=1e-5)  # one vote per child
    assert s.parent_sums.sum() == pytest.approx(votes.shape[1], rel=1e-5)
    assert not s.live and not s.shared and s.label == int(labels[2])
    # the rows shown are the children with the longest votes, longest first
    lengths = votes[2].norm(dim=-1).mean(dim=-1)
    assert len(s.shown) == 20 and lengths[s.shown].tolist() == sorted(
        lengths[s.shown].tolist(), reverse=True)
    assert lengths[s.shown[-1]] >= lengths.sort(descending=True).values[19]


def test_softmax_over_children_sums_to_one_over_the_children_instead(digits):
    _, _, labels, votes = digits
    s = zoo_state(votes, labels, iterations=3, bug="softmax-over-children")
    assert s.live
    np.testing.assert_allclose(
        s.c, dynamic_routing(votes[:1], 3, step=step_softmax_over_children).c[0].numpy())
    np.testing.assert_allclose(s.parent_sums, 1.0, atol=1e-5)
    # each child sends n_out / n_in of a vote on average, not 1
    assert s.child_sums.mean() == pytest.approx(10 / votes.shape[1], rel=1e-4)
    assert not np.allclose(s.child_sums, 1.0, atol=0.5)


def test_more_iterations_polarise_the_couplings_of_the_trained_model(digits):
    _, _, labels, votes = digits
    for index in range(3):
        entropy = [zoo_state(votes, labels, index, r).trace[-1].entropy for r in range(1, 6)]
        assert entropy[0] == pytest.approx(1.0)  # the first iteration couples uniformly
        assert all(a > b for a, b in zip(entropy, entropy[1:], strict=False)), entropy
    trace = zoo_state(votes, labels, 0, 5).trace
    assert len(trace) == 5 and trace[-1].polarised > trace[0].polarised == 0


def test_training_only_bugs_leave_the_routing_as_the_paper_does(digits):
    _, _, labels, votes = digits
    correct = zoo_state(votes, labels, iterations=3)
    assert [name for name in BUGS if inference_step(name) is routing_step] == TRAINING_ONLY
    for name in TRAINING_ONLY:
        s = zoo_state(votes, labels, iterations=3, bug=name)
        assert not s.live
        np.testing.assert_array_equal(s.c, correct.c)
        np.testing.assert_array_equal(s.lengths, correct.lengths)
    # the claim itself: each of those bugs' models routes a batch as the correct model does
    from capsedu.buggy_capsnet import BuggyCapsNet
    from capsedu.capsnet import SMALL

    correct_model, x = digits[0], digits[1][:2]
    with torch.no_grad():
        paper = correct_model(x).routing.c
        for name in TRAINING_ONLY:
            buggy = BuggyCapsNet(name, SMALL)
            buggy.load_state_dict(correct_model.state_dict())
            assert torch.equal(buggy.eval()(x).routing.c, paper), name


def test_shared_logits_route_the_digit_with_the_others(digits):
    _, _, labels, votes = digits
    s = zoo_state(votes, labels, index=1, iterations=3, bug="logits-shared-over-batch")
    assert s.live and s.shared and s.n_digits == 8
    shared = dynamic_routing(votes, 3, step=step_logits_shared_over_batch).c[1].numpy()
    np.testing.assert_allclose(s.c, shared)
    assert not np.allclose(s.c, zoo_state(votes, labels, index=1, iterations=3).c,
                           atol=1e-3)
    # another batch around the same digit: other couplings for it
    fewer = zoo_state(votes[:2], labels[:2], index=1, iterations=3,
                      bug="logits-shared-over-batch")
    assert not np.allclose(fewer.c, s.c, atol=1e-3)


def test_recorded_runs_are_smoothed_and_missing_ones_named(digits):
    _, _, labels, votes = digits
    np.testing.assert_allclose(running_mean([1.0, 2.0, 3.0, 4.0], window=2), [1, 1.5, 2.5, 3.5])
    results = {CORRECT: record(0.98), "mask-by-prediction": record(0.9)}
    s = zoo_state(votes, labels, bug="mask-by-prediction", results=results)
    assert list(s.curves) == [CORRECT, "mask-by-prediction"] and s.curve_note == ""
    np.testing.assert_allclose(s.curves[CORRECT], running_mean(results[CORRECT].batch_accuracy))
    assert s.recorded == results
    s = zoo_state(votes, labels, bug="detached-output", results=results)
    assert list(s.curves) == [CORRECT] and "detached-output" in s.curve_note
    s = zoo_state(votes, labels, bug="detached-output", results={})
    assert s.curves == {} and s.recorded == {} and s.curve_note == NO_RUNS
    assert "python -m capsedu.bug_zoo" in NO_RUNS


@pytest.mark.parametrize("arguments, message", [
    ({"index": 8}, r"index must be < 8"),
    ({"index": -1}, r"index must be an integer >= 0"),
    ({"bug": "softmax"}, r"bug must be one of 'correct'"),
    ({"iterations": 0}, r"iterations must be an integer >= 1"),
])
def test_zoo_state_names_a_bad_argument(digits, arguments, message):
    _, _, labels, votes = digits
    with pytest.raises(ValueError, match=message):
        zoo_state(votes, labels, **arguments)
    with pytest.raises(ValueError, match=r"labels must hold one label per digit of votes \(8\)"):
        zoo_state(votes, labels[:3])


def test_widget_bug_toggle_iterations_and_recorded_runs(digits):
    model, images, labels, _ = digits
    results = {CORRECT: record(0.98), "softmax-over-children": record(0.7),
               "mask-by-prediction": record(0.9)}
    w = BugZooExplorer(model, images, labels, results=results)
    assert w.state.bug == CORRECT and w.state.iterations == 3
    assert "Σ_j c_ij = 1.000 per child" in w.readout.value
    png = w.image.value
    assert png[:8] == b"\x89PNG\r\n\x1a\n"

    w.bug.value = "softmax-over-children"
    np.testing.assert_allclose(w.state.parent_sums, 1.0, atol=1e-5)
    assert "Switched on in this model's routing" in w.readout.value
    assert "Σ_i c_ij = 1.000 per parent" in w.readout.value and w.image.value != png

    w.bug.value = "mask-by-prediction"
    assert "changes training, not routing" in w.readout.value
    assert "90.00 % test accuracy (the correct model's: 98.00 %)" in w.readout.value

    w.bug.value = "logits-shared-over-batch"
    assert "routed in one batch with the other 7 digits" in w.readout.value
    assert "no recorded run of logits-shared-over-batch" in w.state.curve_note

    w.bug.value = CORRECT
    before = w.state.trace
    w.iterations.value = 5
    assert len(w.state.trace) == 5 and w.state.trace[-1].entropy < before[-1].entropy
    assert w.readout.value.count(" → ") == 4
    w.digit.value = 3
    assert w.state.label == int(labels[3]) and f"a {int(labels[3])}" in w.readout.value


def test_widget_without_recorded_runs_says_how_to_make_them(digits):
    model, images, labels, _ = digits
    w = BugZooExplorer(model, images[:2], labels[:2], results={})
    assert w.state.curve_note == NO_RUNS and w.image.value
    w.bug.value = "detached-output"
    assert "not there yet: run python -m capsedu.bug_zoo" in w.readout.value

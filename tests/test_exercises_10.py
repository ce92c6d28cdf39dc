"""Notebook 10's checker accepts the reference and the solution, rejects plausible mistakes and
says which one it saw."""

import importlib.util
from pathlib import Path

import pytest
import torch

from capsedu.exercises import check_c4_filters
from capsedu.group_conv import group_filters


def solution():
    path = Path(__file__).parents[1] / "notebooks/solutions/10_the_legacy_equivariance.py"
    spec = importlib.util.spec_from_file_location("solution10", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def turn(W, r):
    return torch.rot90(W, r, dims=(-2, -1))


def stacked(copies):
    """Four copies [C_out, C_in, 4, k, k] -> [C_out * 4, C_in * 4, k, k], the right order."""
    c_out, c_in, _, k, _ = copies[0].shape
    return torch.stack(copies, dim=1).reshape(c_out * 4, c_in * 4, k, k)


def test_the_checker_accepts_the_reference_and_the_solution(capsys):
    assert check_c4_filters(group_filters) is True
    assert check_c4_filters(solution().my_c4_filters) is True
    out = capsys.readouterr().out
    assert "equivariance: PASS" in out and "c4_filters: PASS" in out


def neither(W):
    return stacked([W for r in range(4)])


def turn_without_shift(W):
    return stacked([turn(W, r) for r in range(4)])


def shift_without_turn(W):
    return stacked([W.roll(r, dims=2) for r in range(4)])


def shift_the_wrong_way(W):
    return stacked([turn(W, r).roll(-r, dims=2) for r in range(4)])


def turn_the_wrong_way(W):
    return stacked([turn(W, -r).roll(r, dims=2) for r in range(4)])


def copies_first(W):  # output channel r * C_out + o instead of o * 4 + r
    c_out, c_in, _, k, _ = W.shape
    return torch.stack([turn(W, r).roll(r, dims=2) for r in range(4)]).reshape(
        c_out * 4, c_in * 4, k, k)


def rotations_first(W):  # input channel s * C_in + i instead of i * 4 + s
    c_out, c_in, _, k, _ = W.shape
    copies = torch.stack([turn(W, r).roll(r, dims=2) for r in range(4)], dim=1)
    return copies.transpose(2, 3).reshape(c_out * 4, c_in * 4, k, k)


@pytest.mark.parametrize("wrong, hint", [
    (neither, "neither turned nor shifted"),
    (turn_without_shift, "does not shift the rotation axis"),
    (shift_without_turn, "does not turn the slices"),
    (shift_the_wrong_way, "shifts the wrong way"),
    (turn_the_wrong_way, "slices turn the wrong way"),
    (copies_first, "stacked in the wrong order"),
    (rotations_first, "input channels are flattened in the wrong order"),
])
def test_the_checker_rejects_each_mistake_and_names_it(wrong, hint, capsys):
    assert check_c4_filters(wrong) is False
    out = capsys.readouterr().out
    assert "equivariance: FAIL" in out and "What to look at:" in out and hint in out


def test_an_equivariant_answer_that_is_not_the_reference_fails_the_comparison(capsys):
    assert check_c4_filters(lambda W: 2 * group_filters(W)) is False  # still equivariant
    out = capsys.readouterr().out
    assert "equivariance: PASS" in out and "c4_filters: FAIL" in out


def test_the_checker_waits_for_an_answer_and_survives_a_crash(capsys):
    def stub(W):
        raise NotImplementedError("Exercise: write c4_filters")

    assert check_c4_filters(stub) is None
    assert "not implemented yet" in capsys.readouterr().out
    # a shape conv2d would refuse: told by the filters' shapes, before the layer runs
    assert check_c4_filters(lambda W: W.flatten(0, 2)) is False
    assert ("the filters you returned: expected a tensor of shape (4, 4, 3, 3), got one of shape "
            "(4, 3, 3)") in capsys.readouterr().out
    assert check_c4_filters(lambda W: group_filters(W).view(-1, 5)) is False  # a learner's crash
    assert "it raised RuntimeError" in capsys.readouterr().out

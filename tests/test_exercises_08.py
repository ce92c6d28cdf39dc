"""Notebook 08's checkers accept the reference and the solution and reject plausible mistakes."""

import importlib.util
import math
from pathlib import Path

import torch

from capsedu.data.transformed_mnist import affine_matrix
from capsedu.exercises import check_affine_matrix, check_both_correct


def solution():
    path = Path(__file__).parents[1] / "notebooks/solutions/08_viewpoint_and_robustness.py"
    spec = importlib.util.spec_from_file_location("solution08", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rotation(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return torch.tensor([[c, s], [-s, c]])


def shear(k):
    return torch.tensor([[1.0, k], [0.0, 1.0]])


def test_affine_checker_accepts_the_reference_and_the_solution(capsys):
    assert check_affine_matrix(affine_matrix) is True
    assert check_affine_matrix(solution().my_affine_matrix) is True
    assert "affine_matrix: PASS" in capsys.readouterr().out


def test_affine_checker_rejects_plausible_mistakes(capsys):
    def radians_as_degrees(r, k, sx, sy):  # cos(30) of radians
        c, s = math.cos(r), math.sin(r)
        return torch.tensor([[c, s], [-s, c]]) @ shear(k) @ torch.diag(torch.tensor([sx, sy]))

    def clockwise(r, k, sx, sy):
        return rotation(r).T @ shear(k) @ torch.diag(torch.tensor([sx, sy]))

    def turn_first(r, k, sx, sy):  # S Sh R instead of R Sh S
        return torch.diag(torch.tensor([sx, sy])) @ shear(k) @ rotation(r)

    def shear_in_y(r, k, sx, sy):
        return rotation(r) @ shear(k).T @ torch.diag(torch.tensor([sx, sy]))

    for wrong in (radians_as_degrees, clockwise, turn_first, shear_in_y):
        assert check_affine_matrix(wrong) is False, wrong.__name__
    assert "FAIL" in capsys.readouterr().out


def test_affine_checker_waits_for_an_answer(capsys):
    def stub(*args):
        raise NotImplementedError

    assert check_affine_matrix(stub) is None
    assert "not implemented yet" in capsys.readouterr().out


def test_both_correct_checker_accepts_the_solution_and_a_python_float(capsys):
    assert check_both_correct(solution().my_both_correct) is True

    def as_float(p, y):
        return float((torch.sort(p).values == torch.sort(y).values).all(1).float().mean())

    assert check_both_correct(as_float) is True


def test_both_correct_checker_rejects_plausible_mistakes(capsys):
    def order_matters(p, y):
        return (p == y).all(1).float().mean()

    def per_digit(p, y):
        return (p.sort(1).values == y.sort(1).values).float().mean()

    def one_is_enough(p, y):
        return (p.sort(1).values == y.sort(1).values).any(1).float().mean()

    def a_count(p, y):
        return (p.sort(1).values == y.sort(1).values).all(1).sum()

    for wrong in (order_matters, per_digit, one_is_enough, a_count):
        assert check_both_correct(wrong) is False, wrong.__name__

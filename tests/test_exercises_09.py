"""Notebook 09's "find the bug": the checker accepts the reference and the fix, rejects the planted
bug and every other plausible mistake, and names the mistake it recognises."""

import difflib
import importlib.util
import inspect
from pathlib import Path

import pytest
import torch

from capsedu import dynamic_routing, squash
from capsedu.exercises import check_dynamic_routing


def solution():
    path = Path(__file__).parents[1] / "notebooks/solutions/09_routing_under_the_microscope.py"
    spec = importlib.util.spec_from_file_location("solution09", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def planted():
    """The function the notebook gives, bug included, defined as the notebook's cell defines it."""
    namespace = {"torch": torch, "squash": squash}
    exec(solution().PLANTED, namespace)
    return namespace["my_dynamic_routing"]


def test_accepts_the_reference_and_the_fix(capsys):
    assert check_dynamic_routing(lambda u_hat, r: tuple(dynamic_routing(u_hat, r))[:2]) is True
    assert check_dynamic_routing(solution().my_dynamic_routing) is True
    out = capsys.readouterr().out
    assert out.count("dynamic_routing: PASS") == 2 and "What to look at" not in out


def test_the_planted_bug_is_one_line_and_is_named(capsys):
    fix = inspect.getsource(solution().my_dynamic_routing).splitlines()
    changed = [line for line in difflib.ndiff(solution().PLANTED.splitlines(), fix)
               if line.startswith(("- ", "+ "))]
    assert len(changed) == 2 and "dim=1" in changed[0] and "dim=2" in changed[1]
    assert check_dynamic_routing(planted()) is False
    assert "sum to 1 over the children" in capsys.readouterr().out


def test_waits_for_an_answer(capsys):
    def stub(u_hat, iterations):
        raise NotImplementedError("Exercise: find the bug")

    assert check_dynamic_routing(stub) is None
    assert "not implemented yet" in capsys.readouterr().out


# --- Plausible wrong answers, each with the words its hint must contain ---------------------------


def logits_summed_over_batch(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v).sum(dim=0, keepdim=True)
    return v, c


def logits_averaged_over_batch(u_hat, iterations):
    b = torch.zeros(1, *u_hat.shape[1:3])  # one b for the whole batch
    for _ in range(iterations):
        c = torch.softmax(b, dim=2).expand(u_hat.shape[:3])
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v).mean(dim=0, keepdim=True)
    return v, c


def softmax_over_the_batch(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=0)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def sigmoid_not_softmax(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.sigmoid(b)  # a probability per pair, but not one vote shared among the parents
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def no_squash(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)
        v = torch.einsum("bij,bijd->bjd", c, u_hat)
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def couplings_after_the_update(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    c = torch.softmax(b, dim=2)
    for _ in range(iterations):
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
        c = torch.softmax(b, dim=2)  # the couplings of the next iteration, returned with v
    return v, c


def mean_over_the_children(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat) / u_hat.shape[1])
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def one_iteration_too_many(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations + 1):
        c = torch.softmax(b, dim=2)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def one_iteration_too_few(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    c = torch.softmax(b, dim=2)  # uniform coupling first, outside the loop
    v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
    for _ in range(iterations - 1):
        c = torch.softmax(b, dim=2)  # but b is not updated from that first v
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)
    return v, c


def agreement_replaces_b(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        b = torch.einsum("bijd,bjd->bij", u_hat, v)  # b = a instead of b += a
    return v, c


def agreement_with_s(u_hat, iterations):
    b = torch.zeros(u_hat.shape[:3])
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)
        s = torch.einsum("bij,bijd->bjd", c, u_hat)
        v = squash(s)
        b = b + torch.einsum("bijd,bjd->bij", u_hat, s)  # s, not v
    return v, c


def v_only(u_hat, iterations):
    return dynamic_routing(u_hat, iterations).v


def couplings_transposed(u_hat, iterations):
    result = dynamic_routing(u_hat, iterations)
    return result.v, result.c.transpose(1, 2)


@pytest.mark.parametrize("wrong, says", [
    (logits_summed_over_batch, "other examples share its batch"),
    (logits_averaged_over_batch, "other examples share its batch"),
    (softmax_over_the_batch, "other examples share its batch"),
    (sigmoid_not_softmax, "do not sum to 1 over the parents"),
    (no_squash, "squash of Eq. 1"),
    (couplings_after_the_update, "for the c you return"),
    (mean_over_the_children, "for the c you return"),
    (one_iteration_too_many, "one iteration too many"),
    (one_iteration_too_few, "one iteration too few"),
    (agreement_replaces_b, "must accumulate the agreements"),
    (agreement_with_s, "off by"),
    (v_only, "expected 2 result(s), got 1"),
    (couplings_transposed, "expected a tensor of shape"),
])
def test_rejects_a_plausible_mistake_and_says_what_it_is(wrong, says, capsys):
    assert check_dynamic_routing(wrong) is False
    out = capsys.readouterr().out
    assert "dynamic_routing: FAIL" in out and says in out, out


def test_a_crash_is_a_fail_not_an_error(capsys):
    def wrong_einsum(u_hat, iterations):
        b = torch.zeros(u_hat.shape[:3])
        c = torch.softmax(b, dim=2)
        return squash(torch.einsum("bij,bjd->bjd", c, u_hat)), c

    assert check_dynamic_routing(wrong_einsum) is False
    assert "it raised RuntimeError" in capsys.readouterr().out

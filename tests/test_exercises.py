"""Each checker accepts the reference and rejects known-wrong versions."""

import torch

from capsedu import squash
from capsedu.exercises import check_squash


def stub(s):
    raise NotImplementedError("Exercise: implement squash")


def wrong_axis(s):
    return squash(s, dim=0)


def unsquared(s):  # ||s|| / (1 + ||s||) instead of ||s||^2 / (1 + ||s||^2)
    n = s.norm(dim=-1, keepdim=True)
    return n / (1 + n) * s / (n + 1e-8)


def no_eps(s):  # NaN at s = 0
    n2 = (s * s).sum(-1, keepdim=True)
    return n2 / (1 + n2) * s / n2.sqrt()


def test_accepts_the_reference(capsys):
    assert check_squash(squash) is True
    assert "PASS" in capsys.readouterr().out


def test_stub_is_reported_as_not_implemented(capsys):
    assert check_squash(stub) is None
    assert "not implemented yet" in capsys.readouterr().out


def test_rejects_known_wrong_versions(capsys):
    for wrong in (wrong_axis, unsquared, no_eps, lambda s: s, lambda s: s.sum(-1)):
        assert check_squash(wrong) is False, wrong
        assert "FAIL" in capsys.readouterr().out


def test_learner_cannot_corrupt_the_reference_inputs():
    def in_place(s):
        s.zero_()
        return squash(s)

    assert check_squash(in_place) is False
    assert torch.isfinite(squash(torch.zeros(1, 2))).all()

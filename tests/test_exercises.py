"""Each checker accepts the reference and rejects known-wrong versions."""

import torch

from capsedu import squash
from capsedu.exercises import check_squash


def stub(*args):
    raise NotImplementedError("Exercise: implement squash")


def wrong_axis(s):
    return squash(s, dim=0)


def unsquared(s):  # ||s|| / (1 + ||s||) instead of ||s||^2 / (1 + ||s||^2)
    n = s.norm(dim=-1, keepdim=True)
    return n / (1 + n) * s / (n + 1e-8)


def no_eps(s):  # NaN at s = 0
    n2 = (s * s).sum(-1, keepdim=True)
    return n2 / (1 + n2) * s / n2.sqrt()


def eps_outside_the_root(s, eps=1e-8):  # notebook 03, section 4: finite value, NaN gradient at 0
    n2 = (s * s).sum(-1, keepdim=True)
    return n2 / (1 + n2) * s / (n2.sqrt() + eps)


def eps_outside_the_norm(s, eps=1e-8):  # notebook 03, exercise 5: torch's norm has gradient 0 at 0
    n = s.norm(dim=-1, keepdim=True)
    return n**2 / (1 + n**2) * s / (n + eps)


def test_accepts_the_reference_and_the_solution(capsys):
    import importlib.util
    from pathlib import Path

    assert check_squash(squash) is True
    out = capsys.readouterr().out
    assert "squash: PASS" in out and "squash's gradient: PASS" in out
    path = Path(__file__).parents[1] / "notebooks/solutions/03_squash.py"
    spec = importlib.util.spec_from_file_location("solution03", path)
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    assert check_squash(solution.my_squash) is True


def test_accepts_a_squash_whose_gradient_is_finite_for_another_reason():
    assert check_squash(eps_outside_the_norm) is True


def test_rejects_eps_outside_the_root_by_its_gradient(capsys):
    zero = torch.zeros(1, 4, requires_grad=True)
    eps_outside_the_root(zero).sum().backward()
    assert zero.grad.isnan().all()  # the version notebook 03 warns about
    assert check_squash(eps_outside_the_root) is False
    out = capsys.readouterr().out
    assert "squash: PASS" in out  # its values are right...
    assert "squash's gradient: FAIL - for s = 0, your result contains NaN" in out  # ...not slope


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


def reference_step(u_hat, b):
    from capsedu import routing_step

    return routing_step(u_hat, b)


def step_softmax_over_children(u_hat, b):
    from capsedu.buggy import step_softmax_over_children

    return step_softmax_over_children(u_hat, b)


def step_without_squash(u_hat, b):
    c = torch.softmax(b, dim=2)
    s = torch.einsum("bij,bijd->bjd", c, u_hat)
    return c, s, b + torch.einsum("bijd,bjd->bij", u_hat, s)


def step_forgets_old_logits(u_hat, b):
    c, v, _ = reference_step(u_hat, b)
    return c, v, torch.einsum("bijd,bjd->bij", u_hat, v)


def step_averages_over_batch(u_hat, b):
    c, v, b_new = reference_step(u_hat, b)
    return c, v, b_new.mean(dim=0, keepdim=True).expand_as(b_new)


def test_routing_step_checker(capsys):
    from capsedu.exercises import check_routing_step

    assert check_routing_step(reference_step) is True
    assert check_routing_step(stub) is None
    for wrong in (step_softmax_over_children, step_without_squash, step_forgets_old_logits,
                  step_averages_over_batch, lambda u, b: reference_step(u, b)[:2]):
        assert check_routing_step(wrong) is False, wrong
    out = capsys.readouterr().out
    assert out.count("FAIL") == 5 and "not implemented yet" in out


def test_a_fail_names_the_case_the_output_the_element_and_by_how_much(capsys):
    from capsedu.exercises import check_routing_step

    assert check_routing_step(step_forgets_old_logits) is False
    out = capsys.readouterr().out
    # the first case starts from b = 0, where forgetting b is no mistake: the second shows it
    assert "for u_hat of shape (1, 5, 4, 8), b of shape (1, 5, 4), b at element [" in out
    assert "off by" in out
    assert ", c at element" not in out and ", v at element" not in out  # c and v are right
    assert "tensor(" not in out and len(out.splitlines()) <= 3  # shapes, never the numbers
    assert "What to look at: your new b is the agreement alone" in out


def test_a_correct_answer_passes_whatever_its_numeric_type(capsys):
    import numpy as np

    from capsedu.exercises import check_routing_step

    def as_numpy(u_hat, b):
        return tuple(t.numpy() for t in reference_step(u_hat, b))

    def in_float64(u_hat, b):
        return tuple(t.double() for t in reference_step(u_hat, b))

    assert check_routing_step(as_numpy) is True
    # a torch result in another dtype than the input's is refused, as check_squash refuses it
    # (checking._kept_dtype): a model's next layer would refuse it
    capsys.readouterr()
    assert check_routing_step(in_float64) is False
    assert "returned torch.float64 numbers for torch.float32 input" in capsys.readouterr().out

    from capsedu.exercises import check_both_correct

    def both(predicted, labels):  # a 0-d tensor
        same = predicted.sort(dim=1).values == labels.sort(dim=1).values
        return same.all(dim=1).double().mean()

    assert check_both_correct(both) is True
    assert check_both_correct(lambda p, y: np.float32(both(p, y))) is True  # a NumPy scalar
    assert check_both_correct(lambda p, y: float(both(p, y))) is True  # a Python float
    assert "FAIL" not in capsys.readouterr().out


def test_an_error_of_the_checker_is_not_reported_as_the_learners(capsys):
    from capsedu.exercises import check

    def broken_reference(x):
        raise RuntimeError("the course's own bug")

    assert check("x", lambda x: x, broken_reference, [(torch.ones(2),)]) is None
    out = capsys.readouterr().out
    assert "the checker itself failed" in out and "not of your answer" in out
    assert "FAIL" not in out


def _solutions_07():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "notebooks/solutions/07_faces_parts_vote_for_wholes.py"
    spec = importlib.util.spec_from_file_location("solutions_07", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_face_vote_checker(capsys):
    from capsedu.exercises import check_face_vote

    solution = _solutions_07().face_vote
    assert check_face_vote(solution) is True
    assert check_face_vote(stub) is None

    def forgets_w(poses, W):  # the part's own pose, not the face's
        return poses.clone()

    def w_on_the_left(poses, W):  # W P instead of P W
        import numpy as np

        from capsedu.poses import pose_from_matrix, pose_matrix

        M = W.numpy() @ pose_matrix(*poses.numpy().T)
        return torch.from_numpy(np.stack(pose_from_matrix(M), axis=-1))

    def angle_in_radians(poses, W):
        out = solution(poses, W)
        out[:, 2] = torch.deg2rad(out[:, 2])
        return out

    for wrong in (forgets_w, w_on_the_left, angle_in_radians):
        assert check_face_vote(wrong) is False, wrong.__name__
    assert "FAIL" in capsys.readouterr().out


def test_fit_transform_checker(capsys):
    from capsedu.exercises import check_fit_transform

    assert check_fit_transform(_solutions_07().fit_transform) is True
    assert check_fit_transform(stub) is None

    def first_face_only(P, F):  # exact for one face, not the best for all
        return torch.linalg.inv(P[0]) @ F[0]

    def average_of_solutions(P, F):  # the mean of per-face solutions is not least squares
        return (torch.linalg.inv(P) @ F).mean(dim=0)

    def wrong_side(P, F):  # solves W P = F
        return (F @ torch.linalg.inv(P)).mean(dim=0)

    for wrong in (first_face_only, average_of_solutions, wrong_side):
        assert check_fit_transform(wrong) is False, wrong.__name__
    assert "FAIL" in capsys.readouterr().out


def test_a_learner_function_that_exits_is_one_fail_line(capsys):
    import sys

    from capsedu.exercises import check, check_dynamic_routing

    assert check("x", lambda x: sys.exit(3), lambda x: x, [(torch.ones(2),)]) is False
    assert check_dynamic_routing(lambda u_hat, iterations: exit(1)) is False
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all("FAIL" in line and "your function exited" in line
                                 for line in out), out


def test_cases_the_reference_cannot_take_are_named(capsys):
    from capsedu.exercises import check

    assert check("x", lambda x: x, torch.sqrt, [("abc",)]) is None
    out = capsys.readouterr().out
    assert "`cases`" in out and "'abc'" in out and "FAIL" not in out
    assert check("x", lambda x: x, torch.sqrt, cases="abc") is False
    assert "FAIL - cases must be" in capsys.readouterr().out

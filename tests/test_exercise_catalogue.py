"""The checkers against answers a learner plausibly writes (issue 34): right answers in other
types, dtypes and containers pass; wrong ones, and right ones that change their inputs, fail; no
answer makes a checker raise or blame the course; a FAIL is a few lines and names the mistakes
the notebooks discuss."""

import numpy as np
import pytest
import torch

from capsedu import exercises
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.functional import squash
from capsedu.routing import dynamic_routing, routing_step


def out_of(capsys) -> str:
    return capsys.readouterr().out


def test_a_right_answer_that_changes_its_input_fails_and_cannot_change_the_cases(capsys):
    def squash_in_place(s):
        v = squash(s)
        s.zero_()  # the learner's copy: the checker's cases and the reference stay as they were
        return v

    assert exercises.check_squash(squash_in_place) is False
    out = out_of(capsys)
    assert "changed its input (argument 1) in place" in out and "x = x.clone()" in out
    assert exercises.check_squash(squash) is True  # the cases are intact


def test_a_learner_cannot_pass_the_c4_checker_by_zeroing_its_cases(capsys):
    def zeroes(weight):
        weight.zero_()
        return torch.zeros(weight.shape[0] * 4, weight.shape[1] * 4, *weight.shape[-2:],
                           dtype=weight.dtype)

    assert exercises.check_c4_filters(zeroes) is False


@pytest.mark.parametrize("convert", [lambda t: t.numpy(), lambda t: t.tolist()],
                         ids=["numpy", "list"])
def test_right_routing_steps_in_other_types_pass(capsys, convert):
    assert exercises.check_routing_step(lambda u, b: tuple(convert(t) for t in routing_step(u, b)))
    assert exercises.check_routing_step(lambda u, b: list(routing_step(u, b)))  # a list for a tuple
    assert "FAIL" not in out_of(capsys)


def test_a_routing_step_that_changes_the_dtype_fails_as_squash_does(capsys):
    """Round sixteen (r77): float64 out of float32 in is a FAIL that teaches, as check_squash's
    is: the model's next layer would refuse it (NumPy and lists of the same values still pass)."""
    assert exercises.check_routing_step(
        lambda u, b: tuple(t.double() for t in routing_step(u, b))) is False
    assert "dtype" in out_of(capsys)


def test_whole_numbers_pass_as_zero_d_tensors_and_numpy_scalars(capsys):
    from capsedu.baselines import receptive_field

    def rf(stack):
        return receptive_field(torch.nn.Sequential(*[torch.nn.Conv2d(1, 1, k, s)
                                                     for k, s in stack]))

    assert exercises.check_receptive_field(lambda stack: torch.tensor(rf(stack))) is True
    assert exercises.check_receptive_field(lambda stack: np.int64(rf(stack))) is True
    assert exercises.check_digitcaps_parameters(
        lambda cfg: torch.tensor(CapsNet(cfg).digits.W.numel())) is True
    assert exercises.check_receptive_field(lambda stack: torch.tensor(True)) is False
    assert "FAIL" in out_of(capsys)


def test_digitcaps_parameters_rejects_a_grid_off_by_one_pixel(capsys):
    def grid_off_by_one(cfg: CapsNetConfig) -> int:  # forgets Conv1's + 1
        grid = (cfg.image_size - cfg.conv_kernel - cfg.primary_kernel) // cfg.primary_stride + 1
        return grid**2 * cfg.primary_maps * cfg.n_classes * cfg.primary_dim * cfg.digit_dim

    assert exercises.check_digitcaps_parameters(grid_off_by_one) is False


def test_complex_and_nan_answers_fail_with_a_hint(capsys):
    assert exercises.check_squash(lambda s: squash(s).to(torch.complex64)) is False
    assert "complex numbers" in out_of(capsys)

    def nan_at_zero(s):
        n = s.norm(dim=-1, keepdim=True)
        return n**2 / (1 + n**2) * s / n

    assert exercises.check_squash(nan_at_zero) is False
    assert "NaN where the reference is finite" in out_of(capsys)


def test_a_numpy_squash_gets_a_sentence_not_the_checkers_error(capsys):
    def numpy_squash(s):
        s = np.asarray(s.detach())
        n2 = (s**2).sum(-1, keepdims=True)
        return n2 / (1 + n2) * s / np.sqrt(n2 + 1e-12)

    assert exercises.check_squash(numpy_squash) is False
    out = out_of(capsys)
    assert "no gradient flows through NumPy" in out and "the checker itself" not in out


def test_the_routing_step_names_the_softmax_axis_and_the_missing_squash(capsys):
    def over_children(u_hat, b):
        c = torch.softmax(b, dim=1)
        v = squash(torch.einsum("bij,bijd->bjd", c, u_hat))
        return c, v, b + torch.einsum("bijd,bjd->bij", u_hat, v)

    def no_squash(u_hat, b):
        c = torch.softmax(b, dim=2)
        s = torch.einsum("bij,bijd->bjd", c, u_hat)
        return c, s, b + torch.einsum("bijd,bjd->bij", u_hat, s)

    assert exercises.check_routing_step(over_children) is False
    assert "notebook 04, section 6" in out_of(capsys)
    assert exercises.check_routing_step(no_squash) is False
    assert "the squash of Eq. 1" in out_of(capsys)


def test_dynamic_routing_with_numpy_answers_fails_without_crashing(capsys):
    def numpy_routing(u_hat, iterations):
        result = dynamic_routing(u_hat, iterations)
        return result.v.numpy(), torch.softmax(result.b, dim=1).numpy()  # wrong axis, NumPy

    assert exercises.check_dynamic_routing(numpy_routing) is False
    out = out_of(capsys)
    assert "FAIL" in out and "Traceback" not in out


def test_decoder_input_names_masking_by_the_prediction(capsys):
    model = CapsNet(CapsNetConfig(conv_channels=8, primary_maps=2))

    def by_prediction(v, labels):
        keep = torch.nn.functional.one_hot(v.norm(dim=-1).argmax(1), v.shape[1])
        return (v * keep[..., None]).flatten(1)

    def right_in_float64(v, labels):
        keep = torch.nn.functional.one_hot(labels, v.shape[1]).double()
        return (v.double() * keep[..., None]).flatten(1)

    assert exercises.check_decoder_input(by_prediction, model) is False
    out = out_of(capsys)
    assert "the prediction" in out and "the decoder's input at element" in out
    # right in value, but the decoder would refuse float64: the checkers' one dtype rule
    assert exercises.check_decoder_input(right_in_float64, model) is False
    assert "returned torch.float64 numbers for torch.float32 input" in out_of(capsys)
    # the checker's masking is the one the decoder is trained with
    from capsedu.digit_capsules import decode
    from capsedu.exercises.networks import _masked

    v, labels = torch.randn(3, 10, 16), torch.tensor([1, 4, 9])
    assert torch.allclose(model.decoder(_masked(v, labels)), decode(model, v, labels).flatten(1))


def test_fit_transform_accepts_the_fit_07_teaches(capsys):
    from capsedu.parts.pose_net import fit_transforms  # noqa: F401  (the method of 07 section 3)

    def pose_fit(P, F):  # W's last row held at (0, 0, 1), as 07 fits it
        A = P[:, :2, :2].reshape(-1, 2)
        B = (F[:, :2] - P[:, :2, 2:3] * torch.tensor([0.0, 0.0, 1.0], dtype=P.dtype))
        top = torch.linalg.lstsq(A, B.reshape(-1, 3)).solution
        return torch.cat([top, torch.tensor([[0.0, 0.0, 1.0]], dtype=P.dtype)])

    assert exercises.check_fit_transform(pose_fit) is True


def test_face_vote_accepts_every_read_off_of_the_scale(capsys):
    from capsedu.poses import pose_matrix

    def vote(poses, W, scale_from):
        P = torch.from_numpy(pose_matrix(*poses.numpy().T)) @ W
        x, y = P[:, 0, 2], P[:, 1, 2]
        angle = torch.rad2deg(torch.atan2(P[:, 0, 1], P[:, 0, 0]))  # as poses.pose_from_matrix
        return torch.stack([x, y, angle, scale_from(P[:, :2, :2])], dim=-1)

    for scale in (lambda A: A[:, 0].norm(dim=-1), lambda A: torch.linalg.det(A).sqrt(),
                  lambda A: A[:, :, 0].norm(dim=-1)):
        assert exercises.check_face_vote(lambda p, W, scale=scale: vote(p, W, scale)) is True
    assert "FAIL" not in out_of(capsys)


def test_both_correct_rejects_one_right_digit_a_row(capsys):
    def one_digit_enough(predicted, labels):
        hit = (predicted[:, :, None] == labels[:, None, :]).any(dim=2).any(dim=1)
        return hit.double().mean()

    def same_places(predicted, labels):
        return (predicted == labels).all(dim=1).double().mean()

    def per_digit(predicted, labels):
        return (predicted[:, :, None] == labels[:, None, :]).any(dim=2).double().mean()

    for wrong in (one_digit_enough, same_places, per_digit):
        assert exercises.check_both_correct(wrong) is False, wrong.__name__


# --- 11 · FGSM: right answers in every form the notebook teaches, and the mistakes it names -----


def _fgsm_gradient(model, images, labels, reduction="mean"):
    import torch.nn.functional as F

    x = images.clone().requires_grad_(True)
    F.cross_entropy(model(x), labels, reduction=reduction).backward()
    return x, x.grad


def fgsm_backward(model, images, labels, eps):  # .backward(), the loss a mean
    x, grad = _fgsm_gradient(model, images, labels)
    return (x + eps * grad.sign()).clamp(0, 1)


def fgsm_autograd_sum_numpy(model, images, labels, eps):  # autograd.grad, a sum, NumPy out
    import torch.nn.functional as F

    x = images.double().requires_grad_(True)
    (grad,) = torch.autograd.grad(F.cross_entropy(model.double()(x), labels, reduction="sum"), x)
    return torch.clamp(x + eps * torch.sign(grad), min=0, max=1).detach().numpy()


def fgsm_training_loss(model, images, labels, eps):  # the CNN's own training loss
    x = images.clone().requires_grad_(True)
    loss, _ = model.training_loss(x, labels)
    (grad,) = torch.autograd.grad(loss, x)
    return torch.clamp(x + eps * grad.sign(), 0.0, 1.0)


@pytest.mark.parametrize("answer", [fgsm_backward, fgsm_autograd_sum_numpy, fgsm_training_loss])
def test_right_fgsm_answers_pass(capsys, answer):
    assert exercises.check_fgsm(answer) is True
    assert "PASS" in out_of(capsys)


def fgsm_no_clamp(model, images, labels, eps):
    x, grad = _fgsm_gradient(model, images, labels)
    return x + eps * grad.sign()


def fgsm_descent(model, images, labels, eps):
    x, grad = _fgsm_gradient(model, images, labels)
    return (x - eps * grad.sign()).clamp(0, 1)


def fgsm_no_sign(model, images, labels, eps):
    x, grad = _fgsm_gradient(model, images, labels, "sum")
    return (x + eps * grad).clamp(0, 1)


def fgsm_eps_inside_the_sign(model, images, labels, eps):
    x, grad = _fgsm_gradient(model, images, labels)
    return (x + torch.sign(eps * grad)).clamp(0, 1)


@pytest.mark.parametrize("answer, named", [
    (fgsm_no_clamp, "clamp the result"), (fgsm_descent, "step down the gradient"),
    (fgsm_no_sign, "the sign is missing"), (fgsm_eps_inside_the_sign, "eps is lost inside"),
], ids=["no clamp", "descent", "no sign", "eps inside the sign"])
def test_wrong_fgsm_answers_fail_naming_the_mistake(capsys, answer, named):
    assert exercises.check_fgsm(answer) is False
    out = out_of(capsys)
    assert "FAIL" in out and "you returned" in out and "the reference gives" in out
    assert named in out and len(out.splitlines()) <= 3


def test_the_fgsm_stub_is_not_implemented_yet_and_a_crash_is_a_fail(capsys):
    def stub(model, images, labels, eps):
        raise NotImplementedError("Exercise: move every pixel by eps along the gradient's sign")

    assert exercises.check_fgsm(stub) is None
    assert "not implemented yet" in out_of(capsys)
    assert exercises.check_fgsm(lambda model, images, labels, eps: model(images).sign()) is False
    assert exercises.check_fgsm(lambda *case: 1 / 0) is False
    assert "ZeroDivisionError" in out_of(capsys)

"""FGSM and PGD (capsedu.attacks) against an independent implementation (torchattacks), and the
properties every attack must have: the change stays within eps and the image within [0, 1],
eps = 0 changes nothing, PGD's steps never lower the loss on a linear model, each loss is what
its name says."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis.strategies import floats, integers, sampled_from
from torch import nn

from capsedu import attacks
from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import CapsNet, CapsNetConfig

torchattacks = pytest.importorskip("torchattacks")

TINY = CapsNetConfig(image_size=12, conv_channels=4, conv_kernel=3, primary_maps=2,
                     primary_dim=4, primary_kernel=3, primary_stride=2, digit_dim=4,
                     decoder_hidden=(8,))


def tiny_cnn() -> MaxPoolCNN:
    torch.manual_seed(0)
    return MaxPoolCNN(image_size=12, channels=(4,), hidden=(16,)).eval()


def tiny_capsnet() -> CapsNet:
    torch.manual_seed(0)
    return CapsNet(TINY).eval()


class Lengths(nn.Module):
    """A CapsNet seen by torchattacks: its capsule lengths as the logits."""

    def __init__(self, capsnet):
        super().__init__()
        self.capsnet = capsnet

    def forward(self, x):
        return self.capsnet(x).lengths


def digits(n=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 1, 12, 12, generator=g), torch.randint(0, 10, (n,), generator=g)


@pytest.mark.parametrize("which", ["cnn", "capsnet"])
def test_fgsm_is_torchattacks_fgsm(which):
    model = tiny_cnn() if which == "cnn" else tiny_capsnet()
    reference = model if which == "cnn" else Lengths(model)
    x, y = digits()
    for eps in (0.03, 0.1, 0.3):
        ours = attacks.fgsm(model, x, y, eps, "cross-entropy")
        assert torch.equal(ours, torchattacks.FGSM(reference, eps=eps)(x, y))


@pytest.mark.parametrize("which", ["cnn", "capsnet"])
def test_pgd_without_random_start_is_torchattacks_pgd(which):
    model = tiny_cnn() if which == "cnn" else tiny_capsnet()
    reference = model if which == "cnn" else Lengths(model)
    x, y = digits()
    ours = attacks.pgd(model, x, y, 0.1, steps=7, step_size=0.02, loss="cross-entropy",
                       random_start=False)
    theirs = torchattacks.PGD(reference, eps=0.1, alpha=0.02, steps=7, random_start=False)(x, y)
    assert torch.equal(ours, theirs)


@settings(max_examples=25, deadline=None)
@given(eps=floats(0, 1), steps=integers(1, 4), ratio=floats(0.1, 4),
       loss=sampled_from(attacks.LOSSES), restarts=integers(1, 2),
       which=sampled_from(["cnn", "capsnet"]), seed=integers(0, 100))
def test_every_attack_stays_within_eps_and_the_pixel_box(eps, steps, ratio, loss, restarts,
                                                          which, seed):
    model = tiny_cnn() if which == "cnn" else tiny_capsnet()
    x, y = digits(4, seed)
    made = [attacks.fgsm(model, x, y, eps, loss),
            attacks.pgd(model, x, y, eps, steps, min(1.0, ratio * eps / steps), loss,
                        restarts, seed=seed)]
    for adversarial in made:
        assert adversarial.shape == x.shape
        assert (adversarial - x).abs().max() <= eps + 1e-6
        assert adversarial.min() >= 0 and adversarial.max() <= 1


@pytest.mark.parametrize("loss", attacks.LOSSES)
def test_eps_zero_changes_nothing(loss):
    model = tiny_capsnet()
    x, y = digits()
    assert torch.equal(attacks.fgsm(model, x, y, 0.0, loss), x)
    assert torch.equal(attacks.pgd(model, x, y, 0.0, loss=loss, restarts=2), x)


def linear(classes: int) -> nn.Module:
    torch.manual_seed(classes)
    return nn.Sequential(nn.Flatten(), nn.Linear(144, classes)).eval()


@pytest.mark.parametrize("loss, classes", [("margin", 10), ("cross-entropy", 2)])
@settings(max_examples=15, deadline=None)
@given(eps=floats(0.01, 0.5), seed=integers(0, 1000))
def test_pgd_steps_never_lower_the_loss_of_a_linear_model(loss, classes, eps, seed):
    """With linear scores a signed step moves every pixel the way that raises the current
    margin (or, with two classes, the cross-entropy), and the projection only shortens it."""
    model = linear(classes)
    x, y = digits(5, seed)
    y = y % classes
    objective = lambda images: attacks.attack_loss(model, images, y, loss)
    current = attacks.random_point(x, eps, torch.Generator().manual_seed(seed))
    before = objective(current).item()
    for _ in range(8):
        current = attacks.ascend(objective, x, current, eps, 1, eps / 4)
        after = objective(current).item()
        assert after >= before - 1e-6
        before = after


def test_each_loss_is_what_its_name_says():
    x, y = digits()
    capsnet, cnn = tiny_capsnet(), tiny_cnn()
    lengths, logits = capsnet(x).lengths, cnn(x)
    assert torch.equal(attacks.class_scores(capsnet, x), lengths)
    assert torch.equal(attacks.class_scores(cnn, x), logits)
    assert torch.allclose(attacks.attack_loss(capsnet, x, y, "training"),
                          capsnet.training_loss(x, y)[0])  # margin + 0.0005 reconstruction
    assert torch.allclose(attacks.attack_loss(cnn, x, y, "training"), F.cross_entropy(logits, y))
    assert torch.allclose(attacks.attack_loss(capsnet, x, y, "cross-entropy"),
                          F.cross_entropy(lengths, y))
    for model, z in ((capsnet, lengths), (cnn, logits)):
        margins = [max(z[i, j] for j in range(10) if j != y[i]) - z[i, y[i]] for i in range(6)]
        assert torch.allclose(attacks.attack_loss(model, x, y, "margin"),
                              torch.stack(margins).mean())


def test_restarts_keep_the_first_example_that_fools():
    model = tiny_capsnet()
    x, y = digits(8)
    once = attacks.pgd(model, x, y, 0.05, steps=2, seed=3)
    thrice = attacks.pgd(model, x, y, 0.05, steps=2, restarts=3, seed=3)
    fooled_once, fooled_thrice = attacks.misreads(model, once, y), attacks.misreads(model, thrice,
                                                                                    y)
    assert (fooled_thrice | ~fooled_once).all()  # the first restart is the same run
    assert torch.equal(thrice[fooled_once], once[fooled_once])


def test_an_attack_leaves_the_model_as_it_was():
    model = tiny_cnn().train()
    x, y = digits()
    attacks.pgd(model, x, y, 0.1, steps=2)
    assert model.training and all(p.grad is None for p in model.parameters())


def test_a_penalty_equal_to_the_loss_leaves_nothing_to_raise():
    model = tiny_cnn()
    x, y = digits()
    penalty = lambda images: attacks.attack_loss(model, images, y, "margin")
    assert torch.equal(attacks.pgd(model, x, y, 0.1, steps=3, loss="margin",
                                   random_start=False, penalty=penalty), x)


def test_out_of_range_budgets_are_refused():
    model = tiny_cnn()
    x, y = digits()
    with pytest.raises(ValueError, match="eps"):
        attacks.fgsm(model, x, y, 1.5)
    with pytest.raises(ValueError, match="steps"):
        attacks.pgd(model, x, y, 0.1, steps=attacks.MAX_STEPS + 1)
    with pytest.raises(ValueError, match="restarts"):
        attacks.pgd(model, x, y, 0.1, restarts=0)
    with pytest.raises(ValueError, match="loss"):
        attacks.pgd(model, x, y, 0.1, loss="hinge")

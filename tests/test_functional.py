"""squash (Eq. 1) and margin loss (Eq. 4) against values worked out by hand."""

import pytest
import torch

from capsedu import margin_loss, reconstruction_loss, squash


def test_squash_hand_values():
    # s = (3, 4): ||s|| = 5, ||s||^2 / (1 + ||s||^2) = 25/26, s / ||s|| = (0.6, 0.8)
    v = squash(torch.tensor([[3.0, 4.0], [1.0, 0.0]], dtype=torch.float64))
    expected = torch.tensor([[25 / 26 * 0.6, 25 / 26 * 0.8], [0.5, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(v, expected)


def test_squash_keeps_direction_and_length_below_one():
    s = torch.randn(1000, 8, dtype=torch.float64) * torch.logspace(-3, 3, 1000)[:, None]
    v = squash(s)
    lengths = v.norm(dim=-1)
    assert (lengths >= 0).all() and (lengths < 1).all()
    cosine = torch.nn.functional.cosine_similarity(v, s, dim=-1)
    torch.testing.assert_close(cosine, torch.ones(1000, dtype=torch.float64))
    # the length is ||s||^2 / (1 + ||s||^2), a function of ||s|| alone (up to the tiny eps)
    n2 = (s * s).sum(-1)
    torch.testing.assert_close(lengths, n2 / (1 + n2), rtol=1e-6, atol=1e-8)


def test_squash_acts_along_the_given_dim():
    s = torch.randn(4, 8, 3)
    torch.testing.assert_close(squash(s, dim=1), squash(s.transpose(1, 2)).transpose(1, 2))


def test_squash_at_zero_is_finite_in_value_and_gradient():
    s = torch.zeros(2, 8, requires_grad=True)
    v = squash(s)
    v.sum().backward()
    assert torch.equal(v, torch.zeros(2, 8))
    assert torch.isfinite(s.grad).all()


def test_margin_loss_hand_values_with_squared_terms():
    lengths = torch.tensor([[0.95, 0.2, 0.05], [0.3, 0.6, 0.0]])
    targets = torch.tensor([0, 1])
    # example 0: present 0.95 > 0.9 -> 0; absent 0.5 * (0.2 - 0.1)^2 = 0.005; 0.05 < 0.1 -> 0
    # example 1: present (0.9 - 0.6)^2 = 0.09; absent 0.5 * (0.3 - 0.1)^2 = 0.02
    expected = (0.005 + 0.11) / 2
    assert margin_loss(lengths, targets).item() == pytest.approx(expected)
    # the unsquared version would give (0.05 + (0.3 + 0.1)) / 2 = 0.225: make sure we are not it
    assert margin_loss(lengths, targets).item() != pytest.approx(0.225)


def test_margin_loss_parameters():
    lengths = torch.tensor([[0.5, 0.5]])
    # m+ = 0.8: (0.8 - 0.5)^2 = 0.09; m- = 0.2, lam = 1: (0.5 - 0.2)^2 = 0.09
    loss = margin_loss(lengths, torch.tensor([0]), m_plus=0.8, m_minus=0.2, lam=1.0)
    assert loss.item() == pytest.approx(0.18)


@pytest.mark.parametrize(
    "lengths, targets, match",
    [
        (torch.rand(4), torch.tensor([0, 1, 2, 3]), "shape"),
        (torch.rand(4, 10), torch.tensor([0, 1]), "targets"),
        (torch.rand(2, 10), torch.tensor([0.0, 1.0]), "integer"),
        (torch.rand(2, 10), torch.tensor([0, 10]), r"\[0, 9\]"),
        (torch.tensor([[float("nan"), 0.1]]), torch.tensor([0]), "NaN"),
    ],
)
def test_margin_loss_rejects_bad_input(lengths, targets, match):
    with pytest.raises((ValueError, TypeError), match=match):
        margin_loss(lengths, targets)


def test_reconstruction_loss_sums_pixels_and_averages_batch():
    images = torch.zeros(2, 1, 2, 2)
    recon = torch.tensor([[[[1.0, 0.0], [0.0, 0.0]]], [[[1.0, 1.0], [1.0, 0.0]]]])
    # per image: 1 and 3 squared errors; mean over the batch: 2
    assert reconstruction_loss(recon, images).item() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="same shape"):
        reconstruction_loss(recon, torch.zeros(2, 1, 28, 28))

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


def test_margin_loss_with_two_classes_present_hand_values():
    # MultiMNIST (Section 6): T_k = 1 for both digits' classes
    lengths = torch.tensor([[0.95, 0.2, 0.6, 0.05], [0.3, 0.85, 0.0, 0.5]])
    targets = torch.tensor([[0, 2], [3, 1]])
    # example 0: present 0.95 > 0.9 -> 0 and (0.9 - 0.6)^2 = 0.09; absent 0.5 * (0.2 - 0.1)^2
    #            = 0.005 and 0.05 < 0.1 -> 0
    # example 1: present (0.9 - 0.5)^2 = 0.16 and (0.9 - 0.85)^2 = 0.0025; absent
    #            0.5 * (0.3 - 0.1)^2 = 0.02 and 0.0 -> 0
    expected = (0.095 + 0.1825) / 2
    assert margin_loss(lengths, targets).item() == pytest.approx(expected)
    assert margin_loss(lengths, targets.flip(1)).item() == pytest.approx(expected)  # a set
    # one class per example: [batch, 1] is the same as [batch]
    single = torch.tensor([0, 3])
    assert margin_loss(lengths, single[:, None]).item() == margin_loss(lengths, single).item()
    with pytest.raises(ValueError, match=r"targets must list 2 different classes per example, "
                                         r"got \[1, 1\] at row 1 \(1 of 2 rows repeat a class\)"):
        margin_loss(lengths, torch.tensor([[0, 2], [1, 1]]))


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


@pytest.mark.parametrize("margins, match", [
    ({"m_plus": 0.1, "m_minus": 0.9}, "m_minus < m_plus"),  # swapped
    ({"m_plus": 0.5, "m_minus": 0.5}, "m_minus < m_plus"),
    ({"m_minus": -0.1}, "m_minus must be a finite number >= 0"),
    ({"lam": -1.0}, "lam must be a finite number >= 0"),
])
def test_margin_loss_refuses_margins_that_invert_the_loss(margins, match):
    with pytest.raises(ValueError, match=match):
        margin_loss(torch.rand(2, 10), torch.tensor([1, 2]), **margins)


def test_margin_loss_of_an_empty_batch_is_an_error_not_nan():
    with pytest.raises(ValueError, match="no examples"):
        margin_loss(torch.zeros(0, 10), torch.zeros(0, dtype=torch.long))


def test_reconstruction_loss_sums_pixels_and_averages_batch():
    images = torch.zeros(2, 1, 2, 2)
    recon = torch.tensor([[[[1.0, 0.0], [0.0, 0.0]]], [[[1.0, 1.0], [1.0, 0.0]]]])
    # per image: 1 and 3 squared errors; mean over the batch: 2
    assert reconstruction_loss(recon, images).item() == pytest.approx(2.0)
    with pytest.raises(ValueError, match=r"^reconstruction_loss\(\): reconstruction must match "
                                         r"images in shape"):
        reconstruction_loss(recon, torch.zeros(2, 1, 28, 28))


# --- Bad inputs: finite answers where the maths has one, clear errors where it has none ----------


@pytest.mark.parametrize("dtype, norm", [(torch.float32, 1e20), (torch.float32, 3e38),
                                         (torch.float64, 1e160), (torch.float16, 300.0)])
def test_squash_of_a_huge_vector_is_its_direction(dtype, norm):
    # ||s||^2 overflows the dtype; the exact answer is ||s||^2 / (1 + ||s||^2) = 1 (to the last
    # bit) times s / ||s|| = (0.6, 0.8)
    s = torch.tensor([[0.6 * norm, 0.8 * norm], [3.0, 4.0]], dtype=dtype, requires_grad=True)
    v = squash(s)
    expected = torch.tensor([[0.6, 0.8], [25 / 26 * 0.6, 25 / 26 * 0.8]], dtype=torch.float64)
    tolerance = 2e-3 if dtype == torch.float16 else 1e-6
    torch.testing.assert_close(v.double(), expected, rtol=tolerance, atol=tolerance)
    v.sum().backward()
    assert torch.isfinite(s.grad).all()


def test_squash_of_float16_zeros_is_zero_with_a_finite_gradient():
    s = torch.zeros(3, 8, dtype=torch.float16, requires_grad=True)
    v = squash(s)
    v.sum().backward()
    assert torch.equal(v, torch.zeros_like(v)) and torch.isfinite(s.grad).all()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_squash_refuses_nan_and_infinity(bad):
    s = torch.randn(4, 8)
    s[2, 3] = bad
    with pytest.raises(ValueError, match="s contains 1 NaN or infinite value"):
        squash(s)


def test_squash_refuses_integers():
    with pytest.raises(TypeError, match=r"s must be a floating-point tensor.*int64.*s\.float\(\)"):
        squash(torch.tensor([[3, 4]]))


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8, torch.int16])
def test_margin_loss_accepts_any_integer_labels(dtype):
    lengths = torch.rand(6, 10, generator=torch.Generator().manual_seed(0))
    labels = torch.tensor([0, 3, 9, 9, 1, 5])
    assert margin_loss(lengths, labels.to(dtype)).item() == margin_loss(lengths, labels).item()


def test_margin_loss_out_of_range_message_is_short():
    labels = torch.arange(10_000) % 10
    labels[[17, 4000]] = 10
    with pytest.raises(ValueError) as err:
        margin_loss(torch.rand(10_000, 10), labels)
    message = str(err.value)
    assert len(message) < 200, message
    assert "[0, 9]" in message and "10 at index 17" in message and "2 of 10000" in message


@pytest.mark.parametrize("targets, error, match", [
    ([0, 1], TypeError, "torch.Tensor"),
    (torch.tensor([True, False]), TypeError, r"dtype torch.bool.*targets\.long\(\)"),
    (torch.tensor([[[0]], [[1]]]), ValueError, r"shape \[batch\] = \[2\], got shape \(2, 1, 1\)"),
    (torch.tensor([[0, 1]]), ValueError,
     r"shape \[batch, 2\] = \[2, 2\] \(2 different classes per example\), got shape \(1, 2\)"),
    (torch.tensor([-1, 0]), ValueError, r"-1 at index 0"),
])
def test_margin_loss_names_what_is_wrong_with_targets(targets, error, match):
    with pytest.raises(error, match=match):
        margin_loss(torch.rand(2, 3), targets)

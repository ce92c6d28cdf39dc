"""Property-based tests (Hypothesis) of the maths contract: squash, routing, margin loss.

For random shapes and values, each property is checked against an expectation computed
independently (Python's ``math.hypot`` for norms, permutations and per-example runs for routing,
the margins themselves for the loss). Shapes stay small and runs short, so this file takes
seconds.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis.extra.numpy import arrays
from hypothesis.strategies import (
    composite,
    floats,
    integers,
    lists,
    one_of,
    randoms,
    sampled_from,
    tuples,
)

from capsedu import dynamic_routing, margin_loss, squash
from capsedu.buggy import (
    step_logits_shared_over_batch,
    step_softmax_over_children,
    unsquared_margin_loss,
)

# no example database: nothing is written into the repository
FAST = settings(max_examples=40, deadline=None, database=None)
DTYPES = {"float32": (np.float32, 32), "float64": (np.float64, 64)}


@composite
def capsule_inputs(draw):
    """``s``: 1-3 batch dims, then a capsule dim of 1-8; any finite value of the dtype, so huge
    vectors (||s||^2 past the float range), zeros and subnormals all come up."""
    np_dtype, width = DTYPES[draw(sampled_from(sorted(DTYPES)))]
    shape = draw(lists(integers(1, 3), min_size=1, max_size=3)) + [draw(integers(1, 8))]
    values = one_of(
        floats(allow_nan=False, allow_infinity=False, width=width),
        sampled_from([0.0, 1.0, -1.0]),
        # +-10^e around the overflow of ||s||^2 in float32 (||s|| = 1.8e19) and beyond, rounded
        # to float32 so that either dtype holds them exactly
        tuples(sampled_from([1.0, -1.0]), integers(15, 38)).map(
            lambda sign_e: float(np.float32(sign_e[0] * 10.0 ** sign_e[1]))),
    )
    return np.asarray(draw(arrays(np_dtype, shape, elements=values)))


@FAST
@given(capsule_inputs())
def test_squash_keeps_direction_and_maps_lengths_into_the_unit_ball(s_np):
    s = torch.from_numpy(s_np).requires_grad_()
    v = squash(s)
    (v * torch.linspace(-1, 1, v.shape[-1], dtype=v.dtype)).sum().backward()
    assert torch.isfinite(v).all() and torch.isfinite(s.grad).all()
    eps = float(np.finfo(s_np.dtype).eps)
    for s_k, v_k in zip(s_np.reshape(-1, s_np.shape[-1]).astype(float),
                        v.detach().reshape(-1, s_np.shape[-1]).double().numpy(), strict=True):
        norm = math.hypot(*s_k)  # exact up to rounding, never overflows for these values
        length = math.hypot(*v_k)
        # ||v|| = ||s||^2 / (1 + ||s||^2); squash's 1e-8 inside the square root only matters
        # (absolutely, by < 1e-8) for ||s|| below 1e-3
        expected = 1.0 if norm > 1e150 else norm * norm / (1 + norm * norm)
        assert length == pytest.approx(expected, rel=20 * eps, abs=1e-8)
        assert length <= 1 + 4 * eps
        if norm < 1e3:
            assert length < 1
        if length > 1e-6:  # direction kept: v is a positive multiple of s
            m = np.abs(s_k).max()
            cosine = np.dot(s_k / m, v_k) / (math.hypot(*(s_k / m)) * length)
            assert cosine == pytest.approx(1.0, abs=20 * eps)
        else:
            assert norm < 1e-2


def predictions(max_batch=3):
    """``u_hat`` ``[batch, n_in, n_out, d_out]`` in float64, values in [-4, 4]."""
    shape = tuples(integers(1, max_batch), integers(1, 6), integers(1, 5),
                   integers(1, 4))
    return shape.flatmap(lambda sh: arrays(np.float64, sh, elements=floats(-4, 4)))


@FAST
@given(predictions(), integers(1, 4))
def test_couplings_sum_to_one_over_the_parents_at_every_iteration(u_np, iterations):
    result = dynamic_routing(torch.from_numpy(u_np), iterations)
    batch, n_in, n_out, _ = u_np.shape
    for step in result.history:
        assert (step.c >= 0).all()
        torch.testing.assert_close(step.c.sum(dim=2), torch.ones(batch, n_in, dtype=torch.float64))
    assert result.v.shape == (batch, n_out, u_np.shape[3]) and (result.v.norm(dim=-1) < 1).all()


@FAST
@given(predictions(), integers(1, 4), randoms(use_true_random=False))
def test_routing_is_permutation_equivariant_over_children_and_parents(u_np, iterations, rnd):
    u_hat = torch.from_numpy(u_np)
    _, n_in, n_out, _ = u_np.shape
    children = torch.tensor(rnd.sample(range(n_in), n_in))
    parents = torch.tensor(rnd.sample(range(n_out), n_out))
    result = dynamic_routing(u_hat, iterations)
    # reordering the children reorders their couplings and changes no parent
    by_children = dynamic_routing(u_hat[:, children], iterations)
    torch.testing.assert_close(by_children.v, result.v)
    torch.testing.assert_close(by_children.c, result.c[:, children])
    # reordering the parents reorders the parents and the couplings' columns
    by_parents = dynamic_routing(u_hat[:, :, parents], iterations)
    torch.testing.assert_close(by_parents.v, result.v[:, parents])
    torch.testing.assert_close(by_parents.c, result.c[:, :, parents])


@FAST
@given(predictions(max_batch=4), integers(1, 4))
def test_routing_is_independent_per_example(u_np, iterations):
    u_hat = torch.from_numpy(u_np)
    batch = dynamic_routing(u_hat, iterations)
    for k in range(u_np.shape[0]):
        alone = dynamic_routing(u_hat[k : k + 1], iterations)
        torch.testing.assert_close(alone.v, batch.v[k : k + 1])
        torch.testing.assert_close(alone.c, batch.c[k : k + 1])


@FAST
@given(predictions())
def test_one_iteration_is_uniform_coupling(u_np):
    c = dynamic_routing(torch.from_numpy(u_np), iterations=1).c
    torch.testing.assert_close(c, torch.full_like(c, 1 / u_np.shape[2]))


@composite
def margin_cases(draw):
    """Lengths and margins on a grid of hundredths, so that a length is either exactly at a
    margin or at least 0.01 from it (no rounding decides which side it is on); lengths at the
    margins, just inside and just outside come up often."""
    batch, classes = draw(integers(1, 4)), draw(integers(1, 5))
    m_minus = draw(integers(0, 99))
    m_plus = draw(integers(m_minus + 1, 100))
    near = [m_minus - 1, m_minus, m_minus + 1, m_plus - 1, m_plus, m_plus + 1]
    hundredths = one_of(sampled_from([k for k in near if 0 <= k <= 100]),
                        integers(0, 100))
    lengths = [[draw(hundredths) / 100 for _ in range(classes)] for _ in range(batch)]
    targets = [draw(integers(0, classes - 1)) for _ in range(batch)]
    lam = draw(integers(1, 10)) / 10
    return lengths, targets, m_plus / 100, m_minus / 100, lam


@FAST
@given(margin_cases())
def test_margin_loss_is_zero_exactly_when_every_length_is_on_its_side(case):
    lengths, targets, m_plus, m_minus, lam = case
    loss = margin_loss(torch.tensor(lengths, dtype=torch.float64), torch.tensor(targets),
                       m_plus=m_plus, m_minus=m_minus, lam=lam)
    on_its_side = all(
        (length >= m_plus) if k == target else (length <= m_minus)
        for row, target in zip(lengths, targets, strict=True) for k, length in enumerate(row)
    )
    assert loss.item() >= 0
    assert (loss.item() == 0) == on_its_side


# --- The routing bugs of notebook 09 (capsedu.buggy) ---------------------------------------------


@FAST
@given(predictions(), integers(1, 4))
def test_softmax_over_children_makes_couplings_sum_to_one_over_the_children(u_np, iterations):
    result = dynamic_routing(torch.from_numpy(u_np), iterations, step=step_softmax_over_children)
    batch, _, n_out, _ = u_np.shape
    for step in result.history:
        assert (step.c >= 0).all()
        torch.testing.assert_close(step.c.sum(dim=1), torch.ones(batch, n_out, dtype=torch.float64))


@FAST
@given(predictions(max_batch=4), integers(1, 4), randoms(use_true_random=False))
def test_shared_logits_give_the_whole_batch_one_set_of_couplings(u_np, iterations, rnd):
    u_hat = torch.from_numpy(u_np)
    result = dynamic_routing(u_hat, iterations, step=step_logits_shared_over_batch)
    for step in result.history:
        torch.testing.assert_close(step.c, step.c[:1].expand_as(step.c))
    # which example is where does not matter: reordering the batch reorders the outputs only
    order = torch.tensor(rnd.sample(range(u_np.shape[0]), u_np.shape[0]))
    shuffled = dynamic_routing(u_hat[order], iterations, step=step_logits_shared_over_batch)
    torch.testing.assert_close(shuffled.v, result.v[order])
    torch.testing.assert_close(shuffled.c, result.c)


@FAST
@given(margin_cases())
def test_margin_loss_and_its_unsquared_bug_match_eq_4_term_by_term(case):
    lengths, targets, m_plus, m_minus, lam = case
    for power, loss_function in ((2, margin_loss), (1, unsquared_margin_loss)):
        expected = sum(
            (max(0.0, m_plus - length) ** power if k == target
             else lam * max(0.0, length - m_minus) ** power)
            for row, target in zip(lengths, targets, strict=True) for k, length in enumerate(row)
        ) / len(lengths)
        loss = loss_function(torch.tensor(lengths, dtype=torch.float64), torch.tensor(targets),
                             m_plus=m_plus, m_minus=m_minus, lam=lam)
        assert loss.item() == pytest.approx(expected, abs=1e-12)

"""dynamic_routing against an independent, loop-by-loop reading of Procedure 1 (which
tests/test_bug_zoo.py also reads with each routing bug written in)."""

import math

import pytest
import torch

from capsedu import dynamic_routing


def procedure_1(u_hat: torch.Tensor, iterations: int, softmax_over: str = "parents",
                logits_over_batch: str = "per_example"):
    """Procedure 1 written out with Python loops and scalars. ``softmax_over="children"`` and
    ``logits_over_batch="sum"`` / ``"mean"`` write out the bugs the same way: the softmax taken over
    the children i, and one b for the whole batch that every example's agreements go into."""
    B, I, J, D = u_hat.shape
    u = u_hat.tolist()
    b = [[[0.0] * J for _ in range(I)] for _ in range(B)]
    for _ in range(iterations):
        all_c, all_v, agreement = [], [], []
        for n in range(B):
            e = [[math.exp(b[n][i][j]) for j in range(J)] for i in range(I)]
            if softmax_over == "parents":  # child i's couplings sum to 1 over the parents j
                c = [[e[i][j] / sum(e[i]) for j in range(J)] for i in range(I)]
            else:  # parent j's couplings sum to 1 over the children i
                c = [[e[i][j] / sum(e[k][j] for k in range(I)) for j in range(J)] for i in range(I)]
            v = []
            for j in range(J):
                s = [sum(c[i][j] * u[n][i][j][d] for i in range(I)) for d in range(D)]
                norm2 = sum(x * x for x in s)
                v.append([norm2 / (1 + norm2) * x / math.sqrt(norm2) for x in s])
            agreement.append([[sum(u[n][i][j][d] * v[j][d] for d in range(D)) for j in range(J)]
                              for i in range(I)])
            all_c.append(c)
            all_v.append(v)
        for n in range(B):
            for i in range(I):
                for j in range(J):
                    if logits_over_batch == "per_example":
                        b[n][i][j] += agreement[n][i][j]
                    else:  # every example adds the batch's total (or average) agreement
                        total = sum(agreement[m][i][j] for m in range(B))
                        b[n][i][j] += total if logits_over_batch == "sum" else total / B
    return torch.tensor(all_v, dtype=u_hat.dtype), torch.tensor(all_c, dtype=u_hat.dtype)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5])
def test_matches_procedure_1(iterations):
    u_hat = torch.randn(3, 6, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    result = dynamic_routing(u_hat, iterations)
    v_ref, c_ref = procedure_1(u_hat, iterations)
    torch.testing.assert_close(result.v, v_ref)
    torch.testing.assert_close(result.c, c_ref)
    assert len(result.history) == iterations
    torch.testing.assert_close(result.history[-1].v, result.v)


def test_couplings_sum_to_one_over_parents_at_every_iteration():
    result = dynamic_routing(torch.randn(4, 10, 7, 8), iterations=4)
    for step in result.history:
        torch.testing.assert_close(step.c.sum(dim=2), torch.ones(4, 10))
    # ... and not over the children (the classic bug would make these sum to 1)
    assert not torch.allclose(result.c.sum(dim=1), torch.ones(4, 7))


def test_one_iteration_is_uniform_coupling():
    u_hat = torch.randn(2, 5, 4, 3)
    result = dynamic_routing(u_hat, iterations=1)
    torch.testing.assert_close(result.c, torch.full((2, 5, 4), 0.25))
    # v_j = squash(mean over children of u_hat_j|i, scaled by 1/n_out)
    s = u_hat.sum(dim=1) / 4
    n2 = (s * s).sum(-1, keepdim=True)
    torch.testing.assert_close(result.v, n2 / (1 + n2) * s / n2.sqrt())


def test_agreement_raises_coupling():
    # 3 children; child 0 and 1 agree on parent 0, child 2 predicts something else for parent 0
    u_hat = torch.zeros(1, 3, 2, 2)
    u_hat[0, :2, 0] = torch.tensor([2.0, 0.0])
    u_hat[0, 2, 0] = torch.tensor([-2.0, 0.0])
    u_hat[0, :, 1] = torch.tensor([0.0, 0.1])
    c = dynamic_routing(u_hat, iterations=3).c[0]
    assert c[0, 0] > 0.5 and c[1, 0] > 0.5 and c[2, 0] < 0.5


def test_routing_is_per_example():
    u_hat = torch.randn(6, 9, 5, 4, dtype=torch.float64)
    perm = torch.randperm(6)
    full, shuffled = dynamic_routing(u_hat), dynamic_routing(u_hat[perm])
    for name in ("v", "c", "b"):
        torch.testing.assert_close(getattr(shuffled, name), getattr(full, name)[perm])
    alone = dynamic_routing(u_hat[:1])
    torch.testing.assert_close(alone.v, full.v[:1])


def test_gradient_option():
    u_hat = torch.randn(2, 5, 3, 4, requires_grad=True)
    loss_full = dynamic_routing(u_hat, 3, grad_through_routing=True).v.pow(2).sum()
    (g_full,) = torch.autograd.grad(loss_full, u_hat)
    loss_last = dynamic_routing(u_hat, 3, grad_through_routing=False).v.pow(2).sum()
    (g_last,) = torch.autograd.grad(loss_last, u_hat)
    assert torch.isfinite(g_full).all() and torch.isfinite(g_last).all()
    # same forward values, different gradients: the inner iterations matter only in g_full
    assert not torch.allclose(g_full, g_last)
    # with one iteration there is nothing inner, so both agree
    g1 = [torch.autograd.grad(dynamic_routing(u_hat, 1, flag).v.sum(), u_hat)[0]
          for flag in (True, False)]
    torch.testing.assert_close(g1[0], g1[1])


@pytest.mark.parametrize(
    "u_hat, iterations, match",
    [
        (torch.randn(5, 4, 3), 3, r"\[batch, n_in, n_out, d_out\]"),
        (torch.full((1, 2, 2, 2), float("nan")), 3, "NaN"),
        (torch.randn(1, 2, 2, 2), 0, "iterations"),
        (torch.randn(1, 2, 2, 2), 10**6, "iterations must be an integer >= 1 and <= 100"),
    ],
)
def test_bad_input_gets_a_clear_error(u_hat, iterations, match):
    with pytest.raises(ValueError, match=match):
        dynamic_routing(u_hat, iterations)


def test_numpy_integers_are_iterations_too():
    import numpy as np

    u_hat = torch.randn(2, 5, 3, 4)
    for iterations in (np.int64(3), np.int32(3)):
        result = dynamic_routing(u_hat, iterations)
        assert len(result.history) == 3
        torch.testing.assert_close(result.v, dynamic_routing(u_hat, 3).v)


@pytest.mark.parametrize("iterations", [True, False, 2.5, 3.0, "3", None])
def test_booleans_and_non_integers_are_refused(iterations):
    with pytest.raises(TypeError, match=rf"iterations must be an integer >= 1 and <= 100.*got "
                                        rf"{iterations!r}"):
        dynamic_routing(torch.randn(1, 2, 2, 2), iterations)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_integer_predictions_get_a_clear_type_error(dtype):
    with pytest.raises(TypeError, match=rf"u_hat must be a floating-point .*got dtype {dtype}"):
        dynamic_routing(torch.ones(1, 3, 2, 4, dtype=dtype))


def test_routing_capsules_route_their_own_votes():
    from capsedu import RoutingCapsules

    layer = RoutingCapsules(n_in=5, d_in=3, n_out=4, d_out=2, iterations=2)
    u = torch.randn(3, 5, 3)
    result = layer(u)
    expected = dynamic_routing(layer.votes(u), 2)
    torch.testing.assert_close(result.v, expected.v)
    torch.testing.assert_close(result.c.sum(dim=2), torch.ones(3, 5))
    with pytest.raises(ValueError, match=r"u must have shape \[batch, 5, 3\], got shape"):
        layer(torch.randn(3, 6, 3))


@pytest.mark.parametrize("piece_examples", [1, 2, 7])
def test_routing_in_pieces_of_the_batch_gives_the_same_numbers(monkeypatch, piece_examples):
    """RoutingCapsules routes a batch a piece at a time (layers.PIECE_BYTES): the outputs, the
    couplings and logits of every iteration and the gradients on W and u are those of routing the
    whole batch at once, bit for bit; a step that mixes the examples still sees the whole batch."""
    from capsedu import RoutingCapsules, layers
    from capsedu.buggy import step_logits_shared_over_batch

    torch.manual_seed(0)
    layer = RoutingCapsules(n_in=6, d_in=3, n_out=4, d_out=5, iterations=3)
    u = torch.randn(7, 6, 3, requires_grad=True)

    def routed(piece_bytes):
        monkeypatch.setattr(layers, "PIECE_BYTES", piece_bytes)
        result = layer(u)
        grads = torch.autograd.grad(result.v.pow(2).sum() + result.c[:, 0].sum(), (layer.W, u))
        history = [t for step in result.history for t in step]
        return [result.v, result.c, result.b, *history, *grads]

    per_example = 6 * 4 * 5 * 4  # bytes of one example's float32 votes
    pieces, whole = routed(piece_examples * per_example), routed(10**12)
    assert len(pieces) == 3 + 2 * 3 + 2
    for a, b in zip(pieces, whole, strict=True):
        assert torch.equal(a, b)
    layer.step = step_logits_shared_over_batch
    pieces, whole = routed(piece_examples * per_example), routed(10**12)
    for a, b in zip(pieces, whole, strict=True):
        assert torch.equal(a, b)
    # ... which routing it in pieces would have changed (the test can tell the two apart)
    apart = [dynamic_routing(piece, 3, step=step_logits_shared_over_batch).v
             for piece in layer.votes(u).split(2)]
    assert not torch.allclose(torch.cat(apart), whole[0])

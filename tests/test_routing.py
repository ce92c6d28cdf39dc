"""dynamic_routing against an independent, loop-by-loop reading of Procedure 1."""

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


@pytest.mark.parametrize("iterations", [1, 2, 3])
@pytest.mark.parametrize("softmax_over, logits_over_batch", [
    ("children", "per_example"), ("parents", "sum"), ("parents", "mean"), ("children", "mean"),
])
def test_each_bug_matches_procedure_1_written_with_it(iterations, softmax_over,
                                                      logits_over_batch):
    u_hat = torch.randn(3, 6, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    result = dynamic_routing(u_hat, iterations, softmax_over=softmax_over,
                             logits_over_batch=logits_over_batch)
    v_ref, c_ref = procedure_1(u_hat, iterations, softmax_over, logits_over_batch)
    torch.testing.assert_close(result.v, v_ref)
    torch.testing.assert_close(result.c, c_ref)


def test_the_bug_switches_are_off_by_default():
    u_hat = torch.randn(3, 7, 5, 4, requires_grad=True)
    for grad_through_routing in (True, False):
        default = dynamic_routing(u_hat, 3, grad_through_routing)
        spelled = dynamic_routing(u_hat, 3, grad_through_routing, softmax_over="parents",
                                  logits_over_batch="per_example", grad_through_output=True)
        for name in ("v", "c", "b"):
            assert torch.equal(getattr(default, name), getattr(spelled, name))
        grads = [torch.autograd.grad(r.v.pow(2).sum(), u_hat)[0] for r in (default, spelled)]
        assert torch.equal(*grads)


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
        (torch.randn(1, 2, 2, 2), 2.5, "iterations"),
    ],
)
def test_bad_input_gets_a_clear_error(u_hat, iterations, match):
    with pytest.raises(ValueError, match=match):
        dynamic_routing(u_hat, iterations)


def test_softmax_over_children_is_the_documented_bug():
    u_hat = torch.randn(2, 6, 3, 4)
    buggy = dynamic_routing(u_hat, 3, softmax_over="children")
    # the bug normalises each parent's column over the children instead
    torch.testing.assert_close(buggy.c.sum(dim=1), torch.ones(2, 3))
    assert not torch.allclose(buggy.c.sum(dim=2), torch.ones(2, 6))
    with pytest.raises(ValueError, match="parents"):
        dynamic_routing(u_hat, 3, softmax_over="inputs")


def test_numpy_integers_are_iterations_too():
    import numpy as np

    u_hat = torch.randn(2, 5, 3, 4)
    for iterations in (np.int64(3), np.int32(3)):
        result = dynamic_routing(u_hat, iterations)
        assert len(result.history) == 3
        torch.testing.assert_close(result.v, dynamic_routing(u_hat, 3).v)


@pytest.mark.parametrize("iterations", [True, False, 3.0, "3", None])
def test_booleans_and_non_integers_are_refused(iterations):
    with pytest.raises(ValueError, match=rf"must be an integer >= 1.*got {iterations!r}"):
        dynamic_routing(torch.randn(1, 2, 2, 2), iterations)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_integer_predictions_get_a_clear_type_error(dtype):
    with pytest.raises(TypeError, match=rf"u_hat must be a floating-point .*got dtype {dtype}"):
        dynamic_routing(torch.ones(1, 3, 2, 4, dtype=dtype))


# --- The bug switches of notebook 09 (capsedu.bug_zoo) -------------------------------------------


@pytest.mark.parametrize("logits_over_batch", ["sum", "mean"])
def test_shared_logits_let_one_example_change_another(logits_over_batch):
    u_hat = torch.randn(4, 9, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    changed = u_hat.clone()
    changed[0] = torch.randn(9, 5, 4, dtype=torch.float64)  # only example 0 differs
    # per example (the paper): the other examples' couplings do not move, to the last bit
    own, own_changed = dynamic_routing(u_hat), dynamic_routing(changed)
    assert torch.equal(own.c[1:], own_changed.c[1:]) and torch.equal(own.v[1:], own_changed.v[1:])
    # shared (the bug): example 0's agreements move every example's couplings, which are then
    # the same for the whole batch
    shared = dynamic_routing(u_hat, logits_over_batch=logits_over_batch)
    shared_changed = dynamic_routing(changed, logits_over_batch=logits_over_batch)
    assert (shared.c[1:] - shared_changed.c[1:]).abs().max() > 1e-3
    assert (shared.v[1:] - shared_changed.v[1:]).abs().max() > 1e-6
    torch.testing.assert_close(shared.c, shared.c[:1].expand_as(shared.c))
    # one iteration has no agreement update yet: nothing is shared
    torch.testing.assert_close(dynamic_routing(changed, 1, logits_over_batch=logits_over_batch).v,
                               dynamic_routing(changed, 1).v)


def test_summed_logits_grow_with_the_batch_size_and_averaged_ones_do_not():
    one = torch.randn(1, 6, 3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    batch = one.expand(5, -1, -1, -1)  # five copies of the same example
    alone = dynamic_routing(one, 2).b
    torch.testing.assert_close(dynamic_routing(batch, 2, logits_over_batch="mean").b,
                               alone.expand(5, -1, -1))
    # summed, five copies of an agreement make logits 5 x the example's own: a bigger batch
    # routes more sharply
    summed = dynamic_routing(batch, 1, logits_over_batch="sum").b
    torch.testing.assert_close(summed, 5 * dynamic_routing(one, 1).b.expand(5, -1, -1))


def test_the_two_stop_gradients_split_the_full_gradient():
    """d v / d u_hat has two parts: through the last iteration's sum (kept by
    grad_through_routing=False) and through the earlier iterations' couplings (kept by
    grad_through_output=False, the bug); together they make the full gradient."""
    u_hat = torch.randn(2, 6, 3, 4, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(2, 3, 4, dtype=torch.float64)

    def grad(**switches):
        v = dynamic_routing(u_hat, 3, **switches).v
        return torch.autograd.grad(v, u_hat, upstream)[0]

    full = grad()
    through_output = grad(grad_through_routing=False)
    through_couplings = grad(grad_through_output=False)
    torch.testing.assert_close(through_output + through_couplings, full)
    assert through_couplings.abs().max() > 1e-6  # W still learns a little, through c only


def test_detaching_the_last_iteration_too_leaves_no_gradient_at_all():
    u_hat = torch.randn(2, 6, 3, 4, requires_grad=True)
    result = dynamic_routing(u_hat, 3, grad_through_routing=False, grad_through_output=False)
    assert not result.v.requires_grad  # v is a constant for autograd: nothing below it learns
    # with one iteration there is no earlier iteration for a gradient to go through
    assert not dynamic_routing(u_hat, 1, grad_through_output=False).v.requires_grad
    # and the forward values are those of the paper's routing
    torch.testing.assert_close(result.v, dynamic_routing(u_hat, 3).v)


@pytest.mark.parametrize("switch, value, error, match", [
    ("softmax_over", "inputs", ValueError, r"softmax_over must be one of: 'parents' .*'children'"),
    ("logits_over_batch", "shared", ValueError,
     r"logits_over_batch must be one of: 'per_example' .*'sum' .*'mean' .*Got 'shared'"),
    ("logits_over_batch", None, ValueError, "logits_over_batch must be one of"),
    ("grad_through_output", "False", TypeError, r"grad_through_output must be True or False"),
])
def test_bad_switch_values_are_named(switch, value, error, match):
    with pytest.raises(error, match=match):
        dynamic_routing(torch.randn(1, 2, 2, 2), **{switch: value})


def test_routing_capsules_pass_the_switches_on():
    from capsedu import RoutingCapsules

    layer = RoutingCapsules(n_in=5, d_in=3, n_out=4, d_out=2, softmax_over="children",
                            logits_over_batch="sum", grad_through_output=False)
    u = torch.randn(3, 5, 3)
    result = layer(u)
    expected = dynamic_routing(layer.predictions(u), 3, softmax_over="children",
                               logits_over_batch="sum", grad_through_output=False)
    torch.testing.assert_close(result.v, expected.v)
    torch.testing.assert_close(result.c.sum(dim=1), torch.ones(3, 4))

"""capsedu.costs: per-layer counts against hand-computed values for the paper's CapsNet; the
timings of routing (their shapes and sanity, never their speed) and its memory against what
autograd really saves."""

from dataclasses import astuple, fields, replace

import pytest
import torch

from capsedu import PAPER, SMALL, CapsNet, CapsNetConfig, count_parameters, dynamic_routing
from capsedu.cost_tables import format_table
from capsedu.costs import anatomy
from capsedu.exercises import check_digitcaps_parameters
from capsedu.exercises.networks import digitcaps_parameters
from capsedu.functional import margin_loss_curves


def test_paper_parameters_by_hand():
    params = [row.parameters for row in anatomy(CapsNet())]
    assert params == [
        256 * 9 * 9 + 256,  # Conv1: 20,992
        256 * 256 * 9 * 9 + 256,  # PrimaryCaps: 32 x 8 channels, 9x9 on 256 channels
        1152 * 10 * 16 * 8,  # W_ij
        0,  # routing has no parameters
        (160 * 512 + 512) + (512 * 1024 + 1024) + (1024 * 784 + 784),
    ]
    assert params == [20_992, 5_308_672, 1_474_560, 0, 1_411_344]
    assert sum(params) == 8_215_568 == count_parameters(CapsNet())


def test_paper_shapes_and_macs_by_hand():
    rows = anatomy(CapsNet(PAPER))
    assert [row.output_shape for row in rows] == [
        (256, 20, 20), (1152, 8), (1152, 10, 16), (10, 16), (1, 28, 28)]
    assert [row.macs for row in rows] == [
        20 * 20 * 256 * 81,  # each of the 20x20x256 outputs sums 1 x 9 x 9 products
        6 * 6 * 256 * 256 * 81,  # 6x6x256 outputs, each over 256 x 9 x 9 inputs
        1152 * 10 * 16 * 8,  # one 16x8 matrix-vector product per (i, j)
        3 * 2 * 1152 * 10 * 16,  # s_j and the agreement b_ij, 3 iterations
        160 * 512 + 512 * 1024 + 1024 * 784,
    ]


def test_any_config_totals_match_the_model():
    for cfg in (SMALL, CapsNetConfig(conv_channels=32, primary_maps=4, iterations=1)):
        model = CapsNet(cfg)
        assert sum(row.parameters for row in anatomy(model)) == count_parameters(model)


def test_format_table_has_one_line_per_layer_and_config():
    lines = format_table({"paper": PAPER, "small": SMALL}).splitlines()
    assert [line.split()[-2:] for line in lines[-2:]] == [["8,215,568", "203,386,880"],
                                                          ["2,117,072", "16,071,680"]]
    assert sum(" paper " in line for line in lines) == 6  # 5 layers and the total


def test_margin_loss_curves():
    lengths = torch.tensor([0.0, 0.05, 0.5, 0.9, 1.0])
    present, absent = margin_loss_curves(lengths)
    # present: max(0, 0.9 - ||v||)^2; absent: 0.5 max(0, ||v|| - 0.1)^2
    torch.testing.assert_close(present, torch.tensor([0.81, 0.7225, 0.16, 0.0, 0.0]))
    torch.testing.assert_close(absent, torch.tensor([0.0, 0.0, 0.08, 0.32, 0.405]))


def stub(cfg):
    raise NotImplementedError("Exercise")


def test_checker_accepts_the_reference_and_the_formula(capsys):
    assert check_digitcaps_parameters(digitcaps_parameters) is True
    formula = lambda c: c.n_primary * c.n_classes * c.digit_dim * c.primary_dim  # noqa: E731
    assert check_digitcaps_parameters(formula) is True
    assert "PASS" in capsys.readouterr().out


def test_checker_reports_the_stub(capsys):
    assert check_digitcaps_parameters(stub) is None
    assert "not implemented yet" in capsys.readouterr().out


def test_checker_rejects_known_wrong_versions(capsys):
    wrong = [
        lambda c: 1152 * 10 * 16 * 8,  # the paper's number for every config
        lambda c: c.primary_maps * c.n_classes * c.digit_dim * c.primary_dim,  # one W per map
        lambda c: c.n_primary * c.n_classes * c.digit_dim,  # forgot d_in
        lambda c: c.n_primary * c.n_classes * (c.digit_dim * c.primary_dim + c.digit_dim),  # bias
    ]
    for f in wrong:
        assert check_digitcaps_parameters(f) is False
        assert "FAIL" in capsys.readouterr().out


def test_time_training_step_times_the_model_and_its_routing(monkeypatch):
    from capsedu.routing_costs import time_training_step

    torch.manual_seed(0)
    model = CapsNet(SMALL)
    images, labels = torch.rand(8, 1, 28, 28), torch.arange(8)
    before = [p.detach().clone() for p in model.parameters()]
    routed, route = [], model.digits.route  # every u_hat the model's own routing receives
    monkeypatch.setattr(model.digits, "route",
                        lambda u_hat: routed.append(tuple(u_hat.shape)) or route(u_hat))
    t = time_training_step(model, images, labels, repeats=2)
    assert all(seconds > 0 for seconds in astuple(t))
    # 3 rounds (a warm-up and 2 timed), each routing once in the model's step and once alone,
    # on the same u_hat: [batch, 288 primary capsules, 10 digit capsules, 16]
    assert routed == [(8, 288, 10, 16)] * 6
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert all(p.grad is None for p in model.parameters())


# --- What routing costs (notebook 09): timings are checked for shape and sanity, never speed ----

TINY = CapsNetConfig(conv_channels=4, primary_maps=1, n_classes=3, digit_dim=4,
                     decoder_hidden=(8,))  # 6x6x1 = 36 primary capsules of 8D -> 3 of 4D


def positive_finite(seconds) -> bool:
    return all(0 < s < float("inf") for s in astuple(seconds))


def test_time_passes_times_any_model_and_leaves_it_as_it_was():
    from capsedu.baselines import MaxPoolCNN
    from capsedu.routing_costs import model_step, time_passes

    torch.manual_seed(0)
    cnn, capsnet = MaxPoolCNN(channels=(2, 2, 2), hidden=(8,)), CapsNet(TINY, image_size=40)
    images, labels = torch.rand(4, 1, 40, 40), torch.tensor([0, 1, 2, 0])
    before = [p.detach().clone() for m in (cnn, capsnet) for p in m.parameters()]
    times = time_passes([model_step(cnn, images, labels), model_step(capsnet, images, labels)],
                        repeats=2)
    assert len(times) == 2 and all(positive_finite(t) for t in times)
    after = [p for m in (cnn, capsnet) for p in m.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(before, after, strict=True))
    assert all(p.grad is None for p in after)


def test_digit_caps_pass_outputs_and_gradients():
    from capsedu.routing_costs import digit_caps_pass

    for iterations, shape in ((0, (2, 5, 3, 4)), (2, (2, 3, 4))):
        step = digit_caps_pass(n_in=5, d_in=6, n_out=3, d_out=4, batch=2, iterations=iterations)
        out = step.forward()
        assert tuple(out.shape) == shape == tuple(step.gradient.shape)
        W, u = step.inputs  # the weights [n_in, n_out, d_out, d_in] and the input capsules
        assert tuple(W.shape) == (5, 3, 4, 6) and tuple(u.shape) == (2, 5, 6)
        dW, du = torch.autograd.grad(out, step.inputs, step.gradient)
        assert dW.shape == W.shape and du.shape == u.shape


def test_zero_iterations_times_the_predictions_without_routing(monkeypatch):
    import capsedu.layers
    from capsedu.routing_costs import time_digit_caps

    calls = []

    def recording(u_hat, iterations, *options):
        calls.append(iterations)
        return dynamic_routing(u_hat, iterations, *options)

    monkeypatch.setattr(capsedu.layers, "dynamic_routing", recording)
    assert positive_finite(time_digit_caps(5, 6, 3, 4, batch=2, iterations=0, repeats=1))
    assert calls == []
    assert positive_finite(time_digit_caps(5, 6, 3, 4, batch=2, iterations=2, repeats=1))
    assert calls == [2, 2]  # the warm-up run and the timed one


def test_routing_sweep_rows():
    from capsedu.routing_costs import RoutingCost, routing_sweep

    configs = (TINY, replace(TINY, primary_maps=2))  # 36 and 72 primary capsules
    rows = routing_sweep(configs, iterations=(0, 2), batch=2, repeats=1)
    assert tuple(f.name for f in fields(RoutingCost)) == (
        "n_in", "n_out", "d_out", "iterations", "size", "u_hat_bytes", "forward", "backward")
    assert [(r.n_in, r.iterations) for r in rows] == [(36, 0), (36, 2), (72, 0), (72, 2)]
    assert all(r.n_out == 3 and r.d_out == 4 for r in rows)
    assert [r.size for r in rows] == [36 * 3 * 4] * 2 + [72 * 3 * 4] * 2
    assert [r.u_hat_bytes for r in rows] == [2 * r.size * 4 for r in rows]  # batch 2, float32
    assert all(0 < s < float("inf") for r in rows for s in (r.forward, r.backward))


def test_routing_memory_u_hat_is_the_tensor():
    from capsedu.routing_costs import routing_memory

    for cfg, dtype in ((TINY, torch.float32), (PAPER, torch.float64)):
        digits = CapsNet(cfg).digits.to(dtype)
        u_hat = digits.votes(torch.rand(3, cfg.n_primary, cfg.primary_dim, dtype=dtype))
        assert routing_memory(cfg, batch=3, dtype=dtype).u_hat == (
            u_hat.element_size() * u_hat.numel())
    assert routing_memory(PAPER, batch=128).u_hat == 128 * 1152 * 10 * 16 * 4  # 94 MB


@pytest.mark.parametrize("grad_through_routing", [True, False])
@pytest.mark.parametrize("iterations", [1, 2, 3])
def test_routing_memory_is_what_autograd_saves(iterations, grad_through_routing):
    """Record every tensor autograd saves while routing: u_hat is only referenced (2r - 1
    times, once without gradients through the inner iterations), and the new memory is the
    couplings and capsule tensors the docstring derives."""
    from capsedu.routing_costs import routing_memory

    cfg = replace(TINY, iterations=iterations, grad_through_routing=grad_through_routing)
    digits = CapsNet(cfg).digits
    u_hat = digits.votes(torch.rand(2, cfg.n_primary, cfg.primary_dim, requires_grad=True))
    references, new = 0, {}  # new memory: storage address -> bytes

    def pack(tensor):
        nonlocal references
        storage = tensor.untyped_storage()
        if storage.data_ptr() == u_hat.untyped_storage().data_ptr():
            references += 1
        else:
            new[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        digits.route(u_hat)
    memory = routing_memory(cfg, batch=2)
    assert references == (2 * iterations - 1 if grad_through_routing else 1)
    assert sum(new.values()) == memory.couplings + memory.capsules
    differentiated = iterations if grad_through_routing else 1
    assert memory.couplings == differentiated * 2 * 36 * 3 * 4  # c: [2, 36, 3] float32


def test_routing_share_of_macs_by_hand():
    from capsedu.routing_costs import routing_share

    torch.manual_seed(0)
    share = routing_share(CapsNet(SMALL), torch.rand(2, 1, 28, 28), torch.tensor([3, 7]),
                          repeats=1)
    assert share.macs == 3 * 2 * 288 * 10 * 16 / 16_071_680  # SMALL's total, tested above
    assert 0 < share.forward < float("inf") and 0 < share.backward < float("inf")
    assert share.forward == share.times.routing_forward / share.times.forward


@pytest.mark.parametrize("kwargs, name, error", [
    (dict(iterations=-1), "iterations", ValueError),
    (dict(iterations=1.5), "iterations", TypeError),
    (dict(n_in=0), "n_in", ValueError),
    (dict(d_out=2.0), "d_out", TypeError),
    (dict(batch="8"), "batch", TypeError),
    (dict(batch=200_000), "batch", ValueError),  # allocated without an estimate (issue 37)
    (dict(repeats=0), "repeats", ValueError),
])
def test_time_digit_caps_names_a_bad_argument(kwargs, name, error):
    from capsedu.routing_costs import time_digit_caps

    sizes = dict(n_in=5, d_in=6, n_out=3, d_out=4, batch=2, iterations=1, repeats=1) | kwargs
    with pytest.raises(error, match=rf"{name} must be an integer"):
        time_digit_caps(**sizes)


def test_draw_routing_cost_draws_a_line_per_iteration_count_and_reference():
    from matplotlib.figure import Figure

    from capsedu.figures.architecture import draw_routing_cost
    from capsedu.routing_costs import RoutingCost

    rows = [RoutingCost(n, 10, 16, r, n * 160, 0, 0.001 * (r + 1), 0.002)
            for n in (288, 1152) for r in (0, 3)]
    ax = Figure().subplots()
    draw_routing_cost(ax, rows, {"MaxPoolCNN step": 0.004})
    assert [line.get_label() for line in ax.get_lines()] == [
        "u_hat = W u only", "3 routing iterations", "MaxPoolCNN step"]
    assert list(ax.get_lines()[1].get_xdata()) == [288 * 160, 1152 * 160]


def test_format_shares_totals_and_shares_match_anatomy():
    from capsedu.cost_tables import format_shares

    lines = format_shares("paper", CapsNet(PAPER)).splitlines()
    # the paper's totals, by hand (test_paper_parameters_by_hand): 8,215,568 with the decoder
    assert lines[0].startswith("paper: 8,215,568 parameters (8.2 M), 6,804,224 without the "
                               "decoder (6.8 M); ")
    assert len(lines) == 1 + len(anatomy(CapsNet(PAPER)))
    shares = [float(line.split("%")[0].split()[-1]) for line in lines[1:]]
    assert sum(shares) == pytest.approx(100, abs=0.3)  # the parameter shares add up
    assert "Conv1 + ReLU" in lines[1] and lines[1].split()[3] == "0.3"  # 20,992 / 8,215,568


def test_routing_shares_builds_each_config_from_the_seed_and_formats_one_line():
    from capsedu.cost_tables import format_share
    from capsedu.routing_costs import routing_share, routing_shares

    images, labels = torch.rand(2, 1, 28, 28), torch.tensor([3, 7])
    shares = routing_shares({"a": SMALL, "b": SMALL}, images, labels, repeats=1)
    assert list(shares) == ["a", "b"]
    torch.manual_seed(0)
    by_hand = routing_share(CapsNet(SMALL), images, labels, repeats=1)
    assert shares["a"].macs == shares["b"].macs == by_hand.macs  # the same model, same count
    line = format_share("a", shares["a"])
    assert line.startswith("     a: routing is ") and line.count("ms)") == 2
    assert f"{100 * shares['a'].macs:.1f} % of the multiply-adds" in line


def test_a_routing_share_over_100_percent_is_printed_as_timing_noise():
    """Timed apart on a busy machine, routing alone can measure longer than the step it is part
    of (round eleven refused such times; a learner's loaded laptop produced them): the line
    prints what was measured and says what it means."""
    from capsedu.cost_tables import format_share
    from capsedu.routing_costs import RoutingShare, StepTimes

    times = StepTimes(forward=0.1, backward=0.2, routing_forward=0.2, routing_backward=0.01)
    noisy = format_share("a", RoutingShare(0.05, 2.0, 0.05, times))
    assert "200 % of the forward time (200 of 100 ms)" in noisy and "timing noise" in noisy
    times = StepTimes(forward=0.4, backward=0.2, routing_forward=0.2, routing_backward=0.01)
    quiet = format_share("a", RoutingShare(0.05, 0.5, 0.05, times))
    assert "50 % of the forward time (200 of 400 ms)" in quiet and "timing noise" not in quiet


def test_format_sweep_and_what_an_iteration_costs_by_hand():
    from capsedu.cost_tables import format_sweep
    from capsedu.routing_costs import RoutingCost, iteration_cost

    # n_in 10: 0 iterations 2 ms, 4 iterations 10 ms: one iteration adds 2 ms, 1x the predictions
    rows = [RoutingCost(10, 2, 4, r, 80, 2**20, seconds / 2, seconds / 2)
            for r, seconds in ((0, 0.002), (4, 0.010))]
    rows += [RoutingCost(20, 2, 4, r, 160, 2**21, seconds, 0.0)
             for r, seconds in ((0, 0.001), (2, 0.007))]
    assert iteration_cost(rows) == pytest.approx({10: 1.0, 20: 3.0})
    lines = format_sweep(rows).split("\n")
    assert lines[0].split() == ["n_in", "iterations", "forward", "ms", "backward", "ms", "u_hat",
                                "MB"]
    assert lines[2].split() == ["10", "4", "5.0", "5.0", "1.0"]
    with pytest.raises(ValueError, match="0 and more iterations"):
        iteration_cost(rows[1:])


def test_the_recorded_gpu_run_is_what_its_file_says():
    """costs.recorded_cost reads benchmarks/routing_cost.py's record (the GPU's, shipped): the
    steps are the sums of their passes and the shares those the script measured."""
    import json

    from capsedu import course_settings
    from capsedu.cost_tables import recorded_cost_line
    from capsedu.routing_costs import GPU_RECORD, recorded_cost

    run = json.loads((course_settings.data_root() / "results" / GPU_RECORD).read_text())
    got = recorded_cost()
    assert got.device == run["device"] and run["device"] in run["machine"]
    assert got.command.startswith("python benchmarks/routing_cost.py")
    assert got.capsnet_step == sum(run["capsnet_step"].values()) > 0
    assert got.cnn_step == sum(run["cnn_step"].values()) > 0
    assert 0 < got.macs < 1 and 0 < got.forward < 1 and 0 < got.backward < 1
    assert [row["n_in"] for row in run["digit_caps"][::4]] == [288, 512, 800, 1152]
    assert recorded_cost_line(got).startswith(f"on {got.device} ({got.command}, {got.date})")
    with pytest.raises(FileNotFoundError, match="benchmarks/routing_cost.py --json"):
        recorded_cost("no_such_record.json")


def test_a_digit_caps_step_too_large_for_the_memory_is_refused_before_it_allocates(monkeypatch):
    from capsedu import memory
    from capsedu.routing_costs import digit_caps_bytes, digit_caps_pass

    needed = digit_caps_bytes(1152, 8, 10, 16, 60_000, 3)
    monkeypatch.setattr(memory, "available_memory", lambda: needed - 1)
    with pytest.raises(MemoryError, match="a DigitCaps step of batch 60,000"):
        digit_caps_pass(1152, 8, 10, 16, 60_000, 3)

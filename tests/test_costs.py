"""capsedu.anatomy: per-layer counts against hand-computed values for the paper's CapsNet."""

import torch

from capsedu import PAPER, SMALL, CapsNet, CapsNetConfig, count_parameters
from capsedu.costs import anatomy, format_table
from capsedu.exercises import check_digitcaps_parameters, digitcaps_parameters
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


def test_time_training_step_times_the_model_and_its_routing():
    from capsedu.costs import time_training_step

    torch.manual_seed(0)
    model = CapsNet(SMALL)
    images, labels = torch.rand(8, 1, 28, 28), torch.arange(8)
    before = [p.detach().clone() for p in model.parameters()]
    t = time_training_step(model, images, labels, repeats=2)
    assert all(seconds > 0 for seconds in t)
    assert t.routing_forward < t.forward  # the model's forward pass includes its routing
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert all(p.grad is None for p in model.parameters())

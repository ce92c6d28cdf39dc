"""The training loop learns, and the command line writes a checkpoint that loads back."""

import pytest
import torch

from capsedu import BagOfPartsCNN, pretrained
from capsedu.checkpoints import read_manifest
from capsedu.train import RECIPES, evaluate, fit, main


def test_fit_learns_a_separable_toy_problem():
    # class 1 images have a bright pixel block, class 0 are dark: any working loop learns it
    g = torch.Generator().manual_seed(0)
    x = torch.rand(256, 1, 12, 12, generator=g) * 0.1
    y = torch.arange(256) % 2
    x[y == 1, :, 3:6, 3:6] += 1.0
    torch.manual_seed(0)
    model = BagOfPartsCNN(channels=(8, 8, 8))
    before = evaluate(model, (x, y), device="cpu")
    history = fit(model, (x, y), epochs=5, batch_size=32, lr=1e-2, device="cpu", progress=False)
    assert history[-1]["loss"] < history[0]["loss"]
    assert evaluate(model, (x, y), device="cpu") == 1.0 and before < 1.0


def test_fit_is_deterministic_for_a_seed():
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = BagOfPartsCNN(channels=(2, 2, 2))
        fit(model, (x, y), epochs=1, batch_size=16, seed=3, device="cpu", progress=False)
        runs.append(model.classifier.weight.detach().clone())
    torch.testing.assert_close(runs[0], runs[1])


def test_command_line_trains_and_records_a_checkpoint(tmp_path, capsys):
    try:
        RECIPES["capsnet-mnist-small"].data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    main(["capsnet-mnist-small", "--epochs", "1", "--limit", "128", "--out", str(tmp_path)])
    assert "saved capsnet-mnist-small.pt" in capsys.readouterr().out
    entry = read_manifest(tmp_path)["capsnet-mnist-small"]
    assert entry["command"] == "python -m capsedu.train capsnet-mnist-small --limit 128 --epochs 1"
    assert entry["seed"] == 0 and entry["train_examples"] == 128
    assert 0.0 <= entry["metrics"]["test_accuracy"] <= 1.0
    model = pretrained("capsnet-mnist-small", tmp_path)
    assert model.config.primary_maps == 8


def test_command_line_lists_recipes(capsys):
    main(["--list"])
    assert "capsnet-mnist-small" in capsys.readouterr().out

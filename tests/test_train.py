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


def test_the_progress_bar_redraws_a_few_times_a_second(monkeypatch):
    """A redraw per batch floods a notebook's output channel (nbval then times out)."""
    import io
    import time

    from tqdm.std import tqdm

    import capsedu.train

    redraws = []

    class CountingBar(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, file=io.StringIO(), **kwargs)

        def display(self, *args, **kwargs):
            redraws.append(time.perf_counter())
            return super().display(*args, **kwargs)

    class Slow(torch.nn.Module):  # 2 ms a batch: 300 batches take about 0.6 s
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def training_loss(self, x, y):
            time.sleep(0.002)
            return (self.w - 1).pow(2).sum(), torch.zeros_like(y)

    monkeypatch.setattr(capsedu.train, "tqdm", CountingBar)
    start = time.perf_counter()
    fit(Slow(), (torch.zeros(300, 1), torch.zeros(300, dtype=torch.long)), epochs=1,
        batch_size=1, device="cpu", progress=True)
    seconds = time.perf_counter() - start
    # the first and the last draw, and at most PROGRESS_UPDATES_PER_S a second in between
    assert len(redraws) <= 2 + capsedu.train.PROGRESS_UPDATES_PER_S * seconds + 1


def test_fit_is_deterministic_for_a_seed():
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = BagOfPartsCNN(channels=(2, 2))
        fit(model, (x, y), epochs=1, batch_size=16, seed=3, device="cpu", progress=False)
        runs.append(model.classifier.weight.detach().clone())
    torch.testing.assert_close(runs[0], runs[1])


def test_command_line_trains_and_records_a_checkpoint(tmp_path, capsys):
    try:
        RECIPES["capsnet-mnist-live"].data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    main(["capsnet-mnist-live", "--epochs", "1", "--limit", "128", "--out", str(tmp_path)])
    assert "saved capsnet-mnist-live.pt" in capsys.readouterr().out
    entry = read_manifest(tmp_path)["capsnet-mnist-live"]
    assert entry["command"] == "python -m capsedu.train capsnet-mnist-live --limit 128 --epochs 1"
    assert entry["seed"] == 0 and entry["train_examples"] == 128 and entry["threads"] >= 1
    assert 0.0 <= entry["metrics"]["test_accuracy"] <= 1.0
    model = pretrained("capsnet-mnist-live", tmp_path)
    assert model.config.primary_maps == 8


def test_command_line_lists_recipes(capsys):
    main(["--list"])
    assert "capsnet-mnist-live" in capsys.readouterr().out


def test_shift_moves_each_image_by_at_most_two_pixels():
    from capsedu.train import shift

    images = torch.zeros(64, 1, 9, 9)
    images[:, 0, 4, 4] = 1.0  # one bright pixel in the middle
    moved = shift(images, generator=torch.Generator().manual_seed(0))
    assert moved.shape == images.shape and (moved.sum(dim=(1, 2, 3)) == 1).all()
    rows, cols = moved[:, 0].nonzero()[:, 1], moved[:, 0].nonzero()[:, 2]
    assert ((rows - 4).abs() <= 2).all() and ((cols - 4).abs() <= 2).all()
    assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) > 10  # many offsets drawn
    # zero padding: a pixel at the border can leave the image
    edge = torch.zeros(200, 1, 5, 5)
    edge[:, 0, 0, 0] = 1.0
    assert shift(edge).sum() < 200


def test_training_resumes_where_it_stopped(tmp_path):
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    state = tmp_path / "state.pt"

    def model():
        torch.manual_seed(0)
        return BagOfPartsCNN(channels=(2, 2))

    straight = model()
    fit(straight, (x, y), epochs=3, batch_size=16, device="cpu", progress=False, augment=True)
    resumed = model()
    fit(resumed, (x, y), epochs=2, batch_size=16, device="cpu", progress=False, augment=True,
        state_path=state)
    history = fit(model(), (x, y), epochs=3, batch_size=16, device="cpu", progress=False,
                  augment=True, state_path=state)
    assert [h["epoch"] for h in history] == [1, 2, 3]
    resumed.load_state_dict(torch.load(state, weights_only=True)["model"])
    torch.testing.assert_close(resumed.classifier.weight, straight.classifier.weight)


def test_validation_keeps_the_best_epoch_which_equals_a_shorter_run():
    # the validation labels are flipped, so the better the model learns the task, the worse
    # it scores there: the best validation epoch comes early, not last
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(128, 1, 8, 8, generator=g) * 0.1, torch.arange(128) % 2
    x[y == 1, :, 2:5, 2:5] += 1.0
    validation = (x[:64], 1 - y[:64])

    def model():
        torch.manual_seed(0)
        return BagOfPartsCNN(channels=(4, 4))

    chosen = model()
    history = fit(chosen, (x, y), epochs=6, batch_size=16, lr=1e-2, lr_decay=0.9,
                  device="cpu", progress=False, validation=validation)
    scores = [h["validation_accuracy"] for h in history]
    best = scores.index(max(scores)) + 1  # the first of the best
    assert best < len(history) and len(set(scores)) > 1
    assert evaluate(chosen, validation, device="cpu") == max(scores)
    shorter = model()  # scoring the validation set must not change the training itself
    fit(shorter, (x, y), epochs=best, batch_size=16, lr=1e-2, lr_decay=0.9, device="cpu",
        progress=False)
    for a, b in zip(chosen.state_dict().values(), shorter.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)


def test_a_recipe_with_validation_records_the_chosen_epoch(tmp_path):
    try:
        RECIPES["capsnet-mnist"].data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    held_out = RECIPES["capsnet-mnist"].validation
    with pytest.raises(ValueError, match="validation examples"):
        main(["capsnet-mnist", "--limit", str(held_out), "--out", str(tmp_path)])
    main(["capsnet-mnist", "--epochs", "2", "--limit", str(held_out + 64), "--out",
          str(tmp_path)])
    entry = read_manifest(tmp_path)["capsnet-mnist"]
    assert entry["train_examples"] == 64
    metrics = entry["metrics"]
    assert metrics["validation_examples"] == held_out and metrics["chosen_epoch"] in (1, 2)
    assert metrics["validation_accuracy"] == max(metrics["validation_by_epoch"])
    assert len(metrics["validation_by_epoch"]) == 2

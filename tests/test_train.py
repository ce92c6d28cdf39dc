"""The training loop learns, and the command line writes a checkpoint that loads back."""

import json
from dataclasses import dataclass
from typing import NamedTuple

import pytest
import torch

from capsedu import BagOfPartsCNN, pretrained
from capsedu.checkpoints import read_manifest, save
from capsedu.loop import Epoch, evaluate, fit, random_shift
from capsedu.manifest_rows import Sitting
from capsedu.recipes import RECIPES, command_line, how_made, recipe_name, seeded_name
from capsedu.stopping_rule import converged
from capsedu.train import main, record_missing

# trainings compared number for number: on the CPU (conftest.on_the_cpu)
pytestmark = pytest.mark.usefixtures("on_the_cpu")


def test_fit_learns_a_separable_toy_problem():
    # class 1 images have a bright pixel block, class 0 are dark: any working loop learns it
    g = torch.Generator().manual_seed(0)
    x = torch.rand(256, 1, 12, 12, generator=g) * 0.1
    y = torch.arange(256) % 2
    x[y == 1, :, 3:6, 3:6] = 1.0  # white, so the pixels stay in [0, 1]
    torch.manual_seed(0)
    model = BagOfPartsCNN(channels=(8, 8, 8))
    before = evaluate(model, (x, y))
    history = fit(model, (x, y), epochs=5, batch_size=32, lr=1e-2, progress=False)
    assert history[-1].loss < history[0].loss
    assert evaluate(model, (x, y)) == 1.0 and before < 1.0


def test_the_progress_bar_redraws_a_few_times_a_second(monkeypatch):
    """A redraw per batch floods a notebook's output channel (nbval then times out)."""
    import io
    import time

    from tqdm.std import tqdm

    import capsedu.progress

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

    monkeypatch.setattr("tqdm.auto.tqdm", CountingBar)  # the bar progress_bar makes live
    start = time.perf_counter()
    fit(Slow(), (torch.zeros(300, 1), torch.zeros(300, dtype=torch.long)), epochs=1,
        batch_size=1, progress=True)
    seconds = time.perf_counter() - start
    # the first and the last draw, and at most PROGRESS_UPDATES_PER_S a second in between
    assert len(redraws) <= 2 + capsedu.progress.PROGRESS_UPDATES_PER_S * seconds + 1


def test_a_bar_redraws_a_bounded_number_of_times_however_slow_the_machine(monkeypatch):
    """On a slow machine every time limit passes: the bar's redraws, each a message to the
    browser, stay bounded by count (the kernel drops messages past about a thousand)."""
    import io

    from tqdm.std import tqdm

    import capsedu.progress

    redraws = []

    class CountingBar(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, file=io.StringIO(), **kwargs)

        def display(self, *args, **kwargs):
            redraws.append(self.n)
            return super().display(*args, **kwargs)

    monkeypatch.setattr("tqdm.auto.tqdm", CountingBar)  # the bar progress_bar makes live
    monkeypatch.setattr(capsedu.progress, "PROGRESS_UPDATES_PER_S", 1e9)  # every step slow
    for _ in capsedu.progress.progress_bar(range(10_000), "slow"):
        pass
    # the first draw, one every 1/PROGRESS_REDRAWS of the way, the last
    assert len(redraws) <= capsedu.progress.PROGRESS_REDRAWS + 3
    assert redraws[-1] == 10_000
    redraws.clear()
    for _ in capsedu.progress.progress_bar(iter(range(300)), "no length"):  # a generator: time only
        pass
    assert redraws[-1] == 300


def test_a_stored_page_gets_the_finished_line_of_every_bar(monkeypatch, capsys):
    """With course_settings.TEXT_PROGRESS (the website's build), bars are text on stdout that keep
    their finished line: the page shows "100%", where a stored widget showed a bar frozen at 0 %."""
    from myst_nb.core.utils import coalesce_streams
    from nbformat.v4 import new_output

    import capsedu.progress

    monkeypatch.setattr(capsedu.progress.course_settings, "TEXT_PROGRESS", True)
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    model = BagOfPartsCNN(channels=(2,))
    fit(model, (x, y), epochs=2, batch_size=16, progress=True)
    evaluate(model, (x, y), batch_size=16, progress=True)
    (page,) = coalesce_streams([new_output("stream", name="stdout", text=capsys.readouterr().out)])
    lines = page["text"].splitlines()  # what MyST-NB renders: each \r-redrawn line at its last
    assert [line.split(":")[0] for line in lines] == ["epoch 1/2", "epoch 2/2", "scoring"]
    assert all("100%" in line for line in lines) and "0%|" not in page["text"].replace("100%|", "")


def test_fit_is_deterministic_for_a_seed():
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = BagOfPartsCNN(channels=(2, 2))
        fit(model, (x, y), epochs=1, batch_size=16, seed=3, progress=False)
        runs.append(model.classifier.weight.detach().clone())
    torch.testing.assert_close(runs[0], runs[1])


def test_fit_records_the_loss_and_accuracy_of_every_step():
    x, y = torch.rand(70, 1, 8, 8), torch.arange(70) % 2  # batches of 16, 16, 16, 16 and 6
    torch.manual_seed(0)
    (epoch,) = fit(BagOfPartsCNN(channels=(2, 2)), (x, y), epochs=1, batch_size=16,
                   device="cpu", progress=False)
    sizes = torch.tensor([16, 16, 16, 16, 6.0])
    assert len(epoch.batch_loss) == len(epoch.batch_accuracy) == 5
    # the epoch's means are the steps' numbers weighted by their batch sizes
    assert epoch.loss == pytest.approx(float(torch.tensor(epoch.batch_loss) @ sizes / 70))
    right = torch.tensor(epoch.batch_accuracy) * sizes
    assert torch.equal(right, right.round()) and epoch.train_accuracy == right.sum() / 70
    assert (epoch.epoch, epoch.device, epoch.validation_accuracy) == (1, "cpu", None)

    class Regressor(torch.nn.Module):  # a model that does not classify: no accuracy
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def training_loss(self, x, y):
            return (self.w - 1).pow(2).sum(), None

    (epoch,) = fit(Regressor(), (x, y), batch_size=16, progress=False)
    assert len(epoch.batch_loss) == 5 and epoch.batch_accuracy is None
    assert epoch.train_accuracy is None


def test_command_line_trains_and_records_a_checkpoint(tmp_path, capsys):
    try:
        RECIPES["capsnet-mnist-live"].data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    main(["capsnet-mnist-live", "--epochs", "1", "--limit", "128", "--out", str(tmp_path)])
    assert "saved capsnet-mnist-live.pt" in capsys.readouterr().out
    entry = read_manifest(tmp_path)["capsnet-mnist-live"]
    assert entry.command == "python -m capsedu.train capsnet-mnist-live --limit 128 --epochs 1"
    assert entry.seed == 0 and entry.train_examples == 128 and entry.threads >= 1
    assert 0.0 <= entry.metrics.test_accuracy <= 1.0
    model = pretrained("capsnet-mnist-live", tmp_path)
    assert model.config.primary_maps == 8


def test_command_line_lists_recipes(capsys):
    main(["--list"])
    assert "capsnet-mnist-live" in capsys.readouterr().out


def test_shift_moves_each_image_by_at_most_two_pixels():
    images = torch.zeros(64, 1, 9, 9)
    images[:, 0, 4, 4] = 1.0  # one bright pixel in the middle
    moved = random_shift(images, generator=torch.Generator().manual_seed(0))
    assert moved.shape == images.shape and (moved.sum(dim=(1, 2, 3)) == 1).all()
    rows, cols = moved[:, 0].nonzero()[:, 1], moved[:, 0].nonzero()[:, 2]
    assert ((rows - 4).abs() <= 2).all() and ((cols - 4).abs() <= 2).all()
    assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) > 10  # many offsets drawn
    # zero padding: a pixel at the border can leave the image
    edge = torch.zeros(200, 1, 5, 5)
    edge[:, 0, 0, 0] = 1.0
    assert random_shift(edge).sum() < 200


def test_training_resumes_where_it_stopped(tmp_path):
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    state = tmp_path / "state.pt"

    def model():
        torch.manual_seed(0)
        return BagOfPartsCNN(channels=(2, 2))

    straight = model()
    fit(straight, (x, y), epochs=3, batch_size=16, progress=False,
        augment=random_shift)
    resumed = model()
    first = fit(resumed, (x, y), epochs=2, batch_size=16, progress=False,
                augment=random_shift, state_path=state)
    history = fit(model(), (x, y), epochs=3, batch_size=16, progress=False,
                  augment=random_shift, state_path=state)
    # the state file keeps the records as plain dicts (torch.load(weights_only=True) reads them
    # below) and gives them back as the records they were
    assert [h.epoch for h in history] == [1, 2, 3] and history[:2] == first
    resumed.load_state_dict(torch.load(state, weights_only=True)["model"])
    torch.testing.assert_close(resumed.classifier.weight, straight.classifier.weight)


@pytest.mark.parametrize("change, named", [
    ({"seed": 1}, "seed 0 there, 1 here"),
    ({"rows": 48}, "train_examples 64 there, 48 here"),  # another --limit
    ({"lr": 2e-3}, "lr 0.001 there, 0.002 here"),
    ({"channels": (3, 2)}, "hparams"),
])
def test_a_state_file_of_another_run_is_refused_not_resumed(tmp_path, change, named):
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    state = tmp_path / "state.pt"

    def run(seed=0, rows=64, lr=1e-3, channels=(2, 2)):
        torch.manual_seed(0)
        return fit(BagOfPartsCNN(channels=channels), (x[:rows], y[:rows]), epochs=2,
                   batch_size=16, lr=lr, seed=seed, progress=False,
                   state_path=state)

    run()
    before = state.read_bytes()
    with pytest.raises(ValueError,
                       match=f"^fit\\(\\): state_path .*saved by another run .*{named}"):
        run(**change)
    assert state.read_bytes() == before and not list(tmp_path.glob("*.partial"))
    assert len(run()) == 2  # the same run resumes (here: already finished)


def test_a_state_longer_than_the_budget_is_refused_not_recorded_as_a_shorter_run(tmp_path):
    """Issue 37: a resumed --state from a longer run recorded a command it did not run."""
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    state = tmp_path / "state.pt"

    def run(epochs):
        torch.manual_seed(0)
        return fit(BagOfPartsCNN(channels=(2, 2)), (x, y), epochs=epochs, batch_size=16,
                   progress=False, state_path=state)

    run(3)
    with pytest.raises(ValueError, match="holds 3 epochs, more than epochs=2"):
        run(2)
    assert len(run(4)) == 4  # a longer budget goes on from it


@pytest.mark.parametrize("change, named", [
    ({"train": 1}, "other training examples \\(train\\)"),  # same count, model and seed
    ({"labels": 1}, "other training examples"),  # the same images, other labels
    ({"validation": 1}, "other held-out examples \\(validation\\)"),
])
def test_a_state_file_of_other_examples_is_refused_not_resumed(tmp_path, change, named):
    """Probe 27: a state saved on other digits (same count, model and seed) was resumed, and fit
    handed back that run's weights without training on its own examples."""
    x, y = torch.rand(128, 1, 8, 8), torch.arange(128) % 2
    held_out = torch.rand(64, 1, 8, 8)  # none of the training images (check_batches)
    state = tmp_path / "state.pt"

    def run(train=0, labels=0, validation=0):
        torch.manual_seed(0)
        rows = slice(64 * train, 64 * train + 64)
        return fit(BagOfPartsCNN(channels=(2, 2)), (x[rows], (y[rows] + labels) % 2), epochs=2,
                   batch_size=16, progress=False, state_path=state,
                   validation=(held_out[:32] if validation else held_out[32:], y[96:]))

    first = run()
    before = state.read_bytes()
    with pytest.raises(ValueError, match=rf"^fit\(\): state_path {state} was saved by a run on "
                                         rf"{named}.*Pass another state_path for these "
                                         "examples, or delete it to start afresh"):
        run(**change)
    assert state.read_bytes() == before and not list(tmp_path.glob("*.partial"))
    assert run() == first  # the same examples resume (here: the run already finished)


def test_a_state_file_saved_without_its_examples_fingerprint_is_refused(tmp_path):
    """A state saved before fit kept its data's fingerprint cannot be told from one of other
    images: refused, naming the file and what to do, and left as it was."""
    x, y = torch.rand(32, 1, 8, 8), torch.arange(32) % 2
    state = tmp_path / "state.pt"
    fit(BagOfPartsCNN(channels=(2, 2)), (x, y), epochs=1, batch_size=16, progress=False,
        state_path=state)
    saved = torch.load(state, weights_only=True)
    for key in ("train_data", "validation_data"):  # as an older fit saved it
        del saved["made_with"][key]
    torch.save(saved, state)
    before = state.read_bytes()
    with pytest.raises(ValueError, match=r"^fit\(\): state_path .* was saved by an older fit, "
                                         r"which kept no fingerprint of the images it trained "
                                         r"on: .*Delete it to start afresh"):
        fit(BagOfPartsCNN(channels=(2, 2)), (x, y), epochs=2, batch_size=16, progress=False,
            state_path=state)
    assert state.read_bytes() == before


def test_validation_must_be_held_out_not_the_training_images():
    """Probe 27: validation=(the training tensors) was scored as held out, and the epoch chosen on
    the images trained on. Refused, the same tensors or a copy (other labels too: the images were
    trained on); probe 28: and copies of some of them, counted. Other images, of the same count
    or fewer, and training images given other labels as training rows, are held out and kept."""
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    for validation in ((x, y), (x.clone(), y.flip(0))):
        with pytest.raises(ValueError, match=r"^fit\(\): validation must be held-out examples, "
                                             r"images not trained on, got train's own 64 images"):
            fit(BagOfPartsCNN(channels=(2, 2)), (x, y), progress=False, validation=validation)
    mixed = torch.cat([x[4:8], torch.rand(28, 1, 8, 8)])  # 4 training images among 32
    with pytest.raises(ValueError, match=r"^fit\(\): validation must be held-out examples, "
                                         r"images not trained on, got 4 of its 32 images among "
                                         r"train's"):
        fit(BagOfPartsCNN(channels=(2, 2)), (x, y), progress=False, validation=(mixed, y[:32]))
    for validation in ((torch.rand(64, 1, 8, 8), y), (torch.rand(32, 1, 8, 8), y[:32]),
                       (x[:32].flip(-1), y[:32])):  # valid use (mirrored: other images)
        history = fit(BagOfPartsCNN(channels=(2, 2)), (x, y), batch_size=16, progress=False,
                      validation=validation)
        assert history[0].validation_accuracy is not None


def test_start_must_be_weights_of_the_model_refused_before_any_is_loaded():
    """Probe 27: start=({'x': 1}, []) met torch's 'Error(s) in loading state_dict'; refused in
    fit's words, naming start, and the model is left as it was."""
    model = BagOfPartsCNN(channels=(2, 2))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    other = BagOfPartsCNN(channels=(3, 2)).state_dict()
    for weights, found in (({"x": 1}, r"lack 6 of the 6 it holds \(.*\); hold 'x', which "
                                      r"BagOfPartsCNN has not"),
                           (other, r"hold 'features\.0\.weight' as a Tensor of shape "
                                   r"\(3, 1, 3, 3\), dtype torch\.float32, where it has shape "
                                   r"\(2, 1, 3, 3\)")):
        with pytest.raises(ValueError, match=r"^fit\(\): start must be \(weights, history\) of "
                                             r"a run of this BagOfPartsCNN, .*got weights that "
                                             f"{found}"):
            fit(model, (torch.rand(8, 1, 8, 8), torch.arange(8) % 2), progress=False,
                start=(weights, []))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_an_out_symlinked_to_a_shipped_folder_gets_no_file_not_even_a_probe(tmp_path,
                                                                            monkeypatch):
    """Probe 27: --out, a link to data/checkpoints, had a temporary file made and deleted in it
    (out_folder probed writing before the shipped check). Nothing is made in it now: its listing
    and its time are what they were, and no file is opened there."""
    from capsedu import train

    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "SHIPPED.md").write_text("the course's shipped files")
    (tmp_path / "ln").symlink_to(shipped)
    monkeypatch.chdir(tmp_path)
    made, probe = [], train.tempfile.TemporaryFile
    monkeypatch.setattr(train.tempfile, "TemporaryFile",
                        lambda **where: made.append(where) or probe(**where))
    before = (sorted(p.name for p in shipped.iterdir()), shipped.stat().st_mtime_ns)
    assert str(train.out_folder("ln")) == "ln"  # refused later, without --replace-shipped
    with pytest.raises(SystemExit):
        main(["capsnet-mnist-live", "--limit", "64", "--epochs", "1", "--out", "ln"])
    assert (sorted(p.name for p in shipped.iterdir()), shipped.stat().st_mtime_ns) == before
    assert made == []
    assert train.out_folder("mine").name == "mine" and made  # a folder of one's own is probed


def flipped_held_out(g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """64 held-out images drawn as the tests' training images (class 1: a bright square), their
    labels flipped: the better a model learns the task, the worse it scores on them. Other images
    than the training ones: fit refuses training images as held out."""
    x, y = torch.rand(64, 1, 8, 8, generator=g) * 0.1, torch.arange(64) % 2
    x[y == 1, :, 2:5, 2:5] = 1.0
    return x, 1 - y


def test_validation_keeps_the_best_epoch_which_equals_a_shorter_run():
    # the validation labels are flipped, so the better the model learns the task, the worse
    # it scores there: the best validation epoch comes early, not last
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(128, 1, 8, 8, generator=g) * 0.1, torch.arange(128) % 2
    x[y == 1, :, 2:5, 2:5] = 1.0
    validation = flipped_held_out(g)

    def model():
        torch.manual_seed(0)
        return BagOfPartsCNN(channels=(4, 4))

    chosen = model()
    history = fit(chosen, (x, y), epochs=6, batch_size=16, lr=1e-2, lr_decay=0.9,
                  device="cpu", progress=False, validation=validation)
    scores = [h.validation_accuracy for h in history]
    best = scores.index(max(scores)) + 1  # the first of the best
    assert best < len(history) and len(set(scores)) > 1
    assert evaluate(chosen, validation) == max(scores)
    shorter = model()  # scoring the validation set must not change the training itself
    fit(shorter, (x, y), epochs=best, batch_size=16, lr=1e-2, lr_decay=0.9,
        progress=False)
    for a, b in zip(chosen.state_dict().values(), shorter.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)


def test_patience_stops_once_the_held_out_accuracy_stops_improving(tmp_path):
    # flipped validation labels again: the held-out score peaks early, so with patience 2 the
    # run stops 2 epochs after its best epoch, well before its budget of 30, and resumes no further
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(128, 1, 8, 8, generator=g) * 0.1, torch.arange(128) % 2
    x[y == 1, :, 2:5, 2:5] = 1.0
    validation = flipped_held_out(g)
    torch.manual_seed(0)
    state = tmp_path / "state.pt"
    history = fit(BagOfPartsCNN(channels=(4, 4)), (x, y), epochs=30, batch_size=16, lr=1e-2,
                  device="cpu", progress=False, validation=validation, patience=2,
                  state_path=state)
    scores = [h.validation_accuracy for h in history]
    assert len(history) < 30 and converged(scores, 2) and not converged(scores[:-1], 2)
    assert scores.index(max(scores)) + 1 == len(history) - 2
    again = fit(BagOfPartsCNN(channels=(4, 4)), (x, y), epochs=30, batch_size=16, lr=1e-2,
                device="cpu", progress=False, validation=validation, patience=2,
                state_path=state)
    assert len(again) == len(history)  # a finished run resumed trains no further epoch
    with pytest.raises(ValueError, match="validation"):
        fit(BagOfPartsCNN(channels=(4, 4)), (x, y), patience=2, progress=False)


def test_a_continued_run_goes_on_from_its_weights_and_stops_by_the_rule():
    # flipped validation labels: every epoch after the start scores worse held out, so the
    # continuation stops after `patience` epochs and keeps the weights it started from
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(128, 1, 8, 8, generator=g) * 0.1, torch.arange(128) % 2
    x[y == 1, :, 2:5, 2:5] = 1.0
    validation = flipped_held_out(g)
    torch.manual_seed(0)
    start = BagOfPartsCNN(channels=(4, 4))
    weights = {k: v.clone() for k, v in start.state_dict().items()}
    earlier = [Epoch(1, 5.0, validation_accuracy=1.0)]  # unbeatable
    model = BagOfPartsCNN(channels=(4, 4))
    history = fit(model, (x, y), epochs=30, batch_size=16, lr=1e-2,
                  progress=False, validation=validation, patience=2, start=(weights, earlier))
    assert [h.epoch for h in history] == [1, 2, 3] and history[0] == earlier[0]
    assert len(earlier) == 1  # the caller's history is not changed
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value, weights[name])


def test_a_continued_run_is_one_epoch_of_the_decayed_rate_from_seed_plus_epochs():
    x, y = torch.rand(64, 1, 8, 8), torch.arange(64) % 2
    torch.manual_seed(0)
    weights = BagOfPartsCNN(channels=(2, 2)).state_dict()
    earlier = [Epoch(e, 1.0, validation_accuracy=0.5) for e in (1, 2)]
    continued, fresh = BagOfPartsCNN(channels=(2, 2)), BagOfPartsCNN(channels=(2, 2))
    fit(continued, (x, y), epochs=3, batch_size=16, lr=1e-2, lr_decay=0.5, seed=4,
        progress=False, start=(weights, earlier))
    fresh.load_state_dict(weights)  # the same epoch by hand: lr 1e-2 * 0.5^2, seed 4 + 2
    fit(fresh, (x, y), epochs=1, batch_size=16, lr=1e-2 * 0.5 ** 2, seed=6,
        progress=False)
    torch.testing.assert_close(continued.classifier.weight, fresh.classifier.weight)


def test_the_rule_on_recorded_curves():
    assert converged([0.90, 0.95, 0.94, 0.95, 0.93])  # best at 2, three epochs without a gain
    assert not converged([0.90, 0.95, 0.94, 0.96])  # the last epoch is the best: still improving
    assert not converged([0.90, 0.95, 0.94, 0.93])  # two epochs without a gain: too soon to say
    assert converged([0.90, 0.95, 0.94, 0.93], patience=2)


def test_a_run_the_rule_stopped_while_it_still_climbed_is_not_finished():
    from scipy import stats

    from capsedu.convergence import finished, training_status, trend
    from capsedu.manifest_rows import Metrics

    # a slow climb: each epoch a little above the last but one, never above the best for long
    climbing = [0.80, 0.81, 0.82, 0.83, 0.84, 0.845, 0.848, 0.846, 0.850, 0.852, 0.851, 0.856,
                0.860, 0.858, 0.859, 0.859]
    assert converged(climbing)  # the rule stopped it: three epochs without a gain
    rise = trend(climbing)
    assert rise.epochs == 8 and rise.rising and not finished(climbing)
    # the slope and its one-sided p, by an independent fit of the last 8 epochs
    fit = stats.linregress(range(8), [100 * v for v in climbing[-8:]])
    assert rise.slope == pytest.approx(fit.slope) and rise.p_value == pytest.approx(fit.pvalue / 2)
    assert "STILL RISING" in training_status(Metrics(validation_by_epoch=tuple(climbing)))
    # a run that climbed first and then levelled off: only its second half counts
    levelled = [0.90, 0.95, 0.97, 0.98, 0.985, 0.986, 0.984, 0.985, 0.986, 0.985, 0.984]
    assert converged(levelled) and not trend(levelled).rising and finished(levelled)
    assert "converged, no held-out gain" in training_status(
        Metrics(validation_by_epoch=tuple(levelled)))
    # a tiny slope is a few held-out images an epoch, not a run still learning
    slow = [0.99 + 0.0001 * k for k in range(10)] + [0.9908, 0.9907, 0.9906]
    assert not trend(slow).rising


def test_another_seed_is_saved_under_its_own_name(tiny_recipe, capsys):
    from capsedu.checkpoints import runs_dir

    assert seeded_name("tiny", RECIPES["tiny"].seed) == "tiny"
    assert recipe_name("tiny-seed3") == recipe_name("tiny") == "tiny"
    assert recipe_name("faces-deep-cnn-seed1") == "faces-deep-cnn"  # the face models' table row
    with pytest.raises(ValueError, match=r"recipe_name\(\): checkpoint must name a checkpoint "
                                         r"a recipe made .*got 'no-such-seed1'"):
        recipe_name("no-such-seed1")  # no such recipe
    main(["tiny", "--seed", "3"])
    entry = read_manifest(runs_dir())["tiny-seed3"]
    assert entry.seed == 3 and entry.file == "tiny-seed3.pt"
    assert read_manifest()["tiny"].notes == "the shipped one"  # the shipped one untouched


def test_a_recipe_with_validation_records_the_chosen_epoch(tmp_path, capsys):
    try:
        RECIPES["capsnet-mnist"].data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    held_out = RECIPES["capsnet-mnist"].validation
    with pytest.raises(SystemExit):  # the command line's error, not a traceback
        main(["capsnet-mnist", "--limit", str(held_out), "--out", str(tmp_path)])
    assert "validation examples" in capsys.readouterr().err
    main(["capsnet-mnist", "--epochs", "2", "--limit", str(held_out + 64), "--out",
          str(tmp_path)])
    entry = read_manifest(tmp_path)["capsnet-mnist"]
    assert entry.train_examples == 64
    metrics = entry.metrics
    assert metrics.validation_examples == held_out and metrics.chosen_epoch in (1, 2)
    assert metrics.validation_accuracy == max(metrics.validation_by_epoch)
    assert len(metrics.validation_by_epoch) == 2


# --- Nothing lost: the training commands never replace a shipped checkpoint by accident ---------


@pytest.fixture
def tiny_recipe(tmp_path, monkeypatch):
    """A temporary data root, a seconds-long recipe "tiny", and a shipped "tiny" with notes."""
    from capsedu import checkpoints
    from capsedu.recipes import Recipe

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    g = torch.Generator().manual_seed(0)
    data = {train: (torch.rand(n, 1, 8, 8, generator=g), torch.arange(n) % 2)
            for train, n in ((True, 32), (False, 1100))}
    monkeypatch.setitem(RECIPES, "tiny", Recipe(
        description="a tiny CNN", build=lambda: BagOfPartsCNN(channels=(2,)), epochs=1,
        data=lambda train, limit: tuple(t[:limit] for t in data[train]), batch_size=16))
    torch.manual_seed(0)
    checkpoints.save(BagOfPartsCNN(channels=(3,)), "tiny", replace_shipped=True,
                     notes="the shipped one")
    threads = torch.get_num_threads()
    yield tmp_path
    torch.set_num_threads(threads)  # --threads changes it for the whole process


def folder_bytes(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_trial_run_goes_to_runs_and_leaves_the_shipped_checkpoint_alone(tiny_recipe, capsys):
    shipped = folder_bytes(tiny_recipe / "checkpoints")
    main(["tiny", "--limit", "10"])
    assert f"saved tiny.pt in {tiny_recipe / 'runs'}" in capsys.readouterr().out
    assert folder_bytes(tiny_recipe / "checkpoints") == shipped
    assert read_manifest(tiny_recipe / "runs")["tiny"].train_examples == 10
    assert pretrained("tiny", tiny_recipe / "runs").hparams["channels"] == (2,)
    main(["tiny", "--limit", "12", "--threads", "1"])  # a second trial replaces the first
    assert read_manifest(tiny_recipe / "runs")["tiny"].command.endswith("--threads 1")
    # --out pointing at the shipped folder is refused too, before any training
    with pytest.raises(SystemExit, match=r"^--out must lie outside the shipped folders .*"
                                         r"--replace-shipped"):
        main(["tiny", "--out", str(tiny_recipe / "checkpoints"), "--threads", "1"])
    # a trial on part of the data never replaces a shipped checkpoint, even when asked to
    with pytest.raises(SystemExit):
        main(["tiny", "--limit", "10", "--replace-shipped"])
    assert "never replaces a shipped checkpoint" in capsys.readouterr().err
    assert folder_bytes(tiny_recipe / "checkpoints") == shipped


def test_replace_shipped_rebuilds_it_and_keeps_its_notes(tiny_recipe, capsys):
    main(["tiny", "--replace-shipped", "--threads", "1"])
    assert f"saved tiny.pt in {tiny_recipe / 'checkpoints'}" in capsys.readouterr().out
    entry = read_manifest()["tiny"]
    assert entry.notes == "the shipped one" and entry.description == "a tiny CNN"
    assert entry.command == "python -m capsedu.train tiny --threads 1"
    assert pretrained("tiny").hparams["channels"] == (2,)
    assert not (tiny_recipe / "runs").exists()


def test_continue_from_goes_on_from_the_kept_epoch_and_lists_the_sittings(
        tiny_recipe, monkeypatch, capsys):
    from dataclasses import replace

    monkeypatch.setitem(RECIPES, "tiny", replace(RECIPES["tiny"], epochs=2, validation=8,
                                                 patience=2))
    first, second = tiny_recipe / "first", tiny_recipe / "second"
    main(["tiny", "--out", str(first), "--threads", "1"])
    before = read_manifest(first)["tiny"]
    kept = before.metrics.chosen_epoch
    main(["tiny", "--continue-from", str(first), "--epochs", "5", "--out", str(second)])
    after = read_manifest(second)["tiny"]
    scores = after.metrics.validation_by_epoch
    assert scores[:kept] == before.metrics.validation_by_epoch[:kept]
    assert kept < len(scores) <= 5 and after.metrics.max_epochs == 5
    assert after.command == f"python -m capsedu.train tiny --epochs 5 --continue-from {first}"
    assert after.sittings == (Sitting(command=before.command, sha256=before.sha256, epochs=2,
                                      kept_epoch=kept),)
    assert read_manifest(first)["tiny"] == before  # the run it went on from is untouched
    assert how_made(after) == (f"{before.command} (kept epoch {kept} of 2), then "
                               f"{after.command}")
    assert how_made(before) == before.command
    (tiny_recipe / "empty").mkdir()
    for folder, message in ((tiny_recipe / "nowhere", "a folder that does not exist"),
                            (tiny_recipe / "empty", "has no row for it"),
                            (first, "already trained")):
        budget = str(kept)
        with pytest.raises(SystemExit):
            main(["tiny", "--continue-from", str(folder), "--epochs", budget, "--out",
                  str(second)])
        assert message in capsys.readouterr().err


def test_continue_from_a_changed_file_is_refused_not_recorded_as_the_run_it_is_not(
        tiny_recipe, monkeypatch, capsys):
    """Issue 37: --continue-from a foreign file recorded the row's provenance for it."""
    from dataclasses import replace

    monkeypatch.setitem(RECIPES, "tiny", replace(RECIPES["tiny"], epochs=2, validation=8,
                                                 patience=2))
    first = tiny_recipe / "first"
    main(["tiny", "--out", str(first), "--threads", "1"])
    torch.manual_seed(7)
    save(BagOfPartsCNN(channels=(2,)), "other", first)
    (first / "tiny.pt").write_bytes((first / "other.pt").read_bytes())  # another run's weights
    with pytest.raises(SystemExit):
        main(["tiny", "--continue-from", str(first), "--epochs", "5", "--out",
              str(tiny_recipe / "second")])
    assert "the file is corrupt or was modified" in capsys.readouterr().err
    assert not (tiny_recipe / "second").exists()


def test_scoring_the_test_set_shows_progress(tiny_recipe, capsys):
    main(["tiny"])
    assert "scoring" in capsys.readouterr().err  # tqdm's bar over the 3 test batches


@pytest.mark.parametrize("argv", [["--epochs", "0"], ["--limit", "0"], ["--limit", "-5"],
                                  ["--epochs", "two"], ["--threads", "0"]])
def test_command_line_refuses_counts_below_one(tiny_recipe, capsys, argv):
    with pytest.raises(SystemExit):
        main(["tiny", *argv])
    err = capsys.readouterr().err
    assert f"argument {argv[0]}: must be an integer >= 1 and <= " in err  # its declaration's
    assert f"got '{argv[1]}'" in err
    assert not (tiny_recipe / "runs").exists()


def test_face_models_command_writes_runs_and_replaces_shipped_only_on_purpose(
        tmp_path, monkeypatch, capsys):
    from capsedu import checkpoints
    from capsedu.parts import training

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    trained = []

    def tiny_model(name, seed, progress=True, root=None):
        trained.append((name, seed))
        torch.manual_seed(seed)
        return BagOfPartsCNN(channels=(2,)).eval()

    monkeypatch.setattr(training, "train_face_model", tiny_model)
    name = training.checkpoint_name("deep CNN", 1)
    checkpoints.save(BagOfPartsCNN(channels=(3,)), name, replace_shipped=True, notes="shipped")
    shipped = folder_bytes(tmp_path / "checkpoints")
    argv = ["--models", "deep CNN", "--seeds", "0", "1"]
    training.main(argv)
    assert f"saved {name}.pt in {tmp_path / 'runs'}" in capsys.readouterr().out
    assert set(read_manifest(tmp_path / "runs")) == {training.checkpoint_name("deep CNN", 0), name}
    assert folder_bytes(tmp_path / "checkpoints") == shipped
    trained.clear()
    with pytest.raises(SystemExit, match=r"^--out must lie outside the shipped folders .*"
                                         r"--replace-shipped"):
        training.main([*argv, "--out", str(tmp_path / "checkpoints")])
    assert trained == []
    training.main([*argv, "--replace-shipped"])
    assert read_manifest()[name].notes == "shipped"
    assert pretrained(name).hparams["channels"] == (2,)


def test_a_single_label_run_is_the_plain_seeded_adam_loop():
    """``fit`` with one label per example, written out: the same shuffles, shifts and steps, so
    the shipped recipes (e.g. capsnet-mnist) draw the same random numbers as before fit learned
    to train on pairs; the last, smaller batch is kept."""
    from torch.utils.data import DataLoader, TensorDataset
    from tqdm.auto import tqdm

    from capsedu.loop import seed_everything

    x, y = torch.rand(84, 1, 8, 8), torch.arange(84) % 2

    def model():
        torch.manual_seed(0)
        return BagOfPartsCNN(channels=(2, 2))

    fitted = model()
    fit(fitted, (x, y), epochs=2, batch_size=16, lr=1e-2, lr_decay=0.5, seed=3,
        progress=False, augment=random_shift)
    by_hand = model()
    generator = seed_everything(3)
    optimizer = torch.optim.Adam(by_hand.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True, generator=generator)
    for _ in range(2):
        # through a (silent) tqdm bar as in fit: creating it opens an iterator over the loader,
        # which draws one number from the generator
        for xb, yb in tqdm(loader, disable=True):  # 6 batches: five of 16 and one of 4
            loss, _ = by_hand.training_loss(random_shift(xb, generator), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
    for a, b in zip(fitted.state_dict().values(), by_hand.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_a_pairs_recipe_validates_on_pairs_of_held_out_digits_only(monkeypatch):
    from capsedu.data.digit_pairs import pair_up
    from capsedu.multi_digit import TwoDigitCNN
    from capsedu.recipe_run import split_validation
    from capsedu.recipes import Recipe

    digits, labels = torch.rand(100, 1, 28, 28), torch.arange(100) % 10
    composed = []  # the digits each call of compose pairs up

    def recording_pair_up(images, classes, generator):
        composed.append(images)
        return pair_up(images, classes, generator)

    monkeypatch.setitem(RECIPES, "tiny-pairs", Recipe(
        description="pairs", build=lambda: TwoDigitCNN(channels=(2, 2, 2), hidden=(4,)),
        epochs=1, data=lambda train, limit: (digits[:limit], labels[:limit]),
        compose=recording_pair_up, validation=40))
    train, (pairs, pair_labels) = split_validation(RECIPES["tiny-pairs"])
    assert torch.equal(train[0], digits[:60]) and torch.equal(train[1], labels[:60])
    assert len(composed) == 1 and torch.equal(composed[0], digits[60:])  # held-out digits only
    assert pairs.shape == (40, 1, 36, 36) and pair_labels.shape == (40, 2)
    again = split_validation(RECIPES["tiny-pairs"])[1]  # the same validation pairs in every run
    assert torch.equal(again[0], pairs) and torch.equal(again[1], pair_labels)


def test_the_held_out_part_is_a_copy_that_does_not_keep_the_training_set(monkeypatch):
    from capsedu.recipe_run import split_validation
    from capsedu.recipes import Recipe

    digits, labels = torch.rand(100, 1, 28, 28), torch.arange(100) % 10
    monkeypatch.setitem(RECIPES, "tiny-split", Recipe(
        description="split", build=lambda: None, epochs=1, validation=30,
        data=lambda train, limit: (digits[:limit], labels[:limit])))
    train, (images, held_labels) = split_validation(RECIPES["tiny-split"])
    assert torch.equal(images, digits[70:]) and torch.equal(held_labels, labels[70:])
    assert train[0].untyped_storage().data_ptr() == digits.untyped_storage().data_ptr()
    for held, whole in ((images, digits), (held_labels, labels)):  # its own, smaller memory
        assert held.untyped_storage().data_ptr() != whole.untyped_storage().data_ptr()
        assert held.untyped_storage().nbytes() == held.nbytes


@pytest.mark.parametrize("name", ["multimnist-capsnet", "multimnist-cnn"])
def test_a_multimnist_recipe_trains_and_loads_back_reading_two_digits(name, tmp_path,
                                                                      monkeypatch):
    from dataclasses import replace

    from capsedu.data.digit_pairs import multimnist_data

    try:
        multimnist_data(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    recipe = RECIPES[name]
    assert recipe.seed == 0 and recipe.epochs == RECIPES["multimnist-cnn"].epochs
    monkeypatch.setitem(RECIPES, name, replace(  # test on 200 of the 10,000 test pairs
        recipe, data=lambda train, limit: multimnist_data(train, limit if train else 200)))
    main([name, "--epochs", "1", "--limit", str(recipe.validation + 130), "--out", str(tmp_path)])
    entry = read_manifest(tmp_path)[name]
    assert entry.train_examples == 130 and entry.metrics.chosen_epoch == 1
    model = pretrained(name, tmp_path)
    pairs, labels = multimnist_data(False, 4)
    assert model.predict(pairs).shape == labels.shape == (4, 2)


@pytest.mark.parametrize("name", sorted(n for n, r in RECIPES.items() if r.data is not None))
def test_every_recipe_builds_a_model_that_takes_its_data(name):
    from capsedu.checkpoints import ARCHS

    recipe = RECIPES[name]
    try:
        batch = recipe.data(True, 8)  # MNIST's first 8 training digits: 7 classes
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    torch.manual_seed(0)
    model = recipe.build()
    if recipe.trainer == "capsedu.train":  # it makes a checkpoint, which can be loaded again
        assert type(model).__name__ in ARCHS
    if recipe.compose is not None:
        batch = recipe.compose(*batch, torch.Generator().manual_seed(0))
    x, *targets = batch
    if recipe.augment is not None:
        x = recipe.augment(x, torch.Generator().manual_seed(0))
    loss, predictions = model.training_loss(x, *targets)
    assert loss.ndim == 0 and torch.isfinite(loss) and predictions.shape == targets[0].shape


def test_a_resumed_run_draws_the_same_dropout_masks(tmp_path):
    from capsedu.baselines import MaxPoolCNN

    x, y = torch.rand(32, 1, 40, 40), torch.arange(32) % 10
    state = tmp_path / "state.pt"

    def model():
        torch.manual_seed(0)
        return MaxPoolCNN(channels=(2, 2, 2), hidden=(8,), dropout=0.5)

    straight = model()
    fit(straight, (x, y), epochs=2, batch_size=8, progress=False)
    first = model()
    fit(first, (x, y), epochs=1, batch_size=8, progress=False, state_path=state)
    torch.manual_seed(123)  # whatever else the process drew in between
    resumed = model()
    fit(resumed, (x, y), epochs=2, batch_size=8, progress=False, state_path=state)
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values(), strict=True):
        assert torch.equal(a, b)


class Finished(NamedTuple):
    """A finished run's numbers, a named tuple inside a record."""

    test_accuracy: float
    train_time_s: float


@dataclass(frozen=True)
class Graded:
    """The record of a finished run of a made-up experiment, as ``record_missing`` writes it."""

    test_accuracy: float
    train_time_s: float
    command: str = ""


def test_an_experiment_records_each_run_once_and_resumes_after_a_crash(tmp_path, monkeypatch):
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    path = tmp_path / "results" / "grid.json"
    calls, states = [], []

    def job(name, crash=False):
        def train(state_path):
            calls.append(name)
            states.append(state_path)
            state_path.write_text("an epoch")  # what a resumable run leaves after each epoch
            if crash:
                raise KeyboardInterrupt
            return Graded(test_accuracy=0.5, train_time_s=1.0)
        return train

    with pytest.raises(KeyboardInterrupt):
        record_missing(path, {"a": job("a"), "b": job("b", crash=True)}, "cmd",
                       replace_shipped=True)
    assert list(json.loads(path.read_text())["runs"]) == ["a"]  # a is kept, b is not
    assert states[1].exists() and states[1].parent == tmp_path / "runs" / "state"
    record_missing(path, {"a": job("a"), "b": job("b")}, command_line("cmd", limit=None, threads=2),
                   replace_shipped=True)
    assert calls == ["a", "b", "b"]  # a is not run again; b resumes from the same state file
    assert states[2] == states[1] and not states[2].exists()
    assert json.loads(path.read_text())["runs"]["b"]["command"] == "cmd --threads 2"


def test_two_processes_share_an_experiment_without_training_a_run_twice(tmp_path, monkeypatch):
    from filelock import FileLock

    from capsedu import checkpoints

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    path = tmp_path / "results" / "grid.json"
    calls = []

    def job(name):
        def train(state_path):
            calls.append(name)
            if name == "a":  # meanwhile another process finishes c
                checkpoints.add_result(path, "c", Graded(test_accuracy=0.7, train_time_s=1.0),
                                       replace_shipped=True)
            return Graded(test_accuracy=0.5, train_time_s=1.0)
        return train

    state_dir = tmp_path / "runs" / "state"
    state_dir.mkdir(parents=True)
    with FileLock(f"{state_dir / 'grid-b.pt'}.lock"):  # another process is training b
        record_missing(path, {name: job(name) for name in "abc"}, "cmd", replace_shipped=True)
    assert calls == ["a"]  # b is left to the other process, c is not trained again
    runs = checkpoints.read_results(path, Graded)
    assert {name: run.test_accuracy for name, run in runs.items()} == {"a": 0.5, "c": 0.7}
    record_missing(path, {name: job(name) for name in "abc"}, "cmd",  # b's lock is free now
                   replace_shipped=True)
    assert calls == ["a", "b"]


def test_probabilities_are_the_softmax_in_batches_and_agree_with_predict():
    from capsedu.loop import predict, probabilities

    torch.manual_seed(0)
    model, x = BagOfPartsCNN(channels=(2,)), torch.rand(70, 1, 8, 8)
    p = probabilities(model, x, batch_size=16)
    with torch.no_grad():
        torch.testing.assert_close(p, torch.softmax(model(x), dim=1))  # 70 = 4 x 16 + 6
    torch.testing.assert_close(p.sum(dim=1), torch.ones(70))
    assert torch.equal(p.argmax(dim=1), predict(model, x, batch_size=16))


def test_time_predict_gives_each_model_its_seconds_per_image():
    from capsedu.seed_table import time_predict

    models = {"small": BagOfPartsCNN(channels=(2,)), "wider": BagOfPartsCNN(channels=(8, 8))}
    timed = time_predict(models, torch.rand(32, 1, 8, 8), repeats=2)
    seconds = timed.seconds_per_image
    assert set(seconds) == set(models) and all(0 < s < 1 for s in seconds.values())
    assert (timed.images, timed.repeats) == (32, 2)


def test_confusion_counts_by_hand_and_refuses_bad_input():
    import pytest

    from capsedu.loop import confusion

    labels, predictions = torch.tensor([0, 0, 1, 2, 2, 2]), torch.tensor([0, 1, 1, 2, 0, 2])
    counts = confusion(labels, predictions, n_classes=3)
    assert counts.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 2]]
    assert int(counts.sum()) == len(labels)
    with pytest.raises(ValueError, match="shape"):
        confusion(labels, predictions[:3], n_classes=3)
    with pytest.raises(ValueError, match=r"classes in \[0, 2\]"):
        confusion(labels, torch.tensor([0, 1, 1, 2, 0, 3]), n_classes=3)


# --- bad input to inference: a sentence, or the right answer -------------------------------------


def test_inference_takes_arrays_and_lists_and_names_what_it_cannot_use():
    import numpy as np

    from capsedu.loop import evaluate, predict

    torch.manual_seed(0)
    model = BagOfPartsCNN(channels=(2,), n_classes=10)
    x = torch.rand(3, 1, 8, 8)
    expected = predict(model, x)
    assert torch.equal(predict(model, x.double().numpy()), expected)  # float64 NumPy
    assert torch.equal(predict(model, x.tolist()), expected)
    for images, error, words in [
        (torch.rand(0, 1, 8, 8), ValueError, r"predict\(\): images must hold at least one"),
        ((x * 255).to(torch.uint8), TypeError, r"float\(\) / 255"),
        (torch.rand(8), ValueError, r"images\[None\]"),
        ("digits", TypeError, "must be a tensor"),
    ]:
        with pytest.raises(error, match=words):
            predict(model, images)
    for labels, error, words in [
            (torch.tensor([0, 1, 10]), ValueError, r"data's labels must lie in \[0, 9\].*got 10"),
            (torch.tensor([0, -1, 2]), ValueError, r"data's labels must lie in \[0, 9\].*got -1"),
            (torch.tensor([0.0, 1.0, 2.0]), TypeError, r"got dtype torch.float32"),
            (torch.tensor([0, 1]), ValueError, r"one per example\), got \[3, 2\]")]:
        with pytest.raises(error, match=words):
            evaluate(model, (x, labels))
    right = np.asarray(expected)  # labels as NumPy: every one read right
    assert evaluate(model, (x, right)) == 1.0


def test_a_record_goes_to_its_results_file_and_back_field_by_field():
    from dataclasses import dataclass, field

    from capsedu.json_records import from_row, json_row
    from capsedu.recipes import Cell

    @dataclass(frozen=True)
    class Run:
        cell: Cell
        by_iterations: dict[int, float]
        curve: tuple[float, ...]
        done: Finished | None
        where: str = field(metadata={"json": "set"})

    run = Run(Cell(3, 0.0), {1: 0.5, 3: 0.75}, (0.25, 0.5), Finished(0.5, 1.0), "translated")
    row = json.loads(json.dumps(json_row(run)))  # as the file keeps it
    assert row == {"cell": {"iterations": 3, "recon_weight": 0.0},
                   "by_iterations": {"1": 0.5, "3": 0.75}, "curve": [0.25, 0.5],
                   "done": {"test_accuracy": 0.5, "train_time_s": 1.0}, "set": "translated"}
    assert from_row(Run, row) == run
    with pytest.raises(ValueError, match=r"from_row\(\): row has \['extra'\]"):
        from_row(Run, {**row, "extra": 1})


def test_a_field_marked_omitted_when_none_is_left_out_while_none_and_read_back():
    from dataclasses import dataclass, field

    from capsedu.json_records import OMITTED_WHEN_NONE, from_row, json_row

    @dataclass(frozen=True)
    class Row:
        name: str
        notes: str | None = field(default=None, metadata={OMITTED_WHEN_NONE: True})
        seed: int | None = None  # not marked: kept as null

    assert json_row(Row("a")) == {"name": "a", "seed": None}
    assert json_row(Row("a", "n", 1)) == {"name": "a", "notes": "n", "seed": 1}
    assert from_row(Row, {"name": "a", "seed": None}) == Row("a")


def test_an_inline_field_keeps_its_records_fields_beside_the_others():
    from dataclasses import field

    from capsedu.json_records import INLINE, from_row, json_row

    @dataclass(frozen=True)
    class When:
        began: str
        seconds: float

    @dataclass(frozen=True)
    class Unit:
        source: str
        when: When = field(metadata={INLINE: True})
        command: str = ""

    unit = Unit("cnn", When("2026-01-01", 1.5), "cmd")
    assert list(json_row(unit).items()) == [("source", "cnn"), ("began", "2026-01-01"),
                                            ("seconds", 1.5), ("command", "cmd")]
    assert from_row(Unit, json_row(unit)) == unit
    with pytest.raises(ValueError, match=r"from_row\(\): row has \['when'\]"):
        from_row(Unit, {**json_row(unit), "when": {}})


def test_an_integer_key_is_read_from_text_and_a_key_that_is_no_number_is_named():
    from capsedu.json_records import from_row

    @dataclass(frozen=True)
    class Run:
        by_iterations: dict[int, float]
        wrong: tuple[int, ...]

    assert from_row(Run, {"by_iterations": {"1": 0.5}, "wrong": [3, 7]}) == Run({1: 0.5}, (3, 7))
    with pytest.raises(ValueError, match=r"from_row\(\): row's by_iterations must be an integer "
                                         r"\(Run's field by_iterations\), got 'one'"):
        from_row(Run, {"by_iterations": {"one": 0.5}, "wrong": []})

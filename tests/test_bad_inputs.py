"""Issue 26, round two, from the user's side: strings taken for switches, uint8 pixels, NaN
transformation parameters and configs that make no network are refused, naming the argument."""

import os
import subprocess
import sys

import pytest
import torch

from capsedu.capsnet import CapsNetConfig
from capsedu.checks import check_pixels
from capsedu.data import digit_pairs, transformed_mnist
from capsedu.validate import Flag, Float, Tensor, checked

DIGITS = torch.rand(2, 1, 28, 28)


def quick_mode(value: str) -> subprocess.CompletedProcess:
    """Import the package with ``CAPSEDU_QUICK=value``, as a shell would, and print the mode."""
    return subprocess.run([sys.executable, "-c",
                           "from capsedu import course_settings; print(course_settings.QUICK)"],
                          env=dict(os.environ, CAPSEDU_QUICK=value), capture_output=True,
                          text=True)


@pytest.mark.parametrize("value, quick", [("1", "True"), ("False", "False"), (" off ", "False"),
                                          ("", "False"), ("YES", "True")])
def test_quick_mode_reads_the_usual_spellings_of_on_and_off(value, quick):
    assert quick_mode(value).stdout.strip() == quick


def test_quick_mode_refuses_a_value_that_is_neither_on_nor_off():
    run = quick_mode("maybe")  # was taken as on
    assert run.returncode != 0
    assert "CAPSEDU_QUICK must be one of" in run.stderr and "'maybe'" in run.stderr


@checked
def _turn(switch: Flag("a switch") = False,
          angle: Float("degrees") | Tensor("angles", finite=True) = 0.0):
    return switch, angle


@pytest.mark.parametrize("value", ["False", 0, None])
def test_a_flag_refuses_what_is_not_a_bool(value):
    with pytest.raises(TypeError, match="switch must be True or False"):
        _turn(switch=value)
    assert _turn(switch=False)[0] is False


@pytest.mark.parametrize("value", [float("nan"), float("inf"), torch.tensor([0.0, float("nan")]),
                                   "10", True])
def test_a_number_or_tensor_refuses_what_is_not_finite_numbers(value):
    with pytest.raises((TypeError, ValueError), match="angle (must be|contains)"):
        _turn(angle=value)
    _turn(angle=torch.tensor([1.0, 2.0]))


def test_check_pixels_refuses_uint8_lists_and_nan_with_the_conversion():
    with pytest.raises(TypeError, match=r"x.float\(\) / 255"):
        check_pixels((DIGITS * 255).to(torch.uint8), "x")
    with pytest.raises(TypeError, match="torch.as_tensor"):
        check_pixels(DIGITS.tolist(), "x")
    with pytest.raises(ValueError, match="NaN"):
        check_pixels(torch.full((1, 1, 2, 2), float("nan")), "x")


def test_check_pixels_takes_pixels_in_0_1_and_refuses_any_past_them():
    check_pixels(torch.tensor([0.0, 1.0]), "x")
    check_pixels(torch.tensor([-1e-7, 1 + 1e-7]), "x")  # a float's rounding
    for low, high in ((0.0, 1.1), (-0.05, 1.0)):  # noise added past white or black
        with pytest.raises(ValueError, match=rf"x must hold pixels in \[0, 1\], got values from "
                                             rf"{low:g} to {high:g}; .*\(x.clamp\(0, 1\)\)"):
            check_pixels(torch.tensor([low, high]), "x")


UINT8 = (DIGITS * 255).to(torch.uint8)


@pytest.mark.parametrize("transform", [
    # was all ink clamped to 1: a silent white blob
    lambda x: transformed_mnist.affine(x, rotation=10),
    lambda x: transformed_mnist.random_affine(x),
    lambda x: transformed_mnist.translated(x),
    lambda x: transformed_mnist.sweep(x, "scale", 1.2),
    lambda x: transformed_mnist.pad_to(x, 40),
    lambda x: transformed_mnist.on_canvas(x, torch.tensor([0, 1]), torch.tensor([2, 3]), 40),
    lambda x: digit_pairs.multimnist(x, torch.tensor([0, 1]), 2),
])
def test_the_transforms_refuse_uint8_pixels_with_the_conversion(transform):
    with pytest.raises(TypeError, match=r"images.float\(\) / 255"):
        transform(UINT8)


@pytest.mark.parametrize("kwargs, name", [
    (dict(rotation=float("nan")), "rotation"), (dict(shear=float("inf")), "shear"),
    (dict(scale_x=float("nan")), "scale_x"), (dict(ty=float("-inf")), "ty"),
    (dict(rotation=torch.tensor([0.0, float("nan")])), "rotation"),
])
def test_affine_refuses_nan_or_infinite_parameters_naming_them(kwargs, name):
    # was a NaN image
    with pytest.raises(ValueError,
                       match=rf"affine\(\): {name} (must be (a )?finite|contains 1 NaN)"):
        transformed_mnist.affine(DIGITS, **kwargs)


def test_affine_and_sweep_refuse_a_zero_scale():
    with pytest.raises(ValueError, match=r"affine\(\): scale_x must be a finite number >= 0.2"):
        # was torch's "singular matrix" from deep inside
        transformed_mnist.affine(DIGITS, scale_x=0.0)
    with pytest.raises(ValueError, match=r"sweep\(\): value must be a finite number >= 0.2"):
        transformed_mnist.sweep(DIGITS, "scale", 0.0)


def test_place_refuses_nan_shifts():
    with pytest.raises(ValueError, match=r"on_canvas\(\): dx contains 1 NaN"):
        transformed_mnist.on_canvas(DIGITS, torch.tensor([float("nan"), 1.0]), torch.tensor([1, 1]),
                                    40)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(primary_stride=0), ValueError, r"CapsNetConfig\(\): primary_stride must be an integer"),
    (dict(image_size=28.5), TypeError, r"image_size must be an integer >= 1"),
    (dict(conv_channels=-4), ValueError, r"conv_channels must be an integer >= 1"),
    (dict(conv_channels=10**6), ValueError, r"conv_channels must be an integer >= 1 and <= 4096"),
    (dict(iterations=True), TypeError, r"iterations must be an integer >= 1"),
    (dict(decoder_hidden=(512, 0)), ValueError, r"decoder_hidden\[1\] must be an integer >= 1"),
    (dict(recon_weight=float("nan")), ValueError, r"recon_weight must be a finite number"),
    (dict(recon_weight=-1.0), ValueError, r"recon_weight must be a finite number >= 0"),
    (dict(conv_kernel=40), ValueError, r"leaves no primary capsule"),
])
def test_capsnet_config_refuses_sizes_that_make_no_network(kwargs, error, message):
    with pytest.raises(error, match=message):
        CapsNetConfig(**kwargs)


def test_capsnet_config_refuses_a_string_for_a_switch():
    with pytest.raises(TypeError, match="grad_through_routing must be True or False"):
        CapsNetConfig(grad_through_routing="False")  # was taken as True


def test_fit_expands_a_tilde_in_the_state_path(tmp_path, monkeypatch):
    from capsedu import BagOfPartsCNN
    from capsedu.loop import fit

    monkeypatch.setenv("HOME", str(tmp_path))
    x, y = torch.rand(32, 1, 8, 8), torch.arange(32) % 2
    fit(BagOfPartsCNN(channels=(2, 2)), (x, y), epochs=1, batch_size=16, device="cpu",
        progress=False, state_path="~/runs/state.pt")  # was a folder named "~" in the cwd
    assert (tmp_path / "runs" / "state.pt").is_file() and not os.path.exists("~")


def test_the_train_command_expands_a_tilde_in_state_and_continue_from(tmp_path, monkeypatch):
    import capsedu.train

    seen = {}

    def record(*args, state_path, continue_folder, **kwargs):
        seen.update(state=state_path, folder=continue_folder)
        raise ValueError("stop here")

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(capsedu.train, "run_recipe", record)
    with pytest.raises(SystemExit):
        capsedu.train.main(["capsnet-mnist", "--state=~/s.pt", "--continue-from=~/ck",
                            "--out", str(tmp_path / "out")])
    assert seen == {"state": str(tmp_path / "s.pt"), "folder": str(tmp_path / "ck")}


def test_a_faces_dataset_too_big_for_memory_is_refused_up_front(monkeypatch):
    from capsedu import memory
    from capsedu.data.faces import MAX_IMAGES, dataset

    with pytest.raises(ValueError, match=rf"n must be an integer >= 1 and <= {MAX_IMAGES}"):
        dataset("face", 10**11)  # was a run until the machine killed it
    monkeypatch.setattr(memory, "available_memory", lambda: 2**26)  # MAX_IMAGES: 20,000 (probe 30)
    with pytest.raises(MemoryError, match=rf"dataset\('face', n={MAX_IMAGES}\) needs about .* "
                                          r"of memory, .* is free; ask for fewer"):
        dataset("face", MAX_IMAGES)
    assert len(dataset("face", 2)[0]) == 2


def test_multimnist_too_big_for_memory_is_refused_up_front():
    with pytest.raises(MemoryError, match=r"multimnist\(n=1000000000000\) needs about"):
        digit_pairs.multimnist(DIGITS, torch.tensor([0, 1]), 10**12)


def test_available_memory_falls_back_to_the_operating_system(monkeypatch):
    from capsedu.memory import available_memory

    monkeypatch.setitem(sys.modules, "psutil", None)  # as if psutil were not installed
    assert 0 < available_memory()


def test_available_memory_counts_what_a_container_leaves(tmp_path, monkeypatch):
    """On Binder or a JupyterHub the machine's free memory is the host's: a cgroup's limit (v2's
    memory.max, v1's memory.limit_in_bytes) less what it uses is all a learner's kernel has."""
    from capsedu import memory

    assert memory._container_left(tmp_path) is None  # no cgroup files shown
    (tmp_path / "memory.max").write_text("max\n")  # v2, no limit
    (tmp_path / "memory.current").write_text("1000\n")
    assert memory._container_left(tmp_path) is None
    (tmp_path / "memory.max").write_text(f"{2 * 2**30}\n")  # v2: 2 GiB, 1.5 GiB used
    (tmp_path / "memory.current").write_text(f"{3 * 2**29}\n")
    assert memory._container_left(tmp_path) == 2**29
    v1 = tmp_path / "v1"
    (v1 / "memory").mkdir(parents=True)
    (v1 / "memory" / "memory.limit_in_bytes").write_text(f"{2**30}\n")
    (v1 / "memory" / "memory.usage_in_bytes").write_text(f"{2**28}\n")
    assert memory._container_left(v1) == 3 * 2**28
    monkeypatch.setattr(memory, "_container_left", lambda root=tmp_path: 2**20)
    assert memory.available_memory() == 2**20
    with pytest.raises(MemoryError, match=r"^a batch needs about 2.0 MiB of memory, 1.0 MiB is "):
        memory.check_memory(2**21, "a batch", "ask for less")


@pytest.mark.parametrize("seed", ["-1", "1.5", "one"])
def test_the_train_command_refuses_a_seed_that_is_not_an_integer_at_least_0(seed, capsys):
    from capsedu.train import main

    with pytest.raises(SystemExit):
        main(["capsnet-mnist", "--seed", seed, "--limit", "1"])
    err = capsys.readouterr().err
    assert f"--seed: must be an integer >= 0 and <= {2**32 - 1} (a random seed" in err
    assert f"got '{seed}'" in err


COMMANDS_WITH_OUT = [("capsedu.train", ["capsnet-mnist-live", "--limit", "64"]),
                     ("capsedu.ablations", ["--limit", "64"]),
                     ("capsedu.bug_zoo", ["--limit", "64"]),
                     ("capsedu.parts.training", ["--seeds", "0"])]


def refusal_of_out(module: str, argv: list[str], out, capsys) -> str:
    """``python -m <module> <argv> --out <out>``, which must stop at the command line's error:
    what it printed."""
    import importlib

    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main([*argv, "--out", str(out)])
    assert stop.value.code == 2  # argparse's error, before anything was trained
    return capsys.readouterr().err


@pytest.mark.parametrize("module, argv", COMMANDS_WITH_OUT)
def test_the_commands_refuse_an_out_that_is_a_file_or_under_one(module, argv, tmp_path,
                                                                  monkeypatch, capsys):
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))  # no MNIST here: training would fail
    file = tmp_path / "notes.txt"
    file.write_text("not a folder")
    assert (f"argument --out: '{file}' is a file, not a folder; name a folder to write into"
            in refusal_of_out(module, argv, file, capsys))
    assert (f"argument --out: '{file / 'run'}' would be made in '{file}', which is a file"
            in refusal_of_out(module, argv, file / "run", capsys))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # nothing written


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
@pytest.mark.parametrize("module, argv", COMMANDS_WITH_OUT)
def test_the_commands_refuse_an_out_they_cannot_write_to(module, argv, tmp_path, monkeypatch,
                                                         capsys):
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert (f"argument --out: '{locked}' is not writable by you"
                in refusal_of_out(module, argv, locked, capsys))
        assert (f"argument --out: '{locked / 'run'}' would be made in '{locked}', which is not "
                "writable by you" in refusal_of_out(module, argv, locked / "run", capsys))
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("train, validation, error, message", [
    ((torch.rand(0, 1, 8, 8), torch.zeros(0, dtype=torch.long)), None, ValueError,
     r"train holds no examples \(shapes \(0, 1, 8, 8\), \(0,\)\); pass at least one"),
    ((torch.rand(10, 1, 8, 8), torch.zeros(8, dtype=torch.long)), None, ValueError,
     r"train must hold as many rows in each of its tensors \(one per example\), got \[10, 8\]"),
    (torch.rand(10, 1, 8, 8), None, TypeError,
     r"train must be a tuple \(images, labels, ...\) .* got a Tensor; pass e.g. train=\(images"),
    ((torch.rand(10, 1, 8, 8), torch.arange(10) % 2), (torch.rand(0, 1, 8, 8), torch.zeros(0)),
     ValueError, r"validation holds no examples"),
])
def test_fit_refuses_an_empty_or_ragged_set_before_training(train, validation, error, message,
                                                            tmp_path):
    from capsedu import BagOfPartsCNN
    from capsedu.loop import fit

    model = BagOfPartsCNN(channels=(2,))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(error, match=message):  # was an UnboundLocalError after an empty epoch
        fit(model, train, epochs=1, batch_size=4, device="cpu", progress=False,
            validation=validation, state_path=tmp_path / "state.pt")
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())  # not trained
    assert not (tmp_path / "state.pt").exists()


def widget_with(name: str, images, labels):
    """Notebook 10's RotationExplorer or notebook 06's PoseSpaceExplorer on ``images`` and
    ``labels``, with small untrained models."""
    from capsedu.capsnet import LIVE, CapsNet
    from capsedu.gcnn import C4CNN, PlainCNN
    from capsedu.widgets import PoseSpaceExplorer, RotationExplorer

    torch.manual_seed(0)
    if name == "rotation":
        return RotationExplorer(C4CNN(channels=(2, 2, 2, 2)), PlainCNN(channels=(2, 2, 2, 2)),
                                images, labels)
    return PoseSpaceExplorer(CapsNet(LIVE).eval(), images, labels)


NAN_DIGITS = DIGITS.clone()
NAN_DIGITS[1, 0, 3, 3] = float("nan")


@pytest.mark.parametrize("name", ["rotation", "pose space"])
@pytest.mark.parametrize("images, labels, error, message", [
    ((DIGITS * 255).to(torch.uint8), torch.tensor([3, 7]), TypeError,
     r"images must hold floating-point pixels in \[0, 1\], got dtype torch.uint8; use "
     r"images.float\(\) / 255"),
    (NAN_DIGITS, torch.tensor([3, 7]), ValueError, r"images contains 1 NaN or infinite value"),
    (DIGITS[:, 0], torch.tensor([3, 7]), ValueError,
     r"Explorer\(\): images must have shape \[N, 1, 28, 28\].*, got shape \(2, 28, 28\)"),
    (DIGITS[:0], torch.tensor([], dtype=torch.long), ValueError,
     r"Explorer\(\): images must hold from one digit to 2,000 digits to pick from"),
    (DIGITS, torch.tensor([3]), ValueError, r"labels must be integer class labels of shape "
                                            r"\[batch\] = \[2\], got shape \(1,\)"),
])
def test_the_digit_widgets_refuse_images_they_cannot_show(name, images, labels, error, message):
    with pytest.raises(error, match=message):
        widget_with(name, images, labels)


def test_the_pose_space_widget_wants_one_name_per_image():
    from capsedu.capsnet import LIVE, CapsNet
    from capsedu.widgets import PoseSpaceExplorer

    with pytest.raises(ValueError, match=r"PoseSpaceExplorer\(\): names must hold one item per "
                                         r"image \(2\), got 3"):
        PoseSpaceExplorer(CapsNet(LIVE).eval(), DIGITS, torch.tensor([3, 7]), names=["a", "b", "c"])


@pytest.mark.parametrize("name", ["rotation", "pose space"])
def test_the_digit_widgets_show_float_digits(name):
    assert widget_with(name, DIGITS, torch.tensor([3, 7])).image.value  # a drawn figure


def test_scoring_refuses_nan_pixels_naming_the_images():
    from capsedu import BagOfPartsCNN
    from capsedu.loop import evaluate, predict

    x = torch.rand(3, 1, 8, 8)
    x[2, 0, 1, 1] = float("nan")
    model = BagOfPartsCNN(channels=(2,))
    for score in (lambda: predict(model, x),
                  lambda: evaluate(model, (x, torch.tensor([0, 1, 0])))):
        with pytest.raises(ValueError, match=r"images contains 1 NaN or infinite value"):
            score()


def test_a_string_for_a_switch_never_replaces_a_shipped_checkpoint():
    """Issue 37: "False" is a non-empty string, which Python takes as true."""
    from capsedu import checkpoints
    from capsedu.baselines import BagOfPartsCNN

    manifest = checkpoints.checkpoint_dir() / checkpoints.MANIFEST
    before = manifest.read_bytes()
    with pytest.raises(TypeError, match="replace_shipped must be True or False"):
        checkpoints.save(BagOfPartsCNN(channels=(3,)), "capsnet-mnist-live",
                         replace_shipped="False")
    with pytest.raises(TypeError, match="replace_shipped must be True or False"):
        checkpoints.record("capsnet-mnist-live", replace_shipped="no", notes="changed")
    assert manifest.read_bytes() == before


def test_strings_for_the_other_switches_are_refused_naming_them():
    from capsedu.data.mnist import load_mnist
    from capsedu.statistics import seed_difference

    with pytest.raises(TypeError, match="by_seed must be True or False"):
        seed_difference([1.0, 2.0], [2.0, 3.0], by_seed="False")
    with pytest.raises(TypeError, match="train must be True or False"):
        load_mnist("test", limit=5)  # was the training split


def test_a_shorter_run_never_replaces_a_shipped_checkpoint(capsys):
    from capsedu import checkpoints
    from capsedu.train import main

    shipped = checkpoints.read_manifest()["capsnet-mnist-live"].metrics.epochs
    with pytest.raises(SystemExit):  # refused before any training
        main(["capsnet-mnist-live", "--epochs", str(shipped - 1), "--replace-shipped"])
    assert "a shorter run is a trial" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, name", [
    ({"lr_decay": -0.9}, "lr_decay"), ({"lr_decay": 0.0}, "lr_decay"),
    ({"lr_decay": 1.5}, "lr_decay"),
    ({"lr": 0.0}, "lr"), ({"lr": float("nan")}, "lr"), ({"patience": -1}, "patience"),
    ({"epochs": 0}, "epochs"), ({"batch_size": 2.5}, "batch_size"), ({"seed": -1}, "seed")])
def test_fit_refuses_settings_that_train_wrong_before_training(kwargs, name):
    """Issue 37: a negative lr_decay trained uphill, patience=-1 stopped after one epoch."""
    from capsedu.baselines import BagOfPartsCNN
    from capsedu.loop import fit

    model = BagOfPartsCNN(channels=(3,))
    before = [p.detach().clone() for p in model.parameters()]
    data = torch.rand(8, 1, 32, 32), torch.randint(0, 2, (8,))
    settings = {"validation": data, **kwargs} if "patience" in kwargs else kwargs
    with pytest.raises((ValueError, TypeError), match=rf"^fit\(\): {name} must"):
        fit(model, data, progress=False, **settings)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_numpy_0_255_images_are_refused_like_tensors_not_read_as_pixels():
    """Issue 37: a NumPy uint8 array was converted to float before the uint8 check."""
    import numpy as np

    from capsedu.loop import predict

    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
    model.predict = lambda x: model(x).argmax(dim=1)
    with pytest.raises(TypeError, match=r"images.float\(\) / 255"):
        predict(model, np.full((2, 1, 28, 28), 200, dtype=np.uint8))
    assert predict(model, np.zeros((2, 1, 28, 28))).shape == (2,)  # float64 pixels are read


def test_a_manifest_with_two_rows_of_one_name_is_refused_and_unknown_keys_are_kept(tmp_path):
    """Issue 37: a second row of one name was lost on the next save, and keys other than
    "checkpoints" were dropped."""
    import json

    from capsedu import checkpoints
    from capsedu.baselines import BagOfPartsCNN

    manifest = tmp_path / checkpoints.MANIFEST
    row = {"name": "tiny", "file": "tiny.pt"}
    manifest.write_text(json.dumps({"checkpoints": [row, {**row, "seed": 1}]}))
    with pytest.raises(ValueError, match="more than one row for 'tiny'"):
        checkpoints.read_manifest(tmp_path)
    manifest.write_text(json.dumps({"format": 2, "checkpoints": []}))
    checkpoints.save(BagOfPartsCNN(channels=(3,)), "tiny", tmp_path, command="test")
    assert json.loads(manifest.read_text())["format"] == 2
    assert set(checkpoints.read_manifest(tmp_path)) == {"tiny"}


def test_a_lock_another_process_holds_is_waited_for_only_so_long(tmp_path, monkeypatch):
    """Issue 37: save() waited forever, without a word, on a lock a paused process held."""
    from capsedu import checkpoints
    from capsedu.baselines import BagOfPartsCNN

    monkeypatch.setattr(checkpoints, "LOCK_TIMEOUT_S", 0.5)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from filelock import FileLock; "
        f"lock = FileLock({str(tmp_path / '.capsedu.lock')!r}); lock.acquire(); "
        "print('held', flush=True); time.sleep(30)")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError, match=r"\.capsedu\.lock has been held by another"):
            checkpoints.save(BagOfPartsCNN(channels=(3,)), "tiny", tmp_path, command="test")
    finally:
        holder.kill()
        holder.wait()


def test_empty_out_state_as_a_folder_and_a_negative_limit_are_refused(tmp_path, capsys):
    """Issue 37: --out "" wrote into the current folder; a bad --state failed only after an epoch
    had trained; multimnist_data(limit=-5) gave 9,995 pairs."""
    from capsedu.train import main

    for argv, message in ((["--out", ""], "would write into the current folder"),
                          (["--state", str(tmp_path)], "must name a file")):
        with pytest.raises(SystemExit):  # before any training
            main(["capsnet-mnist-live", "--limit", "128", *argv])
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="limit must be an integer >= 1"):
        digit_pairs.multimnist_data(train=False, limit=-5)


def test_held_out_images_changed_by_one_caller_are_not_changed_for_the_next():
    """Issue 37: the cached data sets handed back the very arrays a learner changed in place."""
    from capsedu.parts.scoring import held_out
    from capsedu.parts.training import readout_data

    images, parts = held_out("face", 3)
    images.zero_()
    parts.clear()
    again, parts_again = held_out("face", 3)
    assert again.abs().sum() > 0 and len(parts_again) == 3
    faces_, _ = readout_data(4, 0)
    faces_.fill_(0.5)
    assert not torch.equal(readout_data(4, 0)[0], faces_)

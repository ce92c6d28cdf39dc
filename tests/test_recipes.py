"""What every record of a training run keeps (``recipe_run.how_run``), and its recorded command
(``recipes.command_line``)."""

import json
import shlex
from dataclasses import asdict, replace
from pathlib import Path

import pytest
import torch

from capsedu import BagOfPartsCNN
from capsedu.checkpoints import read_manifest
from capsedu.loop import Epoch
from capsedu.recipe_run import HowRun, how_run
from capsedu.recipes import RECIPES, command_line
from capsedu.train import main


def test_how_run_sums_the_epochs_seconds_and_names_threads_and_torch():
    history = [Epoch(1, 1.04, loss=0.3), Epoch(2, 2.03, loss=0.2)]
    assert how_run(history) == HowRun(3.1, torch.get_num_threads(), torch.__version__)
    with pytest.raises(ValueError, match=r"how_run\(\): history must hold at least one"):
        how_run([])  # no epoch trained is no run to record
    # the keys every manifest row and results file keeps
    assert list(asdict(how_run(history))) == ["train_time_s", "threads", "torch_version"]


# --- The recorded command: one maker (command_line), the shipped records unchanged -------------

REPO = Path(__file__).resolve().parent.parent


def shipped_commands() -> set[str]:
    """Every command recorded in the shipped manifest (its sittings too) and results files."""
    commands = set()
    for row in read_manifest(REPO / "data" / "checkpoints").values():
        commands |= {row.command, *(s.command for s in row.sittings or ())}
    for file in ("routing_ablations.json", "bug_zoo.json", "bug_zoo_1_epoch.json",
                 "face_curves.json"):
        runs = json.loads((REPO / "data" / "results" / file).read_text())["runs"]
        commands |= {record["command"] for record in runs.values()}
    return commands


@pytest.mark.parametrize("saved, argv", [
    ("capsnet-mnist", ["capsnet-mnist", "--threads", "1"]),
    ("affnist-cnn", ["affnist-cnn", "--epochs", "12", "--threads", "1"]),
    ("rotmnist-cnn-seed1", ["rotmnist-cnn", "--seed", "1", "--threads", "1"]),
])
def test_the_command_line_records_the_shipped_commands_as_they_were(tmp_path, monkeypatch, saved,
                                                                     argv):
    """The shipped checkpoints' commands, typed again, are recorded byte for byte as shipped
    (each recipe's model and data swapped for a tiny one; its epochs and seed kept)."""
    shipped = shlex.join(["python", "-m", "capsedu.train", *argv])
    assert shipped in shipped_commands()
    name = argv[0]
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    examples = (torch.rand(32, 1, 8, 8), torch.arange(32) % 2)
    monkeypatch.setitem(RECIPES, name, replace(
        RECIPES[name], build=lambda: BagOfPartsCNN(channels=(2,)), batch_size=16, augment=None,
        data=lambda train, limit: examples, validation=0, patience=None, compose=None))
    threads = torch.get_num_threads()
    try:
        main([*argv, "--out", str(tmp_path / "out")])
    finally:
        torch.set_num_threads(threads)
    assert read_manifest(tmp_path / "out")[saved].command == shipped


@pytest.mark.parametrize("command, flags, shipped", [
    ("python -m capsedu.train multimnist-capsnet",
     dict(epochs=21, continue_from="data/checkpoints", threads=1),
     "python -m capsedu.train multimnist-capsnet --epochs 21 --continue-from data/checkpoints "
     "--threads 1"),
    ("python -m capsedu.ablations", dict(epochs=20, limit=None, threads=1),
     "python -m capsedu.ablations --epochs 20 --threads 1"),
    ("python -m capsedu.bug_zoo", dict(epochs=1, limit=None, threads=1),
     "python -m capsedu.bug_zoo --epochs 1 --threads 1"),
    ("python -m capsedu.bug_zoo", dict(epochs=20, limit=None, threads=1),
     "python -m capsedu.bug_zoo --epochs 20 --threads 1"),
    ("python -m capsedu.parts.training", dict(models=None, seeds=[0, 1, 2], threads=1),
     "python -m capsedu.parts.training --seeds 0 1 2 --threads 1"),
])
def test_command_line_makes_the_shipped_records(command, flags, shipped):
    assert shipped in shipped_commands()
    assert command_line(command, **flags) == shipped


def test_command_line_keeps_a_zero_and_quotes_what_a_shell_would_split():
    assert command_line("python -m capsedu.train capsnet-mnist", seed=0, limit=None) == (
        "python -m capsedu.train capsnet-mnist --seed 0")
    typed = command_line("python -m capsedu.train tiny", continue_from="my runs/it's here")
    assert shlex.split(typed)[-2:] == ["--continue-from", "my runs/it's here"]


def test_the_face_models_command_records_what_was_typed_as_the_shipped_rows(monkeypatch,
                                                                              tmp_path):
    from capsedu.parts import training

    recorded = []
    monkeypatch.setattr(training, "train_and_save",
                        lambda names, seeds, out, command, **_: recorded.append(command) or [])
    threads = torch.get_num_threads()
    try:
        training.main(["--seeds", "0", "1", "2", "--threads", "1", "--out", str(tmp_path)])
    finally:
        torch.set_num_threads(threads)
    training.main(["--models", "pixel CapsNet", "--seeds", "4", "--out", str(tmp_path)])
    assert recorded[0] in shipped_commands()
    assert recorded == ["python -m capsedu.parts.training --seeds 0 1 2 --threads 1",
                        "python -m capsedu.parts.training --models 'pixel CapsNet' --seeds 4"]


# --- The one table: every trained model's recipe, typed -----------------------------------------

SETTINGS = ("data", "epochs", "patience", "batch_size", "lr_decay", "seed", "augment",
            "validation", "compose", "examples", "trainer")


@pytest.mark.parametrize("pair", [("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn"),
                                  ("multimnist-capsnet", "multimnist-cnn"),
                                  ("rotmnist-gcnn", "rotmnist-cnn", "mnist-vit",
                                   "mnist-vit-no-positions"),
                                  ("faces-bag-of-parts-cnn", "faces-deep-cnn")])
def test_the_models_of_a_comparison_train_alike(pair):
    """Like for like: the models a notebook compares share every setting but their learning rate
    (Adam at 2e-3 for the CapsNets, 1e-3 for the CNNs of Part IV)."""
    first, *others = (RECIPES[name] for name in pair)
    for other in others:
        assert [getattr(other, s) for s in SETTINGS] == [getattr(first, s) for s in SETTINGS]


def test_every_shipped_checkpoint_and_recorded_run_has_its_recipe_in_the_table():
    from capsedu.parts.training import FACE_MODELS, checkpoint_name, face_recipe_name
    from capsedu.recipes import ABLATION_GRID, CORRECT, ablation_name, recipe_name, zoo_name

    rows = read_manifest(REPO / "data" / "checkpoints")
    for row in rows.values():
        recipe = RECIPES[recipe_name(row.name)]
        module = row.command.split()[2]
        assert module == f"capsedu.{recipe.trainer.removeprefix('capsedu.')}", row.name
        assert recipe.description == row.description or module == "capsedu.train"
    shipped = set(rows)
    assert {checkpoint_name(name, seed) for name in FACE_MODELS for seed in (0, 1, 2)} <= shipped
    assert all(face_recipe_name(name) in RECIPES for name in FACE_MODELS)
    zoo = json.loads((REPO / "data" / "results" / "bug_zoo.json").read_text())["runs"]
    assert {zoo_name(name) for name in zoo} == {name for name, r in RECIPES.items()
                                                if r.trainer == "capsedu.bug_zoo"}
    assert CORRECT in zoo
    grid = {ablation_name(cell) for cell in ABLATION_GRID}
    assert grid == {name for name, r in RECIPES.items() if r.trainer == "capsedu.ablations"}


def test_a_recipe_is_typed_and_frozen():
    recipe = RECIPES["capsnet-mnist-live"]
    with pytest.raises(AttributeError):
        recipe.epochs = 3
    for bad in (dict(epochs="3"), dict(lr="fast"), dict(seed=True), dict(trainer="make")):
        with pytest.raises((TypeError, ValueError), match=f"Recipe\\(\\): {next(iter(bad))} must"):
            replace(recipe, **bad)


def test_the_train_command_names_the_command_of_another_experiments_recipe(capsys):
    for name, command in (("bug-zoo-correct", "capsedu.bug_zoo"),
                          ("ablation-3-iterations", "capsedu.ablations"),
                          ("faces-deep-cnn", "capsedu.parts.training")):
        with pytest.raises(SystemExit):
            main([name])
        assert f"is trained by python -m {command}" in capsys.readouterr().err
    main(["--list"])
    listed = capsys.readouterr().out
    assert all(f"{name}: " in listed for name in RECIPES)

"""Checkpoints: round trip, sha256 verification, weights_only loading, clear errors."""

import json
import pickle

import pytest
import torch

from capsedu import BagOfPartsCNN, CapsNet, ChecksumError, pretrained
from capsedu.checkpoints import read_manifest, save, sha256


def test_round_trip(tmp_path):
    torch.manual_seed(0)
    model = CapsNet(conv_channels=8, primary_maps=2, decoder_hidden=(16,))
    entry = save(model, "tiny", tmp_path, command="python -m capsedu.train tiny", seed=0)
    assert entry["sha256"] == sha256(tmp_path / "tiny.pt")
    loaded = pretrained("tiny", tmp_path)
    assert isinstance(loaded, CapsNet) and not loaded.training
    assert loaded.config == model.config
    x = torch.rand(2, 1, 28, 28)
    torch.testing.assert_close(loaded(x).v, model.eval()(x).v)


def test_manifest_keeps_other_rows(tmp_path):
    save(BagOfPartsCNN(), "a", tmp_path)
    save(BagOfPartsCNN(channels=(4, 4, 4)), "b", tmp_path)
    assert set(read_manifest(tmp_path)) == {"a", "b"}
    assert pretrained("b", tmp_path).hparams["channels"] == (4, 4, 4)


def test_tampered_checkpoint_is_refused(tmp_path):
    save(BagOfPartsCNN(), "cnn", tmp_path, command="python -m capsedu.train cnn")
    path = tmp_path / "cnn.pt"
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match="sha256.*python -m capsedu.train cnn"):
        pretrained("cnn", tmp_path)


def test_unknown_and_missing(tmp_path):
    save(BagOfPartsCNN(), "cnn", tmp_path)
    with pytest.raises(KeyError, match="available: cnn"):
        pretrained("capsnet", tmp_path)
    (tmp_path / "cnn.pt").unlink()
    with pytest.raises(FileNotFoundError, match="missing"):
        pretrained("cnn", tmp_path)


class Payload:
    """Stands for code smuggled into a pickle."""

    def __reduce__(self):
        return (print, ("this ran while loading",))


def test_pickled_code_is_not_executed_even_with_a_matching_hash(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"arch": "BagOfPartsCNN", "hparams": {}, "state_dict": Payload()}, path)
    rows = [{"name": "evil", "file": "evil.pt", "sha256": sha256(path), "arch": "BagOfPartsCNN"}]
    (tmp_path / "manifest.json").write_text(json.dumps({"checkpoints": rows}))
    with pytest.raises(pickle.UnpicklingError, match="[Ww]eights only"):
        pretrained("evil", tmp_path)


def test_record_updates_a_row_but_not_the_hash(tmp_path):
    from capsedu.checkpoints import record

    entry = save(BagOfPartsCNN(), "cnn", tmp_path, command="python -m capsedu.train cnn")
    updated = record("cnn", tmp_path, command="python -m capsedu.train cnn --threads 1")
    assert updated["command"].endswith("--threads 1") and updated["sha256"] == entry["sha256"]
    assert read_manifest(tmp_path)["cnn"]["command"].endswith("--threads 1")
    pretrained("cnn", tmp_path)  # still verifies


# --- Nothing lost: a shipped checkpoint is replaced only on purpose ------------------------------


def shipped_folder(tmp_path, monkeypatch):
    """A temporary data root whose checkpoints/ holds one shipped checkpoint, with notes."""
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    torch.manual_seed(0)
    save(BagOfPartsCNN(channels=(2,)), "cnn", notes="why this one was shipped")
    return tmp_path / "checkpoints"


def test_save_never_replaces_a_shipped_checkpoint_unless_asked(tmp_path, monkeypatch):
    from capsedu.checkpoints import record, runs_dir

    shipped = shipped_folder(tmp_path, monkeypatch)
    before = {p.name: p.read_bytes() for p in shipped.iterdir()}
    for root in (None, shipped, tmp_path / "." / "checkpoints"):  # however the folder is named
        with pytest.raises(FileExistsError, match=r"'cnn' is a shipped checkpoint.*runs.*replace_"):
            save(BagOfPartsCNN(channels=(3,)), "cnn", root)
        with pytest.raises(FileExistsError, match="shipped"):
            record("cnn", root, command="changed")
    assert {p.name: p.read_bytes() for p in shipped.iterdir()} == before
    # a new name, or any other folder (a trial run's), is written as usual
    save(BagOfPartsCNN(channels=(3,)), "other")
    assert runs_dir() == tmp_path / "runs"
    save(BagOfPartsCNN(channels=(3,)), "cnn", runs_dir())
    save(BagOfPartsCNN(channels=(4,)), "cnn", runs_dir())  # runs replace each other freely
    assert pretrained("cnn", runs_dir()).hparams["channels"] == (4,)
    assert pretrained("cnn").hparams["channels"] == (2,)
    # on purpose: replaced, and the notes stay
    entry = save(BagOfPartsCNN(channels=(5,)), "cnn", replace_shipped=True, command="retrained")
    assert entry["notes"] == "why this one was shipped" and entry["command"] == "retrained"
    assert read_manifest()["cnn"] == entry
    assert pretrained("cnn").hparams["channels"] == (5,)
    assert record("cnn", None, True, seed=7)["notes"] == "why this one was shipped"


def test_record_of_an_unknown_checkpoint_says_so(tmp_path):
    from capsedu.checkpoints import record

    with pytest.raises(KeyError, match="no checkpoint named 'cnn'.*save it first"):
        record("cnn", tmp_path, seed=1)


# --- pretrained(): errors that say what is missing and how to get it back ------------------------


def test_missing_data_root_and_missing_manifest_are_named(tmp_path, monkeypatch):
    nowhere = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match=f"{nowhere}.*does not exist.*CAPSEDU_DATA"):
        pretrained("capsnet-mnist", nowhere)
    monkeypatch.setenv("CAPSEDU_DATA", str(nowhere))
    with pytest.raises(FileNotFoundError, match=f"{nowhere / 'checkpoints' / 'manifest.json'}"):
        pretrained("capsnet-mnist")
    with pytest.raises(FileNotFoundError, match="no checkpoint manifest") as err:
        pretrained("capsnet-mnist", tmp_path)  # the folder exists, the manifest does not
    assert "does not exist" not in str(err.value)


@pytest.mark.parametrize("text", ["", '{"checkpoints": [', "[1, 2]", '{"rows": []}',
                                  '{"checkpoints": [{"file": "a.pt"}]}'])
def test_a_corrupt_manifest_names_its_path(tmp_path, text):
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(ValueError, match=f"manifest {tmp_path / 'manifest.json'} is corrupt"):
        pretrained("cnn", tmp_path)
    with pytest.raises(ValueError, match="git checkout --"):
        read_manifest(tmp_path)


def test_the_restore_hint_works_from_the_repository_root(tmp_path):
    import re
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "course"
    root = repo / "data" / "checkpoints"
    save(BagOfPartsCNN(channels=(2,)), "cnn", root)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "ship"], check=True)
    (root / "cnn.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ChecksumError) as err:
        pretrained("cnn", root)
    hint = re.search(r"\((git checkout -- [^)]+)\)", str(err.value)).group(1)
    subprocess.run(hint.split(), cwd=repo, check=True)  # typed at the repository root
    pretrained("cnn", root)
    (root / "cnn.pt").unlink()
    with pytest.raises(FileNotFoundError, match="missing") as err:
        pretrained("cnn", root)
    hint = re.search(r"\((git checkout -- [^)]+)\)", str(err.value)).group(1)
    subprocess.run(hint.split(), cwd=repo / "data", check=True)  # or from a folder inside it
    pretrained("cnn", root)


def test_the_environment_report_survives_a_corrupt_manifest(tmp_path, monkeypatch):
    from capsedu.environment import report

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "manifest.json").write_text("<html>")
    assert "corrupt" in report()["checkpoints"]


def test_format_record_prints_the_keys_it_has_in_order_without_the_curve():
    from capsedu.checkpoints import format_record

    row = {"notes": "n", "seed": 3, "command": "c", "name": "x",
           "metrics": {"test_accuracy": 0.99, "validation_by_epoch": [0.9, 0.95]}}
    assert format_record(row).splitlines() == [
        "        command: c", "           seed: 3",
        "        metrics: {'test_accuracy': 0.99}", "          notes: n"]

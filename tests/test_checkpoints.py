"""Checkpoints: round trip, sha256 verification, weights_only loading, clear errors."""

import json
from pathlib import Path

import pytest
import torch

from capsedu import BagOfPartsCNN, CapsNet, ChecksumError, pretrained
from capsedu.checkpoints import read_manifest, save, sha256


def test_round_trip(tmp_path):
    torch.manual_seed(0)
    model = CapsNet(conv_channels=8, primary_maps=2, decoder_hidden=(16,))
    entry = save(model, "tiny", tmp_path, command="python -m capsedu.train tiny", seed=0)
    assert entry.sha256 == sha256(tmp_path / "tiny.pt")
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
    with pytest.raises(ValueError, match="not a file torch.load reads .UnpicklingError"):
        pretrained("evil", tmp_path)  # torch's weights_only refusal, in capsedu's words


def test_record_updates_a_row_but_not_the_hash(tmp_path):
    from capsedu.checkpoints import record

    entry = save(BagOfPartsCNN(), "cnn", tmp_path, command="python -m capsedu.train cnn")
    updated = record("cnn", tmp_path, command="python -m capsedu.train cnn --threads 1")
    assert updated.command.endswith("--threads 1") and updated.sha256 == entry.sha256
    assert read_manifest(tmp_path)["cnn"].command.endswith("--threads 1")
    pretrained("cnn", tmp_path)  # still verifies


def test_the_shipped_manifest_is_written_back_byte_for_byte(tmp_path):
    """Issue 38.1: the rows read as records and written back give the same file: the order of
    their fields, the indentation, the optional fields a row lacks left out."""
    from capsedu.checkpoints import MANIFEST, record
    from capsedu.shipped_folders import REPOSITORY_DATA

    shipped = (REPOSITORY_DATA / "checkpoints" / MANIFEST).read_bytes()
    (tmp_path / MANIFEST).write_bytes(shipped)
    rows = read_manifest(tmp_path)
    assert rows["capsnet-mnist"].metrics.chosen_epoch >= 1  # read by field
    # a copy of the shipped manifest is the shipped folder's (issue 37): changed on purpose only
    record("capsnet-mnist", tmp_path, replace_shipped=True, seed=rows["capsnet-mnist"].seed)
    assert (tmp_path / MANIFEST).read_bytes() == shipped


def test_save_refuses_a_field_no_row_has_and_a_value_of_the_wrong_kind(tmp_path):
    from capsedu.manifest_rows import Metrics

    with pytest.raises(TypeError, match=r"save\(\): accuracy is not a field of a manifest row"):
        save(BagOfPartsCNN(channels=(2,)), "cnn", tmp_path, accuracy=0.9)
    with pytest.raises(TypeError, match=r"^save\(\): metrics must be a Metrics"):
        save(BagOfPartsCNN(channels=(2,)), "cnn", tmp_path, metrics={"test_accuracy": 0.9})
    with pytest.raises(ValueError, match=r"Metrics\(\): test_accuracy must be a finite number"):
        Metrics(test_accuracy=float("nan"))
    assert list(tmp_path.iterdir()) == []  # refused before anything was written
    row = save(BagOfPartsCNN(channels=(2,)), "cnn", tmp_path, metrics=Metrics(test_accuracy=0.9))
    assert read_manifest(tmp_path)["cnn"] == row and row.metrics.test_accuracy == 0.9


def test_metrics_refuse_a_kept_epoch_accuracy_or_flag_other_than_the_curve_gives():
    from capsedu.manifest_rows import Metrics

    with pytest.raises(ValueError, match=r"^Metrics\(\): validation_accuracy must be "
                       r"validation_by_epoch's at chosen_epoch, 0.95, got 0.9; record what"):
        Metrics(epochs=2, chosen_epoch=2, validation_accuracy=0.9, validation_by_epoch=(0.9, 0.95))
    with pytest.raises(ValueError, match=r"^Metrics\(\): chosen_epoch must be the first epoch "
                       r"with the best held-out accuracy, 2, got 1; record what"):
        Metrics(epochs=3, chosen_epoch=1, validation_by_epoch=(0.5, 0.9, 0.7))  # probe 18's
    with pytest.raises(ValueError, match=r"^Metrics\(\): converged must be the course's rule "
                       r"with patience 2 \(stopping_rule.converged\) .*, False, got True"):
        Metrics(chosen_epoch=2, patience=2, converged=True, validation_by_epoch=(0.5, 0.9, 0.7))
    assert Metrics(epochs=2, chosen_epoch=2, validation_accuracy=0.95,
                   validation_by_epoch=(0.9, 0.95)).validation_accuracy == 0.95


# --- Nothing lost: a shipped checkpoint is replaced only on purpose ------------------------------


def shipped_folder(tmp_path, monkeypatch):
    """A temporary data root whose checkpoints/ holds one shipped checkpoint, with notes."""
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    torch.manual_seed(0)
    save(BagOfPartsCNN(channels=(2,)), "cnn", replace_shipped=True,
         notes="why this one was shipped")
    return tmp_path / "checkpoints"


def test_save_never_replaces_a_shipped_checkpoint_unless_asked(tmp_path, monkeypatch):
    from capsedu.checkpoints import record, runs_dir

    shipped = shipped_folder(tmp_path, monkeypatch)
    before = {p.name: p.read_bytes() for p in shipped.iterdir()}
    for root in (shipped, tmp_path / "." / "checkpoints"):  # however the folder is named
        with pytest.raises(PermissionError, match=r"save\(\): root must lie outside the shipped "
                                                  r"folders.*runs.*replace_shipped=True"):
            save(BagOfPartsCNN(channels=(3,)), "cnn", root)
        with pytest.raises(PermissionError, match=r"save\(\): root must lie outside the shipped"):
            save(BagOfPartsCNN(channels=(3,)), "other", root)
        with pytest.raises(PermissionError, match=r"record\(\): root must lie outside"):
            record("cnn", root, command="changed")
    assert {p.name: p.read_bytes() for p in shipped.iterdir()} == before
    # by default save writes to the runs folder, where a trial run's checkpoints go
    assert save(BagOfPartsCNN(channels=(3,)), "other").name == "other"
    assert runs_dir() == tmp_path / "runs" and "other" in read_manifest(runs_dir())
    assert "other" not in read_manifest()
    save(BagOfPartsCNN(channels=(3,)), "cnn", runs_dir())
    save(BagOfPartsCNN(channels=(4,)), "cnn", runs_dir())  # runs replace each other freely
    assert pretrained("cnn", runs_dir()).hparams["channels"] == (4,)
    assert pretrained("cnn").hparams["channels"] == (2,)
    # on purpose: replaced, and the notes stay
    entry = save(BagOfPartsCNN(channels=(5,)), "cnn", replace_shipped=True, command="retrained")
    assert entry.notes == "why this one was shipped" and entry.command == "retrained"
    assert read_manifest()["cnn"] == entry
    assert pretrained("cnn").hparams["channels"] == (5,)
    assert record("cnn", None, True, seed=7).notes == "why this one was shipped"


def test_record_of_an_unknown_checkpoint_says_so(tmp_path):
    from capsedu.checkpoints import record

    with pytest.raises(KeyError, match=r"record\(\): name must be a checkpoint .*got 'cnn'.*"
                                       r"save it first"):
        record("cnn", tmp_path, seed=1)


# --- pretrained(): errors that say what is missing and how to get it back ------------------------


def test_missing_data_root_and_missing_manifest_are_named(tmp_path, monkeypatch):
    nowhere = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match=f"{nowhere}.*does not exist.*CAPSEDU_DATA"):
        pretrained("capsnet-mnist", nowhere)
    monkeypatch.setenv("CAPSEDU_DATA", str(nowhere))
    with pytest.raises(FileNotFoundError, match=f"{nowhere / 'checkpoints' / 'manifest.json'}"):
        pretrained("capsnet-mnist")
    with pytest.raises(FileNotFoundError, match="root must hold a checkpoint manifest") as err:
        pretrained("capsnet-mnist", tmp_path)  # the folder exists, the manifest does not
    assert "does not exist" not in str(err.value)


@pytest.mark.parametrize("text", ["", '{"checkpoints": [', "[1, 2]", '{"rows": []}',
                                  '{"checkpoints": [{"file": "a.pt"}]}'])
def test_a_corrupt_manifest_names_its_path(tmp_path, text):
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(ValueError, match=f"manifest {tmp_path / 'manifest.json'} is corrupt"):
        pretrained("cnn", tmp_path)
    with pytest.raises(ValueError, match=r"^read_manifest\(\): .*; delete it and save the "
                       r"checkpoints it listed again \(the folder is not a shipped one"):
        read_manifest(tmp_path)  # a folder of one's own: git does not restore it


def test_the_restore_hint_works_from_the_repository_root(tmp_path):
    import re
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "course"
    root = repo / "data" / "checkpoints"
    save(BagOfPartsCNN(channels=(2,)), "cnn", root)
    (root / "SHIPPED.md").write_text("shipped\n")  # as the repository's shipped folders hold
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
    assert "corrupt" in report().checkpoints


def test_format_record_prints_the_keys_it_has_in_order_without_the_curve():
    from capsedu.manifest_rows import ManifestRow, Metrics, format_record

    row = ManifestRow(notes="n", seed=3, command="c", name="x", file="x.pt", sha256="0" * 64,
              arch="CapsNet", metrics=Metrics(test_accuracy=0.99, validation_by_epoch=(0.9, 0.95)))
    assert format_record(row).splitlines() == [
        "        command: c", "           seed: 3",
        "        metrics: {'test_accuracy': 0.99}", "          notes: n"]


# --- nothing outside its folder, nothing torn: names, rows, the shipped folders, two writers ----


@pytest.mark.parametrize("name", ["../cnn", "sub/cnn", "/tmp/cnn", "..", "", "a\\b"])
def test_a_checkpoint_name_with_a_folder_in_it_is_refused(tmp_path, name):
    with pytest.raises(ValueError, match="plain file name"):
        save(BagOfPartsCNN(channels=(2,)), name, tmp_path / "runs")
    assert not (tmp_path / "runs").exists() and not any(tmp_path.parent.glob("cnn.pt"))


def crafted_row(root, **changes):
    """A folder whose manifest row 'cnn' has ``changes`` made to it."""
    save(BagOfPartsCNN(channels=(2,)), "cnn", root)
    manifest = root / "manifest.json"
    rows = json.loads(manifest.read_text())
    rows["checkpoints"][0].update(changes)
    manifest.write_text(json.dumps(rows))


@pytest.mark.parametrize("file", ["../outside.pt", "/dev/zero", "/etc/passwd", "sub/cnn.pt"])
def test_pretrained_never_opens_a_file_outside_its_folder(tmp_path, monkeypatch, file):
    (tmp_path / "outside.pt").write_bytes(b"not a checkpoint")
    root = tmp_path / "root"
    crafted_row(root, file=file)
    opened = []
    monkeypatch.setattr("capsedu.checkpoints.sha256", lambda path: opened.append(path))
    with pytest.raises(ValueError, match=r"plain file name|leads outside"):
        pretrained("cnn", root)
    assert opened == []


def test_pretrained_refuses_a_link_that_leads_out_or_a_special_file(tmp_path, monkeypatch):
    root = tmp_path / "root"
    crafted_row(root)  # the row's file, cnn.pt, made a link
    (root / "cnn.pt").unlink()
    (root / "cnn.pt").symlink_to("/dev/zero")
    opened = []
    monkeypatch.setattr("capsedu.checkpoints.sha256", lambda path: opened.append(path))
    with pytest.raises(ValueError, match="leads outside"):
        pretrained("cnn", root)
    (root / "cnn.pt").unlink()
    (root / "cnn.pt").mkdir()  # inside the folder, but not a regular file
    with pytest.raises(ValueError, match="not a regular file"):
        pretrained("cnn", root)
    assert opened == []


@pytest.mark.parametrize("changes, named", [
    ({"sha256": None}, "'sha256' should be a str"),
    ({"sha256": "abc"}, "64 hexadecimal"),
    ({"file": 3}, "'file' should be a str"),
    ({"arch": "ResNet"}, r"ManifestRow\(\): arch must be one of 'CapsNet', .* got 'ResNet'"),
    ({"colour": "red"}, r"row has \['colour'\], which ManifestRow has no field for"),
    ({"metrics": {"test_accuracy": "high"}}, r"Metrics\(\): test_accuracy must be a finite"),
])
def test_a_malformed_row_names_each_key(tmp_path, changes, named):
    crafted_row(tmp_path, **changes)
    with pytest.raises(ValueError, match=f"the row 'cnn' of .*manifest.json: .*{named}"):
        pretrained("cnn", tmp_path)


def test_a_missing_key_is_named(tmp_path):
    save(BagOfPartsCNN(channels=(2,)), "cnn", tmp_path)
    manifest = tmp_path / "manifest.json"
    rows = json.loads(manifest.read_text())
    del rows["checkpoints"][0]["arch"], rows["checkpoints"][0]["sha256"]
    manifest.write_text(json.dumps(rows))
    with pytest.raises(ValueError, match="'sha256' is missing; 'arch' is missing"):
        pretrained("cnn", tmp_path)


def test_the_row_is_checked_against_the_file_it_names(tmp_path):
    crafted_row(tmp_path, arch="DeepCNN")  # the file holds a BagOfPartsCNN
    with pytest.raises(ValueError, match="holds a BagOfPartsCNN, but its manifest row says Deep"):
        pretrained("cnn", tmp_path)


def test_a_typo_in_a_name_gets_the_closest_names(tmp_path):
    save(BagOfPartsCNN(channels=(2,)), "affnist-capsnet", tmp_path)
    with pytest.raises(KeyError, match="did you mean 'affnist-capsnet'"):
        pretrained("afnist-capsnet", tmp_path)


def test_the_repository_folder_is_shipped_whatever_the_data_root(tmp_path, monkeypatch):
    from capsedu import shipped_folders

    repository = tmp_path / "repo" / "data"
    (repository / "checkpoints").mkdir(parents=True)
    monkeypatch.setattr(shipped_folders, "REPOSITORY_DATA", repository)
    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path / "elsewhere"))
    (tmp_path / "spelled").symlink_to(repository / "checkpoints")
    spellings = [repository / "checkpoints", repository / ".." / "data" / "checkpoints",
                 tmp_path / "spelled"]
    for folder in spellings:
        with pytest.raises(PermissionError, match="outside the shipped folders"):
            save(BagOfPartsCNN(channels=(2,)), "cnn", folder)
    assert list((repository / "checkpoints").iterdir()) == []
    save(BagOfPartsCNN(channels=(2,)), "cnn", repository / "checkpoints", replace_shipped=True)
    assert pretrained("cnn", tmp_path / "spelled").hparams["channels"] == (2,)


WRITER = """
import sys, torch
from dataclasses import dataclass
from pathlib import Path
from capsedu.baselines import BagOfPartsCNN
from capsedu.checkpoints import add_result, save

@dataclass(frozen=True)
class Run:
    k: int

root, who = sys.argv[1], sys.argv[2]
for k in range(8):
    torch.manual_seed(k)
    save(BagOfPartsCNN(channels=(2,)), f"{who}-{k}", root, seed=k)
    add_result(Path(root) / "results.json", f"{who}-{k}", Run(k))
"""


def test_two_processes_saving_at_once_leave_every_row(tmp_path):
    import subprocess
    import sys

    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), who])
               for who in ("a", "b")]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    from capsedu.checkpoints import recorded_names

    names = {f"{who}-{k}" for who in "ab" for k in range(8)}
    assert set(read_manifest(tmp_path)) == names == recorded_names(tmp_path / "results.json")
    for name in names:  # every file has its row and its hash
        assert pretrained(name, tmp_path).hparams["channels"] == (2,)
    assert not list(tmp_path.glob(".*.tmp"))


REWRITER = """
import sys, torch
from capsedu.baselines import BagOfPartsCNN
from capsedu.checkpoints import save
for k in range(int(sys.argv[2])):
    torch.manual_seed(k)  # new weights, a new hash, every time
    save(BagOfPartsCNN(channels=(2,)), "cnn", sys.argv[1], seed=k)
"""


def test_a_reader_never_calls_a_checkpoint_being_saved_corrupt(tmp_path):
    """Issue 37: while another process saved a checkpoint, 109 of 183 pretrained() calls said it
    was corrupt (the file was replaced before its manifest row)."""
    import subprocess
    import sys

    save(BagOfPartsCNN(channels=(2,)), "cnn", tmp_path)
    writer = subprocess.Popen([sys.executable, "-c", REWRITER, str(tmp_path), "40"])
    reads = 0
    while writer.poll() is None or reads == 0:
        assert pretrained("cnn", tmp_path).hparams["channels"] == (2,)
        reads += 1
    assert writer.wait() == 0 and reads > 5


def test_a_folder_with_the_marker_is_shipped_wherever_it_is(tmp_path):
    """Issue 37: another clone's shipped folder (its path unknown to this copy of the package) is
    recognised by the marker the repository ships in it."""
    from capsedu.shipped_folders import SHIPPED_MARKER, is_shipped

    other_clone = tmp_path / "clone" / "data" / "checkpoints"
    other_clone.mkdir(parents=True)
    assert not is_shipped(other_clone)
    (other_clone / SHIPPED_MARKER).write_text("shipped")
    assert is_shipped(other_clone)
    with pytest.raises(PermissionError, match="outside the shipped folders"):
        save(BagOfPartsCNN(channels=(2,)), "cnn", other_clone)
    assert sorted(p.name for p in other_clone.iterdir()) == [SHIPPED_MARKER]


def test_the_repository_ships_the_marker_in_its_shipped_folders():
    from capsedu.shipped_folders import REPOSITORY_DATA, SHIPPED_MARKER

    for kind in ("checkpoints", "results"):
        assert (REPOSITORY_DATA / kind / SHIPPED_MARKER).is_file()


def test_a_manifest_that_is_a_pipe_is_refused_not_read_forever(tmp_path):
    import os

    os.mkfifo(tmp_path / "manifest.json")
    with pytest.raises(ValueError, match="not a regular file"):
        read_manifest(tmp_path)


def shipped_results() -> dict:
    """Each shipped results file and how its runs are read (a record type, or adversarial's
    type by unit name)."""
    from capsedu import ablations, adversarial_record, bug_zoo, full_sets, seed_runs
    from capsedu.parts import curves

    return {"bug_zoo.json": bug_zoo.ZooRun, "bug_zoo_1_epoch.json": bug_zoo.ZooRun,
            "routing_ablations.json": ablations.AblationRun, "face_curves.json": curves.FaceCurve,
            "affnist_seeds.json": seed_runs.SeedRun,
            "full_test_sets.json": full_sets.FullSetReading,
            "adversarial.json": adversarial_record.unit_type}


@pytest.mark.parametrize("file", sorted(shipped_results()))
def test_a_shipped_results_file_written_back_from_its_records_keeps_every_value(tmp_path, file):
    from capsedu.checkpoints import add_result, read_results

    shipped = Path(__file__).parent.parent / "data" / "results" / file
    copy = tmp_path / file
    copy.write_bytes(shipped.read_bytes())
    runs = read_results(copy, shipped_results()[file])
    for name, run in runs.items():  # each run written again from its record, in its place
        add_result(copy, name, run)
    assert json.loads(copy.read_text()) == json.loads(shipped.read_text())
    if file != "affnist_seeds.json":  # its runs hold manifest rows of an older key order
        assert copy.read_text() == shipped.read_text()
    add_result(copy, "another", next(iter(runs.values())))  # a new run leaves the others as kept
    assert json.loads(copy.read_text())["runs"] == json.loads(shipped.read_text())["runs"] | {
        "another": json.loads(shipped.read_text())["runs"][next(iter(runs))]}


def test_a_results_file_takes_records_only(tmp_path):
    from capsedu.checkpoints import add_result

    with pytest.raises(TypeError, match=r"add_result\(\): run must be a record"):
        add_result(tmp_path / "results.json", "a", {"test_accuracy": 0.5})
    assert not (tmp_path / "results.json").exists()


def test_every_shipped_results_file_is_recognised_as_its_own_experiments():
    """results_kinds names each experiment's results file by its runs: every kind resolves to
    its module's file, command and record, and each shipped file's runs are its own kind's."""
    from capsedu import results_kinds, shipped_folders

    shipped = shipped_folders.REPOSITORY_DATA / "results"
    for module in results_kinds.KINDS:
        kind = results_kinds.kind(module)
        assert kind.command == f"python -m {module.replace('_record', '')}"
        rows = json.loads((shipped / kind.file).read_text())["runs"]
        assert results_kinds.results_kind(rows) == kind, kind.file
    assert results_kinds.results_kind({}) is None


def test_a_run_of_the_right_kind_with_a_wrong_value_names_the_file_and_the_run(tmp_path):
    from capsedu import ablations

    rows = json.loads((Path(ablations.__file__).parents[1] / "data" / "results" /
                       ablations.RESULTS).read_text())
    name = next(iter(rows["runs"]))
    rows["runs"][name]["test_accuracy_by_iterations"] = {"three": 0.99}  # iterations as a word
    (tmp_path / "mine.json").write_text(json.dumps(rows))
    with pytest.raises(ValueError, match=rf"read_results\(\): path .*mine.json holds a run "
                                         rf"'{name}' that is no AblationRun its experiment wrote: "
                                         r"from_row\(\): row's test_accuracy_by_iterations must "
                                         r"be an integer .*got 'three'"):
        ablations.read_results(tmp_path / "mine.json")

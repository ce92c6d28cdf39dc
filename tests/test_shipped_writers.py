"""Issue 37: a trial never writes into a shipped folder. Every writer of the package (a checkpoint,
a training state, a results file, a folder it makes) calls ``checkpoints.check_not_shipped`` on
its path parameter first, so a path in a shipped folder, or in a folder inside one, is refused
with nothing written (rounds ten and eleven of the probe found the writers that did not)."""

import argparse
import re
from pathlib import Path

import pytest
import torch
from torch.utils.data import TensorDataset

from capsedu import checkpoints, loop, shipped_folders, statistics, train
from capsedu.baselines import BagOfPartsCNN
from capsedu.data import mnist

IMAGES, LABELS = torch.rand(4, 1, 8, 8), torch.tensor([0, 1, 2, 3])


def _bag():
    torch.manual_seed(0)
    return BagOfPartsCNN(channels=(2,), n_classes=10)


def _save_state(path):
    model = _bag()
    run = loop.begin(model, TensorDataset(IMAGES, LABELS), seed=0, batch_size=2, lr=1e-3,
                     lr_decay=1.0, compose=None, start=None, device="cpu", keeps_best=False)
    loop.save_state(run, model, path)


# each writer's path parameter, given the path (a folder for the writers that take one)
WRITERS = {
    "checkpoints.save(root)": lambda p: checkpoints.save(_bag(), "mine", root=p),
    "checkpoints.record(root)": lambda p: checkpoints.record("mine", root=p, notes="x"),
    "checkpoints.add_result(path)": lambda p: checkpoints.add_result(
        p / "x.json", "x", statistics.accuracy(torch.tensor([True] * 9 + [False]))),
    "loop.fit(state_path)": lambda p: loop.fit(_bag(), (IMAGES, LABELS), epochs=1,
                                               progress=False, state_path=p / "state.pt"),
    "loop.save_state(state_path)": lambda p: _save_state(p / "state.pt"),
    "mnist.load_mnist(root)": lambda p: mnist.load_mnist(False, 10, root=p),
    "train.results_file(--out)": lambda p: train.results_file(
        argparse.Namespace(limit=None, replace_shipped=False, out=p), "x.json"),
}
# the modules that write files or make folders: each is a writer above, or writes only where
# a writer above checked (a new writer must be added to WRITERS)
# folder_lock.py writes its holder into the lock file of a folder its caller (checkpoints) checked
WRITING_MODULES = {"checkpoints.py", "loop.py", "data/mnist.py", "train.py", "parts/curves.py",
                   "folder_lock.py"}


@pytest.fixture
def shipped(tmp_path):
    """A shipped folder (it holds the marker), as another clone's data/results would be."""
    folder = tmp_path / "clone" / "data" / "results"
    folder.mkdir(parents=True)
    (folder / shipped_folders.SHIPPED_MARKER).write_text("shipped")
    return folder


def _everything(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("depth", [0, 1, 2])
def test_every_writer_refuses_a_path_in_a_shipped_folder(shipped, writer, depth):
    """Rounds ten and eleven (c075, c082, c213, c390, c425, c428, c429): at any depth under a
    shipped folder, and through a link to one, nothing is written and no folder is made."""
    before = _everything(shipped)
    link = shipped.parent / "link"
    link.symlink_to(shipped)
    for base in (shipped, link):
        path = base.joinpath(*["sub"] * depth)
        with pytest.raises((PermissionError, SystemExit), match="outside the shipped folders"):
            WRITERS[writer](path)
        assert _everything(shipped) == before


@pytest.mark.parametrize("argv", [["--out", "{shipped}/sub"],
                                  ["--state", "{shipped}/state.pt"]])
def test_train_refuses_an_out_or_state_in_a_shipped_folder(shipped, capsys, argv):
    """Round eleven c390, c429: ``train --state`` and ``--out`` under data/results wrote there."""
    before = _everything(shipped)
    with pytest.raises(SystemExit) as refused:  # --out's refusal is the exit's, --state's said
        train.main(["capsnet-mnist-live", "--limit", "600", "--epochs", "1",
                    *(a.format(shipped=shipped) for a in argv)])
    assert "outside the shipped folders" in f"{refused.value} {capsys.readouterr().err}"
    assert _everything(shipped) == before


def test_every_module_that_writes_is_a_checked_writer():
    """A module that saves, writes or makes a folder is one whose writers are enumerated above."""
    root = Path(checkpoints.__file__).parent
    writes = re.compile(r"torch\.save|write_text|write_bytes|mkdir|os\.replace|shutil|\.touch\(|"
                        r"open\([^)]*['\"][wa]")
    writing = {str(p.relative_to(root)) for p in root.rglob("*.py") if writes.search(p.read_text())}
    assert writing <= WRITING_MODULES, f"a new writer: check it and enumerate it: {writing}"


def test_a_trial_folder_beside_the_shipped_ones_is_not_shipped(shipped):
    assert checkpoints.is_shipped(shipped / "sub" / "x.json")
    assert not checkpoints.is_shipped(shipped.parent / "runs" / "x.json")

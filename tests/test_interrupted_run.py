"""A training run killed part-way (SIGKILL: a closed laptop, an out-of-memory kill) resumes from
its --state file when the same command is typed again, and finishes; nothing shipped changes.

About half a minute on 2 cores: two short runs of notebook 05's small CapsNet on 128 MNIST
images, each scored once on the 10,000 test images."""

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from capsedu.checkpoints import read_manifest

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "data" / "checkpoints"
MNIST = REPO / "data" / "MNIST"


def digests(folder: Path) -> dict[str, str]:
    """The sha256 of every file under ``folder``, by its path there."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_killed_run_resumes_from_its_state_and_finishes(tmp_path):
    if not (MNIST / "raw" / "train-images-idx3-ubyte").exists():
        pytest.skip("MNIST is not in the repository's data root")
    root = tmp_path / "data"  # a data root of its own, with the repository's MNIST in it
    root.mkdir()
    (root / "MNIST").symlink_to(MNIST.resolve())
    state, out = tmp_path / "state.pt", tmp_path / "out"
    command = [sys.executable, "-m", "capsedu.train", "capsnet-mnist-live", "--limit", "128",
               "--epochs", "2", "--threads", "1", "--state", str(state), "--out", str(out)]
    env = dict(os.environ, CAPSEDU_DATA=str(root))
    shipped = digests(SHIPPED)

    run = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not state.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the state file appears once epoch 1 is trained
    run.kill()
    run.wait()
    assert run.returncode == -signal.SIGKILL, "the run ended by itself before it was killed"
    assert state.exists() and not (out / "manifest.json").exists()  # killed before saving

    again = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "epoch 2/2" in again.stderr and "epoch 1/2" not in again.stderr  # resumed, not redone
    row = read_manifest(out)["capsnet-mnist-live"]
    assert row.metrics.epochs == 2 and row.train_examples == 128
    # 2 epochs is the recipe's own budget: the recorded command leaves it out
    assert row.command == "python -m capsedu.train capsnet-mnist-live --limit 128 --threads 1"
    assert digests(SHIPPED) == shipped

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

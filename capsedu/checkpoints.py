"""Save and load trained models, verified against the sha256 recorded in a manifest.

``data/checkpoints/manifest.json`` lists every shipped checkpoint: its file, sha256, what it is,
the exact command that trains it, the seed, the training time and the metrics it reached.
Loading checks the hash first (a corrupt or tampered file is refused before torch reads it) and
then uses ``torch.load(..., weights_only=True)``, which cannot run code hidden in a pickle.
"""

import hashlib
import importlib
import json
from pathlib import Path

import torch

from . import config

MANIFEST = "manifest.json"
# The class a checkpoint's "arch" names, and the module that defines it. Imported only when such a
# checkpoint is loaded, so that loading a CapsNet never pulls in the faces world.
ARCHS = {
    "CapsNet": "capsedu.capsnet",
    "BagOfPartsCNN": "capsedu.baselines",
    "DeepCNN": "capsedu.baselines",
    "PoseCapsuleNet": "capsedu.parts.pose_net",
    "PartPoseMLP": "capsedu.parts.pose_mlp",
}


class ChecksumError(ValueError):
    """The checkpoint's bytes are not the ones the manifest recorded."""


def checkpoint_dir(root: Path | None = None) -> Path:
    return Path(root) if root is not None else config.data_root() / "checkpoints"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(root: Path | None = None) -> dict[str, dict]:
    """The manifest's entries by name (empty when there is no manifest yet)."""
    path = checkpoint_dir(root) / MANIFEST
    if not path.exists():
        return {}
    return {entry["name"]: entry for entry in json.loads(path.read_text())["checkpoints"]}


def save(model: torch.nn.Module, name: str, root: Path | None = None, **record) -> dict:
    """Write ``<name>.pt`` and add (or replace) its row in the manifest.

    ``record`` holds what an instructor needs to reproduce it: description, command, seed,
    train_time_s, metrics.
    """
    root = checkpoint_dir(root)
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{name}.pt"
    arch = type(model).__name__
    torch.save({"arch": arch, "hparams": model.hparams, "state_dict": model.state_dict()}, path)
    entry = {"name": name, "file": path.name, "sha256": sha256(path), "arch": arch, **record,
             "torch_version": torch.__version__}
    entries = read_manifest(root)
    entries[name] = entry
    _write_manifest(root, entries)
    return entry


def record(name: str, root: Path | None = None, **fields) -> dict:
    """Update fields of checkpoint ``name``'s manifest row (not its file or hash)."""
    root = checkpoint_dir(root)
    entries = read_manifest(root)
    entries[name] = {**entries[name], **fields}
    _write_manifest(root, entries)
    return entries[name]


def _write_manifest(root: Path, entries: dict[str, dict]) -> None:
    rows = [entries[k] for k in sorted(entries)]
    (root / MANIFEST).write_text(json.dumps({"checkpoints": rows}, indent=2) + "\n")


def pretrained(name: str, root: Path | None = None, map_location="cpu") -> torch.nn.Module:
    """Load the shipped checkpoint ``name`` (see the manifest), verified, in eval mode."""
    root = checkpoint_dir(root)
    entries = read_manifest(root)
    if name not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise KeyError(f"no checkpoint named {name!r} in {root / MANIFEST}; available: {known}")
    entry = entries[name]
    path = root / entry["file"]
    if not path.exists():
        raise FileNotFoundError(
            f"checkpoint file {path} is missing; retrain it with: {entry.get('command', '?')}"
        )
    digest = sha256(path)
    if digest != entry["sha256"]:
        raise ChecksumError(
            f"checkpoint {path} has sha256 {digest}, but the manifest records {entry['sha256']}: "
            f"the file is corrupt or was modified. Restore it (git checkout -- {path.name}) or "
            f"retrain it with: {entry.get('command', '?')}"
        )
    blob = torch.load(path, map_location=map_location, weights_only=True)
    model = model_class(blob["arch"])(**blob["hparams"])
    model.load_state_dict(blob["state_dict"])
    return model.eval()


def model_class(arch: str) -> type:
    """The model class a checkpoint's ``arch`` names (see ``ARCHS``)."""
    if arch not in ARCHS:
        raise KeyError(f"unknown model architecture {arch!r}; known: {', '.join(ARCHS)}")
    return getattr(importlib.import_module(ARCHS[arch]), arch)

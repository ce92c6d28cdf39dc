"""Save and load trained models, verified against the sha256 recorded in a manifest.

``data/checkpoints/manifest.json`` lists every shipped checkpoint: its file, sha256, what it is,
the exact command that trains it, the seed, the training time and the metrics it reached.
Loading checks the hash first (a corrupt or tampered file is refused before torch reads it) and
then uses ``torch.load(..., weights_only=True)``, which cannot run code hidden in a pickle.

The shipped checkpoints are the rows of ``<data root>/checkpoints/manifest.json``. ``save`` never
replaces one of them unless asked to (``replace_shipped=True``): trial runs of the training
commands go to ``<data root>/runs/`` by default (``runs_dir``). The recorded results of the
experiments (``results_path``) follow the same rule: ``<data root>/results/`` is shipped,
``<data root>/runs/results/`` is for trials.
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
    "MaxPoolCNN": "capsedu.baselines",
    "C4CNN": "capsedu.gcnn",
    "PlainCNN": "capsedu.gcnn",
    "MultiDigitCapsNet": "capsedu.multi_digit",
    "TwoDigitCNN": "capsedu.multi_digit",
    "PoseCapsuleNet": "capsedu.parts.pose_net",
    "PartPoseMLP": "capsedu.parts.pose_mlp",
}


class ChecksumError(ValueError):
    """The checkpoint's bytes are not the ones the manifest recorded."""


def checkpoint_dir(root: Path | None = None) -> Path:
    """``root``, else the folder of the shipped checkpoints: ``<data root>/checkpoints``."""
    return Path(root) if root is not None else config.data_root() / "checkpoints"


def runs_dir() -> Path:
    """Where the training commands write by default: ``<data root>/runs``, away from the
    shipped checkpoints (load a run with ``pretrained(name, runs_dir())``)."""
    return config.data_root() / "runs"


def results_path(file: str, replace_shipped: bool = False) -> Path:
    """An experiment's recorded results ``file`` (e.g. ``"routing_ablations.json"``): in the shipped
    ``<data root>/results/`` with ``replace_shipped``, else in ``<data root>/runs/results/``, so
    that trial runs never touch the shipped results."""
    return (config.data_root() / "results" if replace_shipped else runs_dir() / "results") / file


def read_results(path: Path) -> dict[str, dict]:
    """The runs recorded in the results file ``path``, by name (empty when there is none yet)."""
    return json.loads(Path(path).read_text())["runs"] if Path(path).exists() else {}


def write_results(path: Path, runs: dict[str, dict]) -> None:
    """Write ``runs`` (by name) to the results file ``path``, making its folder if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(root: Path | None = None) -> dict[str, dict]:
    """The manifest's entries by name (empty when there is no manifest yet).

    Raises ``ValueError`` naming the file when the manifest is not the JSON ``save`` writes.
    """
    path = checkpoint_dir(root) / MANIFEST
    if not path.exists():
        return {}
    try:
        return {entry["name"]: entry for entry in json.loads(path.read_text())["checkpoints"]}
    except (ValueError, KeyError, TypeError) as err:  # not JSON, or not {"checkpoints": [...]}
        raise ValueError(
            f"the checkpoint manifest {path.resolve()} is corrupt ({type(err).__name__}: {err}). "
            f"Restore it (git checkout -- {path.resolve()}) or delete it and retrain the "
            "checkpoints it listed."
        ) from err


# what a reader asks of a manifest row, in this order (notebook 05 prints them)
RECORD_KEYS = ("description", "command", "seed", "train_examples", "train_time_s", "device",
               "metrics", "notes")


def format_record(row: dict) -> str:
    """A manifest row as text: one ``key: value`` line for each of ``RECORD_KEYS`` it has; its
    metrics without ``validation_by_epoch`` (a curve, drawn by ``plots.held_out_curves``)."""
    lines = []
    for key in RECORD_KEYS:
        value = row.get(key)
        if key == "metrics" and value is not None:
            value = {k: v for k, v in value.items() if k != "validation_by_epoch"}
        if value is not None:
            lines.append(f"{key:>15}: {value}")
    return "\n".join(lines)


def check_writable(name: str, root: Path | None = None, replace_shipped: bool = False) -> Path:
    """The folder ``save(model, name, root)`` writes to; refuses to replace a shipped checkpoint.

    Raises ``FileExistsError`` when ``root`` is the shipped folder (``checkpoint_dir()``), it
    already holds ``name`` and ``replace_shipped`` is false: a trial run must never overwrite
    what the notebooks load. Called by ``save``, and by the training commands before they train.
    """
    root = checkpoint_dir(root)
    shipped = root.resolve() == checkpoint_dir().resolve()
    if shipped and not replace_shipped and name in read_manifest(root):
        raise FileExistsError(
            f"{name!r} is a shipped checkpoint in {root}; this would replace it and its manifest "
            f"row. Write elsewhere (root=..., or the command line's --out; its default is "
            f"{runs_dir()}), or pass replace_shipped=True (--replace-shipped) to rebuild the "
            "shipped checkpoint on purpose."
        )
    return root


def save(model: torch.nn.Module, name: str, root: Path | None = None,
         replace_shipped: bool = False, **record) -> dict:
    """Write ``<name>.pt`` and add (or replace) its row in the manifest.

    ``record`` holds what an instructor needs to reproduce it: description, command, seed,
    train_time_s, metrics. A row that is replaced keeps its ``notes`` unless ``record`` gives
    new ones. A shipped checkpoint is replaced only with ``replace_shipped=True``
    (``check_writable``).
    """
    root = check_writable(name, root, replace_shipped)
    root.mkdir(parents=True, exist_ok=True)
    entries = read_manifest(root)
    path = root / f"{name}.pt"
    arch = type(model).__name__
    torch.save({"arch": arch, "hparams": model.hparams, "state_dict": model.state_dict()}, path)
    notes = {"notes": entries[name]["notes"]} if "notes" in entries.get(name, {}) else {}
    entry = {"name": name, "file": path.name, "sha256": sha256(path), "arch": arch, **notes,
             **record, "torch_version": torch.__version__}
    entries[name] = entry
    _write_manifest(root, entries)
    return entry


def record(name: str, root: Path | None = None, replace_shipped: bool = False,
           **fields) -> dict:
    """Update fields of checkpoint ``name``'s manifest row (not its file or hash); a shipped
    row only with ``replace_shipped=True`` (``check_writable``)."""
    root = check_writable(name, root, replace_shipped)
    entries = read_manifest(root)
    if name not in entries:
        raise KeyError(f"no checkpoint named {name!r} in {root / MANIFEST}; save it first")
    entries[name] = {**entries[name], **fields}
    _write_manifest(root, entries)
    return entries[name]


def _write_manifest(root: Path, entries: dict[str, dict]) -> None:
    rows = [entries[k] for k in sorted(entries)]
    (root / MANIFEST).write_text(json.dumps({"checkpoints": rows}, indent=2) + "\n")


def pretrained(name: str, root: Path | None = None, map_location="cpu") -> torch.nn.Module:
    """Load the shipped checkpoint ``name`` (see the manifest), verified, in eval mode.

    ``root``: the folder that holds the checkpoint and its manifest (default: the shipped
    checkpoints, ``<data root>/checkpoints``; a trial run: ``runs_dir()``).
    """
    root = checkpoint_dir(root)
    manifest = (root / MANIFEST).resolve()
    if not manifest.exists():
        missing = "" if root.is_dir() else f" (the folder {root.resolve()} does not exist)"
        raise FileNotFoundError(
            f"no checkpoint manifest at {manifest}{missing}. The shipped checkpoints come with a "
            "clone of the course repository, in data/checkpoints/: set CAPSEDU_DATA to the data "
            f"folder that holds checkpoints/ (the data root is now {config.data_root()}), or pass "
            "root= the folder that holds manifest.json."
        )
    entries = read_manifest(root)
    if name not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise KeyError(f"no checkpoint named {name!r} in {root / MANIFEST}; available: {known}")
    entry = entries[name]
    path = root / entry["file"]
    if not path.exists():
        raise FileNotFoundError(
            f"checkpoint file {path} is missing; restore it (git checkout -- {path.resolve()}) "
            f"or retrain it with: {entry.get('command', '?')}"
        )
    digest = sha256(path)
    if digest != entry["sha256"]:
        raise ChecksumError(
            f"checkpoint {path} has sha256 {digest}, but the manifest records {entry['sha256']}: "
            "the file is corrupt or was modified. Restore it "
            f"(git checkout -- {path.resolve()}) or retrain it with: {entry.get('command', '?')}"
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

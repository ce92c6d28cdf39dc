"""Save and load trained models, verified against the sha256 recorded in a manifest.

``data/checkpoints/manifest.json`` lists every shipped checkpoint: its file, sha256, what it is,
the exact command that trains it, the seed, the training time and the metrics it reached.
Loading checks the hash first (a corrupt or tampered file is refused before torch reads it) and
then uses ``torch.load(..., weights_only=True)``, which cannot run code hidden in a pickle.

``save`` writes to ``<data root>/runs/`` (``runs_dir``) unless told otherwise, and ``save`` and
``add_result`` never write into a shipped folder, nor a folder in one, unless asked to
(``replace_shipped=True``; ``check_not_shipped``, which every writer of the package calls): one
that holds the marker ``SHIPPED.md`` the repository ships, or a shipped checkpoint (its manifest's
sha256, a copy made without the marker), or the data root's or the repository's ``checkpoints/``
or ``results/`` (``is_shipped``), however its path is spelled and whichever copy of the package
is imported; ``<data root>/runs/results/`` is for trials (``results_path``). Nor do
they write into the data root itself or a data set's folder (``shipped_folders``).

Names are plain file names inside their folder (``plain_name``, ``inside``): a checkpoint name or a
manifest ``file`` field with ``/``, ``..`` or an absolute path, or a link that leads out of the
folder, is refused before anything is opened. Every write goes to a temporary file that replaces
the old one at once (``os.replace``), under a lock on the folder, so two processes saving at once
never leave a torn manifest.
"""

import collections
import dataclasses
import difflib
import hashlib
import importlib
import io
import json
import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from . import course_settings
from .folder_lock import folder_lock
from .json_records import RecordType, from_row, json_row
from .manifest_rows import (
    ARCHS,
    ManifestRow,
    built,
    check_recorded,
    manifest_misfit,
    plain_name,
)
from .results_kinds import check_one_kind, read_rows, records
from .shipped_folders import (
    MANIFEST,
    checkpoint_folder,
    data_folder_of,
    is_shipped,
    read_json,
    restore_advice,
    sha256,
    shipped_reason,
    trials_advice,
)
from .validate import Flag, checked

READ_TRIES = 5  # a reader's tries when a file and its manifest row disagree (a save under way)
LOCK_TIMEOUT_S = 120  # the longest a writer waits for another to finish writing a folder


ROW_KEYS = {"name": str, "file": str, "sha256": str, "arch": str}  # what pretrained reads

Root = course_settings.Folder | None  # a folder (``~`` expanded); None: the default one

# a string such as "False" would be true: never replace a shipped file on a misread switch
ReplaceShipped = Flag("True only to change the shipped checkpoints or results")


class ChecksumError(ValueError):
    """The checkpoint's bytes are not the ones the manifest recorded."""


@checked
def checkpoint_dir(root: Root = None, where: str = "checkpoint_dir") -> Path:
    """``root`` (``~`` expanded), else the folder of the shipped checkpoints:
    ``<data root>/checkpoints``; a ``root`` that is a file is refused, naming it and ``where``
    (the function the caller called)."""
    folder = Path(root).expanduser() if root else course_settings.data_root() / "checkpoints"
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{where}(): root must be a folder (for checkpoints and their "
                                 f"{MANIFEST}), got the file {folder}; pass a folder")
    return folder


@checked
def check_not_shipped(path: str | Path, what: course_settings.Argument,
                      replace_shipped: ReplaceShipped | None = None,
                      data_set: Flag("True for a loader filling a data set's folder") = False
                      ) -> Path:
    """``path`` (``~`` expanded) if writing there leaves the shipped folders as they are: a file or
    folder in or under one (``is_shipped``) is refused, naming ``what`` it is, unless
    ``replace_shipped`` (None: the writer never writes there, e.g. a training state); so is one in
    a data set's folder or elsewhere in a data root than its ``runs/`` (``data_folder_of``), unless
    ``data_set`` (a loader downloading MNIST). The one check every writer calls before it writes
    or makes a folder: a trial never changes what the notebooks load, nor the repository."""
    path = Path(path).expanduser()
    if (part := course_settings.spaced_part(path)) is not None:  # a typo: a file no one would find
        raise ValueError(f"{what} must name a path without a space at either end of a name, got "
                         f"{str(path)!r} ({part!r}); remove the space")
    if (shipped := shipped_reason(path)) is not None and not replace_shipped:
        hint = ("" if replace_shipped is None else ", or pass replace_shipped=True "
                "(--replace-shipped) to change the shipped files on purpose")
        raise PermissionError(f"{what} must lie outside the shipped folders (data/checkpoints, "
                              f"data/results) and their copies, got {path}, {shipped}; write "
                              f"elsewhere: {trials_advice()}{hint}")
    if not (data_set or shipped) and (held := data_folder_of(path)) is not None:
        raise PermissionError(f"{what} must lie outside the data folder, got {path}, which is in "
                              f"{held}; {trials_advice()}, or write outside the data root")
    return path


@checked
def inside(root: Path, file: str, what: str) -> Path:
    """``root / file`` for a plain ``file`` name that stays inside ``root`` once links are
    followed, and is a regular file if it exists (never a device or a folder); else a
    ``ValueError`` naming ``what``."""
    path = root / plain_name(file, what)
    if path.resolve().parent != root.resolve():
        raise ValueError(f"{what} {file!r} leads outside {root.resolve()} (to {path.resolve()}); "
                         "a checkpoint must be a file inside its folder")
    if path.exists() and not path.is_file():
        raise ValueError(f"{what} {file!r} in {root} is not a regular file; a checkpoint is a "
                         ".pt file that save wrote: remove it and save that checkpoint again")
    return path


def _replace(path: Path, write: Callable[[Path], None]) -> None:
    """Write ``path`` through ``write(temporary path)``, then put it in place in one step."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def runs_dir() -> Path:
    """Where the training commands write, ``<data root>/runs``: ``pretrained(name, runs_dir())``."""
    return course_settings.data_root() / "runs"


@checked
def results_path(file: str, replace_shipped: ReplaceShipped = False) -> Path:
    """An experiment's recorded results ``file`` (e.g. ``"routing_ablations.json"``): in the shipped
    ``<data root>/results/`` with ``replace_shipped``, else in ``<data root>/runs/results/``, so
    that trial runs never touch the shipped results."""
    folder = course_settings.data_root() / "results" if replace_shipped else runs_dir() / "results"
    return folder / plain_name(file, "results_path(): file")


@checked
def read_results(path: str | Path, record_type: RecordType) -> dict[str, Any]:
    """The runs recorded in the results file ``path``, by name, each read as the record it was
    written from (``json_records.from_row``): a ``record_type``, or, in a file of several kinds of
    runs, the type ``record_type(name)`` names; a file of another experiment's runs is refused,
    naming it (``results_kinds.records``). A file not there is refused (a typo, or a path relative
    to another folder), unless it is a trial's in ``runs_dir()``: empty when none is recorded."""
    trial = Path(path).expanduser().resolve().is_relative_to(runs_dir().resolve())
    return records(path, read_rows(path, "read_results", trial), record_type)


@checked
def recorded_names(path: str | Path, replace_shipped: ReplaceShipped = False) -> set[str]:
    """The names of the runs the results file ``path`` holds, before ``add_result`` adds one
    (empty when there is none yet; a file not there in a shipped folder, which holds every one it
    ships, only with ``replace_shipped``, when it is about to be recorded there)."""
    return set(read_rows(path, "recorded_names", replace_shipped or not is_shipped(path)))


@checked
def add_result(path: Path, name: str, run: Any, replace_shipped: ReplaceShipped = False) -> None:
    """Add the record ``run`` (a frozen dataclass) as ``name`` to the results file ``path`` (made
    with its folder if need be; written by ``json_records.json_row``), keeping what other
    processes wrote there meanwhile; a shipped results file only with ``replace_shipped``. Every
    argument, and the file there, is checked before a folder, a lock or a file is made."""
    if not dataclasses.is_dataclass(run) or isinstance(run, type):
        raise TypeError(f"add_result(): run must be a record (a dataclass), got "
                        f"{type(run).__name__}; pass the record the experiment returns")
    if not name.strip() or name != name.strip():
        raise ValueError(f"add_result(): name must name the run, without a space at either end, "
                         f"got {name!r}; pass a name such as 'capsnet-seed0'")
    check_not_shipped(path, "add_result(): path", replace_shipped)
    row = json_row(run, "add_result")
    # a corrupt file, or one of runs of another kind, refused before the lock is made
    check_one_kind(path, read_rows(path, "add_result", True), name, row)
    path.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(path.parent, "add_result", LOCK_TIMEOUT_S):
        runs = {**read_rows(path, "add_result", True), name: row}
        _replace(path, lambda p: p.write_text(json.dumps({"runs": runs}, indent=1) + "\n"))


@checked
def read_manifest(root: Root = None, where: str = "read_manifest") -> dict[str, ManifestRow]:
    """The manifest's rows by name, checked (``check_row``); none where no run saved yet (absent,
    empty, ``runs_dir()``); a folder of other files (the data root) or a bad manifest refused,
    naming ``where`` (the function the caller called)."""
    folder = checkpoint_dir(root, where)
    if root is not None and not folder.exists() and folder.resolve() != runs_dir().resolve():
        raise _no_folder(folder, where)  # a typo would read as a folder of no checkpoints
    if root is not None and not (folder / MANIFEST).exists() and folder.is_dir() and any(
            folder.iterdir()) and folder.resolve() != runs_dir().resolve():
        inner = folder / "checkpoints"
        raise FileNotFoundError(f"{where}(): root must be a folder of checkpoints, which "
                                f"holds their {MANIFEST}, got {folder}, which holds other files "
                                "but no manifest; pass " + (f"{inner}, which holds one" if (
                                    inner / MANIFEST).exists() else "the folder save wrote to"))
    return rows_in(folder, where)


def _no_folder(folder: Path, where: str) -> FileNotFoundError:
    """The refusal of ``root``, the folder ``folder`` that is not there (or is a file)."""
    got = "a file" if folder.exists() else f"which does not exist ({folder.resolve()})"
    return FileNotFoundError(f"{where}(): root must be a folder of checkpoints (which holds their "
                             f"{MANIFEST}), got {folder}, {got}; pass the folder save wrote to, "
                             f"e.g. {runs_dir()}")


@checked
def rows_in(folder: Path, where: str = "rows_in") -> dict[str, ManifestRow]:
    """``read_manifest`` of a folder that may hold none yet (before a first save): no rows; a bad
    manifest refused, naming ``where``."""
    if folder.exists() and not folder.is_dir():  # the manifest itself named: no "no rows"
        raise NotADirectoryError(f"{where}(): the checkpoints' folder must be a folder (it holds "
                                 f"their {MANIFEST}), got the file {folder}; pass its folder, "
                                 f"{folder.parent}")
    path = folder / MANIFEST
    if not path.exists():
        return {}
    held = read_json(path, where, "the checkpoint manifest")  # a pipe, a key twice: refused
    if (bad := manifest_misfit(held)) is not None:
        raise ValueError(
            f"{where}(): the checkpoint manifest {path.resolve()} is corrupt (it must be a JSON "
            f"object whose 'checkpoints' lists rows by name, got {bad[:120]}); "
            f"{restore_advice(path, 'delete it and save the checkpoints it listed again')}")
    rows = held["checkpoints"]
    entries = {entry["name"]: entry for entry in rows}
    if len(entries) != len(rows):  # a second row of one name would be lost without a word
        counts = collections.Counter(row["name"] for row in rows)
        twice = sorted(name for name, count in counts.items() if count > 1)
        raise ValueError(f"{where}(): the checkpoint manifest {path.resolve()} has more than one "
                         f"row for {', '.join(map(repr, twice))}; "
                         f"{restore_advice(path, 'delete all rows of one name but one')}")
    return {name: check_row(entry, path.resolve()) for name, entry in entries.items()}


def _again(entry: ManifestRow) -> str:
    """How checkpoint ``entry`` is made again: the command its row recorded, else save()."""
    return (f"retrain it with: {entry.command}" if entry.command else
            f"save it again: save(model, {entry.name!r}, root)")


@checked
def check_writable(name: str, root: Root = None, replace_shipped: ReplaceShipped = False,
                   where: str = "check_writable") -> Path:
    """The folder ``save(model, name, root)`` writes to: ``root``, else ``runs_dir()``, else (with
    ``replace_shipped``) the shipped folder. Refuses a ``name`` that is not a plain file name.

    Raises ``PermissionError`` when the folder is, or lies in, a shipped one
    (``check_not_shipped``) and ``replace_shipped`` is false, naming ``where`` (the function the
    caller called). Called by ``save`` and ``record``, and by the training commands before they
    train.
    """
    plain_name(name, f"{where}(): name")
    if name.endswith(".pt"):  # the file would be <name>.pt.pt, a name pretrained() never finds
        raise ValueError(f"{where}(): name must be a checkpoint's name, without '.pt' (its file is "
                         f"<name>.pt), got {name!r}; pass {name.removesuffix('.pt')!r}")
    if root is None:
        root = checkpoint_dir() if replace_shipped else runs_dir()
    root = checkpoint_dir(root, where)
    check_not_shipped(root, f"{where}(): root", replace_shipped)
    check_not_shipped(root / f"{name}.pt", f"{where}(): name", replace_shipped)  # a copy there
    return checkpoint_folder(root, f"{where}(): root")


@checked
def save(model: torch.nn.Module, name: str, root: Root = None,
         replace_shipped: ReplaceShipped = False, **fields) -> ManifestRow:
    """Write ``<name>.pt`` and add (or replace) its row in the manifest, in ``root`` (default:
    ``runs_dir()``; the shipped folder only with ``replace_shipped=True``, ``check_writable``):
    the row, a ``manifest_rows.ManifestRow``.

    ``fields`` are what an instructor needs to reproduce it, the row's fields by name
    (description, command, seed, train_time_s, metrics as a ``manifest_rows.Metrics``, ...); the
    file, its sha256, its class and the torch version are the checkpoint's own. A row that is
    replaced keeps its ``notes`` unless ``fields`` gives new ones. The file and the manifest are
    each replaced in one step, under the folder's lock. Weights with a NaN or an infinity, and
    every field (``ManifestRow``; the hash a placeholder), are checked before anything is made.
    """
    check_recorded("save", **fields)
    if type(model).__name__ not in ARCHS or not hasattr(model, "hparams"):
        raise TypeError(f"save(): model must be one of the course's models ({', '.join(ARCHS)}), "
                        f"which keep their settings, got a {type(model).__name__}; save another "
                        "with torch.save(model.state_dict(), path)")
    if bad := [key for key, t in model.state_dict().items() if not t.isfinite().all()]:
        raise ValueError(f"save(): model must hold finite weights, got NaN or inf in {bad[0]}; "
                         "save one from before training diverged, or retrain it")
    root = check_writable(name, root, replace_shipped, "save")
    draft = ManifestRow(name=name, file=f"{name}.pt", sha256="0" * 64, arch=type(model).__name__,
                        torch_version=torch.__version__, **fields)
    # a value JSON cannot hold, or a corrupt manifest, refused before a folder or lock is made
    json_row(draft, "save")
    rows_in(root, "save")
    blob = {"arch": draft.arch, "hparams": model.hparams, "state_dict": model.state_dict()}
    path = inside(root, draft.file, "save(): the checkpoint name")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:  # made and written into before torch writes (a root user's os.access says yes to /sys)
        root.mkdir(parents=True, exist_ok=True)
        temporary.touch()
    except OSError as err:
        raise type(err)(f"save(): root must be a folder this process can write into (or make), "
                        f"got {root}, which cannot be made or written into ({err.strerror}); "
                        "pass another folder") from None
    try:
        torch.save(blob, temporary)
        digest = sha256(temporary)
        with folder_lock(root, "save", LOCK_TIMEOUT_S):
            entries = rows_in(root, "save")
            old = entries.get(name)
            kept = {"notes": old.notes} if old is not None and "notes" not in fields else {}
            entry = dataclasses.replace(draft, sha256=digest, **kept)
            text = _manifest_text("save", root, {**entries, name: entry})  # before the file
            os.replace(temporary, path)
            _replace(root / MANIFEST, lambda p: p.write_text(text))
    finally:
        temporary.unlink(missing_ok=True)
    return entry


@checked
def record(name: str, root: Root = None, replace_shipped: ReplaceShipped = False,
           **fields) -> ManifestRow:
    """Update fields of checkpoint ``name``'s manifest row (not its file or hash; the fields
    ``save`` takes), a shipped row only with ``replace_shipped=True`` (``check_writable``): the
    row as it now is."""
    check_recorded("record", **fields)
    root = check_writable(name, root, replace_shipped, "record")
    # every check before the lock is made: the row there, its new fields JSON can hold
    json_row(dataclasses.replace(_row_of(name, root), **fields), "record")
    with folder_lock(root, "record", LOCK_TIMEOUT_S):
        entries = rows_in(root, "record")
        entries[name] = dataclasses.replace(entries[name], **fields)  # no row is ever removed
        text = _manifest_text("record", root, entries)
        _replace(root / MANIFEST, lambda p: p.write_text(text))
    return entries[name]


def _row_of(name: str, root: Path) -> ManifestRow:
    """Checkpoint ``name``'s row in ``root``'s manifest, for ``record``; a name only the shipped
    folder holds is refused in words that say so."""
    entries = rows_in(root, "record")
    if name in entries:
        return entries[name]
    shipped = name in read_manifest() and root.resolve() != checkpoint_dir().resolve()
    fix = (f"the shipped folder {checkpoint_dir()} holds it: change its row there with "
           "replace_shipped=True, or save your own into this root first" if shipped else
           "save it first")
    raise KeyError(f"record(): name must be a checkpoint of {root / MANIFEST}, got {name!r}: no "
                   f"checkpoint named so there; {fix}")


def _manifest_text(where: str, root: Path, entries: dict[str, ManifestRow]) -> str:
    """``root``'s manifest with the rows ``entries``, as its file holds it: the keys other than
    "checkpoints" that it holds kept (a later version may add some). Refuses, before anything is
    replaced, a value JSON cannot hold (a tensor, a NumPy number)."""
    rows = [json_row(entries[k], where) for k in sorted(entries)]
    path = root / MANIFEST
    kept = json.loads(path.read_text()) if path.exists() else {}
    try:
        return json.dumps({**kept, "checkpoints": rows}, indent=2) + "\n"
    except TypeError as err:
        raise TypeError(f"{where}(): every field must be a value the JSON manifest can hold (a "
                        f"number, a string, a record of them), got {err}; convert it, e.g. "
                        "x.item() or x.tolist()") from None


@checked
def check_row(entry: dict, manifest: str | Path) -> ManifestRow:
    """The manifest row ``entry`` (as the file holds it) as a ``ManifestRow``, if it holds every
    key ``pretrained`` reads, of the right kind, and nothing a row does not have; else a
    ``ValueError`` that names each missing or malformed key and the ``manifest`` it is in."""
    problems = [f"{key!r} is missing" if key not in entry else
                f"{key!r} should be a {kind.__name__}, not {entry[key]!r}"
                for key, kind in ROW_KEYS.items()
                if not isinstance(entry.get(key), kind)]
    try:  # a file outside the folder would be read from anywhere: save writes a plain name
        plain_name(entry["file"] if isinstance(entry.get("file"), str) else "-", "'file'")
    except ValueError as err:
        problems.append(str(err))
    if not problems:
        try:
            return from_row(ManifestRow, entry)
        except (TypeError, ValueError) as err:  # a key no row has, a value of the wrong kind
            problems.append(str(err))
    raise ValueError(f"the row {entry.get('name', '?')!r} of {manifest}: " + "; ".join(problems)
                     + f". {restore_advice(Path(manifest), 'save the checkpoint again')}")


@checked
def pretrained(name: str, root: Root = None, map_location: course_settings.Device = "cpu"
               ) -> torch.nn.Module:
    """Load the shipped checkpoint ``name`` (see the manifest), verified, in eval mode.

    ``root``: the folder that holds the checkpoint and its manifest (default: the shipped
    checkpoints, ``<data root>/checkpoints``; a trial run: ``runs_dir()``).
    """
    root = checkpoint_dir(root, "pretrained")
    manifest = (root / MANIFEST).resolve()
    if not manifest.exists():
        missing = "" if root.is_dir() else f" (the folder {root.resolve()} does not exist)"
        raise FileNotFoundError(
            f"pretrained(): root must hold a checkpoint manifest, got none at "
            f"{manifest}{missing}. The shipped checkpoints come with a "
            "clone of the course repository, in data/checkpoints/: set CAPSEDU_DATA to the data "
            "folder that holds checkpoints/ (the data root is now "
            f"{course_settings.data_root()}), or pass root= the folder that holds manifest.json."
        )
    entry, path, data = verified_bytes(name, root, "pretrained")
    try:  # a file that is no pickle torch may read (its hash matched: its row was written so)
        blob = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)  # cpu:0 too
    except (pickle.UnpicklingError, RuntimeError, EOFError) as err:
        blob = f"not a file torch.load reads ({type(err).__name__})"
    if not isinstance(blob, dict) or not {"arch", "hparams", "state_dict"} <= blob.keys():
        got = blob if isinstance(blob, str) else f"a {type(blob).__name__} {str(blob)[:60]}"
        raise ValueError(f"pretrained(): name {name!r} must be a checkpoint that save() wrote (a "
                         f"dict of arch, hparams and state_dict), got {path}, {got}; retrain it "
                         f"({entry.command or 'and save() it'}), or pass a root save() wrote")
    if blob["arch"] != entry.arch:
        raise ValueError(f"pretrained(): checkpoint {path} holds a {blob['arch']}, but its "
                         f"manifest row says {entry.arch}; {restore_advice(path, _again(entry))}")
    model = built(entry, model_class(blob["arch"]), blob["hparams"])
    model.load_state_dict(blob["state_dict"])
    return model.to(map_location).eval()


@checked
def verified_bytes(name: str, root: Path,
                   where: str = "verified_bytes") -> tuple[ManifestRow, Path, bytes]:
    """Checkpoint ``name``'s manifest row, file and bytes, once the bytes match the row's sha256.

    The bytes are read once, and those very bytes are hashed and loaded. Another process saving
    this checkpoint replaces the file and then its row: a reader caught between the two sees a
    mismatch for a moment, so a mismatch is read again (``READ_TRIES`` times, 0.1 s, 0.2 s, ...
    apart) before the file is called corrupt. ``where``: the function the caller called, named
    when ``root`` is no folder or ``name`` no checkpoint of its manifest."""
    if not root.is_dir():
        raise _no_folder(root, where)
    for attempt in range(READ_TRIES):
        entries = rows_in(root, where)
        if name not in entries:
            close = difflib.get_close_matches(str(name), list(entries), n=3)
            hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
            known = ", ".join(sorted(entries)) or "none"
            raise KeyError(f"{where}(): name must be a checkpoint of {root / MANIFEST}, "
                           f"got {name!r}: no checkpoint named so; {hint}available: {known}")
        entry = entries[name]
        path = inside(root, entry.file, f"{where}(): the manifest row {name!r}: its file")
        if not path.exists():
            raise FileNotFoundError(f"{where}(): checkpoint file {path} is missing; "
                                    f"{restore_advice(path, _again(entry))}")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest == entry.sha256:
            return entry, path, data
        time.sleep(0.1 * 2**attempt)  # 3.1 s in all: a save's two replacements take far less
    raise ChecksumError(
        f"{where}(): checkpoint {path} has sha256 {digest}, but the manifest records "
        f"{entry.sha256}: the file is corrupt or was modified; "
        f"{restore_advice(path, _again(entry))}")


@checked
def model_class(arch: str) -> type:
    """The model class a checkpoint's ``arch`` names (see ``ARCHS``)."""
    if arch not in ARCHS:
        raise KeyError(f"model_class(): arch must be a model architecture of the course, one "
                       f"of {', '.join(ARCHS)}, got {arch!r}; pass one of those")
    return getattr(importlib.import_module(ARCHS[arch]), arch)

"""Which folders the repository ships, and which hold what no trial may write beside: the rule
every writer (``checkpoints.check_not_shipped``) and every reader's advice (git restores a file
only where the repository tracks it, ``restore_advice``) follow.

A shipped folder holds the marker ``SHIPPED.md`` (``data/checkpoints/``, ``data/results/``), or
a shipped checkpoint its manifest lists (``holds_shipped_checkpoint``: a copy made without the
marker is recognised by what its files are, not by where it lies), and a shipped checkpoint's
copy on its own is recognised by its sha256 (``shipped_copy``); its parent is a data root
(``is_data_root``): it holds the shipped folders, the data sets and ``runs/``, where trials go.
A data set's folder (``MNIST/``, which holds ``raw/`` and the IDX files) is read by the data
loaders, never a place for a checkpoint (``holds_data_set``). A checkpoint folder is known by
what it holds, not where it lies: new, empty, or holding a manifest; a folder of other files (the
package's source, the notebooks, a home folder, /) is none (``checkpoint_folder``).

A manifest or results file is read by ``read_json``: only a regular file (``check_regular``: a
named pipe or a device would be read forever), at most ``MAX_JSON_BYTES``, with no key twice in
one object (JSON would keep the last without a word).
"""

import hashlib
import json
import re
import stat
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator

from . import course_settings
from .course_settings import Text
from .folder_lock import LOCK_FILE
from .validate import checked

SHIPPED_MARKER = "SHIPPED.md"  # in every shipped folder: data/checkpoints/, data/results/
MANIFEST = "manifest.json"  # a checkpoint folder's list of its files, with their sha256
REPOSITORY_DATA = Path(__file__).resolve().parents[1] / "data"  # shipped, whatever the data root
SHIPPED_KINDS = ("checkpoints", "results")  # the shipped folders of a data root


# the most a manifest or results file may hold (the largest shipped, full_test_sets.json, is 2.7
# MiB): read_json reads no more, so a link to /dev/zero is refused, not read until memory runs out
MAX_JSON_BYTES = 64 << 20


@checked
def sha256(path: str | Path) -> str:
    """The sha256 of the file ``path``, read a MiB at a time (a checkpoint may be large)."""
    if not Path(path).is_file():
        got = ("a folder" if Path(path).is_dir() else "not a regular file: a named pipe or a "
               "device, never done reading" if Path(path).exists() else "nothing there")
        raise FileNotFoundError(f"sha256(): path must be an existing file, got {str(path)!r} "
                                f"({got}); pass the checkpoint's own file")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _manifest_rows(folder: Path) -> list[dict]:
    """The rows of ``folder``'s manifest that name a file (a plain name, in ``folder``) and its
    sha256; none where there is no manifest (or a device, a pipe: ``is_file``) or it cannot be
    read as one."""
    manifest = folder / MANIFEST
    try:
        rows = json.loads(manifest.read_text())["checkpoints"] if manifest.is_file() else []
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # no manifest: ships nothing
        return []
    return [row for row in rows if isinstance(row, dict) and isinstance(row.get("file"), str)
            and Path(row["file"]).name == row["file"] and isinstance(row.get("sha256"), str)
            ] if isinstance(rows, list) else []


@checked
def holds_shipped_checkpoint(folder: str | Path) -> bool:
    """Whether ``folder``'s manifest lists a checkpoint the repository ships (its sha256 is one
    of ``data/checkpoints/manifest.json``'s) and the file there has that sha256, or every row is
    a shipped one and none of their files is there (a copy of the manifest alone): a copy of the
    shipped folder, wherever it lies. The smallest such file is hashed, once."""
    folder = Path(folder).expanduser()
    if not (rows := _manifest_rows(folder)):  # most folders: no manifest to read further
        return False
    shipped = {row["sha256"] for row in _manifest_rows(REPOSITORY_DATA / "checkpoints")}
    files = [(folder / row["file"], row["sha256"]) for row in rows
             if row["sha256"] in shipped and (folder / row["file"]).is_file()]
    if not files:  # the shipped manifest's rows alone, none of their files here: a copy of it
        # (a link to a manifest is no save's: ``other_files`` refuses it, saying so)
        return not (folder / MANIFEST).is_symlink() and all(row["sha256"] in shipped
                                                            for row in rows)
    file, digest = min(files, key=lambda item: item[0].stat().st_size)
    return sha256(file) == digest


@checked
def shipped_copy(path: str | Path) -> str | None:
    """The shipped checkpoint whose bytes the file ``path`` holds (its sha256 is one of
    ``data/checkpoints/manifest.json``'s), however it is named and wherever it lies; None for any
    other path. Only a file of a shipped checkpoint's size is hashed."""
    path, folder = Path(path).expanduser(), REPOSITORY_DATA / "checkpoints"
    shipped = {row["sha256"]: row["file"] for row in _manifest_rows(folder)}
    sizes = {(folder / file).stat().st_size for file in shipped.values()
             if (folder / file).is_file()}
    if not path.is_file() or path.stat().st_size not in sizes:
        return None
    return shipped.get(sha256(path))


@checked
def shipped_reason(path: str | Path) -> str | None:
    """Why ``path`` is a shipped folder or lies in one at any depth, however it is spelled (``..``,
    links, ``~``), in words; None where it is not. The data root's ``checkpoints/`` or
    ``results/``, or the repository's ``data/checkpoints/`` or ``data/results/`` whatever the data
    root is: the notebooks read it; elsewhere (a copy, another clone) a folder that holds a
    shipped checkpoint (``holds_shipped_checkpoint``: known by what its files are) or the marker
    ``SHIPPED.md``; or ``path`` is a file whose bytes are a shipped checkpoint's (``shipped_copy``:
    a copy on its own, with no manifest beside it)."""
    path = Path(path).expanduser().resolve()
    shipped = {(base / kind).expanduser().resolve() for base in (course_settings.data_root(),
                                                                 REPOSITORY_DATA)
               for kind in SHIPPED_KINDS}
    for folder in (path, *path.parents):
        where = "which is" if folder == path else f"which is in {folder},"  # the folder or in it
        if folder in shipped:
            return f"which is {'one' if folder == path else 'in one'} (the notebooks read it)"
        if holds_shipped_checkpoint(folder):
            held = ("the course's shipped checkpoints, recognised by their sha256" if any(
                (folder / row["file"]).is_file() for row in _manifest_rows(folder)) else
                f"the shipped {MANIFEST} (the list of the course's shipped checkpoints), none "
                "of their files")
            return f"{where} a copy of them: it holds {held}"
        if (folder / SHIPPED_MARKER).is_file():
            return (f"{where} another copy of them: it holds {SHIPPED_MARKER}, the mark of the "
                    "course's shipped files")
    if (copy := shipped_copy(path)) is not None:
        return (f"which is a copy: it holds the course's shipped checkpoint {copy}, recognised "
                "by its sha256")
    return None


@checked
def is_shipped(path: str | Path) -> bool:
    """Whether ``path`` is a shipped folder or lies in one (``shipped_reason`` says why)."""
    return shipped_reason(path) is not None


@checked
def is_data_root(folder: str | Path) -> bool:
    """Whether ``folder`` is a data root: the repository's ``data/``, or a folder whose
    ``checkpoints/`` or ``results/`` holds the marker, or whose ``checkpoints/`` holds a shipped
    checkpoint (another clone's, a copy's, a data root ``CAPSEDU_DATA`` names)."""
    folder = Path(folder).expanduser().resolve()
    return folder == REPOSITORY_DATA.resolve() or any(
        (folder / kind / SHIPPED_MARKER).is_file() for kind in SHIPPED_KINDS) or \
        holds_shipped_checkpoint(folder / "checkpoints")


@checked
def holds_data_set(folder: str | Path) -> bool:
    """Whether ``folder`` is a data set's folder: it holds the IDX files of MNIST (``*-ubyte``),
    or its ``raw/`` does (``MNIST/``)."""
    folder = Path(folder).expanduser()
    return any(any(place.glob("*-ubyte*")) for place in (folder, folder / "raw")
               if place.is_dir())


@checked
def data_folder_of(path: str | Path) -> str | None:
    """What ``path`` (a file or folder a writer would make) lies in that no writer may change, in
    words: a data set's folder (``MNIST/``), or a data root (``data/``) outside its ``runs/``
    (trials; its shipped folders are ``is_shipped``'s, which ``checkpoints.check_not_shipped``
    refuses on its own); else None."""
    path = Path(path).expanduser().resolve()
    for folder in (path, *path.parents):
        if holds_data_set(folder):
            return f"{folder}, a data set's folder (the data loaders read it)"
        if is_data_root(folder) and not path.is_relative_to((folder / "runs").resolve()):
            return (f"the data root {folder}, beside the shipped checkpoints/ and results/ (git "
                    "tracks it)")
    return None


def trials_advice() -> str:
    """Where a trial goes instead of a refused folder, in words: ``<data root>/runs``, unless
    ``CAPSEDU_DATA`` names a folder in the data folder (``data/MNIST``, ``data/checkpoints``),
    whose ``runs/`` is refused too: then the variable is the cause, and is named."""
    runs = course_settings.data_root() / "runs"
    if is_shipped(runs) or data_folder_of(runs) is not None:
        return (f"CAPSEDU_DATA names {runs.parent}, in the data folder, so no trial may go in its "
                "runs/ either: set CAPSEDU_DATA to a folder of your own (e.g. ~/capsedu-data), "
                "or unset it")
    return f"trials go in {runs} (the default)"


COURSE_FILES = (".pt", ".json", ".pt.lock", ".pt.partial")  # states, checkpoints, results
# the hidden entries a checkpoint folder may hold: the folder's lock, Jupyter's and macOS's; a
# save's temporary files are ".<file>.<pid>.tmp" (any other, .bashrc or .config, is a home's)
TOOLS_HIDDEN = (LOCK_FILE, ".ipynb_checkpoints", ".DS_Store")


def _counted(entry: Path) -> bool:
    """Whether ``entry``, in a folder, is another kind of file than the course's: not one of
    ``COURSE_FILES``, nor a hidden one the tools make (``TOOLS_HIDDEN``, a save's temporary), nor
    a folder holding, at any depth, only such files and empty folders (``--state
    out/sub/state.pt``, ``out/sub`` made first: the run's own); a hidden one (``.cache``) is a
    home's, whatever it holds."""
    tools = entry.name in TOOLS_HIDDEN or re.fullmatch(r"\..+\.\d+\.tmp", entry.name)
    if entry.is_dir() and not entry.is_symlink() and not entry.name.startswith("."):
        return any(_counted(inner) for inner in entry.iterdir())
    return not tools and not (entry.is_file() and entry.name.endswith(COURSE_FILES))


@checked
def other_files(folder: str | Path) -> str | None:
    """What makes ``folder`` no checkpoint folder, in words: it is a file, it holds other files and
    no manifest (a repository's source, its notebooks, a home folder, /), where a save would add a
    checkpoint, a manifest and a lock among files of another kind, or its manifest is a link (a
    save would read another folder's rows, and write them here); None for a folder not there
    yet, an empty one, or one that holds a manifest (a save wrote it). Not counted: the course's
    own files (``COURSE_FILES``: a training state or a checkpoint, e.g. ``--state`` in ``--out``,
    a results file, a state's lock or part-written copy) and the tools' hidden ones
    (``TOOLS_HIDDEN``: a folder's lock, a save's temporary files, ``.ipynb_checkpoints`` from
    Jupyter, ``.DS_Store`` from macOS); a home's (``.bashrc``, ``.cache``) count."""
    folder = Path(folder).expanduser()
    if not folder.exists():
        return None
    if not folder.is_dir():
        return "is a file, not a folder"
    if folder.resolve() == Path.home().resolve():
        return "is your home folder"
    if (folder / MANIFEST).is_symlink():
        return (f"holds a {MANIFEST} that is a link (to {(folder / MANIFEST).resolve()}), not one "
                "a save wrote")
    if (folder / MANIFEST).exists():
        return None
    others = sorted(entry.name for entry in folder.iterdir() if _counted(entry))
    if not others:
        return None
    kind = "files or folders" if len(others) > 1 else "file or folder"
    return f"holds {len(others)} other {kind}, such as {others[0]}, and no {MANIFEST}"


@checked
def checkpoint_folder(folder: Path, what: course_settings.Argument) -> Path:
    """``folder`` if it is a checkpoint folder, by what it holds, not where it lies: new, empty,
    one a save wrote (it holds a manifest) or ``<data root>/runs``; a folder of other files
    (source code, notebooks, a home folder, /) is refused, naming ``what``, before anything is
    written (``checkpoints.check_writable``, the training commands' ``--out``)."""
    runs = course_settings.data_root() / "runs"
    if folder.resolve() != runs.resolve() and (found := other_files(folder)) is not None:
        raise ValueError(f"{what} must be a checkpoint folder (a new or empty one, or one a save "
                         f"wrote, which holds its {MANIFEST}), got {folder}, which {found}; pass "
                         f"a new folder, e.g. {runs / 'mine'}, or leave it out for the default "
                         f"runs folder {runs}")
    return folder


@checked
def state_folder(path: Path, what: course_settings.Argument) -> Path:
    """``path``, a training state's file, if its folder holds no files of other kinds than the
    course's (``_counted``; folders may be there, e.g. ``--out`` beside it): a state is never kept
    among the package's source, the notebooks, a repository's files; refused before training,
    naming ``what``. The state's own files (``<state>``, ``<state>.partial``, ...) are its."""
    folder, runs = path.expanduser().parent, course_settings.data_root() / "runs"
    others = sorted(entry.name for entry in folder.iterdir() if entry.is_file() and _counted(entry)
                    and not entry.name.startswith(path.name)) if folder.is_dir() else []
    if others and folder.resolve() != runs.resolve():
        raise ValueError(f"{what} must be a file in a folder of the course's files, got {path}, "
                         f"whose folder {folder} holds files of other kinds ({len(others)}, such "
                         f"as {others[0]}); keep the state among the course's files, e.g. "
                         f"{runs / 'state.pt'}")
    return path


def _named(value: str | Path) -> str | Path:
    """What ``Place`` declares: a path that names something ('' would be the current folder)."""
    if not str(value).strip():
        raise ValueError(f"must name a file or folder, got {str(value)!r}; pass the path of the "
                         "file that is corrupt or missing")
    return value


Place = Annotated[str | Path, AfterValidator(_named)]  # a file's or folder's path


def _instruction(value: str) -> str:
    """What ``Instruction`` declares: what to do, in words, a verb and what it acts on ('yes' or
    'True' answers a question, a flag spelt as a string: no instruction)."""
    if len(value.split()) < 2:
        raise ValueError(f"must say what to do in words, e.g. 'save it again', got {value!r}; "
                         "write the instruction out")
    return value


Instruction = Annotated[Text, AfterValidator(_instruction)]  # what to do: "record it again"


@checked
def restore_advice(path: Place, again: Instruction) -> str:
    """What to do about ``path``, a corrupt or missing file: git restores it where the repository
    tracks it (a shipped folder), else ``again`` makes it anew (a learner's own file, which git
    never held)."""
    if is_shipped(path):
        return f"restore it (git checkout -- {Path(path).resolve()}) or {again}"
    return f"{again} (the folder is not a shipped one: git does not hold it)"


@checked
def check_regular(path: str | Path, where: str, what: str, fix: str | None = None) -> None:
    """Refuse ``path`` (``what``, e.g. 'the checkpoint manifest') where it is there but no regular
    file: a named pipe or a device (or a link to one) would be read forever, or until memory runs
    out. Names ``where`` (the function called) and ``fix`` (by default ``restore_advice``)."""
    if Path(path).exists() and not Path(path).is_file():
        mode = Path(path).stat().st_mode
        kind = ("a named pipe" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket")
        raise ValueError(f"{where}(): {what} {path} is not a regular file but {kind} (it leads to "
                         f"{Path(path).resolve()}), which is never done reading; "
                         f"{fix or restore_advice(path, 'remove it')}")


@checked
def read_json(path: str | Path, where: str, what: str) -> Any:
    """The JSON the file ``path`` (``what``, e.g. 'the checkpoint manifest') holds, or a str
    saying why it holds none (not JSON, not text), for the caller's refusal. Refused, naming
    ``where`` and what to do: no regular file (``check_regular``), more than ``MAX_JSON_BYTES``,
    a key twice in one object (JSON keeps the last, the other lost without a word), or brackets
    nested deeper than Python reads."""
    check_regular(path, where, what)
    with open(path, "rb") as file:
        data = file.read(MAX_JSON_BYTES + 1)
    if len(data) > MAX_JSON_BYTES:
        raise ValueError(f"{where}(): {what} {path} must hold at most {MAX_JSON_BYTES >> 20} MiB "
                         f"(the course's largest is under 3 MiB), got more: it is not one; "
                         f"{restore_advice(path, 'pass the right file')}")

    def once(pairs: list[tuple[str, Any]]) -> dict:
        held = dict(pairs)
        if len(held) < len(pairs):
            twice = next(key for i, (key, _) in enumerate(pairs) if key in dict(pairs[:i]))
            raise ValueError(f"{where}(): {what} {path} has the key {twice!r} twice in one object "
                             "(a hand merge?): JSON would keep the last one, the other lost "
                             f"without a word; {restore_advice(path, 'keep one of them')}")
        return held
    try:
        return json.loads(data, object_pairs_hook=once)
    except RecursionError:
        raise ValueError(f"{where}(): {what} {path} is not one: its brackets are nested deeper "
                         f"than Python reads; {restore_advice(path, 'pass the right file')}"
                         ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:  # a torn or changed file
        return f"no JSON: {type(err).__name__}: {str(err)[:80]}"

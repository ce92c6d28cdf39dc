"""The lock every writer of a folder's manifest or results holds (``checkpoints.save``,
``record``, ``add_result``), and who holds it: the holder writes its pid, host, command line and
the time it took the lock into the lock file, so that a writer that waits too long is told whom
it waits for (a paused notebook, a training run), not only that it waited."""

import contextlib
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Annotated

from filelock import FileLock, Timeout
from pydantic import AfterValidator, Field

from .course_settings import Folder, Name
from .validate import Float, checked

LOCK_FILE = ".capsedu.lock"
MAX_WAIT_S = 3600  # an hour: a longer wait is a paused or stopped holder, never a slow save
# (lock file, thread) of the locks this process holds: a second take in that thread would wait
# for itself forever (another thread waits for the first to let go)
HELD: set[tuple[Path, int]] = set()


def _lock_file(value: str | Path) -> str | Path:
    """What ``LockFile`` declares: a path that names a file, not '' nor a folder."""
    if not str(value).strip() or Path(value).is_dir():
        raise ValueError(f"must be a lock file's path, got {str(value)!r}, "
                         f"{'a folder' if str(value).strip() else 'no path'}; pass the folder's "
                         f"lock file, folder / {LOCK_FILE!r}")
    return value


def _not_a_file(value: str | Path) -> str | Path:
    """What ``LockedFolder`` declares besides a ``Folder``: no file (its lock file would go
    inside a file)."""
    if Path(value).is_file():
        raise ValueError(f"must be a folder, got {str(value)!r}, a file; pass the folder whose "
                         "files are written (its parent, if this file is one of them)")
    return value


# a lock file's path (a str or a Path); a folder a writer locks, which is no file
LockFile = Annotated[str | Path, AfterValidator(_lock_file),
                     Field(description="a lock file's path (a str or a Path)")]
LockedFolder = Annotated[Folder, AfterValidator(_not_a_file)]


def _is_text(data: bytes) -> bool:
    """Whether ``data`` reads as UTF-8 text (what a holder writes)."""
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


@checked
def holder(path: LockFile) -> str:
    """Who holds the lock file ``path``, in words: what its holder wrote there, else the process
    Linux lists as holding it (``/proc/locks``), else that it said nothing; no one where there is
    no such file (its holder let it go, or the path is wrong)."""
    path = Path(path)
    if not path.exists():
        return f"no one: there is no lock file {path} (its holder let it go, or it is another path)"
    with contextlib.suppress(OSError):
        data = path.read_bytes()
        if not _is_text(data):  # no holder wrote it: another program
            return (f"no holder's record: {path} holds {len(data)} bytes that are not text "
                    f"({data[:8]!r}...), a file another program wrote")
        if written := data.decode().strip():
            return written
    with contextlib.suppress(OSError, IndexError):
        inode = path.stat().st_ino
        for fields in map(str.split, Path("/proc/locks").read_text().splitlines()):
            if fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
                command = Path(f"/proc/{fields[4]}/cmdline").read_bytes().replace(b"\0", b" ")
                return f"pid {fields[4]}, running {command.decode(errors='replace').strip()[:200]}"
    return f"a process that did not say who it is (fuser -v {path} names it)"


@checked
@contextlib.contextmanager
def folder_lock(folder: LockedFolder, where: Name,
                timeout_s: Float("seconds to wait for the lock's holder", gt=0, le=MAX_WAIT_S)):
    """Hold ``folder``'s lock, waiting at most ``timeout_s`` for its holder to let it go (a paused
    or killed run may never do: a wait that never ends is refused, as filelock reads a negative
    timeout); ``where``: the function the caller called, named if it waits too long, with the
    holder (``holder``). A lock this process holds already is refused at once: it would wait
    for itself. Its file (``LOCK_FILE``, git-ignored) stays in ``folder``, empty, once let go:
    a file removed on release could let two writers hold two locks of one folder."""
    lock = FileLock(Path(folder) / LOCK_FILE, timeout=timeout_s)
    path = Path(lock.lock_file)
    key = (path.resolve(), threading.get_ident())
    if key in HELD:
        raise RuntimeError(f"{where}(): {path} is held by this very process already (a write to "
                           f"{folder} inside another, e.g. a save called while one is under way, "
                           "or a notebook cell left inside one): finish the first, then write")
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(
            f"{where}(): {path} has been held by another process for {timeout_s} s: "
            f"{holder(path)}. Is that run writing this folder, paused or stopped? Let it finish "
            "(or stop it), or, if it no longer runs, delete that file and try again") from None
    HELD.add(key)
    try:
        with contextlib.suppress(OSError):  # a record for a waiter only: the lock holds without
            path.write_text(f"pid {os.getpid()} on {socket.gethostname()}, since "
                            f"{time.strftime('%Y-%m-%d %H:%M:%S')}, running "
                            f"{' '.join([sys.executable, *sys.argv])[:200]}")
        yield
    finally:
        with contextlib.suppress(OSError):  # no holder's record left once it is let go
            path.write_text("")
        lock.release()
        HELD.discard(key)

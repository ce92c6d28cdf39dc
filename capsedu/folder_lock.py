"""The lock every writer of a folder's manifest or results holds (``checkpoints.save``,
``record``, ``add_result``), and who holds it: the holder writes its pid, host, command line and
the time it took the lock into the lock file, so that a writer that waits too long is told whom
it waits for (a paused notebook, a training run), not only that it waited."""

import contextlib
import os
import socket
import sys
import time
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_FILE = ".capsedu.lock"


def holder(path: Path) -> str:
    """Who holds the lock file ``path``, in words: what its holder wrote there, else the process
    Linux lists as holding it (``/proc/locks``), else that it said nothing."""
    with contextlib.suppress(OSError):
        if written := path.read_text().strip():
            return written
    with contextlib.suppress(OSError, IndexError):
        inode = path.stat().st_ino
        for fields in map(str.split, Path("/proc/locks").read_text().splitlines()):
            if fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
                command = Path(f"/proc/{fields[4]}/cmdline").read_bytes().replace(b"\0", b" ")
                return f"pid {fields[4]}, running {command.decode(errors='replace').strip()[:200]}"
    return f"a process that did not say who it is (fuser -v {path} names it)"


@contextlib.contextmanager
def folder_lock(folder: Path, where: str, timeout_s: float):
    """Hold ``folder``'s lock, waiting at most ``timeout_s`` for its holder to let it go (a paused
    or killed run may never do); ``where``: the function the caller called, named if it waits too
    long, with the holder (``holder``)."""
    lock = FileLock(folder / LOCK_FILE, timeout=timeout_s)
    path = Path(lock.lock_file)
    try:
        lock.acquire()
    except Timeout:
        raise TimeoutError(
            f"{where}(): {path} has been held by another process for {timeout_s} s: "
            f"{holder(path)}. Is that run writing this folder, paused or stopped? Let it finish "
            "(or stop it), or, if it no longer runs, delete that file and try again") from None
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

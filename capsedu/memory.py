"""Whether an allocation fits in memory, asked before it is made: a size a caller gives (images to
draw, a batch, a layer's capsules) is checked against the memory free for it, with an estimate
that counts the temporaries, so a learner gets a sentence instead of a process the operating system
kills (or a machine that swaps for minutes).

The memory free is the least of what the machine has free, what the process's own address-space
limit leaves (``ulimit -v``) and what its container's memory limit leaves (a cgroup's, as on
Binder or a JupyterHub, where the machine's free memory is the host's, not the learner's).
"""

import os
from pathlib import Path

from .course_settings import Text
from .validate import Int, checked

CGROUP = Path("/sys/fs/cgroup")  # where Linux shows a process's control group (its container)


def _machine_free() -> int:
    """Bytes the machine has free: psutil's estimate when installed, else the free pages."""
    try:
        import psutil
        return psutil.virtual_memory().available
    except ImportError:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _address_space_left() -> int | None:
    """Bytes the process's own address-space limit still leaves it; None without a limit, or where
    it cannot be read (Windows, macOS: no /proc)."""
    try:
        import resource
        with open("/proc/self/statm") as statm:  # its first number: the pages mapped
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError):
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if limit == resource.RLIM_INFINITY else limit - mapped


def _container_left(root: Path = CGROUP) -> int | None:
    """Bytes the container's memory limit still leaves: cgroup v2 (``memory.max`` less
    ``memory.current``) or v1 (``memory.limit_in_bytes`` less ``memory.usage_in_bytes``); None
    without a limit (v2's "max", v1's huge number) or where none is shown."""
    for limit, used in (("memory.max", "memory.current"),
                        ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")):
        try:
            cap, now = ((root / name).read_text().strip() for name in (limit, used))
        except OSError:
            continue
        if cap.isdigit() and now.isdigit() and int(cap) < 2**60:
            return int(cap) - int(now)
    return None


def available_memory() -> int:
    """Bytes of memory free for a new allocation now: the least of the machine's free memory, what
    the process's address-space limit leaves and what its container's limit leaves."""
    limits = [left for left in (_address_space_left(), _container_left()) if left is not None]
    return max(min([_machine_free(), *limits]), 0)


def _size(n: int) -> str:
    """``n`` bytes in the largest unit that shows it as 0.1 or more (a megabyte is no "0.0 GiB")."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size / 10:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


@checked
def check_memory(needed: Int("the bytes it needs, counted", ge=0), what: Text, fix: Text) -> None:
    """Raise ``MemoryError`` up front, with the estimate, when making ``what`` needs more than the
    free memory, instead of running until the operating system kills the process (``needed``: a
    byte count gone wrong, negative or a bool, would pass any size)."""
    free = available_memory()
    if needed > free:
        raise MemoryError(f"{what} needs about {_size(needed)} of memory, {_size(free)} is free; "
                          f"{fix}")

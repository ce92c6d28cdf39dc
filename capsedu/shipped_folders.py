"""Which folders the repository ships, and which hold what no trial may write beside: the rule
every writer (``checkpoints.check_not_shipped``) and every reader's advice (git restores a file
only where the repository tracks it, ``restore_advice``) follow.

A shipped folder holds the marker ``SHIPPED.md`` (``data/checkpoints/``, ``data/results/``); its
parent is a data root (``is_data_root``): it holds the shipped folders, the data sets and
``runs/``, where trials go. A data set's folder (``MNIST/``, which holds ``raw/`` and the IDX
files) is read by the data loaders, never a place for a checkpoint (``holds_data_set``).
"""

from pathlib import Path

from . import course_settings
from .validate import checked

SHIPPED_MARKER = "SHIPPED.md"  # in every shipped folder: data/checkpoints/, data/results/
REPOSITORY_DATA = Path(__file__).resolve().parents[1] / "data"  # shipped, whatever the data root
SHIPPED_KINDS = ("checkpoints", "results")  # the shipped folders of a data root


@checked
def is_shipped(path: str | Path) -> bool:
    """Whether ``path`` is a shipped folder or lies in one at any depth, however it is spelled
    (``..``, links, ``~``): a folder that holds the marker ``SHIPPED.md`` (another clone's shipped
    folder too), the data root's ``checkpoints/`` or ``results/``, or the repository's
    ``data/checkpoints/`` or ``data/results/`` whatever the data root is."""
    path = Path(path).expanduser().resolve()
    shipped = {(base / kind).expanduser().resolve() for base in (course_settings.data_root(),
                                                                 REPOSITORY_DATA)
               for kind in SHIPPED_KINDS}
    return any(folder in shipped or (folder / SHIPPED_MARKER).is_file()
               for folder in (path, *path.parents))


@checked
def is_data_root(folder: str | Path) -> bool:
    """Whether ``folder`` is a data root: the repository's ``data/``, or a folder whose
    ``checkpoints/`` or ``results/`` holds the marker (another clone's, a copy's)."""
    folder = Path(folder).expanduser().resolve()
    return folder == REPOSITORY_DATA.resolve() or any(
        (folder / kind / SHIPPED_MARKER).is_file() for kind in SHIPPED_KINDS)


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


@checked
def restore_advice(path: str | Path, again: str) -> str:
    """What to do about ``path``, a corrupt or missing file: git restores it where the repository
    tracks it (a shipped folder), else ``again`` makes it anew (a learner's own file, which git
    never held)."""
    if is_shipped(path):
        return f"restore it (git checkout -- {Path(path).resolve()}) or {again}"
    return f"{again} (the folder is not a shipped one: git does not hold it)"

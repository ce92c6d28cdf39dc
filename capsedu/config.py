"""Course-wide settings read from the environment.

* ``CAPSEDU_QUICK=1`` switches every notebook to *quick mode*: less data, fewer epochs. The test
  command (``make test``) sets it so the whole course executes in a few minutes; learners leave it
  unset and get the real thing.
* ``CAPSEDU_DATA`` moves the data root (MNIST, checkpoints). By default it is the ``data/`` folder
  of the repository this package was installed from, or ``./data`` when that does not exist.
"""

import os
from pathlib import Path

import torch


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


QUICK: bool = _flag("CAPSEDU_QUICK")

_REPO_DATA = Path(__file__).resolve().parent.parent / "data"


def data_root() -> Path:
    """Where datasets and checkpoints live (``$CAPSEDU_DATA``, else the repository's ``data/``)."""
    if os.environ.get("CAPSEDU_DATA"):
        return Path(os.environ["CAPSEDU_DATA"]).expanduser()
    return _REPO_DATA if _REPO_DATA.is_dir() else Path.cwd() / "data"


def pick(full, quick):
    """Return ``quick`` in quick mode and ``full`` otherwise, e.g. ``epochs = pick(3, 1)``."""
    return quick if QUICK else full


def device() -> torch.device:
    """The GPU when there is one (Colab, Binder with a GPU), else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def report() -> dict[str, str]:
    """What a learner (or an instructor debugging a learner's set-up) needs to know at a glance."""
    import platform

    import ipywidgets
    import matplotlib
    import torchvision

    from .checkpoints import read_manifest
    from .data.mnist import FILES

    raw = data_root() / "MNIST" / "raw"
    found = [f for f in FILES if (raw / f).exists()]
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "ipywidgets": ipywidgets.__version__,
        "matplotlib": matplotlib.__version__,
        "device": str(device())
        + (f" ({torch.cuda.get_device_name()})" if torch.cuda.is_available() else ""),
        "cpu threads": str(torch.get_num_threads()),
        "quick mode": "on (CAPSEDU_QUICK is set)" if QUICK else "off",
        "data root": str(data_root()),
        "MNIST": f"{len(found)}/4 files in {raw}" + ("" if found else " (downloaded on first use)"),
        "checkpoints": ", ".join(sorted(read_manifest())) or "none yet",
    }

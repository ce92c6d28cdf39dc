"""The environment report of notebook 00: what a learner (or an instructor debugging a learner's
set-up) needs to know at a glance."""

import platform

import ipywidgets
import matplotlib
import torch

from .checkpoints import read_manifest
from .config import QUICK, data_root, device
from .data.mnist import FILES


def report() -> dict[str, str]:
    """Versions, device, quick mode, where the data is and which checkpoints are there."""
    raw = data_root() / "MNIST" / "raw"
    found = [f for f in FILES if (raw / f).exists()]
    try:
        shipped = ", ".join(sorted(read_manifest())) or "none yet"
    except ValueError as err:  # a corrupt manifest: report it, the rest of the report still helps
        shipped = str(err)
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "ipywidgets": ipywidgets.__version__,
        "matplotlib": matplotlib.__version__,
        "device": str(device())
        + (f" ({torch.cuda.get_device_name()})" if torch.cuda.is_available() else ""),
        "cpu threads": str(torch.get_num_threads()),
        "quick mode": "on (CAPSEDU_QUICK is set)" if QUICK else "off",
        "data root": str(data_root()),
        "MNIST": f"{len(found)}/4 files in {raw}" + ("" if found else " (downloaded on first use)"),
        "checkpoints": shipped,
    }

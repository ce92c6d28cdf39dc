"""The environment report of notebook 00: what a learner (or an instructor debugging a learner's
set-up) needs to know at a glance."""

import platform
from dataclasses import astuple, dataclass

import ipywidgets
import matplotlib
import torch

from .checkpoints import read_manifest
from .course_settings import QUICK, Text, data_root, device
from .data.mnist import FILES
from .validate import CheckedRecord


@dataclass(frozen=True)
class Environment(CheckedRecord):
    """What notebook 00 prints of the set-up (``report``), each as a line of text."""

    python: Text  # the interpreter's version
    torch: Text  # PyTorch's version
    ipywidgets: Text  # ipywidgets' version
    matplotlib: Text  # matplotlib's version
    device: Text  # where the models run, with the GPU's name when there is one
    cpu_threads: Text  # how many threads PyTorch uses on the CPU
    quick_mode: Text  # whether CAPSEDU_QUICK is set
    data_root: Text  # where the data sets are
    mnist: Text  # how many of MNIST's four files are there, and where
    checkpoints: Text  # the shipped checkpoints by name, or why the manifest could not be read

    def lines(self) -> list[tuple[str, str]]:
        """Each field as (label, value), in order, the label as notebook 00 prints it."""
        return list(zip(LABELS, astuple(self), strict=True))


# the fields of ``Environment`` as notebook 00 prints them, in order
LABELS = ("python", "torch", "ipywidgets", "matplotlib", "device", "cpu threads", "quick mode",
          "data root", "MNIST", "checkpoints")


def report() -> Environment:
    """Versions, device, quick mode, where the data is and which checkpoints are there."""
    raw = data_root() / "MNIST" / "raw"
    found = [f for f in FILES if (raw / f).exists()]
    try:
        shipped = ", ".join(sorted(read_manifest())) or "none yet"
    except ValueError as err:  # a corrupt manifest: report it, the rest of the report still helps
        shipped = str(err)
    return Environment(
        python=platform.python_version(),
        torch=torch.__version__,
        ipywidgets=ipywidgets.__version__,
        matplotlib=matplotlib.__version__,
        device=str(device())
        + (f" ({torch.cuda.get_device_name()})" if torch.cuda.is_available() else ""),
        cpu_threads=str(torch.get_num_threads()),
        quick_mode="on (CAPSEDU_QUICK is set)" if QUICK else "off",
        data_root=str(data_root()),
        mnist=f"{len(found)}/4 files in {raw}" + ("" if found else " (downloaded on first use)"),
        checkpoints=shipped,
    )

"""MNIST through torchvision, from the course's data root, as tensors in memory.

The whole set fits in memory (60,000 x 28 x 28 bytes), so it is loaded once as float tensors
rather than image by image through PIL: that keeps a CPU epoch fast.
"""

from pathlib import Path

import torch

from .. import config

FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)


def load_mnist(
    train: bool = True, limit: int | None = None, root: Path | None = None, download: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(images [N, 1, 28, 28] float32 in [0, 1], labels [N] int64)``.

    Looks in ``<root>/MNIST/raw`` (``root`` defaults to ``capsedu.config.data_root()``) and
    downloads there with torchvision when the files are missing and ``download`` is true.
    ``limit`` keeps the first ``limit`` examples (quick mode).
    """
    from torchvision.datasets import MNIST

    root = Path(root) if root is not None else config.data_root()
    raw = root / "MNIST" / "raw"
    try:
        ds = MNIST(str(root), train=train, download=download and not _present(raw))
    except (RuntimeError, OSError) as err:  # no files, and no internet to fetch them
        raise FileNotFoundError(
            f"MNIST not found in {raw} and could not be downloaded ({err}).\n"
            f"Put these four files (uncompressed IDX) in {raw}: {', '.join(FILES)}; "
            "or set CAPSEDU_DATA to a folder that holds MNIST/raw/."
        ) from err
    images = ds.data[:limit].unsqueeze(1).float().div_(255)  # [N, 1, 28, 28]
    return images, ds.targets[:limit].long()


def _present(raw: Path) -> bool:
    return all((raw / f).exists() for f in FILES)

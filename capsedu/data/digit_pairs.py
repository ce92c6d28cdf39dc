"""MultiMNIST-style pairs of digits (the paper's Section 6), for notebook 08 and the MultiMNIST
recipes: two digits of different classes from the same split, each shifted by up to 4 pixels in
each direction on a 36x36 canvas, overlaid. The paper says "overlaying"; we take the pixel-wise
maximum. A fixed set (``multimnist``, the recipes' test pairs ``multimnist_data``), or new pairs
made out of each training batch of digits (``pair_up``); and how much a pair's two digits overlap
(``box_overlap``).

Every function is deterministic given its ``seed`` (a ``torch.Generator``), takes MNIST tensors
``[N, 1, 28, 28]`` in [0, 1] (``load_mnist``) as ``transformed_mnist`` does, and returns tensors.
"""

import torch

from .. import checks
from ..course_settings import MAX_SIDE, Seed
from ..memory import check_memory
from ..validate import Flag, Int, Tensor, checked
from .mnist import load_mnist
from .transformed_mnist import Digits, Labels, _in_chunks, _ink_box, on_canvas

MULTI_SHIFT = 4  # each digit shifted by up to 4 pixels in each direction
MULTI_CANVAS = 28 + 2 * MULTI_SHIFT  # 36
# the shift: the canvas, 28 + 2 max_shift pixels, is at most MAX_SIDE
MaxShift = Int("pixels each digit moves at most", ge=0, le=(MAX_SIDE - 28) // 2)


@checked
def multimnist(images: Digits,
               labels: Labels, n: Int("pairs to make", ge=1), seed: Seed = 0,
               max_shift: MaxShift = MULTI_SHIFT
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``n`` MultiMNIST-style pairs: two digits of different classes drawn from ``images``
    ``[N, 1, 28, 28]`` / ``labels`` ``[N]``, each shifted by up to ``max_shift`` pixels in each
    direction on a (28 + 2 max_shift)-pixel canvas and overlaid (pixel-wise maximum).

    Returns ``(pairs [n, 1, S, S], labels [n, 2], parts [n, 2, 1, S, S])``: the overlay, the two
    classes (first, second) and each digit alone on the canvas, for the reconstruction targets."""
    checks.check_pair_labels("multimnist", labels, images, "images")
    images, side = images.float(), 28 + 2 * max_shift
    check_memory(n * (3 * 4 * side * side + 2 * 8), f"multimnist(n={n})",  # pair + 2 parts
                 "ask for fewer pairs, or make them in chunks with different seeds")
    g = torch.Generator().manual_seed(seed)
    first = torch.randint(0, len(images), (n,), generator=g)
    return _pairs(images, labels, first, g, max_shift)


@checked
def pair_up(digits: Digits,
            labels: Labels, generator: torch.Generator,
            max_shift: MaxShift = MULTI_SHIFT
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """MultiMNIST pairs made from one batch of digits ``[B, 1, 28, 28]`` / ``labels`` ``[B]``:
    each digit is the first of one pair, its partner a random digit of another class from the
    same batch. Returns ``(pairs, labels [B, 2], parts)`` as ``multimnist`` does.

    The training batches of the MultiMNIST recipes (``capsedu.train``): the batches are reshuffled
    every epoch, so every digit meets new partners at new shifts, epoch after epoch (the paper
    drew 60M pairs; storing even 60k pairs with their parts would take 600 MB)."""
    checks.check_pair_labels("pair_up", labels, digits, "digits")
    return _pairs(digits.float(), labels, torch.arange(len(digits)), generator, max_shift)


def _pairs(images, labels, first, generator, max_shift):
    """The pairs whose first digits are ``images[first]``: partners of another class drawn from
    ``images``, both digits shifted by up to ``max_shift`` pixels, overlaid."""
    n = len(first)
    second = torch.randint(0, len(images), (n,), generator=generator)
    clash = labels[first] == labels[second]
    while clash.any():  # redraw the second digit until the classes differ
        second[clash] = torch.randint(0, len(images), (int(clash.sum()),), generator=generator)
        clash = labels[first] == labels[second]
    side = 28 + 2 * max_shift
    parts = images.new_empty(n, 2, 1, side, side)  # [n, 2, 1, S, S]
    for k, pick in enumerate((first, second)):
        dx, dy = torch.randint(0, 2 * max_shift + 1, (2, n), generator=generator)
        parts[:, k] = _in_chunks(lambda i, x, y: on_canvas(images[i], x, y, side), pick, dx, dy)
    return parts.amax(dim=1), torch.stack([labels[first], labels[second]], dim=1), parts


MULTIMNIST_TEST = dict(n=10_000, seed=1)  # the fixed test pairs of the MultiMNIST recipes


@checked
def multimnist_data(train: Flag("True for the training digits, False for the test pairs") = True,
                    limit: Int("the number of examples to keep", ge=1, le=60_000) | None = None):
    """The data of the MultiMNIST recipes (``capsedu.train``), ``limit`` keeping the first N:

    * training: the MNIST training digits ``(images [N, 1, 28, 28], labels [N])``, which
      ``pair_up`` turns into new pairs in every batch;
    * test: 10,000 pairs of test digits, always the same (``multimnist``, ``MULTIMNIST_TEST``):
      ``(pairs [n, 1, 36, 36], labels [n, 2])``."""
    if train:
        return load_mnist(True, limit)
    pairs, labels, _ = multimnist(*load_mnist(False), **MULTIMNIST_TEST)
    return pairs[:limit], labels[:limit]


@checked
def box_overlap(parts: Tensor("pairs, each digit alone [n, 2, 1, S, S]", ndim=5, pixels=True,
                              sizes={1: 2})) -> torch.Tensor:
    """For pairs ``[n, 2, 1, S, S]`` (each digit alone), the area of the intersection of the two
    ink bounding boxes divided by the area of the smaller box: ``[n]`` in [0, 1]."""
    blank = (parts.flatten(2).amax(-1) <= 0.05).nonzero()  # [pair, digit]: no ink above 0.05
    if len(blank):
        raise ValueError(f"box_overlap(): parts must show ink in every digit (an empty box has no "
                         f"overlap), got none in parts[{blank[0, 0]}, {blank[0, 1]}]; drop the "
                         "blank digits")
    a, b = (_ink_box(parts[:, k]).float() for k in (0, 1))  # [n, 4]: x0, x1, y0, y1

    def area(box):
        return (box[:, 1] - box[:, 0] + 1).clamp(min=0) * (box[:, 3] - box[:, 2] + 1).clamp(min=0)

    inter = torch.stack([torch.maximum(a[:, 0], b[:, 0]), torch.minimum(a[:, 1], b[:, 1]),
                         torch.maximum(a[:, 2], b[:, 2]), torch.minimum(a[:, 3], b[:, 3])], 1)
    return area(inter) / torch.minimum(area(a), area(b)).clamp(min=1)

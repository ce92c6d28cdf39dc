"""What ``loop.fit`` and ``loop.training_batches`` check of their examples and callbacks before an
epoch's work, so that a mistake is refused by the argument's name, not met inside a learner's
function or the model's loss: held-out images of another shape than the training images, a tensor
too many for ``model.training_loss``, an ``augment`` or a ``compose`` of another form
(``AUGMENT``, ``COMPOSE``), an ``augment`` that drops or adds images or leaves [0, 1]
(``check_augmented``), held-out images that are training images (``shared_images``)."""

import hashlib
import inspect
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import TensorDataset

from .checks import PIXEL_ROUNDING, check_input, check_takes
from .course_settings import Name, Trainable
from .refusals import kind_of, with_article
from .validate import Record, Tensor, checked

# examples as fit hands them on: its (images, labels, ...) made a TensorDataset
Dataset = Record(TensorDataset, "TensorDataset(images, labels, ...), as fit makes of a tuple")
# the forms of the callbacks fit and training_batches take, in words for a refusal
AUGMENT, COMPOSE = ("as augment(x, generator) -> x (e.g. random_shift)",
                    "as compose(images, labels, ..., generator) -> (x, *targets) (e.g. pair_up)")


@checked
def check_augmented(where: Name, x: Tensor("the batch augment was given [B, C, H, W]"),
                    out: Any) -> torch.Tensor:
    """``augment``'s images ``out`` of the batch ``x``, refused unless of ``x``'s shape and dtype
    (a dropped image would pair each image after it with another's label) and, where ``x`` holds
    pixels in [0, 1], in [0, 1] too (the model's loss would refuse them, not naming augment)."""
    if not isinstance(out, torch.Tensor) or out.shape != x.shape or out.dtype != x.dtype:
        raise ValueError(f"{where}(): augment must return images of the batch's shape "
                         f"{tuple(x.shape)} and dtype {x.dtype} (one out per image in), got "
                         f"{kind_of(out)}; return every image, in order, of the batch's dtype "
                         "(out.to(x.dtype))")
    if x.numel() and x.dtype.is_floating_point and _pixels(x) and not _pixels(out):
        low, high = torch.stack(torch.aminmax(out.detach())).tolist()
        raise ValueError(f"{where}(): augment must return pixels in [0, 1], as it got them, got "
                         f"values from {low:.4g} to {high:.4g}; keep them in range (e.g. return "
                         "out.clamp(0, 1))")
    return out


def _pixels(x: torch.Tensor) -> bool:
    """Whether ``x`` holds pixels in [0, 1], give or take a float's rounding (``check_pixels``)."""
    low, high = torch.stack(torch.aminmax(x.detach())).tolist()
    return -PIXEL_ROUNDING <= low and high <= 1 + PIXEL_ROUNDING


@checked
def check_targets(where: Name, name: Name, model: torch.nn.Module, data: TensorDataset,
                  scoring: bool = False) -> None:
    """Refuse examples ``data`` (``name``) whose tensors are not the images and targets that
    ``model.training_loss`` takes (``scoring``: some of them, the images and labels at least; a
    model without a loss reads those two alone): an extra one would fail inside, or be dropped
    without a word."""
    loss = getattr(model, "training_loss", lambda x, y: None)
    takes = inspect.signature(loss)
    try:
        takes.bind_partial(*data.tensors) if scoring else takes.bind(*data.tensors)
    except TypeError:
        raise ValueError(f"{where}(): {name} must hold the images and targets "
                         f"{type(model).__name__}.training_loss({', '.join(takes.parameters)}) "
                         f"takes, got {len(data.tensors)} tensors; drop the extra ones") from None


def shared_images(a: torch.Tensor, b: torch.Tensor) -> int:
    """How many of images ``a`` are also images of ``b``, pixel for pixel: each image's bytes
    hashed (``blake2b``), the two sets of hashes intersected (compared only where the images'
    shapes and dtypes agree, so a held-out set of another kind costs nothing; 60,000 MNIST
    digits take well under a second)."""
    if a is b:
        return len(a)
    if a.shape[1:] != b.shape[1:] or a.dtype != b.dtype:
        return 0

    def hashes(images):
        rows = images.detach().cpu().contiguous().reshape(len(images), -1).numpy()
        return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in rows]

    trained = set(hashes(b))
    return sum(h in trained for h in hashes(a))


@checked
def check_batches(where: Name, model: Trainable, train: Dataset,
                  validation: Dataset | None, compose: Callable | None,
                  augment: Callable | None) -> None:
    """Before an epoch's work: ``validation``'s images none of ``train``'s (``shared_images``: held
    out, they are images not trained on); the callbacks of their forms (``augment`` tried on 8
    images); with no ``compose``, ``validation``'s images of ``train``'s shape and ``train`` the
    tensors that ``model.training_loss`` takes; with ``validation``, a model its ``.predict``
    scores on them (``keep_best``), refused now, not after an epoch."""
    if validation is not None and not callable(getattr(model, "predict", None)):
        raise TypeError(f"{where}(): model must be a classifier (with .predict(x)) to be scored on "
                        f"validation, got {with_article(type(model).__name__)}, which has no "
                        ".predict(); pass validation=None, or give it a predict(x)")
    x = train.tensors[0]
    shared = 0 if validation is None else shared_images(validation.tensors[0], x)
    if shared:
        held = len(validation.tensors[0])
        got = (f"train's own {len(x)} images" if shared == held == len(x) else
               f"{shared} of its {held} images among train's")
        raise ValueError(f"{where}(): validation must be held-out examples, images not trained "
                         f"on, got {got}: its accuracy would be the training accuracy, and the "
                         "epoch chosen on it; hold some out (e.g. train=(x[:-n], y[:-n]), "
                         "validation=(x[-n:], y[-n:])), or pass validation=None")
    if augment is not None:
        check_takes(augment, f"{where}(): augment", 2, AUGMENT)
    if compose is not None:  # it makes the examples (MultiMNIST's pairs), and so their shape
        return check_takes(compose, f"{where}(): compose", len(train.tensors) + 1, COMPOSE)
    if validation is not None and validation.tensors[0].shape[1:] != x.shape[1:]:
        raise ValueError(f"{where}(): validation's images must be of train's shape "
                         f"{list(x.shape[1:])}, got {list(validation.tensors[0].shape[1:])}; "
                         "hold out images of the training set's kind")
    check_input(x, f"{where}(): train's images", model)  # not met in training_loss's words
    check_targets(where, "train", model, train)
    if augment is not None:
        check_augmented(where, x[:8], augment(x[:8], torch.Generator()))

"""What ``loop.fit`` and ``loop.training_batches`` check of their examples and callbacks before an
epoch's work, so that a mistake is refused by the argument's name, not met inside a learner's
function or the model's loss: held-out images of another shape than the training images, a tensor
too many for ``model.training_loss``, an ``augment`` or a ``compose`` of another form
(``AUGMENT``, ``COMPOSE``), an ``augment`` that drops or adds images (``check_augmented``)."""

import inspect

import torch
from torch import nn
from torch.utils.data import TensorDataset

from .checks import check_takes
from .refusals import kind_of

# the forms of the callbacks fit and training_batches take, in words for a refusal
AUGMENT, COMPOSE = ("as augment(x, generator) -> x (e.g. random_shift)",
                    "as compose(images, labels, ..., generator) -> (x, *targets) (e.g. pair_up)")


def check_augmented(where: str, x: torch.Tensor, out) -> torch.Tensor:
    """``augment``'s images ``out`` of the batch ``x``, refused unless of ``x``'s shape (a dropped
    image would pair each image after it with another's label)."""
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        raise ValueError(f"{where}(): augment must return images of the batch's shape "
                         f"{tuple(x.shape)} (one out per image in), got {kind_of(out)}; return "
                         "every image, in order")
    return out


def check_batches(where: str, model: nn.Module, train: TensorDataset,
                  validation: TensorDataset | None, compose, augment) -> None:
    """Before an epoch's work: the callbacks of their forms (``augment`` tried on 8 images); with
    no ``compose``, ``validation``'s images of ``train``'s shape and ``train`` the tensors that
    ``model.training_loss`` takes."""
    x = train.tensors[0]
    if augment is not None:
        check_takes(augment, f"{where}(): augment", 2, AUGMENT)
    if compose is not None:  # it makes the examples (MultiMNIST's pairs), and so their shape
        return check_takes(compose, f"{where}(): compose", len(train.tensors) + 1, COMPOSE)
    if validation is not None and validation.tensors[0].shape[1:] != x.shape[1:]:
        raise ValueError(f"{where}(): validation's images must be of train's shape "
                         f"{list(x.shape[1:])}, got {list(validation.tensors[0].shape[1:])}; "
                         "hold out images of the training set's kind")
    takes = inspect.signature(model.training_loss)
    try:
        takes.bind(*train.tensors)
    except TypeError:
        raise ValueError(f"{where}(): train must hold the images and targets {type(model).__name__}"
                         f".training_loss({', '.join(takes.parameters)}) takes, got "
                         f"{len(train.tensors)} tensors; drop the extra ones") from None
    if augment is not None:
        check_augmented(where, x[:8], augment(x[:8], torch.Generator()))

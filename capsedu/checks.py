"""The checks a boundary runs on tensors, arrays and data (``validate``'s declarations use them, and
so do entries whose tensors depend on each other): shapes, finite numbers, dtypes, class labels,
pixels, examples. Each raises a ``TypeError`` (the wrong kind) or a ``ValueError`` (out of range)
that names what it checked and says what to do."""

import dataclasses
import difflib
import inspect
import itertools
import math
import warnings

import numpy as np
import torch
from torch.utils.data import TensorDataset

from .refusals import is_number, shown, unmasked, with_article


def check_shape(x: torch.Tensor, name: str, expected: str, ndim: int,
                sizes: tuple[int, ...] | None = None) -> None:
    """Raise ``ValueError`` unless ``x`` is a tensor with ``ndim`` dimensions and, if ``sizes``
    are given, those sizes after the first (batch) dimension."""
    if not isinstance(ndim, int) or ndim < 0:  # the caller's mistake, not the tensor's
        raise ValueError(f"check_shape(): ndim must be an int >= 0 ({name}'s dimensions), got "
                         f"{ndim!r}; pass e.g. ndim=4 for images [N, C, H, W]")
    check_tensor(x, name, f" {expected}")
    if x.ndim != ndim or (sizes is not None and tuple(x.shape[1:]) != tuple(sizes)):
        one = (f"one example is {name.split()[-1]}[None]" if x.ndim == ndim - 1 else
               "pass a tensor of that shape")
        raise ValueError(f"{name} must have shape {expected}, got shape {tuple(x.shape)}; {one}")


def check_tensor(x, name: str, of: str = "") -> None:
    """Raise ``TypeError`` unless ``x`` is a torch tensor (``of``: of what) for the checks here."""
    if not isinstance(unmasked(x, name), torch.Tensor):  # a mask, as_tensor would drop: refused
        raise TypeError(f"{name} must be a torch.Tensor{of}, got "
                        f"{with_article(type(x).__name__)}, {x!r:.40}; convert it with "
                        f"torch.as_tensor({name.split()[-1]})")


def check_data(x: torch.Tensor, name: str) -> None:
    """Raise unless ``x`` is a tensor (``check_tensor``) holding its values densely: one on ``meta``
    has a shape and a dtype but no values, a sparse one only some (torch fails deep inside)."""
    check_tensor(x, name)
    if x.is_meta:
        raise ValueError(f"{name} must hold data (a tensor on cpu or cuda), got a tensor on meta "
                         "(a shape without values); make it on a real device, e.g. "
                         "torch.rand(..., device='cpu')")
    if x.layout != torch.strided:
        raise TypeError(f"{name} must be a dense tensor, got a {x.layout} one; pass "
                        f"{name.split()[-1]}.to_dense()")


def check_finite(x: torch.Tensor | np.ndarray, name: str) -> None:
    """Raise ``ValueError`` if ``x`` (a tensor, or an array) holds NaN or infinity, or no data
    (``check_data``). One cheap sum screens it at every forward; a suspicious one is counted."""
    x = torch.from_numpy(unmasked(x, name)) if isinstance(x, np.ndarray) else x
    check_data(x, name)
    with torch.no_grad():
        if torch.isfinite(x.sum()):
            return
        bad = (~torch.isfinite(x)).sum().item()
    if bad:  # else the finite values merely added up past the float range
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); expected finite "
                         "numbers. Find where they first appear upstream (a division by 0, a log "
                         "of 0, a diverging training run).")


def check_float(x: torch.Tensor, name: str) -> None:
    """Raise ``TypeError`` unless ``x`` holds floating-point numbers (capsule maths needs them)."""
    check_tensor(x, name)
    if not x.dtype.is_floating_point:
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {x.dtype}; convert it "
                        f"first, e.g. {name}.float()")


def check_model_dtype(x: torch.Tensor, name: str, dtype: torch.dtype) -> None:
    """Raise ``TypeError`` unless the images ``x`` have the dtype of the model's weights. Not
    converted silently: uint8 pixels (0-255) need scaling too; float64 is often NumPy's default."""
    if x.dtype == dtype:
        return
    short = name.split()[-1]  # "fit(): train's images": images.to(...)
    fix = (f"{short}.to({dtype}), or convert the model: model.to({x.dtype})"
           if x.dtype.is_floating_point else f"{short}.to({dtype}) / 255 if it holds 0-255 pixels")
    raise TypeError(f"{name} must have the model's dtype {dtype}, got {x.dtype}; use {fix}")


def check_weights_dtype(x, name: str, model: torch.nn.Module) -> None:
    """``check_model_dtype`` against the dtype of ``model``'s weights: images a model cannot read
    are refused where they were given (``fit``'s), before any training."""
    weights = next((p for p in model.parameters() if p.is_floating_point()), None)
    if weights is not None:
        check_model_dtype(x, name, weights.dtype)


def input_shape(model: torch.nn.Module) -> tuple[int, int, int] | None:
    """The one image shape ``(C, H, W)`` a model of the course reads, if made for one size (its
    ``hparams`` hold ``image_size``); None for one that reads any (a fully convolutional one)."""
    if not isinstance(model, torch.nn.Module):  # a name or a state dict would read as "any size"
        raise TypeError(f"input_shape(): model must be a torch.nn.Module, got {model!r:.60}; pass "
                        "the model itself, e.g. CapsNet(), not its name or its state_dict()")
    side = getattr(model, "hparams", {}).get("image_size")
    return None if side is None else (model.hparams.get("in_channels", 1), side, side)


def check_input(x, name: str, model: torch.nn.Module, some: bool = False) -> None:
    """Raise unless images ``x`` are ``[N, C, H, W]`` of the shape ``model`` reads in its weights'
    dtype (``some``: at least one): every model's input check, by the caller's argument's name."""
    if not isinstance(some, bool):  # strict, as every flag: the string 'no' would be true
        raise TypeError(f"check_input(): some must be True or False, got {some!r}; pass a bool")
    shape = input_shape(model)
    channels = getattr(model, "hparams", {}).get("in_channels")  # a model of any size says these
    if shape is None and channels is None:  # a model that does not say what it reads
        return
    check_shape(x, name, f"[N, {', '.join(map(str, shape))}]" if shape else "[N, C, H, W]", 4)
    if some and not len(x):
        raise ValueError(f"{name} must hold at least one image, got {tuple(x.shape)}; pass some")
    check_weights_dtype(x, name, model)
    if shape is None and channels not in (None, x.shape[1]):
        raise ValueError(f"{name} must have {channels} channel(s) for {type(model).__name__}, got "
                         f"shape {tuple(x.shape)}; pass images of {channels} channel(s) [N, "
                         f"{channels}, H, W], or a model made for yours")
    if shape is None or tuple(x.shape[1:]) == shape:
        return
    c, h, w = shape
    raise ValueError(f"{name} must have shape [N, {c}, {h}, {w}] for {type(model).__name__}, which "
                     f"reads {h}x{w} images of {c} channel(s), got shape {tuple(x.shape)}; pass "
                     "images of that size, or a model made for yours")


def check_read_labels(labels: torch.Tensor, name: str, images: torch.Tensor,
                      model: torch.nn.Module) -> None:
    """Refuse ``labels`` unless one per image (``[N]``, or ``[N, k]``), of ``model``'s classes."""
    n_classes = getattr(model, "hparams", {}).get("n_classes")
    if n_classes is not None:
        check_labels(labels, name, len(images), n_classes,
                     k=labels.shape[1] if labels.ndim == 2 else None)
    elif len(labels) != len(images) or labels.is_floating_point() or labels.dtype == torch.bool \
            or len(labels) and labels.min() < 0:
        raise ValueError(f"{name} must hold one non-negative integer class per image "
                         f"({len(images)}), got {len(labels)} of {labels.dtype}; pass the "
                         "labels of these images, labels.long()")


def check_whole(where: str, **classes: torch.Tensor) -> None:
    """Refuse classes (``name=tensor``) that are not integers: a model's scores (floats) read as
    classes compare unequal to every label without a word."""
    for name, t in classes.items():
        check_tensor(t, f"{where}(): {name}", " of classes")
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
            raise TypeError(f"{where}(): {name} must hold integer classes, got dtype {t.dtype}; "
                            f"pass scores.argmax(1) (the class of each row's highest score), or "
                            f"{name}.long() for classes held as floats")


def check_side(where: str, side: int, fix: str, **models: torch.nn.Module) -> None:
    """Refuse a model made for another image size than the ``side`` x ``side`` images it is
    shown (``input_shape``), by the caller's name for it, before it reads; ``fix`` says what to
    do, with ``{reads}`` standing for the side the model reads."""
    if isinstance(side, bool) or not isinstance(side, int | np.integer) or side < 1:
        raise ValueError(f"{where}(): side must be a whole number of pixels >= 1, got {side!r}; "
                         "pass the canvas's side, e.g. 28")
    for name, model in models.items():
        shape = input_shape(model)
        if shape is not None and shape[1:] != (side, side):
            raise ValueError(f"{where}(): {name} must read the {side}x{side} images it is shown, "
                             f"got a {type(model).__name__} of {shape[1]}x{shape[2]} images; "
                             + fix.format(reads=shape[1]))


def check_labels(targets: torch.Tensor, name: str, batch: int, n_classes: int,
                 k: int | None = None) -> None:
    """Raise unless ``targets`` holds integer class labels in [0, n_classes - 1]: one per example,
    ``[batch]`` (``k`` None), or ``k`` different classes per example, ``[batch, k]`` (a pair's)."""
    if not isinstance(n_classes, int) or isinstance(n_classes, bool) or n_classes < 1:
        raise ValueError(f"check_labels(): n_classes must be a count of classes, at least 1, got "
                         f"{n_classes!r}; pass the model's number of classes")
    shape = (batch,) if k is None else (batch, k)
    expected = (f"integer class labels of shape [batch] = [{batch}]" if k is None else
                f"integer class labels of shape [batch, {k}] = [{batch}, {k}] ({k} different "
                "classes per example)")
    check_tensor(targets, name, f" of {expected}")
    if k == n_classes > 2 and not targets.dtype.is_complex and bool(  # rows of 0s and 1s (any
            ((targets == 0) | (targets == 1)).all() and (targets.sum(-1) >= 1).all()):  # dtype)
        # are one-hot (k-hot) rows, never n_classes different labels: .long() would keep them
        var, hot = name.split()[-1], int(targets.sum(-1).max())  # the most classes in a row
        raise TypeError(f"{name} must be integer class labels, [batch] = [{batch}], got "
                        f"{'one' if hot == 1 else 'k'}-hot rows of shape {tuple(targets.shape)},"
                        f" dtype {targets.dtype}; pass " + (f"{var}.argmax(1), the class of each "
                        f"row" if hot == 1 else f"{var}.topk({hot}, dim=1).indices, the {hot} "
                        f"classes of each row, to a model that reads {hot} per example"))
    if tuple(targets.shape) != shape:
        fix = (f"scores or one-hot rows give their classes by {name.split()[-1]}.argmax(1)"
               if k is None and targets.ndim == 2 and len(targets) == batch else
               f"pass one {'label' if k is None else f'row of {k} classes'} per example ({batch})")
        raise ValueError(f"{name} must be {expected}, got shape {tuple(targets.shape)}; {fix}")
    if targets.dtype.is_floating_point or targets.dtype.is_complex or targets.dtype == torch.bool:
        raise TypeError(f"{name} must be {expected}, got dtype {targets.dtype}; "
                        f"convert it with {name.split()[-1]}.long()")
    outside = (targets < 0) | (targets >= n_classes)
    if outside.any():
        first = outside.nonzero()[0]  # the index of the first label outside: (i,) or (i, j)
        raise ValueError(f"{name} must lie in [0, {n_classes - 1}] (one label per class), got "
                         f"{targets[tuple(first)].item()} at index "
                         f"{', '.join(map(str, first.tolist()))} ({outside.sum().item()} of "
                         f"{targets.numel()} outside); pass the classes' labels")
    if k is not None:
        repeats = (targets.sort(dim=1).values.diff(dim=1) == 0).any(dim=1)  # [batch]
        if repeats.any():
            row = repeats.nonzero()[0, 0].item()
            raise ValueError(f"{name} must list {k} different classes per example, got "
                             f"{targets[row].tolist()} at row {row} ({repeats.sum().item()} of "
                             f"{batch} rows repeat a class); give each example's classes once, "
                             "e.g. pairs of digits of two different classes")


# how far past [0, 1] a pixel may stray: a float's rounding, no more, so that 0-255 pixels not
# divided, normalised ones (MNIST's give -0.42 to 2.8) and noise past black or white are refused
PIXEL_ROUNDING = 1e-6


def check_pixels(x: torch.Tensor, name: str) -> None:
    """Raise unless the images ``x`` hold finite floating-point pixels in [0, 1]. One rule
    everywhere: uint8 pixels (0-255) and float ones outside [0, 1] are refused, never rescaled
    silently; the message gives the conversion (``name``'s last word: "fit(): train's images")."""
    var = name.split()[-1]
    check_tensor(x, name, " of pixels in [0, 1]")
    if not x.dtype.is_floating_point:
        raise TypeError(f"{name} must hold floating-point pixels in [0, 1], got dtype {x.dtype}; "
                        f"use {var}.float() / 255 if it holds 0-255 pixels")
    check_data(x, name)
    if x.numel():  # 0-255 pixels made float but not divided, or normalised ones, read as others
        # one pass and one read-back (it runs at every forward); a NaN or an infinity shows in them
        low, high = torch.stack(torch.aminmax(x.detach())).tolist()
        if not math.isfinite(low) or not math.isfinite(high):
            check_finite(x, name)  # counts them, says where to look
        if low < -PIXEL_ROUNDING or high > 1 + PIXEL_ROUNDING:
            fix = (f"divide 0-255 pixels by 255 ({var} / 255)" if high > 2 else
                   f"undo the normalisation, or clamp them ({var}.clamp(0, 1))")
            raise ValueError(f"{name} must hold pixels in [0, 1], got values from {low:.7g} to "
                             f"{high:.7g}; {fix}")


def as_tensor(value, name: str, expected: str, fix: str) -> torch.Tensor:
    """``value`` as a tensor: a tensor as it is; a NumPy array (sharing its memory) or nested lists
    in their own dtype; else (text, a ragged list) a ``TypeError``: ``name``, ``expected``."""
    if isinstance(value, torch.Tensor):
        return value
    unmasked(value, name)
    try:
        return torch.as_tensor(np.asarray(value))
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{name} must be {expected}, got {shown(value)}; {fix}") from None


def check_examples(data, name: str) -> TensorDataset:
    """Raise unless ``data`` is ``(images, labels, ...)`` (or a TensorDataset): tensors or arrays of
    one row per example, at least one, pixels in [0, 1]. Hands back their TensorDataset."""
    if isinstance(data, TensorDataset):
        data = data.tensors
    if not isinstance(data, (tuple, list)) or len(data) < 2:
        got = with_article(type(data).__name__) + (
            f" of {len(data)}" if isinstance(data, (tuple, list)) else "")
        raise TypeError(f"{name} must be a tuple (images, labels, ...) with one row per example "
                        f"in each, got {got}; pass e.g. {name}=(images, labels)")
    try:
        rows = [len(t) for t in data]
    except TypeError as err:  # a number, or a 0-d tensor
        raise TypeError(f"{name} must hold tensors with one row per example, got "
                        f"{[type(t).__name__ for t in data]}: {err}") from err
    if len(set(rows)) > 1:
        raise ValueError(f"{name} must hold as many rows in each of its tensors (one per example), "
                         f"got {rows}; pair every image with its labels, one each ({rows[0]})")
    if rows[0] == 0:
        shapes = ", ".join(str(tuple(getattr(t, "shape", ()))) for t in data)
        raise ValueError(f"{name} holds no examples (shapes {shapes}); pass at least one: check "
                         "what made it (a limit of 0, a filter that kept nothing)")
    tensors = [as_tensor(t, name, "a tuple of tensors or NumPy arrays of numbers", f"pass e.g. "
                         f"{name}=(images, labels), each a tensor") for t in data]
    check_pixels(tensors[0], f"{name}'s images")
    return TensorDataset(*tensors)


def check_images(images, name: str) -> torch.Tensor:
    """Raise unless ``images`` are ``[N, C, H, W]`` for a model to score (a tensor, an array or
    lists), at least one, pixels in [0, 1]. Hands them back as float32, the models' dtype."""
    images = as_tensor(images, name, "a tensor [N, C, H, W] (or a NumPy array)",
                       "convert it with torch.as_tensor(...)")
    if not 2 <= images.ndim <= 4:
        fix = ("one image [C, H, W] is images[None]" if images.ndim < 2 else "a list of batches "
               "is one batch by torch.cat(batches)")
        raise ValueError(f"{name} must have shape [N, C, H, W], got {tuple(images.shape)}; {fix}")
    if len(images) == 0:
        raise ValueError(f"{name} must hold at least one example, got shape "
                         f"{tuple(images.shape)}; pass at least one")
    check_pixels(images, name)
    return images.float()


def check_whole_pixels(offset: torch.Tensor, name: str) -> None:
    """Refuse pixel offsets that are not finite whole numbers: images move without resampling."""
    check_tensor(offset, name, " of pixel offsets")
    if offset.dtype.is_floating_point:
        check_finite(offset, name)
        if not torch.equal(offset, offset.round()):
            raise TypeError(f"{name} must hold whole pixel offsets (it moves without "
                            f"resampling), got {offset.tolist()[:5]}; round them (.round())")


def check_offsets(where: str, **offsets: tuple[torch.Tensor, int]) -> None:
    """Refuse pixel offsets (``name=(offsets, room)``) that move an image past the ``room`` its
    canvas leaves (0 .. room): it would be cut, or lost, without a word."""
    for name, pair in offsets.items():
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], int)):
            raise TypeError(f"{where}(): {name} must be a pair (offsets, room): a tensor of pixel "
                            f"offsets and the room its canvas leaves, got {pair!r:.40}; pass "
                            f"{name}=(offsets, room)")
        offset, room = pair
        check_tensor(offset, f"{where}(): {name}", " of pixel offsets")
        if len(offset) and (offset.min() < 0 or offset.max() > room):
            raise ValueError(f"{where}(): {name} must lie in 0 .. {room} (the canvas's side less "
                             f"the image's) so that every image stays on the canvas, got "
                             f"{offset.min().item():g} .. {offset.max().item():g}; draw offsets "
                             "in that range")


def check_nonzero(where: str, **scales) -> None:
    """Refuse a scale of 0 or NaN (a number or a tensor of them): 0 squashes an image to a line,
    NaN makes every pixel NaN."""
    for name, scale in scales.items():
        scale = as_tensor(scale, f"{where}(): {name}", "a number or a tensor of numbers",
                          "pass a scale such as 1.0")
        if (bad := int((scale == 0).sum() + scale.isnan().sum())):
            got = f"{name}={scale.item()}" if scale.ndim == 0 else f"{bad} in {shown(scale)}"
            raise ValueError(f"{where}(): {name} must be non-zero and not NaN (a scale of 0 "
                             "squashes the image to a line, a map that cannot be undone; NaN "
                             f"makes every pixel NaN), got {got}; pass a scale such as 1.0")


def check_same(where: str, what: str, fix: str, **sizes: int) -> None:
    """Refuse sizes (``name=size``: one map per image) that do not match the first, in ``what``."""
    (first, n), *rest = sizes.items() or [(None, None)]
    for name, m in rest:
        if m != n:
            raise ValueError(f"{where}(): {name} must match {first} in {what} ({first}: {n}, "
                             f"{name}: {m}); {fix}")


def check_different(where: str, fix: str, **values) -> None:
    """Refuse two arguments (``name=value``) that must differ but are equal, or both NaN."""
    (a, x), (b, y) = values.items()
    if x == y or (x != x and y != y):
        raise ValueError(f"{where}(): {a} and {b} must differ (two things to compare), got "
                         f"{x!r} for both; {fix}")


def check_rows(where: str, rows: torch.Tensor | None, n: int) -> torch.Tensor:
    """``rows`` (declared ``Rows``: indices of images of a set of ``n``; None: all of them) as a
    tensor of indices, refused by name past the set's end (an IndexError deep in torch else)."""
    if rows is None:
        return torch.arange(n)
    check_tensor(rows, f"{where}(): rows", " of image indices")
    if rows.dtype.is_floating_point or rows.dtype.is_complex or rows.dtype == torch.bool:
        raise TypeError(f"{where}(): rows must hold integer image indices, got dtype "
                        f"{rows.dtype}; pass whole indices, rows.long()")
    if len(rows) and (int(rows.min()) < 0 or int(rows.max()) >= n):
        raise ValueError(f"{where}(): rows must index the {n:,} images of the set (0 .. {n - 1}), "
                         f"got {int(rows.min())} .. {int(rows.max())}; pass rows of the set, "
                         "e.g. mnist.fixed_sample(n)")
    return rows


def check_numbers(where: str, fix: str, **values) -> None:
    """Refuse values (``name=value``) that are not finite numbers: text, a flag, a NaN."""
    for name, value in values.items():
        number = is_number(value)
        if not (number and math.isfinite(value)):
            raise (ValueError if number else TypeError)(
                f"{where}(): {name} must be a finite number, got {shown(value)}; {fix}")


def check_order(where: str, fix: str, **values: float) -> None:
    """Refuse a record's fields that must be in the order given but are not (``name=value``: low
    <= value <= high, the epoch kept at most the epochs run), naming them all; each a finite
    number (a NaN compares False, so it is in every order; text compares as text)."""
    check_numbers(where, fix, **values)
    if any(a > b for a, b in itertools.pairwise(values.values())):
        got = ", ".join(f"{name}={value!r}" for name, value in values.items())
        raise ValueError(f"{where}(): {', '.join(values)} must be in order "
                         f"({' <= '.join(values)}), got {got}; {fix}")


def check_square(where: str, name: str, images: torch.Tensor) -> None:
    """Refuse images ``[N, C, H, W]`` not square where a transform works on a square canvas."""
    check_tensor(images, f"{where}(): {name}")
    if images.shape[-1] != images.shape[-2]:
        raise ValueError(f"{where}(): {name} must be square images [N, 1, S, S] (as wide as they "
                         f"are high), got shape {tuple(images.shape)}; pad or crop them to a "
                         "square first")


def check_pair_labels(where: str, labels: torch.Tensor, images: torch.Tensor, name: str) -> None:
    """Refuse MultiMNIST's labels unless there is one per image (``images``, the caller's
    ``name`` for them), of at least two classes (a pair overlays digits of different classes)."""
    check_same(where, "length (one label per image)", f"pass one label per image of {name}",
               **{name: len(images), "labels": len(labels)})
    if len(torch.unique(labels)) < 2:
        raise ValueError(f"{where}(): labels must hold digits of at least two classes (a pair's "
                         f"two digits differ), got only {torch.unique(labels).tolist()}; pass "
                         "more digits")


SCALES_APART = 30  # how far apart means of fractions and numbers > 1 read as two scales


def two_scales(small: np.ndarray, large: np.ndarray) -> float | None:
    """How many times apart the means of ``small`` (all in [0, 1]: fractions of 1?) and ``large``
    (all in (1, 100]: in %?) are when at least ``SCALES_APART``; else, or either empty, None."""
    small, large = np.asarray(small, dtype=float), np.asarray(large, dtype=float)
    apart = large.mean() / max(small.mean(), 1e-12) if small.size and large.size else 0
    return apart if apart >= SCALES_APART and 0 <= small.min() and small.max() <= 1 < large.min() \
        and large.max() <= 100 else None


def warn_two_scales(where: str, **numbers: np.ndarray) -> None:
    """Warn when numbers compared (``name=values``, or one list's values in (0, 1] and above 1)
    look like fractions of 1 against % (``two_scales``); not a refusal: it may be a real gap."""
    seen = {name: np.asarray(x, dtype=float).ravel() for name, x in numbers.items()}
    if len(seen) == 1:  # one list, perhaps seeds scored two ways (a zero is 0 on both scales)
        (name, x), = seen.items()
        seen = {f"{name} <= 1": x[(x > 0) & (x <= 1)], f"{name} > 1": x[x > 1]}
    for (a, x), (b, y) in itertools.combinations([(n, v) for n, v in seen.items() if v.size], 2):
        (f, small), (p, large) = sorted([(a, x), (b, y)], key=lambda item: item[1].mean())
        if (apart := two_scales(small, large)) is not None:
            warnings.warn(f"{where}(): {a} and {b} may be on two scales: {f} from "
                          f"{small.min():g} to {small.max():g} (fractions of 1?) and {p} from "
                          f"{large.min():g} to {large.max():g} (in %?), {apart:.0f} times apart. "
                          "If so, multiply the fractions by 100, or divide the % by 100; if this "
                          "is a real gap, the result stands", UserWarning, stacklevel=3)


def check_one_each(where: str, name: str, items, n: int, each: str) -> None:
    """Refuse ``items`` (labels, names, bar heights) unless there is one per ``each`` of ``n``: one
    too few would leave a row unnamed, or name every row after it wrongly."""
    if isinstance(items, str | bytes) or not hasattr(items, "__len__"):  # 'abc': three letters
        raise TypeError(f"{where}(): {name} must be a list of one item per {each} ({n}), got "
                        f"{shown(items)}; pass a list of {n}, in order")
    if len(items) != n:
        raise ValueError(f"{where}(): {name} must hold one item per {each} ({n}), got "
                         f"{len(items)}; pass {n} of them, in order")


def check_on_canvas(where: str, A: torch.Tensor, side: int, **shifts: float) -> None:
    """Refuse a shift (``tx``, ``ty``: pixels from the centre) that moves a digit's ink (its 28 x
    28 frame's centre 20 x 20), under its maps ``A`` ``[N, 2, 2]``, off the ``side`` canvas."""
    check_shape(A, f"{where}(): A", "[N, 2, 2] (one linear map per digit)", 3, (2, 2))
    if len(shifts) != 2:  # the caller's mistake: x, then y
        raise TypeError(f"check_on_canvas(): shifts must be two, x then y, got {list(shifts)}")
    check_numbers(where, "pass a shift in pixels, e.g. 5.0", **shifts)
    reach = side / 2 + 10 * A.abs().sum(-1).amax(0)  # [x, y]: the digit's centre may go this far
    for (name, shift), most in zip(shifts.items(), reach.tolist(), strict=True):
        if abs(shift) >= most:
            raise ValueError(f"{where}(): {name} must move the digit less than {most:.0f} pixels "
                             f"from the centre of the {side}-pixel canvas (further, it leaves the "
                             f"canvas: a blank image), got {shift!r}; pass a smaller shift, or a "
                             "larger side")


def replaced(where: str, record, **changes):
    """``dataclasses.replace(record, **changes)``, refusing by name a change of a field the
    record does not have, with the nearest field it has (a typo's likely meaning)."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        raise TypeError(f"{where}(): the record to change must be a record (a dataclass "
                        f"instance), got {shown(record)}; pass one, e.g. {where}'s config")
    fields = [f.name for f in dataclasses.fields(record) if f.init]
    for name in changes:
        if name not in fields:
            close = difflib.get_close_matches(name, fields, n=1)
            hint = f"did you mean {close[0]}? Its" if close else "its"
            raise TypeError(f"{where}(): {name} is not a field of {type(record).__name__}; "
                            f"{hint} fields: {', '.join(fields)}")
    return dataclasses.replace(record, **changes)


def check_takes(fn, name: str, n: int, form: str) -> None:
    """Refuse ``fn`` (``name``) unless it takes ``n`` arguments, ``form``, before a call fails."""
    try:
        signature = inspect.signature(fn)
    except ValueError:  # a built-in without a signature to read: it is called as it is
        return
    except TypeError:  # no function at all
        raise TypeError(f"{name} must be a function of the form {form}, got {shown(fn)}; pass one "
                        "such") from None
    try:
        signature.bind(*range(n))
    except TypeError:
        raise TypeError(f"{name} must take {n} argument{'s' * (n != 1)}, {form}, got "
                        f"{getattr(fn, '__name__', fn)!r}, whose parameters are {signature}; "
                        "pass a function of that form") from None

"""Reading and editing a trained CapsNet's digit capsules: what their 16 dimensions encode (06).

A trained CapsNet's decoder turns one digit capsule v_j (16 numbers) into an image. Editing v_j
and decoding it again shows what each dimension stands for: the paper's Fig. 4 adds
Delta in [-0.25, 0.25], step 0.05, to one dimension at a time (Sabour, Frosst & Hinton 2017,
Section 5.1). The functions here are pure: a model and tensors in, tensors out.
"""

from dataclasses import dataclass, fields
from typing import Annotated

import numpy as np
import torch

from . import course_settings
from .capsnet import CapsNet, CapsNetConfig
from .checks import check_labels, check_same
from .course_settings import MAX_WIDTH, Images
from .derived import check_derived, check_read
from .memory import check_memory
from .routing import Routed
from .validate import (
    Array,
    CheckedRecord,
    Float,
    Int,
    Numbers,
    Record,
    Some,
    Tensor,
    check_class,
    check_value,
    checked,
)

# Fig. 4: "tweaked by intervals of 0.05 in the range [-0.25, 0.25]": 11 values, 0 in the middle
MAX_DELTA = 0.25
DELTAS = 0.05 * torch.arange(-5, 6)  # [11]: -0.25, -0.20, ..., 0, ..., +0.25
MAX_DIGITS = 60_000  # digits of one class to study: MNIST's training split holds fewer

Capsules = Tensor("digit capsules [n_classes, digit_dim]", ndim=2, floating=True,
                  finite=True)
Label = Int("a class: the capsule to edit", ge=0, le=MAX_WIDTH)  # CapsNetConfig's classes
Class = Int("a class", ge=0, le=MAX_WIDTH)
Deltas = Numbers("the Deltas to add, in Fig. 4's range: the decoder never saw capsules moved "
                 "farther [n]", ndim=1, at_least=1, ge=-MAX_DELTA, le=MAX_DELTA, tensor=True,
                 fix="pass e.g. torch.linspace(-0.25, 0.25, 11)")


@checked(reads=("model", "images"))
@torch.no_grad()
def encode(model: CapsNet, images: Images):
    """Run the CapsNet on ``images`` ``[B, 1, 28, 28]`` (any size its config reads), without
    gradients; return its ``CapsNetOutput`` (v ``[B, 10, 16]``, lengths ``[B, 10]``, routing with
    the couplings of every iteration)."""
    return model(images)


@checked
def perturb(v: Capsules, label: Label, deltas: Deltas) -> torch.Tensor:
    """A copy of the digit capsules ``v`` ``[10, 16]`` with ``deltas`` ``[16]`` added to capsule
    ``label`` (the true class's): v_label + Delta. The other capsules are left as they are."""
    _check_label(v, label, "perturb")
    if len(deltas) == v.shape[0] != v.shape[1]:  # one delta per row of v: v [16, 10]?
        raise ValueError(f"perturb(): v must be digit capsules [n_classes, digit_dim], one row "
                         f"per class, got shape {tuple(v.shape)} beside {len(deltas)} deltas "
                         "(one per row, as if v were turned on its side); pass v, not v.T")
    if len(deltas) != v.shape[1]:
        raise ValueError(f"perturb(): deltas must have shape [{v.shape[1]}] (one per pose "
                         f"dimension), got shape {tuple(deltas.shape)}; give one delta per "
                         "dimension")
    edited = v.clone()
    # v_label <- v_label + Δ
    edited[label] += deltas.to(v.dtype)
    return edited


def _check_capsules(where: str, v: torch.Tensor, model: CapsNet, squashed: bool = True
                    ) -> None:
    """A ``ValueError`` unless capsules ``v`` ``[..., n_classes, digit_dim]`` are of ``model``'s
    size (its config), which its decoder reads, and (``squashed``: the model's own v, not yet
    edited) each of length at most 1."""
    cfg = model.config
    if tuple(v.shape[-2:]) != (cfg.n_classes, cfg.digit_dim):
        raise ValueError(f"{where}(): v must be digit capsules of the model, [..., "
                         f"{cfg.n_classes}, {cfg.digit_dim}] (n_classes, digit_dim of its "
                         f"config), got shape {tuple(v.shape)}; pass the v the model gives")
    longest = float(v.norm(dim=-1).max()) if v.numel() else 0.0
    if squashed and longest > 1 + 1e-5:  # an unsquashed s: a length no decoder was trained on
        raise ValueError(f"{where}(): v must be squashed capsules, each of length at most 1, got "
                         f"one of length {longest:.3g}; squash it first: squash(v), or pass the "
                         "v the model gives")


def _check_label(v: torch.Tensor, label: int, where: str) -> None:
    """A ``ValueError`` unless ``label`` names one of the capsules ``v`` ``[n_classes, dim]``."""
    if label >= v.shape[0]:
        raise ValueError(f"{where}(): label must be in [0, {v.shape[0] - 1}] (one capsule per "
                         f"class), got {label}; pick a class of the model")


@checked
@torch.no_grad()
def decode(model: CapsNet, v: Tensor("digit capsules [B, n_classes, digit_dim]", ndim=3,
                                     floating=True, finite=True),
           labels: Tensor("the classes to keep [B]", ndim=1)) -> torch.Tensor:
    """Decode capsules ``v`` ``[B, 10, 16]`` masked to class ``labels`` ``[B]``: images
    ``[B, 28, 28]`` (``CapsNet.reconstruct``: all capsules but the label's are zeroed)."""
    _check_capsules("decode", v, model, squashed=False)  # an edited capsule may pass 1
    check_labels(labels, "decode(): labels", len(v), v.shape[1])  # not reconstruct's targets
    device = course_settings.model_device(model)
    v, labels = v.to(device), labels.to(device)
    return model._decoded(v.to(model.decoder[0].weight.dtype), labels.long())[:, 0].cpu()


@dataclass(frozen=True)
class PoseState(CheckedRecord):
    """What notebook 06's pose widget shows of one image's capsules after an edit
    (``pose_state``)."""

    label: Label  # the class whose capsule is edited
    # [16] the Delta added to each dimension, rounded to 4 places
    deltas: tuple[Float("a Delta", ge=-MAX_DELTA, le=MAX_DELTA), ...]
    capsule: Array("the edited capsule v_label + Delta [16]", ndim=1)
    # only the label's changes
    lengths: Numbers("all ten capsule lengths after the edit [10]", ndim=1, at_least=1, ge=0)
    reconstruction: Array("what the decoder draws from the edited capsule [28, 28]", ndim=2)
    prediction: Class  # the longest capsule after the edit

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a Delta per dimension of another
        capsule, or a label or a prediction that is no capsule's class."""
        super().__post_init__()
        check_same("PoseState", "dimensions", "pass one Delta per dimension of the capsule",
                   capsule=len(self.capsule), deltas=len(self.deltas))
        n = len(self.lengths)
        check_value("PoseState", "label", Int(f"a class of the {n} capsules of lengths", ge=0,
                                              le=n - 1), self.label)
        check_read("PoseState", "pass what pose_state(...) gives", "prediction",
                   [self.prediction], "lengths", self.lengths)
        check_derived("PoseState", "pass what pose_state(...) gives", tolerance=1e-5, **{
            f"lengths[{self.label}]": (float(self.lengths[self.label]), float(np.linalg.norm(
                self.capsule)), "the length of capsule (the edited capsule of label)")})


@checked
def pose_state(model: CapsNet, v: Capsules, label: Label, deltas: Deltas) -> PoseState:
    """What the pose widget shows for capsules ``v`` ``[10, 16]`` of one image whose class
    ``label``'s capsule is moved by ``deltas`` ``[16]``: one decoder pass, no routing.

    Returns the edited capsule ``v_label + Delta`` ``[16]``, all ten ``lengths`` ``[10]`` after the
    edit (only the label's changes), the ``reconstruction`` ``[28, 28]`` (numpy arrays) and the
    longest capsule (``prediction``)."""
    _check_capsules("pose_state", v, model)
    _check_label(v, label, "pose_state")
    edited = perturb(v, label, deltas)  # [10, 16]
    image = decode(model, edited[None], torch.tensor([label]))[0]  # [28, 28]
    lengths = edited.norm(dim=-1).numpy()
    return PoseState(label=label, deltas=tuple(round(float(d), 4) for d in deltas),
                     capsule=edited[label].numpy(), lengths=lengths,
                     reconstruction=image.numpy(), prediction=int(np.argmax(lengths)))


@checked
@torch.no_grad()
def perturbation_grid(model: CapsNet, v: Capsules, label: Label,
                      deltas: Deltas = DELTAS) -> torch.Tensor:
    """Fig. 4 for one digit: row d decodes capsule ``label`` of ``v`` ``[10, 16]`` with
    ``deltas[k]`` added to dimension d only. Returns ``[16, len(deltas), 28, 28]``."""
    _check_capsules("perturbation_grid", v, model)
    _check_label(v, label, "perturbation_grid")
    dim = v.shape[1]
    # per decoded image: the edited capsules and their Delta, the decoder's hidden layers and
    # the image, twice (the decoder's output and the reshaped copy)
    hidden = sum(m.out_features for m in model.modules() if isinstance(m, torch.nn.Linear))
    check_memory(dim * len(deltas) * 4 * (2 * v.numel() + dim + hidden + 2 * 28 * 28),
                 f"perturbation_grid ({dim} dimensions x {len(deltas)} deltas)",
                 "pass fewer deltas")
    grid = torch.zeros(dim, len(deltas), dim)  # [row d, column k, 16]: the Delta to add
    # grid[d, k, d] = Δ_k
    grid[torch.arange(dim), :, torch.arange(dim)] = deltas.to(grid.dtype)
    edited = v.expand(dim, len(deltas), *v.shape).clone()  # [16, K, 10, 16]
    edited[:, :, label] += grid
    labels = torch.full((dim * len(deltas),), label)
    images = decode(model, edited.flatten(0, 1), labels)  # [16 * K, 28, 28]
    return images.view(dim, len(deltas), *images.shape[1:])


@checked
def dimension_effect(grid: Tensor("decoded edits [16, K, 28, 28]", ndim=4, pixels=True),
                     base: Tensor("the unedited reconstruction [28, 28]", ndim=2, pixels=True)
                     ) -> torch.Tensor:
    """How much each dimension changes the picture: mean ``|pixel change|`` from the unedited
    reconstruction ``base`` ``[28, 28]`` over the grid's Deltas and pixels. ``grid``:
    ``[16, K, 28, 28]`` -> ``[16]`` (pixels are in [0, 1])."""
    check_same("dimension_effect", "size", "pass the unedited reconstruction of the grid's digit",
               **{"grid's images": tuple(grid.shape[2:]), "base": tuple(base.shape)})
    return (grid - base).abs().mean(dim=(1, 2, 3))


# one shape measure of each image: a tensor of the images' leading shape [...]
Measure = Tensor("a measure of each image [...]", floating=True)


@dataclass(frozen=True)
class ShapeMeasures(CheckedRecord):
    """Simple descriptors of grey images (``shape_measures``), each a tensor ``[...]`` of the
    images' leading shape."""

    ink: Measure  # sum of pixels: thicker or longer strokes
    x: Measure  # centre of mass, pixels from the left
    y: Measure  # centre of mass, pixels from the top
    width: Measure  # 2 standard deviations of the ink along x, pixels
    height: Measure  # 2 standard deviations of the ink along y, pixels
    slant: Measure  # pixels the ink moves right per pixel down: cov(x, y) / var(y)

    def __post_init__(self):
        """Refuse fields that are no tensors of numbers (``CheckedRecord``), or measures of other
        images than ``ink``'s."""
        super().__post_init__()
        check_same("ShapeMeasures", "shape (one value per image)", "pass the measures of the "
                   "same images", **{f.name: tuple(getattr(self, f.name).shape)
                                     for f in fields(self)})


MEASURES = tuple(f.name for f in fields(ShapeMeasures))  # in order: the columns of a table


@checked
def shape_measures(images: Tensor("grey images [..., H, W], pixels in [0, 1]", floating=True,
                                  pixels=True)) -> ShapeMeasures:
    """Simple descriptors of grey images ``[..., H, W]`` (pixels in [0, 1]), each ``[...]``:
    ink (sum of pixels: thicker or longer strokes), x and y (centre of mass, pixels), width and
    height (2 standard deviations of the ink along each axis, pixels) and slant (pixels the ink
    moves right per pixel down: cov(x, y) / var(y))."""
    if images.ndim < 2 or 0 in images.shape:
        raise ValueError(f"shape_measures(): images must be grey images [..., H, W] holding at "
                         f"least one, got shape {tuple(images.shape)}; pass e.g. images[:, 0]")
    blank = images.sum(dim=(-2, -1)) < 1e-3
    if blank.any():
        raise ValueError(f"shape_measures(): images must each hold some ink, got "
                         f"{int(blank.sum())} blank image(s) (all pixels 0): a blank image has no "
                         "centre, width or slant; leave them out")
    h, w = images.shape[-2:]
    ys = torch.arange(h, dtype=images.dtype).view(h, 1)
    xs = torch.arange(w, dtype=images.dtype).view(1, w)
    ink = images.sum(dim=(-2, -1)).clamp_min(1e-6)

    def mean(f):  # E[f] under the ink distribution
        return (images * f).sum(dim=(-2, -1)) / ink

    x, y = mean(xs), mean(ys)
    var_x = mean(xs**2) - x**2
    var_y = mean(ys**2) - y**2
    cov = mean(xs * ys) - x * y
    return ShapeMeasures(ink=ink, x=x, y=y, width=2 * var_x.clamp_min(0).sqrt(),
                         height=2 * var_y.clamp_min(0).sqrt(), slant=cov / var_y.clamp_min(1e-6))


# [16] the mean |pixel change| of each dimension (dimension_effect)
Effect = Tensor("the mean |pixel change| of each dimension [16]", ndim=1, floating=True)


@dataclass(frozen=True)
class DimensionProfile(CheckedRecord):
    """Fig. 4, measured over several digits of one class (``dimension_profile``)."""

    effect: Effect
    # each shape measure's change [N, 16] when dimension d moves from the first Delta to the
    # last (-0.25 to +0.25), per image
    changes: Record(ShapeMeasures)

    def __post_init__(self):
        """Refuse fields of the wrong kind (``CheckedRecord``), or changes of other dimensions
        than the effect's."""
        super().__post_init__()
        check_same("DimensionProfile", "dimensions (the last axis)", "pass the changes of the "
                   "same capsule", effect=tuple(self.effect.shape),
                   changes=tuple(self.changes.ink.shape[-1:]))


@checked(reads=("model", "images"))
@torch.no_grad()
def dimension_profile(model: CapsNet, images: Images, label: Label,
                      deltas: Deltas = DELTAS) -> DimensionProfile:
    """Fig. 4, measured over several ``images`` ``[N, 1, 28, 28]`` of class ``label``: the mean
    ``dimension_effect`` ``[16]``, and what moving each dimension from the first of ``deltas`` to
    the last does to each ``shape_measures`` of each image, ``[N, 16]`` each."""
    check_class("dimension_profile", label, model.config.n_classes)
    v = encode(model, images).v  # [N, 10, 16]
    effects, measured = [], []
    for k in range(len(images)):
        grid = perturbation_grid(model, v[k], label, deltas)  # [16, K, 28, 28]
        base = decode(model, v[k : k + 1], torch.tensor([label]))[0]
        effects.append(dimension_effect(grid, base))
        measured.append(shape_measures(grid))  # each measure [16, K]
    # each measure's change from the first Delta to the last, per image: [N, 16]
    changes = {n: torch.stack([getattr(m, n)[:, -1] - getattr(m, n)[:, 0] for m in measured])
               for n in MEASURES}
    return DimensionProfile(effect=torch.stack(effects).mean(0), changes=ShapeMeasures(**changes))


@checked
def couplings_on_grid(routing: Routed, example: Int("an image of the batch", ge=0),
                      j: Int("a digit capsule", ge=0, le=MAX_WIDTH),
                      sizes: CapsNetConfig) -> torch.Tensor:
    """The coupling coefficients c_ij of ``example`` from every primary capsule i to digit
    capsule ``j``, per routing iteration, laid out as the primary grid of a CapsNet of ``sizes``
    (its config): ``[iterations, primary_maps, grid, grid]`` (capsule index i runs over (map,
    row, col), see ``PrimaryCapsules``)."""
    batch, n_in, n_out = routing.history[0].c.shape
    check_value("couplings_on_grid", "example", Int(f"an image of the batch of {batch}", ge=0,
                                                    le=batch - 1), example)
    check_value("couplings_on_grid", "j", Int(f"one of the {n_out} digit capsules", ge=0,
                                              le=n_out - 1), j)
    check_same("couplings_on_grid", "primary capsules", "pass the config of the model that "
               "routed (model.config)", routing=n_in, sizes=sizes.n_primary)
    c = torch.stack([step.c[example, :, j] for step in routing.history])  # [iterations, n_in]
    return c.view(len(routing.history), sizes.primary_maps, sizes.primary_grid, sizes.primary_grid)


@checked
def grid_extent(sizes: CapsNetConfig) -> tuple[float, float, float, float]:
    """Where the primary grid of a CapsNet of ``sizes`` sits on the input image, for
    ``imshow(..., extent=...)``: primary capsule (row, col) is centred on pixel
    c0 + stride * (row, col), with c0 the centre of the first unit's 9x9 (Conv1) then 9x9
    (PrimaryCaps) window."""
    c0 = (sizes.conv_kernel - 1) / 2 + (sizes.primary_kernel - 1) / 2
    lo = c0 - sizes.primary_stride / 2
    hi = lo + sizes.primary_stride * sizes.primary_grid
    return (lo, hi, hi, lo)  # left, right, bottom, top (rows grow downward)


@checked
@torch.no_grad()
def primary_lengths(model: CapsNet, image: Tensor("one image [1, 28, 28]", ndim=3, pixels=True)
                    ) -> torch.Tensor:
    """||u_i|| of every primary capsule for one ``image`` ``[1, 28, 28]``, laid out as
    ``[n_maps, grid, grid]``: how strongly each one says "my feature is here"."""
    cfg = model.config
    if tuple(image.shape) != (cfg.in_channels, cfg.image_size, cfg.image_size):
        raise ValueError(f"primary_lengths(): image must be one image [{cfg.in_channels}, "
                         f"{cfg.image_size}, {cfg.image_size}], the size the CapsNet reads, got "
                         f"shape {tuple(image.shape)}; pass one image of a batch, images[k], "
                         "not a slice of several such as images[:2, 0]")
    u = model.primary(torch.relu(model.conv1(image[None])))  # [1, n_primary, 8]
    return u[0].norm(dim=-1).view(cfg.primary_maps, cfg.primary_grid, cfg.primary_grid)


@checked(reads=("model", "images"))
@torch.no_grad()
def masking_changes(model: CapsNet, images: Images,
                    labels: Tensor("their labels [B]", ndim=1)) -> tuple[float, float]:
    """Whether the decoder sees only the label's capsule: the largest pixel change of the
    reconstructions of ``images`` ``[B, 1, 28, 28]`` (masked by ``labels`` ``[B]``) when random
    noise ``[B, 10, 16]`` (from torch's global generator) is added to the nine other capsules,
    and when it is added to the label's capsule. The first is 0 for any weights."""
    out = model(images, labels)  # masked by the true labels, as in training
    others = torch.ones_like(out.v)
    others[torch.arange(len(labels)), labels] = 0  # 1 on the nine other capsules, 0 on the true one
    noise = torch.randn_like(out.v)
    changed = [out.v + others * noise, out.v + (1 - others) * noise]
    changed_others, changed_true = (model._decoded(v, labels) for v in changed)  # past length 1
    return (float((changed_others - out.reconstruction).abs().max()),
            float((changed_true - out.reconstruction).abs().max()))


@checked(reads=("model", "images"))
@torch.no_grad()
def reconstruction_error(model: CapsNet,
                         v: Tensor("digit capsules [N, 10, 16]", ndim=3, floating=True,
                                   finite=True),
                         images: Images,
                         labels: Tensor("their labels [N]", ndim=1)) -> torch.Tensor:
    """How far each image ``[N, 1, 28, 28]`` is from its reconstruction out of its true-class
    capsule (``decode`` of ``v`` ``[N, 10, 16]`` masked to ``labels`` ``[N]``): the mean
    ``|pixel difference|`` ``[N]`` (pixels are in [0, 1])."""
    check_same("reconstruction_error", "batch", "pass the capsules, images and labels of the same "
               "digits", images=len(images), v=len(v), labels=len(labels))
    _check_capsules("reconstruction_error", v, model)
    check_labels(labels, "reconstruction_error(): labels", len(v), v.shape[1])
    return (decode(model, v, labels) - images[:, 0]).abs().mean(dim=(1, 2))


@dataclass(frozen=True)
class DimensionStudy(CheckedRecord):
    """What each dimension of the capsules of some classes does (``measure_dimensions``)."""

    spread: Record(ShapeMeasures)  # each measure's standard deviation over the real digits
    # class -> [16] mean |pixel change| (dimension_effect), of one class or more
    effect: Annotated[dict[Class, Effect], Some]
    # class -> each measure's change [N, 16] (dimension_profile)
    changes: dict[Class, Record(ShapeMeasures)]
    # class -> [16, n_measures] mean change / spread
    relative: dict[Class, Tensor("mean change / spread [16, n_measures]", ndim=2, floating=True,
                                 sizes={1: len(MEASURES)})]

    def __post_init__(self):
        """Refuse fields of the wrong kind (``CheckedRecord``), or fields of other classes than
        ``effect``'s."""
        super().__post_init__()
        check_same("DimensionStudy", "classes", "pass each field for the same classes",
                   effect=sorted(self.effect), changes=sorted(self.changes),
                   relative=sorted(self.relative))


@checked(reads=("model", "images"))
def measure_dimensions(model: CapsNet,
                       images: Images,
                       labels: Tensor("their labels [N]", ndim=1),
                       classes: Annotated[tuple[Class, ...] | list[Class], Some],
                       n_per_class: Int("digits of each class", ge=1, le=MAX_DIGITS)
                       ) -> DimensionStudy:
    """Fig. 4, measured (``dimension_profile``) for each of ``classes`` on its first
    ``n_per_class`` of ``images`` ``[N, 1, 28, 28]`` (``labels`` ``[N]``), and each change set
    in units of how much the measure varies among all the real ``images`` (its standard
    deviation): a relative change of 1 is as large as the natural spread of handwriting."""
    missing = [d for d in classes if not (labels == d).any()]
    if missing:
        raise ValueError(f"measure_dimensions(): classes must be classes that labels hold, got "
                         f"{missing[:3]}, which label no digit; pick among "
                         f"{sorted(set(labels.tolist()))[:10]}")
    fewest = min(classes, key=lambda d: int((labels == d).sum()))
    if (have := int((labels == fewest).sum())) < n_per_class:  # else fewer, without a word
        raise ValueError(f"measure_dimensions(): n_per_class must be at most the digits of each "
                         f"class, got {n_per_class} but labels hold {have} of class {fewest}; "
                         f"pass n_per_class={have} or fewer, or more images")
    real = shape_measures(images[:, 0])
    spread = ShapeMeasures(**{n: getattr(real, n).std() for n in MEASURES})
    effect, changes = {}, {}
    for d in classes:
        profile = dimension_profile(model, images[labels == d][:n_per_class], d)
        effect[d], changes[d] = profile.effect, profile.changes
    # relative[d][dim, m] = mean over the digits of change_m(dim) / spread_m
    relative = {d: torch.stack([getattr(changes[d], n).mean(0) / getattr(spread, n)
                                for n in MEASURES], dim=1) for d in classes}
    return DimensionStudy(spread=spread, effect=effect, changes=changes, relative=relative)


@checked
def format_ranking(study: DimensionStudy) -> str:
    """The spread of the real digits, then for each class of ``study`` its dimensions from the
    one that changes the picture most to the least: each with the shape measure it moves most
    (ink, width, height, slant; x and y left out, MNIST centres its digits), by how many SD, and
    in how many of the digits in the same direction; and how many move a measure by > 1 SD."""
    lines = ["spread of real test digits (SD): "
             + ", ".join(f"{n} {getattr(study.spread, n):.2f}" for n in MEASURES)]
    columns = torch.tensor([MEASURES.index(n) for n in MEASURES if n not in ("x", "y")])
    for d, r in study.relative.items():
        effect = study.effect[d]
        main = columns[r[:, columns].abs().argmax(dim=1)]  # [16]: the shape measure moved most
        lines.append(f"capsule {d}: dimensions sorted by how much they change the picture")
        for dim in effect.argsort(descending=True).tolist():
            name = MEASURES[main[dim]]
            change = getattr(study.changes[d], name)[:, dim]  # [N]
            same_sign = torch.sign(change) == torch.sign(r[dim, main[dim]])
            agree = 100 * same_sign.float().mean()
            lines.append(f"  dim {dim:2d}: mean |pixel change| {effect[dim]:.3f}; mostly "
                         f"{name:6s} {r[dim, main[dim]]:+.1f} SD (same direction in "
                         f"{agree:3.0f} % of the {len(same_sign)} digits)")
        strong = int((r[:, columns].abs().max(dim=1).values > 1).sum())
        lines += [f"  -> {strong} of {len(effect)} dimensions move a shape measure by more than "
                  f"1 SD; the weakest dimension changes the picture "
                  f"{effect.max() / effect.min():.1f}x less than the strongest", ""]
    return "\n".join(lines)


@checked
def format_coupling_quantiles(routing: Routed,
                              classes: Tensor("a class per image [N]", ndim=1)) -> str:
    """One line per routing iteration: the 10 %, 50 % and 90 % quantiles, the largest value and
    the share above 0.5 of the couplings of every primary capsule of every image to the image's
    class of ``classes`` ``[N]`` (e.g. its predicted class)."""
    batch, _, n_out = routing.history[0].c.shape
    check_labels(classes, "format_coupling_quantiles(): classes", batch, n_out)
    lines = []
    for r, step in enumerate(routing.history, start=1):
        c = step.c[torch.arange(len(classes)), :, classes]  # [N, n_primary]
        q10, q50, q90 = c.quantile(torch.tensor([0.1, 0.5, 0.9])).tolist()
        lines.append(f"iteration {r}: c(i -> predicted class) 10 % / 50 % / 90 % quantiles = "
                     f"{q10:.3f} / {q50:.3f} / {q90:.3f}; largest {c.max():.3f}; "
                     f"share above 0.5: {100 * (c > 0.5).float().mean():.2f} %")
    return "\n".join(lines)

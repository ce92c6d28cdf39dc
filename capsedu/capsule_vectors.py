"""Capsule outputs as vectors: length = presence, direction = pose (notebook 02).

Sabour, Frosst & Hinton (2017): "We use the length of the activity vector to represent the
probability that the entity exists and its orientation to represent the instantiation
parameters." In a trained CapsNet the map from direction to pose is learned; here it is designed
by hand, so that a pose vector can be drawn with the faces renderer (``capsedu.data.faces``):

* a **2-D capsule** ``v = p (cos a, sin a)``: its length ``p`` is the presence, its direction the
  part's angle ``a`` (degrees, counter-clockwise on screen, as in ``faces``);
* a **5-D capsule** ``v = p c / ||c||``, with the code
  ``c = (x - 0.5, y - 0.5, k cos a, k sin a, 1)`` for a part at ``(x, y)``, angle ``a``, scale
  ``k``. The constant last entry makes the pose readable from the direction alone:
  ``c = v / v[4]``, whatever the length.

And a hand-built "nose capsule" for the equivariance demo: a bank of rotated nose templates,
matched at every position (normalized cross-correlation, max-pooled over positions).

Squash (Eq. 1, notebook 03) is what lets a length be a probability: it keeps a vector's direction
and maps its length into [0, 1). Its measurements live here too: its slope by autograd
(``squash_slope``), its lengths beside the sigmoid's and the tanh's (``length_table``), random
capsules over many decades of length (``random_capsules``) and the directions squash keeps
(``direction_and_length``), where float rounding brings a length to 1 (``rounding_table``), a
squash variant's value and gradient at ``s = 0`` (``at_zero``, ``at_zero_table``) and what its
``eps`` changes (``eps_table``).
"""

import math
from collections.abc import Callable
from typing import Annotated

import numpy as np
import torch
import torch.nn.functional as F

from .checks import check_same, check_takes
from .course_settings import MAX_SIDE, MAX_WIDTH, FloatDtype, Seed
from .data.sprites import Part, Side, _refuse_off_canvas, render
from .functional import squash
from .memory import check_memory
from .poses import wrap_angle
from .refusals import kind_of
from .units import DrawnInDegrees, ImageFraction, InDegrees
from .validate import Choice, Float, Int, Numbers, Record, Some, Tensor, check_value, checked

# Bounds on what a caller can ask for: a bank of 3,600 templates is a tenth of a degree apart (02
# uses 16), each one a rendered part; 10 million random capsules are a thousand times 03's
# 10,000 (their memory is estimated up front too). A capsule's dimensions are bounded as a
# CapsNetConfig bounds them (MAX_WIDTH), an image's side as the renderer does (MAX_SIDE).
MAX_ANGLES = 3600
MAX_CAPSULES = 10_000_000

Scale = Float("the part's scale", gt=0)




# a part's kind, as sprites draws them
# a capsule's length ||s|| in a table, and a power of ten of one (float32 holds lengths from
# about 1e-38 to 3e38)
Norm = Float("a length ||s||", ge=0, le=1e30)
# eps_table's lengths: its change is relative to ||s||^2, 0 (0/0) at 0 and below 1e-150 (float64)
EpsNorm = Float("a length ||s|| > 0 (the change is relative to ||s||^2, which is 0 at 0 and "
                "rounds to 0 below 1e-150)", ge=1e-150, le=1e30)
Decade = Float("a power of ten of a length", ge=-38, le=38)
Exponent = Int("a whole power of ten of a length", ge=-38, le=38)
Kind = Choice("a part's kind", "left_eye", "right_eye", "nose", "mouth", "stroke")
# 2-D capsules and angles, as numbers, arrays, lists or tensors: handed on as tensors
Capsules2D = Numbers("2-D capsules [..., 2]", last=2, tensor=True,
                     fix="pass pose_vector's vectors")
Angles = Annotated[Numbers("angles in degrees [n]", ndim=1, at_least=1, tensor=True,
                           fix="pass one list of degrees"), InDegrees]
# pose_vector's angle, once its type is checked by hand: a number or a tensor of degrees
Turns = Annotated[Numbers("a number or a tensor of angles in degrees", tensor=True), InDegrees]


@checked
def pose_vector(angle: Numbers("a number or a tensor of numbers", tensor=True),
                presence: Numbers("a probability", ge=0, le=1, tensor=True)) -> torch.Tensor:
    """The 2-D capsule of a part at ``angle`` degrees, present with probability ``presence``.

    ``angle`` and ``presence`` are numbers or tensors of the same shape ``[...]``; returns
    ``[..., 2]``. ``presence`` must lie in [0, 1].
    """
    for name, value in (("angle", angle), ("presence", presence)):
        if isinstance(value, (bool, str)) or not isinstance(
                value, (int, float, np.number, np.ndarray, torch.Tensor)):
            raise TypeError(f"pose_vector(): {name} must be a number or a tensor of numbers, got "
                            f"{value!r:.60}; pass e.g. pose_vector(30.0, 0.9)")
    angle, presence = torch.as_tensor(angle), torch.as_tensor(presence)
    if angle.ndim and presence.ndim:  # a number goes with every angle, or every presence
        check_same("pose_vector", "shape, one presence per angle", "pass as many of each, or one "
                   "number for either", angle=tuple(angle.shape), presence=tuple(presence.shape))
    for name, value in (("angle", angle), ("presence", presence)):
        if value.dtype == torch.bool or value.dtype.is_complex:
            raise TypeError(f"pose_vector(): {name} must be a number or a tensor of real numbers, "
                            f"got dtype {value.dtype}; pass e.g. pose_vector(30.0, 0.9)")
        if value.numel() and not torch.isfinite(value).all():
            raise ValueError(f"pose_vector(): {name} must hold finite numbers, got {value}; a NaN "
                             "or an infinity has no direction: find where it first appears")
    check_value("pose_vector", "angle", Turns, angle)  # np.pi / 3 is refused as radians
    if presence.numel() and (presence.min() < 0 or presence.max() > 1):
        raise ValueError(f"pose_vector(): presence must be in [0, 1] (a probability), got "
                         f"{presence}; the vector's length is the part's presence")
    a = torch.deg2rad(angle.to(torch.get_default_dtype()))
    # v = p (cos a, sin a): length p, direction a
    return torch.stack([presence * torch.cos(a), presence * torch.sin(a)], dim=-1)


@checked
def read_pose(v: Capsules2D) -> tuple[torch.Tensor, torch.Tensor]:
    """``(presence, angle)`` of 2-D capsules ``v`` ``[..., 2]``: ``||v||`` (at most 1: squashed)
    and its direction.

    The angle is in degrees, in (-180, 180]. The zero vector (an absent part) has no direction;
    ``atan2(0, 0)`` reports 0 degrees for it.
    """
    _check_presence("read_pose", v)
    return _pose(v)


def _pose(v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``read_pose`` of capsules of any length (an angle is read from any)."""
    v = v.to(torch.get_default_dtype())
    return v.norm(dim=-1), torch.rad2deg(torch.atan2(v[..., 1], v[..., 0]))


@checked
def angle_error(v: Capsules2D,
                angles: Annotated[Numbers("the true angles in degrees [N]", tensor=True),
                                  DrawnInDegrees]) -> torch.Tensor:
    """How far the angle read from 2-D capsules ``v`` ``[N, 2]`` misses the true ``angles``
    ``[N]`` (degrees): ``[N]``, wrapped around the circle into [-180, 180)."""
    presence, read = _pose(v)
    if (presence == 0).any():
        raise ValueError(f"angle_error(): v must have a direction in every capsule, got "
                         f"{int((presence == 0).sum())} zero capsule(s), the first at index "
                         f"{int((presence == 0).nonzero()[0, 0])} (an absent part has no angle to "
                         "miss); drop them (v[v.norm(dim=-1) > 0])")
    angles = angles.to(read.dtype)
    if angles.shape != read.shape:
        raise ValueError(f"angle_error(): angles must hold one true angle per capsule of v "
                         f"({list(read.shape)}), got shape {tuple(angles.shape)}; pass the angles "
                         "the capsules were made from")
    return wrap_angle(read - angles)


def _check_presence(where: str, v: torch.Tensor) -> None:
    """Refuse capsules ``v`` ``[..., d]`` longer than 1: a length is a part's presence, a
    probability (the longest is named)."""
    lengths = v.to(torch.get_default_dtype()).norm(dim=-1)
    if (lengths > 1 + 1e-6).any():  # 1e-6 over for a length's rounding
        raise ValueError(f"{where}(): v must be {'a capsule' if lengths.ndim == 0 else 'capsules'} "
                         f"of length at most 1 (its length is the part's presence, a probability), "
                         f"got length {lengths.max().item():.4g}; squash it first: squash(v)")


@checked
def part_from_vector(kind: Kind, v: Numbers("one capsule, 2-D: [2]", ndim=1, last=2, tensor=True),
                     scale: Scale = 2.5) -> tuple[Part, float]:
    """The part a 2-D capsule describes, drawn at the image centre, and its presence."""
    _check_presence("part_from_vector", v)
    presence, angle = _pose(v)
    return Part(kind, 0.5, 0.5, float(angle), scale), float(presence)


@checked
def encode_pose(x: ImageFraction("x"), y: ImageFraction("y"),
                angle: Annotated[Float("degrees, counter-clockwise"), InDegrees], scale: Scale,
                presence: Float("a probability, in [0, 1]", ge=0, le=1)) -> torch.Tensor:
    """The 5-D capsule ``[5]`` of a part with pose ``(x, y, angle, scale)`` and ``presence``."""
    a = math.radians(angle)
    # c = (x - 0.5, y - 0.5, k cos a, k sin a, 1): the pose, plus a constant that fixes the scale
    c = torch.tensor([x - 0.5, y - 0.5, scale * math.cos(a), scale * math.sin(a), 1.0])
    # v = p c / ||c||: direction of c, length p
    return presence * c / c.norm()


@checked
def decode_pose(kind: Kind, v: Numbers("a 5-D capsule [5]", ndim=1, last=5, tensor=True)
                ) -> tuple[Part, float]:
    """The part a 5-D capsule ``v`` describes, and its presence ``||v||``.

    The direction ``v / ||v||`` is ``c / ||c||``; dividing by the last entry gives ``c`` back.
    The zero vector (presence 0) has no direction, hence no pose: ``ValueError``.
    """
    v = v.to(torch.get_default_dtype())
    _check_presence("decode_pose", v)
    if v[4] <= 0:
        raise ValueError(f"decode_pose(): v must have a last entry > 0, got {v[4].item():g}: "
                         "it encodes no pose (the zero vector, presence 0, has no direction); "
                         "pass a capsule of encode_pose")
    # c = v / v[4]: the code, whatever the length of v
    dx, dy, kc, ks, _ = (v / v[4]).tolist()
    part = Part(kind, dx + 0.5, dy + 0.5, math.degrees(math.atan2(ks, kc)), math.hypot(kc, ks))
    return part, float(v.norm())


@checked
def draw(part: Record(Part),
         presence: Float("the ink, a capsule's length in [0, 1]; 1e-6 over for a length's "
                         "rounding", ge=0, le=1 + 1e-6),
         size: Side = 48) -> np.ndarray:
    """Render ``part`` (a ``Part``) with ink ``presence``: a part that is barely there is drawn
    faintly."""
    _refuse_off_canvas("draw", "part", [part])  # by draw's name, not render's
    return presence * render([part], size)


# --- A hand-built nose capsule: rotated templates, matched everywhere ------------------------


@checked
def turned_part_images(kind: Kind, angles: Angles, scale: Scale = 2.0, size: Side = 32,
                       x: Float("a fraction of the image's width", ge=0, le=1) = 0.5,
                       y: Float("a fraction of the image's height", ge=0, le=1) = 0.5
                       ) -> torch.Tensor:
    """``[len(angles), 1, size, size]``: one ``kind`` part at ``(x, y)`` (fractions of the image;
    default its centre), turned to each of ``angles`` (degrees)."""
    return _turned_part_images(kind, angles, scale, size, x, y)


def _turned_part_images(kind, angles, scale=2.0, size=32, x=0.5, y=0.5) -> torch.Tensor:
    """``turned_part_images`` for the course's own angles (``template_bank``'s, evenly turned),
    which no check of radians reads: a fine bank's steps are fractions of a degree."""
    # each image rendered (float32), then stacked into one array
    check_memory(2 * 4 * len(angles) * size * size, f"{len(angles):,} images of {size}x{size}",
                 "use fewer angles or a smaller size")
    images = [render([Part(kind, x, y, float(a), scale)], size) for a in angles]
    return torch.from_numpy(np.stack(images))[:, None]


@checked
def template_bank(kind: Kind = "nose",
                  n_angles: Int("templates, evenly turned", ge=1, le=MAX_ANGLES) = 16,
                  scale: Scale = 2.0, size: Side = 32,
                  crop: Int("a template's side in pixels", ge=1, le=MAX_SIDE) = 12
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(angles [n_angles], templates [n_angles, 1, crop, crop])``: the part turned evenly.

    Each template is the part rendered at the centre of a ``size`` image, cropped to ``crop``
    pixels around the centre (the crop must hold all the ink).
    """
    if crop > size:
        raise ValueError(f"template_bank(): crop must be at most size={size} (a crop of the "
                         f"image), got {crop}; pass a smaller crop, or a larger size")
    angles = torch.arange(n_angles) * (360.0 / n_angles)
    full = _turned_part_images(kind, angles, scale, size)
    lo = (size - crop) // 2
    templates = full[:, :, lo:lo + crop, lo:lo + crop].clone()
    if templates.sum() < full.sum() - 1e-3:
        raise ValueError(f"template_bank(): crop must hold all the ink of a {kind} at scale "
                         f"{scale}, got {crop}, which cuts some off; pass a larger crop (at most "
                         f"size={size}), or a smaller scale")
    return angles, templates


@checked
def match(images: Tensor("images [N, 1, H, W]", ndim=4, floating=True, finite=True),
          templates: Tensor("templates [n, 1, k, k]", ndim=4, floating=True, finite=True)
          ) -> torch.Tensor:
    """Best normalized cross-correlation of each template over all positions: ``[N, n_templates]``.

    ``images`` ``[N, 1, H, W]``. At each position, <patch, template> / (||patch|| ||template||),
    in [0, 1] for images with non-negative ink (1 = the patch is the template up to brightness);
    then a global max over positions, the pooling of a CNN.
    """
    if images.shape[1] != 1:
        raise ValueError(f"match(): images must have shape [N, 1, H, W], got "
                         f"{tuple(images.shape)}; pass one channel (grey images)")
    k = templates.shape[-1]
    if k > min(images.shape[-2:]):
        raise ValueError(f"match(): templates must be no larger than the images, got {k}x{k} "
                         f"templates over {images.shape[-2]}x{images.shape[-1]} images (they "
                         "would be matched against the zero padding); pass smaller templates or "
                         "larger images")
    # the correlations [N, n, H', W'], float32, three times: dot, its quotient, and a temporary
    check_memory(3 * 4 * len(images) * len(templates) * images.shape[-2] * images.shape[-1],
                 f"matching {len(templates):,} templates over {len(images):,} images",
                 "match fewer images or templates at once")
    # <patch, template>: [N, n, H', W']
    dot = F.conv2d(images, templates, padding=k // 2)
    # ||patch||: [N, 1, H', W'];  ||template||: [n]
    patch_norm = F.conv2d(images**2, torch.ones(1, 1, k, k), padding=k // 2).clamp_min(0).sqrt()
    ncc = dot / (patch_norm * templates.flatten(1).norm(dim=1)[:, None, None] + 1e-6)
    return ncc.flatten(2).amax(dim=2)


# matches that differ by less than this have no direction: a blank image's lie within 0.04 of
# one another, noise's within 0.09, a part's (turned_part_images, any angle) spread 0.36 or more
FLAT_MATCHES = 0.1


@checked
def capsule_from_matches(r: Tensor("template matches [N, n]: normalised, each in [0, 1]",
                                   ndim=2, floating=True, finite=True, within=(0, 1),
                                   fix="pass the matches match(images, templates) gives"),
                         angles: Annotated[Tensor("the templates' angles [n]", ndim=1),
                                           InDegrees],
                         temperature: Float("the softmax's temperature; matches lie in [0, 1]",
                                            gt=0, le=1) = 0.1
                         ) -> torch.Tensor:
    """A 2-D capsule ``[N, 2]`` from template matches ``r`` ``[N, n]`` at ``angles`` ``[n]``.

    Length: the best match, max_k r_k (how sure we are that the part is there). Direction: a vote,
    each template pointing along its own angle with weight softmax(r / temperature) (the best
    few dominate; a weighted mean of angles, unlike the argmax, is not limited to the bank's
    angles). A temperature past 1 is refused: matches in [0, 1] would all weigh alike, and the
    vote would average the whole bank's directions to nearly nothing. Where no template stands
    out (every match within ``FLAT_MATCHES`` of the best: a blank image, or a round part that
    every template fits alike), the vote has no direction, only noise: that capsule gets length
    0, not a confident arrow pointing anywhere.
    """
    check_same("capsule_from_matches", "templates, a column of r each", "pass one angle per "
               "template", r=r.shape[1], angles=len(angles))
    w = torch.softmax(r / temperature, dim=1)  # [N, n]
    a = torch.deg2rad(angles)
    # vote = sum_k w_k (cos a_k, sin a_k): [N, 2]
    vote = torch.stack([(w * torch.cos(a)).sum(1), (w * torch.sin(a)).sum(1)], dim=1)
    presence = r.amax(dim=1, keepdim=True)
    pointed = presence - r.amin(dim=1, keepdim=True) >= FLAT_MATCHES  # [N, 1]: a template wins
    return torch.where(pointed, presence * vote / vote.norm(dim=1, keepdim=True).clamp_min(1e-12),
                       torch.zeros_like(vote))


# --- Squash measured (notebook 03) ----------------------------------------------------------


@checked
def squash_slope(r: Numbers("lengths ||s|| [n]", ndim=1, ge=0, tensor=True),
                 dim: Int("the capsules' dimensions", ge=1, le=MAX_WIDTH) = 16) -> torch.Tensor:
    """d||v|| / d||s|| ``[n]`` at each length ``r`` ``[n]``, by autograd through ``squash``.

    ``s = r u`` along one random unit direction ``u`` ``[dim]`` (drawn from torch's global
    generator): squash keeps the direction, so the slope does not depend on ``u``.
    """
    if not r.is_floating_point():  # autograd needs floats
        raise ValueError(f"squash_slope(): r must be floating-point lengths [n], got {r.dtype}; "
                         "convert them with r.float()")
    r = r.detach().requires_grad_(True)
    u = F.normalize(torch.randn(dim, dtype=r.dtype), dim=0)  # a direction
    lengths = squash(r[:, None] * u).norm(dim=-1)  # ||v|| for s = r u: [n]
    (slope,) = torch.autograd.grad(lengths.sum(), r)
    return slope


@checked
def length_table(norms: Annotated[tuple[Norm, ...] | list[Norm], Some]) -> str:
    """A table, one row per length ``||s||`` of ``norms``: squash's output length
    ``||s||^2 / (1 + ||s||^2)`` beside sigmoid(||s||) and tanh(||s||)."""
    rows = ["   ||s||   squash  sigmoid    tanh"]
    for x in map(torch.tensor, norms):
        rows.append(f"{x:8.1f} {x**2 / (1 + x**2):8.4f} {torch.sigmoid(x):8.4f} "
                    f"{torch.tanh(x):8.4f}")
    return "\n".join(rows)


@checked
def direction_and_length(s: Tensor("capsules s [n, d]", ndim=2, floating=True, finite=True)
                         ) -> tuple[torch.Tensor, torch.Tensor]:
    """For capsules ``s`` ``[n, d]``: the cosine similarity ``[n]`` between each ``s`` and
    ``v = squash(s)`` (1: the same direction) and the output length ``||v||`` ``[n]``. A zero
    capsule has no direction (its cosine would read 0, "perpendicular"): ``ValueError``."""
    zero = (s.norm(dim=1) == 0).nonzero().flatten()  # [rows that are zero vectors]
    if len(zero):
        raise ValueError(f"direction_and_length(): s must hold no zero vector (one has no "
                         f"direction, so no cosine with squash(s)), got {len(zero)} of them, the "
                         f"first at row {zero[0].item()}; drop them, e.g. s[s.norm(dim=1) > 0]")
    v = squash(s)
    return F.cosine_similarity(s, v, dim=1), v.norm(dim=1)


@checked
def rounding_table(exponents: Annotated[tuple[Exponent, ...] | list[Exponent], Some],
                   dtypes: Annotated[tuple[FloatDtype, ...] | list[FloatDtype], Some] = (
                       torch.float32, torch.float64)) -> str:
    """One line per float dtype of ``dtypes``: squash's output length, to 10 decimals, for a
    vector of length ``||s|| = 10^e`` for each ``e`` of ``exponents``; where it prints exactly 1,
    rounding has reached 1."""
    names = ", ".join(f"1e{e}" for e in exponents)
    lines = []
    for dtype in dtypes:
        big = torch.tensor([[10.0**e, 0.0] for e in exponents], dtype=dtype)  # [len(exponents), 2]
        lengths = squash(big).norm(dim=1).tolist()
        lines.append(f"{str(dtype):14} ||s|| = {names} -> ||v|| = "
                     + ", ".join(f"{x:.10f}" for x in lengths))
    return "\n".join(lines)




@checked
def random_capsules(n: Int("capsules", ge=1, le=MAX_CAPSULES) = 10_000,
                    dim: Int("their dimensions", ge=1, le=MAX_WIDTH) = 16, seed: Seed = 0,
                    decades: tuple[Decade, ...] | list[Decade] = (-3, 3)) -> torch.Tensor:
    """``[n, dim]`` vectors ``s``: uniform random directions, lengths log-uniform in
    ``[10^decades[0], 10^decades[1]]``, from a generator seeded with ``seed``."""
    if len(decades) != 2 or not decades[0] < decades[1]:
        raise ValueError(f"random_capsules(): decades must be (low, high) with low < high, got "
                         f"{decades}; pass the lower power of ten first, e.g. (-3, 3)")
    low, high = decades
    # float32 [n, dim]: the normal draws, the directions, the capsules; [n, 1] lengths
    check_memory(4 * n * (3 * dim + 2), f"{n:,} random capsules of {dim}D",
                 "draw fewer capsules")
    g = torch.Generator().manual_seed(seed)
    directions = F.normalize(torch.randn(n, dim, generator=g), dim=1)
    # ||s|| = 10^e, e uniform in [low, high]
    norms = 10 ** ((high - low) * torch.rand(n, 1, generator=g) + low)
    return norms * directions


@checked
def at_zero(squash_fn: Callable, dim: Int("the capsule's dimensions", ge=1, le=MAX_WIDTH) = 4
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """A squash function's value ``[dim]`` at ``s = 0`` ``[1, dim]`` and the gradient ``[dim]``
    of the sum of its output with respect to ``s`` there (NaN where 0/0 appears)."""
    return _at_zero(squash_fn, dim, "at_zero(): squash_fn")


def _at_zero(squash_fn: Callable, dim: int, name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """``at_zero``, its refusal naming the function as its caller knows it (``name``)."""
    check_takes(squash_fn, name, 1, "squash_fn(s) -> v")
    s = torch.zeros(1, dim, requires_grad=True)
    v = squash_fn(s)
    if not isinstance(v, torch.Tensor) or v.shape != s.shape or not v.requires_grad:
        got = (kind_of(v) if not isinstance(v, torch.Tensor) else f"shape {tuple(v.shape)}"
               if v.shape != s.shape else "a tensor that does not depend on s")
        raise ValueError(f"{name} must be a squash, which keeps the shape of s and depends on "
                         f"it, got {got} for s of shape {tuple(s.shape)}; pass a function of s "
                         "that gives v of s's shape")
    v.sum().backward()
    return v[0].detach(), s.grad[0]


@checked
def at_zero_table(variants: dict[str, Callable]) -> str:
    """One line per squash of ``variants`` (name -> function) and, last, capsedu's own
    ``squash`` (eps inside the root): its value and gradient at ``s = 0`` (``at_zero``)."""
    lines = []
    for name, fn in {**variants, "capsedu (eps inside)": squash}.items():
        value, gradient = _at_zero(fn, 4, f"at_zero_table(): variants[{name!r}]")
        lines.append(f"{name:21}  value {value.tolist()}  gradient {gradient.tolist()}")
    return "\n".join(lines)


@checked
def eps_table(norms: Annotated[tuple[EpsNorm, ...] | list[EpsNorm], Some]) -> str:
    """A table, one row per length of ``norms``: how much ``squash``'s ``eps`` changes the output
    length (relative to the exact ``||s||^2 / (1 + ||s||^2)``, in float64) and the length."""
    rows = ["   ||s||   relative change of ||v|| due to eps    ||v||"]
    for norm in norms:
        s = torch.tensor([norm, 0.0], dtype=torch.float64)
        exact = norm**2 / (1 + norm**2)
        got = squash(s).norm().item()
        rows.append(f"{norm:8.0e} {(exact - got) / exact:25.1e} {got:22.1e}")
    return "\n".join(rows)

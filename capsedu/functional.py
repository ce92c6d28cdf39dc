"""The paper's equations as plain functions: squash (Eq. 1), margin loss (Eq. 4), reconstruction.

Sabour, Frosst & Hinton (2017), "Dynamic Routing Between Capsules", arXiv:1710.09829.
"""

import torch
import torch.nn.functional as F

from .checks import check_finite, check_labels, check_same
from .course_settings import Classes
from .validate import Float, Int, Tensor, checked


@checked
def squash(s: Tensor("a capsule's total input", floating=True),
           dim: Int("the dimension that holds the capsule's vector", ge=-64, le=63) = -1,
           eps: Float("added under the square root, small: it shortens vectors of length "
                      "near sqrt(eps) and shorter", gt=0, le=1e-2) = 1e-8) -> torch.Tensor:
    """Eq. 1: shrink a capsule's total input ``s`` to a vector of length in [0, 1) (in exact
    arithmetic; in float32 a long ``s`` rounds to length 1.0, as notebook 03 shows).

    Short vectors shrink to almost zero and long ones to just below 1, while the direction is
    kept: the length can then be read as the probability that the entity is present, and the
    direction as its pose. ``eps`` sits inside the square root so that both the value and the
    gradient are finite at ``s = 0`` (where ``s / ||s||`` is 0 / 0); it is raised to the
    smallest normal number of ``s``'s dtype where it would round to 0 (float16: 6e-5). At most
    1e-2: a larger eps would shorten every vector of length near 1 or below (eps=1e6 takes
    ``(3, 4)`` to length 0.005, not 25/26).

    Finite for every finite ``s``, however long; a NaN or an infinity in ``s`` is an error.
    """
    if s.ndim == 0:  # no vector: no dimension for dim to name
        raise ValueError(f"squash(): s must be a capsule, a tensor of one dimension at least (its "
                         f"vector), got a 0-d tensor holding {s.item():.4g}; a capsule needs a "
                         "dimension: pass s.reshape(1) for a 1-D one")
    if not -s.ndim <= dim < s.ndim:
        raise ValueError(f"squash(): dim must name a dimension of s, from {-s.ndim} to "
                         f"{s.ndim - 1} (s has shape {tuple(s.shape)}), got {dim}; a capsule's "
                         "vector is usually the last, dim=-1")
    eps = max(eps, torch.finfo(s.dtype).tiny)
    # ||s||^2: same shape as s but with size 1 along `dim`
    squared_norm = (s * s).sum(dim=dim, keepdim=True)
    # One cheap sum screens s for NaN and inf, and ||s||^2 for overflow (float32: ||s|| > 1.8e19)
    if torch.isfinite(squared_norm.detach().sum()):
        # v = ||s||^2 / (1 + ||s||^2) * s / ||s||
        return squared_norm / (1 + squared_norm) * s / torch.sqrt(squared_norm + eps)
    # a NaN or an infinity in s is an error; else ||s||^2 overflowed: write s = m t with
    # m = max(1, max_i |s_i|), so that the squares of t cannot overflow;
    check_finite(s, "squash(): s")
    # then v = ||t||^2 / (1/m^2 + ||t||^2) * t / ||t||, the same v
    m = s.abs().amax(dim=dim, keepdim=True).clamp_min(1.0)
    t = s / m
    squared_t = (t * t).sum(dim=dim, keepdim=True)
    return squared_t / (m**-2 + squared_t) * t / torch.sqrt(squared_t + eps)


# Eq. 4's parameters, declared once (``buggy.unsquared_margin_loss`` takes the same)
Lengths = Tensor("capsule lengths [batch, classes]", ndim=2, finite=True)
MPlus = Float("the length a present class is pushed above", gt=0, le=1)
MMinus = Float("the length an absent class is pushed below", ge=0, lt=1)
Lambda = Float("the weight of the absent classes", ge=0)


Targets = Tensor("integer class labels [batch] or [batch, k]")


@checked
def margin_loss(lengths: Lengths, targets: Targets, m_plus: MPlus = 0.9, m_minus: MMinus = 0.1,
                lam: Lambda = 0.5) -> torch.Tensor:
    """Eq. 4, summed over classes and averaged over the batch.

    ``lengths``: ``[batch, classes]`` capsule lengths ||v_k||; ``targets``: ``[batch]`` integer
    labels, or ``[batch, k]``: the k different classes present in each example (MultiMNIST's two
    digits, Section 6: T_k = 1 for both). The present classes are pushed above ``m_plus``, the
    absent ones below ``m_minus``; ``lam`` down-weights the absent classes so that early training
    does not shrink every capsule. Both terms are squared, as in the paper (notebook 09's bug zoo
    shows what the unsquared loss of some tutorials does: ``buggy.unsquared_margin_loss``).
    """
    T = _present_classes("margin_loss", lengths, targets, m_plus, m_minus)
    # L_k = T_k max(0, m+ - ||v_k||)^2 + lambda (1 - T_k) max(0, ||v_k|| - m-)^2
    L = T * F.relu(m_plus - lengths) ** 2 + lam * (1 - T) * F.relu(lengths - m_minus) ** 2
    return L.sum(dim=1).mean()


def _check_margins(where: str, m_plus: float, m_minus: float) -> None:
    """Refuse margins out of order, by the name of the function called (``where``)."""
    if not m_minus < m_plus:
        raise ValueError(f"{where}(): the margins must satisfy 0 <= m_minus < m_plus (a "
                         f"present class is pushed above m_plus, an absent one below m_minus), "
                         f"got m_plus={m_plus}, m_minus={m_minus}; the paper's are 0.9 and 0.1")


def _present_classes(where: str, lengths: torch.Tensor, targets: torch.Tensor, m_plus: float,
                    m_minus: float) -> torch.Tensor:
    """Eq. 4's T ``[batch, classes]`` (1 for the classes present), after the checks a margin
    loss makes of what it was given (``margin_loss``'s, and ``buggy.unsquared_margin_loss``'s):
    at least one example, lengths of squashed capsules, margins in order, labels of its classes."""
    batch, n_classes = lengths.shape
    if batch == 0:
        raise ValueError(f"{where}(): lengths holds no examples ([0, classes]); the loss is a "
                         "mean over the batch, so pass at least one")
    low, high = lengths.min().item(), lengths.max().item()
    if low < 0 or high > 1 + 1e-4:  # a squashed vector is shorter than 1 (rounding aside)
        raise ValueError(f"{where}(): lengths must be capsule lengths in [0, 1], got values "
                         f"from {low:.4g} to {high:.4g}; pass the lengths of squashed capsules "
                         "(v.norm(dim=-1)), not their unsquashed inputs or logits")
    _check_margins(where, m_plus, m_minus)
    sets = targets.ndim == 2
    check_labels(targets, f"{where}(): targets", batch, n_classes,
                 k=targets.shape[1] if sets else None)
    return class_targets(targets, n_classes).to(lengths.dtype)


@checked
def class_targets(targets: Tensor("class labels [batch] or [batch, k]"),
                  n_classes: Classes) -> torch.Tensor:
    """T ``[batch, classes]``: 1 for each class present, 0 for the others.

    ``targets``: one label per example ``[batch]``, or k different ones ``[batch, k]``."""
    if targets.ndim not in (1, 2):
        raise ValueError(f"class_targets(): targets must be class labels [batch] or [batch, k], "
                         f"got shape {tuple(targets.shape)}; pass one label per example")
    check_labels(targets, "class_targets(): targets", len(targets), n_classes,
                 k=targets.shape[1] if targets.ndim == 2 else None)
    present = targets.long() if targets.ndim == 2 else targets.long().unsqueeze(1)  # [batch, k]
    return F.one_hot(present, n_classes).sum(dim=1)  # [batch, k, classes] -> [batch, classes]


@checked
def reconstruction_loss(reconstruction: Tensor("the decoder's images", pixels=True),
                        images: Tensor("the images it reconstructs", pixels=True)
                        ) -> torch.Tensor:
    """Sum of squared pixel differences per image, averaged over the batch (Section 4.1).

    The paper scales it by 0.0005 before adding it to the margin loss; the model does that.
    """
    check_same("reconstruction_loss", "shape", "pass the decoder's images for the same batch, "
               "shaped as the images (.view(images.shape) for a flat [batch, pixels] output)",
               images=tuple(images.shape), reconstruction=tuple(reconstruction.shape))
    return ((reconstruction - images) ** 2).flatten(1).sum(dim=1).mean()


@checked
def margin_loss_curves(lengths: Tensor("capsule lengths [n]", ndim=1, finite=True,
                                       within=(0, 1), fix="pass lengths a squashed capsule "
                                       "can have, e.g. torch.linspace(0, 1, 101)"),
                       m_plus: MPlus = 0.9, m_minus: MMinus = 0.1, lam: Lambda = 0.5
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 4's loss L_k of one class as a function of its capsule length ``||v_k||``.

    Returns ``(present, absent)``: L_k when k is the true class (T_k = 1) and when it is not
    (T_k = 0), each the shape of ``lengths`` (1D). Computed with ``capsedu.margin_loss`` on
    one-class and two-class examples, so the plot shows the function the model trains with.
    ``m_plus``, ``m_minus``, ``lam`` as in ``margin_loss``.
    """
    if not len(lengths):
        raise ValueError("margin_loss_curves(): lengths must hold at least one length to draw the "
                         "curves at, got none; pass e.g. torch.linspace(0, 1, 101)")
    _check_margins("margin_loss_curves", m_plus, m_minus)
    margins = {"m_plus": m_plus, "m_minus": m_minus, "lam": lam}
    target = torch.zeros(1, dtype=torch.long)  # class 0 is the true class
    present = [margin_loss(length.view(1, 1), target, **margins) for length in lengths]
    # class 1 is absent; class 0 has length 1, above m_plus, so it adds no loss
    absent = [margin_loss(torch.stack([torch.ones(()), length]).view(1, 2), target, **margins)
              for length in lengths]
    return torch.stack(present), torch.stack(absent)

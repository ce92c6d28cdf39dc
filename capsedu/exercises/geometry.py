"""The checkers of pose geometry: a part's vote for its face and the transform W fitted to
noisy faces (notebook 07), an affNIST-style affine map (08) and the four turned copies of C4
filters (10, checked first by the equivariance of a layer built with them).
"""

from collections.abc import Callable

import torch

from ..data.transformed_mnist import affine_matrix
from ..group_conv import GroupConv, group_filters, rotate_c4
from ..parts.voting import exact_transforms, predicted_faces
from ..poses import pose_matrix
from ..validate import Function, checked
from .checking import _expect, _hint, check

# --- 07 · faces: parts vote for wholes ----------------------------------------------------------


def _face_vote(poses, W):
    """Reference for ``check_face_vote``: P W read back as (x, y, angle, scale) ``[N, 4]``."""
    return torch.from_numpy(predicted_faces(poses.numpy(), W.numpy()))


@checked(checker=True)
def check_face_vote(learner: Function("your face_vote(poses, W)")) -> bool | None:
    """Check a learner's ``face_vote(poses, W) -> [N, 4]``: the face pose (x, y, angle in
    (-180, 180], scale) that parts with poses ``[N, 4]`` (x, y, angle in degrees, scale) predict
    through one part-to-face transform W ``[3, 3]``: P_face|i = P_i W_i (notebook 07)."""
    g = torch.Generator().manual_seed(0)
    low, high = torch.tensor([0.1, 0.1, -180.0, 0.8]), torch.tensor([0.9, 0.9, 180.0, 1.2])
    poses = [(low + (high - low) * torch.rand(n, 4, generator=g)).double() for n in (5, 12)]
    W = torch.from_numpy(exact_transforms())
    # a part-to-face transform of another face: a pose matrix too (a turn, a scale, a shift)
    other = torch.from_numpy(pose_matrix(0.05, -0.1, 30.0, 1.2))
    cases = [(poses[0], W[0]), (poses[1], W[3]), (poses[1], other)]
    return check("face_vote", learner, _face_vote, cases)


def _fit_transform(P, F):
    """Reference for ``check_fit_transform``: least squares over the stacked equations P W = F."""
    return torch.linalg.lstsq(P.reshape(-1, 3), F.reshape(-1, 3)).solution


def _fit_pose_transform(P, F):
    """The other right answer, the fit of 07 section 3 (``pose_net.fit_transforms``): the same
    least squares with W's last row held at (0, 0, 1), as in every pose matrix. The top two rows
    of P W = F read A W_top = B with A = P[:2, :2] and B = F[:2] - P[:2, 2] (0, 0, 1)."""
    A = P[:, :2, :2].reshape(-1, 2)  # [2N, 2]
    B = (F[:, :2] - P[:, :2, 2:3] * torch.tensor([0.0, 0.0, 1.0], dtype=P.dtype)).reshape(-1, 3)
    top = torch.linalg.lstsq(A, B).solution  # [2, 3]
    return torch.cat([top, torch.tensor([[0.0, 0.0, 1.0]], dtype=P.dtype)])


@checked(checker=True)
def check_fit_transform(learner: Function("your fit_transform(P, F)")) -> bool | None:
    """Check a learner's ``fit_transform(P, F) -> W [3, 3]``: the W that best maps part pose
    matrices ``P [N, 3, 3]`` onto face pose matrices ``F [N, 3, 3]``: the least-squares solution
    of all N equations P W = F stacked (3N rows), with W free or, as notebook 07 fits it, with
    its last row held at (0, 0, 1): either passes. The faces are noisy, like detected ones, so
    solving one equation alone, or averaging per-face solutions, is not the answer."""
    g = torch.Generator().manual_seed(1)
    cases = []
    for n, kind in ((3, 0), (20, 3)):
        pose = torch.rand(4, n, generator=g).double() * torch.tensor([[0.8], [0.8], [360], [0.4]])
        pose += torch.tensor([[0.1], [0.1], [-180], [0.8]])
        P = torch.from_numpy(pose_matrix(*pose.numpy()))  # [n, 3, 3]
        F = P @ torch.from_numpy(exact_transforms()[kind])
        F[:, :2] += 0.01 * torch.randn(n, 2, 3, generator=g).double()  # noise in the top rows
        cases.append((P, F))
    return check("fit_transform", learner, (_fit_transform, _fit_pose_transform), cases,
                 atol=1e-6)


# --- 08 · viewpoint and robustness --------------------------------------------------------------


@checked(checker=True)
def check_affine_matrix(
        learner: Function("your affine_matrix(rotation, shear, scale_x, scale_y)")) -> bool | None:
    """Check a learner's ``affine_matrix(rotation, shear, scale_x, scale_y) -> [2, 2]``: the
    linear part of an affNIST-style map in pixel coordinates (y down), A = R(rotation) Sh(shear)
    S(scale_x, scale_y) with the rotation in degrees, counter-clockwise on screen
    (``transformed_mnist.affine_matrix``)."""
    cases = [(0.0, 0.0, 1.0, 1.0), (90.0, 0.0, 1.0, 1.0), (30.0, 0.0, 1.0, 1.0),
             (0.0, 0.2, 1.0, 1.0), (0.0, 0.0, 0.8, 1.2), (-20.0, 0.15, 1.1, 0.9),
             (45.0, -0.3, 0.7, 1.3)]

    def reference(rotation, shear, scale_x, scale_y):
        return affine_matrix(rotation, shear, scale_x, scale_y).double()

    return check("affine_matrix", learner, reference, cases, atol=1e-5,
                 describe=lambda c: "rotation={}, shear={}, scale_x={}, scale_y={}".format(*c))


# --- 10 · the legacy: equivariance --------------------------------------------------------------


def _c4_cases() -> list[tuple]:
    """C4 filters ``[C_out, C_in, 4, k, k]``: one or several filters, 1x1 to 5x5 kernels."""
    g = torch.Generator().manual_seed(0)
    shapes = [(1, 1, 4, 3, 3), (2, 3, 4, 3, 3), (3, 2, 4, 5, 5), (2, 2, 4, 1, 1)]
    return [(torch.randn(*shape, generator=g, dtype=torch.float64),) for shape in shapes]


@torch.no_grad()
def _turned_group_conv(stack: Callable, weight: torch.Tensor, x: torch.Tensor, r: int):
    """A ``GroupConv`` with filters ``weight``, stacked by ``stack``, applied to ``x`` turned by
    ``r`` quarter turns (``rotate_c4``). The layer computes with the filters ``stack`` returns:
    first they must be what ``group_filters`` returns in kind, shape, dtype and finiteness
    (``_expect``), so that a wrong one is told as the learner's, not as the layer's error."""
    c_out, c_in, _, k, _ = weight.shape
    layer = GroupConv(c_in, c_out, k).double()
    layer.weight.data = weight
    layer.stack = lambda w: _expect(stack(w), group_filters(w), "the filters you returned")
    return layer(rotate_c4(x, r))


# Known mistakes: (what the learner's filters match, in words; how the filters come out)
C4_MISTAKES = {
    "your four copies are the filter as it is, neither turned nor shifted: copy r turns every "
    "slice by r quarter turns and shifts the rotation axis by r":
        lambda W, r: W,
    "copy r turns every slice but does not shift the rotation axis: each slice of the input's "
    "rotation axis must move to where the turn sends it, W_r[:, :, s] = rot^r(W[:, :, s - r])":
        lambda W, r: torch.rot90(W, r, dims=(-2, -1)),
    "copy r shifts the rotation axis but does not turn the slices: turn each k x k slice too, "
    "torch.rot90(..., r, dims=(-2, -1))":
        lambda W, r: W.roll(r, dims=2),
    "the rotation axis shifts the wrong way: slice s of copy r comes from slice s - r "
    "(roll by +r), not s + r":
        lambda W, r: torch.rot90(W, r, dims=(-2, -1)).roll(-r, dims=2),
    "the slices turn the wrong way: torch.rot90 with +r turns the way the input turns (the way "
    "rotate_c4 turns feature maps)":
        lambda W, r: torch.rot90(W, -r, dims=(-2, -1)).roll(r, dims=2),
}


def _c4_mistake(answers: list, cases: list[tuple]) -> str | None:
    """The known mistake (``C4_MISTAKES``, or the order of the stacked copies) that the
    learner's filters ``answers`` show on every case, in words; None when they show none of
    them."""
    shapes_right = all(isinstance(a, torch.Tensor) and a.shape == group_filters(W).shape
                       for a, (W,) in zip(answers, cases, strict=True))
    if not shapes_right:
        return None

    def same(stacked):  # the learner's answer on every case equals stacked(W)
        return all(torch.allclose(a.double(), stacked(W)) for a, (W,) in zip(answers, cases,
                                                                                strict=True))

    for words, copy in C4_MISTAKES.items():
        # [C_out, 4 copies, C_in, 4, k, k] -> [C_out * 4, C_in * 4, k, k], as group_filters does
        if same(lambda W, copy=copy: torch.stack([copy(W, r) for r in range(4)], dim=1)
                .flatten(0, 1).flatten(1, 2)):
            return words
    if same(lambda W: torch.stack([rotate_c4(W, r) for r in range(4)]).flatten(0, 1)
            .flatten(1, 2)):
        return ("the right copies, stacked in the wrong order: output channel o * 4 + r must be "
                "filter o's copy r (stack the copies on dim 1, then flatten dims 0 and 1), so "
                "that each filter's four copies sit next to each other")
    if same(lambda W: torch.stack([rotate_c4(W, r) for r in range(4)], dim=1).transpose(2, 3)
            .flatten(0, 1).flatten(1, 2)):
        return ("the input channels are flattened in the wrong order: the input's channel "
                "i * 4 + s is its channel i at rotation s (as GroupConv flattens [B, C_in, 4, H, "
                "W]), so flatten the filters' dims C_in and 4 in that order, without swapping "
                "them")
    return None


@checked(checker=True)
def check_c4_filters(learner: Function("your c4_filters(weight)")) -> bool | None:
    """Check a learner's ``c4_filters(weight) -> [C_out * 4, C_in * 4, k, k]``: the four
    transformed copies of C4 filters ``weight`` ``[C_out, C_in, 4, k, k]`` that a group
    convolution stacks for one ``conv2d`` (``group_conv.group_filters``): copy r turns every
    k x k slice by r quarter turns and shifts the rotation axis by r,
    W_r[:, :, s] = rot^r(W[:, :, s - r]); output channel o * 4 + r is filter o's copy r.

    First the test that matters: a ``GroupConv`` built with the learner's filters must be
    equivariant, layer(rotate_c4(x, r)) = rotate_c4(layer(x), r) for r = 1, 2, 3. Then the
    filters are compared with ``group_filters``. A FAIL is followed by the known mistake the
    answers show, when there is one."""
    cases = _c4_cases()
    g = torch.Generator().manual_seed(1)
    turns = [(W, torch.randn(2, W.shape[1], 4, 9, 9, generator=g, dtype=torch.float64), r)
             for (W,) in cases for r in (1, 2, 3)]
    passed = check("GroupConv with your filters, equivariance",
                   lambda W, x, r: _turned_group_conv(learner, W, x, r),
                   lambda W, x, r: rotate_c4(_turned_group_conv(learner, W, x, 0), r), turns,
                   atol=1e-9,
                   describe=lambda c: f"filters {tuple(c[0].shape)}, {c[2]} quarter turn(s)")
    if passed:
        passed = check("c4_filters", learner, group_filters, cases, atol=1e-9,
                       describe=lambda c: f"filters of shape {tuple(c[0].shape)}")
    if passed is False:
        _hint(_c4_mistake, learner, cases)
    return passed

"""Exercise checkers: compare a learner's function with the reference on fixed inputs.

A checker never raises: it prints PASS or FAIL with the largest difference, or "not implemented
yet" while the learner's function still raises ``NotImplementedError`` -- so a notebook with
unsolved exercises still runs top to bottom. It also returns ``True``/``False``/``None``.
"""

from collections.abc import Callable

import torch

from .functional import squash
from .pose_capsules import exact_transforms, pose_matrix, predicted_faces
from .routing import routing_step


def check(name: str, learner: Callable, reference: Callable, cases: list[tuple], atol=1e-5):
    """Call ``learner(*case)`` and ``reference(*case)`` for each case and compare the results
    (a tensor, or a tuple of tensors compared element by element)."""
    worst = 0.0
    for args in cases:
        try:
            got = learner(*[a.clone() for a in args])
        except NotImplementedError:
            print(f"{name}: not implemented yet - replace the `raise NotImplementedError` line.")
            return None
        want = reference(*args)
        wants = want if isinstance(want, tuple) else (want,)
        gots = got if isinstance(got, tuple) else (got,)
        if len(gots) != len(wants):
            print(f"{name}: FAIL - expected {len(wants)} result(s), got {len(gots)}.")
            return False
        for g, w in zip(gots, wants, strict=True):
            if not isinstance(g, torch.Tensor) or g.shape != w.shape:
                shape = tuple(g.shape) if isinstance(g, torch.Tensor) else type(g).__name__
                print(f"{name}: FAIL - expected a tensor of shape {tuple(w.shape)}, got {shape}.")
                return False
            diff = (g.double() - w.double()).abs()
            worst = max(worst, float(diff.nan_to_num(float("inf")).max()))
    if worst <= atol:
        print(f"{name}: PASS (largest difference {worst:.2e} on {len(cases)} cases)")
        return True
    print(f"{name}: FAIL - largest difference from the reference is {worst:.3g} "
          f"(allowed {atol:g}).")
    return False


def check_squash(learner: Callable) -> bool | None:
    """Check a learner's ``squash(s)`` (Eq. 1 along the last dim) on batches and at s = 0."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(4, 8, generator=g),), (3 * torch.randn(2, 5, 16, generator=g),),
             (torch.zeros(3, 8),), (torch.tensor([[3.0, 4.0]]),)]
    return check("squash", learner, squash, cases)


def check_routing_step(learner: Callable) -> bool | None:
    """Check a learner's ``routing_step(u_hat, b) -> (c, v, b_new)``: one iteration of
    Procedure 1 with u_hat ``[batch, n_in, n_out, d]`` and logits b ``[batch, n_in, n_out]``."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(2, 6, 3, 4, generator=g), torch.zeros(2, 6, 3)),
             (torch.randn(1, 5, 4, 8, generator=g), torch.randn(1, 5, 4, generator=g)),
             (torch.randn(3, 4, 2, 16, generator=g), 2 * torch.randn(3, 4, 2, generator=g))]
    return check("routing_step", learner, routing_step, cases)


def _face_vote(poses, W):
    """Reference for ``check_face_vote``: P W read back as (x, y, angle, scale) ``[N, 4]``."""
    return torch.from_numpy(predicted_faces(poses.numpy(), W.numpy()))


def check_face_vote(learner: Callable) -> bool | None:
    """Check a learner's ``face_vote(poses, W) -> [N, 4]``: the face pose (x, y, angle in
    (-180, 180], scale) that parts with poses ``[N, 4]`` (x, y, angle in degrees, scale) predict
    through one part-to-face transform W ``[3, 3]``: P_face|i = P_i W_i (notebook 07)."""
    g = torch.Generator().manual_seed(0)
    low, high = torch.tensor([0.1, 0.1, -180.0, 0.8]), torch.tensor([0.9, 0.9, 180.0, 1.2])
    poses = [(low + (high - low) * torch.rand(n, 4, generator=g)).double() for n in (5, 12)]
    W = torch.from_numpy(exact_transforms())
    cases = [(poses[0], W[0]), (poses[1], W[3]),
             (poses[1], W[2] + 0.05 * torch.randn(3, 3, generator=g).double() * torch.tensor(
                 [[1.0, 1, 1], [1, 1, 1], [0, 0, 0]], dtype=torch.float64))]
    return check("face_vote", learner, _face_vote, cases)


def _fit_transform(P, F):
    """Reference for ``check_fit_transform``: least squares over the stacked equations P W = F."""
    return torch.linalg.lstsq(P.reshape(-1, 3), F.reshape(-1, 3)).solution


def check_fit_transform(learner: Callable) -> bool | None:
    """Check a learner's ``fit_transform(P, F) -> W [3, 3]``: the W that best maps part pose
    matrices ``P [N, 3, 3]`` onto face pose matrices ``F [N, 3, 3]``: the least-squares solution
    of all N equations P W = F stacked (3N rows). The faces are noisy, like detected ones, so
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
    return check("fit_transform", learner, _fit_transform, cases, atol=1e-6)

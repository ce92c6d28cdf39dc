"""Solutions to notebook 07's exercises: a part's vote for the face, and fitting W by least
squares."""

import torch


def face_vote(poses, W):
    """poses [N, 4] (x, y, angle in degrees, scale), W [3, 3] -> face poses [N, 4]."""
    x, y, angle, scale = poses.T
    c, s = torch.cos(torch.deg2rad(angle)), torch.sin(torch.deg2rad(angle))
    # P = [[s c, s s, x], [-s s, s c, y], [0, 0, 1]]: the part's pose matrix; [N, 3, 3]
    P = torch.zeros(len(poses), 3, 3, dtype=poses.dtype)
    P[:, 0, 0], P[:, 0, 1], P[:, 0, 2] = scale * c, scale * s, x
    P[:, 1, 0], P[:, 1, 1], P[:, 1, 2] = -scale * s, scale * c, y
    P[:, 2, 2] = 1.0
    # P_face|i = P_i W_i
    F = P @ W
    # read the pose back: position from the last column, angle and scale from the first one
    return torch.stack([F[:, 0, 2], F[:, 1, 2],
                        torch.rad2deg(torch.atan2(F[:, 0, 1], F[:, 0, 0])),
                        torch.hypot(F[:, 0, 0], F[:, 1, 0])], dim=-1)


def fit_transform(P, F):
    """P, F [N, 3, 3] -> the W [3, 3] that minimises sum_n ||P_n W - F_n||^2."""
    # stack the N equations P_n W = F_n into one system of 3N rows and solve it
    return torch.linalg.lstsq(P.reshape(-1, 3), F.reshape(-1, 3)).solution

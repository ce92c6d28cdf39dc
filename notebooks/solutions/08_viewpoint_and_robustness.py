"""Solutions to notebook 08's exercises: an affNIST-style affine map, and scoring MultiMNIST."""

import math

import torch


def my_affine_matrix(rotation, shear, scale_x, scale_y):
    # A = R(rotation) Sh(shear) S(scale_x, scale_y): scale first, then shear, then turn.
    # In pixel coordinates y points down, so a turn that looks counter-clockwise on screen is
    # [[cos, sin], [-sin, cos]] (the transpose of the textbook matrix for y pointing up).
    a = math.radians(rotation)
    R = torch.tensor([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    Sh = torch.tensor([[1.0, shear], [0.0, 1.0]])  # x += shear * y
    S = torch.diag(torch.tensor([float(scale_x), float(scale_y)]))
    return R @ Sh @ S


def my_both_correct(predicted, labels):
    # an image is right only when its two predicted classes are its two true classes, in either
    # order: sort each row, then ask that both entries match
    same = predicted.sort(dim=1).values == labels.sort(dim=1).values  # [N, 2]
    return same.all(dim=1).float().mean().item()

"""Solution to notebook 04's exercise: one iteration of Procedure 1."""

import torch

from capsedu import squash


def my_routing_step(u_hat, b):
    # c_ij = softmax of b_ij over the parents j; [batch, n_in, n_out]
    c = torch.softmax(b, dim=2)
    # s_j = sum_i c_ij u_hat_j|i; [batch, n_out, d]
    s = torch.einsum("bij,bijd->bjd", c, u_hat)
    # v_j = squash(s_j)
    v = squash(s)
    # b_ij <- b_ij + u_hat_j|i . v_j; [batch, n_in, n_out]
    return c, v, b + torch.einsum("bijd,bjd->bij", u_hat, v)

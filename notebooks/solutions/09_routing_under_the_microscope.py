"""Solution to notebook 09's exercise: find the bug in a routing function.

``PLANTED`` is the function the notebook gives: Procedure 1 with one bug in it. The fix, below,
changes one line: the softmax runs over the parents j (dim 2), not over the children i (dim 1).
"""

import torch

from capsedu import squash

PLANTED = '''\
def my_dynamic_routing(u_hat, iterations):
    # u_hat [batch, n_in, n_out, d] -> v [batch, n_out, d], c [batch, n_in, n_out]
    batch, n_in, n_out = u_hat.shape[:3]
    b = torch.zeros(batch, n_in, n_out)  # b_ij = 0
    for _ in range(iterations):
        c = torch.softmax(b, dim=1)  # c_i = softmax(b_i)
        s = torch.einsum("bij,bijd->bjd", c, u_hat)  # s_j = sum_i c_ij u_hat_j|i
        v = squash(s)  # v_j = squash(s_j)
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)  # b_ij <- b_ij + u_hat_j|i . v_j
    return v, c
'''


def my_dynamic_routing(u_hat, iterations):
    # u_hat [batch, n_in, n_out, d] -> v [batch, n_out, d], c [batch, n_in, n_out]
    batch, n_in, n_out = u_hat.shape[:3]
    b = torch.zeros(batch, n_in, n_out)  # b_ij = 0
    for _ in range(iterations):
        c = torch.softmax(b, dim=2)  # c_i = softmax(b_i): over the parents j
        s = torch.einsum("bij,bijd->bjd", c, u_hat)  # s_j = sum_i c_ij u_hat_j|i
        v = squash(s)  # v_j = squash(s_j)
        b = b + torch.einsum("bijd,bjd->bij", u_hat, v)  # b_ij <- b_ij + u_hat_j|i . v_j
    return v, c

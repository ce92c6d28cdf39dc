"""Solution to notebook 10's exercise: the filters of a C4 group convolution."""

import torch


def my_c4_filters(weight):
    # weight [C_out, C_in, 4, k, k]: each filter has one k x k slice per rotation s of its input.
    # Copy r is the filter turned by r quarter turns: every slice turns by r, and the slice that
    # looked at the input's rotation s - r now looks at rotation s (the input's rotation axis
    # cycles when the input turns): W_r[:, :, s] = rot^r(W[:, :, s - r]).
    c_out, c_in, n, k, _ = weight.shape
    copies = []
    for r in range(n):
        turned = torch.rot90(weight, r, dims=(-2, -1))  # every k x k slice turned r times
        copies.append(turned.roll(r, dims=2))  # slice s <- slice s - r
    stacked = torch.stack(copies, dim=1)  # [C_out, 4 copies, C_in, 4, k, k]
    # output channel o * 4 + r is filter o's copy r; input channel i * 4 + s is rotation s of
    # the input's channel i, as GroupConv flattens its input [B, C_in, 4, H, W]
    return stacked.reshape(c_out * n, c_in * n, k, k)

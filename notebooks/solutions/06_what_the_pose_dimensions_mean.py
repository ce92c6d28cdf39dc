"""Solution to notebook 06's exercise: the decoder's input, masked by the true label."""

import torch.nn.functional as F


def my_decoder_input(v, labels):
    # mask[b, j] = 1 if j == labels[b] else 0; [batch, 10]
    mask = F.one_hot(labels, v.shape[1]).to(v.dtype)
    # keep capsule labels[b] of example b, zero the other nine; [batch, 10, 16] -> [batch, 160]
    return (v * mask.unsqueeze(-1)).flatten(1)

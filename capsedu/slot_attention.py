"""Slot attention beside routing by agreement (notebook 10 §8): the same kind of softmax, and the
axis it runs over. Slot attention (Locatello et al. 2020) keeps a few slots that compete for the
inputs through a softmax over the slots, the axis of routing's softmax over the parents; the
attention of transformers takes it over the inputs, the axis of routing's softmax-over-children
bug (notebooks 04 and 09)."""

import torch

from .routing import _check_some
from .validate import Choice, Tensor, checked

SOFTMAX_OVER = {
    "slots": "slot attention (Locatello et al. 2020): each input's weights sum to 1 over the "
             "slots, as routing's couplings sum to 1 over the parents",
    "inputs": "ordinary attention: each slot's weights sum to 1 over the inputs, the axis of "
              "routing's softmax-over-children bug (notebooks 04 and 09)",
}


@checked
def attention_step(inputs: Tensor("inputs [batch, n_in, d]", ndim=3, finite=True),
                   slots: Tensor("slots [batch, n_slots, d]", ndim=3, finite=True),
                   softmax_over: Choice("the softmax's axis", *SOFTMAX_OVER) = "slots"
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """One step of dot-product attention between ``inputs`` ``[batch, n_in, d]`` and ``slots``
    ``[batch, n_slots, d]``, stripped to its normalisation (no learned projections, no GRU):
    the weights ``a`` ``[batch, n_in, n_slots]`` (laid out like routing's couplings c
    ``[batch, n_in, n_out]``) and each slot's new value ``[batch, n_slots, d]``, the weighted
    mean of the inputs.

    ``softmax_over="slots"`` is slot attention: the slots compete for each input, as parents
    compete for a child in routing by agreement. ``"inputs"`` is the attention of transformers:
    each slot (query) spreads one unit of attention over the inputs, and nothing stops two slots
    from taking the same input."""
    if inputs.dtype != slots.dtype:
        raise TypeError(f"attention_step(): inputs and slots must share one dtype, got "
                        f"{inputs.dtype} and {slots.dtype}; convert one, e.g. "
                        "slots.to(inputs.dtype)")
    if inputs.shape[0] != slots.shape[0] or inputs.shape[2] != slots.shape[2]:
        raise ValueError(f"attention_step(): slots [batch, n_slots, d] must share batch and d with "
                         f"inputs [batch, n_in, d], got {tuple(slots.shape)} and "
                         f"{tuple(inputs.shape)}; pass slots for the same batch as the "
                         "inputs, each of the inputs' length d")
    _check_some("attention_step", "inputs", inputs, "[batch, n_in, d]")
    _check_some("attention_step", "slots", slots, "[batch, n_slots, d]")
    d = inputs.shape[-1]
    # logit_ij = x_i . s_j / sqrt(d): how well input i matches slot j; [batch, n_in, n_slots]
    logits = torch.einsum("bid,bjd->bij", inputs, slots) / d**0.5
    # a_ij = exp(logit_ij) / sum_k exp(logit_ik)  (over the slots k), or
    # a_ij = exp(logit_ij) / sum_k exp(logit_kj)  (over the inputs k)
    a = torch.softmax(logits, dim=2 if softmax_over == "slots" else 1)
    # s_j = sum_i a_ij x_i / sum_i a_ij: the mean of the inputs, weighted by what slot j took;
    # [batch, n_slots, d] (over the inputs, sum_i a_ij = 1 already)
    weight = a.sum(dim=1).clamp_min(torch.finfo(a.dtype).tiny)[..., None]  # [batch, n_slots, 1]
    updated = torch.einsum("bij,bid->bjd", a, inputs) / weight
    return a, updated

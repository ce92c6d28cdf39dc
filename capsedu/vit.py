"""A small vision transformer, with and without position embeddings (10 §8).

Dosovitskiy et al. (2021), "An Image is Worth 16x16 Words", arXiv:2010.11929, in a few lines: cut
the image into ``patch x patch`` tiles, embed each tile as a vector (a token), add a learned
position embedding per tile, let ``depth`` transformer layers mix the tokens by self-attention,
average the tokens and read the classes off the average (the paper reads a class token; the mean
is Beyer, Zhai & Kolesnikov's simpler choice, arXiv:2205.01580, and it makes the point below
plain).

Without position embeddings nothing in the network knows where a tile came from. Self-attention
and the per-token layers are *equivariant* to reordering the tokens (reorder the input and the
output is reordered the same way), and the mean over tokens is *invariant* to it: the whole
network gives the same answer, to float rounding, for an image whose tiles are shuffled on its
own grid. It is notebook 01's bag-of-parts model in another form. With position embeddings each
token carries its place, and the network can learn the arrangement.
"""

import torch
from torch import nn

from .baselines import LogitClassifier
from .checks import check_input, check_pixels
from .course_settings import MAX_IMAGE, MAX_WIDTH, LogitClasses
from .memory import check_memory
from .validate import Flag, Float, Int, checked

MAX_DEPTH = 64  # transformer layers


def _vit_bytes(n_tokens: int, patch_numbers: int, dim: int, depth: int, heads: int, mlp: int,
              n_classes: int) -> int:
    """Bytes (float32) of a ViT's weights and of what one layer holds while it reads one image:
    sizes in range can still multiply past the memory (1024 x 1024 tiles of 1 pixel are a
    million tokens, whose attention is heads x a million x a million numbers)."""
    layer = 4 * dim * dim + 2 * dim * mlp + mlp + 9 * dim  # attention, MLP, biases, 2 norms
    weights = (patch_numbers + 1) * dim + n_tokens * dim + depth * layer + (dim + 1) * n_classes
    # one image: the attention's scores and weights [heads, n_tokens, n_tokens], and the
    # tokens' q, k, v, output [n_tokens, 4 * dim] and MLP hidden units [n_tokens, mlp]
    reading = 2 * heads * n_tokens**2 + n_tokens * (4 * dim + mlp)
    return 4 * (weights + reading)


class VisionTransformer(LogitClassifier):
    """Patch embedding -> (+ position embedding) -> ``depth`` pre-norm transformer layers ->
    mean over tokens -> class logits; ``position=False`` leaves the position embedding out."""

    @checked
    def __init__(self, image_size: Int("the images' side in pixels", ge=1, le=MAX_IMAGE) = 28,
                 patch: Int("a tile's side in pixels; it must divide image_size", ge=1,
                            le=MAX_IMAGE) = 4,
                 in_channels: Int("the image's channels", ge=1, le=MAX_WIDTH) = 1,
                 n_classes: LogitClasses = 10,
                 dim: Int("a token's dimensions", ge=1, le=MAX_WIDTH) = 64,
                 depth: Int("transformer layers", ge=1, le=MAX_DEPTH) = 4,
                 heads: Int("attention heads; they must divide dim", ge=1, le=MAX_WIDTH) = 4,
                 mlp: Int("hidden units of each layer's MLP", ge=1, le=MAX_WIDTH) = 128,
                 position: Flag("True to add a learned position embedding per tile") = True,
                 dropout: Float("the share of units dropped in training", ge=0, lt=1) = 0.0):
        if image_size % patch:
            raise ValueError(f"VisionTransformer(): patch must divide image_size, got patch={patch}"
                             f" and image_size={image_size}; pick a patch side that divides it")
        if dim % heads:
            raise ValueError(f"VisionTransformer(): heads must divide dim, got heads={heads} and "
                             f"dim={dim}; pick a number of heads that divides dim")
        n_tokens = (image_size // patch) ** 2
        check_memory(_vit_bytes(n_tokens, in_channels * patch**2, dim, depth, heads, mlp,
                                n_classes),
                     f"VisionTransformer's weights and one image's attention ({n_tokens:,} "
                     f"tokens of {dim} dimensions, {heads} heads, {depth} layers)", "use larger "
                     "patches (fewer tokens), a smaller dim or fewer layers")
        super().__init__()
        self.hparams = dict(image_size=image_size, patch=patch, in_channels=in_channels,
                            n_classes=n_classes, dim=dim, depth=depth, heads=heads, mlp=mlp,
                            position=position, dropout=dropout)
        # a patch x patch convolution with stride patch embeds each tile on its own
        self.embed = nn.Conv2d(in_channels, dim, patch, stride=patch)
        self.position = nn.Parameter(0.02 * torch.randn(1, n_tokens, dim)) if position else None
        layer = nn.TransformerEncoderLayer(dim, heads, mlp, dropout, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, image_size, image_size]`` -> class logits ``[B, n_classes]``."""
        check_input(x, f"{type(self).__name__}(): x", self, some=True)
        check_pixels(x, f"{type(self).__name__}(): x")
        tokens = self.embed(x).flatten(2).transpose(1, 2)  # [B, n_tokens, dim], row by row
        if self.position is not None:
            tokens = tokens + self.position  # each token now says where its tile was
        # self-attention and the MLPs: reorder the tokens, and the output is reordered alike
        tokens = self.encoder(tokens)  # [B, n_tokens, dim]
        # the mean over tokens forgets their order: invariant to it
        return self.head(self.norm(tokens).mean(dim=1))  # [B, n_classes]

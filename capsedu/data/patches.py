"""Images cut into tiles and put back in another order: the right parts in the wrong places, for
any image (10 §8; notebook 01 scrambles a face's parts, this scrambles any image's tiles)."""

import torch

from ..validate import Int, Seed, Tensor, checked


def tiles(images: torch.Tensor, grid: int) -> torch.Tensor:
    """``images`` ``[B, C, H, W]`` cut into ``grid x grid`` tiles, row by row:
    ``[B, grid * grid, C, H / grid, W / grid]``."""
    b, c, h, w = images.shape
    th, tw = h // grid, w // grid
    # [B, C, grid, th, grid, tw] -> [B, grid, grid, C, th, tw]
    cut = images.reshape(b, c, grid, th, grid, tw).permute(0, 2, 4, 1, 3, 5)
    return cut.reshape(b, grid * grid, c, th, tw)


def untile(pieces: torch.Tensor, grid: int) -> torch.Tensor:
    """``tiles``' inverse: ``[B, grid * grid, C, th, tw]`` -> ``[B, C, grid * th, grid * tw]``."""
    b, _, c, th, tw = pieces.shape
    rows = pieces.reshape(b, grid, grid, c, th, tw).permute(0, 3, 1, 4, 2, 5)
    return rows.reshape(b, c, grid * th, grid * tw)


@checked
def shuffle_tiles(images: Tensor("images [B, C, H, W]", ndim=4, floating=True),
                  grid: Int("tiles along each side; it must divide the image's sides", ge=1,
                            le=1024),
                  seed: Seed = 0) -> torch.Tensor:
    """Each image of ``images`` ``[B, C, H, W]`` cut into ``grid x grid`` tiles, the tiles put
    back in an order of its own (drawn with ``seed``): ``[B, C, H, W]``, the same pixels."""
    b, _, h, w = images.shape
    if h % grid or w % grid:
        raise ValueError(f"shuffle_tiles(): grid must divide the images' sides, got grid={grid} "
                         f"for {h}x{w} images; pick a divisor of {h} and {w}")
    generator = torch.Generator().manual_seed(seed)
    order = torch.rand(b, grid * grid, generator=generator).argsort(dim=1)  # [B, grid^2]
    pieces = tiles(images, grid)
    shuffled = pieces[torch.arange(b)[:, None], order.to(images.device)]  # each image its order
    return untile(shuffled, grid)

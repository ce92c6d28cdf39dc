"""Images cut into tiles and put back in another order: the right parts in the wrong places, for
any image (10 §8; notebook 01 scrambles a face's parts, this scrambles any image's tiles)."""

from typing import Annotated, Any

import torch
from pydantic import AfterValidator

from ..checks import check_rows
from ..course_settings import Rows, Seed, Text
from ..validate import Int, Tensor, checked
from .mnist import load_mnist

Grid = Int("tiles along each side; it must divide the image's sides", ge=1, le=1024)


@checked
def GridOf(side: Int("the images' side in pixels", ge=1, le=1024), what: Text) -> Any:
    """``Grid`` for ``what`` (an image, a digit) ``side`` x ``side`` pixels, the one rule of every
    entry and record of such grids: a divisor of ``side`` (tiles of unequal sizes cannot trade
    places)."""
    def divides(grid: int) -> int:
        if side % grid:
            divisors = ", ".join(str(d) for d in range(1, side + 1) if side % d == 0)
            raise ValueError(f"must divide {side} (the {what}'s side) into whole tiles, one of "
                             f"{divisors}, got {grid}; pass one of those")
        return grid

    return Annotated[Int(f"tiles along each side of a {side} x {side} {what}; a divisor of "
                         f"{side}", ge=1, le=side), AfterValidator(divides)]


def _check_grid(where: str, images: torch.Tensor, grid: int) -> None:
    """Refuse a ``grid`` that does not divide the sides of ``images`` ``[..., H, W]`` (tiles of
    unequal sizes cannot trade places), in the words of the entry ``where``."""
    h, w = images.shape[-2:]
    if h % grid or w % grid:
        raise ValueError(f"{where}(): grid must divide the images' sides, got grid={grid} for "
                         f"{h}x{w} images; pick a divisor of {h} and {w}")


@checked
def tiles(images: Tensor("images [B, C, H, W]", ndim=4), grid: Grid) -> torch.Tensor:
    """``images`` ``[B, C, H, W]`` cut into ``grid x grid`` tiles, row by row:
    ``[B, grid * grid, C, H / grid, W / grid]``."""
    _check_grid("tiles", images, grid)
    b, c, h, w = images.shape
    th, tw = h // grid, w // grid
    # [B, C, grid, th, grid, tw] -> [B, grid, grid, C, th, tw]
    cut = images.reshape(b, c, grid, th, grid, tw).permute(0, 2, 4, 1, 3, 5)
    return cut.reshape(b, grid * grid, c, th, tw)


@checked
def untile(pieces: Tensor("tiles [B, grid * grid, C, th, tw]", ndim=5),
           grid: Grid) -> torch.Tensor:
    """``tiles``' inverse: ``[B, grid * grid, C, th, tw]`` -> ``[B, C, grid * th, grid * tw]``."""
    b, n, c, th, tw = pieces.shape
    if n != grid * grid:
        raise ValueError(f"untile(): pieces must hold grid * grid = {grid * grid} tiles per image, "
                         f"got {n}; pass the grid they were cut with")
    rows = pieces.reshape(b, grid, grid, c, th, tw).permute(0, 3, 1, 4, 2, 5)
    return rows.reshape(b, c, grid * th, grid * tw)


@checked
def shuffle_tiles(images: Tensor("images [B, C, H, W]", ndim=4, floating=True),
                  grid: Grid, seed: Seed = 0) -> torch.Tensor:
    """Each image of ``images`` ``[B, C, H, W]`` cut into ``grid x grid`` tiles, the tiles put
    back in an order of its own (drawn with ``seed``): ``[B, C, H, W]``, the same pixels."""
    b = len(images)
    _check_grid("shuffle_tiles", images, grid)
    pieces = tiles(images, grid)
    generator = torch.Generator().manual_seed(seed)
    order = torch.rand(b, grid * grid, generator=generator).argsort(dim=1)  # [B, grid^2]
    shuffled = pieces[torch.arange(b)[:, None], order.to(images.device)]  # each image its order
    return untile(shuffled, grid)


SHUFFLE_SEED = 0  # the order each image's tiles are put back in (10 §8)


@checked
def shuffled_digits(grid: Int("tiles along each side of a 28 x 28 digit; a divisor of 28", ge=1,
                              le=28), rows: Rows | None = None
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """The 10,000 MNIST test digits, each with its tiles shuffled on a ``grid x grid`` grid in an
    order of its own (``SHUFFLE_SEED``; 1 leaves them as drawn): ``(images [N, 1, 28, 28], labels
    [N])``. ``rows``: those digits only (``mnist.fixed_sample``), each shuffled as in the whole
    set, so a sample's digits are rows of the full set."""
    _check_grid("shuffled_digits", torch.empty(0, 1, 28, 28), grid)  # before the digits load
    images, labels = load_mnist(train=False)
    if grid > 1:
        images = shuffle_tiles(images, grid, SHUFFLE_SEED)
    keep = check_rows("shuffled_digits", rows, len(labels))
    return images[keep], labels[keep]

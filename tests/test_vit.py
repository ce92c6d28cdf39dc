"""The vision transformer of 10 §8: without position embeddings it is invariant to shuffling its
own tiles (exactly, up to float rounding), with them it is not; tiles cut and put back."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis.strategies import integers, sampled_from

from capsedu.data.patches import shuffle_tiles, tiles, untile
from capsedu.vit import VisionTransformer


def small(position: bool, image_size: int = 12, patch: int = 3) -> VisionTransformer:
    torch.manual_seed(0)
    return VisionTransformer(image_size=image_size, patch=patch, dim=16, depth=2, heads=2,
                             mlp=32, position=position).eval()


def test_without_positions_shuffling_its_own_tiles_changes_nothing():
    """Tiles of the model's own patch size, reordered: the tokens are the same set, attention
    and the per-token layers carry any order through, and the mean forgets it."""
    x = torch.rand(8, 1, 12, 12, dtype=torch.float32)
    shuffled = shuffle_tiles(x, grid=4, seed=1)  # 4 x 4 tiles of 3 px: the model's patches
    assert not torch.equal(x, shuffled)
    with torch.no_grad():
        bag, placed = small(False), small(True)
        assert torch.allclose(bag(x), bag(shuffled), atol=1e-5)
        assert not torch.allclose(placed(x), placed(shuffled), atol=1e-3)


def test_tiles_that_do_not_match_its_patches_change_its_answer():
    """Shuffling 2 x 2 tiles of 6 px moves pixels across the model's 3 px patches only as whole
    blocks of 2 x 2 patches: the tokens are still the same set, so the bag model is invariant to
    that too; a shift by 1 px is not a reordering of patches, and changes the answer."""
    x = torch.rand(4, 1, 12, 12)
    bag = small(False)
    with torch.no_grad():
        assert torch.allclose(bag(x), bag(shuffle_tiles(x, grid=2, seed=0)), atol=1e-5)
        assert not torch.allclose(bag(x), bag(torch.roll(x, 1, dims=3)), atol=1e-3)


@settings(max_examples=20, deadline=None)
@given(grid=sampled_from([1, 2, 3, 4, 6]), seed=integers(0, 1000),
       channels=integers(1, 3))
def test_shuffled_tiles_are_the_same_pixels_and_untile_inverts_tile(grid, seed, channels):
    x = torch.rand(3, channels, 12, 12)
    assert torch.equal(untile(tiles(x, grid), grid), x)
    shuffled = shuffle_tiles(x, grid, seed)
    assert torch.equal(shuffled.flatten(1).sort(dim=1).values, x.flatten(1).sort(dim=1).values)
    # every tile of the shuffled image is one of the original's tiles
    for a, b in zip(tiles(x, grid), tiles(shuffled, grid), strict=True):
        assert all(any(torch.equal(t, u) for u in a) for t in b)
    assert torch.equal(shuffle_tiles(x, grid, seed), shuffled)


def test_it_trains_like_every_model_of_the_course():
    model = small(True).train()
    x, y = torch.rand(6, 1, 12, 12), torch.tensor([0, 1, 2, 3, 4, 5])
    loss, predicted = model.training_loss(x, y)
    loss.backward()
    assert predicted.shape == (6,) and model.embed.weight.grad is not None
    assert model.position.grad is not None
    score, cut = model.eval().score(x, 3)
    assert score.shape == cut.shape == (6,)


@pytest.mark.parametrize("call, words", [
    (lambda: VisionTransformer(image_size=28, patch=5), "patch must divide image_size"),
    (lambda: VisionTransformer(dim=30, heads=4), "heads must divide dim"),
    (lambda: VisionTransformer(position="False"), "position must be True or False"),
    (lambda: shuffle_tiles(torch.rand(1, 1, 10, 10), grid=3), "grid must divide"),
    (lambda: small(False)(torch.rand(1, 1, 10, 10)), "x must have shape"),
])
def test_bad_input_is_refused_naming_it(call, words):
    with pytest.raises((TypeError, ValueError), match=words):
        call()

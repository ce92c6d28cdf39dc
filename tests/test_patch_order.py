"""10 §8's experiment: the face ViTs' recipes and shipped runs, the records of ``measure`` on tiny
inputs, and the exact invariance of the shipped ViT without positions to its own tiles."""

import dataclasses
from pathlib import Path

import pytest
import torch

from capsedu import patch_order
from capsedu.capsnet import count_parameters
from capsedu.checkpoints import read_manifest
from capsedu.parts.scoring import held_out
from capsedu.recipes import RECIPES
from capsedu.statistics import OverSeeds, Paired, SeedDifference
from capsedu.stopping_rule import PATIENCE, converged
from capsedu.vit import VisionTransformer

MANIFEST = Path(__file__).parent.parent / "data" / "checkpoints" / "manifest.json"


def tiny(position: bool, seed: int, image_size: int = 32, n_classes: int = 2
         ) -> VisionTransformer:
    """A tiny ViT of 4-pixel patches: a face model by default, a digit model with 28 and 10."""
    torch.manual_seed(seed)
    return VisionTransformer(image_size=image_size, patch=4, n_classes=n_classes, dim=8, depth=1,
                             heads=2, mlp=8, position=position).eval()


def test_the_vit_recipes_train_like_the_face_cnns_and_are_sized_like_the_deep_one():
    cnn = RECIPES["faces-deep-cnn"]
    for name, position in (("faces-vit", True), ("faces-vit-no-positions", False)):
        recipe = RECIPES[name]
        assert (recipe.data, recipe.examples, recipe.batch_size, recipe.seed) == (
            cnn.data, cnn.examples, cnn.batch_size, cnn.seed)
        assert recipe.patience == PATIENCE and recipe.trainer == "capsedu.patch_order"
        model = recipe.build()
        assert model.hparams["position"] is position
        # the deep face CNN has 60,354 parameters; the position embedding adds 64 x 48
        assert abs(count_parameters(model) - count_parameters(cnn.build())) < 3000


def test_every_vit_run_is_shipped_with_its_held_out_curve_and_converged():
    rows = read_manifest(MANIFEST.parent)
    for name in patch_order.VITS:
        for seed in patch_order.SEEDS:
            row = rows[patch_order.checkpoint_name(name, seed)]
            assert row.command.startswith(patch_order.COMMAND) and row.seed == seed
            assert row.description == RECIPES[patch_order.VITS[name]].description
            assert row.arch == "VisionTransformer"
            scores = row.metrics.validation_by_epoch
            assert converged(scores, PATIENCE) and row.metrics.converged
            assert len(scores) < row.metrics.max_epochs  # the rule stopped it, not the budget


def test_the_shipped_vit_without_positions_is_blind_to_its_own_tiles_and_the_other_is_not():
    images = torch.cat([held_out("face", 32)[0], held_out("swapped", 32)[0]])
    blind = patch_order.load_models([0], ("ViT without positions", "ViT"))
    same = patch_order.largest_change(blind["ViT without positions"][0], images,
                                      patch_order.OWN_GRID)
    assert same.largest_change < 1e-5 and same.answers_changed == 0 and same.n == 64
    moved = patch_order.largest_change(blind["ViT"][0], images, patch_order.OWN_GRID)
    assert moved.largest_change > 0.1 and "answers changed" in str(moved)


def test_measure_returns_typed_frozen_records_on_tiny_models():
    models = {"bag": [tiny(False, 0), tiny(False, 1)], "placed": [tiny(True, 0), tiny(True, 1)]}
    result = patch_order.measure(models, [0, 1], kinds=("face", "swapped"), n=6, grids=(1, 8),
                                 pairs=[("placed", "bag")])
    assert len(result.rates) == 4 and len(result.comparisons) == 2 and len(result.shuffles) == 4
    rate = result.rate("bag", "swapped")
    assert isinstance(rate.over_seeds, OverSeeds) and len(rate.by_seed) == 2
    assert all(0 <= r <= 1 for r in rate.by_seed)
    comparison = result.comparisons[0]
    assert isinstance(comparison.over_seeds, SeedDifference) and not comparison.over_seeds.by_seed
    assert all(isinstance(p, Paired) and p.n == 6 for p in comparison.by_seed)
    # blind to its own 8 x 8 tiles: the same accuracy shuffled as drawn, seed by seed
    assert result.accuracy("bag", 8).by_seed == result.accuracy("bag", 1).by_seed
    assert "of 2 comparisons" in result.tally() and "of 4 comparisons" in result.paired_tally()
    assert "swapped" in patch_order.rate_table(result, ("face", "swapped"))
    assert "8x8 shuffled" in patch_order.shuffle_table(result)
    assert result.seed_runs("bag").rates["face"] == list(result.rate("bag", "face").by_seed)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.n = 3


def test_run_metrics_reads_fits_history_of_epoch_records():
    from capsedu.loop import Epoch

    history = [Epoch(1, 1.0, validation_accuracy=0.6), Epoch(2, 1.0, validation_accuracy=0.8),
               Epoch(3, 1.0, validation_accuracy=0.7)]
    metrics = patch_order.run_metrics(tiny(False, 0), history, 40)
    assert (metrics.chosen_epoch, metrics.epochs, metrics.max_epochs) == (2, 3, 40)
    assert metrics.validation_by_epoch == (0.6, 0.8, 0.7) and not metrics.converged
    assert 0 <= metrics.held_out_accuracy <= 1


@pytest.mark.parametrize("call, words", [
    (lambda: patch_order.measure({"a": [tiny(False, 0)]}, [0]), "seeds must hold at least 2 seeds"),
    (lambda: patch_order.measure({"a": [tiny(False, 0)]}, [0, 1]), "one model per seed"),
    (lambda: patch_order.measure({"a": [tiny(False, 0)] * 2}, [0, 1], pairs=[("a", "b")]),
     "pairs must name"),
    (lambda: patch_order.shuffled_accuracy(tiny(False, 0), grid=5, n=2), "grid must divide"),
    (lambda: patch_order.load_models([0], ("pixel CapsNet",)), "names must"),
    (lambda: patch_order.checkpoint_name("CNN", 0), "name"),
    (lambda: patch_order.largest_change(tiny(False, 0), torch.rand(2, 32, 32)), "images"),
])
def test_bad_input_is_refused_naming_it(call, words):
    with pytest.raises((TypeError, ValueError), match=words):
        call()


@pytest.mark.parametrize("name", patch_order.VITS)
def test_a_shipped_vit_is_the_epoch_chosen_on_its_held_out_images(name):
    from capsedu.loop import evaluate

    row = read_manifest()[patch_order.checkpoint_name(name, 0)]
    images, labels = patch_order.validation_set()
    assert len(labels) == row.metrics.validation_examples
    accuracy = evaluate(patch_order.load_models([0], (name,))[name][0], (images, labels))
    assert accuracy == pytest.approx(max(row.metrics.validation_by_epoch), abs=1.5 / 800)


def test_each_vit_run_has_its_own_colour_in_the_figures():
    from capsedu.figures.colours import MODEL_COLOURS, model_colour

    assert model_colour(patch_order.checkpoint_name("ViT", 1)) == MODEL_COLOURS["ViT"]
    for name in ("ViT without positions", patch_order.checkpoint_name("ViT without positions", 0)):
        assert model_colour(name) == MODEL_COLOURS["ViT without positions"]
    assert model_colour("rotmnist-gcnn-seed1") == MODEL_COLOURS["G-CNN"]

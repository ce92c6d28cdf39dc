"""10 §8 on MNIST: the ViTs trained like the CNN beside them, the exact blindness of the ViT
without positions to its own tiles of a digit, and the measurement on shuffled test digits."""

import dataclasses
from pathlib import Path

import pytest
import test_patch_order
import torch

from capsedu import digit_shuffles, patch_order
from capsedu.capsnet import count_parameters
from capsedu.checkpoints import read_manifest
from capsedu.data.mnist import fixed_sample, load_mnist
from capsedu.data.patches import shuffled_digits
from capsedu.recipes import RECIPES, seeded_name
from capsedu.statistics import Paired
from capsedu.stopping_rule import PATIENCE, converged
from capsedu.vit import VisionTransformer

MANIFEST = Path(__file__).parent.parent / "data" / "checkpoints" / "manifest.json"


def tiny(position: bool, seed: int) -> VisionTransformer:
    return test_patch_order.tiny(position, seed, image_size=28, n_classes=10)


def test_the_mnist_vits_train_like_the_cnn_beside_them_and_are_its_size():
    cnn = RECIPES[digit_shuffles.MODELS["CNN"]]
    for name, position in (("ViT", True), ("ViT without positions", False)):
        recipe = RECIPES[digit_shuffles.MODELS[name]]
        shared = [f.name for f in dataclasses.fields(recipe)
                  if f.name not in ("description", "build", "lr")]
        assert [getattr(recipe, f) for f in shared] == [getattr(cnn, f) for f in shared]
        model = recipe.build()
        assert model.hparams["position"] is position
        assert model.hparams["patch"] * digit_shuffles.OWN_GRID == 28
        assert abs(count_parameters(model) - count_parameters(cnn.build())) < 3000


@pytest.mark.parametrize("name", ["ViT", "ViT without positions"])
def test_every_mnist_vit_run_is_shipped_converged_by_the_rule(name):
    rows = read_manifest(MANIFEST.parent)
    for seed in patch_order.SEEDS:
        row = rows[seeded_name(digit_shuffles.MODELS[name], seed)]
        assert row.command.startswith(f"python -m capsedu.train {digit_shuffles.MODELS[name]}")
        assert row.seed == seed and row.arch == "VisionTransformer"
        scores = row.metrics.validation_by_epoch
        assert converged(scores, PATIENCE) and row.metrics.converged
        assert len(scores) < row.metrics.max_epochs


def test_the_shipped_vit_without_positions_is_blind_to_its_own_tiles_of_a_digit_only():
    digits = load_mnist(train=False)[0][:64]
    models = digit_shuffles.load_models([0], ("ViT without positions", "ViT"))
    same = digit_shuffles.largest_change(models["ViT without positions"][0], digits)
    assert same.largest_change < 1e-5 and same.answers_changed == 0
    blind = models["ViT without positions"][0]
    assert digit_shuffles.largest_change(blind, digits, 14).answers_changed > 0
    assert digit_shuffles.largest_change(models["ViT"][0], digits).answers_changed > 0


def test_a_vit_without_positions_is_blind_to_its_own_7x7_tiles_of_a_digit_and_no_others():
    digits = torch.rand(16, 1, 28, 28)
    own = digit_shuffles.largest_change(tiny(False, 0), digits)
    assert own.grid == 7 and own.largest_change < 1e-5 and own.answers_changed == 0
    assert own.n == 16 and "a digit's probability" in str(own)
    # 14-pixel tiles cut its 4-pixel patches: no longer a reordering of its tokens
    assert digit_shuffles.largest_change(tiny(False, 0), digits, 2).largest_change > 1e-4
    assert digit_shuffles.largest_change(tiny(True, 0), digits).largest_change > 1e-4


def test_a_samples_shuffled_digits_are_rows_of_the_full_shuffled_set():
    rows = fixed_sample(50)
    full_images, full_labels = shuffled_digits(4)
    images, labels = shuffled_digits(4, rows)
    assert torch.equal(images, full_images[rows]) and torch.equal(labels, full_labels[rows])
    upright = load_mnist(train=False)[0][rows]
    assert torch.equal(shuffled_digits(1, rows)[0], upright)
    # the same pixels, each digit's tiles in another order
    assert torch.equal(images.flatten(1).sort(dim=1).values, upright.flatten(1).sort(dim=1).values)
    assert not torch.equal(images, upright)


def test_measure_reads_each_model_on_the_same_shuffled_digits():
    from capsedu.loop import predict

    models = {"bag": [tiny(False, 0), tiny(False, 1)], "placed": [tiny(True, 0), tiny(True, 1)]}
    rows = fixed_sample(12)
    result = digit_shuffles.measure(models, [0, 1], rows, grids=(1, 7, 14),
                                    pairs=[("placed", "bag")])
    assert len(result.shuffles) == 6 and len(result.comparisons) == 3 and result.n == 12
    # as drawn, each seed's accuracy is its plain accuracy, computed here independently
    digits, labels = load_mnist(train=False)
    right = (predict(models["placed"][1], digits[rows]) == labels[rows]).float().mean().item()
    assert result.accuracy("placed", 1).by_seed[1] == pytest.approx(right)
    assert result.accuracy("bag", 7).by_seed == result.accuracy("bag", 1).by_seed
    comparison = result.comparisons[0]
    assert (comparison.condition, comparison.first, comparison.second) == (1, "placed", "bag")
    assert all(isinstance(p, Paired) and p.n == 12 for p in comparison.by_seed)
    assert "of 3 comparisons" in result.tally() and "of 6 comparisons" in result.paired_tally()
    assert "14x14 shuffled" in patch_order.shuffle_table(result)
    for call, words in ((lambda: digit_shuffles.measure({"bag": models["bag"][:1]}, [0, 1], rows),
                         "one model per seed"),
                        (lambda: digit_shuffles.measure(models, [0, 1], rows,
                                                        pairs=[("bag", "CNN")]),
                         "pairs must name"),
                        (lambda: digit_shuffles.measure(models, [0, 1], rows, grids=(5,),
                                                        pairs=[("placed", "bag")]),
                         r"measure\(\): grids\[0\] must divide 28"),
                        (lambda: digit_shuffles.load_models([0], ("G-CNN",)), "names")):
        with pytest.raises((TypeError, ValueError), match=words):
            call()


def test_default_modes_verdicts_on_shuffled_digits_are_the_full_sets():
    from capsedu.robustness import OnSample

    # 10 §8 measures 500 digits of the sample in default mode (pick(full=500, quick=200)):
    # each comparison over seeds tells there what it tells on all 10,000, from the record
    full, sample = digit_shuffles.recorded(), digit_shuffles.recorded(rows=fixed_sample(500))
    assert full.n == 10_000 and sample.n == 500
    disagree = [(f.condition, f.first, f.second)
                for f, s in zip(full.comparisons, sample.comparisons, strict=True)
                if not OnSample(f.over_seeds, s.over_seeds).agrees]
    assert not disagree
    # and the record is what the shipped models read: two seeds of each kind, 20 digits
    rows = fixed_sample(20)
    live = digit_shuffles.measure(digit_shuffles.load_models([0, 1]), [0, 1], rows)
    recorded = digit_shuffles.recorded([0, 1], rows)  # the record's seeds, each once
    for score in live.shuffles:
        assert score.by_seed == recorded.accuracy(score.model, score.condition).by_seed

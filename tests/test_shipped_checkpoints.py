"""The checkpoints shipped in data/checkpoints load, verify, and reach what the manifest says."""

import pytest

from capsedu import pretrained
from capsedu.checkpoints import checkpoint_dir, read_manifest, sha256
from capsedu.data import load_mnist
from capsedu.loop import evaluate

ENTRIES = read_manifest()
MAX_TOTAL_MB = 100  # the course ships "tens of MB at most" (55 MB with the affNIST pair)


def test_manifest_is_complete_and_small():
    assert ENTRIES, "no shipped checkpoint"
    total = 0
    for entry in ENTRIES.values():
        for field in ("description", "command", "seed", "train_time_s", "metrics"):
            assert getattr(entry, field) is not None, (entry.name, field)
        assert entry.command.startswith(("python -m capsedu.train ",
                                            "python -m capsedu.parts.training ",
                                            "python -m capsedu.patch_order "))
        path = checkpoint_dir() / entry.file
        assert sha256(path) == entry.sha256
        total += path.stat().st_size
    assert total < MAX_TOTAL_MB * 2**20


@pytest.mark.parametrize("name", [n for n in ENTRIES if n.startswith("capsnet-mnist")])
def test_mnist_checkpoint_accuracy_matches_the_manifest(name):
    try:
        images, labels = load_mnist(train=False, limit=1000, download=False)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    accuracy = evaluate(pretrained(name), (images, labels))
    recorded = ENTRIES[name].metrics.test_accuracy
    # 1,000 of the 10,000 test digits: within 1.5 points of the full-set figure
    assert accuracy == pytest.approx(recorded, abs=0.015), (accuracy, recorded)


@pytest.mark.parametrize("name", [n for n, e in ENTRIES.items()  # face ViTs: test_patch_order
                                  if e.metrics.validation_examples is not None
                                  and e.command.startswith("python -m capsedu.train ")])
def test_checkpoint_is_the_epoch_chosen_on_its_validation_images(name):
    # the recipe held out the last training images: the shipped weights score there exactly
    # what the manifest says the chosen epoch scored
    from capsedu.recipe_run import split_validation
    from capsedu.recipes import RECIPES, recipe_name

    metrics = ENTRIES[name].metrics
    try:
        load_mnist(train=True, limit=1, download=False)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    train, validation = split_validation(RECIPES[recipe_name(name)])  # as the recipe made them
    n = metrics.validation_examples
    assert len(validation[1]) == n and ENTRIES[name].train_examples == len(train[1])
    accuracy = evaluate(pretrained(name), validation)
    assert accuracy == pytest.approx(metrics.validation_accuracy, abs=1.5 / n), accuracy


@pytest.mark.parametrize("name", [n for n in ENTRIES if n.startswith("faces-")])
def test_face_checkpoint_accuracy_matches_the_manifest(name):
    from capsedu.parts.scoring import face_rates
    rates = face_rates(pretrained(name), ("face", "nonface"), n=400)
    metrics = ENTRIES[name].metrics
    # the same 800 held-out images the manifest's figures were measured on
    assert rates["face"] == pytest.approx(metrics.face_rate, abs=0.01)
    assert rates["nonface"] == pytest.approx(metrics.nonface_rate, abs=0.01)


def test_every_face_model_is_shipped_for_three_seeds():
    from capsedu.parts.training import FACE_MODELS, checkpoint_name
    for model in FACE_MODELS:
        for seed in (0, 1, 2):
            assert checkpoint_name(model, seed) in ENTRIES


def test_the_notes_speak_of_the_course_not_of_its_work_items():
    import re

    work_item = re.compile(r"\b(session|issue|sprint|ticket)s?\s+\d+|#\d+", re.I)
    for name, entry in ENTRIES.items():
        assert not work_item.search(entry.notes or ""), name

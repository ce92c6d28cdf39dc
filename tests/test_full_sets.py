"""The record of Part IV's full test sets (``capsedu.full_sets``): complete, of the shipped weights,
what the models really read, and the verdicts that notebooks 08 and 10 print in default mode the
same as the full set's."""

import json
from dataclasses import replace

import pytest
import torch

from capsedu import full_sets
from capsedu.checkpoints import pretrained
from capsedu.data.mnist import fixed_sample
from capsedu.loop import is_correct, predict
from capsedu.recipes import seeded_name
from capsedu.robustness import OnSample
from capsedu.statistics import paired, seed_difference

DEFAULT, QUICK = 3_000, 500  # notebooks 08 and 10: course_settings.pick(full=3_000, quick=500)


@pytest.fixture(scope="module")
def record():
    return full_sets.read_results()


def test_every_shipped_reading_is_recorded_for_the_weights_shipped(record):
    assert set(full_sets.runs()) <= set(record)
    for key, entry in record.items():
        test_set, name = key.split(": ", 1)
        right = full_sets.read_right(test_set, name, results=record)  # refused if stale
        assert len(right) == entry.n == 10_000
        assert entry.accuracy == pytest.approx(right.float().mean().item())
        assert entry.command.startswith(full_sets.COMMAND)


def test_a_record_reads_as_its_results_file_keeps_it(record):
    from capsedu.checkpoints import results_path
    from capsedu.json_records import json_row

    shipped = json.loads(results_path(full_sets.RESULTS, True).read_text())["runs"]
    assert {key: json_row(entry) for key, entry in record.items()} == shipped
    assert list(json_row(record["affnist-style: affnist-cnn"]))[0] == "set"  # as the file says


def test_a_record_of_other_weights_is_refused(record):
    key = "affnist-style: affnist-cnn"
    stale = {key: replace(record[key], sha256="0" * 64)}
    with pytest.raises(ValueError, match="other weights"):
        full_sets.read_right("affnist-style", "affnist-cnn", results=stale)
    with pytest.raises(KeyError, match=r"read_right\(\): results must hold a reading of "):
        full_sets.read_right("affnist-style", "affnist-cnn", results={})  # a known one, not there
    with pytest.raises(KeyError, match=r"read_right\(\): name must be a reading of "):
        full_sets.read_right("affnist-style", "no-such-model", results=record)


def test_the_record_is_what_the_shipped_models_read_on_the_samples_rows(record):
    # a spot check of every reading: 12 rows of default mode's sample, read here
    rows = fixed_sample(DEFAULT)[-12:]
    for test_set in full_sets.SETS:
        images, labels = full_sets.SETS[test_set](rows)
        for key, entry in record.items():
            if entry.test_set != test_set:
                continue
            model = pretrained(entry.checkpoint)
            if entry.iterations is not None:
                model.digits.iterations = entry.iterations
            read = is_correct(predict(model, images), labels)
            name = key.split(": ", 1)[1]
            assert torch.equal(read, full_sets.read_right(test_set, name, rows, record)), key


def comparisons(record):
    """Every verdict of notebooks 08 and 10 that rests on a sample: name -> a function of the
    rows (None: the full set) that makes the comparison."""
    def right(test_set, name, rows):
        return full_sets.read_right(test_set, name, rows, record)

    def pair(test_set, first, second):
        return lambda rows: paired(right(test_set, first, rows), right(test_set, second, rows))

    def over_seeds(rows):
        accuracy = {kind: [100 * right("turned", seeded_name(recipe, seed), rows)
                           .float().mean().item() for seed in (0, 1, 2)]
                    for kind, recipe in (("G-CNN", "rotmnist-gcnn"), ("CNN", "rotmnist-cnn"))}
        return seed_difference(accuracy["G-CNN"], accuracy["CNN"], by_seed=False)

    return {
        "08: affNIST-style, CapsNet minus CNN": pair("affnist-style", "affnist-capsnet",
                                                    "affnist-cnn"),
        "08: routing trained in": pair("affnist-style", "affnist-capsnet",
                                       "affnist-capsnet-1iter"),
        "08: routing at test time": pair("affnist-style", "affnist-capsnet",
                                         full_sets.reading("affnist-capsnet", 1)),
        "08: MultiMNIST, CapsNet minus CNN": pair("multimnist", "multimnist-capsnet",
                                                 "multimnist-cnn"),
        "10: turned, G-CNN minus CNN, seed 0": pair("turned", "rotmnist-gcnn", "rotmnist-cnn"),
        "10: turned, G-CNN minus CNN over seeds": over_seeds,
    }


def test_default_modes_verdicts_are_the_full_sets(record):
    # default mode's sample tells what the full set tells, for every verdict it prints; quick
    # mode's smaller sample may not, and its printout then says so (robustness.sample_verdict)
    rows = fixed_sample(DEFAULT)
    disagree = [what for what, compare in comparisons(record).items()
                if not OnSample(compare(None), compare(rows)).agrees]
    assert not disagree

"""Issue 37, round seven: bad inputs an independent probe found accepted without a word (a wrong
or meaningless result: 0-255 targets, a limit past the split, blank images, a label that is no
digit, three orientations for four), each now refused in the one form: the function, the
argument, what was expected, what came and what to do."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from capsedu import (
    adversarial_record,
    bug_zoo_report,
    capsule_vectors,
    checkpoints,
    coupling_polarisation,
    digit_shuffles,
    full_sets,
    functional,
    group_conv,
    multi_digit,
    recipes,
    routing,
)
from capsedu.baselines import BagOfPartsCNN
from capsedu.capsnet import CapsNetConfig
from capsedu.data import mnist, transformed_mnist
from capsedu.figures.model_scores import update_class_bars
from capsedu.figures.routing_couplings import draw_coupling_heatmap
from capsedu.figures.spikes import draw_spike_trains
from capsedu.parts import detector, scoring, voting
from capsedu.widgets import SquashExplorer

TINY = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(8, 8))


def _ax():
    return plt.figure().add_subplot()


def _bars():
    return _ax().bar(range(10), [0.1] * 10)


ROUND_SEVEN = [
    (lambda: functional.reconstruction_loss(torch.rand(2, 1, 28, 28),
                                            torch.rand(2, 1, 28, 28) * 255), ValueError,
     r"reconstruction_loss\(\): images must hold pixels in \[0, 1\].*divide 0-255 pixels by 255"),
    (lambda: mnist.load_mnist(False, limit=20_000), ValueError,
     r"load_mnist\(\): limit must be an integer >= 1 and <= 10000 \(.*test split holds 10,000\), "
     r"got 20000"),
    (lambda: transformed_mnist.affine(torch.rand(2, 1, 28, 28), tx=1e9), ValueError,
     r"affine\(\): tx must move the digit less than 34 pixels .*got 1000000000.0; pass a smaller"),
    (lambda: transformed_mnist.multimnist(torch.rand(4, 1, 28, 28), torch.tensor([0, 1, 2, 30]),
                                          n=2), ValueError,
     r"multimnist\(\): labels must be in \[0, 9\] .*got values from 0 to 30"),
    (lambda: transformed_mnist.box_overlap(torch.rand(3, 3, 1, 28, 28)), ValueError,
     r"box_overlap\(\): parts must be a torch.Tensor with 5 dimensions, 2 along dimension 1 .*"
     r"got shape \(3, 3, 1, 28, 28\); pass a tensor of that shape"),
    (lambda: group_conv.rotate_c4(torch.rand(1, 2, 3, 5, 5)), ValueError,
     r"rotate_c4\(\): features must be a torch.Tensor with 5 dimensions, 4 along dimension 2"),
    (lambda: capsule_vectors.squash_slope([-1.0, 1.0]), ValueError,
     r"squash_slope\(\): r must be >= 0 \(lengths \|\|s\|\| \[n\]\), got values from -1 to 1"),
    (lambda: multi_digit.MultiDigitCapsNet(TINY, n_classes=1), ValueError,
     r"MultiDigitCapsNet\(\): n_classes must be an integer >= 2 .*two different digits.*got 1"),
    (lambda: adversarial_record.unit_type("clen"), ValueError,
     r"unit_type\(\): name must name a unit of the run, .*got 'clen'; pass a name"),
    (lambda: recipes.recipe_name("no-such-checkpoint"), ValueError,
     r"recipe_name\(\): checkpoint must name a checkpoint a recipe made .*"
     r"got 'no-such-checkpoint'; pass a name of the manifest"),
    (lambda: voting.pose_votes(np.zeros((1, 4, 4)), np.ones((1, 4)) * 2), ValueError,
     r"pose_votes\(\): presence must be in \[0, 1\] .*got values from 2 to 2; pass probabilities"),
    (lambda: scoring.verdicts({"bag": BagOfPartsCNN(channels=(2,))}, torch.rand(2, 1, 32, 32)),
     ValueError, r"verdicts\(\): x must be a torch.Tensor of pixels in \[0, 1\] with 4 "
     r"dimensions, 1 along dimension 0, .*got shape \(2, 1, 32, 32\)"),
    (lambda: bug_zoo_report.one_example(routing.dynamic_routing(torch.rand(2, 4, 3, 5)), k=5),
     ValueError, r"one_example\(\): k must be an integer >= 0 and <= 1 \(an example of the batch "
     r"of 2\), got 5"),
    (lambda: full_sets.run_name("translated", ""), ValueError,
     r"run_name\(\): name must name a reading .*got ''; pass the checkpoint's name"),
    (lambda: full_sets.run_name("translatd", "affnist-cnn"), ValueError,
     r"run_name\(\): test_set must be one of 'translated', .*got 'translatd'"),
    (lambda: digit_shuffles.load_models(seeds=[0, 0]), ValueError,
     r"load_models\(\): seeds must hold each item once, got 0 more than once; drop the repeats"),
    (lambda: coupling_polarisation.normalised_entropy(torch.ones(1, 4, 1)), ValueError,
     r"normalised_entropy\(\): c must hold couplings to at least 2 parents .*got shape "
     r"\(1, 4, 1\); pass the couplings of a layer with two or more parents"),
    # figures: one label per row, one name per train, a class per bar
    (lambda: draw_coupling_heatmap(_ax(), np.random.rand(3, 4), ["a", "b"], list("wxyz")),
     ValueError, r"draw_coupling_heatmap\(\): rows must hold one item per row of c \(3\), got 2; "
     r"pass 3 of them"),
    (lambda: draw_spike_trains(_ax(), torch.zeros(2, 10, dtype=torch.bool), ["a"], dt_ms=1.0),
     ValueError, r"draw_spike_trains\(\): names must hold one item per row of trains \(2\), got 1"),
    (lambda: update_class_bars(_bars(), [0.1] * 10, chosen=[10]), ValueError,
     r"update_class_bars\(\): chosen must hold classes from 0 to 9 \(one per bar\), got \[10\]"),
    (lambda: checkpoints.save(BagOfPartsCNN(channels=(2,)), "mine\n", root="unused"), ValueError,
     r"save\(\): name must be a plain file name .*control character such as a newline\), got "
     r"'mine\\n'; pass a name such as"),
    (lambda: capsule_vectors.match(torch.rand(2, 1, 32, 32), torch.rand(4, 1, 40, 40)), ValueError,
     r"match\(\): templates must be no larger than the images, got 40x40 templates over 32x32 "
     r"images"),
    (lambda: detector.PartDetector(image_size=4), ValueError,
     r"PartDetector\(\): image_size must be an integer >= 8 .*faces are drawn at 8 or more.*got 4"),
    (lambda: setattr(SquashExplorer().norm, "value", 50), ValueError,
     r"SquashExplorer.norm: the slider '\|\|s\|\|' must be set to a value from 0 to 5 "
     r"\(its range\), got 50.0; set a value in that range"),
    # a face score asked of a model of ten classes: its class 1 is a digit, not "face"
    (lambda: scoring.face_probability(BagOfPartsCNN(channels=(2,), n_classes=10),
                                      torch.rand(2, 1, 32, 32)), ValueError,
     r"face_probability\(\): model must tell faces from non-faces \(2 classes\), got a "
     r"BagOfPartsCNN of 10 classes; pass a face model"),
]


@pytest.mark.parametrize("call, error, message", ROUND_SEVEN, ids=range(len(ROUND_SEVEN)))
def test_round_seven_bad_input_is_refused_in_the_one_form(call, error, message):
    with pytest.raises(error, match=message):
        call()
    plt.close("all")

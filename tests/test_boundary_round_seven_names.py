"""Issue 37, round seven: bad inputs an independent probe gave the public entries, each once
refused in the words of another function the entry calls (its argument, not the one the learner
passed) or with a wrong diagnosis, now refused in the one form by the entry the learner called:
the function, the argument, what was expected, what came and what to do."""

import pytest
import torch

from capsedu import (
    adversarial_record,
    buggy,
    capsule_vectors,
    checkpoints,
    digit_capsules,
    equivariance,
    full_sets,
    functional,
    layers,
    loop,
    recipe_run,
    recipes,
    robustness,
    routing,
    routing_costs,
)
from capsedu.baselines import BagOfPartsCNN
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.data import faces, transformed_mnist
from capsedu.parts import pose_net, scoring, training, voting

TINY = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(8, 8))
LABELS = torch.tensor([0, 1, 2, 3])


def _tiny():
    return CapsNet(TINY)


def _bag():
    return BagOfPartsCNN(channels=(2,), n_classes=10)


ROUND_SEVEN = [
    # the argument of the entry called, not of the function it calls
    (lambda: functional.margin_loss_curves(torch.linspace(0, 3, 5)), ValueError,
     r"margin_loss_curves\(\): lengths must be .* in \[0, 1\].*got values from 0 to 3"),
    (lambda: routing.outputs(torch.rand(1, 4, 2, 3), torch.full((1, 4, 2), float("nan"))),
     ValueError, r"outputs\(\): c must hold finite numbers, got 8 NaN"),
    (lambda: routing.outputs(torch.full((1, 4, 2, 3), float("inf")), torch.rand(1, 4, 2)),
     ValueError, r"outputs\(\): u_hat must hold finite numbers"),
    (lambda: layers.RoutingCapsules(n_in=6, d_in=4, n_out=3, d_out=5)(torch.rand(0, 6, 4)),
     ValueError, r"RoutingCapsules\(\): u must hold at least one example, got shape \(0, 6, 4\)"),
    (lambda: loop.fit(_bag(), (torch.rand(4, 1, 8, 8).double(), LABELS), progress=False),
     TypeError, r"fit\(\): train's images must have the model's dtype torch.float32, got "
                r"torch.float64; use images.to"),
    (lambda: loop.fit(_bag(), (torch.rand(4, 1, 8, 8), LABELS), progress=False,
                      validation=(torch.rand(2, 1, 8, 8).double(), LABELS[:2])),
     TypeError, r"fit\(\): validation's images must have the model's dtype"),
    (lambda: transformed_mnist.sweep(torch.rand(2, 1, 28, 28), "scale", 0.0), ValueError,
     r"sweep\(\): value must be non-zero"),
    (lambda: digit_capsules.encode(_tiny(), torch.rand(2, 1, 40, 40)), ValueError,
     r"encode\(\): images must have shape \[B, 1, 28, 28\]"),
    (lambda: equivariance.model_rotation_errors(_bag(), torch.rand(1, 1, 28, 28), turns=(1.5,)),
     TypeError, r"model_rotation_errors\(\): turns\[0\] must be an integer"),
    (lambda: voting.face_lengths_by_kind(n=3, kinds=("faces",)), ValueError,
     r"face_lengths_by_kind\(\): kinds\[0\] must be one of 'face'.*got 'faces'"),
    (lambda: scoring.face_rates(BagOfPartsCNN(channels=(2,)), kinds=("fase",), n=2), ValueError,
     r"face_rates\(\): kinds\[0\] must be one of 'face'.*got 'fase'"),
    (lambda: training.load_face_models(seeds=[7], names=["deep CNN"]), ValueError,
     r"load_face_models\(\): seeds must be seeds of a saved 'deep CNN', got \[7\]: .* holds "
     r"its seeds \[0, 1, 2\]"),
    (lambda: buggy.step_softmax_over_children(torch.rand(1, 4, 2, 3), torch.zeros(1, 3, 2)),
     ValueError, r"step_softmax_over_children\(\): b must have shape \[batch, n_in, n_out\]"),
    (lambda: buggy.step_logits_shared_over_batch(torch.rand(1, 4, 2, 3), torch.zeros(1, 3, 2)),
     ValueError, r"step_logits_shared_over_batch\(\): b must have shape"),
    (lambda: robustness.viewpoint_state(_tiny(), _bag(), torch.rand(1, 28, 28), scale=0.0),
     ValueError, r"viewpoint_state\(\): scale must be non-zero"),
    # the right diagnosis
    (lambda: capsule_vectors.template_bank(crop=64, size=32), ValueError,
     r"template_bank\(\): crop must be at most size=32 .*got 64"),
    (lambda: capsule_vectors.template_bank(crop=4), ValueError,
     r"template_bank\(\): crop must hold all the ink of a nose .*got 4"),
    (lambda: digit_capsules.measure_dimensions(_tiny(), torch.rand(4, 1, 28, 28), LABELS,
                                               classes=[11], n_per_class=1), ValueError,
     r"measure_dimensions\(\): classes must be classes that labels hold, got \[11\]"),
    (lambda: pose_net.rotation_sweep(pose_net.PoseCapsuleNet(channels=(2, 2, 2, 2)),
                                     faces.face_parts(), angles="all"), TypeError,
     r"rotation_sweep\(\): angles must be the turns in degrees \[n\], got 'all'"),
    (lambda: routing_costs.recorded_cost(file="routing_cost_cpu.json"), FileNotFoundError,
     r"recorded_cost\(\): file must name a record in .*got 'routing_cost_cpu.json', which is "
     r"none; the records there: routing_cost_gpu.json"),
    (lambda: adversarial_record.read_attacked({}, "affnist-capsnet", "pgd", 0.1), ValueError,
     r"read_attacked\(\): results must be the record of python -m capsedu.adversarial .*got an "
     r"empty dict; pass read_results\(\)"),
    (lambda: full_sets.read_right("translated", "no-such-model", results={}), KeyError,
     r"read_right\(\): name must be a reading of 'translated' .*'affnist-cnn'.*got "
     r"'no-such-model'"),
    (lambda: full_sets.read_right("translatd", "affnist-cnn", results={}), ValueError,
     r"read_right\(\): test_set must be one of 'translated'"),
    # the one form
    (lambda: checkpoints.model_class("CapsNett"), KeyError,
     r"model_class\(\): arch must be a model architecture of the course, one of CapsNet.*got "
     r"'CapsNett'"),
    (lambda: recipes.command_recipe("nonexistent"), ValueError,
     r"command_recipe\(\): name must be a recipe python -m capsedu.train trains, one of "
     r"capsnet-mnist-live.*got 'nonexistent'"),
    (lambda: recipe_run.run_recipe("capsnet-mnist-lve", root="out", progress=False), ValueError,
     r"run_recipe\(\): name must be a recipe .*got 'capsnet-mnist-lve'"),
]


@pytest.mark.parametrize("call, error, message", ROUND_SEVEN, ids=range(len(ROUND_SEVEN)))
def test_round_seven_bad_input_is_refused_by_the_entry_called(call, error, message):
    with pytest.raises(error, match=message):
        call()

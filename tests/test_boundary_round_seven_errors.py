"""Issue 37, round seven: errors a second independent probe found unhelpful (raised from inside
torch, NumPy, matplotlib or ipywidgets, or a bare KeyError, IndexError or AttributeError), now
refused in the one form: the function, the argument, what was expected, what came and what to
do."""

import hashlib
import io
import json

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from capsedu import (
    attacks,
    capsule_angles,
    capsule_vectors,
    checkpoints,
    digit_capsules,
    full_sets,
    group_conv,
    loop,
    recipe_run,
    recipes,
    reconstruction_detector,
)
from capsedu.baselines import BagOfPartsCNN
from capsedu.data import patches, transformed_mnist
from capsedu.figures.digit_images import two_colour
from capsedu.figures.model_scores import draw_confusion
from capsedu.parts import pose_net, voting
from capsedu.widgets.capsule import PoseVectorExplorer
from capsedu.widgets.rotation import RotationExplorer
from capsedu.widgets.sliders import OutOfRange

LABELS = torch.tensor([0, 1, 2, 3])


def _bag():
    return BagOfPartsCNN(channels=(2,), n_classes=10)


def _choose(widget, value):
    widget.kind.value = value


NO_MPS = pytest.mark.skipif(torch.backends.mps.is_available(), reason="this machine has 'mps'")

ROUND_SEVEN = [
    # a device this machine lacks (torch: "not linked with support for mps devices")
    pytest.param(lambda: loop.fit(_bag(), (torch.rand(4, 1, 8, 8), LABELS), device="mps",
                                  progress=False), ValueError,
                 r"fit\(\): device must be a device this machine has, got 'mps', but this "
                 r"machine has 'cpu'", marks=NO_MPS),
    (lambda: checkpoints.pretrained("capsnet-mnist-live", map_location="cuda:99"), ValueError,
     r"pretrained\(\): map_location must be a device this machine has, got 'cuda:99'"),
    # a root the declaration takes that cannot be written into (torch: "open file failed")
    (lambda: checkpoints.save(_bag(), "mine", root="/sys/kernel"), PermissionError,
     r"save\(\): root must be a folder this process can write into .*got /sys/kernel"),
    # sizes that must agree (torch: broadcast, bmm and stack errors)
    (lambda: transformed_mnist.warp(torch.rand(2, 1, 28, 28), torch.eye(2).repeat(3, 1, 1),
                                    torch.zeros(3, 2)), ValueError,
     r"warp\(\): A must match images in length.*\(images: 2, A: 3\)"),
    (lambda: transformed_mnist.affine_matrix(torch.tensor([1.0, 2.0]), 0.0, 1.0, torch.ones(3)),
     ValueError, r"affine_matrix\(\): scale_y must match rotation in length"),
    (lambda: capsule_vectors.capsule_from_matches(torch.rand(2, 4), torch.rand(3)), ValueError,
     r"capsule_from_matches\(\): angles must match r in templates.*pass one angle per template"),
    (lambda: group_conv.lifting_filters(torch.rand(4, 1, 3, 5)), ValueError,
     r"lifting_filters\(\): weight's width must match weight's height"),
    (lambda: draw_confusion(plt.figure(), torch.rand(3, 4)), ValueError,
     r"draw_confusion\(\): confusion's columns must match confusion's rows"),
    (lambda: two_colour(np.random.rand(3, 28, 28)), ValueError,
     r"two_colour\(\): images must be two grey images \[2, S, S\].*got shape \(3, 28, 28\)"),
    (lambda: attacks.class_scores(torch.nn.Linear(3, 3), torch.rand(4, 1, 28, 28)), ValueError,
     r"class_scores\(\): model must take images \[4, 1, 28, 28\].*got a Linear that failed"),
    # the part-to-face transforms W [4, 3, 3] (NumPy: LinAlgError, IndexError)
    (lambda: pose_net.format_offsets("W"), TypeError,
     r"format_offsets\(\): W must be transforms W \[4, 3, 3\].*got 'W'"),
    (lambda: voting.predict_face(("nose", 0.5, 0.5), W=np.zeros((2, 2))), ValueError,
     r"predict_face\(\): W must be transforms W \[4, 3, 3\].*got shape \(2, 2\)"),
    # models of another kind (AttributeError: no 'config', 'reconstruction', 'convs')
    (lambda: capsule_angles.capsule_under_rotation(_bag(), torch.rand(4, 1, 28, 28), LABELS,
                                                   [0, 90]), TypeError,
     r"capsule_under_rotation\(\): capsnet must be an instance of CapsNet"),
    (lambda: reconstruction_detector.threshold(_bag(), torch.rand(4, 1, 40, 40), "bag"),
     TypeError, r"threshold\(\): model must be an instance of CapsNet"),
    (lambda: RotationExplorer(_bag(), _bag(), torch.rand(4, 1, 28, 28), LABELS), TypeError,
     r"RotationExplorer\(\): gcnn must be an instance of C4CNN"),
    # rows, deltas, routing and history (IndexError, "new(): invalid data type", AttributeError)
    (lambda: patches.shuffled_digits(grid=2, rows=[0.5]), ValueError,
     r"shuffled_digits\(\): rows must be whole numbers"),
    (lambda: full_sets.turned_mnist(rows=[3.5]), ValueError,
     r"turned_mnist\(\): rows must be whole numbers"),
    (lambda: digit_capsules.perturb(torch.rand(10, 16), 0, "0.1"), TypeError,
     r"perturb\(\): deltas must be the Deltas to add.*got '0.1'"),
    (lambda: digit_capsules.couplings_on_grid(None, example=0, j=0, n_maps=2), TypeError,
     r"couplings_on_grid\(\): routing must be a routing result with history, got None"),
    (lambda: recipe_run.recipe_metrics(recipes.RECIPES["capsnet-mnist-live"], [],
                                       test_accuracy=0.5, epochs=1), ValueError,
     r"recipe_metrics\(\): history must hold at least one item, got \[\]"),
    # a dropdown set to none of its options (ipywidgets: "Invalid selection: value not found")
    (lambda: _choose(PoseVectorExplorer(), "ear"), OutOfRange,
     r"PoseVectorExplorer.kind: the dropdown 'part' must be set to one of its options "
     r"'left_eye', .*got 'ear'"),
]


@pytest.mark.parametrize("call, error, message", ROUND_SEVEN, ids=range(len(ROUND_SEVEN)))
def test_round_seven_bad_input_is_refused_in_the_one_form(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("payload, got", [
    (b"\x80\x02garbage pickle", r"not a file torch.load reads \(UnpicklingError\)"),
    ({"hello": 1}, r"a dict \{'hello': 1\}"),
])
def test_round_seven_a_checkpoint_capsedu_did_not_save_is_named(tmp_path, payload, got):
    """Its hash matches its row, yet torch cannot read it (torch advised weights_only=False), or
    it holds no arch (a KeyError 'arch')."""
    if isinstance(payload, dict):
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        payload = buffer.getvalue()
    (tmp_path / "mine.pt").write_bytes(payload)
    row = {"name": "mine", "file": "mine.pt", "sha256": hashlib.sha256(payload).hexdigest(),
           "arch": "BagOfPartsCNN"}
    (tmp_path / "manifest.json").write_text(json.dumps({"checkpoints": [row]}))
    with pytest.raises(ValueError, match=r"pretrained\(\): name 'mine' must be a checkpoint that "
                                         r"save\(\) wrote .*" + got + r"; retrain it"):
        checkpoints.pretrained("mine", tmp_path)

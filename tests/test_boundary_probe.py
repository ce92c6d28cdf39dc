"""Issue 37, round four: bad inputs an independent probe gave the public entries (a careless
learner's or instructor's), each once answered with a torch traceback or a sentence that named no
function, now refused in the one form: the function, the argument, what was expected, what came
and what to do."""

import numpy as np
import pytest
import torch

from capsedu import capsule_vectors, convergence, digit_capsules, loop, statistics
from capsedu.baselines import BagOfPartsCNN
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.data import faces, sprites
from capsedu.data import transformed_mnist as tm
from capsedu.functional import margin_loss, squash
from capsedu.parts import scoring

LABELS = torch.tensor([0, 1, 2, 3])
TINY = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(8, 8))

CASES = [
    (lambda: squash(torch.ones(2, 3), dim=5), ValueError,
     r"squash\(\): dim must name a dimension of s, from -2 to 1 .*got 5; .*dim=-1"),
    (lambda: margin_loss(torch.rand(4, 10), LABELS, m_plus=0.1, m_minus=0.9), ValueError,
     r"margin_loss\(\): the margins must satisfy .*got m_plus=0.1"),
    (lambda: CapsNet(TINY).predict(torch.rand(28, 28)), ValueError,
     r"CapsNet\(\): x must have shape .*got shape \(28, 28\); pass a tensor"),
    (lambda: CapsNet(TINY).predict(torch.rand(1, 28, 28)), ValueError, r"one example is x\[None\]"),
    (lambda: faces.swap(faces.face_parts(), "nose", "ear"), ValueError,
     r"swap\(\): each part named must be one that parts holds .*got 'ear'; choose"),
    (lambda: faces.face_centre([("stroke", 0.5, 0.5)]), ValueError,
     r"face_centre\(\): parts must hold a face part .*got \['stroke'\]"),
    (lambda: sprites.render([("nose", 0.5)]), TypeError,
     r"render\(\): a part must be a Part or a tuple \(kind, x, y.*got \('nose', 0.5\)"),
    (lambda: sprites.as_part(("nose",)), TypeError, r"as_part\(\): a part must be a Part"),
    (lambda: sprites.render([("nose", "0.5", 0.5)]), TypeError,
     r"render\(\): part 'nose'.s pose .* must be numbers, got \('0.5', 0.5, 0.0, 1.0\)"),
    (lambda: sprites.render([("nose", 0.5, 0.5, 0.0, True)]), TypeError, r"must be numbers"),
    (lambda: convergence.training_status({}), ValueError,
     r"training_status\(\): metrics must be .*'validation_by_epoch', got keys \[\]"),
    (lambda: convergence.converged([0.5, 90.0]), ValueError,
     r"converged\(\): scores\[1\] must be a finite number >= 0 and <= 1 .*got 90.0"),
    (lambda: convergence.converged([]), ValueError, r"best_epoch\(\): scores must hold"),
    (lambda: loop.confusion(LABELS, LABELS, n_classes=2), ValueError,
     r"confusion\(\): labels and predictions must be classes in \[0, 1\].*pass n_classes="),
    (lambda: loop.is_correct(LABELS, torch.stack([LABELS, LABELS], 1)), ValueError,
     r"is_correct\(\): predictions and labels must have one shape .*\(4,\) and \(4, 2\)"),
    (lambda: scoring.verdicts({}, torch.rand(1, 1, 32, 32)), ValueError,
     r"verdicts\(\): models must name at least one trained model"),
    (lambda: scoring.turned_faces("nose", n=4), TypeError,
     r"turn_over\(\): kinds must be a tuple or a list of items"),
    (lambda: scoring.rule_report({}, {"by parts": ["face"]}), ValueError,
     r"rule_report\(\): each rule of rules must name scramble kinds .*\['face'\]"),
    (lambda: statistics.paired([True, False], [True]), ValueError,
     r"paired\(\): correct_a and correct_b must score the same images: got 2 and 1"),
    (lambda: statistics.over_seeds([0.9]), ValueError,
     r"over_seeds\(\): values must be .*at least 2.*got \[0.9\]; train and score another seed"),
    (lambda: tm.affine(torch.rand(4, 1, 28, 28), rotation=torch.tensor([1.0, 2.0, 3.0])),
     ValueError, r"affine\(\): rotation must be one angle or one per digit \(\[4\]\), got shape"),
    # round two: refused before training, not at the first batch inside the model
    (lambda: loop.fit(BagOfPartsCNN(channels=(2,), n_classes=10),
                      ((torch.rand(4, 1, 8, 8) * 255).byte(), LABELS), progress=False), TypeError,
     r"fit\(\): train's images must hold floating-point pixels .*got dtype torch.uint8; use "
     r"images.float\(\) / 255"),
    (lambda: loop.predict(BagOfPartsCNN(channels=(2,), n_classes=10),
                          torch.full((1, 1, 8, 8), float("nan"))), ValueError,
     r"predict\(\): images contains 64 NaN"),
    (lambda: capsule_vectors.pose_vector(30.0, 2.0), ValueError,
     r"pose_vector\(\): presence must be in \[0, 1\] \(a probability\), got"),
    (lambda: digit_capsules.perturb(torch.rand(10, 16), 10, torch.zeros(16)), ValueError,
     r"perturb\(\): label must be in \[0, 9\] .*got 10"),
    (lambda: digit_capsules.perturb(torch.rand(10, 16), 3, torch.full((16,), 0.5)), ValueError,
     r"perturb\(\): each delta must be in \[-0.25, 0.25\] .*got 0.5"),
]


@pytest.mark.parametrize("call, error, message", CASES, ids=range(len(CASES)))
def test_a_bad_input_the_probe_found_is_refused_in_the_one_form(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_union_names_every_form_it_takes_and_reports_the_one_the_value_has():
    from capsedu.poses import pose_matrix, wrap_angle

    with pytest.raises(TypeError, match=r"scale must be a finite number > 0 .* or a NumPy array "
                                        r"of finite real numbers .*got '1'; pass one of those"):
        pose_matrix(0.5, 0.5, 0.0, "1")
    with pytest.raises(TypeError, match=r"wrap_angle\(\): angle must be a floating-point tensor"):
        wrap_angle(torch.tensor([1, 2]))  # a tensor, of the wrong dtype: the tensor's own words
    with pytest.raises(ValueError, match=r"angle must be a NumPy array .*got 1 NaN"):
        wrap_angle(np.array([np.nan]))

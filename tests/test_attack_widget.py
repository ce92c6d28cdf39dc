"""Notebook 11's widget driven kernel-side: each control changes what it computes, both models
read the same adversarial image, and the readout says what the state holds."""

import numpy as np
import pytest
import torch

from capsedu import adversarial, pretrained
from capsedu.widgets import AttackExplorer


@pytest.fixture(scope="module")
def explorer():
    _, images, labels = adversarial.sample_digits(2)
    return AttackExplorer(pretrained("affnist-capsnet"), pretrained("affnist-cnn"), images,
                          labels, threshold=5.0)


def test_eps_zero_is_the_clean_digit_and_both_models_read_it(explorer):
    explorer.eps.value = 0.0
    s = explorer.state
    assert np.array_equal(s.adversarial, s.image)
    assert s.capsnet_prediction == s.cnn_prediction == s.label
    assert f"a {s.label}, PGD at eps 0.00" in explorer.readout.value


def test_each_control_changes_the_attack(explorer):
    with explorer.moving_several():
        explorer.attack.value, explorer.eps.value, explorer.against.value = "fgsm", 0.3, "cnn"
    s = explorer.state
    assert (s.attack, s.eps, s.against) == ("fgsm", 0.3, "cnn")
    change = np.abs(s.adversarial - s.image)
    assert change.max() <= 0.3 + 1e-6 and change.max() > 0.1
    assert s.lengths.shape == s.probabilities.shape == (10,)
    assert ("flagged" in explorer.readout.value) and f"{s.distance:.2f}" in explorer.readout.value
    before = explorer.image.value
    explorer.digit.value = 1
    assert explorer.state.label == int(adversarial.sample_digits(2)[2][1])
    assert explorer.image.value != before


def test_the_state_refuses_a_digit_it_was_not_given(explorer):
    with pytest.raises(ValueError, match=r"^attack_state\(\): index must be an integer >= 0 and "
                                         r"<= 1 \(which of the 2 digits given\), got 5"):
        adversarial.attack_state(explorer.capsnet, explorer.cnn, explorer.images,
                                 explorer.labels, 5, "fgsm", 0.1, "cnn", 5.0)
    assert isinstance(explorer.images, torch.Tensor)

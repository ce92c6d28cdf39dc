"""The course's device rule (issue 39), pinned on the CPU: a function that takes a model and data
runs where the model is, hands results back on the CPU, and leaves the caller's model where it
was and in the mode it was in. The machine's preferred device is made a device no model is on
(``meta``), so that a function that moved the model there would be caught without a GPU."""

import pytest
import torch

from capsedu import config
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.loop import evaluate, model_device, predict, probabilities

TINY = CapsNetConfig(image_size=12, conv_kernel=3, conv_channels=4, primary_kernel=3,
                     primary_maps=2, primary_dim=4, digit_dim=4, decoder_hidden=(8, 8))


class Logits(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(144, 10)

    def forward(self, x):
        return self.linear(x.flatten(1))

    def predict(self, x):
        return self(x).argmax(dim=1)


@pytest.fixture
def elsewhere(monkeypatch):
    """config.device() names a device the models are not on."""
    monkeypatch.setattr(config, "device", lambda: torch.device("meta"))


@pytest.mark.parametrize("build", [lambda: CapsNet(TINY), Logits], ids=["CapsNet", "logits"])
@pytest.mark.parametrize("training", [True, False])
def test_scoring_leaves_the_model_where_and_as_it_was(elsewhere, build, training):
    model = build().train(training)
    images, labels = torch.rand(5, 1, 12, 12), torch.randint(0, 10, (5,))
    calls = [lambda: predict(model, images, batch_size=2),
             lambda: evaluate(model, (images, labels), batch_size=2)]
    if isinstance(model, Logits):
        calls.append(lambda: probabilities(model, images))
    for call in calls:
        result = call()
        assert model_device(model) == torch.device("cpu")
        assert model.training is training
        if isinstance(result, torch.Tensor):
            assert result.device == torch.device("cpu")


def test_model_device_reads_parameters_then_buffers():
    assert model_device(torch.nn.Linear(2, 2)) == torch.device("cpu")
    assert model_device(torch.nn.Linear(2, 2, device="meta")) == torch.device("meta")
    assert model_device(torch.nn.BatchNorm1d(2, affine=False, device="meta")) == \
        torch.device("meta")  # buffers only
    assert model_device(torch.nn.ReLU()) == torch.device("cpu")  # neither

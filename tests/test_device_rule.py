"""The course's device rule (issue 39), pinned on the CPU: a function that takes a model and data
runs where the model is, hands results back on the CPU, and leaves the caller's model where it
was and in the mode it was in. The machine's preferred device is made a device no model is on
(``meta``), so that a function that moved the model there would be caught without a GPU."""

import pytest
import torch

from capsedu import course_settings
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.course_settings import model_device
from capsedu.loop import evaluate, fit, predict, probabilities

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
    """course_settings.device() names a device the models are not on."""
    monkeypatch.setattr(course_settings, "device", lambda: torch.device("meta"))


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


def test_fit_trains_on_its_device_and_hands_the_model_back(monkeypatch):
    """fit picks its device once, names it in every epoch, moves the model there to train and
    back where it was when it returns."""
    model, moves, to = CapsNet(TINY), [], torch.nn.Module.to

    def spy(self, *args, **kwargs):
        if self is model:
            moves.append(torch.device(args[0]))
        return to(self, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "to", spy)
    data = torch.rand(8, 1, 12, 12), torch.randint(0, 10, (8,))
    history = fit(model, data, epochs=2, batch_size=4, device="cpu", progress=False)
    assert [h.device for h in history] == ["cpu", "cpu"]
    assert moves == [torch.device("cpu")] * 2  # there to train, then back home
    assert model_device(model) == torch.device("cpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_on_a_gpu_fit_trains_there_resumes_there_and_hands_the_model_back(tmp_path):
    data, state = (torch.rand(8, 1, 12, 12), torch.randint(0, 10, (8,))), tmp_path / "state.pt"
    model = CapsNet(TINY)
    fit(model, data, epochs=1, batch_size=4, device="cuda", state_path=state, progress=False)
    assert model_device(model) == torch.device("cpu")
    # a state saved on the GPU resumes there (its random generator's state comes back to the CPU)
    history = fit(CapsNet(TINY), data, epochs=2, batch_size=4, device="cuda", state_path=state,
                  progress=False)
    assert [h.device for h in history] == ["cuda", "cuda"]

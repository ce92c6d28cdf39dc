"""Coupling statistics against hand-computed values."""

import math
from types import SimpleNamespace

import pytest
import torch

from capsedu import dynamic_routing
from capsedu.coupling_polarisation import coupling_trace, distance_from_uniform, normalised_entropy
from capsedu.routing import RoutingResult, RoutingStep


def test_uniform_and_one_hot_couplings_are_the_extremes():
    uniform = torch.full((1, 3, 4), 0.25)
    one_hot = torch.eye(4)[None, :3]  # children 0..2 each send everything to one parent
    torch.testing.assert_close(normalised_entropy(uniform), torch.ones(1, 3))
    torch.testing.assert_close(normalised_entropy(one_hot), torch.zeros(1, 3))
    torch.testing.assert_close(distance_from_uniform(uniform), torch.zeros(1, 3))
    torch.testing.assert_close(distance_from_uniform(one_hot), torch.full((1, 3), 0.75))


def test_a_hand_computed_child():
    c = torch.tensor([[[0.5, 0.5, 0.0, 0.0]]])  # two parents share the vote
    torch.testing.assert_close(normalised_entropy(c), torch.tensor([[math.log(2) / math.log(4)]]))
    # |0.5 - 0.25| * 2 + |0 - 0.25| * 2 = 1.0, halved
    torch.testing.assert_close(distance_from_uniform(c), torch.tensor([[0.5]]))


def test_trace_starts_uniform_and_routing_of_agreeing_votes_polarises():
    torch.manual_seed(0)
    # every child votes the same vector for parent 0 and random small vectors for the others
    u_hat = 0.05 * torch.randn(2, 30, 5, 4)
    u_hat[:, :, 0] = torch.tensor([1.0, 0.0, 0.0, 0.0])
    trace = coupling_trace(dynamic_routing(u_hat, iterations=5))
    assert len(trace) == 5
    assert trace[0].entropy == pytest.approx(1.0) and trace[0].distance == pytest.approx(0)
    assert [t.entropy for t in trace] == sorted((t.entropy for t in trace), reverse=True)
    assert trace[-1].polarised > 0.9


def test_uniform_couplings_under_any_weights_trace_an_entropy_of_at_most_1():
    """Weights that sum to 1 only up to float rounding must not take a mean of 1s past 1 (a
    CouplingStep refuses an entropy above 1: the bug zoo's training fixture hit it)."""
    c = torch.full((3, 1152, 2), 0.5)  # each child's entropy: 1, exactly
    v = torch.zeros(3, 2, 4)
    routing = RoutingResult(v=v, c=c, b=torch.zeros_like(c), history=[RoutingStep(c, v)])
    for seed in range(10):  # seed 4's weights, divided by their sum, sum to 1.0000001
        weights = torch.rand(3, 1152, generator=torch.Generator().manual_seed(seed))
        assert 0.999 < coupling_trace(routing, weights=weights)[0].entropy <= 1.0


def test_weights_choose_which_children_count():
    c = torch.stack([torch.full((4,), 0.25), torch.eye(4)[0]])[None]  # [1, 2, 4]
    v = torch.zeros(1, 4, 3)
    routing = RoutingResult(v=v, c=c, b=torch.zeros_like(c), history=[RoutingStep(c, v)])
    only_second = coupling_trace(routing, weights=torch.tensor([[0.0, 1.0]]))
    assert only_second[0].entropy == pytest.approx(0.0)
    assert coupling_trace(routing)[0].entropy == pytest.approx(0.5)


def test_route_runs_a_capsnet_another_number_of_times_and_gives_its_iterations_back():
    from capsedu import CapsNet, CapsNetConfig
    from capsedu.coupling_polarisation import route

    torch.manual_seed(0)
    model = CapsNet(CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(16,))).eval()
    images = torch.rand(2, 1, 28, 28)
    routing = route(model, images, 5)
    assert len(routing.history) == 5 and model.digits.iterations == 3
    with torch.no_grad():
        expected = dynamic_routing(model.votes(images), 5)
    assert torch.allclose(routing.c, expected.c)
    with pytest.raises(ValueError, match="iterations"):
        route(model, images, 0)


def test_route_asks_a_face_model_for_its_capsules():
    from capsedu.coupling_polarisation import route

    class Faces(torch.nn.Module):  # its capsules give poses, presences and the routing
        def capsules(self, x, iterations):
            routing = dynamic_routing(torch.rand(1, 3, 2, 4), iterations)  # a RoutingResult
            return SimpleNamespace(routing=routing)

    assert len(route(Faces(), torch.zeros(1), 4).history) == 4


def test_trace_line_quotes_the_trained_iterations_and_the_last():
    from capsedu.coupling_polarisation import CouplingStep, trace_line

    trace = [CouplingStep(entropy, distance, polarised)  # (polarised ones: away from uniform)
             for entropy, distance, polarised in ((1.0, 0.0, 0.0), (0.5, 0.3, 0.25),
                                                  (0.2, 0.6, 0.9))]
    assert trace_line("m", trace, trained_with=2) == (
        f"{'m':<28} after 2 iterations: entropy 0.500, polarised 25.0 %; after 3: "
        "entropy 0.200, polarised 90.0 %")
    with pytest.raises(ValueError, match="trained_with"):
        trace_line("m", trace, trained_with=4)

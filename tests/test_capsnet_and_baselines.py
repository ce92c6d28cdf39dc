"""CapsNet and the CNN baselines: sizes, masking, shapes and clear errors."""

import pytest
import torch

from capsedu import (
    PAPER,
    SMALL,
    BagOfPartsCNN,
    CapsNet,
    DeepCNN,
    PrimaryCapsules,
    count_parameters,
    dynamic_routing,
    squash,
)
from capsedu.baselines import receptive_field


def test_paper_capsnet_parameter_count():
    model = CapsNet()
    n = count_parameters(model)
    print(f"paper CapsNet: {n:,} parameters (with decoder)")
    # Conv1 9*9*256+256, PrimaryCaps 9*9*256*256+256, W_ij 1152*10*16*8, decoder 160-512-1024-784
    by_hand = 20_992 + 5_308_672 + 1_474_560 + (82_432 + 525_312 + 803_600)
    assert n == by_hand == 8_215_568
    assert PAPER.primary_grid == 6 and PAPER.n_primary == 1152


def test_small_config_forward_shapes():
    model = CapsNet(SMALL)
    out = model(torch.rand(5, 1, 28, 28))
    assert out.v.shape == (5, 10, 16)
    assert out.lengths.shape == (5, 10)
    assert out.reconstruction.shape == (5, 1, 28, 28)
    assert out.routing.c.shape == (5, SMALL.n_primary, 10)
    assert len(out.routing.history) == SMALL.iterations
    assert ((out.lengths >= 0) & (out.lengths < 1)).all()
    torch.testing.assert_close(out.lengths, out.v.norm(dim=-1))


def test_votes_are_what_digitcaps_routes():
    torch.manual_seed(0)
    model = CapsNet(SMALL).eval()
    x = torch.rand(2, 1, 28, 28)
    with torch.no_grad():
        u_hat = model.votes(x)
        assert u_hat.shape == (2, SMALL.n_primary, 10, 16)
        torch.testing.assert_close(dynamic_routing(u_hat, SMALL.iterations).v, model(x).v)


def test_primary_capsules_group_channels_into_vectors():
    layer = PrimaryCapsules(in_channels=3, n_maps=2, dim=4, kernel_size=3, stride=1)
    x = torch.randn(1, 3, 5, 5)
    u = layer(x)  # 2 maps x 3 x 3 positions = 18 capsules of 4D
    assert u.shape == (1, 18, 4)
    raw = layer.conv(x)  # [1, 8, 3, 3]: channels 0-3 are map 0's capsule, 4-7 map 1's
    s = raw[0, 4:8, 1, 2]  # map 1, row 1, col 2 -> capsule index 1*9 + 1*3 + 2 = 14
    n2 = (s * s).sum()
    torch.testing.assert_close(u[0, 14], n2 / (1 + n2) * s / n2.sqrt())


@pytest.fixture(scope="module")
def tiny():
    torch.manual_seed(0)
    return CapsNet(conv_channels=8, primary_maps=2, decoder_hidden=(16,))


def test_decoder_is_masked_by_the_true_label(tiny):
    x = torch.rand(4, 1, 28, 28)
    targets = torch.tensor([3, 1, 4, 1])
    out = tiny(x, targets)
    # changing every other class's capsule (to random capsules, each of length at most 1) must
    # not change the reconstruction
    other = torch.ones(4, 10, 1)
    other[torch.arange(4), targets] = 0
    v_changed = (1 - other) * out.v + other * squash(torch.randn_like(out.v))
    recon = tiny.reconstruct(v_changed, v_changed.norm(dim=-1), targets)
    torch.testing.assert_close(recon, out.reconstruction)
    with pytest.raises(ValueError, match=r"^CapsNet\.reconstruct\(\): v must be squashed "):
        tiny.reconstruct(5 * v_changed, 5 * v_changed.norm(dim=-1), targets)  # longer than 1
    # and the decoder gets gradients only through the true class's capsule
    v = out.v.detach().requires_grad_()
    tiny.reconstruct(v, out.lengths, targets).sum().backward()
    assert (v.grad * other).abs().max() == 0
    assert v.grad[torch.arange(4), targets].abs().sum() > 0


def test_decoder_uses_the_prediction_without_labels(tiny):
    x = torch.rand(3, 1, 28, 28)
    out = tiny(x)
    predicted = out.lengths.argmax(dim=1)
    torch.testing.assert_close(out.reconstruction, tiny(x, predicted).reconstruction)


def test_capsnet_training_loss_backpropagates(tiny):
    x, y = torch.rand(2, 1, 28, 28), torch.tensor([0, 7])
    loss, predictions = tiny.training_loss(x, y)
    loss.backward()
    assert predictions.shape == (2,)
    assert tiny.digits.W.grad is not None and tiny.conv1.weight.grad.abs().sum() > 0


@pytest.mark.parametrize(
    "x, match",
    [
        (torch.rand(1, 28, 28), r"\[N, 1, 28, 28\]"),
        (torch.rand(2, 3, 28, 28), r"\[N, 1, 28, 28\]"),
        (torch.rand(2, 1, 32, 32), r"\[N, 1, 28, 28\]"),
        (torch.full((1, 1, 28, 28), float("nan")), "NaN"),
    ],
)
def test_capsnet_bad_input(tiny, x, match):
    with pytest.raises(ValueError, match=match):
        tiny(x)


def test_receptive_fields():
    # two 3x3 convs: 1 + 2 + 2 = 5 px, a piece of one face part at 32 x 32
    assert BagOfPartsCNN().receptive_field == 5
    # conv 3 (3), pool 2 (4, jump 2), conv 3 (8), pool (10, jump 4), conv (18), pool (22, jump 8),
    # conv (38): more than the whole 32 x 32 input
    assert DeepCNN().receptive_field == 38
    assert receptive_field(torch.nn.Sequential(torch.nn.Conv2d(1, 1, 5, stride=2))) == 5


@pytest.mark.parametrize("cls", [BagOfPartsCNN, DeepCNN])
def test_cnn_shapes_and_errors(cls):
    model = cls()
    assert model(torch.rand(3, 1, 32, 32)).shape == (3, 2)
    assert model.predict(torch.rand(3, 1, 32, 32)).shape == (3,)
    with pytest.raises(ValueError, match="channel"):
        model(torch.rand(3, 2, 32, 32))
    with pytest.raises(ValueError, match="shape"):
        model(torch.rand(32, 32))


def test_bag_of_parts_cnn_ignores_where_a_part_is():
    # global max-pooling over a translation-equivariant conv stack: moving the whole input
    # (with zero borders) leaves the logits unchanged
    torch.manual_seed(0)
    model = BagOfPartsCNN()
    x = torch.zeros(1, 1, 32, 32)
    x[0, 0, 5:10, 6:9] = 1.0
    moved = torch.roll(x, shifts=(15, 12), dims=(2, 3))
    torch.testing.assert_close(model(x), model(moved))


def test_predictions_are_W_ij_times_u_i():
    from capsedu import RoutingCapsules

    layer = RoutingCapsules(n_in=5, d_in=3, n_out=4, d_out=2)
    u = torch.randn(2, 5, 3)
    u_hat = layer.votes(u)
    assert u_hat.shape == (2, 5, 4, 2)
    for b in range(2):
        for i in range(5):
            for j in range(4):
                torch.testing.assert_close(u_hat[b, i, j], layer.W[i, j] @ u[b, i])
    with pytest.raises(ValueError, match=r"\[batch, 5, 3\]"):
        layer.votes(torch.randn(2, 6, 3))


# --- Bad inputs: targets, image dtypes, sizes ------------------------------------------------


@pytest.mark.parametrize("targets, error, match", [
    (torch.tensor([3, 1, 4]), ValueError, r"targets must be .*\[batch\] = \[2\], got shape \(3,\)"),
    (torch.tensor([3]), ValueError, r"got shape \(1,\)"),  # would broadcast silently
    (torch.tensor([[3], [1]]), ValueError, r"got shape \(2, 1\)"),
    (torch.tensor([3.0, 1.0]), TypeError, r"dtype torch.float32; convert it with targets\.long"),
    (torch.tensor([3, 10]), ValueError, r"\[0, 9\].*10 at index 1"),
    ([3, 1], TypeError, "torch.Tensor"),
])
def test_capsnet_checks_targets(tiny, targets, error, match):
    with pytest.raises(error, match=match):
        tiny(torch.rand(2, 1, 28, 28), targets)
    with pytest.raises(error, match=match.replace("targets", "y")) as refused:
        tiny.training_loss(torch.rand(2, 1, 28, 28), targets)  # y, its own name
    assert str(refused.value).startswith("CapsNet.training_loss(): y ")


def test_capsnet_takes_any_integer_targets(tiny):
    x = torch.rand(2, 1, 28, 28)
    expected = tiny(x, torch.tensor([3, 1])).reconstruction
    for dtype in (torch.int32, torch.uint8):
        torch.testing.assert_close(tiny(x, torch.tensor([3, 1], dtype=dtype)).reconstruction,
                                   expected)


@pytest.mark.parametrize("model", [
    CapsNet(conv_channels=4, primary_maps=1, decoder_hidden=(8,)), BagOfPartsCNN(), DeepCNN(),
], ids=["CapsNet", "BagOfPartsCNN", "DeepCNN"])
def test_models_name_the_image_dtype_they_need(model):
    size = 28 if isinstance(model, CapsNet) else 32
    pixels = torch.randint(0, 256, (2, 1, size, size), dtype=torch.uint8)
    with pytest.raises(TypeError, match=r"x must have the model's dtype torch.float32, got "
                                        r"torch.uint8; use x.to\(torch.float32\) / 255"):
        model(pixels)
    with pytest.raises(TypeError, match=r"got torch.float64; use x.to\(torch.float32\)"):
        model(pixels.double() / 255)
    model(pixels.float() / 255)  # the conversion the message suggests works


@pytest.mark.parametrize("sizes", [dict(image_size=16), dict(image_size=4),
                                   dict(image_size=20, primary_kernel=13)])
def test_capsnet_config_refuses_an_empty_primary_grid_when_built(sizes):
    from capsedu import CapsNetConfig

    smallest = CapsNetConfig().conv_kernel + sizes.get("primary_kernel", 9) - 1
    with pytest.raises(ValueError, match=rf"leaves no primary capsule.*image_size >= {smallest}"):
        CapsNetConfig(**sizes)
    with pytest.raises(ValueError, match="leaves no primary capsule"):
        CapsNet(SMALL, **sizes)
    assert CapsNetConfig(image_size=17).primary_grid == 1  # the smallest that works


def test_affnist_pair_has_equal_parameter_counts_and_takes_40x40_images():
    from capsedu.baselines import MaxPoolCNN
    from capsedu.capsnet import AFFNIST

    capsnet, cnn = CapsNet(AFFNIST), MaxPoolCNN()
    assert abs(count_parameters(cnn) / count_parameters(capsnet) - 1) < 0.10  # issue 13's bar
    x = torch.rand(3, 1, 40, 40)
    assert capsnet(x).lengths.shape == (3, 10) and cnn(x).shape == (3, 10)
    assert capsnet.config.n_primary == 8 * 8 * 8
    with pytest.raises(ValueError, match=r"x must have shape \[N, 1, 40, 40\] for MaxPoolCNN"):
        cnn(torch.rand(3, 1, 28, 28))


def test_max_pool_cnn_dropout_is_off_in_eval():
    from capsedu.baselines import MaxPoolCNN

    torch.manual_seed(0)
    cnn, x = MaxPoolCNN(channels=(4, 4, 4), hidden=(16, 8)).eval(), torch.rand(2, 1, 40, 40)
    torch.testing.assert_close(cnn(x), cnn(x))
    cnn.train()
    assert not torch.allclose(cnn(x), cnn(x))


def test_routing_iterations_routes_the_same_weights_and_always_restores():
    from capsedu.capsnet import LIVE, routing_iterations

    torch.manual_seed(0)
    model = CapsNet(LIVE).eval()
    one_pass = CapsNet(LIVE, iterations=1).eval()
    one_pass.load_state_dict(model.state_dict())
    x = torch.rand(2, 1, 28, 28)
    with torch.no_grad(), routing_iterations(model, 1) as routed:
        assert routed is model and model.digits.iterations == 1
        torch.testing.assert_close(model(x).v, one_pass(x).v)
    assert model.digits.iterations == LIVE.iterations
    with pytest.raises(RuntimeError), routing_iterations(model, 5):
        raise RuntimeError("a failure inside the block")
    assert model.digits.iterations == LIVE.iterations  # restored after the error too
    with pytest.raises(ValueError, match="iterations must be an integer >= 1"):
        with routing_iterations(model, 0):
            pass


def test_routing_iterations_routes_a_pose_capsule_net_too_and_always_restores():
    from capsedu.capsnet import routing_iterations
    from capsedu.data import faces
    from capsedu.data.faces import part_slots
    from capsedu.parts.pose_net import PoseCapsuleNet
    from capsedu.parts.voting import exact_transforms

    model = PoseCapsuleNet()
    model.W.copy_(torch.from_numpy(exact_transforms()))
    scenes = [faces.face_parts(0.5, 0.5, 20.0), faces.scramble(faces.face_parts(), seed=4)]
    truth = torch.from_numpy(part_slots(scenes)[0]).float()
    model.detector.detect = lambda x: (truth, torch.ones(2, 4))  # reads the true parts
    x = torch.zeros(2, 1, 32, 32)
    one_pass = model.capsules(x, iterations=1).routing.v.norm(dim=-1).float()
    with routing_iterations(model, 1) as routed:
        assert routed is model and model.iterations == 1 == model.hparams["iterations"]
        torch.testing.assert_close(model(x), one_pass)
    assert model.iterations == 3
    assert not torch.allclose(model(x), one_pass)  # three iterations move the couplings
    with pytest.raises(RuntimeError), routing_iterations(model, 2):
        raise RuntimeError("a failure inside the block")
    assert model.iterations == 3


def test_routing_iterations_refuses_a_model_that_does_not_route():
    from capsedu.capsnet import routing_iterations

    with pytest.raises(TypeError, match=r"routing_iterations\(\): model must be a model that "
                                        r"routes.*got a BagOfPartsCNN, which does not route"):
        with routing_iterations(BagOfPartsCNN(), 1):
            pass

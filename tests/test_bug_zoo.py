"""The bug zoo of notebook 09: each bug's switch in a whole CapsNet, and the registry BUGS."""

from dataclasses import asdict, fields

import pytest
import torch
import torch.nn.functional as F

from capsedu import CapsNet, CapsNetConfig, margin_loss, reconstruction_loss
from capsedu.bug_zoo import BUGS, capsnet_with_bug
from capsedu.checkpoints import pretrained, save

# A CapsNet small enough to build and train a step in a test: 72 primary capsules
TINY = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(16,))
# The config fields that switch a bug on, with the paper's value of each
SWITCHES = {"softmax_over": "parents", "logits_over_batch": "per_example",
            "grad_through_output": True, "squared_margin": True, "mask_by": "label"}


def build(**overrides) -> CapsNet:
    torch.manual_seed(0)
    return CapsNet(TINY, **overrides)


def batch(n=4):
    generator = torch.Generator().manual_seed(1)
    return torch.rand(n, 1, 28, 28, generator=generator), torch.tensor([3, 1, 4, 1, 5, 9][:n])


# --- Off by default: the paper's CapsNet, and old checkpoints load --------------------------------


def test_every_switch_is_off_by_default_and_changes_nothing():
    assert {name: getattr(TINY, name) for name in SWITCHES} == SWITCHES
    x, y = batch()
    default, spelled = build(), build(**SWITCHES)
    for model in (default, spelled):
        loss, _ = model.training_loss(x, y)
        loss.backward()
    assert torch.equal(default(x, y).reconstruction, spelled(x, y).reconstruction)
    for (name, p), q in zip(default.named_parameters(), spelled.parameters(), strict=True):
        assert torch.equal(p.grad, q.grad), name


def test_a_checkpoint_saved_before_the_switches_existed_still_loads(tmp_path):
    model = build()
    # hparams as they were saved before the switches existed
    model.hparams = {k: v for k, v in asdict(TINY).items() if k not in SWITCHES}
    save(model, "old", tmp_path)
    loaded = pretrained("old", tmp_path)
    assert loaded.config == TINY
    x, _ = batch()
    torch.testing.assert_close(loaded(x).lengths, model.eval()(x).lengths)


# --- On: each switch does what its bug does ------------------------------------------------------


def test_softmax_over_children_in_a_capsnet():
    out = build(softmax_over="children")(batch()[0])
    for step in out.routing.history:  # each parent's couplings sum to 1 over the 72 children
        torch.testing.assert_close(step.c.sum(dim=1), torch.ones(4, 10))
    assert not torch.allclose(out.routing.c.sum(dim=2), torch.ones(4, TINY.n_primary))


@pytest.mark.parametrize("logits_over_batch", ["sum", "mean"])
def test_shared_logits_in_a_capsnet_let_one_image_change_another(logits_over_batch):
    x, _ = batch()
    changed = x.clone()
    changed[0] = 1 - changed[0]
    paper, buggy = build().eval(), build(logits_over_batch=logits_over_batch).eval()
    with torch.no_grad():
        torch.testing.assert_close(paper(changed).lengths[1:], paper(x).lengths[1:])
        assert not torch.allclose(buggy(changed).lengths[1:], buggy(x).lengths[1:])
        # and an image is scored differently alone than in a batch
        torch.testing.assert_close(paper(x[1:2]).lengths, paper(x).lengths[1:2])
        assert not torch.allclose(buggy(x[1:2]).lengths, buggy(x).lengths[1:2])


def test_unsquared_margin_in_a_capsnet():
    x, y = batch()
    model = build(squared_margin=False)
    out = model(x, y)
    expected = (margin_loss(out.lengths, y, squared=False)
                + TINY.recon_weight * reconstruction_loss(out.reconstruction, x))
    torch.testing.assert_close(model.loss(out, x, y), expected)
    assert not torch.allclose(model.loss(out, x, y), build().loss(out, x, y))


def decoder_input(model, x, y=None):
    """What the decoder of ``model`` receives on ``x`` (and labels ``y``), with the capsules."""
    seen = []
    hook = model.decoder.register_forward_hook(lambda m, inputs, o: seen.append(inputs[0]))
    try:
        out = model(x, y)
    finally:
        hook.remove()
    return seen[0], out


def masked(out, classes):
    """The DigitCaps vectors with all but ``classes``'s zeroed, flattened: [B, 10 * 16]."""
    return (out.v * F.one_hot(classes, 10).unsqueeze(-1)).flatten(1)


def test_mask_by_prediction_decodes_the_longest_capsule_even_with_labels():
    x, _ = batch()
    buggy, paper = build(mask_by="prediction"), build()
    predicted = paper(x).lengths.argmax(dim=1)
    wrong = (predicted + 1) % 10  # a label that is never the prediction
    seen, out = decoder_input(buggy, x, wrong)
    torch.testing.assert_close(seen, masked(out, predicted))
    # the paper's model decodes the label's capsule instead (and the longest without labels)
    seen, out = decoder_input(paper, x, wrong)
    torch.testing.assert_close(seen, masked(out, wrong))
    seen, out = decoder_input(paper, x)
    torch.testing.assert_close(seen, masked(out, predicted))
    # labels are still checked
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 9\]"):
        buggy(x, torch.tensor([0, 1, 2, 10]))


def gradients(model):
    x, y = batch()
    model.training_loss(x, y)[0].backward()
    return {name: p.grad for name, p in model.named_parameters()}


def test_detached_output_leaves_everything_below_the_decoder_untrained():
    grads = gradients(capsnet_with_bug("detached-output", TINY))
    for name, grad in grads.items():
        if name.startswith("decoder."):
            assert grad.abs().sum() > 0, name  # the decoder still learns from the reconstruction
        else:
            assert grad is None, name  # W_ij, PrimaryCaps and Conv1 get no gradient at all
    # the paper's model (and its legitimate variant without inner gradients) trains them all
    for overrides in ({}, {"grad_through_routing": False}):
        assert all(g.abs().sum() > 0 for g in gradients(build(**overrides)).values())
    # the last iteration detached alone: W still learns, through the couplings only
    assert gradients(build(grad_through_output=False))["digits.W"].abs().sum() > 0


@pytest.mark.parametrize("overrides, error, match", [
    ({"mask_by": "pred"}, ValueError, r"mask_by must be one of: 'label' .*'prediction' .*'pred'"),
    ({"softmax_over": "j"}, ValueError, r"softmax_over must be one of: 'parents'"),
    ({"logits_over_batch": "batch"}, ValueError, r"logits_over_batch must be one of"),
    ({"squared_margin": "False"}, TypeError, r"squared_margin must be True or False"),
    ({"grad_through_output": 0}, TypeError, r"grad_through_output must be True or False"),
])
def test_a_bad_switch_value_is_refused_when_the_config_is_made(overrides, error, match):
    with pytest.raises(error, match=match):
        CapsNet(TINY, **overrides)


# --- The registry ---------------------------------------------------------------------------------


def test_the_registry_covers_every_switch_with_complete_entries():
    switched = set()
    for name, bug in BUGS.items():
        assert bug.name == name and name == name.lower() and " " not in name
        for text in (bug.description, bug.why_wrong, bug.evidence):
            assert len(text) > 40, (name, text)
        assert bug.citations and all(url.startswith("https://github.com/")
                                     for url in bug.citations), name
        for field, value in bug.overrides.items():
            assert field in {f.name for f in fields(CapsNetConfig)}, (name, field)
            assert getattr(TINY, field) != value, (name, field)  # it changes a default
        switched |= set(bug.overrides)
    assert set(SWITCHES) <= switched


@pytest.mark.parametrize("name", sorted(BUGS))
def test_every_bug_builds_a_capsnet_that_trains_a_step(name):
    torch.manual_seed(0)
    model = capsnet_with_bug(name, TINY, iterations=2)
    assert model.config.iterations == 2
    for field, value in BUGS[name].overrides.items():
        assert getattr(model.config, field) == value and model.hparams[field] == value
    x, y = batch(3)
    loss, predictions = model.training_loss(x, y)
    loss.backward()
    assert torch.isfinite(loss) and predictions.shape == (3,)
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    assert model.decoder[0].weight.grad.abs().sum() > 0


def test_an_unknown_bug_is_named_with_the_known_ones():
    with pytest.raises(KeyError, match="no bug named 'typo'.*known: softmax-over-children"):
        capsnet_with_bug("typo", TINY)

"""The bug zoo of notebook 09: each bug as code (a routing step, a loss, a CapsNet that has it),
against what the switch implementation computed and against Procedure 1 written with the bug;
the registry BUGS; and what notebook 09 reads of the recorded runs."""

import importlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from test_ablations import ablation_run
from test_routing import procedure_1

from capsedu import CapsNet, CapsNetConfig, dynamic_routing, margin_loss, routing_step
from capsedu.bug_catalogue import BUGS
from capsedu.bug_zoo import CORRECT, CouplingStats, ZooRun
from capsedu.buggy import (
    step_logits_shared_over_batch,
    step_softmax_over_children,
    unsquared_margin_loss,
)
from capsedu.buggy_capsnet import BuggyCapsNet

# A CapsNet small enough to build and train a step in a test: 72 primary capsules
TINY = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(16,))
# What every bug computed when the bugs were switches of the core (commit 67f950a): the routing of
# fixed votes, and a tiny CapsNet's loss, predictions and gradient norms with each bug
REFERENCE = json.loads((Path(__file__).parent / "data" / "bug_zoo_reference.json").read_text())


def build(bug=None, **overrides) -> CapsNet:
    torch.manual_seed(0)
    return CapsNet(TINY, **overrides) if bug is None else BuggyCapsNet(bug, TINY, **overrides)


def batch(n=4):
    generator = torch.Generator().manual_seed(1)
    return torch.rand(n, 1, 28, 28, generator=generator), torch.tensor([3, 1, 4, 1, 5, 9][:n])


# --- Each bug computes exactly what its switch computed -------------------------------------------


@pytest.mark.parametrize("name, step", [
    ("paper", routing_step), ("softmax-over-children", step_softmax_over_children),
    ("logits-shared-over-batch", step_logits_shared_over_batch)])
def test_each_routing_step_routes_as_its_switch_did(name, step):
    u_hat = torch.randn(3, 6, 4, 5, generator=torch.Generator().manual_seed(0)) * 0.5
    result = dynamic_routing(u_hat, 3, step=step)
    for key in "cvb":
        torch.testing.assert_close(getattr(result, key),
                                   torch.tensor(REFERENCE["routing"][name][key]))


@pytest.mark.parametrize("name", ["correct", *BUGS])
def test_each_buggy_capsnet_trains_as_its_switch_did(name):
    config = CapsNetConfig(conv_channels=4, primary_maps=2, primary_dim=4, digit_dim=6,
                           decoder_hidden=(16,), recon_weight=0.5)
    generator = torch.Generator().manual_seed(0)
    torch.randn(3, 6, 4, 5, generator=generator)  # the reference drew the votes above first
    x, y = torch.rand(4, 1, 28, 28, generator=generator), torch.tensor([3, 1, 4, 1])
    torch.manual_seed(0)
    model = CapsNet(config) if name == "correct" else BuggyCapsNet(name, config)
    with torch.no_grad():
        model.digits.W.mul_(200)  # votes long enough for routing to move the couplings
    loss, predictions = model.training_loss(x, y)
    loss.backward()
    expected = REFERENCE["models"][name]
    assert loss.item() == pytest.approx(expected["loss"], rel=1e-6)
    assert predictions.tolist() == expected["predictions"]
    for (param, p), norm in zip(model.named_parameters(), expected["grad_norms"].values(),
                                strict=True):
        if norm is None:
            assert p.grad is None, param
        else:
            assert p.grad.norm().item() == pytest.approx(norm, rel=1e-5, abs=1e-9), param


@pytest.mark.parametrize("iterations", [1, 2, 3])
@pytest.mark.parametrize("step, softmax_over, logits_over_batch", [
    (step_softmax_over_children, "children", "per_example"),
    (step_logits_shared_over_batch, "parents", "mean"),
])
def test_each_buggy_step_matches_procedure_1_written_with_its_bug(iterations, step, softmax_over,
                                                                 logits_over_batch):
    u_hat = torch.randn(3, 6, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    result = dynamic_routing(u_hat, iterations, step=step)
    v_ref, c_ref = procedure_1(u_hat, iterations, softmax_over, logits_over_batch)
    torch.testing.assert_close(result.v, v_ref)
    torch.testing.assert_close(result.c, c_ref)


# --- What each bug does ---------------------------------------------------------------------------


def test_softmax_over_children_in_a_capsnet():
    out = build("softmax-over-children")(batch()[0])
    for step in out.routing.history:  # each parent's couplings sum to 1 over the 72 children
        torch.testing.assert_close(step.c.sum(dim=1), torch.ones(4, 10))
    assert not torch.allclose(out.routing.c.sum(dim=2), torch.ones(4, TINY.n_primary))


def test_shared_logits_let_one_example_change_another():
    u_hat = torch.randn(4, 9, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    changed = u_hat.clone()
    changed[0] = torch.randn(9, 5, 4, dtype=torch.float64)  # only example 0 differs
    # per example (the paper): the other examples' couplings do not move, to the last bit
    own, own_changed = dynamic_routing(u_hat), dynamic_routing(changed)
    assert torch.equal(own.c[1:], own_changed.c[1:]) and torch.equal(own.v[1:], own_changed.v[1:])
    # shared (the bug): example 0's agreements move every example's couplings, which are then
    # the same for the whole batch
    shared = dynamic_routing(u_hat, step=step_logits_shared_over_batch)
    shared_changed = dynamic_routing(changed, step=step_logits_shared_over_batch)
    assert (shared.c[1:] - shared_changed.c[1:]).abs().max() > 1e-3
    assert (shared.v[1:] - shared_changed.v[1:]).abs().max() > 1e-6
    torch.testing.assert_close(shared.c, shared.c[:1].expand_as(shared.c))
    # one iteration has no agreement update yet: nothing is shared
    torch.testing.assert_close(dynamic_routing(changed, 1, step=step_logits_shared_over_batch).v,
                               dynamic_routing(changed, 1).v)
    # copies of one example share logits that are the example's own (averaged, not summed)
    one = u_hat[:1]
    torch.testing.assert_close(dynamic_routing(one.expand(5, -1, -1, -1), 2,
                                               step=step_logits_shared_over_batch).b,
                               dynamic_routing(one, 2).b.expand(5, -1, -1))


def test_shared_logits_in_a_capsnet_let_one_image_change_another():
    x, _ = batch()
    changed = x.clone()
    changed[0] = 1 - changed[0]
    paper, buggy = build().eval(), build("logits-shared-over-batch").eval()
    with torch.no_grad():
        torch.testing.assert_close(paper(changed).lengths[1:], paper(x).lengths[1:])
        assert not torch.allclose(buggy(changed).lengths[1:], buggy(x).lengths[1:])
        # and an image is scored differently alone than in a batch
        torch.testing.assert_close(paper(x[1:2]).lengths, paper(x).lengths[1:2])
        assert not torch.allclose(buggy(x[1:2]).lengths, buggy(x).lengths[1:2])


def test_unsquared_margin_loss_hand_values():
    # tests/test_functional.py's example for the paper's loss, with both terms unsquared
    lengths = torch.tensor([[0.95, 0.2, 0.05], [0.3, 0.6, 0.0]])
    targets = torch.tensor([0, 1])
    # example 0: present 0; absent 0.5 * (0.2 - 0.1) = 0.05; 0.05 < 0.1 -> 0
    # example 1: present 0.9 - 0.6 = 0.3; absent 0.5 * (0.3 - 0.1) = 0.1
    assert unsquared_margin_loss(lengths, targets).item() == pytest.approx((0.05 + 0.4) / 2)


def test_unsquared_margin_loss_pushes_as_hard_near_the_margin_as_far_from_it():
    targets = torch.tensor([0])
    for length, squared_slope in ((0.8, -0.2), (0.2, -1.4)):  # d/dl (0.9 - l)^2 = -2 (0.9 - l)
        lengths = torch.tensor([[length]], dtype=torch.float64, requires_grad=True)
        (slope,) = torch.autograd.grad(margin_loss(lengths, targets), lengths)
        assert slope.item() == pytest.approx(squared_slope)
        (slope,) = torch.autograd.grad(unsquared_margin_loss(lengths, targets), lengths)
        assert slope.item() == pytest.approx(-1.0)  # d/dl (0.9 - l) = -1, wherever l < 0.9


def test_unsquared_margin_in_a_capsnet():
    from capsedu import reconstruction_loss

    x, y = batch()
    model = build("unsquared-margin-loss")
    out = model(x, y)
    expected = (unsquared_margin_loss(out.lengths, y)
                + TINY.recon_weight * reconstruction_loss(out.reconstruction, x))
    torch.testing.assert_close(model.loss(out, x, y), expected)
    assert not torch.allclose(model.loss(out, x, y), build().loss(out, x, y))
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 9\]"):
        unsquared_margin_loss(out.lengths, torch.tensor([0, 1, 2, 10]))


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
    buggy, paper = build("mask-by-prediction"), build()
    predicted = paper(x).lengths.argmax(dim=1)
    wrong = (predicted + 1) % 10  # a label that is never the prediction
    seen, out = decoder_input(buggy, x, wrong)
    torch.testing.assert_close(seen, masked(out, predicted))
    # the paper's model decodes the label's capsule instead (and the longest without labels)
    seen, out = decoder_input(paper, x, wrong)
    torch.testing.assert_close(seen, masked(out, wrong))
    seen, out = decoder_input(paper, x)
    torch.testing.assert_close(seen, masked(out, predicted))
    # labels are still checked, by the loss, in their own name
    with pytest.raises(ValueError, match=r"BuggyCapsNet.training_loss\(\): y must lie in \[0, 9\]"):
        buggy.training_loss(x, torch.tensor([0, 1, 2, 10]))


def gradients(model):
    x, y = batch()
    model.training_loss(x, y)[0].backward()
    return {name: p.grad for name, p in model.named_parameters()}


def test_detached_output_leaves_everything_below_the_decoder_untrained():
    grads = gradients(build("detached-output"))
    for name, grad in grads.items():
        if name.startswith("decoder."):
            assert grad.abs().sum() > 0, name  # the decoder still learns from the reconstruction
        else:
            assert grad is None, name  # W_ij, PrimaryCaps and Conv1 get no gradient at all
    # the paper's model (and its legitimate variant without inner gradients) trains them all
    for overrides in ({}, {"grad_through_routing": False}):
        assert all(g.abs().sum() > 0 for g in gradients(build(**overrides)).values())


# --- The registry ---------------------------------------------------------------------------------


def test_the_registry_has_complete_entries_that_name_their_code():
    for name, bug in BUGS.items():
        assert bug.name == name and name == name.lower() and " " not in name
        for text in (bug.description, bug.why_wrong, bug.evidence):
            assert len(text) > 40, (name, text)
        assert bug.citations and all(url.startswith("https://github.com/")
                                     for url in bug.citations), name
        # the code it names is in capsedu: module.name, or module.Class.method
        module, *path = bug.code.split(",")[0].split(":")[0].split(" ")[0].split(".")
        found = importlib.import_module(f"capsedu.{module}")
        for attribute in path:
            found = getattr(found, attribute)
        assert callable(found), (name, bug.code)
    assert {bug.step for bug in BUGS.values()} == {routing_step, step_softmax_over_children,
                                                   step_logits_shared_over_batch}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_every_bug_builds_a_capsnet_that_trains_a_step(name):
    model = build(name, iterations=2)
    assert model.config.iterations == 2 and model.hparams["bug"] == name
    x, y = batch(3)
    loss, predictions = model.training_loss(x, y)
    loss.backward()
    assert torch.isfinite(loss) and predictions.shape == (3,)
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    assert model.decoder[0].weight.grad.abs().sum() > 0
    # the same weights as the correct model of that seed: two runs differ only by the bug
    for p, q in zip(model.parameters(), build(iterations=2).parameters(), strict=True):
        assert torch.equal(p, q)


def test_an_unknown_bug_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"BuggyCapsNet\(\): bug must be one of "
                                         r"'softmax-over-children'.*got 'typo'"):
        BuggyCapsNet("typo", TINY)


# --- Reading the recorded runs --------------------------------------------------------------------


def zoo_run(**fields) -> ZooRun:
    """A record of the zoo with ``fields`` given and the others neutral, the fields a run derives
    made to agree (``ZooRun`` checks them): epochs of 10 steps of 8 examples (of a budget of 20)
    whose training accuracy is the step / steps, uniform couplings over 3 iterations; steps as
    many as the given curve or training examples make; a ``test_accuracy`` given without
    ``test_wrong`` reads the first test images wrong."""
    from capsedu.stopping_rule import best_epoch, converged

    uniform = CouplingStats(entropy=1.0, distance=0.0, polarised=0.0, vote=1.0)
    scores, batch = fields.pop("validation_by_epoch", (0.5,)), fields.pop("batch_size", 8)
    curve, losses = fields.pop("batch_accuracy", None), fields.pop("batch_loss", None)
    train = fields.pop("train_examples", None)
    steps = len(curve or losses or ()) // len(scores) or (-(-train // batch) if train else 10)
    limit = fields.pop("limit", None)
    tested = min(limit or 10_000, 10_000)
    wrong = fields.pop("test_wrong", tuple(range(round(
        (1 - fields.pop("test_accuracy", 0.5)) * tested))))
    patience = fields.pop("patience", 5)
    record = ZooRun(seed=0, epochs=20, patience=patience, converged=converged(scores, patience),
                    limit=limit, batch_size=batch, train_examples=train or steps * batch,
                    validation_examples=10 if limit else 200,
                    steps_per_epoch=steps, batch_loss=losses or (1.0,) * steps * len(scores),
                    batch_accuracy=curve or tuple(k / steps for k in range(steps)) * len(scores),
                    validation_by_epoch=scores, chosen_epoch=best_epoch(list(scores)),
                    validation_accuracy=max(scores), test_accuracy=1 - len(wrong) / tested,
                    test_wrong=wrong, couplings=(uniform,) * 3, train_time_s=1.0, threads=1,
                    torch_version="2")
    return replace(record, **fields)


def zoo_records(accuracy_at_end):
    """A record per run of the zoo, the test accuracy ``accuracy_at_end[name]`` (0.5 where not
    given)."""
    return {name: zoo_run(test_accuracy=accuracy_at_end.get(name, 0.5))
            for name in (CORRECT, *BUGS)}


def test_a_record_reads_as_its_results_file_keeps_it():
    from capsedu.bug_zoo import read_results
    from capsedu.json_records import json_row

    results = Path(__file__).parent.parent / "data" / "results"
    shipped = json.loads((results / "bug_zoo_1_epoch.json").read_text())["runs"]
    runs = read_results(results / "bug_zoo_1_epoch.json")
    assert list(runs) == list(shipped) == [CORRECT, *BUGS]
    for name, record in runs.items():  # the same fields, in the same order, with the same values
        assert list(json_row(record)) == list(shipped[name])
        assert json.loads(json.dumps(json_row(record))) == shipped[name]
        assert record.n_test is None
    # the full budget's runs also count their test images (n_test), which their limit gives
    full = read_results(results / "bug_zoo.json")[CORRECT]
    assert full.limit is None and full.n_test == 10_000


def test_bug_effects_pair_each_bug_with_the_correct_run_on_the_same_test_images():
    from capsedu.bug_zoo import bug_effects
    from capsedu.bug_zoo_report import effect_lines

    # a trial of 100 test images; the correct run reads images 0..3 wrong
    finished = (0.5, 0.9, 0.8, 0.8, 0.8)  # the rule met, not rising
    rising = (0.5, 0.6, 0.7)
    zoo = {name: zoo_run(limit=100, test_wrong=(0, 1, 2, 3), validation_by_epoch=finished)
           for name in (CORRECT, *BUGS)}
    zoo["detached-output"] = zoo_run(limit=100, test_wrong=tuple(range(90)),  # 86 more wrong
                                     validation_by_epoch=finished)
    zoo["mask-by-prediction"] = zoo_run(limit=100, test_wrong=(0, 1, 2, 3, 4),
                                        validation_by_epoch=finished)
    effects = bug_effects(zoo, noise=0.002)
    dead, mask = effects["detached-output"], effects["mask-by-prediction"]
    assert (dead.paired.only_a, dead.paired.only_b, dead.paired.n) == (0, 86, 100)
    assert dead.paired.difference == pytest.approx(-0.86) and dead.revealed and dead.finished
    assert mask.paired.difference == pytest.approx(-0.01) and not mask.paired.clear
    assert not mask.revealed  # beyond the noise, but one image cannot be told from chance
    assert effects["softmax-over-children"].paired.difference == 0
    lines = effect_lines(effects)
    assert len(lines) == len(BUGS) + 1
    assert lines[-1] == (f"accuracy reveals 1 of {len(BUGS)} bugs; every run met the course's "
                         "rule: this is where they end")
    # a difference the exact test tells apart but smaller than the seed noise is not revealed
    zoo["mask-by-prediction"] = zoo_run(limit=100, test_wrong=tuple(range(12)),
                                        validation_by_epoch=finished)
    assert bug_effects(zoo, noise=0.002)["mask-by-prediction"].paired.clear
    assert not bug_effects(zoo, noise=0.1)["mask-by-prediction"].revealed
    # a run still rising: the count says where training stopped, not where it ends
    zoo[CORRECT] = zoo_run(limit=100, test_wrong=(0, 1, 2, 3), validation_by_epoch=rising)
    assert effect_lines(bug_effects(zoo, noise=0.002))[-1].endswith(
        f"{len(BUGS)} of {len(BUGS)} bugs' runs (or the correct one) did not meet the course's "
        "rule: this is where training stopped, not where the runs would end")


def test_seed_noise_is_the_spread_of_a_cells_seeds():
    from capsedu import ablations
    from capsedu.recipes import ABLATION_GRID

    cell = ABLATION_GRID[0]
    accuracies = dict(zip(ablations.SEEDS, (0.99, 0.992, 0.994), strict=True))
    results = {ablations.run_name(cell, seed): ablation_run(test_accuracy_by_iterations={
        cell.iterations: accuracy}) for seed, accuracy in accuracies.items()}
    assert ablations.seed_noise(results, cell) == pytest.approx(0.002)


def test_step_table_reads_the_recorded_runs_where_the_live_run_stopped():
    from capsedu.bug_zoo_report import live_table, step_table

    zoo = zoo_records({CORRECT: 0.98})
    live = {name: zoo_run(batch_loss=(1.0,) * 6, test_accuracy=0.3) for name in zoo}
    lines = step_table(zoo, live).split("\n")
    assert "recorded, at step 6" in lines[0]
    # the live run stopped after 6 steps: the recorded steps 2..6 had accuracy 0.1 .. 0.5
    assert lines[1].split() == [CORRECT, "30.0%", "30.0%", "98.0%"]
    assert len(lines) == 2 + 1 + len(BUGS)
    rows = live_table(live).split("\n")
    assert rows[0].endswith("couplings after 3 iterations")
    assert rows[1].split()[:3] == [CORRECT, "30.0%", "1.0000"]


def test_describe_record_says_how_a_run_was_made():
    from capsedu.bug_zoo_report import describe_record

    record = zoo_run(command="python -m capsedu.bug_zoo", epochs=20, train_examples=55000,
                     validation_by_epoch=(0.97, 0.98, 0.98, 0.97, 0.975), seed=0,
                     train_time_s=306, threads=1)
    assert describe_record(record) == ("recorded by 'python -m capsedu.bug_zoo': 5 epoch(s) of a "
                                       "budget of 20, 55,000 training images, seed 0, 5.1 min on "
                                       "1 thread(s)")

"""Notebook 11's measurements (capsedu.adversarial, capsedu.reconstruction_detector,
capsedu.adversarial_record) on tiny models and a hand-made record: equal budgets, a digit robust
only if it survives every loss, the detector's threshold from held-out images, the readers giving
back what the record holds, and the shipped record complete and made as it says."""

import pytest
import torch

from capsedu import adversarial as adv
from capsedu import adversarial_record as record
from capsedu import attacks
from capsedu import reconstruction_detector as detector
from capsedu.baselines import MaxPoolCNN
from capsedu.capsnet import CapsNet, CapsNetConfig
from capsedu.data.mnist import fixed_sample

TINY = CapsNetConfig(image_size=12, conv_channels=4, conv_kernel=3, primary_maps=2,
                     primary_dim=4, primary_kernel=3, primary_stride=2, digit_dim=4,
                     decoder_hidden=(8,))


def tiny_models() -> dict:
    torch.manual_seed(0)
    return {"capsnet": CapsNet(TINY).eval(),
            "cnn": MaxPoolCNN(image_size=12, channels=(4,), hidden=(16,)).eval()}


def digits(n=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 1, 12, 12, generator=g), torch.randint(0, 10, (n,), generator=g)


def test_a_digit_is_robust_only_if_it_survives_every_loss():
    attacked = adv.Attacked("m", "m", "pgd", 0.1, ("a", "b"),
                            (torch.tensor([True, True, False]), torch.tensor([True, False, True])))
    assert attacked.right.tolist() == [True, False, False]
    assert attacked.accuracy == pytest.approx(1 / 3)
    assert attacked.accuracy_under("b") == pytest.approx(2 / 3)


def test_every_model_gets_the_same_budget_and_eps_zero_is_the_clean_reading():
    models = tiny_models()
    x, y = digits()
    budget = adv.Budget(steps=2)
    assert budget.step_size(0.1) == pytest.approx(2.5 * 0.1 / 2)
    clean = adv.robust_accuracy(models, x, y, 0.0, "pgd", budget)
    for name, model in models.items():
        assert clean[name].losses == attacks.LOSSES
        assert torch.equal(clean[name].right, adv.reads_right(model, x, y))
    attacked = adv.robust_accuracy(models, x, y, 0.3, "pgd", budget)
    for name in models:
        assert attacked[name].eps == 0.3 and attacked[name].source == name


def test_examples_are_made_in_batches_as_on_the_whole_set(monkeypatch):
    model = tiny_models()["cnn"]
    x, y = digits(7)
    monkeypatch.setattr(adv, "BATCH", 3)
    assert torch.equal(adv.examples(model, x, y, "fgsm", 0.1, "margin"),
                       attacks.fgsm(model, x, y, 0.1, "margin"))
    no_start = adv.Budget(steps=3, random_start=False)
    assert torch.equal(adv.examples(model, x, y, "pgd", 0.1, "margin", no_start),
                       attacks.pgd(model, x, y, 0.1, 3, no_start.step_size(0.1), "margin",
                                   random_start=False))


def test_the_threshold_is_the_quantile_of_the_held_out_distances():
    capsnet = tiny_models()["capsnet"]
    held, _ = digits(40, seed=1)
    found = detector.threshold(capsnet, held, "tiny")
    distances = detector.distances(capsnet, held)
    assert found.value == pytest.approx(torch.quantile(distances, 0.95).item())
    assert (distances > found.value).float().mean() <= 0.05 + 1e-6
    assert found.held_out == 40 and found.quantile == 0.95


def test_a_digit_is_caught_only_if_every_example_that_fooled_it_is_flagged():
    wrong = (torch.tensor([True, True, False, True]), torch.tensor([False, True, False, True]))
    distance = (torch.tensor([9.0, 9.0, 1.0, 9.0]), torch.tensor([1.0, 1.0, 9.0, 9.0]))
    found = detector.detection("m", "pgd", 0.1, 0.0, 5.0, wrong, distance, 0.05)
    assert found.fooled.tolist() == [True, True, False, True]
    assert found.caught.tolist() == [True, False, False, True]  # digit 1: one example got past
    assert found.detection_rate == pytest.approx(2 / 3)
    assert found.evaded == pytest.approx(1 / 4)


def test_the_adaptive_penalty_is_the_weighted_mean_distance():
    capsnet = tiny_models()["capsnet"]
    x, _ = digits()
    penalty = detector.penalty(capsnet, 0.3)
    assert penalty(x).item() == pytest.approx(
        0.3 * detector.reconstruction_distance(capsnet, x).mean().item())


def test_the_widget_state_reads_both_models_on_the_attacked_digit():
    models = tiny_models()
    x, y = digits()
    state = adv.attack_state(models["capsnet"], models["cnn"], x, y, 2, "fgsm", 0.1, "cnn", 3.0)
    assert state.adversarial.shape == state.image.shape == state.reconstruction.shape == (12, 12)
    assert abs(state.adversarial - state.image).max() <= 0.1 + 1e-6
    assert state.label == int(y[2]) and state.lengths.shape == state.probabilities.shape == (10,)
    assert state.flagged == (state.distance > 3.0)
    with pytest.raises(ValueError, match="index"):
        adv.attack_state(models["capsnet"], models["cnn"], x, y, 6, "fgsm", 0.1, "cnn", 3.0)


def hand_made_record(n=5) -> dict:
    """A record of the shape the run writes: every model read wrong on rows 0 and 1 by each
    loss at every eps, the CNN also on row 2 when the examples come from a CapsNet."""
    losses = dict.fromkeys(attacks.LOSSES, [0, 1])
    clean = {"rows": list(range(n)), "labels": [0] * n, "settings": {"sample": n},
             "wrong": {m: [] for m in adv.MODELS},
             "distance": {m: [1.0] * n for m in adv.CAPSNETS},
             "threshold": {m: {"model": m, "value": 2.0, "quantile": 0.95, "held_out": 10}
                           for m in adv.CAPSNETS}}
    stamp = {"began": "2026-01-01T00:00:00+00:00", "ended": "2026-01-01T00:01:00+00:00",
             "seconds": 60.0, "device": "cpu", "threads": 1, "torch_version": "x",
             "command": adv.COMMAND}
    from capsedu.checkpoints import read_manifest

    models = {m: {"sha256": read_manifest()[m].sha256, "status": "converged", "finished": True}
              for m in adv.MODELS}
    results = {"models": models | stamp, "clean": clean | stamp}
    for attack in adv.ATTACKS:
        for source in adv.MODELS:
            for eps in adv.EPS:
                wrong = {m: dict(losses) for m in adv.MODELS}
                if source != adv.CNN:
                    wrong[adv.CNN] = dict.fromkeys(attacks.LOSSES, [0, 1, 2])
                results[f"{attack}, {source}, eps {eps}"] = {
                    "wrong": wrong, "distance": {m: {loss: [3.0, 1.0, 3.0, 3.0, 3.0]
                                                     for loss in attacks.LOSSES}
                                                 for m in adv.CAPSNETS}} | stamp
    for source in adv.MODELS:
        results[f"sanity, {source}"] = {
            "eps": 0.1, "loss": "margin", "wrong": dict.fromkeys(("usual", "steps", "restarts"),
                                                                 [0, 1]),
            "budgets": {"steps": {"steps": 100}, "restarts": {"restarts": 5}}} | stamp
    return results


def test_the_readers_give_back_what_the_record_holds():
    results = hand_made_record()
    curve = record.read_curve(results, adv.CAPSNET)
    assert [a.eps for a in curve] == [0.0, *adv.EPS]
    assert curve[0].accuracy == 1.0 and curve[1].right.tolist() == [False, False, True, True, True]
    transfer = record.read_attacked(results, adv.CNN, "pgd", 0.1, adv.CAPSNET)
    assert transfer.accuracy == pytest.approx(2 / 5) and transfer.source == adv.CAPSNET
    found = record.read_detection(results, 0.1)
    assert found.threshold == 2.0 and found.false_alarms == 0.0
    assert found.caught.tolist() == [True, False, False, False, False]
    check = record.sanity(results, adv.CNN)
    assert check.more_does_not_help and check.transfer_is_weaker and not check.falls_to_zero
    assert record.how_run(results).units == len(results)
    assert record.read_models(results)[adv.CNN].finished


def test_a_record_of_other_weights_is_refused():
    results = hand_made_record()
    results["models"][adv.CNN] = results["models"][adv.CNN] | {"sha256": "0" * 64}
    with pytest.raises(ValueError, match="other weights"):
        record.read_models(results)


def test_the_shipped_record_is_complete_and_made_as_it_says():
    results = record.read_results()
    if set(adv.units(adv.SAMPLE)) - set(results):
        pytest.skip("the recorded run of capsedu.adversarial has not finished")
    run = record.how_run(results)
    assert run.sample == adv.SAMPLE and run.command.startswith(adv.COMMAND)
    clean = record.read_clean(results)
    assert torch.equal(clean.rows, fixed_sample(adv.SAMPLE))
    assert all(model.finished for model in record.read_models(results).values())
    for name in adv.MODELS:
        assert run.settings["budget"]["losses"] == list(attacks.LOSSES)
        assert record.read_curve(results, name)[-1].eps == max(adv.EPS)


def test_the_live_measure_reads_the_first_recorded_digits_as_the_record_does():
    results = record.read_results()
    if any(f"fgsm, {name}, eps 0.1" not in results for name in adv.MODELS):
        pytest.skip("the recorded run has not attacked with FGSM at eps 0.1 yet")
    models = adv.load_models()
    _, images, labels = adv.sample_digits(8)
    live = adv.robust_accuracy(models, images, labels, 0.1, "fgsm")
    for name in adv.MODELS:
        assert adv.same_as_record(live[name], record.read_attacked(results, name, "fgsm", 0.1)) == 0

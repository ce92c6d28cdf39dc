"""Notebook 11's measurements (capsedu.adversarial, capsedu.reconstruction_detector,
capsedu.adversarial_record) on tiny models and a hand-made record: equal budgets, a digit robust
only if it survives every loss, the detector's threshold from held-out images, the readers giving
back what the record holds, and the shipped record complete and made as it says."""

from dataclasses import replace

import pytest
import torch

from capsedu import (
    adversarial,
    adversarial_record,
    adversarial_units,
    attacks,
    reconstruction_detector,
)
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
    attacked = adversarial.Attacked("m", "m", "pgd", 0.1, ("training", "margin"),
                            (torch.tensor([True, True, False]), torch.tensor([True, False, True])))
    assert attacked.right.tolist() == [True, False, False]
    assert attacked.accuracy == pytest.approx(1 / 3)
    assert attacked.accuracy_under("margin") == pytest.approx(2 / 3)


def test_every_model_gets_the_same_budget_and_eps_zero_is_the_clean_reading():
    models = tiny_models()
    x, y = digits()
    budget = adversarial_units.Budget(steps=2)
    assert budget.step_size(0.1) == pytest.approx(2.5 * 0.1 / 2)
    clean = adversarial.robust_accuracy(models, x, y, 0.0, "pgd", budget)
    for name, model in models.items():
        assert clean[name].losses == attacks.LOSSES
        assert torch.equal(clean[name].right, adversarial.reads_right(model, x, y))
    attacked = adversarial.robust_accuracy(models, x, y, 0.3, "pgd", budget)
    for name in models:
        assert attacked[name].eps == 0.3 and attacked[name].source == name


def test_examples_are_made_in_batches_as_on_the_whole_set(monkeypatch):
    model = tiny_models()["cnn"]
    x, y = digits(7)
    monkeypatch.setattr(adversarial, "BATCH", 3)
    assert torch.equal(adversarial.examples(model, x, y, "fgsm", 0.1, "margin"),
                       attacks.fgsm(model, x, y, 0.1, "margin"))
    no_start = adversarial_units.Budget(steps=3, random_start=False)
    assert torch.equal(adversarial.examples(model, x, y, "pgd", 0.1, "margin", no_start),
                       attacks.pgd(model, x, y, 0.1, 3, no_start.step_size(0.1), "margin",
                                   random_start=False))


def test_the_threshold_is_the_quantile_of_the_held_out_distances():
    capsnet = tiny_models()["capsnet"]
    held, _ = digits(40, seed=1)
    found = reconstruction_detector.threshold(capsnet, held, "tiny")
    distances = reconstruction_detector.distances(capsnet, held)
    assert found.value == pytest.approx(torch.quantile(distances, 0.95).item())
    assert (distances > found.value).float().mean() <= 0.05 + 1e-6
    assert found.held_out == 40 and found.quantile == 0.95


def test_a_digit_is_caught_only_if_every_example_that_fooled_it_is_flagged():
    wrong = (torch.tensor([True, True, False, True]), torch.tensor([False, True, False, True]))
    distance = (torch.tensor([9.0, 9.0, 1.0, 9.0]), torch.tensor([1.0, 1.0, 9.0, 9.0]))
    found = reconstruction_detector.detection("m", "pgd", 0.1, 0.0, 5.0, wrong, distance, 0.05)
    assert found.fooled.tolist() == [True, True, False, True]
    assert found.caught.tolist() == [True, False, False, True]  # digit 1: one example got past
    assert found.detection_rate == pytest.approx(2 / 3)
    assert found.evaded == pytest.approx(1 / 4)


def test_the_adaptive_penalty_is_the_weighted_mean_distance():
    capsnet = tiny_models()["capsnet"]
    x, _ = digits()
    penalty = reconstruction_detector.penalty(capsnet, 0.3)
    assert penalty(x).item() == pytest.approx(
        0.3 * reconstruction_detector.reconstruction_distance(capsnet, x).mean().item())


def test_the_widget_state_reads_both_models_on_the_attacked_digit():
    models = tiny_models()
    x, y = digits()
    state = adversarial.attack_state(models["capsnet"], models["cnn"], x, y, 2, "fgsm", 0.1, "cnn",
                                     3.0)
    assert state.adversarial.shape == state.image.shape == state.reconstruction.shape == (12, 12)
    assert abs(state.adversarial - state.image).max() <= 0.1 + 1e-6
    assert state.label == int(y[2]) and state.lengths.shape == state.probabilities.shape == (10,)
    assert state.flagged == (state.distance > 3.0)
    with pytest.raises(ValueError, match="index"):
        adversarial.attack_state(models["capsnet"], models["cnn"], x, y, 6, "fgsm", 0.1, "cnn", 3.0)


def hand_made_record(n=5) -> dict:
    """A record of the units the run writes: every model read wrong on rows 0 and 1 by each
    loss at every eps, the CNN also on row 2 when the examples come from a CapsNet."""
    from capsedu.checkpoints import read_manifest

    stamp = adversarial_units.Stamp("2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00", 60.0,
                              "cpu", 1, "x")
    converged = ("epoch 3 of 6 kept (99.00 % held out): converged, no held-out gain in the 3 "
                 "epochs after it")
    trained = [adversarial_units.Trained(read_manifest()[m].sha256, converged, True)
               for m in adversarial_units.MODELS]
    thresholds = {m: reconstruction_detector.Threshold(m, 2.0, 0.95, 10)
                  for m in adversarial_units.CAPSNETS}
    clean = adversarial_units.CleanUnit(
        tuple(range(n)), (0,) * n, {m: () for m in adversarial_units.MODELS},
        {m: (1.0,) * n for m in adversarial_units.CAPSNETS}, thresholds,
        adversarial.run_settings(n), stamp, adversarial.COMMAND)
    results = {"models": adversarial_units.ModelsUnit(*trained, stamp, adversarial.COMMAND),
               "clean": clean}
    distance = {m: dict.fromkeys(attacks.LOSSES, (3.0, 1.0, 3.0, 3.0, 3.0))
                for m in adversarial_units.CAPSNETS}
    for attack in attacks.ATTACKS:
        for source in adversarial_units.MODELS:
            for eps in adversarial.EPS:
                wrong = {m: dict.fromkeys(attacks.LOSSES, (0, 1)) for m in adversarial_units.MODELS}
                if source != adversarial_units.CNN:
                    wrong[adversarial_units.CNN] = dict.fromkeys(attacks.LOSSES, (0, 1, 2))
                results[f"{attack}, {source}, eps {eps}"] = adversarial_units.AttackUnit(
                    source, attack, eps, adversarial_units.BUDGET, wrong, distance, stamp,
                    adversarial.COMMAND)
    runs = [adversarial_units.SanityRun(budget, (0, 1))
            for budget in (adversarial_units.Budget(steps=100, losses=("margin",)),
                           adversarial_units.Budget(restarts=5, losses=("margin",)),
                           adversarial_units.Budget(losses=("margin",)))]
    for source in adversarial_units.MODELS:
        results[f"sanity, {source}"] = adversarial_units.SanityUnit(
            source, 0.1, "margin", *runs, stamp, adversarial.COMMAND)
    return results


def test_the_readers_give_back_what_the_record_holds():
    results = hand_made_record()
    curve = adversarial_record.read_curve(results, adversarial_units.CAPSNET)
    assert [a.eps for a in curve] == [0.0, *adversarial.EPS]
    assert curve[0].accuracy == 1.0 and curve[1].right.tolist() == [False, False, True, True, True]
    transfer = adversarial_record.read_attacked(results, adversarial_units.CNN, "pgd", 0.1,
                                                adversarial_units.CAPSNET)
    assert transfer.accuracy == pytest.approx(2 / 5)
    assert transfer.source == adversarial_units.CAPSNET
    found = adversarial_record.read_detection(results, 0.1)
    assert found.threshold == 2.0 and found.false_alarms == 0.0
    assert found.caught.tolist() == [True, False, False, False, False]
    check = adversarial_record.sanity(results, adversarial_units.CNN)
    assert check.more_does_not_help and check.transfer_is_weaker and not check.falls_to_zero
    assert adversarial_record.how_run(results).units == len(results)
    assert adversarial_record.read_models(results)[adversarial_units.CNN].finished


def test_a_record_of_other_weights_is_refused():
    results = hand_made_record()
    models = results["models"]
    results["models"] = replace(models, cnn=replace(models.cnn, sha256="0" * 64))
    with pytest.raises(ValueError, match="other weights"):
        adversarial_record.read_models(results)


def test_the_shipped_record_is_complete_and_made_as_it_says():
    results = adversarial_record.read_results()
    if set(adversarial.units(adversarial.SAMPLE)) - set(results):
        pytest.skip("the recorded run of capsedu.adversarial has not finished")
    run = adversarial_record.how_run(results)
    assert run.sample == adversarial.SAMPLE and run.command.startswith(adversarial.COMMAND)
    clean = adversarial_record.read_clean(results)
    assert torch.equal(clean.rows, fixed_sample(adversarial.SAMPLE))
    assert all(model.finished for model in adversarial_record.read_models(results).values())
    for name in adversarial_units.MODELS:
        assert run.settings.budget.losses == attacks.LOSSES
        assert adversarial_record.read_curve(results, name)[-1].eps == max(adversarial.EPS)


def test_the_live_measure_reads_the_first_recorded_digits_as_the_record_does():
    results = adversarial_record.read_results()
    if any(f"fgsm, {name}, eps 0.1" not in results for name in adversarial_units.MODELS):
        pytest.skip("the recorded run has not attacked with FGSM at eps 0.1 yet")
    models = adversarial.load_models()
    _, images, labels = adversarial.sample_digits(8)
    live = adversarial.robust_accuracy(models, images, labels, 0.1, "fgsm")
    for name in adversarial_units.MODELS:
        recorded = adversarial_record.read_attacked(results, name, "fgsm", 0.1)
        assert adversarial_record.same_as_record(live[name], recorded) == 0

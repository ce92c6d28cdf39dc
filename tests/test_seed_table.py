import dataclasses

import pytest
import torch

from capsedu import bug_zoo, claims_table, seed_runs, seed_table
from capsedu.bug_zoo import CORRECT
from capsedu.checkpoints import read_manifest
from capsedu.recipes import Cell
from capsedu.robustness import seed_verdict
from capsedu.routing_costs import recorded_cost
from capsedu.statistics import leader, over_seeds, paired


def fake_measured(pose_rate=0.1):
    """Measurements as ``measure`` returns them, hand-made: 4 of 5 digits read right by the
    CapsNet, 3 by its 1-iteration twin, 2 by the CNN."""
    right = {name: torch.tensor([True] * k + [False] * (5 - k))
             for name, k in zip(seed_table.AFFINE_NAMES, (4, 3, 2), strict=True)}
    rates = {"face": 0.9, **{kind: 0.2 for kind in seed_table.faces.SCRAMBLED_KINDS}}
    face_rates = {name: dict(rates) for name in (*seed_table.FACE_NAMES, *seed_table.VIT_NAMES)}
    face_rates["ViT without positions"] = {kind: 0.9 for kind in rates}  # a bag of patches
    face_rates["pixel CapsNet"][seed_table.faces.SCRAMBLED_KINDS[0]] = 0.8
    face_rates["pose capsules"][seed_table.faces.SCRAMBLED_KINDS[0]] = pose_rate
    return seed_table.Measured(
        n_table=3, face_rates=face_rates, affine_right=right,
        affine={name: r.float().mean().item() for name, r in right.items()},
        seconds_per_1000=dict(zip(seed_table.AFFINE_NAMES, (3.0, 1.5, 0.5), strict=True)),
        macs={"Conv1": 750_000, seed_table.ROUTING: 250_000}, total=1_000_000)


FOUND = seed_table.Findings(face_slope=0.987, length_45=0.3, cosine_45=0.25, max_pool_change=0.5,
                            gcnn_error=2e-7, cnn_error=0.83, readout_error=20.0,
                            readout_baseline=30.0, gcnn_turned=0.9, cnn_turned=0.45, n_seeds=3,
                            turned_verdict="G-CNN ahead")
MANIFEST = read_manifest()
RECORDS = seed_table.read_records()


def seed_right() -> dict:
    """seed -> 08's affNIST readings -> which of the 10,000 digits it reads right (the record)."""
    return {seed: {name: seed_runs.read_right(RECORDS.seeds, "affnist-style", name, seed)
                   for name in seed_table.AFFINE_NAMES} for seed in seed_runs.SEEDS}


def over_the_seeds(name: str) -> str:
    """A recipe's accuracy over seeds as the table writes it: mean ± the t interval's half-width."""
    over = over_seeds([100 * right[name].float().mean().item() for right in seed_right().values()])
    return f"{over.mean:.2f} ± {over.half_width:.2f} %"


def seed_leader(other: str, first: str, second: str) -> str:
    """08's verdict over seeds: the CapsNet against ``other`` (paired by seed: one network)."""
    verdict = seed_verdict(seed_right(), "affnist-capsnet", other, by_seed=other != "affnist-cnn")
    return leader(verdict.over_seeds, first, second)


def test_measured_lines_say_each_measurement():
    lines = claims_table.measured_lines(fake_measured())
    assert lines[0] == ("face rates of seed 0's models, 3 images per kind (07 measures 3 seeds, "
                        "400 each):")
    assert lines[7] == ("affNIST-style, all 10,000 test digits (08's record), and the time to read "
                        "them here:")
    assert lines[8] == "        affnist-capsnet: 80.00 %, 3.0 s per 1,000 digits"
    assert lines[-1] == "the paper's CapsNet: 1.0 M multiply-adds per image, routing 25.0 % of them"


def test_rows_write_the_measurements_into_their_cells(monkeypatch):
    monkeypatch.setattr(seed_table, "still_improving", lambda records: [])
    rows = {row.claim: (row.measured, row.verdict)
            for row in claims_table.rows(fake_measured(), FOUND, MANIFEST, RECORDS)}
    assert len(rows) == 10
    scrambles = ", ".join(seed_table.faces.SCRAMBLED_KINDS)
    assert rows["position in a ViT"][0].startswith(
        "10 §8 (seed 0, here; 3 seeds there): fooled (face rate > 0.5) by ViT without positions: "
        f"{scrambles}; ViT: none; deep CNN: none; pose capsules: none")
    assert rows["position in a ViT"][1] == (
        f"position embeddings let the ViT reject {scrambles} (without them it is a bag of "
        "patches); it is still fooled by none; only the pose capsules reject every scramble")
    assert "ViT" not in rows["part-whole"][0]
    assert rows["basic unit"][0].endswith("slope 0.99; 05's digit capsule at 45°: length 0.30, "
                                          "cosine 0.25 with upright")
    assert rows["basic unit"][1].endswith("05's CapsNet, trained upright, loses its capsule at 45°")
    # 08's recipes over training seeds, from seed_runs' record, as 08 prints them
    assert rows["viewpoint"][0] == (
        f"08 (all 10,000 digits): affNIST-style over 3 training seeds each, CapsNet "
        f"{over_the_seeds('affnist-capsnet')}, CNN {over_the_seeds('affnist-cnn')} (the shipped "
        "pair: 80.0 % and 40.0 %); §4: randomly turned, G-CNN 90.0 %, CNN 45.0 % (means of 3 "
        "seeds)")
    assert rows["viewpoint"][1] == (
        f"affNIST-style: {seed_leader('affnist-cnn', 'CapsNet', 'CNN')} over 3 seeds (the shipped "
        "pair: not told apart); turned: G-CNN ahead over seeds (built-in equivariance)")
    assert (f"1 iteration {over_the_seeds('affnist-capsnet-1iter')}, 3 iterations "
            f"{over_the_seeds('affnist-capsnet')}") in rows["routing"][0]
    assert rows["routing"][1].startswith(
        f"3 vs 1 iterations: affNIST-style {seed_leader('affnist-capsnet-1iter', '3', '1')} over 3 "
        "seeds (the shipped pair: ")
    gpu = recorded_cost()  # the GPU's run, quoted with its source
    assert rows["cost"][0] == (
        "05 (here): the paper's CapsNet, 1 M multiply-adds per image, routing "
        "25.0 % of them; 08's pair (equal sizes) scores 1,000 digits in 3.0 s and 0.5 s here; "
        f"recorded on {gpu.device} ({gpu.command}, {gpu.date}), batch {gpu.batch}: a training step "
        f"of CapsNet(AFFNIST) takes {gpu.capsnet_step / gpu.cnn_step:.1f}x the CNN's; routing is "
        f"{100 * gpu.macs:.1f} % of the forward multiply-adds, {100 * gpu.forward:.0f} % of the "
        f"forward time and {100 * gpu.backward:.0f} % of the backward time")
    assert rows["cost"][1].startswith(
        f"the CapsNet takes 6.0x the CNN's time here and {gpu.capsnet_step / gpu.cnn_step:.1f}x "
        f"per training step on {gpu.device}")
    first = seed_table.faces.SCRAMBLED_KINDS[0]
    assert f"pixel CapsNet: {first}; pose capsules: none" in rows["part-whole"][0]
    assert rows["part-whole"][1] == ("pose capsules reject every scramble; so does a deep CNN; "
                                     "the paper-style pixel CapsNet is fooled")
    assert rows["equivariance"][0] == (
        "§3: the G-CNN's layers are off by 2e-07 after a quarter turn, the CNN's by 0.8 or more; "
        "§2: a read-out finds a turned digit's angle in 05's capsule within 20° (within ±45°; "
        "a guess without it: 30°)")
    assert "decode only coarsely" in rows["equivariance"][1]
    zoo = bug_zoo.read_results()
    assert rows["maturity"][0].startswith(f"09: {len(zoo) - 1} bugs that public CapsNets shipped")
    epochs = len(zoo[CORRECT].validation_by_epoch)
    accuracy = claims_table.pct(zoo[CORRECT].test_accuracy)
    assert f"({accuracy}, {epochs} epoch(s))" in rows["maturity"][0]
    # the verdict is the paired tests' beside the seed noise: the shipped zoo, every run trained
    # until the course's rule held, reveals 2 (after one epoch it revealed 3)
    assert rows["maturity"][1] == (
        "as the seed says: the test accuracy does not reveal 3 of the 5 bugs "
        "(softmax-over-children, mask-by-prediction, logits-shared-over-batch: not told apart, or "
        "within the seed noise)")


def test_rows_turn_their_verdicts_with_the_findings(monkeypatch):
    monkeypatch.setattr(seed_table, "still_improving", lambda records: ["affnist-cnn"])
    other = dataclasses.replace(FOUND, length_45=0.8, readout_error=40.0)
    rows = {row.claim: row.verdict
            for row in claims_table.rows(fake_measured(pose_rate=0.9), other, MANIFEST, RECORDS)}
    assert rows["basic unit"].endswith("05's capsule stays long at 45°")
    assert rows["equivariance"] == "exact when built into the layer; absent when left to training"
    assert rows["part-whole"].startswith("even pose capsules are fooled")
    assert "(not final: affnist-cnn still improving)" in rows["viewpoint"]


def test_markdown_is_a_table_of_one_row_per_claim(monkeypatch):
    monkeypatch.setattr(seed_table, "still_improving", lambda records: [])
    rows = claims_table.rows(fake_measured(), FOUND, MANIFEST, RECORDS)
    lines = claims_table.markdown(rows).split("\n")
    assert len(lines) == 2 + len(rows)
    assert lines[1] == "|---|---|---|---|"
    # every line has 4 cells between 5 pipes: no cell's text holds a pipe
    assert all(line.count("|") == 5 for line in lines)
    assert lines[2].startswith("| **basic unit** | a neuron outputs a scalar")
    with pytest.raises(ValueError, match="pipe"):
        claims_table.markdown([("a", "b | c", "d", "e")])
    with pytest.raises(ValueError, match="table_rows"):
        claims_table.markdown([("a", "b")])
    with pytest.raises(TypeError, match=r"Row\(\): claim must be a string, got 1"):
        claims_table.Row(1, "b", "c", "d")  # a tuple of texts, checked when made


def test_measure_refuses_bad_input():
    with pytest.raises(ValueError, match="images"):
        seed_table.measure(torch.zeros(4, 28, 28), 3)


def test_a_bad_grid_is_refused_by_the_callers_name():
    """The comparisons pass their grid on to ablations.seed_errors and seed_noise: a grid of no
    runs, or short of a cell, is refused as the caller's grid, not the inner results or cell."""
    from capsedu import ablations

    grid = ablations.read_results()
    short = {name: run for name, run in grid.items() if not name.endswith("seed=2")}
    zoo = bug_zoo.read_results()
    for compare in (seed_table.routing_comparisons, lambda grid: seed_table.bug_comparisons(
            zoo, grid)):
        with pytest.raises(ValueError, match=r"_comparisons\(\): grid must hold at least one run"):
            compare({})
        with pytest.raises(ValueError, match=r"_comparisons\(\): grid must record every cell of "
                           r"ABLATION_GRID at every seed"):
            compare(short)


def test_the_routing_row_is_09s_comparisons_number_for_number(monkeypatch):
    from capsedu import ablations

    monkeypatch.setattr(seed_table, "still_improving", lambda records: [])
    cells = {row.claim: (row.measured, row.verdict)
             for row in claims_table.rows(fake_measured(), FOUND, MANIFEST, RECORDS)}
    measured, verdict = cells["routing"]
    comparisons = ablations.one_change_comparisons(ablations.read_results())
    every = [c.difference for c in comparisons.every()]
    for weight, words in zip(ablations.WEIGHTS, ("with", "without"), strict=True):
        c = comparisons.between(Cell(3, weight), Cell(1, weight))  # as 09 prints it
        assert (f"{words} reconstruction {c.difference:+.3f} points ({c.low:+.3f} to "
                f"{c.high:+.3f})") in measured
        told = ("not told apart" if not c.clear else "3 ahead" if c.difference < 0 else "1 ahead")
        assert f"MNIST {told} {words} reconstruction" in verdict or \
            f", {told} {words} reconstruction" in verdict
    crossed = sum(c.clear for c in every)
    assert f"{crossed} of 09's {len(every)} one-change comparisons told apart" in measured
    chance = len(every) * 0.05
    assert f"{crossed} of {len(every)} comparisons crossed, about {chance:.1f}" in verdict
    assert " ± " in measured and "half-width of the 95 % t interval" in measured


def test_the_adversarial_row_quotes_11s_record():
    """11's record read again here, model by model: PGD at eps 0.1, the strongest loss per digit,
    the CapsNet against the CNN on the same digits, and the detector's numbers."""
    from capsedu import adversarial_record

    row = claims_table.adversarial_row(seed_table.adversarial_comparisons(RECORDS.adversarial))
    at = {name: adversarial_record.read_attacked(RECORDS.adversarial, name, "pgd", 0.1)
          for name in ("affnist-capsnet", "affnist-capsnet-1iter", "affnist-cnn")}
    for name, attacked in at.items():
        assert f"{name} {100 * attacked.accuracy:.1f} %" in row.measured
    versus = paired(at["affnist-capsnet"].right, at["affnist-cnn"].right)
    assert row.verdict.startswith("CapsNet vs CNN: ")
    assert f"{leader(versus, 'CapsNet', 'CNN')} at eps 0.1" in row.verdict.split("; ")[0]
    plain = adversarial_record.read_detection(RECORDS.adversarial, 0.1)
    assert f"flags {100 * plain.detection_rate:.1f} % of the digits PGD fools" in row.measured
    assert f"undetected wins {100 * plain.evaded:.1f} % for a plain attacker" in row.verdict


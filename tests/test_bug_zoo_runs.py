"""Notebook 09's recorded bug-zoo runs: every model trained the same way, its curves recorded,
trials kept off the shipped results, finished runs never trained twice."""

import json

import pytest
import torch
from test_bug_zoo import zoo_run

from capsedu import bug_zoo, bug_zoo_report
from capsedu.buggy import unsquared_margin_loss
from capsedu.capsnet import LIVE, CapsNet
from capsedu.functional import margin_loss, reconstruction_loss
from capsedu.json_records import json_row
from capsedu.stopping_rule import PATIENCE

LIMIT = "150"  # 138 training images (2 steps: 128 and 10), 12 held out, 150 test images
NAMES = [bug_zoo.CORRECT, *bug_zoo.BUGS]
STEPS = 2


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """A trial of the whole zoo in a temporary data root that holds a shipped results file; every
    batch each model trains on is kept, in the order of the runs."""
    from capsedu import course_settings
    from capsedu.data.mnist import load_mnist

    try:
        load_mnist(False, 1)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root")
    root = tmp_path_factory.mktemp("data")
    (root / "MNIST").symlink_to((course_settings.data_root() / "MNIST").resolve())
    shipped = root / "results" / bug_zoo.RESULTS
    shipped.parent.mkdir()
    shipped.write_text('{"runs": {}}\n')
    batches = []
    training_loss = CapsNet.training_loss

    def spy(model, x, y):
        batches.append((x.clone(), y.clone()))
        return training_loss(model, x, y)

    threads = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CAPSEDU_DATA", str(root))
        patch.setattr(CapsNet, "training_loss", spy)
        # the runs are compared number for number: on the CPU (as conftest.on_the_cpu)
        patch.setattr(course_settings, "device", lambda: torch.device("cpu"))
        assert bug_zoo.main(["--epochs", "1", "--limit", LIMIT, "--threads", "1"]) == 0
        yield root, batches
    torch.set_num_threads(threads)


ONE_EPOCH = bug_zoo.results_name(1)  # the runs with a budget of one epoch have a file of their own


def recorded(root):
    return json.loads((root / "runs" / "results" / ONE_EPOCH).read_text())["runs"]


def test_each_budget_has_a_results_file_of_its_own():
    assert bug_zoo.results_name() == bug_zoo.RESULTS == "bug_zoo.json"
    assert (ONE_EPOCH, bug_zoo.results_name(5)) == ("bug_zoo_1_epoch.json", "bug_zoo_5_epochs.json")


def test_every_run_is_recorded_with_its_curves(zoo):
    root, _ = zoo
    runs = recorded(root)
    assert list(runs) == NAMES
    read = bug_zoo.read_results(root / "runs" / "results" / ONE_EPOCH)
    assert {name: json.loads(json.dumps(json_row(record))) for name, record in read.items()} == runs
    for name, record in runs.items():
        assert (record["train_examples"], record["validation_examples"]) == (138, 12)
        assert record["steps_per_epoch"] == STEPS and record["epochs"] == 1
        assert len(record["batch_loss"]) == len(record["batch_accuracy"]) == STEPS
        assert record["validation_by_epoch"] == [record["validation_accuracy"]]
        assert 0 <= record["test_accuracy"] <= 1 and record["threads"] == 1
        # the test images it read wrong, for the zoo's paired tests: as many as its accuracy says
        n_test = int(LIMIT)
        assert record["test_accuracy"] == pytest.approx(1 - len(record["test_wrong"]) / n_test)
        assert all(0 <= i < n_test for i in record["test_wrong"])
        assert record["patience"] == PATIENCE and record["converged"] is False  # 1 epoch: no rule
        assert record["command"] == f"python -m capsedu.bug_zoo --epochs 1 --limit {LIMIT} " \
                                    "--threads 1"
        assert [set(step) for step in record["couplings"]] == \
            [{"entropy", "distance", "polarised", "vote"}] * LIVE.iterations
        # the first iteration couples uniformly: every child splits its vote evenly
        assert record["couplings"][0]["distance"] == pytest.approx(0, abs=1e-6)
        # a child's whole vote is 1, except with the softmax over the children: n_out / n_in
        vote = 10 / LIVE.n_primary if name == "softmax-over-children" else 1.0
        assert [step["vote"] for step in record["couplings"]] == pytest.approx([vote] * 3)
    assert not list((root / "runs" / "state").iterdir())  # removed when a run is done


def test_notebook_09s_widget_reads_the_recorded_runs(zoo):
    from capsedu.data.mnist import load_mnist
    from capsedu.widgets import BugZooExplorer

    root, _ = zoo
    runs = bug_zoo.read_results(root / "runs" / "results" / ONE_EPOCH)
    images, labels = load_mnist(False, 2)
    torch.manual_seed(0)
    model = CapsNet(LIVE)
    with torch.no_grad():
        votes = model.votes(images)
    for name in NAMES:
        s = bug_zoo_report.zoo_state(votes, labels, bug=name, results=runs)
        assert s.curve_note == "" and s.recorded[name] == runs[name]
        assert len(s.curves[name]) == STEPS
    w = BugZooExplorer(model, images, labels, results=runs)
    w.bug.value = "detached-output"
    assert f"{100 * runs['detached-output'].test_accuracy:.2f} % test accuracy" in \
        w.readout.value


def test_the_shipped_results_are_untouched_without_replace_shipped(zoo):
    root, _ = zoo
    assert (root / "results" / bug_zoo.RESULTS).read_text() == '{"runs": {}}\n'
    assert bug_zoo.read_results() == {}  # the notebook reads the shipped file


def test_every_model_trains_on_the_same_batches(zoo):
    _, batches = zoo
    assert len(batches) == STEPS * len(NAMES)
    first = batches[:STEPS]  # the correct model's
    for k, name in enumerate(NAMES):
        for (x, y), (x0, y0) in zip(batches[STEPS * k: STEPS * (k + 1)], first, strict=True):
            assert torch.equal(x, x0) and torch.equal(y, y0), name


def test_the_first_step_differs_from_the_correct_model_only_by_the_bug(zoo):
    root, batches = zoo
    first = {name: record["batch_loss"][0] for name, record in recorded(root).items()}
    # the stop-gradient changes no value: the same weights on the same batch, the same loss
    assert first["detached-output"] == first[bug_zoo.CORRECT]
    # the initial weights on the first batch give both losses, squared (Eq. 4) and unsquared
    torch.manual_seed(0)
    model = CapsNet(LIVE)
    x, y = batches[0]
    with torch.no_grad():
        out = model(x, y)
        recon = LIVE.recon_weight * reconstruction_loss(out.reconstruction, x)
        squared = float(margin_loss(out.lengths, y) + recon)
        unsquared = float(unsquared_margin_loss(out.lengths, y) + recon)
    assert abs(squared - unsquared) > 0.01
    assert first[bug_zoo.CORRECT] == pytest.approx(squared, abs=2e-5)
    assert first["unsquared-margin-loss"] == pytest.approx(unsquared, abs=2e-5)


def test_finished_runs_are_skipped_and_a_missing_one_is_run(zoo, capsys):
    root, batches = zoo
    path = root / "runs" / "results" / ONE_EPOCH
    trained = len(batches)
    capsys.readouterr()
    bug_zoo.main(["--epochs", "1", "--limit", LIMIT, "--threads", "1"])
    assert capsys.readouterr().out == "" and len(batches) == trained  # nothing trained again
    runs = recorded(root)
    kept = runs.pop("mask-by-prediction")
    path.write_text(json.dumps({"runs": runs}))
    bug_zoo.main(["--epochs", "1", "--limit", LIMIT, "--threads", "1"])
    assert capsys.readouterr().out.startswith("mask-by-prediction: test accuracy")
    assert len(batches) == trained + STEPS  # that run alone
    again = recorded(root)["mask-by-prediction"]
    assert again["batch_loss"] == kept["batch_loss"] and again["couplings"] == kept["couplings"]


def test_runs_of_another_length_are_refused_before_training(zoo, capsys):
    root, batches = zoo
    trained = len(batches)
    with pytest.raises(SystemExit):
        bug_zoo.main(["--epochs", "1", "--limit", "100"])
    assert "holds runs made with other --epochs or --limit" in capsys.readouterr().err
    assert len(batches) == trained


def test_replace_shipped_writes_the_shipped_results_but_never_a_trial(zoo, monkeypatch):
    root, _ = zoo
    shipped_path = root / "results" / bug_zoo.RESULTS
    before = shipped_path.read_bytes()
    with pytest.raises(SystemExit, match="never recorded as the shipped results"):
        bug_zoo.main(["--limit", LIMIT, "--threads", "1", "--replace-shipped"])
    assert shipped_path.read_bytes() == before
    monkeypatch.setattr(bug_zoo, "BUGS", {})  # the correct model's run only, its record faked
    monkeypatch.setattr(bug_zoo, "run", lambda name, epochs, limit, state_path: zoo_run(
        epochs=epochs, limit=limit, test_accuracy=0.5, train_time_s=1.0))
    bug_zoo.main(["--epochs", "1", "--threads", "1", "--replace-shipped"])
    assert shipped_path.read_bytes() == before  # the full budget's file is another
    shipped = bug_zoo.read_results(epochs=1)
    assert list(shipped) == [bug_zoo.CORRECT]
    assert shipped[bug_zoo.CORRECT].limit is None
    assert shipped[bug_zoo.CORRECT].command == f"{bug_zoo.COMMAND} --epochs 1 --threads 1"

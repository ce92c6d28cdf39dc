"""Notebook 07's headline widget, driven kernel-side with the shipped seed-0 face models."""

import numpy as np
import pytest

from capsedu.data import faces
from capsedu.parts.training import load_face_models
from capsedu.widgets import FaceCapsulesExplorer
from capsedu.widgets.face_capsules import face_state


@pytest.fixture(scope="module")
def models():
    return {name: trained[0] for name, trained in load_face_models([0]).items()}


@pytest.fixture()
def explorer(models):
    return FaceCapsulesExplorer(models["pose capsules"], models)


def test_an_upright_face_is_found_and_routed_to_the_face(explorer):
    s = explorer.state
    assert s.found == list(faces.PART_KINDS)
    assert min(s.c_face.values()) > 0.7
    assert s.face_length > explorer.pose_model.threshold.item()
    assert s.called_face["pose capsules"] and s.called_face["bag-of-parts CNN"]
    assert s.c.sum(axis=1) == pytest.approx(np.ones(4))  # softmax over the parents
    for name, p in s.face_probability.items():  # each verdict is its score against its cut
        assert s.called_face[name] == (p > s.threshold[name])
    # every detected part predicts (nearly) the same face: the ghosts coincide within about two
    # pixels (a detector that never saw a face reads a face's part angles to a few degrees, and a
    # few degrees move a part's predicted face centre by 1-2 pixels)
    ghosts = np.array(list(s.predictions.values()))  # [4, 4]
    assert np.ptp(ghosts[:, :2], axis=0).max() < 0.07


def test_moving_a_part_out_lowers_its_coupling_the_face_length_and_the_verdict(explorer):
    before, png = explorer.state, explorer.image.value
    explorer.editor.part.value = "left_eye"
    explorer.editor.x.value, explorer.editor.y.value = 0.12, 0.85
    after = explorer.state
    assert after.c_face["left_eye"] < 0.5 < before.c_face["left_eye"]
    assert after.face_length < before.face_length
    assert explorer.image.value != png
    assert "left_eye 0." in explorer.readout.value


def test_scramble_is_rejected_by_pose_capsules_and_reset_restores(explorer):
    explorer.editor.scramble_button.click()
    assert not explorer.state.called_face["pose capsules"]
    explorer.editor.reset_button.click()
    assert explorer.state.called_face["pose capsules"]


def test_turning_the_whole_face_keeps_the_verdict_and_turns_the_votes(explorer):
    angle_before = np.mean([p[2] for p in explorer.state.predictions.values()])
    for _ in range(3):  # 90 degrees in all
        explorer.editor.rotate_button.click()
    s = explorer.state
    assert s.called_face["pose capsules"] and min(s.c_face.values()) > 0.7
    turned = np.mean([p[2] for p in s.predictions.values()]) - angle_before
    assert (turned + 180) % 360 - 180 == pytest.approx(90, abs=10)


def test_iteration_slider(explorer):
    explorer.iteration.value = 1
    assert explorer.state.c == pytest.approx(np.full((4, 2), 0.5))  # no routing yet
    explorer.iteration.value = 5
    assert explorer.state.lengths.shape == (5, 2)


@pytest.mark.parametrize("iteration", [0, 6])
def test_iteration_out_of_range(models, iteration):
    with pytest.raises(ValueError, match=r"iteration must be an integer >= 1 and <= 5"):
        face_state(models["pose capsules"], models, faces.face_parts(), iteration)


def test_editor_rejects_values_out_of_range(explorer):
    with pytest.raises(ValueError, match=r"move\(\): x must be a finite number >= 0 and <= 1"):
        explorer.editor.move("nose", x=1.5)


def test_a_face_with_a_part_deleted(explorer):
    explorer.editor.set_parts([p for p in faces.face_parts() if p.kind != "mouth"])
    s = explorer.state
    assert s.found == ["left_eye", "right_eye", "nose"]
    assert s.c.shape == (3, 2) and "mouth" not in s.c_face

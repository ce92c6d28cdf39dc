"""Notebook 01's widget, driven kernel-side: edit parts, assert on what the callback computed."""


import numpy as np
import pytest
import torch

from capsedu.baselines import LogitClassifier
from capsedu.data import faces, sprites
from capsedu.widgets import FaceVerdicts
from capsedu.widgets.verdicts import verdicts_state


class FaceIfInkAt(LogitClassifier):
    """A stand-in model: P(face) = sigmoid of the ink at one pixel minus 0.5 (quick and known)."""

    def __init__(self, row, col):
        super().__init__()
        self.row, self.col = row, col
        self.unused = torch.nn.Parameter(torch.zeros(1))  # so the model has a device

    def forward(self, x):
        ink = x[:, 0, self.row, self.col] - 0.5  # [B]
        return torch.stack([torch.zeros_like(ink), ink], dim=1)  # logits [B, 2]


def models():
    return {"A": FaceIfInkAt(0, 0), "B": FaceIfInkAt(16, 16)}


def test_verdicts_renders_and_scores_each_model():
    parts = faces.face_parts()
    out = verdicts_state(models(), parts)
    assert np.array_equal(out.image, sprites.render(parts))
    ink = out.image[16, 16]
    assert out.face_probability["A"] == pytest.approx(1 / (1 + np.exp(0.5)))  # no ink at 0,0
    assert out.face_probability["B"] == pytest.approx(1 / (1 + np.exp(-(ink - 0.5))))


def test_verdicts_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        verdicts_state({}, faces.face_parts())
    with pytest.raises(ValueError, match="a part.s kind must be one of"):
        verdicts_state(models(), [("ear", 0.5, 0.5)])


def test_editing_parts_updates_state_readout_and_image():
    w = FaceVerdicts(models())
    png, text, p_before = w.image.value, w.readout.value, dict(w.state.face_probability)
    assert set(p_before) == {"A", "B"} and "P(face)" in text
    w.editor.part.value = "nose"
    w.editor.x.value = 0.05  # move the nose to the top-left corner, over the pixel A looks at
    w.editor.y.value = 0.05
    assert w.state.face_probability["A"] > p_before["A"]
    assert w.image.value != png and w.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert w.readout.value != text
    w.editor.reset_button.click()
    assert w.state.face_probability == pytest.approx(p_before)
    assert w.state.parts == faces.face_parts()


def test_buttons_update_the_verdicts():
    w = FaceVerdicts(models())
    start = w.state.image.copy()
    w.editor.scramble_button.click()
    assert not np.array_equal(w.state.image, start)
    w.editor.reset_button.click()
    w.editor.rotate_button.click()
    assert all(p.angle == pytest.approx(30) for p in w.state.parts)


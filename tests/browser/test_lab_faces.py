"""Notebook 07 in a real JupyterLab: moving a part changes its coupling, the face capsule's length
and the verdicts shown by the headline widget."""

import re

import pytest
from labdriver import (
    assert_no_errors,
    expect_rendered,
    image_bytes,
    open_and_run,
    set_slider,
    widget_box,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/07_faces_parts_vote_for_wholes.ipynb"
# The readout of capsedu/widgets/faces.py
LENGTH = re.compile(r"‖v_face‖ = ([\d.]+)")
COUPLING = re.compile(r"left_eye ([\d.]+)")
VERDICT = re.compile(r"pose capsules: [\d.]+ \(face above [\d.]+\) → (face|not a face)")


def numbers(text: str) -> tuple[float, float | None, str]:
    """(face length, left eye's coupling to the face or None if not found, pose capsules'
    verdict) read off the readout."""
    length, coupling, verdict = (p.search(text) for p in (LENGTH, COUPLING, VERDICT))
    assert length and verdict, f"readout not understood: {text!r}"
    return float(length[1]), float(coupling[1]) if coupling else None, verdict[1]


def test_moving_a_part_changes_couplings_length_and_verdicts(lab, page):
    notebook = open_and_run(page, lab, NOTEBOOK, timeout=240)
    explorer = widget_box(notebook, "iteration")
    readout, image = explorer.locator(".widget-html").last, explorer.locator("img")
    expect_rendered(image)

    length, coupling, verdict = numbers(readout.inner_text())
    assert coupling is not None and coupling > 0.7 and verdict == "face"
    src, png = image.get_attribute("src"), image_bytes(image)

    # Drag the left eye (the part selected first) to the bottom left corner: it no longer agrees.
    set_slider(explorer, "x", 0.12)
    set_slider(explorer, "y", 0.85)
    expect(readout).not_to_contain_text(f"‖v_face‖ = {length:.3f}")
    moved_length, moved_coupling, moved_verdict = numbers(readout.inner_text())
    assert moved_length < length
    assert moved_coupling is None or moved_coupling < 0.5 < coupling
    assert moved_verdict == "not a face"
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != png
    assert_no_errors(notebook)

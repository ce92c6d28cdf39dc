"""The lecture demo (``make demo``): Voila shows notebook 07's headline widget and 04's routing
widget with no code; moving a part changes its coupling to the face and the face capsule's
length, as in JupyterLab (test_lab_faces.py)."""

import re

import pytest
from labdriver import assert_no_errors, expect_rendered, image_bytes, set_slider, widget_box
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The readout of capsedu/widgets/panels.py
LENGTH = re.compile(r"‖v_face‖ = ([\d.]+)")
COUPLING = re.compile(r"left_eye ([\d.]+)")


def numbers(text: str) -> tuple[float, float | None]:
    """(face length, left eye's coupling to the face or None if it is not found)."""
    length, coupling = LENGTH.search(text), COUPLING.search(text)
    assert length, f"readout not understood: {text!r}"
    return float(length[1]), float(coupling[1]) if coupling else None


def test_the_demo_shows_both_widgets_without_code_and_moving_a_part_reroutes(voila, tab):
    tab.goto(voila.url, timeout=180_000)  # Voila runs the notebook before it sends the page
    expect(widget_box(tab, "iteration")).to_have_count(2, timeout=120_000)
    faces, routing = widget_box(tab, "iteration").first, widget_box(tab, "iteration").last
    # no code: neither an editor nor the source of a cell
    expect(tab.locator(".jp-InputArea-editor")).to_have_count(0)
    expect(tab.get_by_text("load_face_models")).to_have_count(0)
    expect(tab.get_by_text("bag-of-parts CNN").first).to_be_visible()  # 07's verdicts

    for explorer in (faces, routing):
        readout, image = explorer.locator(".widget-html").last, explorer.locator("img")
        expect_rendered(image)
        length, coupling = numbers(readout.inner_text())
        assert coupling is not None and coupling > 0.7
        png, src = image_bytes(image), image.get_attribute("src")
        # Drag the left eye (the part selected first) to the bottom left corner.
        set_slider(explorer, "x", 0.12)
        set_slider(explorer, "y", 0.85)
        expect(readout).not_to_contain_text(f"‖v_face‖ = {length:.3f}")
        moved_length, moved_coupling = numbers(readout.inner_text())
        assert moved_length < length
        assert moved_coupling is None or moved_coupling < 0.5 < coupling
        expect(image).not_to_have_attribute("src", src)
        assert image_bytes(image) != png
    assert_no_errors(tab)

"""Notebook 04 in a real JupyterLab: moving a part and the iteration slider re-route at once."""

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

NOTEBOOK = "notebooks/04_routing_by_agreement.ipynb"
# The readout of capsedu/widgets/routing.py
ITERATION = re.compile(r"after iteration (\d)")
LENGTH = re.compile(r"‖v_face‖ = ([\d.]+)")
COUPLING = re.compile(r"left_eye ([\d.]+)")


def numbers(text: str) -> tuple[int, float, float]:
    """(iteration, face length, left eye's coupling to the face) read off the readout."""
    found = [pattern.search(text) for pattern in (ITERATION, LENGTH, COUPLING)]
    assert all(found), f"readout not understood: {text!r}"
    return int(found[0][1]), float(found[1][1]), float(found[2][1])


def test_moving_a_part_and_stepping_iterations_update_the_routing(lab, page):
    notebook = open_and_run(page, lab, NOTEBOOK)
    # the explorer: HBox(controls, readout) above the image, inside one VBox
    explorer = widget_box(notebook, "iteration")
    readout, image = explorer.locator(".widget-html").last, explorer.locator("img")
    expect_rendered(image)

    iteration, length, coupling = numbers(readout.inner_text())
    assert iteration == 3 and coupling > 0.7
    png, src = image_bytes(image), image.get_attribute("src")

    # Drag the left eye (the part selected first) to the far left: it no longer agrees.
    set_slider(explorer, "x", 0.05)
    expect(readout).not_to_contain_text(f"left_eye {coupling:.2f}")
    _, moved_length, moved_coupling = numbers(readout.inner_text())
    assert moved_coupling < 0.5 < coupling and moved_length < length
    expect(image).not_to_have_attribute("src", src)
    moved_png, src = image_bytes(image), image.get_attribute("src")
    assert moved_png != png

    # Step the routing on: the stray eye's coupling keeps falling.
    set_slider(explorer, "iteration", 5)
    expect(readout).to_contain_text("after iteration 5")
    _, _, coupling_5 = numbers(readout.inner_text())
    assert coupling_5 < moved_coupling
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != moved_png
    assert_no_errors(notebook)

"""Notebook 06 in a real JupyterLab: a pose slider redraws the decoded digit, reset restores it."""

import re

import pytest
from labdriver import (
    assert_no_errors,
    click_button,
    expect_rendered,
    image_bytes,
    open_and_run,
    set_slider,
    widget_box,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/06_what_the_pose_dimensions_mean.ipynb"
# The readout of capsedu/widgets/pose_space.py, e.g. "true class 7, ‖v_7‖ = 0.949, ..."
LENGTH = re.compile(r"true class (\d), ‖v_\d‖ = ([\d.]+)")


def length(text: str) -> tuple[int, float]:
    match = LENGTH.search(text)
    assert match, f"readout not understood: {text!r}"
    return int(match[1]), float(match[2])


def test_pose_slider_redraws_the_digit(lab, page):
    notebook = open_and_run(page, lab, NOTEBOOK)
    # the explorer: VBox(HBox(picker, reset, readout), image, HBox(sliders))
    explorer = widget_box(notebook, "dim 6")
    readout, image = explorer.locator(".widget-html").first, explorer.locator("img")
    expect_rendered(image)
    expect(readout).to_contain_text("edited: nothing")
    _, start_length = length(readout.inner_text())
    png, src = image_bytes(image), image.get_attribute("src")

    set_slider(explorer, "dim 6", 0.25)
    expect(readout).to_contain_text("dim 6 +0.25")
    _, moved_length = length(readout.inner_text())
    assert moved_length != start_length  # editing the capsule changes its length too
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != png

    click_button(notebook, "reset")  # the only reset button of the notebook
    expect(readout).to_contain_text("edited: nothing")
    assert length(readout.inner_text())[1] == start_length
    assert_no_errors(notebook)

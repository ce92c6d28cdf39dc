"""Notebook 08 in a real JupyterLab: turning the digit changes both models' answers."""

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

NOTEBOOK = "notebooks/08_viewpoint_and_robustness.ipynb"
# The readout of capsedu/widgets/viewpoint.py, e.g.
# "CapsNet: 7 (‖v‖ = 0.93, right) · CNN: 7 (p = 0.99"
ANSWERS = re.compile(r"CapsNet: (\d) \(‖v‖ = ([\d.]+).*CNN: (\d) \(p = ([\d.]+)")


def answers(text: str) -> tuple[int, float, int, float]:
    match = ANSWERS.search(text)
    assert match, f"readout not understood: {text!r}"
    return int(match[1]), float(match[2]), int(match[3]), float(match[4])


def test_rotation_slider_changes_both_models_answers(lab, page):
    notebook = open_and_run(page, lab, NOTEBOOK, timeout=240)
    # the explorer: VBox(HBox(digit, reset), HBox(sliders), readout, image)
    explorer = widget_box(notebook, "rotation")
    readout, image = explorer.locator(".widget-html"), explorer.locator("img")
    expect_rendered(image)
    expect(readout).to_contain_text("turned +45°")  # it opens turned, for the website's still
    click_button(notebook, "reset")
    expect(readout).to_contain_text("turned +0°")
    upright, png = answers(readout.inner_text()), image_bytes(image)
    src = image.get_attribute("src")

    set_slider(explorer, "rotation", 90)
    expect(readout).to_contain_text("turned +90°")
    turned = answers(readout.inner_text())
    # both models see a new image: the CapsNet's longest capsule and the CNN's top probability move
    assert turned[1] != upright[1] and turned[3] != upright[3]
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != png

    click_button(notebook, "reset")
    expect(readout).to_contain_text("turned +0°")
    assert answers(readout.inner_text()) == upright
    assert_no_errors(notebook)

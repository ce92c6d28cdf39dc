"""Notebook 00 in a real JupyterLab: it runs, and its widget check answers a learner's hand."""

import math
import re

import pytest
from labdriver import (
    assert_no_errors,
    image_bytes,
    open_and_run,
    press_slider,
    set_slider,
    slider,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/00_start_here.ipynb"
SLIDER = "angle (°)"
# The readout of capsedu/widgets/check.py, e.g. "angle 45°: vector = (+0.71, +0.71), length 1.00".
READOUT = re.compile(r"angle (\d+)°: vector = \(([-+]\d\.\d\d), ([-+]\d\.\d\d)\)")
PNG = b"\x89PNG\r\n\x1a\n"


def readout_numbers(text: str) -> tuple[int, float, float]:
    match = READOUT.search(text)
    assert match, f"no readout in {text!r}"
    return int(match[1]), float(match[2]), float(match[3])


def test_slider_turns_the_arrow_and_the_numbers_follow(lab, page):
    notebook = open_and_run(page, lab, NOTEBOOK)
    check = slider(notebook, SLIDER).locator("xpath=..")  # the VBox: slider, readout, image
    readout, image = check.locator(".widget-html"), check.locator("img")
    expect(image).to_be_visible()
    assert image.evaluate("img => img.naturalWidth") > 0, "the arrow's PNG did not render"

    angle, _, _ = readout_numbers(readout.inner_text())
    assert slider(notebook, SLIDER).locator(".widget-readout").inner_text() == str(angle)
    src, png = image.get_attribute("src"), image_bytes(image)
    assert png.startswith(PNG)

    # Type an angle into the slider's readout box: numbers and arrow must follow.
    target = 45 if angle != 45 else 90
    set_slider(notebook, SLIDER, target)
    expect(readout).to_contain_text(f"angle {target}°")
    _, x, y = readout_numbers(readout.inner_text())
    rad = math.radians(target)
    assert (x, y) == pytest.approx((math.cos(rad), math.sin(rad)), abs=0.006)
    expect(image).not_to_have_attribute("src", src)
    new_png = image_bytes(image)
    assert new_png.startswith(PNG) and new_png != png

    # Arrow keys on the slider's handle move it one step (5°) each.
    src = image.get_attribute("src")
    press_slider(notebook, SLIDER, "ArrowRight", times=2)
    expect(readout).to_contain_text(f"angle {target + 10}°")
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != new_png
    assert_no_errors(notebook)

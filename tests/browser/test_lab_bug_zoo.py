"""Notebook 09's widget in a real JupyterLab: switching the softmax-over-children bug on changes
the couplings (their sums and the picture), and the iteration slider re-routes."""

import re

import pytest
from labdriver import (
    assert_no_errors,
    choose,
    expect_rendered,
    image_bytes,
    open_and_run,
    set_slider,
    widget_box,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/09_routing_under_the_microscope.ipynb"
# The readout of capsedu/widgets/bug_zoo.py, e.g. "sums: Σ_j c_ij = 1.000 per child, ..."
SUMS = re.compile(r"Σ_j c_ij = ([\d.]+) per child, Σ_i c_ij = ([\d.]+) per parent")


def sums(text: str) -> tuple[float, float]:
    """(each child's mean sum over the parents, each parent's mean sum over the children)."""
    match = SUMS.search(text)
    assert match, f"readout not understood: {text!r}"
    return float(match[1]), float(match[2])


def test_the_bug_toggle_changes_the_couplings(lab, page):
    panel = open_and_run(page, lab, NOTEBOOK, timeout=300)
    explorer = widget_box(panel, "iterations")
    readout, image = explorer.locator(".widget-html").last, explorer.locator("img")
    expect_rendered(image)
    # it opens with the bug on (the website's still shows it): each parent shares one unit
    expect(readout).to_contain_text("bug: softmax-over-children")
    per_child, per_parent = sums(readout.inner_text())
    assert per_child == pytest.approx(10 / 288, abs=1e-3) and per_parent == 1.0
    src, png = image.get_attribute("src"), image_bytes(image)

    choose(explorer, "none (the paper's routing)")
    expect(readout).to_contain_text("bug: none")
    assert sums(readout.inner_text()) == (1.0, 28.8)  # 288 children, 10 parents
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != png

    # The paper's routing for 5 iterations: 5 entropies in the readout.
    set_slider(explorer, "iterations", 5)
    expect(readout).to_contain_text("5 routing iterations")
    assert readout.inner_text().count("→") == 4
    assert_no_errors(panel)

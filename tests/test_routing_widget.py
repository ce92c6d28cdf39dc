"""Notebook 04's routing widget, driven kernel-side."""

import pytest

from capsedu.widgets import RoutingExplorer
from capsedu.widgets.routing import routing_state


def test_moving_a_part_out_lowers_its_coupling_and_the_face_length():
    w = RoutingExplorer()
    before, png = w.state, w.image.value
    assert before.face_length > 0.9 and min(before.c_face.values()) > 0.7
    w.editor.part.value = "mouth"
    w.editor.x.value = 0.15
    after = w.state
    assert after.c_face["mouth"] < 0.4
    assert after.face_length < before.face_length
    assert w.image.value != png and "mouth 0.2" in w.readout.value  # "mouth 0.29..." in the text


def test_iteration_slider_and_softmax_toggle():
    w = RoutingExplorer(iteration=1)
    assert all(v == pytest.approx(0.5) for v in w.state.c_face.values())  # uniform at first
    w.iteration.value = 5
    assert w.state.iteration == 5 and w.state.lengths.shape == (5, 2)
    w.softmax.label = "over children (bug)"  # what a learner clicks
    assert w.state.c.sum(axis=0) == pytest.approx([1.0, 1.0])  # the bug: columns sum to 1


def test_scramble_button_breaks_the_face():
    w = RoutingExplorer()
    w.editor.scramble_button.click()
    assert w.state.face_length < 0.7


@pytest.mark.parametrize("iteration", [0, 6])
def test_iteration_out_of_range(iteration):
    from capsedu.data import faces

    with pytest.raises(ValueError, match=r"iteration must be an integer >= 1 and <= 5"):
        routing_state(faces.face_parts(), iteration)


def test_lengths_panel_shows_the_threshold_and_its_legend_covers_no_curve():
    w = RoutingExplorer(face_threshold=0.9, iteration=5)
    lengths_axes = w.figure.axes[2]
    dashed = [line for line in lengths_axes.get_lines() if line.get_linestyle() == "--"]
    assert [tuple(line.get_ydata()) for line in dashed] == [(0.9, 0.9)]
    w.figure.canvas.draw()
    legend = lengths_axes.get_legend().get_window_extent()
    # in pixels: the legend's bottom lies above the line of length 1, which no curve crosses
    top_of_lengths = lengths_axes.transData.transform((1, 1))[1]
    assert legend.y0 > top_of_lengths
    assert "face above 0.9" in [t.get_text() for t in lengths_axes.get_legend().get_texts()]

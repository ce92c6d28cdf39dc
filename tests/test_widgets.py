"""Widgets, driven kernel-side: set a control, assert on what the callback computed."""

import math
from html.parser import HTMLParser

import pytest
from traitlets import TraitError

from capsedu.widgets import WidgetCheck
from capsedu.widgets.check import arrow_state


def test_arrow_state_hand_values():
    s = arrow_state(90)
    assert s.x == pytest.approx(0, abs=1e-12) and s.y == pytest.approx(1)
    s = arrow_state(225)
    assert (s.x, s.y) == pytest.approx((-math.sqrt(0.5), -math.sqrt(0.5)))


@pytest.mark.parametrize("angle", [-1, 361])
def test_arrow_state_rejects_out_of_range(angle):
    with pytest.raises(ValueError, match=r"angle must be a finite number >= 0 and <= 360"):
        arrow_state(angle)


def test_moving_the_slider_updates_state_text_and_image():
    w = WidgetCheck(angle=0)
    before_png, before_text = w.image.value, w.readout.value
    assert w.state.x == pytest.approx(1)
    w.slider.value = 180
    assert w.state.angle == 180 and w.state.x == pytest.approx(-1)
    assert "180°" in w.readout.value and w.readout.value != before_text
    assert w.image.value != before_png and w.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_slider_refuses_a_value_out_of_its_range():
    w = WidgetCheck(angle=30)
    # ipywidgets would move it to 360 without a word; the course's sliders refuse it
    # (a TraitError, which puts the old value back, and a ValueError, as a refusal of a value)
    with pytest.raises(TraitError, match=r"WidgetCheck.slider: the slider 'angle \(°\)' must be "
                                         r"set to a value from 0 to 360 \(its range\), got 999"):
        w.slider.value = 999
    assert w.slider.value == 30 and w.state.angle == 30
    w.slider.value = 360  # its ends are in range
    assert w.state.angle == 360


def test_a_widget_object_displays_its_layout():
    bundle = WidgetCheck()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_a_widget_also_offers_a_still_for_pages_without_a_kernel():
    w = WidgetCheck(angle=30)
    still = w._repr_mimebundle_()["text/html"]
    assert w.readout.value in still and "data:image/png;base64," in still
    assert "Colab, Binder or JupyterLab" in still


def still_image_alts(html: str) -> list:
    """The alt attribute (unescaped; None where there is none) of every <img> in ``html``."""
    alts = []

    class Images(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "img":
                alts.append(dict(attrs).get("alt"))

    Images().feed(html)
    return alts


def test_the_still_image_carries_alt_text_for_screen_readers():
    class Plain(WidgetCheck):
        figure_alt = None

    w = Plain(angle=30)
    (alt,) = still_image_alts(w._repr_mimebundle_()["text/html"])
    assert alt and alt.strip()  # without figure_alt, the alt names the widget in words
    assert alt == w.still_alt() and "plain" in alt.lower()
    assert still_image_alts(WidgetCheck(angle=30).still_html()) == [WidgetCheck.figure_alt]


def test_a_widget_says_what_its_still_shows_in_figure_alt():
    class Described(WidgetCheck):
        figure_alt = 'An arrow at the slider\'s angle in a dashed "unit" circle <of radius 1>.'

    (alt,) = still_image_alts(Described(angle=30).still_html())
    assert alt == Described.figure_alt  # escaped in the HTML, read back intact

"""figures.canvas.Blitter: frames redraw only the listed artists, over a background drawn once."""

import io

import numpy as np
from matplotlib.figure import Figure
from PIL import Image

from capsedu.figures.canvas import Blitter


def frame(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_frames_follow_the_changing_artist_and_keep_the_background():
    fig = Figure(figsize=(3, 2), dpi=50)
    ax = fig.add_subplot()
    ax.set(xlim=(0, 1), ylim=(0, 1), title="static title")
    (line,) = ax.plot([0, 1], [0, 0], lw=4, color="red")
    blit = Blitter(fig, [line])
    low = frame(blit.png())
    assert low.shape == (100, 150, 3)  # the figure's size at its dpi
    assert np.array_equal(frame(blit.png()), low)  # nothing changed, nothing moves
    line.set_ydata([1, 1])
    high = frame(blit.png())
    assert not np.array_equal(high, low)
    red = (high[..., 0] > 200) & (high[..., 1] < 80)
    assert red[: high.shape[0] // 2].sum() > red[high.shape[0] // 2 :].sum()  # the line went up
    # the old line is gone: the background under it came back
    red_low = (low[..., 0] > 200) & (low[..., 1] < 80)
    assert (red & red_low).sum() < red_low.sum() / 4

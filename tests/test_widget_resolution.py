"""The widgets' resolution (``CAPSEDU_WIDGET_DPI``): a projector gets the same figure, larger in
proportion (``make demo`` sets 130), and a value that is not a resolution is refused."""

import os
import subprocess
import sys

# The demo's two widgets (panels.py) and one drawn by canvas.png_bytes (03's squash explorer)
SIZES = """
import io
from PIL import Image
from capsedu.widgets import RoutingExplorer, SquashExplorer
for widget in (RoutingExplorer(face_threshold=0.9), SquashExplorer(norm=1.0, angle=30)):
    print(*Image.open(io.BytesIO(widget.image.value)).size)
"""


def run(code: str, dpi: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CAPSEDU_WIDGET_DPI"}
    if dpi is not None:
        env["CAPSEDU_WIDGET_DPI"] = dpi
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)


def sizes(dpi: str | None) -> list[tuple[int, int]]:
    done = run(SIZES, dpi)
    assert done.returncode == 0, done.stderr
    return [tuple(map(int, line.split())) for line in done.stdout.splitlines()]


def test_a_larger_resolution_draws_every_widget_larger_in_proportion():
    default, projector = sizes(None), sizes("160")  # 160 = twice the default 80
    assert len(default) == len(projector) == 2
    for (w, h), (W, H) in zip(default, projector, strict=True):
        assert abs(W - 2 * w) <= 1 and abs(H - 2 * h) <= 1, (default, projector)


def test_a_resolution_that_is_not_one_is_refused_by_name():
    for bad in ("big", "0", "1000", "96.5"):
        done = run("import capsedu", bad)
        assert done.returncode != 0
        assert "CAPSEDU_WIDGET_DPI must be a whole number of dots per inch from 40 to 400" in \
            done.stderr and repr(bad) in done.stderr, done.stderr

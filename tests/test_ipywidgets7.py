"""The widgets under ipywidgets 7.7.1, the version Colab's runtime ships and its front end renders.

ipywidgets 7 is installed once per run into a folder of its own (``pip install --target``) and put
first on the path of a subprocess, so the rest of the suite keeps ipywidgets 8. In that process
every headline widget is built, one of its controls is moved as a learner moves it, and its
state, readout and figure must change; its display bundle must carry the widget view that
Colab's front end renders (``_repr_mimebundle_`` falls back to ipywidgets 7's view).
"""

import json
import os
import subprocess
import sys

import pytest

IPYWIDGETS_7 = ["ipywidgets==7.7.1", "widgetsnbextension==3.6.6", "ipython_genutils==0.2.0"]

# In the subprocess: each widget as its notebook builds it, then one control moved.
SCRIPT = r"""
import json
import ipywidgets
from capsedu.parts.training import load_face_models
from capsedu.widgets import (FaceCapsulesExplorer, PoseVectorExplorer, RoutingExplorer,
                             SquashExplorer)

def moved(widget, move):
    before = (repr(widget.state), widget.readout.value, widget.image.value)
    move(widget)
    after = (repr(widget.state), widget.readout.value, widget.image.value)
    view = widget._repr_mimebundle_()["application/vnd.jupyter.widget-view+json"]
    return {"changed": [b != a for b, a in zip(before, after)], "view": view,
            "model_id": widget.widget.model_id}

models = {name: trained[0] for name, trained in load_face_models([0]).items()}
def move_part(w):
    w.editor.part.value = "mouth"
    w.editor.x.value = 0.15
report = {
    "version": ipywidgets.__version__,
    "02": moved(PoseVectorExplorer(kind="nose", angle=30, length=0.8),
                lambda w: setattr(w.angle, "value", 60.0)),
    "03": moved(SquashExplorer(norm=1.0, angle=30), lambda w: setattr(w.norm, "value", 2.0)),
    "04": moved(RoutingExplorer(), move_part),
    "07": moved(FaceCapsulesExplorer(models["pose capsules"], models), move_part),
}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def ipywidgets_7(tmp_path_factory):
    target = tmp_path_factory.mktemp("ipywidgets7")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--target", str(target), *IPYWIDGETS_7],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"could not install {' '.join(IPYWIDGETS_7)}: {done.stderr[-500:]}")
    return target


def test_every_headline_widget_moves_and_redraws_under_ipywidgets_7(ipywidgets_7):
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ipywidgets_7)})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report.pop("version") == "7.7.1"
    for notebook, result in report.items():
        # the state, the readout and the figure all follow the control
        assert result["changed"] == [True, True, True], notebook
        assert result["view"] == {"version_major": 2, "version_minor": 0,
                                  "model_id": result["model_id"]}, notebook


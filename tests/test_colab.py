"""The Colab path, reproduced here on a Colab-like stack: the notebooks' install cell, run in a
fresh environment that already holds what Colab's runtime ships, then notebooks 02, 04 and 07
run in that same kernel (no restart) with their widgets moved.

The stack (``COLAB_STACK``, made once per run from PyPI in a virtual environment of Python 3.13,
as Colab's runtime has): ipywidgets 7.7.1, the version Colab's front end renders, and the oldest
torch that ``pyproject.toml``'s lower bound allows and that has wheels for Python 3.13. What is
tested:

* the install cell, run from an empty working folder, adds capsedu and changes nothing else
  (no package upgraded or downgraded: ``pip list`` before and after), and ``import capsedu``
  works in the kernel that ran it;
* notebooks 02, 04 and 07 run top to bottom in a kernel of that environment, their first cell
  (the install cell) included, and then one control of each notebook's widget is moved: its
  state, readout and figure must change;
* every headline widget (02, 03, 04, 07) is built and moved under ipywidgets 7.7.1, and its
  display bundle carries the widget view Colab's front end renders.

The clone is of the committed ``HEAD``, as Colab would get the pushed repository. Without
Python 3.13 or PyPI the tests skip, except on CI (``CI=true``), where they fail. Run alone:
``pytest -m colab``.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from notebook_policy import ROOT, colab_cell, repository

# What Colab's runtime has that the course uses, pinned: Python 3.13 (the interpreter), torch
# 2.5.0 (the first release with wheels for 3.13; our lower bound is 2.2), ipywidgets 7.7.1 (what
# Colab renders), and releases of the rest from the same months (Colab ships pydantic 2).
PYTHON = "python3.13"
COLAB_STACK = ["torch==2.5.0", "numpy==2.1.3", "scipy==1.14.1", "matplotlib==3.9.2",
               "tqdm==4.66.5", "ipywidgets==7.7.1", "ipykernel==6.29.5", "nbclient==0.10.0",
               "pydantic==2.9.2"]
COLAB_HOME = '"/content/capsedu"'

AFTER_THE_CELL = """
import capsedu, ipywidgets
from capsedu.checkpoints import checkpoint_dir

model = capsedu.pretrained("capsnet-mnist")
print("package:", capsedu.__file__)
print("checkpoints:", checkpoint_dir())
print("ipywidgets:", ipywidgets.__version__)
print("loaded:", type(model).__name__, sum(p.numel() for p in model.parameters()))
"""

# Appended to each notebook: its widget (``explorer``) before and after one control moves.
MOVE = """
import json, sys, ipywidgets, torch
print("STACK", f"{sys.version_info[0]}.{sys.version_info[1]}", ipywidgets.__version__,
      torch.__version__)
def _look(w):
    return (repr(w.state), w.readout.value, w.image.value)
_before = _look(explorer)
{move}
print("MOVED", json.dumps([b != a for b, a in zip(_before, _look(explorer))]))
"""
MOVE_PART = "explorer.editor.part.value = 'mouth'\nexplorer.editor.x.value = 0.15"
MOVES = {
    "02_capsules_vectors_not_scalars": "explorer.angle.value = 60.0",
    "04_routing_by_agreement": MOVE_PART,
    "07_faces_parts_vote_for_wholes": MOVE_PART,
}

# Run by the stack's Python: a notebook in a kernel of that environment, from an empty folder.
RUN_NOTEBOOK = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name="python3", timeout=900,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, sys.argv[1])
"""

# Each headline widget as its notebook builds it, then one control moved, under ipywidgets 7.7.1.
WIDGETS = r"""
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


def unavailable(reason: str) -> None:
    """Skip, except on CI (``CI=true``), where every piece must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def python_313() -> str | None:
    """An interpreter of Python 3.13 that runs: the PATH's, else one that pyenv installed (its
    shim on the PATH runs only where 3.13 is pyenv's selected version)."""
    pyenv = Path.home().glob(f".pyenv/versions/3.13*/bin/{PYTHON}")
    found = [shutil.which(PYTHON), *map(str, pyenv)]
    for python in filter(None, found):
        if subprocess.run([python, "-c", ""], capture_output=True).returncode == 0:
            return python
    return None


def clean_env(work: Path, **extra: str) -> dict:
    """This process's variables without its Python, pip and course settings, with Jupyter's
    folders under ``work`` (so no kernelspec of this machine's user is found) and no pip cache
    (the stack's CUDA build of torch is several GB: keeping a second copy could fill the disk)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "CAPSEDU_", "VIRTUAL_ENV", "JUPYTER", "PIP_"))}
    env.update(JUPYTER_DATA_DIR=str(work / "jupyter"), JUPYTER_CONFIG_DIR=str(work / "jupyter"),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1", **extra)
    return env


def run(python: Path, args: list[str], cwd: Path, env: dict, timeout: int = 600) -> str:
    done = subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done.stdout


def installed(python: Path, env: dict) -> dict[str, str]:
    """Every package of the environment, name -> version (``pip list``)."""
    listed = json.loads(run(python, ["-m", "pip", "list", "--format", "json"], Path("/"), env))
    return {p["name"].lower(): p["version"] for p in listed}


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    """A Colab-like environment with the course installed by its own cell: the interpreter, the
    folder the course was cloned to, the packages before and after the cell, and what the kernel
    that ran the cell printed."""
    base = python_313()
    if base is None:
        unavailable(f"{PYTHON} not found (on the PATH or under pyenv): the Colab-like stack "
                    "needs it")
    work = tmp_path_factory.mktemp("colab")
    env = clean_env(work)
    made = subprocess.run([base, "-m", "venv", str(work / "venv")], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    python = work / "venv" / "bin" / "python"
    done = subprocess.run([python, "-m", "pip", "install", "--quiet", *COLAB_STACK], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        unavailable(f"could not install {' '.join(COLAB_STACK)}: {done.stderr[-1000:]}")
    before = installed(python, env)
    cell = colab_cell()
    url = repository()
    assert cell.count(f'"{url}"') == 1 and cell.count(COLAB_HOME) == 1
    course = work / "content" / "capsedu"
    cell = cell.replace(f'"{url}"', repr(str(ROOT))).replace(COLAB_HOME, repr(str(course)))
    empty = work / "empty"
    empty.mkdir()
    # The kernel: Colab has imported google.colab before the first cell runs.
    kernel = ("import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')\n"
              + cell + "\n" + AFTER_THE_CELL)
    out = run(python, ["-c", kernel], empty, env)
    yield {"python": python, "course": course, "before": before, "after": installed(python, env),
           "out": out, "empty": empty, "env": env, "kernel": kernel, "work": work}
    shutil.rmtree(work)  # about 5 GB: the tests that run after this module need the disk


@pytest.mark.colab
def test_the_colab_cell_installs_the_course_and_changes_nothing_else(colab):
    course, out = colab["course"], colab["out"]
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out
    assert f"checkpoints: {course / 'data' / 'checkpoints'}" in out
    assert "ipywidgets: 7.7.1" in out and "loaded: CapsNet" in out
    before, after = colab["before"], colab["after"]
    assert sorted(set(after) - set(before)) == ["capsedu"]
    # nothing upgraded, downgraded or removed: torch, ipywidgets and the rest as Colab had them
    assert {name: after.get(name) for name in before} == before
    assert list(colab["empty"].iterdir()) == []  # nothing written to the working folder
    # After a restart the editable install alone finds the clone; running the cell again skips
    # the clone that is already there.
    out = run(colab["python"], ["-c", colab["kernel"]], colab["empty"], colab["env"])
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out
    out = run(colab["python"], ["-c", AFTER_THE_CELL], colab["empty"], colab["env"])
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out


@pytest.mark.colab
@pytest.mark.parametrize("name", sorted(MOVES))
def test_the_notebook_runs_on_colab_and_its_widget_redraws(colab, name):
    """The notebook as Colab opens it: its first cell (the install cell) runs in the kernel, then
    every other cell; then the widget's control moves and its state, readout and figure follow."""
    nb = nbformat.read(colab["course"] / "notebooks" / f"{name}.ipynb", as_version=4)
    cell = nb.cells[[c.cell_type for c in nb.cells].index("code")]
    assert cell.source == colab_cell()
    cell.source = cell.source.replace(f'"{repository()}"', repr(str(ROOT))).replace(
        COLAB_HOME, repr(str(colab["course"])))
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        "import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')"))
    nb.cells.append(nbformat.v4.new_code_cell(MOVE.replace("{move}", MOVES[name])))
    path = colab["work"] / f"{name}.ipynb"
    nbformat.write(nb, path)
    run(colab["python"], ["-c", RUN_NOTEBOOK, str(path), str(colab["empty"])], colab["empty"],
        {**colab["env"], "CAPSEDU_QUICK": "1"}, timeout=900)
    ran = nbformat.read(path, as_version=4)
    printed = "".join(o.get("text", "") for o in ran.cells[-1].outputs)
    stack = {p.split("==")[0]: p.split("==")[1] for p in COLAB_STACK}
    assert f"STACK 3.13 7.7.1 {stack['torch']}" in printed, printed  # the kernel was Colab-like
    assert "MOVED [true, true, true]" in printed, printed


@pytest.mark.colab
def test_every_headline_widget_moves_and_redraws_under_ipywidgets_7(colab):
    report = json.loads(run(colab["python"], ["-c", WIDGETS], colab["empty"],
                            colab["env"]).strip().splitlines()[-1])
    assert report.pop("version") == "7.7.1"
    for notebook, result in report.items():
        # the state, the readout and the figure all follow the control
        assert result["changed"] == [True, True, True], notebook
        assert result["view"] == {"version_major": 2, "version_minor": 0,
                                  "model_id": result["model_id"]}, notebook


def test_the_cell_does_nothing_outside_colab():
    done = subprocess.run([sys.executable, "-c", colab_cell() + "\nprint('ok')"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr

"""Notebooks 04 and 07 under ipywidgets 7's front end: the classic Notebook 6.5 with
widgetsnbextension 3.6, the nearest stand-in that runs here for Colab's renderer (Colab's kernel has
ipywidgets 7.7.1). Every cell of each notebook runs (quick mode); the headline widget must draw
itself (not the still beside it), and moving one of its sliders must change its readout and its
figure.

The classic Notebook runs in a second Python environment, made once per run: a virtual
environment that borrows this one's packages (a path line in a ``.pth`` file) and has notebook 6.5,
ipywidgets 7.7.1 and widgetsnbextension 3.6.6 installed from PyPI in itself, where they come first
(pip leaves the borrowed ipywidgets 8 alone: it is outside that environment). Without PyPI the
tests skip, except on CI (``CI=true``), where they fail.
"""

import json
import os
import re
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest
from labdriver import (
    CHROMIUM,
    REPO,
    NotebookServer,
    expect_rendered,
    image_bytes,
    jupyter_env,
    shutdown_kernels,
    slider,
    start_notebook,
    stop,
)
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

# Colab's widgets (ipywidgets 7.7.1) and the classic Notebook whose front end draws them.
PINS = ["notebook==6.5.*", "ipywidgets==7.7.1", "widgetsnbextension==3.6.6"]

# Run in the second environment, with the server's environment variables: what its kernel imports,
# which Python its kernel runs, and which nbextensions its Notebook loads.
CHECK = """
import json, capsedu, ipywidgets, widgetsnbextension
from jupyter_client.kernelspec import KernelSpecManager
from notebook.services.config import ConfigManager
print(json.dumps({
    "ipywidgets": [ipywidgets.__version__, ipywidgets.__file__],
    "widgetsnbextension": [widgetsnbextension.__version__, widgetsnbextension.__file__],
    "capsedu": capsedu.__file__,
    "kernel": KernelSpecManager().get_kernel_spec("python3").argv[0],
    "nbextensions": ConfigManager().get("notebook").get("load_extensions", {}),
}))
"""

# Every code cell has run (a number in its prompt) or none is still waiting ("*"), and the kernel
# is idle.
RAN = """() => {
    const prompts = Jupyter.notebook.get_cells().filter(cell => cell.cell_type === "code")
        .map(cell => cell.input_prompt_number);
    return !prompts.includes("*") && $("#kernel_indicator_icon").hasClass("kernel_idle_icon");
}"""
# The kernel is ready and the widgets' nbextension has given it a widget manager.
READY = """() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel
    && (Jupyter.notebook.kernel.info_reply || {}).status === "ok"
    && Jupyter.notebook.kernel.widget_manager !== undefined"""
# What the running kernel imports as ipywidgets.
KERNEL_IPYWIDGETS = """() => new Promise(resolve => Jupyter.notebook.kernel.execute(
    "import ipywidgets; print(ipywidgets.__version__, end='')",
    {iopub: {output: message => resolve(message.content.text)}}))"""

# Outputs that mean something went wrong: a traceback, or a widget its front end could not draw.
ERROR_OUTPUTS = '.output_error, .output_area:has-text("Error displaying widget")'

# The readouts of capsedu/widgets/routing.py (04) and face_capsules.py (07)
ITERATION = re.compile(r"after iteration (\d)")
LENGTH = re.compile(r"‖v_face‖ = ([\d.]+)")
VERDICT = re.compile(r"pose capsules: [\d.]+ \(face above [\d.]+\) → (face|not a face)")


def unavailable(reason: str) -> None:
    """Skip, except on CI (``CI=true``), where every piece must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def classic_python(tmp_path_factory) -> Path:
    """The interpreter of the second environment: this one's packages, with notebook 6.5,
    ipywidgets 7.7.1 and widgetsnbextension 3.6.6 over them, the repository on its path (for
    ``import capsedu``) and a kernelspec ``python3`` of its own."""
    if not CHROMIUM.exists():  # no environment to make for tests that cannot run
        unavailable(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)")
    where = tmp_path_factory.mktemp("classic") / "venv"
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "borrowed.pth").write_text(f"{sysconfig.get_path('purelib')}\n{REPO}\n")
    done = subprocess.run([python, "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", *PINS],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        unavailable(f"could not install {' '.join(PINS)}: {done.stderr[-1000:]}")
    subprocess.run([python, "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"],
                   capture_output=True, text=True, check=True)
    return python


@pytest.fixture(scope="session")
def classic(tmp_path_factory, classic_python) -> NotebookServer:
    """The classic Notebook of ``classic_python`` serving a copy of the course, once checked: its
    kernel is that environment's Python, imports ipywidgets 7.7.1 from there and the repository's
    capsedu, and the Notebook loads widgetsnbextension 3.6.6's front end."""
    work = tmp_path_factory.mktemp("notebook")
    done = subprocess.run([classic_python, "-c", CHECK], env=jupyter_env(work),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    prefix = str(classic_python.parents[1])
    for package, version in (("ipywidgets", "7.7.1"), ("widgetsnbextension", "3.6.6")):
        assert found[package][0] == version and found[package][1].startswith(prefix), found
    assert found["capsedu"] == str(REPO / "capsedu" / "__init__.py"), found
    assert found["kernel"] == str(classic_python), found
    assert found["nbextensions"].get("jupyter-js-widgets/extension") is True, found
    server = start_notebook(work, classic_python)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def page(tab, classic) -> Page:
    """A new browser tab for the classic Notebook; afterwards the kernels it started are shut
    down."""
    try:
        yield tab
    finally:
        shutdown_kernels(classic)


def open_and_run(page: Page, server: NotebookServer, notebook: str, timeout: float) -> None:
    """Open ``notebook`` (a path relative to the repository root), check that its kernel runs
    ipywidgets 7.7.1, clear the stored outputs, run every cell and wait until all have run; check
    that none failed."""
    page.goto(server.url_for(notebook))
    page.wait_for_function(READY, timeout=60_000)
    assert page.evaluate(KERNEL_IPYWIDGETS) == "7.7.1"
    page.evaluate("Jupyter.notebook.clear_all_output(); Jupyter.notebook.execute_all_cells()")
    expect(page.locator(".input_prompt", has_text="[*]").first).to_be_visible()
    page.wait_for_function(RAN, timeout=timeout * 1000, polling=500)
    assert_no_errors(page)


def assert_no_errors(page: Page) -> None:
    """No traceback and no widget that failed to draw."""
    texts = dict.fromkeys(page.locator(ERROR_OUTPUTS).all_inner_texts())
    assert not texts, "error output:\n" + "\n---\n".join(texts)


def press(scope: Locator, description: str, key: str) -> None:
    """Press ``key`` on the handle of the slider ``description`` (jQuery UI's, as ipywidgets 7
    draws it; ipywidgets 8 draws another): Home/End move it to its ends."""
    slider(scope, description).locator(".ui-slider-handle").press(key)


def explorer(page: Page) -> tuple[Locator, Locator, Locator]:
    """The headline widget's output (the one with an "iteration" slider), its readout and its
    image, once the widget has drawn itself (not the still offered beside it)."""
    view = page.locator(".jupyter-widgets-view").filter(has=slider(page, "iteration"))
    expect(view).to_have_count(1)
    expect(page.locator(".capsedu-widget-still")).to_have_count(0)
    readout, image = view.locator(".widget-html").last, view.locator("img")
    expect_rendered(image)
    return view, readout, image


def shown(readout: Locator, image: Locator) -> tuple[str, str, bytes]:
    """What the widget shows: its readout's text, its image's ``src`` (a blob URL) and bytes."""
    return readout.inner_text(), image.get_attribute("src"), image_bytes(image)


def redrawn(readout: Locator, image: Locator, before: tuple[str, str, bytes]) -> str:
    """Wait until the widget no longer shows ``before`` (see ``shown``): another readout and
    another image, with other bytes. Returns the new readout."""
    text, src, png = before
    # innerText, as ``shown`` read it (expect's text assertions compare textContent instead)
    readout.page.wait_for_function("([readout, text]) => readout.innerText !== text",
                                   arg=[readout.element_handle(), text])
    expect(image).not_to_have_attribute("src", src)
    assert image_bytes(image) != png, "the image was replaced by the same figure"
    return readout.inner_text()


def test_04_routing_widget_moves_under_ipywidgets_7(page, classic):
    open_and_run(page, classic, "notebooks/04_routing_by_agreement.ipynb", timeout=120)
    view, readout, image = explorer(page)
    before = shown(readout, image)
    assert ITERATION.search(before[0])[1] == "3"

    press(view, "iteration", "End")  # the last iteration
    after = redrawn(readout, image, before)
    assert ITERATION.search(after)[1] == "5"
    length = float(LENGTH.search(after)[1])

    # the left eye (the part selected first) to the left edge: it no longer agrees with the face
    before = shown(readout, image)
    press(view, "x", "Home")
    after = redrawn(readout, image, before)
    assert float(LENGTH.search(after)[1]) < length
    assert_no_errors(page)


def test_07_faces_widget_moves_under_ipywidgets_7(page, classic):
    open_and_run(page, classic, "notebooks/07_faces_parts_vote_for_wholes.ipynb", timeout=300)
    view, readout, image = explorer(page)
    before = shown(readout, image)
    assert VERDICT.search(before[0])[1] == "face"
    length = float(LENGTH.search(before[0])[1])

    # the left eye to the bottom left corner: the pose capsules no longer see a face
    press(view, "x", "Home")
    press(view, "y", "End")
    after = redrawn(readout, image, before)
    assert float(LENGTH.search(after)[1]) < length
    assert VERDICT.search(after)[1] == "not a face"
    assert_no_errors(page)

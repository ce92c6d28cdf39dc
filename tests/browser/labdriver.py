"""Drive a real JupyterLab from a test: start a server, open a notebook, run it, use its widgets.

The server runs on a throw-away copy of ``notebooks/`` so that a test never writes outputs or
checkpoints into the repository. The browser is Debian's ``chromium`` driven by Playwright (never
``playwright install``). ``start_notebook`` starts the classic Notebook instead (for the
ipywidgets 7 front end, see test_classic_widgets.py).
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TOKEN = "capsedu-browser-test"
DEMO = "notebooks/demo/lecture_demo.ipynb"  # what `make demo` serves with Voila

# JupyterLab settings for a quiet, deterministic UI: no news prompt, no autosave, and every cell
# rendered in the page (the default windowing would skip laying out cells that are off screen).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false",
                                                     "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}

# An input prompt once its cell has run, e.g. "[3]:".
EXECUTED_PROMPT = re.compile(r"^\[\d+\]:$")
# Outputs that mean something went wrong: a Python traceback, or a widget the front end could not
# draw (output areas nest inside Output widgets, so one error can match twice).
ERROR_OUTPUTS = ", ".join([
    '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]:has-text("Traceback")',
    '.jp-OutputArea-output:has-text("Error displaying widget")',
])


@dataclass
class Server:
    """A running Jupyter server (JupyterLab or Voila): its base URL, the folder it serves, its log
    file and its process."""

    url: str
    root: Path
    log: Path
    process: subprocess.Popen


class LabServer(Server):
    """A running JupyterLab."""

    def url_for(self, path: str) -> str:
        """The URL that opens ``path`` (relative to the repository root) in JupyterLab, alone in
        a fresh workspace (``reset``: no tabs restored from an earlier test)."""
        return f"{self.url}/lab/tree/{path}?reset&token={TOKEN}"


class NotebookServer(Server):
    """A running classic Notebook (``notebook`` 6.5)."""

    def url_for(self, path: str) -> str:
        """The URL that opens ``path`` (relative to the repository root) in the classic
        Notebook."""
        return f"{self.url}/notebooks/{path}?token={TOKEN}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request(url: str, method: str = "GET", timeout: float = 5.0) -> bytes:
    req = urllib.request.Request(url, method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(req, timeout=timeout) as response:
        return response.read()


def _write_settings(config_dir: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        path = config_dir / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def jupyter_env(work: Path, **extra) -> dict:
    """The environment of a server started for a test: fresh config, data and runtime dirs under
    ``work``; ``JUPYTER_PREFER_ENV_PATH=1`` puts this environment's kernel and lab extensions
    (ipywidgets) ahead of them."""
    return dict(os.environ, JUPYTER_PREFER_ENV_PATH="1", JUPYTER_CONFIG_DIR=str(work / "config"),
                JUPYTER_DATA_DIR=str(work / "data"), JUPYTER_RUNTIME_DIR=str(work / "runtime"),
                **extra)


def _serve(kind: type[Server], cmd: list[str], env: dict, root: Path, log: Path, port: int,
           ready: str, timeout: float) -> Server:
    """Start ``cmd`` (a server on ``port`` serving ``root``) in its own process group, logging to
    ``log``; wait until its URL ``ready`` answers."""
    with open(log, "wb") as out:  # the server keeps its own copy of the file handle
        process = subprocess.Popen(cmd, env=env, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    server, name = kind(f"http://127.0.0.1:{port}", root, log, process), cmd[2]  # jupyter, voila
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}; see {log}")
        try:
            _request(f"{server.url}{ready}", timeout=2.0)
            return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    stop(server)
    raise RuntimeError(f"{name} did not answer within {timeout:.0f} s; see {log}")


def _copy_course(work: Path) -> Path:
    """``work/root``: a copy of ``notebooks/`` beside a link to the repository's ``data/``."""
    root = work / "root"
    shutil.copytree(REPO / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    if (REPO / "data").is_dir():
        (root / "data").symlink_to(REPO / "data")
    return root


def start_lab(work: Path, timeout: float = 60.0) -> LabServer:
    """Start JupyterLab on a copy of the course's notebooks under ``work``; wait until it answers.
    The kernel inherits ``CAPSEDU_QUICK=1``."""
    root = _copy_course(work)
    _write_settings(work / "config")
    port = _free_port()
    cmd = [sys.executable, "-m", "jupyter", "lab", "--allow-root", "--no-browser",
           "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}",
           "--LabApp.news_url=None"]
    return _serve(LabServer, cmd, jupyter_env(work, CAPSEDU_QUICK="1"), root, work / "lab.log",
                  port, "/api/status", timeout)


def start_notebook(work: Path, python: Path, timeout: float = 60.0) -> NotebookServer:
    """Start the classic Notebook of the environment whose interpreter is ``python`` on a copy of
    the course's notebooks under ``work``; wait until it answers. Its kernel is that environment's
    (``python3``) and inherits ``CAPSEDU_QUICK=1``."""
    root = _copy_course(work)
    port = _free_port()
    cmd = [str(python), "-m", "notebook", "--allow-root", "--no-browser", "--ip=127.0.0.1",
           f"--port={port}", "--NotebookApp.port_retries=0", f"--NotebookApp.token={TOKEN}",
           f"--NotebookApp.notebook_dir={root}", "--NotebookApp.show_banner=False"]
    return _serve(NotebookServer, cmd, jupyter_env(work, CAPSEDU_QUICK="1"), root,
                  work / "notebook.log", port, "/api/status", timeout)


def start_voila(work: Path, notebook: str, timeout: float = 60.0) -> Server:
    """Start Voila on ``notebook`` (a path relative to the repository root), as ``make demo`` does;
    wait until it answers. Its page is the server's URL."""
    port = _free_port()
    cmd = [sys.executable, "-m", "voila", str(REPO / notebook), "--no-browser",
           "--Voila.ip=127.0.0.1", f"--port={port}", "--Voila.port_retries=0"]
    return _serve(Server, cmd, jupyter_env(work), REPO, work / "voila.log", port,
                  "/voila/static/voila.js", timeout)


def stop(server: Server, timeout: float = 15.0) -> None:
    """Ask JupyterLab or the classic Notebook to shut down (it stops its kernels too); stop Voila,
    or a server that does not answer, by ending its process group (the kernels are in it)."""
    try:
        _request(f"{server.url}/api/shutdown", method="POST")
        server.process.wait(timeout)
    except (urllib.error.URLError, ConnectionError, TimeoutError, subprocess.TimeoutExpired):
        os.killpg(server.process.pid, signal.SIGTERM)
        try:
            server.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout)


def shutdown_kernels(server: LabServer) -> None:
    """Close every notebook session of the server and its kernel (between tests)."""
    for session in json.loads(_request(f"{server.url}/api/sessions")):
        _request(f"{server.url}/api/sessions/{session['id']}", method="DELETE")


def kernel_status(page: Page) -> Locator:
    """The kernel status item of the status bar, e.g. "Python 3 (ipykernel) | Idle"."""
    return page.locator("#jp-main-statusbar .jp-StatusBar-TextItem").filter(
        has_text=re.compile(r"^[^|]+ \| [\w ]+$"))


def menu(page: Page, top: str, item: str) -> None:
    """Click ``item`` in the menu bar's menu ``top``: ``menu(page, "Run", "Run All Cells")``."""
    for selector, label in ((".lm-MenuBar-itemLabel", top), (".lm-Menu-itemLabel", item)):
        page.locator(selector).filter(has_text=re.compile(f"^{re.escape(label)}$")).click()


def run_all(page: Page, panel: Locator, timeout: float = 60.0) -> None:
    """Run every cell of the notebook in ``panel``, wait until each has run or one failed, and the
    kernel is idle again. Stored outputs are cleared first: every prompt number is from this run."""
    prompts = panel.locator(".jp-CodeCell .jp-InputPrompt")
    menu(page, "Edit", "Clear Outputs of All Cells")
    expect(prompts.filter(has_text=re.compile(r"\d"))).to_have_count(0)
    menu(page, "Run", "Run All Cells")
    errors = panel.locator(ERROR_OUTPUTS)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = [t.strip() for t in prompts.all_inner_texts()]
        if all(EXECUTED_PROMPT.match(t) for t in texts) or (errors.count() and "[*]:" not in texts):
            expect(kernel_status(page)).to_have_text(re.compile(r"\| Idle$"), timeout=10_000)
            return
        page.wait_for_timeout(200)
    raise TimeoutError(f"cells still running after {timeout:.0f} s: prompts {texts}")


def open_and_run(page: Page, lab: LabServer, notebook: str, timeout: float = 60.0) -> Locator:
    """Open ``notebook`` (a path relative to the repository root) in a fresh workspace, run all
    its cells, check that none failed and every widget loaded, and return the notebook's panel."""
    page.goto(lab.url_for(notebook))
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    expect(panel.locator(".jp-Cell").first).to_be_visible(timeout=30_000)
    expect(kernel_status(page)).to_have_text(re.compile(r"\| Idle$"), timeout=30_000)
    run_all(page, panel, timeout)
    assert_no_errors(panel)
    return panel


def assert_no_errors(scope: Page | Locator) -> None:
    """No traceback, no widget that failed to display, and none still "Loading widget..."."""
    errors = scope.locator(ERROR_OUTPUTS)
    texts = dict.fromkeys(errors.all_inner_texts())
    assert not texts, "error output:\n" + "\n---\n".join(texts)
    loading = scope.locator(".jp-OutputArea-output", has_text="Loading widget")
    expect(loading).to_have_count(0, timeout=10_000)


# The widget helpers take a page or, better, the panel that open_and_run returns.

def slider(scope: Page | Locator, description: str) -> Locator:
    """The ipywidgets slider (any kind) whose label reads exactly ``description``."""
    page = scope if isinstance(scope, Page) else scope.page
    return scope.locator(".widget-slider").filter(
        has=page.locator(".widget-label").get_by_text(description, exact=True))


def widget_box(scope: Page | Locator, description: str) -> Locator:
    """The outermost widget box around the slider labelled ``description``: the whole widget."""
    return slider(scope, description).locator(
        "xpath=ancestor::div[contains(@class, 'widget-vbox')][last()]")


def expect_rendered(img: Locator) -> None:
    """The ``ipywidgets.Image`` is on screen and its PNG decoded (it has a width)."""
    expect(img).to_be_visible()
    assert img.evaluate("img => img.naturalWidth") > 0, "the widget's figure did not render"


def set_slider(scope: Page | Locator, description: str, value) -> None:
    """Type ``value`` (a point on the slider's grid) into its readout box and press Enter, as a
    learner can; return once the slider's handle stands at ``value``."""
    widget = slider(scope, description)
    readout, handle = widget.locator(".widget-readout"), widget.locator(".noUi-handle").first
    readout.click()
    readout.press("ControlOrMeta+a")
    readout.press_sequentially(str(value))
    readout.press("Enter")
    # noUiSlider writes aria-valuenow with one decimal: 0.05 reads "0.1" (or "0.0")
    handle.page.wait_for_function(
        "([handle, value]) => "
        "Math.abs(handle.getAttribute('aria-valuenow') - value) <= 0.05 + 1e-9",
        arg=[handle.element_handle(), float(value)])


def press_slider(scope: Page | Locator, description: str, key: str = "ArrowRight",
                 times: int = 1) -> None:
    """Press ``key`` on the slider's handle ``times`` times: ArrowLeft/Right move it one step,
    PageUp/Down several, Home/End to the ends."""
    handle = slider(scope, description).locator(".noUi-handle").first
    for _ in range(times):
        handle.press(key)


def click_button(scope: Page | Locator, description: str) -> None:
    """Click the ipywidgets button whose label reads exactly ``description`` (its icon, drawn by
    CSS, is not part of the text)."""
    label = re.compile(rf"^\s*{re.escape(description)}\s*$")
    scope.locator(".jp-OutputArea button.widget-button").filter(has_text=label).click()


def image_bytes(img: Locator) -> bytes:
    """The bytes an ``ipywidgets.Image`` shows (its ``src`` is a blob URL made from them)."""
    data = img.evaluate("async img => Array.from(new Uint8Array("
                        "await (await fetch(img.src)).arrayBuffer()))")
    return bytes(data)



def choose(scope: Page | Locator, option: str) -> None:
    """Click the ipywidgets radio button (``RadioButtons``) whose label reads exactly ``option``."""
    scope.get_by_role("radio", name=option, exact=True).check()


def require_chromium() -> None:
    """Skip when Debian's chromium is missing, except on CI (``CI=true``), where it must exist."""
    import pytest

    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)

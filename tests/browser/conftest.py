"""Fixtures for the browser tests: one JupyterLab and one headless Chromium per session, a fresh
page per test, and a screenshot of that page when a test fails."""

import tempfile
from pathlib import Path

import pytest
from labdriver import (
    DEMO,
    require_chromium,
    shutdown_kernels,
    start_lab,
    start_voila,
    stop,
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: drives a real JupyterLab, Voila or the course's website in headless "
                   "Chromium (-m 'not browser')")


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """A running JupyterLab serving a copy of the course (see ``labdriver.start_lab``)."""
    require_chromium()
    server = start_lab(tmp_path_factory.mktemp("lab"))
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(scope="session")
def voila(tmp_path_factory):
    """Voila serving the lecture demo (``make demo``), see ``labdriver.start_voila``."""
    require_chromium()
    server = start_voila(tmp_path_factory.mktemp("voila"), DEMO)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def tab(browser):
    """A new browser tab (own cookies and storage) with generous timeouts for a busy machine."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(20_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def page(tab, lab):
    """A new browser tab for JupyterLab; afterwards the kernels it started are shut down."""
    try:
        yield tab
    finally:
        shutdown_kernels(lab)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """When a test that uses a browser tab fails, save a screenshot and name it (and the
    server's log) in the report."""
    report = (yield).get_result()
    funcargs = getattr(item, "funcargs", {})
    if report.when == "call" and report.failed and "tab" in funcargs:
        page = funcargs["tab"]
        for name in ("lab", "voila", "classic"):
            if name in funcargs:
                report.sections.append((f"{name} log", str(funcargs[name].log)))
        path = Path(tempfile.mkdtemp(prefix="capsedu-browser-")) / f"{item.name}.png"
        try:
            page.screenshot(path=path, full_page=True)
            report.sections.append(("browser screenshot", str(path)))
        except Exception as error:  # a crashed page must not hide the test's own failure
            report.sections.append(("browser screenshot", f"failed: {error}"))

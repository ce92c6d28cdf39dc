"""Fixtures for the hub tests: one JupyterHub per session (``hubdriver.start_hub``) serving a
bare clone of this repository's committed HEAD; Chromium is the run's one ``browser``
(tests/conftest.py)."""

import os
import sys
from pathlib import Path

import pytest

# labdriver (JupyterLab helpers and Chromium's settings) lives beside the browser tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))

import hubdriver  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "hub: runs a real JupyterHub on 127.0.0.1 with several learners "
                   "(-m 'not hub')")


def require(path: Path, how: str) -> None:
    """Skip when ``path`` is missing, except on CI (``CI=true``), where it must exist."""
    if not path.exists():
        reason = f"{path} not found: {how}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def course(tmp_path_factory):
    """The ``file://`` URL of a bare clone of this repository's HEAD: the course to pull."""
    return hubdriver.course_repository(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="session")
def hub(tmp_path_factory):
    """A running JupyterHub, its learners' homes in a temporary folder."""
    require(hubdriver.PROXY, "run `make install` (it installs configurable-http-proxy with npm)")
    running = hubdriver.start_hub(tmp_path_factory.mktemp("hub"))
    try:
        yield running
    finally:
        hubdriver.stop_hub(running)

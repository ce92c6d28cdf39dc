import sys
from pathlib import Path

import pytest

# make tests/notebook_policy.py importable as a module by the tests
sys.path.insert(0, str(Path(__file__).parent))
# and the browser tests' helpers (labdriver), which the hub tests use too
sys.path.insert(0, str(Path(__file__).parent / "browser"))


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium under Playwright, one for the whole run (never ``playwright
    install``): the browser tests and the hub tests share it, since a second Playwright cannot
    start while one runs in the same process."""
    from labdriver import CHROMIUM, CHROMIUM_ARGS, require_chromium
    from playwright.sync_api import sync_playwright

    require_chromium()
    # Playwright gives the browser a fresh, temporary --user-data-dir and removes it on close.
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                              args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def on_the_cpu(monkeypatch):
    """Training on the CPU, whatever the machine has. The tests that compare two trainings number
    for number use it: on a GPU, cuDNN's kernels are not bitwise reproducible from run to run (the
    device rule itself is tested on every device: tests/test_device_rule.py)."""
    import torch

    from capsedu import course_settings

    monkeypatch.setattr(course_settings, "device", lambda: torch.device("cpu"))

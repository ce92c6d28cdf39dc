"""The course's website (``make site``), built from two short notebooks (00 and 03, both quick in
default mode) into a temporary folder and opened in headless Chromium: every page loads with no
console error and asks for nothing outside the site, a figure, a widget's still and an equation
render, search finds a word, and the launch buttons open the page's own notebook on Colab and
Binder (at the repository that ``pyproject.toml`` names)."""

import functools
import http.server
import os
import re
import subprocess
import sys
import threading

import pytest
import tomllib
from labdriver import REPO
from playwright.sync_api import Page, expect

from capsedu.checkpoints import read_manifest

pytestmark = pytest.mark.browser

NOTEBOOKS = ["notebooks/00_start_here.ipynb", "notebooks/03_squash.ipynb"]
PAGES = ["README.html", "notebooks/00_start_here.html", "notebooks/03_squash.html",
         "docs/api.html", "docs/checkpoints.html", "ARCHITECTURE.html", "docs/contributing.html",
         "docs/instructor/hub.html"]


def build_site(out) -> subprocess.CompletedProcess:
    """``make site``'s build, limited to ``NOTEBOOKS`` and kept under ``out``, in default mode."""
    patterns = ",".join(["README.md", "ARCHITECTURE.md", "docs/*.md", "docs/instructor/hub.md",
                         *NOTEBOOKS])
    env = {k: v for k, v in os.environ.items() if k != "CAPSEDU_QUICK"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", "docs", ".", str(out / "html"),
         "-d", str(out / "doctrees"), "-D", f"include_patterns={patterns}",
         "-D", f"nb_execution_cache_path={out / 'jupyter_cache'}"],
        cwd=REPO, env=dict(env, JUPYTER_PREFER_ENV_PATH="1"), capture_output=True, text=True,
        timeout=600)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass  # no line per request on stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site, served over HTTP on 127.0.0.1: its base URL."""
    out = tmp_path_factory.mktemp("site")
    build = build_site(out)
    assert build.returncode == 0, f"the site did not build:\n{build.stderr[-5000:]}"
    handler = functools.partial(QuietHandler, directory=out / "html")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def open_page(tab: Page, site: str, path: str) -> tuple[Page, list[str]]:
    """Open ``path`` of ``site`` in a new tab beside ``tab`` and wait until it has loaded. Return
    the tab and what went wrong: console errors, uncaught exceptions, failed requests, and
    requests for anything outside the site (refused: the site must work offline)."""
    page, problems = tab.context.new_page(), []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"exception: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))

    def local_only(route):
        if route.request.url.startswith(site):
            route.continue_()
        else:
            problems.append(f"outside the site: {route.request.url}")
            route.abort()

    page.route("**/*", local_only)
    page.goto(f"{site}/{path}", wait_until="networkidle")
    return page, problems


def test_every_page_loads_without_errors_and_the_landing_page_is_the_readme(site, tab):
    for path in PAGES:
        _, problems = open_page(tab, site, path)
        assert problems == [], f"{path}: {problems}"
    page, _ = open_page(tab, site, "index.html")
    expect(page).to_have_url(f"{site}/README.html")
    expect(page.locator("h1").first).to_contain_text("capsedu")
    navigation = page.locator(".bd-sidebar-primary a.reference.internal")
    expect(navigation.filter(has_text="00 · Start here")).to_have_count(1)
    expect(navigation.filter(has_text="03 · Squash")).to_have_count(1)
    # the front door is the learner's: what the course is, what to know first, where to start;
    # the contributor material has its own page, one click away
    for heading in ("Before you start", "Open the course", "The course"):
        expect(page.locator("h2").filter(has_text=re.compile(f"^{heading}"))).to_have_count(1)
    expect(page.get_by_text("Bad inputs")).to_have_count(0)
    page.get_by_role("link", name="For instructors and contributors").first.click()
    expect(page).to_have_url(f"{site}/docs/contributing.html")
    expect(page.locator("h2").filter(has_text="Bad inputs")).to_have_count(1)


def test_a_notebook_page_shows_figures_an_equation_and_a_widget_still(site, tab):
    page, problems = open_page(tab, site, "notebooks/03_squash.html")
    figure = page.locator(".cell_output img").first
    expect(figure).to_be_visible()
    assert figure.evaluate("img => img.naturalWidth") > 0
    still = page.locator("figure.capsedu-widget-still")
    expect(still).to_have_count(1)
    assert still.locator("img").evaluate("img => img.naturalWidth") > 0
    expect(still).to_contain_text("Colab, Binder or JupyterLab")
    # Eq. 1, typeset by MathJax
    expect(page.locator(".math mjx-container").first).to_be_visible()
    assert page.locator("img[src*='colab-badge'], img[src*='badge_logo']").count() == 0
    assert problems == [], problems


def test_launch_buttons_open_this_notebook_on_colab_and_binder(site, tab):
    repository = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"][
        "Repository"]
    owner_and_name = repository.removeprefix("https://github.com/")
    for notebook in NOTEBOOKS:
        page, _ = open_page(tab, site, notebook.replace(".ipynb", ".html"))
        hrefs = page.locator(".dropdown-launch-buttons a").evaluate_all(
            "links => links.map(a => a.href)")
        assert hrefs == [
            f"https://mybinder.org/v2/gh/{owner_and_name}/main?urlpath=lab/tree/{notebook}",
            f"https://colab.research.google.com/github/{owner_and_name}/blob/main/{notebook}",
        ]


def test_search_the_api_reference_and_the_checkpoints(site, tab):
    page, _ = open_page(tab, site, "search.html?q=squash")
    expect(page.locator("#search-results li").first).to_be_visible()
    page, _ = open_page(tab, site, "docs/api.html")
    expect(page.locator("dt[id='capsedu.functional.squash']")).to_be_visible()
    page, _ = open_page(tab, site, "docs/checkpoints.html")
    for name in read_manifest(REPO / "data" / "checkpoints"):
        expect(page.locator("h2", has_text=name).first).to_be_visible()

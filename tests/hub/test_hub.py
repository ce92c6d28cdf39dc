"""The course on a real JupyterHub: learners log in, get the course through its nbgitpuller
link, run notebook 03 in their own server and move its widget; one of them in Chromium."""

import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hubdriver
import pytest
from labdriver import LAB_SETTINGS, assert_no_errors, kernel_status, run_all, set_slider
from playwright.sync_api import expect

pytestmark = pytest.mark.hub

LEARNERS = ("ada", "emmy", "alan")
HEAD = subprocess.run(["git", "-C", str(hubdriver.REPO), "rev-parse", "HEAD"], check=True,
                      capture_output=True, text=True).stdout.strip()


def pulled_commit(home: Path) -> str:
    return subprocess.run(["git", "-C", str(home / "capsedu"), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def test_a_wrong_password_is_refused(hub):
    with pytest.raises(PermissionError):
        hubdriver.Learner(hub, "mallory").log_in(password="not-the-password")


def test_three_learners_at_once_each_run_the_notebook_and_move_the_widget(hub, course):
    with ThreadPoolExecutor(len(LEARNERS)) as pool:
        lessons = list(pool.map(lambda name: hubdriver.take_the_lesson(hub, name, course),
                                LEARNERS))
    for lesson in lessons:
        home = hub.home(lesson.name)
        # the course was pulled into the learner's own home, at the committed HEAD
        assert (home / hubdriver.NOTEBOOK).is_file()
        assert pulled_commit(home) == HEAD
        # their kernel works in their copy, in quick mode, reading the shared data root
        facts = lesson.kernel_facts
        assert Path(facts["home"]) == home
        assert Path(facts["cwd"]) == home / "capsedu" / "notebooks"
        assert facts["quick"] is True
        assert Path(facts["data_root"]) == hubdriver.REPO / "data"
        # the notebook left ||s|| at 3; the slider moved to 2 redrew the readout: 4/5 = 0.8
        assert "||s|| = 3.00 &rarr; ||v|| = 0.900" in lesson.readout_before
        assert "||s|| = 2.00 &rarr; ||v|| = 0.800" in lesson.readout_after
        assert lesson.state_after["norm_s"] == 2.0
        assert abs(lesson.state_after["norm_v"] - 0.8) < 1e-6  # squash has an eps
        # the server and its kernel were found and measured (a kernel with torch is >100 MB)
        assert lesson.peak_memory > 100e6
    # three servers, not one shared: three distinct kernels' folders
    assert len({lesson.kernel_facts["cwd"] for lesson in lessons}) == len(LEARNERS)


def test_a_learner_in_chromium_clicks_the_link_runs_the_notebook_and_drags_the_slider(
        hub, course, browser):
    name = "grace"
    hubdriver.write_lab_settings(hub.home(name), LAB_SETTINGS)  # quiet, every cell laid out
    link = (f"{hub.url}/hub/user-redirect/git-pull?"
            + hubdriver.pull_query(course, f"lab/tree/{hubdriver.NOTEBOOK}"))
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        # not logged in: the link leads to the hub's login page, and on after it
        page.goto(link)
        page.locator("#username_input").fill(name)
        page.locator("#password_input").fill(hubdriver.PASSWORD)
        page.locator("#login_submit").click()
        # the hub starts the server, nbgitpuller pulls, JupyterLab opens the notebook
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        expect(panel.locator(".jp-Cell").first).to_be_visible(timeout=180_000)
        assert page.url.startswith(f"{hub.url}/user/{name}/lab")
        assert pulled_commit(hub.home(name)) == HEAD
        expect(kernel_status(page)).to_have_text(re.compile(r"\| Idle$"), timeout=60_000)
        run_all(page, panel, timeout=180)
        assert_no_errors(panel)
        readout = panel.locator(".widget-html", has_text="||v|| =").first
        expect(readout).to_contain_text("||s|| = 3.00 → ||v|| = 0.900")
        set_slider(panel, "||s||", 2.0)
        expect(readout).to_contain_text("||s|| = 2.00 → ||v|| = 0.800")
        assert_no_errors(panel)
    except Exception:
        shot = Path(tempfile.mkdtemp(prefix="capsedu-hub-")) / "chromium.png"
        page.screenshot(path=shot, full_page=True)
        print(f"hub log: {hub.log} (learners' servers log there too); screenshot: {shot}")
        raise
    finally:
        context.close()

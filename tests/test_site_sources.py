"""The website's sources agree with the package, its build refuses quick mode, and it runs the
notebooks side by side. (The build itself, in a browser: tests/browser/test_site.py.)"""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from sphinx.errors import ExtensionError

ROOT = Path(__file__).parent.parent


def test_the_api_reference_documents_every_module():
    modules = {".".join(("capsedu", *p.relative_to(ROOT / "capsedu").with_suffix("").parts))
               .removesuffix(".__init__") for p in (ROOT / "capsedu").rglob("*.py")}
    modules.discard("capsedu")  # its docstring is the README's
    api = (ROOT / "docs" / "api.md").read_text()
    missing = sorted(m for m in modules if f".. automodule:: {m}\n" not in api)
    assert missing == [], f"add these modules to docs/api.md: {missing}"


def test_the_api_reference_lists_every_widget_with_the_pure_function_it_calls():
    import importlib
    import inspect
    import re

    from capsedu import widgets

    api = (ROOT / "docs" / "api.md").read_text()
    rows = re.findall(r"^\| \d\d \| `(\w+)` \| `([\w.]+)` \|$", api, re.M)
    # PartsEditor edits a face's parts for several notebooks; it has no one pure function
    assert sorted(widget for widget, _ in rows) == sorted(set(widgets.__all__) - {"PartsEditor"})
    for widget, function in rows:
        module, name = function.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), name)), function
        assert name in inspect.getsource(inspect.getmodule(getattr(widgets, widget))), widget

def test_the_site_refuses_to_build_in_quick_mode(tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-c", "docs", ".", str(tmp_path)],
        cwd=ROOT, env=dict(os.environ, CAPSEDU_QUICK="1"), capture_output=True, text=True)
    assert build.returncode != 0
    assert "CAPSEDU_QUICK is set" in build.stderr and "default mode" in build.stderr
    assert not any(tmp_path.iterdir())  # nothing executed, nothing written


@pytest.fixture
def course_site(monkeypatch):
    """docs/course_site.py, the site's extension, imported as Sphinx imports it."""
    monkeypatch.syspath_prepend(str(ROOT / "docs"))
    import course_site

    return course_site


def test_the_notebooks_run_on_one_thread_each_over_files_and_a_failure_stops_the_build(
        tmp_path, monkeypatch, course_site):
    from jupyter_cache import get_cache

    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = {"ok": "import os\nimport ipywidgets\nfrom ipykernel.kernelapp import IPKernelApp\n"
                   "from capsedu import course_settings\n"
                   "print(os.environ.get('OMP_NUM_THREADS'), IPKernelApp.instance().transport, "
                   "course_settings.TEXT_PROGRESS)\n"
                   "ipywidgets.IntSlider()",
             "broken": "raise ValueError('a planted failure')"}
    for name, source in cells.items():
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)],
                                                metadata={"kernelspec": kernel}),
                       tmp_path / f"{name}.ipynb")
    config = SimpleNamespace(nb_execution_mode="cache", include_patterns=["*.md", "*.ipynb"],
                             nb_execution_cache_path=str(tmp_path / "cache"),
                             nb_execution_timeout=60)
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("CAPSEDU_TEXT_PROGRESS", raising=False)
    with pytest.raises(ExtensionError, match="(?s)1 notebook.*broken.ipynb.*a planted failure"):
        course_site.execute_notebooks(SimpleNamespace(config=config, srcdir=str(tmp_path)))
    assert os.environ["OMP_NUM_THREADS"] == "7"  # the build's own settings are back
    assert "CAPSEDU_TEXT_PROGRESS" not in os.environ
    cache = get_cache(config.nb_execution_cache_path)
    ran = nbformat.read(tmp_path / "ok.ipynb", 4)
    _, cached = cache.merge_match_into_notebook(ran)
    # the kernel ran on one thread, listened on files, not on TCP ports that could collide, and
    # drew text progress bars that a stored page shows finished
    assert cached.cells[0].outputs[0]["text"] == "1 ipc True\n"
    assert "widgets" not in cached.metadata  # the slider's still is shown, not its live state


@pytest.mark.parametrize("cores, memory_gb, notebooks, expected", [
    (2, 23, 11, 2),  # this project's machine: one per core
    (8, 8, 11, 4),  # many cores, little memory: what the memory holds at 2 GB each
    (8, 64, 3, 3),  # no more than there are notebooks
    (4, 1, 11, 1),  # at least one
    (None, 16, 11, 1),  # the core count unknown
])
def test_as_many_notebooks_run_at_once_as_cores_and_memory_allow(
        monkeypatch, course_site, cores, memory_gb, notebooks, expected):
    monkeypatch.setattr(course_site.os, "cpu_count", lambda: cores)
    pages = memory_gb * 2**30 // 4096
    monkeypatch.setattr(course_site.os, "sysconf",
                        lambda name: {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": pages}[name])
    assert course_site.side_by_side(notebooks) == expected


def test_without_sysconf_the_cores_decide(monkeypatch, course_site):
    monkeypatch.setattr(course_site.os, "cpu_count", lambda: 6)
    monkeypatch.delattr(course_site.os, "sysconf")
    assert course_site.side_by_side(11) == 6


def test_a_table_that_a_cell_displays_renders_as_a_table(tmp_path):
    """10's closing table is Markdown a cell displays; with the site's setting for displayed
    Markdown it must come out as an HTML table, not as its raw pipes (CommonMark's reading)."""
    import ast

    setting = next(node.value.value for node in ast.parse((ROOT / "docs/conf.py").read_text()).body
                   if isinstance(node, ast.Assign)
                   and getattr(node.targets[0], "id", "") == "nb_render_markdown_format")
    (tmp_path / "conf.py").write_text('extensions = ["myst_nb"]\nnb_execution_mode = "off"\n'
                                      f'nb_render_markdown_format = "{setting}"\n')
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("Markdown(table)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/markdown": "| a | b |\n|---|---|\n| **1** | 2 |", "text/plain": "<Markdown>"})]
    notebook.cells = [nbformat.v4.new_markdown_cell("# A table"), cell]
    nbformat.write(notebook, tmp_path / "index.ipynb")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(tmp_path),
                            str(tmp_path / "html")], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    page = (tmp_path / "html" / "index.html").read_text()
    assert "<table" in page and "|---|" not in page


def test_a_continued_checkpoint_lists_its_earlier_sittings(course_site):
    from capsedu.manifest_rows import ManifestRow, Metrics, Sitting

    row = ManifestRow(
        name="tiny", description="a tiny CNN", command="python -m capsedu.train tiny "
        "--continue-from data/checkpoints", seed=0, train_time_s=4000, device="cpu", threads=1,
        torch_version="2.14.1", metrics=Metrics(epochs=9),
        sittings=(Sitting(command="python -m capsedu.train tiny --epochs 6", sha256="ab" * 32,
                          epochs=6, kept_epoch=5),),
        file="tiny.pt", sha256="cd" * 32, arch="CapsNet")
    page = course_site.checkpoint_sections([row])
    first, then = page.index("earlier sitting 1"), page.index("| command |")
    assert first < then and "kept epoch 5 of 6" in page[first:then]
    assert "1 h 07 min" in page  # the time of all sittings together

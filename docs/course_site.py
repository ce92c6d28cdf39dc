"""A small Sphinx extension: what the course's website adds to the repository's own files.

* **Navigation.** The README is the landing page and stays plain Markdown for GitHub; when Sphinx
  reads it, a hidden table of contents is appended: the notebooks in course order, then the
  reference pages.
* **Checkpoints.** ``docs/checkpoints.md`` gets one section per shipped checkpoint, written from
  ``data/checkpoints/manifest.json`` at build time (the page is rebuilt when the manifest changes).
* **Badges.** A notebook's own Colab and Binder badges are dropped from its page: the theme's launch
  buttons, at the top of every notebook's page, point at the same notebook.
* **Notebooks run side by side.** Before Sphinx reads a page, the notebooks that the cache does not
  hold yet are run by jupyter-cache's execution worker, one per core, each kernel on one CPU
  thread; MyST-NB then reads every notebook from the cache. On 2 cores this takes the first build
  of the whole course from one notebook after another to two at a time.
"""

import os
from glob import glob
from multiprocessing import Pool
from pathlib import Path
from tempfile import TemporaryDirectory
from unittest.mock import patch

from docutils import nodes
from jupyter_cache import get_cache
from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, ProcessData
from jupyter_cache.executors.utils import single_nb_execution
from sphinx.errors import ExtensionError
from sphinx.util import logging
from traitlets.config import Config

from capsedu.checkpoints import MANIFEST, read_manifest
from capsedu.json_records import json_row
from capsedu.manifest_rows import ManifestRow

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "data" / "checkpoints"  # the shipped ones, whatever $CAPSEDU_DATA says
REFERENCE = ["docs/api", "docs/checkpoints", "ARCHITECTURE", "docs/contributing",
             "docs/instructor/hub"]
BADGE_HOSTS = ("https://colab.research.google.com/", "https://mybinder.org/")
logger = logging.getLogger(__name__)
# What one default-mode kernel may take: the largest peaked at 1.46 GB with a CUDA build of torch
# (2026-12-02), under 1 GB with the CPU-only build (benchmarks/results/notebooks.json), and the
# build itself needs some.
KERNEL_MEMORY = 2 * 2**30


def navigation(notebooks: list[str]) -> str:
    """The hidden tables of contents (MyST) for the landing page: ``notebooks`` (docnames, e.g.
    ``notebooks/03_squash``) in course order, then the reference pages."""
    return "".join(
        f"\n\n```{{toctree}}\n:hidden:\n:caption: {caption}\n\n" + "\n".join(docs) + "\n```\n"
        for caption, docs in (("The course", sorted(notebooks)), ("Reference", REFERENCE)))


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    return str(value)


def checkpoint_sections(entries: list[ManifestRow]) -> str:
    """One MyST section per manifest entry: what it is, the command that trains it, its seed,
    training time, device and threads, and the metrics it reached."""
    sections = []
    for e in entries:
        sittings = [(f"earlier sitting {k}", f"`{s.command}`, kept epoch {s.kept_epoch} of "
                     f"{s.epochs}") for k, s in enumerate(e.sittings or (), 1)]
        rows = [*sittings, ("command", f"`{e.command}`"), ("seed", e.seed),
                ("training time", f"{_duration(e.train_time_s)} on {e.device}, "
                                  f"{e.threads} thread(s), torch {e.torch_version}"),
                *((name.replace("_", " "), _value(v)) for name, v in json_row(e.metrics).items())]
        table = "\n".join(["| recipe and result | |", "|---|---|",
                           *(f"| {name} | {value} |" for name, value in rows)])
        notes = f"\n\n*Notes:* {e.notes}" if e.notes else ""
        sections.append(f"## `{e.name}`\n\n{e.description}{notes}\n\n{table}\n\n"
                        f"File `{e.file}`, sha256 `{e.sha256}`.")
    return "\n\n" + "\n\n".join(sections) + "\n"


def add_generated_text(app, docname: str, source: list[str]) -> None:
    """``source-read``: append the navigation to the README, the checkpoints to their page."""
    if docname == app.config.root_doc:
        source[0] += navigation([d for d in app.env.found_docs if d.startswith("notebooks/")])
    elif docname == "docs/checkpoints":
        app.env.note_dependency(str(CHECKPOINTS / MANIFEST))
        source[0] += checkpoint_sections(list(read_manifest(CHECKPOINTS).values()))


def drop_badges(app, doctree: nodes.document) -> None:
    """``doctree-read``: remove links to Colab or Binder that show an image (the badges)."""
    for link in list(doctree.findall(nodes.reference)):
        if link.get("refuri", "").startswith(BADGE_HOSTS) and link.next_node(nodes.image):
            link.parent.remove(link)


def side_by_side(notebooks: int) -> int:
    """How many notebooks to run at once: one per core, but no more than the memory holds at
    ``KERNEL_MEMORY`` each (where the system tells its memory), and at least one. One at a time
    where kernels cannot listen on files (``kernel_config``): side by side, their TCP ports can
    collide."""
    if os.name != "posix":
        return 1
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        memory = None
    fits = memory // KERNEL_MEMORY if memory else notebooks
    return max(1, min(os.cpu_count() or 1, notebooks, fits))


def kernel_config(folder: str) -> Config:
    """How a site build's kernel talks to its notebook: over files in ``folder`` (ZeroMQ's ipc
    transport) where the system has them, instead of TCP ports on 127.0.0.1.

    Each client picks its kernel's five ports by asking the system for free ones and letting them
    go again before the kernel binds them. With notebooks run side by side, two clients can be
    handed the same port in between, and one kernel dies with "Address already in use" (it
    failed a CI build). Files named for each kernel's own folder cannot collide."""
    if os.name != "posix":  # no ipc transport on Windows: the notebooks run one at a time there
        return Config()
    return Config({"KernelManager": {"transport": "ipc",
                                     "connection_file": os.path.join(folder, "kernel.json")}})


class StillsWorker(ExecutionWorkerLocalMProc):
    """jupyter-cache's worker (run one notebook in its folder, cache the result), without storing
    the widgets' live state in the notebook: no page has a script to read it, and each widget
    shows its still instead (``Widget.still_html``). It made pages up to 250 KB heavier.
    Its kernel listens on files of its own (``kernel_config``)."""

    @staticmethod
    def execute(project_nb, data):
        with TemporaryDirectory(prefix="capsedu-kernel-") as folder:
            return single_nb_execution(project_nb.nb, cwd=str(Path(project_nb.uri).parent),
                                       timeout=data.timeout, allow_errors=data.allow_errors,
                                       store_widget_state=False, config=kernel_config(folder))


def execute_notebooks(app) -> None:
    """``builder-inited``: run every notebook of the site that the cache lacks, as many at once as
    there are cores, each kernel on one CPU thread (``OMP_NUM_THREADS=1``, which torch reads when
    it starts) with text progress bars (``course_settings.TEXT_PROGRESS``: a page shows each bar's
    finished line, not a widget frozen at 0 %), and stop the build with the notebook's traceback
    when one fails.

    jupyter-cache's own parallel executor hands out the notebooks in fixed pairs, in course order;
    here each core takes the next notebook when it is free, the last (the course's longest) first,
    so that no core waits long at the end."""
    if app.config.nb_execution_mode != "cache":
        return
    patterns = [p for p in app.config.include_patterns if p.endswith(".ipynb")]
    notebooks = sorted({str(Path(app.srcdir, path).resolve())
                        for pattern in patterns for path in glob(pattern, root_dir=app.srcdir)})
    cache = get_cache(app.config.nb_execution_cache_path)
    for notebook in notebooks:
        cache.add_nb_to_project(notebook)
    records = sorted(cache.list_unexecuted(notebooks), key=lambda record: record.uri, reverse=True)
    if not records:
        return
    processes = side_by_side(len(records))
    logger.info(f"running {len(records)} notebook(s), {processes} at a time")
    tasks = [ProcessData(r.pk, r.uri, cache, app.config.nb_execution_timeout, False)
             for r in records]
    # the kernels inherit both: one thread each, and progress bars that leave a finished line
    with patch.dict(os.environ, OMP_NUM_THREADS="1", CAPSEDU_TEXT_PROGRESS="1"), \
            Pool(processes) as pool:
        outcomes = pool.map(StillsWorker(), tasks, chunksize=1)
    failed = [uri for status, uri in outcomes if status != 0]  # 1: the notebook raised
    if failed:
        tracebacks = "\n\n".join(f"{uri}:\n{cache.get_project_record(uri).traceback}"
                                  for uri in failed)
        raise ExtensionError(f"{len(failed)} notebook(s) failed to run:\n{tracebacks}")


def setup(app):
    app.connect("builder-inited", execute_notebooks)
    app.connect("source-read", add_generated_text)
    app.connect("doctree-read", drop_badges)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Sphinx settings of the course's website (``make site``; "The course as a website" in
docs/contributing.md says how it is built). The source folder is the repository root, so the
README is the landing page and every notebook is a page at its own path
(``notebooks/03_squash.html``). This folder holds these settings, the site's own pages (the API
reference, the checkpoints, the contributors' page) and ``course_site.py``, the extension that
adds what is the course's own: the navigation, the checkpoints from the manifest, and notebook
pages without the badges that the launch buttons replace."""

import sys
from pathlib import Path

import tomllib
from sphinx.errors import ConfigError

from capsedu import course_settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))  # for course_site

if course_settings.QUICK:
    raise ConfigError("CAPSEDU_QUICK is set: the site shows what a learner sees, so its notebooks "
                      "run in default mode. Unset it (env -u CAPSEDU_QUICK make site) and build "
                      "again.")

# The repository's one home, for the launch buttons and the repository button.
REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]

project = "capsedu"
author = "the capsedu authors"
html_title = "capsedu: how capsules actually work"

# MathJax 3 comes with the site (sphinx-mathjax-offline), not from a CDN: the site works offline.
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx-mathjax-offline", "course_site"]

# What the site is made of; everything else in the repository is no page.
root_doc = "README"
include_patterns = ["README.md", "ARCHITECTURE.md", "docs/*.md", "docs/instructor/hub.md",
                    "notebooks/[0-9][0-9]_*.ipynb"]
exclude_patterns = [".*", "_build", "data", "capsedu", "tests", "benchmarks", "build"]
# The landing page is README.html; the site's index.html sends the browser there.
templates_path = ["_templates"]
html_additional_pages = {"index": "redirect_to_readme.html"}

# Notebooks: executed once in default mode and kept in a jupyter-cache, so a rebuild executes only
# the notebooks whose code changed. A notebook that fails stops the build.
nb_execution_mode = "cache"
nb_execution_cache_path = str(ROOT / "_build" / "jupyter_cache")
nb_execution_timeout = 1800  # seconds per cell: in default mode a cell may train for minutes
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# A cell's text outputs in one block per stream, each progress bar's redraws (\r) down to its last
# line: the finished bar (course_site runs the kernels with CAPSEDU_TEXT_PROGRESS=1).
nb_merge_streams = True
# A widget shows its still (capsedu/widgets/base.py): no live widget view, no widget scripts.
nb_mime_priority_overrides = [("*", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js = {}

# Markdown that a cell displays (10's table) is read as MyST, which knows tables; the default,
# CommonMark, shows a table as its raw pipes.
nb_render_markdown_format = "myst"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# The API reference: members in source order, with their signatures' type hints in the text.
autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "sphinx_book_theme"
html_favicon = "_static/capsule.svg"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_theme_options = {
    "repository_url": REPOSITORY,
    "repository_branch": "main",
    "path_to_docs": "",
    "use_repository_button": True,
    "use_download_button": True,
    "launch_buttons": {
        "colab_url": "https://colab.research.google.com",
        "binderhub_url": "https://mybinder.org",
        "notebook_interface": "jupyterlab",
    },
    "show_toc_level": 2,
}
html_context = {"default_mode": "light"}  # the figures are drawn on white

"""Every notebook follows the storage policy and the course structure (tests/notebook_policy.py).

The notebooks are *executed* by nbval in ``make test``; this file checks how they are stored.
"""

from pathlib import Path

import nbformat
import pytest
from notebook_policy import missing_alt_text, undefined_in_snippets, violations

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_start_here.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_follows_the_policy(path):
    assert violations(path) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_links_to_neighbours_exist_or_are_next(path):
    """Links to other notebooks point at real files, except the very next one (not yet written)."""
    import re

    text = path.read_text()
    names = {p.name for p in NOTEBOOKS}
    number = int(path.name[:2])
    for target in set(re.findall(r"\((\d\d_[a-z0-9_]+\.ipynb)\)", text)):
        if target not in names:
            assert int(target[:2]) == number + 1, f"{path.name} links to missing {target}"


def test_the_policy_catches_a_latex_command_typed_in_a_python_string(tmp_path):
    nb = nbformat.read(NOTEBOOKS[3], as_version=4)
    nb.cells[0].source += "\n\n$n_{in} \times d$"  # what a builder writes for "\times"
    nbformat.write(nb, tmp_path / NOTEBOOKS[3].name)
    assert violations(tmp_path / NOTEBOOKS[3].name) == [
        "cell 0: a control character (tab, backspace, form feed...): a LaTeX command whose "
        "backslash became an escape?"]


def figure_notebook(alt=None):
    """A small in-memory notebook: a markdown cell, a code cell without a figure, a figure cell
    (with ``alt`` as its alt text, if given)."""
    figure = nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\n\nplt.plot([0, 1])\n"
                                       "plt.show()", metadata={"tags": ["keep"]})
    if alt is not None:
        figure.metadata["mystnb"] = {"image": {"alt": alt}}
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# a figure"),
                                           nbformat.v4.new_code_cell("x = 1"), figure])


def test_the_policy_flags_a_figure_cell_without_alt_text():
    for nb in (figure_notebook(), figure_notebook(alt="  ")):
        assert missing_alt_text(nb) == [
            'cell 2: a figure (plt.show()) without alt text: say what it shows in '
            'metadata["mystnb"]["image"]["alt"]']


def test_the_policy_passes_a_figure_cell_with_alt_text():
    assert missing_alt_text(figure_notebook(alt="A rising line from (0, 0) to (1, 1).")) == []


def test_violations_report_a_figure_without_alt_text_by_cell(tmp_path):
    """``violations`` reports a figure without alt text in any notebook, by its cell."""
    path = tmp_path / "07_faces_parts_vote_for_wholes.ipynb"
    nbformat.write(figure_notebook(), path)
    alt_problems = [p for p in violations(path) if "alt text" in p]
    assert alt_problems == missing_alt_text(figure_notebook()) and alt_problems


def snippet_notebook(text: str, code: str = "from capsedu.digit_capsules import decode\nmodel = 1"):
    cells = [nbformat.v4.new_markdown_cell("# 06 · x"), nbformat.v4.new_code_cell(code),
             nbformat.v4.new_markdown_cell(text)]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize("text, missing", [
    # 06's exercise called a module alias the notebook never imported
    ("## Exercises\n4. Decode it: `ps.decode(model, v, torch.tensor([1]))`", "ps, torch, v"),
    # 01's exercise used functions its notebook never imported
    ("## Exercises\n4. Try:\n\n   ```python\n   wider = fit(training_set(10), 1)\n   ```\n",
     "fit, training_set"),
    ("Run this:\n```python\nx = decode(model, y)\n```\n", "y"),  # outside the exercises too
])
def test_the_policy_finds_a_snippet_that_would_raise_name_error(text, missing):
    (problem,) = undefined_in_snippets(snippet_notebook(text))
    assert problem.startswith("cell 2: the snippet") and problem.endswith(
        f"uses {missing}, which the notebook never defines or imports")


@pytest.mark.parametrize("text", [
    "## Exercises\n1. Call `decode(model, model)` (and `[B, 10]` is a shape, not a call).",
    "Before the exercises, `undefined_call(x)` is a signature in prose, not a line to run.",
    "```python\nfrom torch import zeros\ndecode(model, zeros(2))\n```\n",  # imports its own names
    "```text\nc = softmax(b, over=parents)\n```\n",  # pseudo-code
])
def test_the_policy_passes_snippets_that_run(text):
    assert undefined_in_snippets(snippet_notebook(text)) == []


def test_the_policy_flags_pseudo_code_marked_as_python():
    (problem,) = undefined_in_snippets(snippet_notebook("```python\nc = softmax(b, over j)\n```"))
    assert "does not parse" in problem and "```text" in problem


@pytest.mark.parametrize("edit, problem", [
    (lambda cells: cells[1].update(source="## Install first"),
     "under the heading '## 0 · On Colab?"),
    (lambda cells: cells.append(nbformat.v4.new_markdown_cell("## 3 · Stray")), "numbered 0, 1, 2"),
    (lambda cells: cells.append(nbformat.v4.new_markdown_cell("## Summary\n\n* late")),
     "the Summary must come before the Exercises"),
])
def test_the_policy_keeps_one_structure_in_every_notebook(tmp_path, edit, problem):
    path = next(p for p in NOTEBOOKS if p.name.startswith("03_"))
    nb = nbformat.read(path, as_version=4)
    assert violations(path) == []
    edit(nb.cells)
    broken = tmp_path / path.name
    nbformat.write(nb, broken)
    assert [p for p in violations(broken) if problem in p]

"""Every notebook follows the storage policy and the course structure (tests/notebook_policy.py).

The notebooks are *executed* by nbval in ``make test``; this file checks how they are stored.
"""

from pathlib import Path

import nbformat
import pytest
from notebook_policy import violations

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

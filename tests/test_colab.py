"""The Colab path, reproduced here: the notebooks' install cell, run in a fresh environment.

On Colab a notebook arrives alone; its first code cell (``notebook_policy.COLAB_CELL``) clones the
repository and installs it editable. This test runs that very cell, with two substitutions (the
local repository instead of the URL, a temporary folder instead of ``/content``), in a new virtual
environment outside the repository, from an empty working folder, and then loads a shipped
checkpoint, in the same process (the notebook's kernel) and in a new one (after a restart).

No download happens: the new environment borrows the installed dependencies of this one (a
``.pth`` line that points at its site-packages), and pip is told to use no index. The clone is
of the committed ``HEAD``, as Colab would get the pushed repository. Run alone: ``pytest -m colab``.
"""

import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from notebook_policy import ROOT, colab_cell, repository

COLAB_HOME = '"/content/capsedu"'
AFTER_THE_CELL = """
import capsedu
from capsedu.checkpoints import checkpoint_dir

model = capsedu.pretrained("capsnet-mnist")
print("package:", capsedu.__file__)
print("checkpoints:", checkpoint_dir())
print("loaded:", type(model).__name__, sum(p.numel() for p in model.parameters()))
"""


def fresh_environment(where: Path) -> Path:
    """A new virtual environment whose only packages are borrowed from this one's site-packages
    (by a path line in a ``.pth`` file; the ``.pth`` files over there are not run, so this
    environment does not see the repository's own editable install of capsedu)."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python


def run(python: Path, code: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "CAPSEDU_", "VIRTUAL_ENV", "PIP_"))}
    # pip: installed packages only, no index, and setuptools from here (no isolated build)
    env.update(PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1")
    done = subprocess.run([python, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.colab
def test_the_colab_cell_installs_the_course_and_its_checkpoints(tmp_path):
    cell = colab_cell()
    url = repository()
    assert cell.count(f'"{url}"') == 1 and cell.count(COLAB_HOME) == 1
    course = tmp_path / "content" / "capsedu"
    cell = cell.replace(f'"{url}"', repr(str(ROOT))).replace(COLAB_HOME, repr(str(course)))
    python = fresh_environment(tmp_path / "venv")
    empty = tmp_path / "work"
    empty.mkdir()
    # The kernel: Colab has imported google.colab before the first cell runs.
    kernel = ("import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')\n"
              + cell + "\n" + AFTER_THE_CELL)
    out = run(python, kernel, empty)
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out
    assert f"checkpoints: {course / 'data' / 'checkpoints'}" in out
    assert "loaded: CapsNet" in out
    # After a restart, the editable install alone finds the clone; running the cell again skips
    # the clone that is already there.
    out = run(python, kernel, empty)
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out
    out = run(python, AFTER_THE_CELL, empty)
    assert f"package: {course / 'capsedu' / '__init__.py'}" in out
    assert list(empty.iterdir()) == []  # nothing written to the working folder


def test_the_cell_does_nothing_outside_colab():
    done = subprocess.run([sys.executable, "-c", colab_cell() + "\nprint('ok')"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr

"""The project's own files agree with each other."""

import re
from pathlib import Path

import pytest
import tomllib
import yaml

ROOT = Path(__file__).parent.parent
# pip name -> conda-forge name where they differ (the CPU build of PyTorch for conda users)
CONDA_NAMES = {"torch": "pytorch-cpu"}


def split(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", requirement.strip()).groups()
    return name.lower(), spec.replace(" ", "")


def conda_environment(path, wanted):
    """Check the conda environment file ``path`` against the requirements ``wanted`` (pip
    syntax): the same packages with the same bounds (conda's names), capsedu itself by pip."""
    env = yaml.safe_load(path.read_text())
    assert env["channels"] == ["conda-forge"]
    conda, pip = {}, {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip.update(split(r) for r in dep["pip"] if r != "-e .")
            assert "-e ." in dep["pip"], f"{path.name} must install capsedu itself (pip: -e .)"
        else:
            name, spec = split(dep)
            conda[name] = spec
    assert conda.pop("python") == "=3.11"
    assert conda.pop("pip") == ""
    expected = {}
    for requirement in wanted:
        name, spec = split(requirement)
        expected[CONDA_NAMES.get(name, name)] = spec
    assert {**conda, **pip} == expected, f"{path.name} and pyproject.toml have drifted apart"
    return conda | pip


def test_environment_yml_agrees_with_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    conda_environment(ROOT / "environment.yml",
                      [*project["dependencies"],
                       *(r for extra in project["optional-dependencies"].values() for r in extra)])


def test_binder_builds_only_what_a_learner_needs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    built = conda_environment(ROOT / "binder" / "environment.yml",
                              [*project["dependencies"], *extras["lab"]])
    learner = {split(r)[0] for r in [*project["dependencies"], *extras["lab"]]}
    tools = {CONDA_NAMES.get(n, n) for n in
             {split(r)[0] for r in [*extras["dev"], *extras["site"]]} - learner}
    assert tools and not tools & set(built), "Binder must not build the test or site tools"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make lab" in readme
    assert re.search(r"^make test\b", ci, re.M)


def test_the_project_never_refers_to_the_shared_folder():
    offenders = []
    for path in [*ROOT.glob("capsedu/**/*.py"), *ROOT.glob("notebooks/**/*.ipynb"),
                 ROOT / "Makefile", ROOT / "pyproject.toml"]:
        if "../shared" in path.read_text():
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_readme_states_each_notebooks_time_and_memory_from_the_benchmark():
    """The course table's last two columns are the committed measurement of
    ``benchmarks/notebooks.py`` (benchmarks/results/notebooks.json), notebook by notebook."""
    import json

    measured = json.loads((ROOT / "benchmarks" / "results" / "notebooks.json").read_text())
    n = len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    assert measured["measured"]["mode"] == "default" and measured["measured"]["finished"] == \
        f"{n} of {n}"
    want = {r["notebook"][:2]: (f"{r['seconds']:.0f} s", f"{r['peak_mb']:,} MB")
            for r in measured["notebooks"]}
    readme = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| (\d\d) \| .* \| ([\d,]+ s) \| ([\d,]+ MB) \|$", readme, re.M)
    assert {number: (seconds, memory) for number, seconds, memory in rows} == want
    assert f"{measured['measured']['imports_mb']:,} MB" in readme  # the floor, stated


def test_the_readme_says_where_the_repository_address_is_written():
    """The one place of the address (``[project.urls] Repository``, read by the badges' check in
    tests/notebook_policy.py and by the site) is the one the README tells a publisher to change,
    and no README link spells the address out."""
    address = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    readme = (ROOT / "README.md").read_text()
    assert "`Repository` in `[project.urls]` of `pyproject.toml`" in readme
    assert address not in readme


def test_make_lab_starts_as_root_and_installs_the_cpu_build_without_a_gpu():
    import os
    import shutil
    import subprocess

    if not shutil.which("make"):
        pytest.skip("make is not installed")

    def dry_run(target):
        return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout

    assert ("--allow-root" in dry_run("lab")) == (os.geteuid() == 0)
    cpu_build = "torch --index-url https://download.pytorch.org/whl/cpu" in dry_run(
        ".venv/.installed")
    assert cpu_build == (subprocess.run("nvidia-smi", shell=True, capture_output=True)
                         .returncode != 0)

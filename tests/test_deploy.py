"""The hub recipes (deploy/, docs/instructor/hub.md) parse, name this repository's image and
nbgitpuller link as derived from pyproject.toml's Repository, agree with each other, and size a
learner from what benchmarks/hub_load.py measured."""

import json
import re
import statistics
import sys
from pathlib import Path

import tomllib
import yaml
from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "hub"))

from hubdriver import pull_query  # noqa: E402  (the link the hub test follows)

REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
OWNER_NAME = REPOSITORY.removeprefix("https://github.com/")
Z2JH = yaml.safe_load((ROOT / "deploy" / "z2jh" / "config.yaml").read_text())
GUIDE = (ROOT / "docs" / "instructor" / "hub.md").read_text()


def kubernetes_bytes(quantity: str) -> float:
    """A Kubernetes memory quantity ("1G", "512M", "2Gi") in bytes."""
    number, unit = re.fullmatch(r"([\d.]+)([KMGT]i?)", quantity).groups()
    base = 1024 if unit.endswith("i") else 1000
    return float(number) * base ** ("KMGT".index(unit[0]) + 1)


def measured_peaks() -> list[float]:
    """Every learner's peak memory (bytes) in the shipped hub_load results."""
    peaks = []
    for path in sorted((ROOT / "benchmarks" / "results").glob("hub_load*.json")):
        for result in json.loads(path.read_text())["results"]:
            peaks += [row["peak_memory_mb"] * 1e6 for row in result["rows"]]
    return peaks


def tljh_config() -> Config:
    """deploy/tljh/capsedu.py run as JupyterHub runs a file of jupyterhub_config.d."""
    config = Config()
    source = (ROOT / "deploy" / "tljh" / "capsedu.py").read_text()
    exec(compile(source, "capsedu.py", "exec"), {"get_config": lambda: config})
    return config


def test_the_z2jh_image_is_this_repositorys_and_built_from_pyproject():
    assert REPOSITORY.startswith("https://github.com/") and OWNER_NAME.count("/") == 1
    assert Z2JH["singleuser"]["image"]["name"] == f"ghcr.io/{OWNER_NAME}"
    build = (ROOT / "deploy" / "build-image.sh").read_text()
    assert "tomllib" in build and REPOSITORY not in build, "build-image.sh reads pyproject"
    assert "--target-repo-dir /srv/capsedu" in build and "nbgitpuller" in build


def test_the_z2jh_learner_is_sized_from_the_measurements():
    singleuser, peaks = Z2JH["singleuser"], measured_peaks()
    assert peaks, "benchmarks/results/hub_load*.json hold no measurement"
    guarantee = kubernetes_bytes(singleuser["memory"]["guarantee"])
    limit = kubernetes_bytes(singleuser["memory"]["limit"])
    assert statistics.median(peaks) <= guarantee <= limit
    assert max(peaks) <= limit
    threads = int(singleuser["extraEnv"]["OMP_NUM_THREADS"])
    assert 1 <= threads <= singleuser["cpu"]["limit"]
    assert Z2JH["cull"]["enabled"] is True and Z2JH["cull"]["timeout"] > 0


def test_the_shared_data_root_is_mounted_read_only_where_capsedu_data_says():
    singleuser = Z2JH["singleuser"]
    data = singleuser["extraEnv"]["CAPSEDU_DATA"]
    mounts = {m["mountPath"]: m for m in singleuser["storage"]["extraVolumeMounts"]}
    assert mounts[data]["readOnly"] is True
    volumes = {v["name"]: v for v in singleuser["storage"]["extraVolumes"]}
    assert volumes[mounts[data]["name"]]["persistentVolumeClaim"]["readOnly"] is True


def test_tljh_sets_what_z2jh_sets():
    environment = tljh_config().Spawner.environment
    for name in ("CAPSEDU_DATA", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        assert environment[name] == Z2JH["singleuser"]["extraEnv"][name], name
    assert tljh_config().Spawner.default_url == Z2JH["singleuser"]["defaultUrl"] == "/lab"
    requirements = (ROOT / "deploy" / "tljh" / "requirements.txt").read_text()
    assert re.search(rf"^capsedu\[lab\] @ git\+{re.escape(REPOSITORY)}@", requirements, re.M)
    assert re.search(r"^nbgitpuller\b", requirements, re.M)


def test_the_guide_gives_the_link_the_hub_test_follows():
    link = ("https://HUB/hub/user-redirect/git-pull?"
            + pull_query(REPOSITORY, "lab/tree/capsedu/notebooks/00_start_here.ipynb"))
    assert link in GUIDE
    assert (ROOT / "notebooks" / "00_start_here.ipynb").is_file()


def test_the_guide_shows_the_measured_tables_with_their_commands():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from hub_load import markdown_table

    for path in sorted((ROOT / "benchmarks" / "results").glob("hub_load*.json")):
        measured = json.loads(path.read_text())
        assert markdown_table(measured["results"]) in GUIDE, f"{path.name}'s table"
        assert measured["command"] in GUIDE, f"{path.name}'s command"
    for path in ("deploy/z2jh/config.yaml", "deploy/tljh/capsedu.py",
                 "deploy/tljh/requirements.txt", "deploy/build-image.sh"):
        assert path in GUIDE, path

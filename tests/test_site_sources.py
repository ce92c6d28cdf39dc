"""The website's sources agree with the package, and its build refuses quick mode. (The build
itself, in a browser: tests/browser/test_site.py.)"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_api_reference_documents_every_module():
    modules = {".".join(("capsedu", *p.relative_to(ROOT / "capsedu").with_suffix("").parts))
               .removesuffix(".__init__") for p in (ROOT / "capsedu").rglob("*.py")}
    modules.discard("capsedu")  # its docstring is the README's
    api = (ROOT / "docs" / "api.md").read_text()
    missing = sorted(m for m in modules if f".. automodule:: {m}\n" not in api)
    assert missing == [], f"add these modules to docs/api.md: {missing}"


def test_the_site_refuses_to_build_in_quick_mode(tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-c", "docs", ".", str(tmp_path)],
        cwd=ROOT, env=dict(os.environ, CAPSEDU_QUICK="1"), capture_output=True, text=True)
    assert build.returncode != 0
    assert "CAPSEDU_QUICK is set" in build.stderr and "default mode" in build.stderr
    assert not any(tmp_path.iterdir())  # nothing executed, nothing written

"""The package's layers (ARCHITECTURE.md): imports flow one way, there are no cycles, and
``import capsedu`` loads the core only."""

import ast
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "capsedu"

# Lower layers first. A module may import from its own layer and the layers below, never above.
LAYERS = [
    ("settings", ["config", "checks", "refusals", "validate"]),
    ("maths", ["functional", "routing", "layers", "poses", "group_conv", "statistics", "buggy",
               "spiking", "attacks", "slot_attention"]),
    ("models", ["capsnet", "baselines", "multi_digit", "costs", "routing_costs", "gcnn",
                "bug_catalogue", "buggy_capsnet", "vit"]),
    ("data and training", ["data", "data.mnist", "data.sprites", "data.faces", "data.patches",
                           "data.transformed_mnist", "json_records", "manifest_rows",
                           "checkpoints", "convergence", "loop",
                           "recipes", "recipe_run", "train"]),
    ("experiments", ["capsule_vectors", "digit_capsules", "parts", "parts.votes",
                     "parts.detector", "parts.pose_net", "parts.pose_mlp", "parts.scoring",
                     "parts.training", "parts.curves", "robustness", "full_sets", "seed_runs",
                     "bug_zoo", "couplings", "ablations", "equivariance", "capsule_angles",
                     "seed_table", "reconstruction_detector", "adversarial",
                     "adversarial_record", "patch_order", "digit_shuffles"]),
    ("presentation", ["figures", "figures.*", "bug_zoo_report", "cost_tables", "claims_table",
                      "exercises", "exercises.*", "environment", "widgets", "widgets.*"]),
]
# what `import capsedu` may load
CORE = {"config", "checks", "refusals", "validate", "functional", "routing", "layers", "capsnet",
        "baselines", "json_records", "manifest_rows", "checkpoints"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py") if module_name(p)}


def layer_of(name: str) -> int:
    for k, (_, members) in enumerate(LAYERS):
        for member in members:
            if name == member or (member.endswith(".*") and name.startswith(member[:-1])):
                return k
    raise AssertionError(f"capsedu.{name} is in no layer: add it to ARCHITECTURE.md and LAYERS")


def imports_of(name: str) -> set[str]:
    """The capsedu modules that module ``name`` imports (statically, anywhere in the file)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("capsedu"):
                target = node.module.removeprefix("capsedu").lstrip(".")
            else:
                continue
            for alias in node.names:  # `from . import config` imports the module config
                sub = f"{target}.{alias.name}" if target else alias.name
                found.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("capsedu.") for a in node.names
                      if a.name.startswith("capsedu.")}
    return {m for m in found if m and m != name}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_flow_down_the_layers(name):
    upward = {m: LAYERS[layer_of(m)][0] for m in imports_of(name) if layer_of(m) > layer_of(name)}
    assert not upward, (f"capsedu.{name} ({LAYERS[layer_of(name)][0]}) imports from a higher "
                        f"layer: {upward}")


def test_figures_import_no_widget_or_exercise():
    """Figures sit below the widgets and checkers that draw with them, in the same layer: a
    figure module may import another figure module, never a widget or an exercise."""
    above = ("widgets", "exercises")
    figures = [name for name in MODULES if name.startswith("figures.")]
    assert figures, "no figure module found"
    upward = {name: sorted(m for m in imports_of(name) if m.split(".")[0] in above)
              for name in figures}
    upward = {name: found for name, found in upward.items() if found}
    assert not upward, f"figure modules import widgets or exercises: {upward}"


def test_no_import_cycles():
    graph = {name: imports_of(name) for name in MODULES}
    state = {}  # name -> "visiting" | "done"

    def visit(name, path):
        if state.get(name) == "done":
            return
        if state.get(name) == "visiting":  # back at a module still being visited: a cycle
            cycle = path[path.index(name):]
            raise AssertionError("import cycle: " + " -> ".join([*cycle, name]))
        state[name] = "visiting"
        for dep in sorted(graph[name]):
            visit(dep, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


def test_the_checks_catch_an_upward_import_and_a_cycle(tmp_path, monkeypatch):
    """The guard itself: a planted upward import and a planted cycle are both reported."""
    (tmp_path / "routing.py").write_text("from .widgets import thing\n")
    (tmp_path / "capsnet.py").write_text("from . import baselines\n")
    (tmp_path / "baselines.py").write_text("from .capsnet import CapsNet\n")
    monkeypatch.setattr(sys.modules[__name__], "MODULES",
                        {**MODULES, **{p.stem: p for p in tmp_path.glob("*.py")}})
    with pytest.raises(AssertionError, match="higher layer"):
        test_imports_flow_down_the_layers("routing")
    cycle = "import cycle: (capsnet -> baselines -> capsnet|baselines -> capsnet -> baselines)$"
    with pytest.raises(AssertionError, match=cycle):
        test_no_import_cycles()


def test_the_layout_docs_name_every_module():
    """ARCHITECTURE.md's table names every module (a package by its folder; exercises/ and
    widgets/ by their folders alone) and the README's module table every top-level module and
    folder, so that a new module is placed in both."""
    architecture = (ROOT / "ARCHITECTURE.md").read_text()
    readme = (ROOT / "README.md").read_text()
    packages = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    for name in MODULES:
        top = name.split(".")[0]
        in_readme = f"`{top}/`" if top in packages else f"`{top}.py`"
        assert in_readme in readme, f"capsedu.{name}: add {in_readme} to the README's module table"
        if name in packages or top in ("exercises", "widgets"):
            in_architecture = f"{top}/"
        else:
            in_architecture = f"`{name.replace('.', '/')}`"
        assert in_architecture in architecture, \
            f"capsedu.{name}: add {in_architecture} to ARCHITECTURE.md's table"

MAX_MODULE_LINES = 500  # a module past this holds more than one idea: split it by concept
MAX_FUNCTION_LINES = 60  # decorators and docstring included: a function that fits on a screen


def test_every_module_and_function_fits_its_size():
    too_long = []
    for name, path in MODULES.items():
        source = path.read_text()
        if len(source.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"capsedu.{name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - first + 1 > MAX_FUNCTION_LINES:
                    too_long.append(f"capsedu.{name}.{node.name}: "
                                    f"{node.end_lineno - first + 1} lines")
    assert not too_long, f"longer than {MAX_MODULE_LINES} (a module) or " \
                         f"{MAX_FUNCTION_LINES} (a function) lines: {too_long}"

# A module goes by its own name; only these keep the alias every reader knows.
CONVENTIONAL_ALIASES = {"numpy": "np", "torch.nn.functional": "F", "matplotlib.pyplot": "plt",
                        "ipywidgets": "widgets"}


def aliases_in(source: str) -> list[str]:
    """Every ``import ... as ...`` of ``source`` but the conventional ones, as written."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named = [(alias.name, alias.asname) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (f"{node.module}." if node.module else "")
            named = [(module + alias.name, alias.asname) for alias in node.names]
        else:
            continue
        found += [f"{name} as {asname}" for name, asname in named
                  if asname is not None and CONVENTIONAL_ALIASES.get(name) != asname]
    return found


def code_sources() -> dict[str, str]:
    """The Python of capsedu, the tests, the benchmarks and the notebooks (their code cells)."""
    sources = {}
    for folder in ("capsedu", "tests", "benchmarks", "notebooks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            sources[str(path.relative_to(ROOT))] = path.read_text()
    for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        sources[str(path.relative_to(ROOT))] = "\n".join(
            cell.source for cell in cells if cell.cell_type == "code")
    return sources


def test_no_module_is_imported_under_another_name():
    """One meaning per name: `from capsedu import equivariance`, then `equivariance.shift`."""
    found = {name: aliases for name, source in code_sources().items()
             if (aliases := aliases_in(source))}
    assert not found, f"import these by their own names: {found}"


def test_the_alias_check_names_an_alias_and_passes_the_conventional_ones():
    assert aliases_in("from capsedu import equivariance as eq\nimport numpy as np") == \
        ["capsedu.equivariance as eq"]
    assert aliases_in("from torch.nn import functional as F\nfrom . import routing as r") == \
        [".routing as r"]
    assert aliases_in("import numpy as numeric\nimport matplotlib.pyplot as plt") == \
        ["numpy as numeric"]


def test_import_capsedu_loads_the_core_only():
    code = ("import sys, capsedu; print(' '.join(sorted(m for m in sys.modules "
            "if m.startswith('capsedu') or m in ('matplotlib', 'ipywidgets'))))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True, cwd=ROOT).stdout.split())
    extra = {m for m in loaded if m.removeprefix("capsedu").lstrip(".") not in CORE | {""}}
    assert not extra, f"`import capsedu` loads more than the core: {sorted(extra)}"


def test_import_figures_loads_no_matplotlib():
    """``capsedu.figures`` only lists its modules: a notebook imports the one it draws with."""
    code = "import sys, capsedu.figures; print('matplotlib' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout.strip()
    assert loaded == "False"


def test_every_checkpoint_architecture_resolves_to_its_class():
    from capsedu.checkpoints import ARCHS, model_class

    for arch, module in ARCHS.items():
        assert model_class(arch).__name__ == arch and model_class(arch).__module__ == module
    with pytest.raises(KeyError, match="known: CapsNet"):
        model_class("ResNet")

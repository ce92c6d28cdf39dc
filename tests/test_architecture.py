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
    ("settings", ["course_settings", "units", "checks", "memory", "refusals", "validate",
                  "derived"]),
    ("maths", ["functional", "routing", "layers", "poses", "group_conv", "statistics", "buggy",
               "spiking", "attacks", "slot_attention"]),
    ("models", ["capsnet", "baselines", "multi_digit", "costs", "routing_costs", "gcnn",
                "bug_catalogue", "buggy_capsnet", "vit"]),
    ("data and training", ["data", "data.mnist", "data.sprites", "data.faces", "data.face_ink",
                           "data.patches", "data.affine_params", "data.transformed_mnist",
                           "data.digit_pairs", "json_records", "stopping_rule",
                           "manifest_rows", "shipped_folders", "results_kinds", "folder_lock",
                           "checkpoints",
                           "convergence",
                           "progress", "fit_inputs", "run_state", "loop", "recipes", "recipe_run",
                           "course_parser", "train"]),
    ("experiments", ["capsule_vectors", "digit_capsules", "parts", "parts.voting",
                     "parts.detector", "parts.pose_net", "parts.pose_mlp", "parts.scoring",
                     "parts.training", "parts.curves", "robustness", "viewpoint_states",
                     "full_sets", "seed_runs", "bug_zoo", "coupling_polarisation", "ablations",
                     "equivariance", "capsule_angles", "seed_table", "reconstruction_detector",
                     "adversarial_units", "adversarial", "adversarial_record", "patch_order",
                     "digit_shuffles"]),
    ("presentation", ["figures", "figures.*", "bug_zoo_report", "cost_tables", "claims_table",
                      "face_tables",
                      "exercises", "exercises.*", "environment", "widgets", "widgets.*"]),
]
# what `import capsedu` may load
CORE = {"course_settings", "checks", "memory", "refusals", "validate", "derived", "functional",
        "routing", "layers", "capsnet", "baselines", "json_records", "manifest_rows",
        "shipped_folders", "results_kinds", "folder_lock", "checkpoints", "stopping_rule"}


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
            for alias in node.names:  # `from . import course_settings` imports that module
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

# A public function never hands back a dict whose keys the code fixes (headings, metric names,
# "clean" and "attacked"): that is a record in disguise, and it returns a frozen record with named
# fields. A dict keyed by data is a mapping and may stay; each is listed here with what keys it.
DICT_RETURNS = {
    "run_state.read_state": "the state file's keys as loop.save_state wrote them (model, "
                            "optimizer, scheduler, generator, torch_rng, history, best, "
                            "made_with)",
    "ablations.read_results": "run name (run_name) -> its AblationRun, from the results file",
    "ablations.errors_by_cell": "the label of each cell of recipes.ABLATION_GRID (the grid's "
                                "table) -> its errors per seed: the groups of a seed-spread plot",
    "adversarial.load_models": "checkpoint name of adversarial.MODELS (the manifest's key) -> "
                               "the shipped model",
    "adversarial.robust_accuracy": "the names of the models the caller passed -> their Attacked",
    "adversarial.units": "unit name, the results file's key -> the call that records it",
    "adversarial_record.read_results": "unit name -> its record, from the results file",
    "adversarial_record.read_models": "checkpoint name of adversarial.MODELS -> the Trained "
                                      "record, checked against the manifest's row of that name",
    "bug_zoo.read_results": "run name (CORRECT, the bugs of BUGS) -> its ZooRun, from the file",
    "bug_zoo.bug_effects": "bug name, a key of bug_catalogue.BUGS -> its BugEffect",
    "checkpoints.read_results": "run name -> its record, from the results file",
    "results_kinds.read_rows": "run name -> its row as JSON holds it, from the results file",
    "checkpoints.read_manifest": "checkpoint name -> its ManifestRow, from the manifest",
    "checkpoints.rows_in": "checkpoint name -> its ManifestRow, from a folder's manifest (if any)",
    "digit_shuffles.load_models": "the model names the caller passed -> one model per seed",
    "full_sets.runs": "run name, the results file's key -> the call that records it",
    "full_sets.read_results": "run name -> its FullSetReading, from the results file",
    "json_records.json_row": "a record as the JSON object its file keeps: written, not indexed",
    "parts.curves.read_results": "run name (a checkpoint's name) -> its FaceCurve, from the file",
    "parts.curves.recipe_lengths": "the face models the records hold -> their RecipeLength",
    "parts.scoring.face_rates": "the kinds the caller passed -> the face rate on each",
    "parts.scoring.turned_face_scores": "the model names the caller passed -> score and cut",
    "parts.training.routing_ablation": "the numbers of iterations the caller passed -> Refitted",
    "parts.training.load_face_models": "the model names the caller passed -> one model per seed",
    "parts.voting.face_lengths_by_kind": "the kinds the caller passed -> their face lengths",
    "parts.voting.acceptance_by_part_count": "each count of face parts found in the scenes -> "
                                             "(scenes, share accepted)",
    "patch_order.load_models": "the model names the caller passed -> one model per seed",
    "patch_order.called": "(model, kind) of those the caller passed -> each seed's calls",
    "recipe_run.continue_from": "its weights are torch's state_dict (parameter name -> tensor)",
    "robustness.sweep_curves": "the model names the caller passed -> a Sweep per factor",
    "robustness.read_right": "the model names the caller passed -> the images read right",
    "robustness.accuracies": "the model names of read_right's dict -> accuracy",
    "routing_costs.routing_shares": "the config names the caller passed -> RoutingShare",
    "routing_costs.iteration_cost": "each n_in of the rows passed -> the cost of an iteration",
    "seed_runs.readings": "reading name (the recipe, and it routed otherwise) -> its iterations",
    "results_kinds.records": "run name -> its record, from the results file's rows",
    "seed_runs.read_results": "run name (run_name) -> its SeedRun, from the results file",
    "validate.declared": "the checked function's parameter names -> their declarations",
}
MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}


def hands_back_a_dict(annotation: ast.expr | None) -> bool:
    """Whether a return annotation is a dict or a Mapping, or a union or tuple holding one."""
    if isinstance(annotation, ast.BinOp):  # X | None
        return hands_back_a_dict(annotation.left) or hands_back_a_dict(annotation.right)
    outer = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = outer.attr if isinstance(outer, ast.Attribute) else getattr(outer, "id", None)
    if name in MAPPINGS:
        return True
    if name in ("tuple", "Optional", "Union") and isinstance(annotation, ast.Subscript):
        inside = annotation.slice
        return any(map(hands_back_a_dict, inside.elts if isinstance(inside, ast.Tuple)
                       else [inside]))
    return False


def own_nodes(fn: ast.FunctionDef):
    """The nodes of ``fn``'s body, not those of the functions and lambdas inside it."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo += ast.iter_child_nodes(node)


def returns_a_dict(fn: ast.FunctionDef) -> bool:
    """Whether ``fn`` returns a dict it builds (a literal, a comprehension, ``dict(...)``,
    ``asdict(...)``, ``vars(...)``, ``._asdict()``, or a name it bound to one), alone or in a
    tuple: best effort, by reading its source."""
    def built(node):
        called = isinstance(node, ast.Call) and (getattr(node.func, "id", None) or
                                                 getattr(node.func, "attr", None))
        return isinstance(node, ast.Dict | ast.DictComp) or called in (
            MAPPINGS | {"asdict", "vars", "_asdict"})
    nodes = list(own_nodes(fn))
    names = {target.id for node in nodes if isinstance(node, ast.Assign) and built(node.value)
             for target in node.targets if isinstance(target, ast.Name)}
    returned = [node.value for node in nodes if isinstance(node, ast.Return) and node.value]
    values = [item for value in returned
              for item in (value.elts if isinstance(value, ast.Tuple) else [value])]
    return any(built(v) or (isinstance(v, ast.Name) and v.id in names) for v in values)


def public_functions(source: str):
    """``(name, node)`` of every public function of a module and public method of its classes."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            yield from ((f"{node.name}.{fn.name}", fn) for fn in node.body
                        if isinstance(fn, ast.FunctionDef) and not fn.name.startswith("_"))


def dict_problems(module: str, source: str) -> tuple[list[str], set[str]]:
    """What ``module``'s public functions do wrong with dicts, and those that return one."""
    problems, found = [], set()
    for name, fn in public_functions(source):
        where, said = f"{module}.{name}", ast.unparse(fn.returns) if fn.returns else "none"
        if hands_back_a_dict(fn.returns):
            found.add(where)
            if where not in DICT_RETURNS:
                problems.append(f"capsedu.{where} returns {said}: return a frozen record with "
                                "named fields, or list the mapping in DICT_RETURNS with what "
                                "keys it")
        elif returns_a_dict(fn):
            problems.append(f"capsedu.{where} returns a dict, its annotation says {said}: "
                            "annotate it (a mapping keyed by data) or return a record")
    return problems, found


def test_no_public_function_returns_a_dict_of_fixed_keys():
    """A dict a public function returns is keyed by data and listed in DICT_RETURNS."""
    problems, found = [], set()
    for name, path in MODULES.items():
        more, returning = dict_problems(name, path.read_text())
        problems += more
        found |= returning
    assert not problems, "\n".join(problems)
    assert not set(DICT_RETURNS) - found, \
        f"no longer return a dict: take them out of DICT_RETURNS: {set(DICT_RETURNS) - found}"


def test_the_dict_check_names_an_unlisted_dict_and_an_unannotated_one():
    source = """
def totals(x) -> dict[str, float]:
    return {"clean": 1.0, "attacked": 0.5}
def counts(x):
    found = {}
    return found
def pair(x) -> tuple[Mapping[str, int], int]:
    return {}, 1
def _private(x):
    return {}
class Report:
    def table(self) -> dict | None:
        return None
    def helper(self):
        return dict(a=1)
    def fields(self):
        return dataclasses.asdict(self)
def read_results(path) -> dict[str, int]:
    return {}
def nested(x) -> int:
    return len((lambda: {})())
"""
    problems, found = dict_problems("ablations", source)
    assert [p.split()[0] for p in problems] == [
        "capsedu.ablations.totals", "capsedu.ablations.counts", "capsedu.ablations.pair",
        "capsedu.ablations.Report.table", "capsedu.ablations.Report.helper",
        "capsedu.ablations.Report.fields"]
    assert found == {"ablations.totals", "ablations.pair", "ablations.Report.table",
                     "ablations.read_results"}  # read_results is listed in DICT_RETURNS


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
    with pytest.raises(KeyError, match=r"model_class\(\): arch must be .* one of CapsNet"):
        model_class("ResNet")

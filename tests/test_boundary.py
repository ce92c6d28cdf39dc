"""The boundary, tested by property: for every checked entry of capsedu (``validate.checked``
functions, dataclasses that subclass ``validate.CheckedRecord``), bad values are derived from each
parameter's declaration, and each is refused before anything runs, with an error naming the
parameter, saying what was expected and what came, quickly, and writing nothing. An exercise
checker refuses without raising: it prints the same sentence as a FAIL and returns False."""

import dataclasses
import functools
import importlib
import inspect
import math
import pkgutil
import re
import sys
import time
import types
import typing

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

import capsedu
from capsedu.validate import CheckedRecord, Spec, declared

# Modules whose every public function and class takes its parameters through the boundary. A
# module joins the list once all of its entries declare their parameters (issue 37).
ENFORCED = ["functional", "routing", "capsnet", "data.mnist", "statistics", "layers", "group_conv",
            "baselines", "multi_digit", "gcnn", "costs", "routing_costs", "cost_tables",
            "capsule_vectors", "coupling_polarisation", "capsule_angles",
            "data.transformed_mnist", "data.digit_pairs", "data.affine_params", "data.faces",
            "data.face_ink", "json_records",
            "manifest_rows", "shipped_folders", "results_kinds", "checkpoints", "digit_capsules",
            "equivariance", "robustness", "viewpoint_states", "full_sets", "parts.voting",
            "parts.detector",
            "parts.pose_net", "seed_runs", "seed_table", "parts.scoring", "claims_table",
            "bug_zoo_report", "parts.curves", "parts.pose_mlp", "data.sprites", "poses",
            "convergence", "stopping_rule", "progress", "run_state", "loop", "course_settings",
            "units",
            "environment",
            "recipes", "course_parser", "train",
            "ablations", "bug_zoo", "parts.training", "patch_order", "spiking", "vit",
            "data.patches",
            "adversarial_record", "reconstruction_detector", "buggy_capsnet", "attacks",
            "adversarial", "adversarial_units", "buggy", "slot_attention", "recipe_run",
            "digit_shuffles",
            "figures.architecture", "figures.canvas", "figures.capsule_lengths",
            "figures.capsule_poses", "figures.colours", "figures.digit_images",
            "figures.face_scenes", "figures.feature_maps", "figures.model_scores",
            "figures.rotations", "figures.routing_couplings", "figures.spikes",
            "figures.training_curves",
            "widgets.adversarial", "widgets.base", "widgets.bug_zoo", "widgets.capsule",
            "widgets.check", "widgets.digit_capsules", "widgets.face_capsules", "widgets.overlap",
            "widgets.panels", "widgets.parts", "widgets.rotation", "widgets.routing",
            "widgets.spiking", "widgets.verdicts", "widgets.viewpoint",
            "exercises", "exercises.attacks", "exercises.capsules", "exercises.checking",
            "exercises.geometry", "exercises.networks", "bug_catalogue", "widgets.sliders",
            "folder_lock", "face_tables"]
# the modules that are not entries: the boundary itself, and the packages that only group modules
NOT_ENTRIES = {
    "validate": "the declarations every entry's annotations are made of",
    "refusals": "the one wording of a refused argument, which validate raises",
    "checks": "the checks the declarations run (course_settings.Checked) and the models' own "
              "checks of the tensors they are handed; each is told the entry's and the "
              "argument's name",
    "memory": "the up-front memory estimate the entries that allocate run (check_memory), told "
              "what is made and what to do",
    "derived": "the check the records run on the fields they derive (check_derived), told the "
               "record's name, the field and how it is derived",
    "fit_inputs": "the checks loop.fit and loop.training_batches run on their examples and "
                  "callbacks, each told the entry's name",
    "widgets.controls": "what widgets.sliders' controls share: how a refusal names a control, "
                        "and the check of every keyword and trait they are given",
    "widgets.options": "the check a selection (widgets.sliders) runs on its options, told the "
                       "control",
    "data": "a package", "figures": "a package", "parts": "a package", "widgets": "a package",
}


def test_every_module_is_enforced_or_says_why_not():
    found = {m.name.removeprefix("capsedu.")
             for m in pkgutil.walk_packages(capsedu.__path__, "capsedu.")}
    assert found == set(ENFORCED) | set(NOT_ENTRIES), \
        f"add to ENFORCED: {sorted(found - set(ENFORCED) - set(NOT_ENTRIES))}; " \
        f"gone: {sorted((set(ENFORCED) | set(NOT_ENTRIES)) - found)}"


def modules():
    """Every module of capsedu, imported (widgets and figures too)."""
    names = [m.name for m in pkgutil.walk_packages(capsedu.__path__, "capsedu.")]
    return [importlib.import_module(name) for name in names]


def entries():
    """(qualified name, callable, declarations) of every checked entry of the package: its
    functions, its classes (made), and its classes' checked methods (``module.Class.method``,
    the function, called on ``an_instance`` of the class)."""
    found = {}
    for module in modules():
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__ or name.startswith("_"):
                continue
            if inspect.isfunction(value) and hasattr(value, "declared"):
                found[f"{module.__name__}.{name}"] = (value, value.declared)
            elif inspect.isclass(value):
                init = constructor(value)
                if dataclasses.is_dataclass(value) and checks_its_fields(value):
                    found[f"{module.__name__}.{name}"] = (value, declared(value))
                elif init is not None and hasattr(init, "declared"):
                    found[f"{module.__name__}.{name}"] = (value, init.declared)
                found.update({f"{module.__name__}.{name}.{method}": (fn, fn.declared)
                              for method, fn in methods(value).items()
                              if hasattr(fn, "declared")})
    return found


def methods(cls) -> dict:
    """The public methods ``cls`` defines itself (``__call__`` too) that take parameters, by
    name: the function (a static or class method's, unwrapped); properties are no methods."""
    found = {}
    for name, value in vars(cls).items():
        fn = value.__func__ if isinstance(value, staticmethod | classmethod) else value
        if (not name.startswith("_") or name == "__call__") and inspect.isfunction(fn) and [
                p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]:
            found[name] = fn
    return found


def is_method(entry) -> bool:
    """Whether the checked ``entry`` is a class's method (its qualified name says so)."""
    return inspect.isfunction(entry) and "." in entry.__qualname__ \
        and "<locals>" not in entry.__qualname__


def is_named_tuple(cls) -> bool:
    """Whether ``cls`` is a NamedTuple class (a record with tuple behaviour)."""
    return inspect.isclass(cls) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def checked_named_tuple(cls) -> bool:
    """Whether the NamedTuple ``cls`` is checked when made: its ``__new__`` a checked entry
    (``recipes.Cell``: a NamedTuple's fields cannot run ``__post_init__``)."""
    return is_named_tuple(cls) and hasattr(constructor(cls), "declared")


def constructor(cls):
    """The class's own ``__init__``, else its own ``__new__`` (a staticmethod in the class's
    dict, read as the function), else None."""
    own = vars(cls)
    return own["__init__"] if "__init__" in own else cls.__new__ if "__new__" in own else None


def takes_none(entry, parameter: str) -> bool:
    """Whether ``parameter`` of ``entry`` is optional (``X | None``): None is no bad value there."""
    fn = entry if dataclasses.is_dataclass(entry) or not inspect.isclass(entry) else \
        constructor(entry)
    hint = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)[parameter]
    return type(None) in typing.get_args(hint)


def checks_its_fields(cls) -> bool:
    """Whether the dataclass ``cls`` checks its fields when made: it subclasses ``CheckedRecord``,
    directly or through another record (it checks the fields of ``type(self)``). A subclass whose
    own ``__post_init__`` forgets ``super().__post_init__()`` is caught by the bad values below."""
    return issubclass(cls, CheckedRecord)


def bad_values(spec: Spec) -> list[tuple[object, type]]:
    """Values the declaration ``spec`` refuses, each with the error it must raise (a union's: its
    members' values that no other member takes)."""
    if spec.kind == "union":
        return [(value, error) for member in spec.members for value, error in bad_values(member)
                if not any(takes(other, value) for other in spec.members if other is not member)]
    wrong_kind = {"int": [True, "3", 2.5, None.__class__], "float": ["0.5", True, [0.5]],
                  "bool": ["False", 1, "yes"], "choice": [],
                  "tensor": [[0.5, 0.5], "pixels"], "array": [[0.5, 0.5], "pixels"],
                  "numbers": ["pixels", [0.5, "a"]], "record": ["pixels", 3],
                  "examples": ["pixels", 3, (0.5, 0.5)],
                  "function": [None, "my_squash", torch.ones(2)],
                  "device": [3, [0]],
                  "tuple": [[1], "12"], "sequence": ["12", 3], "list": ["12", 3],
                  "dict": ["12", 3]}[spec.kind]
    cases = [(v, TypeError) for v in wrong_kind if v is not type(None)]
    if spec.kind == "float":
        cases += [(math.nan, ValueError), (math.inf, ValueError)]
    if spec.kind == "choice":
        cases += [("no such " + spec.choices[0], ValueError), (3, ValueError)]
    if spec.kind in ("int", "float"):
        step = 1 if spec.kind == "int" else 0.5
        if spec.low is not None:
            cases += [(spec.low - step, ValueError)]
        if spec.high is not None:
            cases += [(spec.high + step, ValueError)]
    return cases


def takes(spec: Spec, value) -> bool:
    """Whether a member of a union takes ``value``'s kind (a float takes the int 3, not 2.5)."""
    kinds = {"int": int, "float": (int, float), "bool": bool, "choice": str}
    return isinstance(value, kinds.get(spec.kind, ())) and not isinstance(value, bool) \
        and not (spec.kind == "float" and isinstance(value, float) and not math.isfinite(value))


def is_checker(qualname: str) -> bool:
    """An exercise checker (``check`` and every ``check_*`` of capsedu.exercises), which never
    raises (see capsedu/exercises/checking.py)."""
    module, name = qualname.rsplit(".", 1)
    return module.startswith("capsedu.exercises") and name.startswith("check")


def a_key(entry, parameter: str):
    """A key the dict ``parameter`` of ``entry`` takes, to hold a bad value: the first choice of
    a dict keyed by a declared ``Choice`` (a kind of image, a part), else "a"."""
    fn = vars(entry).get("__init__", entry) if inspect.isclass(entry) else entry
    hint = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)[parameter]
    while typing.get_origin(hint) is not dict:
        if typing.get_origin(hint) is typing.Annotated:
            hint = typing.get_args(hint)[0]
        else:  # X | None: the dict of the union
            hint = next(m for m in typing.get_args(hint) if typing.get_origin(m) in (
                dict, typing.Annotated, typing.Union, types.UnionType))
    key = typing.get_args(hint)[0]
    spec = next((m for m in getattr(key, "__metadata__", ()) if isinstance(m, Spec)), None)
    return spec.choices[0] if spec is not None and spec.choices else "a"


# a dict's declared values ("name{}") are tried inside a dict: {"a": the bad value}, under a key
# it takes
CASES = [(qualname, parameter.removesuffix("{}"),
          {a_key(entry, parameter.removesuffix("{}")): value} if parameter.endswith("{}")
          else value, error)
         for qualname, (entry, specs) in entries().items()
         for parameter, spec in specs.items() if not parameter.endswith("[]")
         for value, error in bad_values(spec)
         if not (value is None and takes_none(entry, parameter.removesuffix("{}")))]


def public_functions(module) -> dict:
    """The public functions ``module`` defines that take parameters, by name."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and inspect.isfunction(value)
            and value.__module__ == module.__name__ and inspect.signature(value).parameters}


def public_classes(module) -> dict:
    """The public classes ``module`` defines whose own constructor takes parameters (a widget, a
    model), by name; records (dataclasses, NamedTuples) declare their fields for CheckedRecord."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and inspect.isclass(value)
            and value.__module__ == module.__name__ and "__init__" in vars(value)
            and not dataclasses.is_dataclass(value) and not issubclass(value, tuple)
            and len(inspect.signature(vars(value)["__init__"]).parameters) > 1}


def test_the_boundary_covers_the_entries_it_should():
    names = {qualname.rsplit(".", 1)[0] for qualname in entries()}
    for module in ENFORCED:  # those that take any parameter (environment.report takes none)
        if public_functions(importlib.import_module(f"capsedu.{module}")):
            assert f"capsedu.{module}" in names
    assert len(CASES) > 100  # the property below runs over many entries and values


def test_every_checker_declares_the_learners_function():
    from capsedu import exercises

    checkers = {q: specs for q, (_, specs) in entries_by_name.items() if is_checker(q)}
    assert {q.rsplit(".", 1)[1] for q in checkers} == set(exercises.__all__)
    assert all(specs["learner"].kind == "function" for specs in checkers.values()), checkers


@pytest.mark.parametrize("module_name", ENFORCED)
def test_every_public_entry_of_an_enforced_module_is_checked(module_name):
    module = importlib.import_module(f"capsedu.{module_name}")
    checked = entries()
    unchecked = [name for name in {**public_functions(module), **public_classes(module)}
                 if f"{module.__name__}.{name}" not in checked]
    assert not unchecked, f"capsedu.{module_name}: public functions or classes without " \
                          f"declarations: {unchecked}"


def undeclared(module) -> list[str]:
    """The parameters of ``module``'s public entries that no annotation declares, as
    ``"entry(parameter)"``. ``*args`` and ``**kwargs`` are passed on whole to what checks them (a
    checked record's fields, tqdm's or matplotlib's options): a test cannot pass them by name."""
    found = []
    for name, entry in {**public_functions(module), **public_classes(module)}.items():
        fn = vars(entry)["__init__"] if inspect.isclass(entry) else entry
        found += [f"{name}({p.name})"
                  for p in inspect.signature(inspect.unwrap(fn)).parameters.values()
                  if p.name not in ("self", "cls") and p.annotation is p.empty
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return found


@pytest.mark.parametrize("module_name", ENFORCED)
def test_every_parameter_of_an_enforced_entry_is_declared(module_name):
    offenders = undeclared(importlib.import_module(f"capsedu.{module_name}"))
    assert not offenders, f"capsedu.{module_name}: parameters checked by hand, if at all, not " \
        f"declared: {offenders}; declare each (capsedu.validate)"


# parameters that take a bare dict or list on purpose: what is inside is checked item by item by
# the entry itself, each item named (a file's JSON as it holds it, a history of records)
LOOSE = {
    "checkpoints.check_row(entry)": "a manifest row as the file holds it: each key checked, named",
    "json_records.from_row(row)": "a results file's row as JSON holds it: misfit names each key",
    "json_records.misfit(row)": "the same row: it is what names each key that does not fit",
    "run_state.check_same_run(saved)": "two runs' settings, compared key by key, each named",
    "run_state.check_same_run(now)": "two runs' settings, compared key by key, each named",
    "run_state.read_state(made_with)": "this run's settings: check_same_run names each key",
    "run_state.check_weights(weights)": "a state_dict: each name and shape checked, named",
    "convergence.held_out_scores(history)": "fit's history of Epochs: _history checks each",
    "convergence.chosen_epoch(history)": "fit's history of Epochs: _history checks each",
}


def bare_containers(module) -> list[str]:
    """The parameters of ``module``'s checked entries annotated with a bare ``dict``, ``list`` or
    ``tuple`` (or one ``| None``): anything inside passes, so a wrong item fails deep inside."""
    bare = (dict, list, tuple, dict | None, list | None, tuple | None)
    found = []
    for name, entry in {**public_functions(module), **public_classes(module)}.items():
        fn = vars(entry)["__init__"] if inspect.isclass(entry) else entry
        if not hasattr(fn, "declared"):  # not an entry @checked enforces
            continue
        hints = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)
        found += [f"{module.__name__.removeprefix('capsedu.')}.{name}({p})"
                  for p, hint in hints.items() if p != "return" and hint in bare]
    return found


def test_no_parameter_takes_a_bare_dict_or_list_unless_it_says_why():
    found = [entry for module in modules() for entry in bare_containers(module)]
    assert sorted(set(found) - set(LOOSE)) == [], "declare what goes inside (dict[str, X], " \
        "list[X], validate's Numbers ...), or add the parameter to LOOSE with the reason"
    assert set(LOOSE) <= set(found), f"LOOSE names parameters since declared: " \
        f"{set(LOOSE) - set(found)}"


def test_an_undeclared_parameter_is_named():
    import types

    from capsedu.validate import Int, checked

    @checked
    def count(n: Int("a count", ge=1), values, *cells, **options):
        return n

    class Shown:
        def __init__(self, model, size: Int("a side", ge=1) = 3):
            self.model = model

    module = types.ModuleType("capsedu.probe")
    for entry in (count, Shown):
        entry.__module__ = module.__name__
        setattr(module, entry.__name__, entry)
    assert undeclared(module) == ["count(values)", "Shown(model)"]


@pytest.mark.parametrize("qualname, parameter, value, error", CASES,
                         ids=[f"{q.removeprefix('capsedu.')}-{p}-{v!r}" for q, p, v, _ in CASES])
def test_a_bad_value_is_refused_naming_the_parameter(qualname, parameter, value, error, tmp_path,
                                                     monkeypatch, capsys):
    entry, _ = entries_by_name[qualname]
    if is_method(entry):  # called on an instance of its class, made before the clock starts
        entry = getattr(an_instance(owner(qualname.rsplit(".", 1)[0])), entry.__name__)
    elif dataclasses.is_dataclass(entry):  # a record: a valid one, one field replaced
        entry = functools.partial(dataclasses.replace, a_valid_record(entry))
    elif is_named_tuple(entry):  # made anew, one field given otherwise (_replace checks nothing)
        entry = functools.partial(entry, **a_valid_record(entry)._asdict())
    monkeypatch.chdir(tmp_path)
    began = time.perf_counter()
    if is_checker(qualname):  # one FAIL line (expected, what came, what to do), and no raise
        assert entry(**{parameter: value}) is False
        message = capsys.readouterr().out
        assert re.fullmatch(rf"\w+\(\): FAIL - {parameter} must be .+, got .+; .+\n", message), \
            message
    else:
        with pytest.raises(error) as refusal:
            entry(**{parameter: value})
        message = str(refusal.value)
    assert f"{parameter}" in message and "must be" in message and repr(value)[:20] in message \
        or "got" in message, message
    # refused before any work (a record's first refusal builds its pydantic model, which a loaded
    # machine can take a second over; the work it stands in front of takes far longer)
    assert time.perf_counter() - began < 5.0
    assert not any(tmp_path.iterdir())  # nothing written


entries_by_name = entries()
# an instance of each class with checked methods that an_instance cannot derive from its
# constructor's declarations (a matplotlib axes)
INSTANCES = {
    "capsedu.widgets.verdicts.VerdictBars": lambda: _module("widgets.verdicts").VerdictBars(
        Figure().add_subplot(), ["m"], "x", "t"),
}
# a valid instance of each checked record that a_valid_record cannot derive from its declarations:
# one holding a field no declaration says how to make (a hash, a model maker), or one whose
# derived fields break a rule across them
EXAMPLES = {"capsedu.recipes.Recipe": lambda: importlib.import_module("capsedu.recipes").RECIPES[
    "capsnet-mnist-live"],
    "capsedu.manifest_rows.ManifestRow": lambda: importlib.import_module(
        "capsedu.manifest_rows").ManifestRow(name="x", file="x.pt", sha256="0" * 64,
                                             arch="CapsNet"),
    "capsedu.bug_catalogue.Bug": lambda: next(iter(importlib.import_module(
        "capsedu.bug_catalogue").BUGS.values())),
    "capsedu.statistics.Accuracy": lambda: _module("statistics").accuracy(
        torch.tensor([True, False])),  # value k/n and its Wilson interval
    "capsedu.seed_runs.SeedRun": lambda: _module("seed_runs").SeedRun(
        recipe="affnist-capsnet", seed=0, gpu=None, readings={}, test_accuracy=0.9,
        train_time_s=1.0, row=_module("manifest_rows").ManifestRow(
            name="affnist-capsnet", file="affnist-capsnet.pt", sha256="0" * 64, arch="CapsNet")),
    "capsedu.manifest_rows.Sitting": lambda: importlib.import_module(
        "capsedu.manifest_rows").Sitting(command="x", sha256="0" * 64, epochs=2, kept_epoch=1),
    # fooled and caught must be booleans, every digit caught also fooled
    "capsedu.reconstruction_detector.Detection": lambda: importlib.import_module(
        "capsedu.reconstruction_detector").Detection(
        model="m", attack="pgd", eps=0.1, weight=0.0, threshold=1.0,
        fooled=torch.tensor([True, False]), caught=torch.tensor([True, False]), false_alarms=0.1),
    # scales that are not 0 (a map that squashes the digit to a line is no map random_affine draws)
    "capsedu.data.affine_params.AffineParams": lambda: importlib.import_module(
        "capsedu.data.affine_params").AffineParams(*[torch.zeros(1)] * 2, *[torch.ones(1)] * 2,
                                                   *[torch.zeros(1)] * 2),
    # a function, and inputs a gradient reaches
    "capsedu.routing_costs.Pass": lambda: importlib.import_module("capsedu.routing_costs").Pass(
        forward=lambda: torch.zeros(1), inputs=[torch.zeros(1, requires_grad=True)]),
    # two cells that differ in one setting
    "capsedu.ablations.OneChange": lambda: importlib.import_module("capsedu.ablations").OneChange(
        changed=importlib.import_module("capsedu.recipes").Cell(3, 0.0005),
        base=importlib.import_module("capsedu.recipes").Cell(1, 0.0005),
        difference=a_valid_record(importlib.import_module("capsedu.statistics").SeedDifference)),
    # a NamedTuple checked in its own __new__
    "capsedu.recipes.Cell": lambda: importlib.import_module("capsedu.recipes").Cell(1, 0.0005),
    # fields derived from others as their functions derive them (derived.check_derived)
    "capsedu.statistics.Paired": lambda: _module("statistics").paired(
        torch.tensor([True, False]), torch.tensor([False, False])),
    "capsedu.statistics.SeedDifference": lambda: _module("statistics").seed_difference(
        [0.9, 0.91, 0.92], [0.8, 0.81, 0.83], by_seed=True),
    "capsedu.bug_zoo.ZooRun": lambda: _module("bug_zoo").read_results()["correct"],
    "capsedu.adversarial_units.Stamp": lambda: _module("adversarial_units").Stamp(
        "2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00", 60.0, "cpu", 1, "x"),
    "capsedu.adversarial_record.RunInfo": lambda: _module("adversarial_record").how_run(
        _module("adversarial_record").read_results()),
    "capsedu.adversarial_units.Trained": lambda: importlib.import_module(
        "capsedu.adversarial_units").Trained(sha256="0" * 64, status=(
            "epoch 2 of 5 kept (99.00 % held out): converged, no held-out gain in the 3 epochs "
            "after it"), finished=True),
    # the states the widgets show, and what they are made of: arrays whose rows, lengths and
    # keys agree (one row per part, per iteration, per child), as their functions make them
    "capsedu.widgets.check.ArrowState": lambda: _module("widgets.check").arrow_state(30.0),
    "capsedu.widgets.capsule.PoseVectorState": lambda: _module(
        "widgets.capsule").pose_vector_state("nose", 30.0, 0.8),
    "capsedu.widgets.capsule.SquashState": lambda: _module("widgets.capsule").squash_state(1.5),
    "capsedu.parts.voting.PartRouting": lambda: _module("parts.voting").route_parts(
        _module("data.faces").face_parts()),
    "capsedu.widgets.routing.RoutingState": lambda: _module("widgets.routing").routing_state(
        _module("data.faces").face_parts()),
    "capsedu.widgets.panels.RoutingView": lambda: _module("widgets.panels").RoutingView(**{
        name: value for name, value in vars(a_valid_record(entries_by_name[
            "capsedu.widgets.routing.RoutingState"][0])).items() if name != "face_pose"}),
    "capsedu.widgets.face_capsules.FaceState": lambda: _module("widgets.face_capsules").FaceState(
        **vars(a_valid_record(entries_by_name["capsedu.widgets.panels.RoutingView"][0])),
        presence=dict.fromkeys(_module("data.faces").PART_KINDS, 0.9),
        poses={kind: (0.5, 0.5, 0.0, 1.0) for kind in _module("data.faces").PART_KINDS},
        face_probability={"m": 0.8}, threshold={"m": 0.5}, called_face={"m": True}),
    "capsedu.widgets.verdicts.VerdictsState": lambda: _module("widgets.verdicts").VerdictsState(
        parts=_module("data.faces").face_parts(), image=np.zeros((32, 32)),
        face_probability={"m": 0.8}, threshold={"m": 0.5}, called_face={"m": True}),
    "capsedu.parts.scoring.SeedRuns": lambda: _module("parts.scoring").SeedRuns(
        name="m", seeds=[0, 1], models=[], rates={"face": [0.9, 0.8]}),
    "capsedu.parts.pose_net.RotationSweep": lambda: _module("parts.pose_net").RotationSweep(
        angles=np.array([0.0, 45.0]), part_angles=np.zeros((2, 4)), face_angle=np.zeros(2),
        face_length=np.zeros(2), images=np.zeros((2, 8, 8)),
        part_error=np.array([[0.0] * 4, [45.0] * 4]), face_error=np.array([0.0, 45.0])),
    "capsedu.bug_zoo_report.ZooState": lambda: _zoo_state(),
    # fields of one digit, two angles and two dimensions, their shapes agreeing
    "capsedu.capsule_angles.CapsuleUnderRotation": lambda: _module(
        "capsule_angles").CapsuleUnderRotation(
        v=np.zeros((1, 2, 2)), length=np.zeros((1, 2)), predictions=np.zeros((1, 2), int),
        right=np.ones((1, 2), bool), cosine=np.ones((1, 2)), dimension_share=np.zeros((1, 2)),
        principal_share=np.zeros((1, 2)), radial_share=np.zeros(1)),
    "capsedu.equivariance.RotationErrors": lambda: _module("equivariance").RotationErrors(
        turns=[1], features=np.zeros((2, 1)), logits=np.zeros(1)),
    # the accuracy the rows read wrong leave, a sha256
    "capsedu.full_sets.Reading": lambda: _module("full_sets").Reading(
        n=2, accuracy=0.5, wrong=(1,)),
    "capsedu.full_sets.FullSetReading": lambda: _module("full_sets").FullSetReading(
        test_set="translated", checkpoint="x", iterations=None, sha256="0" * 64, n=2,
        accuracy=0.5, wrong=(1,), seconds=1.0, threads=1, torch_version="x"),
    # a record type (a function)
    "capsedu.results_kinds.Kind": lambda: _module("results_kinds").kind(
        "capsedu.seed_runs"),
    # the shipped records (their runs are records no declaration makes)
    "capsedu.seed_table.Records": lambda: _module("seed_table").read_records(),
    # told apart and chance at most the comparisons made
    "capsedu.seed_table.RoutingComparisons": lambda: _module("seed_table").RoutingComparisons(
        one=a_valid_record(_module("statistics").OverSeeds),
        three=a_valid_record(_module("statistics").OverSeeds),
        by_weight={}, crossed=1, compared=2, chance=0.1),
    "capsedu.seed_table.BugComparisons": lambda: _module("seed_table").BugComparisons(
        effects={}, hidden=[], correct_accuracy=0.99, epochs=1, finished=True),
    # round thirteen's rules across fields: a half_width of t x sd / sqrt(n); probabilities that
    # are a softmax and drawings of the image's shape; a slope over 3 epochs or more; rates of the
    # neuron's own current
    "capsedu.statistics.OverSeeds": lambda: _module("statistics").over_seeds([0.8, 0.9]),
    "capsedu.adversarial.AttackState": lambda: _module("adversarial").AttackState(
        label=1, attack="pgd", eps=0.1, against="capsnet", image=np.zeros((40, 40)),
        adversarial=np.zeros((40, 40)), capsnet_prediction=1, cnn_prediction=1,
        lengths=np.zeros(10), probabilities=np.full(10, 0.1), reconstruction=np.zeros((40, 40)),
        distance=1.0, threshold=2.0),
    "capsedu.viewpoint_states.ViewpointState": lambda: _module("viewpoint_states").ViewpointState(
        image=np.zeros((40, 40)), lengths=np.full(10, 0.1), capsnet_prediction=1,
        reconstruction=np.zeros((40, 40)), probabilities=np.full(10, 0.1), cnn_prediction=1,
        rotation=0.0, shear=0.0, scale=1.0, dx=0.0, dy=0.0),
    "capsedu.convergence.Trend": lambda: _module("convergence").Trend(slope=0.5, p_value=0.01,
                                                                      epochs=5),
    "capsedu.widgets.spiking.NeuronState": lambda: _module("widgets.spiking").neuron_state(
        1.5, 20.0, 0.6),
    # round thirty: summaries over seeds of the seeds held (statistics.check_summary), and
    # differences of the accuracies held (statistics.check_difference)
    "capsedu.patch_order.Score": lambda: _score(),
    "capsedu.patch_order.Comparison": lambda: _comparison(),
    "capsedu.patch_order.Shuffles": lambda: _module("patch_order").Shuffles(
        seeds=(0, 1), n=2, shuffles=(_score(),), comparisons=(_comparison(),)),
    "capsedu.patch_order.PatchOrder": lambda: _module("patch_order").PatchOrder(
        seeds=(0, 1), n=2, shuffles=(_score(),), comparisons=(_comparison(),),
        rates=(_score("face"),)),
    "capsedu.robustness.SeedVerdict": lambda: _module("robustness").seed_verdict(
        {seed: {"a": torch.tensor([True, seed > 0, seed > 1]), "b": torch.tensor([True] * 3)}
         for seed in range(3)}, "a", "b", by_seed=True),
    # accuracies the rows read right give; comparisons of the digits attacked (11's record)
    "capsedu.seed_table.Measured": lambda: _module("seed_table").Measured(
        n_table=1, face_rates={}, affine_right={"affnist-cnn": torch.tensor([True, False])},
        affine={"affnist-cnn": 0.5}, seconds_per_1000={}, macs={"Conv1": 1}, total=1),
    "capsedu.seed_table.AdversarialComparisons": lambda: _adversarial_comparisons()}


@functools.cache
def _adversarial_comparisons():
    """11's comparisons at eps 0.1, from the shipped record (read once)."""
    return _module("seed_table").adversarial_comparisons(
        _module("adversarial_record").read_results(), 0.1)


def _score(condition=2):
    """A Score of two seeds, summed up by over_seeds of them."""
    return _module("patch_order").Score("m", condition, (0.8, 0.9),
                                        _module("statistics").over_seeds([0.8, 0.9]))


def _comparison():
    """A Comparison of two seeds on two images: a difference over the seeds of their means."""
    statistics = _module("statistics")
    yes, no = torch.tensor([True, True]), torch.tensor([False, False])
    return _module("patch_order").Comparison(
        "face", "m", "n", statistics.seed_difference([1.0, 1.0], [0.0, 0.5], by_seed=False),
        (statistics.paired(yes, no), statistics.paired(yes, torch.tensor([True, False]))))


def _module(name: str):
    return importlib.import_module(f"capsedu.{name}")


def _zoo_state():
    """A ZooState of random votes [2 digits, 8 children, 3 classes, 4]: rows, columns agree."""
    torch.manual_seed(0)
    return _module("bug_zoo_report").zoo_state(torch.randn(2, 8, 3, 4), torch.tensor([0, 2]),
                                               index=1, iterations=2, shown=4)


def a_valid_value(hint):
    """A value the annotation ``hint`` takes, derived from its declaration (``Spec``): an Int's low
    bound (else 0), a Float inside its range (the middle of two bounds, one past a single bound,
    else 0), a Choice's first choice, False for a Flag, None for an optional, a tensor or an array
    of the declaration's smallest shape (``Spec.shape``) and numbers of one, its low bound or 0;
    one item in a tuple, a list or a dict; "x" for a string; a record as ``a_valid_record`` makes
    one. Raises LookupError for what no declaration says how to make (a function, a model)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        spec = next((m for m in hint.__metadata__ if isinstance(m, Spec)), None)
        if spec is None or spec.kind == "record":  # a record's class, or a check on a str, a list
            return a_valid_value(args[0])
        low, high = spec.low, spec.high
        made = {"int": lambda: low if low is not None else 0,
                "float": lambda: (low + high) / 2 if None not in (low, high) else low + 1
                if low is not None else high - 1 if high is not None else 0.0,
                "bool": lambda: False, "choice": lambda: spec.choices[0],
                "tensor": lambda: torch.full(spec.shape, 0.0 if low is None else float(low)),
                "array": lambda: np.zeros(spec.shape),
                "numbers": lambda: np.full(1, 0 if low is None else low)}
        if spec.kind not in made:
            raise LookupError(f"no value derived for a declaration of kind {spec.kind!r}")
        return made[spec.kind]()
    if origin in (typing.Union, types.UnionType):
        return None if type(None) in args else a_valid_value(args[0])
    if origin is tuple:
        return tuple(a_valid_value(a) for a in args[:1 if args[-1:] == (...,) else None])
    if origin is list:
        return [a_valid_value(args[0])]
    if origin is dict:
        return {a_valid_value(args[0]): a_valid_value(args[1])}
    if origin is typing.Literal:
        return args[0]
    if hint is str:
        return "x"
    if dataclasses.is_dataclass(hint) or f"{hint.__module__}.{hint.__qualname__}" in EXAMPLES:
        return a_valid_record(hint)
    raise LookupError(f"no value derived for {hint!r}: add the record to EXAMPLES")


@functools.cache
def a_valid_record(cls):
    """A valid instance of the checked record ``cls``: its EXAMPLES entry, else its declarations'
    ``a_valid_value`` for each field without a default (a default is kept)."""
    qualname = f"{cls.__module__}.{cls.__qualname__}"
    if qualname in EXAMPLES:
        return EXAMPLES[qualname]()
    hints = typing.get_type_hints(cls, include_extras=True)
    if is_named_tuple(cls):
        return cls(**{name: a_valid_value(hints[name]) for name in cls._fields
                      if name not in cls._field_defaults})
    return cls(**{f.name: a_valid_value(hints[f.name]) for f in dataclasses.fields(cls)
                  if f.init and f.default is dataclasses.MISSING
                  and f.default_factory is dataclasses.MISSING})


def test_every_checked_record_has_a_valid_example():
    failed = {}
    for qualname, (entry, _) in entries_by_name.items():
        if dataclasses.is_dataclass(entry) or is_named_tuple(entry):
            try:
                a_valid_record(entry)
            except (LookupError, TypeError, ValueError) as err:
                failed[qualname] = f"{type(err).__name__}: {err}"
    assert not failed, "no valid instance derived from the declarations: add each to EXAMPLES " \
        "(tests/test_boundary.py):\n" + "\n".join(f"{q}: {why}" for q, why in failed.items())


# public records that are not checked at construction, and why. A record that comes to check what
# it is made of (routing's, a CapsNetOutput, PoseCapsules, sprites' Part: NamedTuples made at every
# forward pass check by hand, checked_by_hand) leaves the list:
# test_records_unchecked_are_records_not_checked
RECORDS_UNCHECKED = {
    "loop.Run": "fit's own state between epochs, changed in place (history, best) and never built "
                "by hand: its parts are fit's checked arguments",
}


def records(module) -> dict:
    """The public record classes ``module`` defines (dataclasses and NamedTuples), by name."""
    return {name: value for name, value in vars(module).items()
            if not name.startswith("_") and inspect.isclass(value)
            and value.__module__ == module.__name__ and (dataclasses.is_dataclass(value) or
                                                         issubclass(value, tuple)
                                                         and hasattr(value, "_fields"))}


def declares(hint) -> bool:
    """Whether the annotation ``hint`` says what it takes, to its items: a declaration of
    ``capsedu.validate`` (a ``Spec``; ``Record``), a check of pydantic's (a sha256's), a string, a
    Literal, None, or a tuple, list, dict or union of those. A bare int, float, bool, tensor,
    array, list, dict or record class takes anything of its type, unranged (or rebuilt)."""
    from pydantic.functional_validators import AfterValidator, PlainValidator

    if typing.get_origin(hint) is typing.Annotated:
        return any(isinstance(m, Spec | AfterValidator | PlainValidator)
                   for m in hint.__metadata__) or declares(typing.get_args(hint)[0])
    if hint in (str, type(None)) or typing.get_origin(hint) is typing.Literal:
        return True
    args = [a for a in typing.get_args(hint) if a is not ...]
    return bool(args) and typing.get_origin(hint) in (tuple, list, dict, typing.Union,
                                                      types.UnionType) and all(map(declares, args))


def refuses_nonsense(cls) -> bool:
    """Whether making the record ``cls`` of a str in every field is refused: it checks what it is
    made of, by declaration or by hand."""
    n = len(cls._fields) if is_named_tuple(cls) else sum(f.init for f in dataclasses.fields(cls))
    try:
        cls(*["nonsense"] * n)
    except (TypeError, ValueError):
        return True
    return False


def checked_by_hand(cls) -> bool:
    """Whether the NamedTuple ``cls`` checks what it is made of in its own ``__new__`` by hand
    (routing's records, made at every iteration of every forward pass, where a checked entry would
    cost): made of nonsense, it refuses."""
    return is_named_tuple(cls) and "__new__" in vars(cls) and refuses_nonsense(cls)


def unchecked(cls) -> str | None:
    """What keeps the record class ``cls`` from checking its fields when made, or None: a
    dataclass by subclassing ``CheckedRecord``, a NamedTuple in a checked ``__new__`` (or one
    that checks by hand, ``checked_by_hand``)."""
    if checked_by_hand(cls):
        return None
    if not dataclasses.is_dataclass(cls) and not checked_named_tuple(cls):
        return "a NamedTuple (nothing runs when one is made: make it a frozen dataclass, or give " \
               "it a @checked __new__ as recipes.Cell)"
    if dataclasses.is_dataclass(cls) and not checks_its_fields(cls):
        return "it does not subclass validate.CheckedRecord"
    hints = typing.get_type_hints(cls, include_extras=True)
    names = cls._fields if is_named_tuple(cls) else [f.name for f in dataclasses.fields(cls)]
    loose = [name for name in names if not declares(hints[name])]
    return f"fields not declared: {loose}" if loose else None


def test_every_record_of_an_enforced_module_checks_its_fields():
    """Every public record (dataclass or NamedTuple) of an ENFORCED module declares every field
    (capsedu.validate) and checks them when made (it subclasses CheckedRecord), or is listed
    in RECORDS_UNCHECKED with the reason: a learner builds records by hand (to try a figure, a
    sentence, a checker), and an OverSeeds of sd -0.1 or a Trend of p-value 1.5 is never one."""
    offenders = {}
    for module_name in ENFORCED:
        for name, cls in records(importlib.import_module(f"capsedu.{module_name}")).items():
            why = unchecked(cls) if f"{module_name}.{name}" not in RECORDS_UNCHECKED else None
            if why:
                offenders[f"{module_name}.{name}"] = why
    assert not offenders, "declare these records' fields and subclass validate.CheckedRecord " \
        "(@dataclass(frozen=True) class X(CheckedRecord): ...), or list them in " \
        "RECORDS_UNCHECKED with the reason:\n" + "\n".join(
            f"{name}: {why}" for name, why in offenders.items())


def test_records_unchecked_are_records_not_checked():
    """Every record RECORDS_UNCHECKED lists is there, declares no check, and is made of nonsense
    without a word: one that came to check by hand leaves the list (it cannot go stale)."""
    for qualname in RECORDS_UNCHECKED:
        module, name = qualname.rsplit(".", 1)
        cls = records(importlib.import_module(f"capsedu.{module}")).get(name)
        assert cls is not None, f"{qualname}: gone; remove it from RECORDS_UNCHECKED"
        assert unchecked(cls) and not refuses_nonsense(cls), \
            f"{qualname}: checked when made now; remove it from RECORDS_UNCHECKED"


# public methods that are not checked, and why: a forward pass checks its input by hand at every
# pass, where @checked would check it again on the hot path, and names the model as it is called,
# model(x) (a model's own methods, predict, score, training_loss, are checked, and so are the
# records', the widgets' and the layers' votes and route); argparse's own protocol;
# nn.Module.train's
_FORWARD = "a model's forward pass: checks x by hand through checks.check_input at every pass " \
           "(the hot path), naming the model"
_LAYER = "a layer's forward pass, run inside its model's forward at every pass: checks x's shape " \
         "by hand (checks.check_shape), naming the layer as it is called, layer(x)"
METHODS_UNCHECKED = {
    "baselines.MaxPoolCNN.forward": _FORWARD,
    "capsnet.CapsNet.forward": _FORWARD,
    "parts.detector.PartDetector.forward": _FORWARD,
    "parts.pose_mlp.PartPoseMLP.forward": _FORWARD + " (against its detector's input)",
    "parts.pose_net.PoseCapsuleNet.forward": _FORWARD + " (against its detector's input)",
    "vit.VisionTransformer.forward": _FORWARD,
    "layers.PrimaryCapsules.forward": _LAYER,
    "layers.RoutingCapsules.forward": "a layer's forward pass: its votes and route are checked",
    "group_conv.LiftingConv.forward": _LAYER,
    "group_conv.GroupConv.forward": _LAYER,
    "parts.pose_mlp.PartPoseMLP.train": "nn.Module.train(mode), called by torch's own code with "
                                        "its own protocol (model.eval() calls train(False))",
    "course_parser.EachOnce.__call__": "argparse's Action protocol: argparse calls it, with its "
                                       "parser and namespace; the values are parsed by the "
                                       "option's type",
    "course_parser.CourseParser.parse_known_args": "argparse's protocol: parse_args calls it "
                                                   "with argparse's own arguments",
    "course_parser.CourseParser.error": "argparse's protocol: argparse calls it with its own "
                                        "message",
}


def method_offenders(module_name: str) -> dict[str, str]:
    """The public methods of ``module_name``'s public classes that are not checked with every
    parameter declared, by ``module.Class.method``, each with what is missing."""
    module = importlib.import_module(f"capsedu.{module_name}")
    found = {}
    for cls_name, cls in vars(module).items():
        if cls_name.startswith("_") or not inspect.isclass(cls) \
                or cls.__module__ != module.__name__:
            continue
        for name, fn in methods(cls).items():
            qualname = f"{module_name}.{cls_name}.{name}"
            if qualname in METHODS_UNCHECKED:
                continue
            parameters = list(inspect.signature(inspect.unwrap(fn)).parameters.values())[1:]
            hints = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)
            loose = [p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL,
                                                                  p.VAR_KEYWORD)
                     and (p.annotation is p.empty or hints[p.name] in (dict, list, tuple))]
            if not hasattr(fn, "declared"):
                found[qualname] = "not @checked"
            elif loose:
                found[qualname] = f"parameters not declared: {loose}"
    return found


@pytest.mark.parametrize("module_name", ENFORCED)
def test_every_public_method_of_an_enforced_module_is_checked(module_name):
    """Every public method (and ``__call__``) that takes parameters, of every public class of an
    ENFORCED module, is ``@checked`` with each parameter declared, so a refusal names
    "Class.method(): argument", or is listed in METHODS_UNCHECKED with the reason (issue 37)."""
    offenders = method_offenders(module_name)
    assert not offenders, "check these methods (@checked, each parameter declared), or list " \
        "them in METHODS_UNCHECKED with the reason:\n" + "\n".join(
            f"capsedu.{name}: {why}" for name, why in offenders.items())


def test_methods_unchecked_are_public_methods_not_checked():
    for qualname in METHODS_UNCHECKED:
        module, cls, name = qualname.rsplit(".", 2)
        fn = methods(vars(importlib.import_module(f"capsedu.{module}")).get(cls, object)).get(name)
        assert fn is not None and not hasattr(fn, "declared"), f"{qualname}: gone, or checked now"
        assert module in ENFORCED, f"{qualname}: its module is not enforced"


def test_the_structural_check_names_an_unchecked_method_and_an_undeclared_parameter(
        monkeypatch):
    from capsedu.validate import Int, checked

    class Probe:
        def read(self, x):
            return x

        @checked
        def count(self, n: Int("a count", ge=1), values: dict):
            return n

    module = types.ModuleType("capsedu.probe")
    Probe.__module__ = module.__name__
    module.Probe = Probe
    monkeypatch.setitem(sys.modules, "capsedu.probe", module)
    assert method_offenders("probe") == {"probe.Probe.read": "not @checked",
                                         "probe.Probe.count": "parameters not declared: "
                                                              "['values']"}


@functools.cache
def an_instance(cls):
    """An instance of ``cls`` to call its checked methods on: a record as ``a_valid_record``
    makes it, one of ``INSTANCES``, else ``cls`` made of a valid value (``a_valid_value``) for
    each parameter without a default (a model, a widget of its defaults)."""
    qualname = f"{cls.__module__}.{cls.__qualname__}"
    if dataclasses.is_dataclass(cls) or is_named_tuple(cls):
        return a_valid_record(cls)
    if qualname in INSTANCES:
        return INSTANCES[qualname]()
    init = inspect.unwrap(cls.__init__)
    hints = typing.get_type_hints(init, include_extras=True)
    return cls(**{p.name: a_valid_value(hints[p.name])
                  for p in inspect.signature(init).parameters.values()
                  if p.name != "self" and p.default is p.empty
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)})


def owner(qualname: str) -> type:
    """The class ``capsedu.module.Class``."""
    module, cls = qualname.rsplit(".", 1)
    return getattr(importlib.import_module(module), cls)


def test_every_class_with_checked_methods_is_built():
    """The bad-value property calls every checked method on an instance of its class: each is
    built (a record, a model or a widget of its defaults, or one of INSTANCES)."""
    classes = {q.rsplit(".", 1)[0] for q, (entry, _) in entries_by_name.items()
               if is_method(entry)}
    failed = {}
    for qualname in sorted(classes):
        try:
            an_instance(owner(qualname))
        except (LookupError, TypeError, ValueError) as err:
            failed[qualname] = f"{type(err).__name__}: {err}"
    assert not failed, "no instance to call the checked methods on: add each to INSTANCES " \
        "(tests/test_boundary.py):\n" + "\n".join(f"{q}: {why}" for q, why in failed.items())


def test_a_tensor_parameter_takes_numpy_through_the_same_checks():
    from capsedu import squash

    v = squash(np.ones((2, 3), dtype=np.float32))
    assert isinstance(v, torch.Tensor) and v.shape == (2, 3)
    with pytest.raises(TypeError, match=r"squash\(\): s must be a floating-point tensor"):
        squash(np.ones((2, 3), dtype=np.uint8))


def test_an_error_inside_the_function_is_not_dressed_as_a_bad_argument():
    from capsedu.capsnet import CapsNetConfig

    with pytest.raises(ValueError, match="leaves no primary capsule"):
        CapsNetConfig(conv_kernel=40)  # every field is in range; together they make no network


# records with fields that must agree, each made inconsistent: (record, fields changed, the fields
# the refusal must name)
CROSS_FIELDS = [
    ("capsedu.manifest_rows.Sitting", {"epochs": 2, "kept_epoch": 5}, ("kept_epoch", "epochs")),
    ("capsedu.statistics.Accuracy", {"value": 0.9, "low": 0.5, "high": 0.6}, ("value", "high")),
    ("capsedu.statistics.Paired", {"difference": 0.0, "low": 0.1, "high": 0.2},
     ("low", "difference")),
    ("capsedu.statistics.Paired", {"only_a": 3, "only_b": 3, "n": 5}, ("only_a", "n")),
    ("capsedu.statistics.SeedDifference", {"low": 0.2, "high": 0.1}, ("low", "high")),
    ("capsedu.spiking.SpikeReadout", {"windows_ms": (10.0, 20.0), "agreement": (0.5,)},
     ("windows_ms", "agreement")),
    ("capsedu.spiking.Trace", {"v": torch.zeros(2, 3)}, ("v", "spikes")),
    ("capsedu.reconstruction_detector.Detection", {"caught": torch.tensor([True])},
     ("fooled", "caught")),
    ("capsedu.routing_costs.RoutingCost", {"size": 7}, ("size", "n_in")),
    ("capsedu.data.affine_params.AffineParams", {"ty": torch.zeros(2)}, ("ty", "rotation")),
    ("capsedu.widgets.check.ArrowState", {"x": 1.0, "y": 0.0}, ("x", "y", "angle")),
    ("capsedu.widgets.capsule.SquashState", {"norm_v": 0.1}, ("norm_v", "v")),
    ("capsedu.parts.voting.PartRouting", {"lengths": np.zeros((1, 2))}, ("c", "lengths")),
    ("capsedu.widgets.routing.RoutingState", {"c_face": {"nose": 0.5}}, ("c_face", "found")),
    ("capsedu.widgets.verdicts.VerdictsState", {"called_face": {"m": False}},
     ("called_face", "face_probability", "threshold")),
    ("capsedu.parts.scoring.SeedRuns", {"rates": {"face": [0.9]}}, ("rates['face']", "seeds")),
    ("capsedu.parts.training.Refitted", {"thresholds": [0.5, 0.6]}, ("rates", "thresholds")),
    ("capsedu.parts.pose_net.RotationSweep", {"face_angle": np.zeros(3)}, ("face_angle",
                                                                            "angles")),
    ("capsedu.bug_zoo_report.ZooState", {"index": 2}, ("index", "n_digits")),
    ("capsedu.bug_zoo_report.ZooState", {"lengths": np.zeros(4)}, ("lengths", "c")),
    ("capsedu.manifest_rows.Metrics", {"epochs": 3, "chosen_epoch": 5},
     ("chosen_epoch", "epochs")),
    ("capsedu.manifest_rows.Metrics", {"epochs": 2, "validation_by_epoch": (0.9,)},
     ("validation_by_epoch", "epochs")),
    ("capsedu.manifest_rows.ManifestRow", {"file": "y.pt"}, ("file", "name")),
    ("capsedu.manifest_rows.ManifestRow", {"metrics": _module("manifest_rows").Metrics(epochs=2),
                                           "sittings": (_module("manifest_rows").Sitting(
                                               "x", "0" * 64, 5, 4),)},
     ("sittings[0].kept_epoch", "metrics.epochs")),
    ("capsedu.statistics.Accuracy", {"value": 0.55, "low": 0.2, "high": 0.8}, ("value", "n=2")),
    ("capsedu.statistics.Accuracy", {"low": 0.5, "high": 0.5}, ("low", "high", "Wilson")),
    ("capsedu.loop.Epoch", {"loss": 0.5, "batch_loss": (1.0, 2.0)}, ("loss", "batch_loss")),
    ("capsedu.recipes.Recipe", {"validation": 60_000}, ("validation", "60,000")),
    ("capsedu.ablations.AblationRun", {"limit": 100, "train_examples": 200},
     ("train_examples", "limit")),
    ("capsedu.bug_zoo.ZooRun", {"limit": 100, "train_examples": 100, "validation_examples": 10},
     ("train_examples + validation_examples", "limit")),
    ("capsedu.bug_zoo.ZooRun", {"n_test": 5, "test_wrong": (7,)}, ("test_wrong", "n_test")),
    ("capsedu.seed_runs.SeedRun", {"row": _module("manifest_rows").ManifestRow(
        name="affnist-capsnet", file="affnist-capsnet.pt", sha256="0" * 64, arch="MaxPoolCNN")},
     ("row.arch", "affnist-capsnet")),
    ("capsedu.adversarial_units.Trained", {"status": "half"}, ("status",)),
    ("capsedu.adversarial_units.Trained", {"status": (
        "epoch 5 of 5 kept (99.00 % held out): STILL IMPROVING, its best epoch lies within the "
        "last 3; a longer run could change a verdict that rests on it"), "finished": True},
     ("finished", "status")),
    ("capsedu.full_sets.Reading", {"accuracy": 0.9}, ("accuracy", "wrong")),
    ("capsedu.full_sets.Reading", {"wrong": (5,)}, ("wrong", "n=")),
    ("capsedu.robustness.Sweep", {"values": (1.0, 2.0)}, ("values", "accuracy")),
    ("capsedu.robustness.SeedVerdict", {"seeds": (0, 1)}, ("seeds", "first_accuracy")),
    ("capsedu.seed_table.Measured", {"total": 5}, ("total", "macs")),
    ("capsedu.seed_table.RoutingComparisons", {"crossed": 3}, ("crossed", "compared")),
    ("capsedu.seed_table.AdversarialComparisons", {"eps": 0.6, "largest_eps": 0.5},
     ("eps", "largest_eps")),
    ("capsedu.digit_capsules.PoseState", {"prediction": 3}, ("prediction", "lengths")),
    ("capsedu.equivariance.RotationState", {"quarter_turns": 1}, ("quarter_turns", "_error")),
    ("capsedu.capsule_angles.CapsuleUnderRotation", {"radial_share": np.zeros(2)},
     ("radial_share", "v")),
]


@pytest.mark.parametrize("qualname, changes, named", CROSS_FIELDS,
                         ids=[f"{q.rsplit('.', 1)[1]}-{'-'.join(c)}" for q, c, _ in CROSS_FIELDS])
def test_fields_that_must_agree_are_refused_naming_each(qualname, changes, named):
    """Round ten: a Sitting that kept epoch 5 of 2 was accepted. A record whose fields are each in
    range but disagree (an interval that misses its value, lengths or shapes that differ) is
    refused, naming the record and the fields."""
    entry, _ = entries_by_name[qualname]
    with pytest.raises(ValueError) as refusal:
        dataclasses.replace(a_valid_record(entry), **changes)
    message = str(refusal.value)
    assert message.startswith(f"{entry.__name__}(): ") and all(n in message for n in named), \
        message

"""What each experiment's results file holds, and how a file of another experiment is recognised:
the one reader of a results file's runs as records (``records``, which
``checkpoints.read_results``, and so every experiment's ``read_results``, calls).

A results file is ``{"runs": {name: row}}`` (``checkpoints.add_result``): it carries no word on
which experiment wrote it, and the shipped ones stay as they are. Its rows say it: each is the
record its experiment wrote (``json_records.json_row``). So a file whose rows are not rows of the
record a reader asks for is refused before any is read, naming the path, the experiment whose
records its rows are (``results_kind``: each of ``KINDS`` tried in turn) and the file and the
command that make the right one.

``KINDS`` names each experiment's module and its record as data, as ``manifest_rows.ARCHS`` names a
model's class: a module is imported only to name another experiment's file when one is refused
(the reader's own module is imported already); its ``RESULTS`` and ``COMMAND`` give the file and
the command.
"""

import difflib
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import course_settings
from .json_records import RecordType, from_row, misfit
from .shipped_folders import read_json, restore_advice
from .validate import CheckedRecord, Flag, checked

# an experiment's module -> what its results file holds, and the name of its record in that module
# (a type, or a function of a run's name giving the type, for a file of several kinds of runs)
KINDS = {
    "capsedu.ablations": ("09's routing ablation", "AblationRun"),
    "capsedu.bug_zoo": ("09's bug zoo", "ZooRun"),
    "capsedu.seed_runs": ("08's affNIST recipes trained from other seeds", "SeedRun"),
    "capsedu.parts.curves": ("the face models' held-out curves (07)", "FaceCurve"),
    "capsedu.full_sets": ("Part IV's full test sets read by the shipped models", "FullSetReading"),
    "capsedu.adversarial_record": ("11's adversarial run", "unit_type"),
}


@dataclass(frozen=True)
class Kind(CheckedRecord):
    """An experiment's results file: what it holds, its file and the command that writes it, and
    its record (a type, or a function of a run's name giving the type)."""
    what: course_settings.Text
    file: course_settings.Text
    command: course_settings.Text
    record: RecordType


@checked
def kind(module: str) -> Kind | None:
    """The results file of the experiment ``module`` (one of ``KINDS``; None for another)."""
    if module not in KINDS:
        return None
    what, record = KINDS[module]
    found = importlib.import_module(module)
    return Kind(what, found.RESULTS, found.COMMAND, getattr(found, record))


def _misfit(record: type | Callable[[str], type], name: str, row: Any) -> str | None:
    """Why ``row``, the run ``name``, is no row of ``record`` in words; None when it is one."""
    if not isinstance(row, dict):
        return f"is {type(row).__name__}, not a row of fields"
    if not isinstance(record, type):
        try:
            record = record(name)
        except (TypeError, ValueError):  # a unit no run of that kind has
            return "has a name no run of that kind has"
    return misfit(record, row)


@checked
def results_kind(rows: dict[str, Any]) -> Kind | None:
    """The experiment of ``KINDS`` whose records all of ``rows`` (a results file's runs by name)
    are; None when no experiment's are (or there are no rows). A whole results file (``{"runs":
    {...}}``) is refused: its runs are ``rows``."""
    if set(rows) == {"runs"} and isinstance(rows["runs"], dict):
        raise ValueError("results_kind(): rows must be a results file's runs by name, got the "
                         "whole file (its one key 'runs'); pass json.loads(text)['runs']")
    for module in KINDS:
        found = kind(module)
        if rows and all(_misfit(found.record, name, row) is None for name, row in rows.items()):
            return found
    return None


def _other_file(path: Path, rows: dict, record: Any, name: str, words: str) -> ValueError:
    """The refusal of ``path``, whose run ``name`` is no row of ``record`` (``words`` say why)."""
    wanted = kind(record.__module__)
    found = results_kind(rows)
    own = getattr(record, "__name__", "its")
    asked = (f"{wanted.what} ({wanted.file}, written by {wanted.command})" if wanted else
             f"{own} records")
    got = (f"a results file of {found.what} ({found.file}, written by {found.command})"
           if found else "a file of other runs")
    fix = (f"pass the file {wanted.command} writes (read_results() with no path reads the "
           f"shipped {wanted.file})" if wanted else "pass a file of such records")
    return ValueError(f"read_results(): path {path} must be a results file of {asked}, got "
                      f"{got}: its run {name!r} {words}; {fix}")


@checked
def read_rows(path: str | Path, where: str,
              missing_ok: Flag("whether a file not there yet reads as no runs")) -> dict[str, dict]:
    """The rows of the results file ``path`` by name, as JSON holds them: none when it does not
    exist and ``missing_ok`` (a trial's file, nothing recorded yet), else refused, saying what
    the caller likely meant (``missing_file``). A name with a space at either end, a folder, or
    a file that is not a results file is refused, naming ``where`` (the function called)."""
    if (part := course_settings.spaced_part(path)) is not None:
        raise ValueError(f"{where}(): path must name a results file without a space at either end "
                         f"of a name, got {str(path)!r} ({part!r}); remove the space")
    if Path(path).is_dir():
        raise IsADirectoryError(f"{where}(): path must be a results file (JSON), got the "
                                f"folder {path}; pass the file in it, e.g. {Path(path) / 'x.json'}")
    if not Path(path).exists():
        if missing_ok:
            return {}
        raise missing_file(Path(path), where)
    held = read_json(Path(path), where, "the results file")  # a pipe, a run twice: refused
    runs = held.get("runs") if isinstance(held, dict) else None
    if not isinstance(runs, dict):
        raise ValueError(f"{where}(): path {path} is not a results file (JSON holding 'runs', "
                         f"a table of runs by name), got {_other_json(held, path)}; it was left "
                         "as it is")
    return runs


def _other_json(held: Any, path: str | Path) -> str:
    """What the file ``path``, no results file, holds (``held``: its JSON, or why it is none), and
    what to do: a file of another kind is passed by mistake, a torn one is restored (by git only
    where the repository ships it, ``restore_advice``)."""
    results = course_settings.data_root() / "results"
    other = f"pass a results file instead (the shipped ones are in {results})"
    if isinstance(held, dict) and isinstance(held.get("checkpoints"), list):
        return (f"the checkpoints' manifest (its 'checkpoints' rows, which "
                f"checkpoints.read_manifest reads); {other}")
    if isinstance(held, dict) and "runs" not in held:
        return f"JSON of another kind (keys {', '.join(map(repr, list(held)[:4]))}); {other}"
    got = held if isinstance(held, str) else (
        f"'runs' holding {str(held['runs'])[:40]}" if isinstance(held, dict)
        else f"JSON that is no table: {str(held)[:40]}")
    return f"{got}; {restore_advice(path, 'pass another path, or record its runs again')}"


@checked
def missing_file(path: Path, where: str) -> FileNotFoundError:
    """The refusal of the results file ``path``, which is not there: a typo, a budget never
    recorded, or a path relative to another folder (a notebook runs in notebooks/). It names
    what is there instead: the files of close names in its folder, or the file of that path or
    name from the repository's folder or in the data root's results."""
    folder, cwd = path.parent, Path.cwd()
    shipped = course_settings.data_root() / "results"
    relative = "" if path.is_absolute() else f" (relative to the current folder {cwd})"
    meant = [found for found in (cwd.parent / path, shipped / path.name)
             if not path.is_absolute() and found.is_file()]
    record = "record the runs first (the experiment's command)"
    if meant:
        fix = (f"pass {os.path.relpath(meant[0], cwd)} or the absolute path "
               f"{meant[0].resolve()}")
    elif close := difflib.get_close_matches(
            path.name, [p.name for p in folder.glob("*.json")] if folder.is_dir() else [], n=3):
        fix = f"did you mean {' or '.join(map(repr, close))}, in {folder}? Or {record}"
    else:
        there = "the folder exists, the file does not" if folder.is_dir() else \
            f"its folder {folder} does not exist"
        fix = f"{there}; {record}, or pass another path"
    return FileNotFoundError(f"{where}(): path must be a results file that exists, got {path}"
                             f"{relative}, where nothing is recorded; {fix}")


@checked
def records(path: str | Path, rows: dict[str, Any],
            record_type: RecordType) -> dict[str, Any]:
    """The runs ``rows`` of the results file ``path`` (as JSON holds them) by name, each read as
    the record it was written from (``json_records.from_row``): a ``record_type``, or, in a file of
    several kinds of runs, the type ``record_type(name)`` names. A file of another experiment's
    runs is refused before any is read, naming ``path``, its kind and the file to pass; so is a run
    kept under a name its fields do not make (a record whose name follows from its fields says
    why in ``misnamed(name)``: words, or None when the name fits)."""
    for name, row in rows.items():
        words = _misfit(record_type, name, row)
        if words:
            raise _other_file(path, rows, record_type, name, words)
    found = {}
    for name, row in rows.items():
        cls = record_type if isinstance(record_type, type) else record_type(name)
        try:
            found[name] = from_row(cls, row)
        except (TypeError, ValueError) as err:  # a value of the wrong kind: a changed file
            raise type(err)(f"read_results(): path {path} holds a run {name!r} that is no "
                            f"{cls.__name__} its experiment wrote: {err}; "
                            f"{restore_advice(path, 'record it again')}") from None
        if hasattr(found[name], "misnamed") and (words := found[name].misnamed(name)):
            raise ValueError(f"read_results(): path {path} holds the run {name!r}, {words}; a "
                             f"run is kept under the name its fields make: "
                             f"{restore_advice(path, 'record it again')}")
    return found


@checked
def check_one_kind(path: str | Path, rows: dict[str, Any], name: str,
                   row: dict[str, Any]) -> None:
    """Refuse to add ``row``, the run ``name``, to the results file ``path`` (its runs ``rows``)
    when it is a record of another kind than theirs (its fields differ from every run's there,
    and the file would no longer be one experiment's, ``results_kind``): a reader refuses a file
    whose runs are of several kinds, so all of it would be lost to it."""
    if not rows or any(set(held) == set(row) for held in rows.values() if isinstance(held, dict)):
        return
    if (found := results_kind(rows)) is not None and results_kind({**rows, name: row}) == found:
        return  # a file of several kinds of runs (11's adversarial units), one more of them
    first = next(iter(rows))
    raise ValueError(f"add_result(): run must be a record of the kind {path} holds (the fields "
                     f"of its run {first!r}), got {name!r} with the fields "
                     f"{', '.join(sorted(row))}; record it in a results file of its own")


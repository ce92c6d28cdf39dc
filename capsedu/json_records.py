"""Records as a JSON file keeps them, and read back: the one writer (``json_row``) and the one
reader (``from_row``) of every record the course writes to a file, the checkpoint manifest's
rows (``manifest_rows.ManifestRow``) and the experiments' results alike.

A field is kept under its name, or under the name in its ``metadata["json"]``; a field whose
``metadata["omitted_when_none"]`` is true is left out while it is None (a manifest row's optional
fields), and an absent key reads back as the field's default. A field marked ``inline`` holds a
record whose fields sit in the row beside the others (what every unit of a run notes of where and
when it ran, ``adversarial_units.Stamp``).
"""

import dataclasses
import types
import typing
from typing import Annotated, Any

from pydantic import PlainValidator

from .course_settings import Name
from .refusals import declared_error, kind_of
from .validate import Spec, checked

OMITTED_WHEN_NONE = "omitted_when_none"  # the metadata key of a field left out while None
INLINE = "inline"  # the metadata key of a record field kept as its fields, beside the others


def _record_class(value: Any, or_function: bool = False) -> Any:
    """What ``RecordClass`` takes: a dataclass itself (not a record, nor ``dict``); with
    ``or_function`` (``RecordType``), a function of a run's name that gives one, too."""
    if isinstance(value, type) and dataclasses.is_dataclass(value) or or_function and callable(
            value) and not isinstance(value, type):
        return value
    also = ", or a function of a run's name that gives one" if or_function else ""
    raise declared_error(TypeError, f"must be a record class (a dataclass such as "
                         f"manifest_rows.ManifestRow){also}, got {kind_of(value)}; pass the class "
                         "of the records the file holds (its experiment's, e.g. "
                         "ablations.AblationRun)", "array")


# the class of the records a results file holds; or a function of a run's name that gives it
RecordClass = Annotated[Any, PlainValidator(_record_class),
                        Spec("a record class (a dataclass)", "record")]
RecordType = Annotated[Any, PlainValidator(lambda value: _record_class(value, or_function=True)),
                       Spec("a record class (a dataclass), or a function of a run's name that "
                            "gives one", "record")]


def _record(value: Any) -> Any:
    """What ``Record`` takes: a record (a dataclass's instance or a named tuple), whose fields
    make the row; a dict or a list has no fields, and would pass for a row as it is."""
    if (dataclasses.is_dataclass(value) and not isinstance(value, type)
            or isinstance(value, tuple) and hasattr(value, "_asdict")):
        return value
    raise declared_error(TypeError, f"must be a record (a dataclass or a named tuple, e.g. a "
                         f"manifest_rows.ManifestRow), got {kind_of(value)}; pass the record "
                         "itself (a dict is already a row: json.dumps takes it)", "array")


# a record a results file keeps as a row: a dataclass's instance or a named tuple
Record = Annotated[Any, PlainValidator(_record),
                   Spec("a record (a dataclass or a named tuple)", "record")]


@checked
def json_row(record: Record, where: Name = "json_row") -> dict[str, Any]:
    """A record as its results file keeps it: a dataclass's fields by name (or by the name in a
    field's ``metadata["json"]``; a field marked ``omitted_when_none`` left out while None; an
    ``inline`` field's record as its fields, in its place), the records and named tuples inside
    it as dicts of their fields, tuples as lists, dicts as they are. A value JSON cannot hold (a
    set, a tensor, a NumPy integer) is refused by its place in the record ("metrics.accuracy"),
    in the words of ``where``, the function the caller called."""
    return _plain(record, "", where)


def _plain(value: Any, path: str, where: str) -> Any:
    """``value``, at ``path`` in the record ("" for the record itself), as JSON holds it."""
    inside = path or "record"  # an item's place: record[2], record['runs']
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        row = {}
        for field in dataclasses.fields(value):
            item, at = getattr(value, field.name), f"{path}.{field.name}".lstrip(".")
            if field.metadata.get(INLINE):
                row |= _plain(item, at, where)
            elif not (field.metadata.get(OMITTED_WHEN_NONE) and item is None):
                row[field.metadata.get("json", field.name)] = _plain(item, at, where)
        return row
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # a named tuple
        return {key: _plain(item, f"{path}.{key}".lstrip("."), where)
                for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(item, f"{inside}[{i}]", where) for i, item in enumerate(value)]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str | int) or isinstance(key, bool):
                _unheld(where, f"{inside}'s key {key!r}", key, "a string or a whole number")
        return {key: _plain(item, f"{inside}[{key!r}]", where) for key, item in value.items()}
    if value is not None and not isinstance(value, bool | int | float | str):
        _unheld(where, inside, value, "a value JSON can hold (a number, a string, True, False "
                "or None, or a list, a dict or a record of them)")
    return value


def _unheld(where: str, path: str, value: Any, held: str) -> None:
    """Refuse ``value`` at ``path`` in the record, which JSON cannot hold as ``held``."""
    got = kind_of(value) if hasattr(value, "shape") else \
        f"a {type(value).__name__}, {repr(value)[:60]}"
    raise TypeError(f"{where}(): {path} must be {held}, got {got}; convert it (x.item() or "
                    "x.tolist() of a tensor or an array, sorted(...) of a set, str(...) of a "
                    "path)")


@checked
def from_row(cls: RecordClass, row: dict) -> Any:
    """The record of the dataclass ``cls`` that a results file keeps as ``row`` (``json_row``'s
    inverse): each field read under its name (or its ``metadata["json"]``), typed as the field
    declares it (tuples from lists, records and named tuples from dicts, numbers from text keys;
    an ``inline`` field's record from its fields' keys). A key the record has no field for is
    refused, naming it, and so is a number the file holds as text that is no number."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    inline = {field.name: _keys(hints[field.name]) for field in fields
              if field.metadata.get(INLINE)}
    names = {field.metadata.get("json", field.name): field.name for field in fields
             if field.name not in inline}
    unknown = set(row) - set(names) - {key for keys in inline.values() for key in keys}
    if unknown:
        raise ValueError(f"from_row(): row has {sorted(unknown)}, which {cls.__name__} has no "
                         f"field for; pass a row of its results file")
    if (why := misfit(cls, row)) is not None:  # a field it lacks
        raise ValueError(f"from_row(): row {why}; pass a row of its results file")
    values = {}
    for key in set(row) & set(names):
        try:
            values[names[key]] = _typed(row[key], hints[names[key]])
        except _Misheld as err:
            value, expected, error = err.args
            raise error(f"from_row(): row's {key} must be {expected} ({cls.__name__}'s field "
                        f"{names[key]}), got {value!r:.60}; pass a row of its results file"
                        ) from None
    return cls(**values, **{name: from_row(hints[name], {key: row[key] for key in keys
                                                        if key in row})
                            for name, keys in inline.items()})


@checked
def misfit(cls: RecordClass, row: dict) -> str | None:
    """Why ``row`` is no row of the record ``cls`` as its results file keeps it, in words (keys
    it has that ``cls`` has no field for, required fields it lacks); None when it is one."""
    fields = dataclasses.fields(cls)
    hints = typing.get_type_hints(cls)
    keys = set().union(*(_keys(hints[field.name]) if field.metadata.get(INLINE) else
                         {field.metadata.get("json", field.name)} for field in fields))
    required = {field.metadata.get("json", field.name) for field in fields
                if not field.metadata.get(INLINE) and field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING}
    unknown, missing = _some(set(row) - keys), _some(required - set(row))
    words = [f"has {unknown}, which {cls.__name__} has no field for"] if unknown else []
    words += [f"lacks {missing}, which every {cls.__name__} holds"] if missing else []
    return " and ".join(words) or None


def _some(keys: set[str], shown: int = 4) -> str:
    """``keys`` in words, the first ``shown`` of them in order and how many more."""
    ordered = sorted(keys)
    more = f" and {len(ordered) - shown} more" if len(ordered) > shown else ""
    return ", ".join(map(repr, ordered[:shown])) + more


class _Misheld(Exception):
    """A value the file holds in another form than its field declares, ``(value, expected,
    error)``: a list where a record's dict belongs, a dict where a list does, text that is no
    integer (``from_row`` names the field)."""


def _keys(cls: type) -> set[str]:
    """The keys a row of the record ``cls`` may hold."""
    return {field.metadata.get("json", field.name) for field in dataclasses.fields(cls)}


def _typed(value: Any, hint: Any) -> Any:
    """``value`` as JSON holds it, as the type ``hint`` declares it (``from_row``)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if value is None or hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):  # X | None: the type that is not None
        return _typed(value, next(arg for arg in args if arg is not type(None)))
    if (origin is dict or dataclasses.is_dataclass(hint)) and not isinstance(value, dict):
        raise _Misheld(value, "a JSON object", TypeError)  # a record's fields, or a table
    if origin is tuple and not isinstance(value, list | tuple):  # {} would read as ()
        raise _Misheld(value, "a JSON array", TypeError)
    if origin is tuple and args[0] in (int, float, bool, str):  # JSON's own: as they are
        return tuple(value)
    if origin is tuple:
        return tuple(_typed(item, args[0]) for item in value)
    if origin is dict:
        return {_key(key, args[0]): _typed(item, args[1]) for key, item in value.items()}
    if dataclasses.is_dataclass(hint):
        return from_row(hint, value)
    if isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"):
        return hint(**value)  # a named tuple
    return value


def _key(key: str, hint: Any) -> Any:
    """A JSON object's ``key`` as the type ``hint`` declares it: an integer key is kept as text."""
    if hint is not int:
        return _typed(key, hint)
    try:
        return int(key)
    except ValueError:
        raise _Misheld(key, "an integer", ValueError) from None

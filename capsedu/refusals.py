"""How a refused argument reads: the one sentence ``validate`` gives for every bad value, naming
the function and the argument, what was expected, what came, and what to do.

pydantic reports a bad call as a list of errors, one per form a value could take; ``refusal``
picks the one a learner should read first (``first_error``) and words it: a ``TypeError`` for the
wrong kind of value, a ``ValueError`` for the right kind out of range, with advice for each kind
of mistake (``ADVICE``). A declaration with a check of its own (a tensor's, an array's) raises a
``declared_error``, whose words are used as they are.
"""

import dataclasses
import difflib
import inspect
import math
import numbers
import sys
import types
import typing
from pathlib import Path

import numpy as np
import torch
from pydantic import ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError

# pydantic's error types that mean "the wrong kind of value" (TypeError); the rest are values of
# the right kind out of range, or not among the choices (ValueError)
TYPE_ERRORS = {"tensor_type", "array_type", "is_instance_of", "missing_argument",
               "unexpected_keyword_argument", "unexpected_positional_argument",
               "multiple_argument_values", "dataclass_type"}

# the furthest from 0 a float goes: an int past it (10**400) is no float, nor any Float's value
MAX_FLOAT = sys.float_info.max

ADVICE = {
    "bool_type": "pass the boolean itself, not a string or a number (the string 'False' is not "
                 "empty, so Python would take it as true)",
    "int_type": "pass a whole number as an int (True, 3.0 and '3' are not counts)",
    "float_type": "pass a number (an int or a float), not a string",
    "finite_number": "a NaN or an infinity here would make every result after it NaN",
    "greater_than_equal": "pass a value in that range",
    "greater_than": "pass a value in that range",
    "less_than_equal": "pass a value in that range",
    "less_than": "pass a value in that range",
    "literal_error": "pass one of those strings",
    "tuple_type": "pass a tuple (tuple(...) makes one of a list)",
    "dict_type": "pass a dict of name -> value",
    "missing": "add it (the docstring says what each item holds)",
    "list_type": "pass a list",
    "too_long": "drop the items past those it takes",
    "too_short": "add the items it lacks",
    "string_type": "pass it as a str, in quotes",
    "callable_type": "pass the function itself, by its name without parentheses: f, not f(x)",
}


def declared_error(kind: type, text: str, form: str = "tensor") -> PydanticCustomError:
    """A declaration's own refusal inside pydantic (a tensor's, an array's): ``tensor_type`` (a
    TypeError for the caller) or ``tensor_value``; the text goes in as a value, so braces in it
    are not a template."""
    if kind not in (TypeError, ValueError) or not isinstance(text, str):  # checked by hand
        raise TypeError(f"declared_error(): kind must be the class TypeError or ValueError and "
                        f"text a str, got {kind_of(kind)} and {kind_of(text)}; pass e.g. "
                        "declared_error(ValueError, 'must be ..., got ...')")
    return PydanticCustomError(f"{form}_type" if kind is TypeError else f"{form}_value", "{text}",
                               {"text": text})


def impossible(builder: str, meaning: str, *problems: str | bool) -> None:
    """Refuse a declaration no value can meet (``Int("n", ge=5, le=1)``), or whose meaning says
    nothing (a refusal quotes it as what was expected), when it is built, at import:
    ``problems`` say what is wrong with it, each False where that is right."""
    if not isinstance(meaning, str) or not meaning.strip():
        raise (ValueError if isinstance(meaning, str) else TypeError)(
            f"{builder}(): meaning must say what the value means, a few words such as 'routing "
            f"iterations', got {meaning!r}; a refusal quotes it as what was expected")
    said = next((p for p in problems if p), None)
    if said:
        raise ValueError(f"{builder}(): the declaration {meaning!r} takes no value: {said}; "
                         "declare what some value can be")


def no_range(low, high, strict: bool = False) -> str | bool:
    """What is wrong with the bounds ``low`` to ``high`` (None: none) that leave no number
    between them (``strict``: a bound is excluded, so equal bounds leave none too; a NaN: no
    number is above or below it), else False."""
    if any(bound != bound for bound in (low, high)):
        return f"a bound is NaN ({low} to {high}), which no number is above or below"
    empty = low is not None and high is not None and (low > high or strict and low == high)
    return empty and f"its bounds leave no number between them ({low} to {high})"


def of_kind(builder: str, name: str, value, kind, words: str) -> None:
    """Refuse the argument ``name`` of a declaration builder where it is not ``words``, an
    instance of ``kind`` (None: not given; a bool is no number), when it is built: a string where
    a number or a class belongs would fail later, in pydantic's or Python's words."""
    if not isinstance(kind, type | tuple) or not isinstance(words, str) or not words.strip():
        raise TypeError(f"of_kind(): kind must be a class (or a tuple of classes) and words say "
                        f"what it is, got {kind_of(kind)} and {words!r}; pass e.g. of_kind("
                        "'Int', 'ge', ge, numbers.Real, 'a number')")  # below validate: by hand
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise TypeError(f"{builder}(): {name} must be {words}, got {kind_of(value)}, "
                        f"{with_article(type(value).__name__)}; declare it so")


def range_words(builder: str, meaning: str, ge=None, gt=None, le=None, lt=None) -> str:
    """The bounds of a declaration ``builder`` makes, in words (">= 1 and <= 100"); a bound that
    is no number, a NaN, two on one side (">= 0" and "> 0": which one holds?) or bounds that leave
    no number are refused (``no_range``)."""
    for name, bound in {"ge": ge, "gt": gt, "le": le, "lt": lt}.items():
        of_kind(builder, name, bound, numbers.Real, "a number")
    impossible(builder, meaning, ge is not None and gt is not None and
               f"it has two lower bounds, ge={ge} and gt={gt}: keep one", le is not None and
               lt is not None and f"it has two upper bounds, le={le} and lt={lt}: keep one")
    low = f">= {ge}" if ge is not None else f"> {gt}" if gt is not None else None
    high = f"<= {le}" if le is not None else f"< {lt}" if lt is not None else None
    impossible(builder, meaning, no_range(ge if gt is None else gt, le if lt is None else lt,
                                          strict=gt is not None or lt is not None))
    return " and ".join(w for w in (low, high) if w)


def is_wrong_type(kind: str) -> bool:
    """Whether pydantic's error type ``kind`` means a value of the wrong kind (a TypeError)."""
    if not isinstance(kind, str):  # below validate: checked here, by hand
        raise TypeError(f"is_wrong_type(): kind must be a pydantic error type, a str such as "
                        f"'int_type', got {kind_of(kind)}; pass an error's ['type']")
    return kind in TYPE_ERRORS or kind.endswith("_type")


def of_its_form(error: ErrorDetails) -> bool:
    """Whether ``error`` is about a value of the form its member takes (a number out of range, a
    tensor of the wrong dtype or shape), not about a value of another form."""
    given = error.get("input")
    if error["type"] == "none_required" or error["type"] == "literal_error" and not isinstance(
            given, str):  # None's member, or a choice's, given a value of another kind
        return False
    return not is_wrong_type(error["type"]) or (
        error["type"] == "tensor_type" and isinstance(given, torch.Tensor | np.ndarray)
        or error["type"] == "array_type" and isinstance(given, np.ndarray)
        or error["type"] == "sequence_type")  # a list of items given one item: its own words


def annotated(where: str, fn) -> None:
    """Refuse ``fn`` where a function or a class is read by its annotations (``declared``)."""
    if not (inspect.isroutine(inspect.unwrap(fn)) or inspect.isclass(fn)):  # checked by hand
        raise TypeError(f"{where}(): fn must be a function or a class (whose annotations declare "
                        f"its parameters), got {kind_of(fn)}, {with_article(type(fn).__name__)}; "
                        f"pass the function itself, e.g. {where}(loop.fit)")


def a_declaration(where: str, declaration) -> None:
    """Refuse a ``declaration`` that is no type (``Int(...)``, ``Annotated[...]``, ``int``):
    pydantic would read a str as a type's name, and let any value through another one (5), with
    only its own warning."""
    if not (isinstance(declaration, type) or typing.get_origin(declaration)):  # checked by hand
        raise TypeError(f"{where}(): declaration must be one such as Int(...), got "
                        f"{with_article(type(declaration).__name__)}, {declaration!r:.60}; pass "
                        "one validate builds")


def first_error(err: ValidationError) -> ErrorDetails:
    """The error of ``err`` a learner reads first: a bad value before a missing one, and of a
    union's errors (one per form it takes) that of the form the value has."""
    if not isinstance(err, ValidationError):  # the boundary's own: checked by hand
        raise TypeError(f"first_error(): err must be a pydantic ValidationError, got "
                        f"{kind_of(err)}, {with_article(type(err).__name__)}; pass the error "
                        "validate_call raised (except ValidationError as err)")
    def rank(e):  # an array's or a tensor's own check speaks for it before a number's
        as_array = isinstance(e.get("input"), torch.Tensor | np.ndarray)
        return (e["type"] == "missing_argument", not of_its_form(e),
                as_array and not e["type"].startswith(("tensor_", "array_")))

    return min(err.errors(include_url=False), key=rank)


def advice(error: ErrorDetails) -> str:
    """What to do about ``error``: an instance of a class is made with the class (a model, a
    torch ``Module``, by one of the course's classes or loaded)."""
    if error["type"] == "is_instance_of":
        cls = error.get("ctx", {}).get("class", "one")
        if cls == "Module":
            return "pass a model, e.g. CapsNet() or one that checkpoints.pretrained(name) loads"
        if cls == "Axes":  # axes come from a figure, not from their class
            return "pass an Axes, e.g. fig.add_subplot() or the ax of fig, ax = plt.subplots()"
        return f"pass {with_article(cls)} (made with {cls}(...))"
    if error["type"] == "float_type" and not isinstance(got := error.get("input"), str):
        held = " (its .value is one)" if isinstance(getattr(got, "value", None), numbers.Real) \
            else ""  # a record that holds the number, e.g. an Accuracy
        if is_number(got) and abs(got) > MAX_FLOAT:  # an int no float holds, as 10**400
            return f"pass a number from -{MAX_FLOAT:.2g} to {MAX_FLOAT:.2g}, all a float holds"
        came = "None" if got is None else with_article(type(got).__name__)
        return f"pass a number (an int or a float), not {came}{held}"
    return ADVICE.get(error["type"], "see the function's docstring for what it takes")


def refusal(err: ValidationError, parameters: list[str], specs: dict,
            name: str | None = None, annotated=None) -> tuple[type, str]:
    """The first error of ``err`` as a learner reads it: the exception's class (``TypeError`` or
    ``ValueError``) and its sentence, which ``where`` puts after the function's name. ``specs``:
    the declarations by parameter (``validate.declared``); ``name``: the one value checked, when
    it is no parameter (``validate.check_value``); ``annotated``: the function or the record whose
    annotations say what a tuple, a list or a dict it takes holds (``described``)."""
    error = first_error(err)
    loc = error["loc"]
    if name is None:
        name = parameters[loc[0]] if loc and isinstance(loc[0], int) \
            and loc[0] < len(parameters) else str(loc[0]) if loc else "an argument"
        loc = loc[1:]
    # one of a tuple's items, or a dict's value by its key (a union's forms are named "list[...]")
    index = [part for part in loc if isinstance(part, int) or "[" not in part]
    # the whole path to it: scores['m'][0], a list's item inside a dict
    item = f" key {index[-1]!r}" if "[key]" in loc else "".join(f"[{part!r}]" for part in index)
    got = error.get("input")
    kind = error["type"]
    spec = None if "[key]" in loc else specs.get(name + "[]", specs.get(name + "{}")) if item \
        else specs.get(name)  # a refused key is no value: its words are pydantic's
    record = specs[name + "{}"] if loc and name + "{}" in specs and "[key]" not in loc \
        else specs.get(name)
    if record is not None and record.kind == "record" and (kind == "missing" or is_wrong_type(
            kind)) and not kind.startswith(("tensor_", "array_", "sequence_", "missing_")):
        # a record (a dict's value) that is not one, never "a tuple missing an item" (nor unpassed)
        at = f"[{loc[0]!r}]" if name + "{}" in specs else ""
        inner = loc[1:] if at else loc  # where in what came pydantic stopped: an item of it
        came = f"another tuple, whose item {inner[0]} is {shown(got)}" if inner and isinstance(
            inner[0], int) and kind != "missing" else shown(got)  # that item may be the record
        text = f"{name}{at} must be {record.expected}, got {came}; pass the record itself " \
               "(not a tensor, nor a tuple or a list of its parts)"
        kind = "record_type"
    elif ((plain := not spec and len(loc) == 1 and _union_words(annotated, name)) or spec is not
          None and spec.kind in ("union", "sequence") and not item) and not of_its_form(error):
        text = f"{name} must be {plain or spec.expected}, got {shown(got)}; pass one of those"
        kind = "union_type"
    elif kind == "missing" and loc:  # an item of a tuple, or a field of a record, is not there
        held = "".join(f"[{part!r}]" for part in loc[:-1] if isinstance(part, int) or "[" not in
                       part)
        part = f"an item {loc[-1]}" if isinstance(loc[-1], int) else f"the field {loc[-1]!r}"
        text = f"{name}{held} must have {part}, got {shown(got)}; {advice(error)}"
    elif kind.startswith(("tensor_", "array_", "sequence_")) or kind == "value_error":
        said = error["msg"].removeprefix("Value error, ")
        space = "" if said.startswith("'s ") else " "  # "train's images must ...": a part of it
        text = f"{name}{item}{space}{said}"
        kind = "tensor_type" if kind.endswith("_type") else "value_error"
    elif kind in ("unexpected_keyword_argument", "unexpected_positional_argument"):
        text = _unexpected(error, name, parameters)
    elif kind in TYPE_ERRORS and kind != "is_instance_of":
        text = f"{error['msg'].lower()} ({name})"
    else:
        hints = typing.get_type_hints(inspect.unwrap(annotated), include_extras=True) \
            if annotated is not None and kind in CONTAINERS else {}
        held = described(hints[name], loc) if name in hints else None  # what it holds, in words
        # pydantic's own words, "a valid string", say no more than "a string"
        expected = spec.expected if spec else held or error["msg"].removeprefix(
            "Input should be ").replace("a valid ", "a ", 1)
        text = f"{name}{item} must be {expected}, got {shown(got)}; {advice(error)}"
    return TypeError if is_wrong_type(kind) else ValueError, text


def _unexpected(error: ErrorDetails, name: str, parameters: list[str]) -> str:
    """An argument the function has no place for: a keyword that is no parameter (a typo's
    likely meaning, the nearest name), or one positional argument too many (``loc[0]`` counts
    the ones it takes)."""
    if error["type"] == "unexpected_keyword_argument":
        return _no_parameter(name, parameters)
    return _one_more(parameters[:error["loc"][0]], error.get("input"))


def _no_parameter(name: str, parameters: list[str]) -> str:
    close = difflib.get_close_matches(name, parameters, n=1)
    return (f"{name} is not a parameter; " + (f"did you mean {close[0]}? Its" if close else
            "its") + f" parameters: {', '.join(p for p in parameters if p != 'self')}")


def _one_more(taken: list[str], value) -> str:
    taken = [p for p in taken if p != "self"]
    return (f"takes {len(taken)} positional argument(s) ({', '.join(taken) or 'none'}), got one "
            f"more, {shown(value)}; pass the others by keyword, name=value")


def arguments(function: str, parameters: list[str], args: tuple, kwargs: dict,
              positional: int | None = None) -> None:
    """Refuse, in ``@checked``'s words, a call of ``function`` ("Epoch()") with a keyword that is
    none of its ``parameters`` or more positional values than the first ``positional`` of them
    (None: all): a record's constructor that Python, not pydantic, would refuse (a dataclass's
    bare "unexpected keyword argument")."""
    if unknown := next((name for name in kwargs if name not in parameters), None):
        raise TypeError(f"{function}: {_no_parameter(unknown, parameters)}")
    taken = parameters[:len(parameters) if positional is None else positional]
    if len(args) > len(taken):
        raise TypeError(f"{function}: {_one_more(taken, args[len(taken)])}")


class KnownFields:
    """The base of a dataclass record (``validate.CheckedRecord``) whose constructor refuses, in
    ``@checked``'s words, a keyword that is none of its fields, a value too many or one left out,
    before the dataclass's ``__init__`` would, in bare words ("got an unexpected keyword
    argument")."""

    def __new__(cls, *args, **kwargs):
        fields = [f for f in dataclasses.fields(cls) if f.init]  # its parameters, in order
        names = [f.name for f in fields]
        arguments(where(cls), names, args, kwargs, positional=sum(not f.kw_only for f in fields))
        # a value left out (pickle and copy make a record of none, then set its fields)
        given = {*[f.name for f in fields if not f.kw_only][:len(args)], *kwargs}
        required = [f.name for f in fields if dataclasses.MISSING is f.default
                    and dataclasses.MISSING is f.default_factory]  # no default of its own
        if (args or kwargs) and (missing := [name for name in required if name not in given]):
            raise TypeError(f"{where(cls)}: missing required argument(s) ({', '.join(missing)}); "
                            f"pass each, by position or name=value (its parameters: "
                            f"{', '.join(names)})")
        return super().__new__(cls)


def numbers_advice(value) -> str:
    """What to do with ``value``, which holds no array of numbers: a ragged list's items differ
    in length; anything else holds something that is no number."""
    try:
        lengths = [len(item) for item in value] if isinstance(value, list | tuple) and not any(
            isinstance(item, str) for item in value) else []
    except TypeError:  # an item that is a number: no ragged rows
        lengths = []
    if len(set(lengths)) > 1:
        return (f"its items differ in length ({', '.join(map(str, lengths[:6]))}"
                f"{', ...' if len(lengths) > 6 else ''}); pass items of one length")
    return ("pass a tensor, a NumPy array or a list of the numbers themselves (float(...)), not "
            "strings or booleans")


def unmasked(value, name: str | None = None, form: str = "array"):
    """``value`` as it came, unless it is a NumPy masked array (``np.ma``): np.asarray and
    torch.from_numpy read its masked entries as numbers and drop the mask. One rule for every
    check that takes NumPy input: ``name`` ("f(): x"), a plain check's, refuses it with a
    TypeError; None, a declaration's (of ``form``), with pydantic's error, which the boundary
    words with the function and the argument."""
    if not isinstance(value, np.ma.MaskedArray):
        return value
    text = (f"must be numbers without a mask, got {kind_of(value)}, a masked array with "
            f"{np.ma.count_masked(value)} of {value.size} entries masked, each of which would be "
            "read as a number; pass .filled(...) (a number for each masked one) or .compressed() "
            "(the unmasked ones alone)")
    if name is None:
        raise declared_error(TypeError, text, form)
    raise TypeError(f"{name} {text}")


def where(fn, args: tuple = ()) -> str:
    """The function a refusal names, as called: ``squash()``; a class by its name; a method, given
    the call's ``args``, by the class of the object it was called on (``BuggyCapsNet.loss()``,
    which ``CapsNet`` defines), and a subclass made by the constructor it inherits by its own
    name (``ViewpointExplorer()``, which ``TwoReaders`` makes)."""
    if not isinstance(getattr(fn, "__qualname__", None), str):  # checked here, by hand
        raise TypeError(f"where(): fn must be a function or a class, got {kind_of(fn)}; pass "
                        "the function refused, e.g. where(squash)")
    name = fn.__qualname__.removesuffix(".__init__").removesuffix(".__new__")
    owner, _, method = name.rpartition(".")
    classes = {cls.__qualname__ for cls in type(args[0]).__mro__} if args else set()
    if fn.__qualname__.endswith(".__init__") and name in classes:
        name = type(args[0]).__name__
    elif owner in classes:
        name = f"{type(args[0]).__name__}.{method}"
    return f"{name}()"


def with_article(name: str) -> str:
    """``name`` with its article, as a message reads it: "a RoutingResult", "an Epoch"."""
    if not isinstance(name, str) or not name.strip():  # below validate: checked here, by hand
        raise ValueError(f"with_article(): name must be a name, got {name!r}; pass a name such "
                         "as 'Epoch'")
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def shown(value) -> str:
    """A value as a message shows what came: as written when short, else by its kind (a model's
    repr runs to many lines)."""
    if isinstance(value, torch.nn.Module):  # its repr runs to many lines: its class says it
        return f"a {type(value).__name__}"
    if is_number(value) and isinstance(value, numbers.Integral) and abs(value) > MAX_FLOAT:
        # 10**400, by its power of ten: no float holds it, and Python writes at most 4,300 digits
        power = int(abs(int(value)).bit_length() * math.log10(2))
        return f"an int near {'-' * (value < 0)}10**{power}"
    text = repr(value)
    if isinstance(value, torch.Tensor | np.ndarray) or "\n" in text or len(text) > 80:
        return kind_of(value) if isinstance(value, torch.Tensor | np.ndarray) else \
            f"{with_article(type(value).__name__)} ({text.splitlines()[0][:60]}...)"
    return text


def is_number(value) -> bool:
    """A real number as the course counts one: an int or a float, NumPy's too, never a bool
    (which Python would read as 0 or 1)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def kind_of(value) -> str:
    """A value in a message: a number or a string as it is, a tensor by its shape and dtype, a
    0-d NumPy array by the number it holds (where a count is declared, it is read as that), a
    0-d tensor by the number it holds and its dtype."""
    if isinstance(value, np.ndarray) and value.ndim == 0:  # read as the number it holds
        held = repr(value.item())[:40]  # a masked one's too, its mask said beside it
        made = f"np.ma.masked_array({held}, mask={bool(np.ma.getmask(value))})" if isinstance(
            value, np.ma.MaskedArray) else f"np.array({held})"
        return f"{made}, a 0-d array holding {held}"
    if isinstance(value, torch.Tensor) and value.ndim == 0 and not value.is_meta:
        return f"a 0-d Tensor holding {value.detach().item()!r:.40}, dtype {value.dtype}"
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"a {type(value).__name__} of shape {tuple(value.shape)}, dtype {value.dtype}"
    return repr(value)[:80]


# pydantic's errors for a container of the wrong kind: their words say what it holds (``described``)
CONTAINERS = {"tuple_type", "list_type", "dict_type"}
PLAIN = {int: "an integer", float: "a number", str: "a string", bool: "True or False",
         Path: "a path", type(None): "None", typing.Any: "any value"}


def described(hint, loc: tuple) -> str | None:
    """What the annotation ``hint`` declares at ``loc`` (pydantic's path into the value: an item's
    index, a dict's key, a union's form), in words; None where the path or the type has none."""
    for part in loc:
        hint = _bare(hint)
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):  # the form pydantic names, e.g. "tuple[..."
            forms = [a for a in args if isinstance(part, str)
                     and part.startswith(getattr(typing.get_origin(_bare(a)), "__name__", "?"))]
            if len(forms) != 1:
                return None
            hint, origin, args = forms[0], typing.get_origin(_bare(forms[0])), \
                typing.get_args(_bare(forms[0]))
            continue
        if origin is dict:
            hint = args[0] if part == "[key]" else args[1]
        elif origin is list or origin is tuple and args[-1:] == (Ellipsis,):
            hint = args[0]
        elif origin is tuple and isinstance(part, int) and part < len(args):
            hint = args[part]
        else:
            return None
    return words(hint)


def words(hint) -> str | None:
    """The annotation ``hint`` in words ("a tuple of items, each a Sweep"); None for one that
    has none (a function's signature)."""
    said = next((w for m in getattr(hint, "__metadata__", ()) if (w := getattr(
        m, "expected", None) or getattr(m, "description", None))), None)  # or a Folder's Field
    hint = _bare(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    parts = [words(a) for a in args if a is not Ellipsis]
    if said or None in parts:
        return said
    if origin in (typing.Union, types.UnionType) and {str, Path} <= set(args):
        rest = [words(a) for a in args if a not in (str, Path)]  # None, beside a path
        return " or ".join(["a path (a str or a Path)", *rest])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(parts)
    if origin is tuple and args[-1:] == (Ellipsis,) or origin is list:
        return f"a {origin.__name__} of items, each {parts[0]}"
    if origin is tuple:
        return f"a tuple of {len(parts)} items: {', '.join(parts)}"
    if origin is dict:
        return f"a dict of {parts[0]} -> {parts[1]}"
    if hint in PLAIN:
        return PLAIN[hint]
    return with_article(hint.__name__) if isinstance(hint, type) and not origin else None


def _union_words(annotated, name: str) -> str | None:
    """What ``annotated`` declares ``name`` to be, in words, where it is a union of two forms or
    more beside None, undeclared ("a path (a str or a Path) or None"): pydantic then tried each,
    and its error's loc names the form, not an item; else None."""
    hints = typing.get_type_hints(inspect.unwrap(annotated), include_extras=True) \
        if annotated is not None else {}
    hint = _bare(hints.get(name))
    forms = [_bare(a) for a in typing.get_args(hint) if a is not type(None)] if _union(hint) else []
    if len(forms) == 1:  # a Folder or None: the Folder's forms
        forms = typing.get_args(forms[0]) if _union(forms[0]) else []
    return words(hint) if len(forms) > 1 else None


def _union(hint) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def _bare(hint):
    """``hint`` without its ``Annotated`` declarations."""
    return typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint

"""Input checks that turn a deep torch traceback into a sentence a learner can act on.

The course's one boundary. A public function declares what each parameter takes in its
annotation, and ``@checked`` enforces the declaration at every call, through pydantic's
``validate_call`` in strict mode (so the string ``"False"`` is never a bool, ``"5"`` and ``True``
are never counts, and a NaN is never a finite number)::

    @checked
    def dynamic_routing(u_hat: Tensor("votes u_hat", ndim=4, floating=True),
                        iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3): ...

``Int``, ``Float``, ``Flag``, ``Choice``, ``Tensor``, ``Array`` and ``Function`` build those
annotations: a type, its range and a few words on what the value means (``X | Y`` takes either
form; ``Record`` takes a NamedTuple as it is). The bounds many entries share live here once
(``MAX_WIDTH``, ``MAX_SIDE``, ...). A refusal is a ``TypeError`` (the wrong kind of value) or a
``ValueError`` (the right kind, out of range) naming the function and the argument, what was
expected, what came, and what to do. An exercise checker, which must never raise, is
``@checked(checker=True)``: the same sentence is printed as a FAIL and the call returns False.
``declared(fn)`` hands the declarations back, so tests/test_boundary.py derives bad values from
them for every checked entry of the package.
"""

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal

import numpy as np
import torch
from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    InstanceOf,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    create_model,
    validate_call,
)
from pydantic_core import PydanticCustomError

from .checks import check_finite, check_float, check_pixels

# Strict: no value is converted into another type ("3" is not 3, 1 is not True); arbitrary
# classes (tensors, models) are checked with isinstance.
STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)


class Spec(typing.NamedTuple):
    """What one parameter takes, in words for a message: ``expected`` ("an integer from 1 to
    100 (routing iterations)") and the bounds a test can step outside (None: no bound)."""
    expected: str
    kind: str  # "int", "float", "bool", "choice", "tensor", "array", "function", "tuple",
    # "list", "sequence" (a tuple or a list), or "union" of ``members``
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    members: tuple = ()  # a union's: the Spec of each form it takes (a number or a tensor)


def _range_words(ge=None, gt=None, le=None, lt=None) -> str:
    low = f">= {ge}" if ge is not None else f"> {gt}" if gt is not None else None
    high = f"<= {le}" if le is not None else f"< {lt}" if lt is not None else None
    return " and ".join(w for w in (low, high) if w)


def _as_python_number(value):
    """NumPy scalars count as the Python numbers they are (an ``np.int64`` from an array is a
    count like any int); ``np.bool_`` stays a bool, so it is refused where a count belongs."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def Int(meaning: str, ge: int | None = None, le: int | None = None) -> Any:
    """An integer (never a bool, a float or a string) within ``[ge, le]``; ``le`` bounds the work
    a caller can ask for (a count of images, iterations, repeats)."""
    words = _range_words(ge=ge, le=le)
    spec = Spec(f"an integer {words} ({meaning})".replace("  ", " "), "int", ge, le)
    return Annotated[int, _Numbers(), Field(ge=ge, le=le, description=spec.expected), spec]


def Float(meaning: str, ge: float | None = None, gt: float | None = None,
          le: float | None = None, lt: float | None = None) -> Any:
    """A finite real number (an int will do; a NaN, an infinity, a bool or a string will not)
    within the bounds given."""
    words = _range_words(ge=ge, gt=gt, le=le, lt=lt)
    spec = Spec(f"a finite number {words} ({meaning})".replace("  ", " "), "float",
                ge if ge is not None else gt, le if le is not None else lt)
    return Annotated[float, _Numbers(), Field(ge=ge, gt=gt, le=le, lt=lt, allow_inf_nan=False,
                                              description=spec.expected), spec]


def Flag(meaning: str) -> Any:
    """``True`` or ``False`` itself: a string such as ``"False"`` is not empty, so Python would
    take it as true; a number is refused too."""
    spec = Spec(f"True or False ({meaning})", "bool")
    return Annotated[bool, _Numbers(), Field(description=spec.expected), spec]


def Choice(meaning: str, *options: str) -> Any:
    """One of the strings ``options``."""
    listed = ", ".join(repr(o) for o in options)
    spec = Spec(f"one of {listed} ({meaning})", "choice", choices=options)
    return Annotated[Literal[options], Field(description=spec.expected), spec]


def Tensor(meaning: str, ndim: int | None = None, floating: bool = False,
           finite: bool = False, pixels: bool = False) -> Any:
    """A torch tensor (a NumPy array is taken as the tensor it is, sharing its memory, so it goes
    through the same checks): ``ndim`` dimensions, floating-point numbers, finite ones, or
    images (``pixels``: floating-point and finite; uint8 pixels are refused, never rescaled)."""
    shape = f" with {ndim} dimensions" if ndim is not None else ""
    numbers = " of pixels in [0, 1]" if pixels else " of floating-point numbers" if floating else ""
    spec = Spec(f"a torch.Tensor{numbers}{shape} ({meaning})", "tensor")

    def check(value, info: ValidationInfo):
        name = info.field_name or "the tensor"
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(value)
        if not isinstance(value, torch.Tensor):
            raise _tensor_error(TypeError, f"must be {spec.expected}, got a "
                                f"{type(value).__name__}; convert it with torch.as_tensor(...)")
        try:
            if pixels:
                check_pixels(value, name)
            elif floating or finite:
                check_float(value, name)
            if finite:
                check_finite(value, name)
        except (TypeError, ValueError) as err:  # the shared checks' sentences, which name it
            raise _tensor_error(type(err), str(err).removeprefix(f"{name} ")) from None
        if ndim is not None and value.ndim != ndim:
            raise _tensor_error(ValueError, f"must be {spec.expected}, got shape "
                                f"{tuple(value.shape)}")
        return value

    return Annotated[torch.Tensor, PlainValidator(check), spec]


def Array(meaning: str, ndim: int | None = None) -> Any:
    """A NumPy array of finite real numbers (``ndim`` dimensions), kept a NumPy array: for the
    geometry that works in NumPy. A list, a tensor or an array of booleans is refused."""
    shape = f" with {ndim} dimensions" if ndim is not None else ""
    spec = Spec(f"a NumPy array of finite real numbers{shape} ({meaning})", "array")

    def check(value, info: ValidationInfo):
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "iuf":
            raise _tensor_error(TypeError, f"must be {spec.expected}, got {_kind_of(value)}; "
                                "convert it with np.asarray(..., dtype=float)", "array")
        if ndim is not None and value.ndim != ndim:
            raise _tensor_error(ValueError, f"must be {spec.expected}, got shape {value.shape}",
                                "array")
        bad = np.count_nonzero(~np.isfinite(value))
        if bad:
            raise _tensor_error(ValueError, f"must be {spec.expected}, got {bad} NaN or "
                                "infinite value(s); find where they first appear upstream", "array")
        return value

    return Annotated[np.ndarray, PlainValidator(check), spec]


def Function(meaning: str) -> Any:
    """Anything callable, passed itself: a learner's answer to an exercise is their function, not
    the result of calling it, a tensor or a string."""
    spec = Spec(f"a function ({meaning})", "function")
    return Annotated[Callable, Field(description=spec.expected), spec]


def _tensor_error(kind: type, text: str, form: str = "tensor") -> PydanticCustomError:
    """A tensor's (or an array's) refusal inside pydantic: ``tensor_type`` (a TypeError for the
    caller) or ``tensor_value``; the text goes in as a value, so braces in it are not a
    template."""
    return PydanticCustomError(f"{form}_type" if kind is TypeError else f"{form}_value", "{text}",
                               {"text": text})


def Record(cls: type) -> Any:
    """An instance of the record class ``cls`` (a NamedTuple), taken as it is: its fields were
    checked where it was made (pydantic would otherwise build a new one, field by field)."""
    return InstanceOf[cls]


class _Numbers:
    """Annotation marker: take NumPy scalars as Python numbers before the strict check."""

    def __get_pydantic_core_schema__(self, source, handler):
        from pydantic_core import core_schema
        return core_schema.no_info_before_validator_function(_as_python_number, handler(source))


# Upper bounds every entry shares, one home each (issue 37.2): past them a call asks for more
# work or memory than any lesson needs, and its refusal says so before anything is allocated.
MAX_WIDTH = 4096  # a layer's channels or units, capsule maps, a capsule's dimensions, classes
MAX_IMAGE = 1024  # a model's input side in pixels, or a kernel's side or stride
MAX_SIDE = 256  # a generated image's side in pixels (sprites, faces, MNIST on a new canvas)
MAX_BATCH = 65_536  # examples in one batch
# a run's epochs, far past the course's recipes (at most 40): a typo is refused before it trains
# for days
MAX_EPOCHS = 1000
# timed runs of one measurement, their median reported: 1,000 training steps of the paper's
# CapsNet take about an hour on a CPU, far past the 3 to 5 the notebooks take a median of
MAX_REPEATS = 1000

def _device(value):
    """A device this machine has, named by a string or a ``torch.device`` (kept as given)."""
    if not isinstance(value, str | torch.device):
        raise PydanticCustomError("device_type", "{text}", {"text": (
            f"must name a device, a string such as 'cpu' or 'cuda' or a torch.device, got "
            f"{_kind_of(value)}")})
    try:
        device = torch.device(value)
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"must name a device such as 'cpu' or 'cuda', got {value!r} "
                         f"({str(err).splitlines()[0][:80]}); pass 'cpu', or 'cuda' on a GPU "
                         "machine") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"must be a device this machine has, got {value!r}, but torch finds no "
                         "CUDA GPU here; pass 'cpu' (or None: config.device() picks the GPU when "
                         "there is one)")
    return value


def _distinct(items):
    """Refuse a list that repeats an item (a seed twice would count one run twice)."""
    repeated = sorted({repr(item) for item in items if list(items).count(item) > 1})
    if repeated:
        raise ValueError(f"must hold each item once, got {', '.join(repeated)} more than once; "
                         "drop the repeats (a repeated seed or name counts one run twice)")
    return items


def _some(items):
    """Refuse an empty list (a comparison of no seeds, a figure of no models)."""
    if len(items) == 0:
        raise ValueError(f"must hold at least one item, got {items!r}; pass one or more")
    return items


# A list whose items must all differ (``Seeds``; the names of models shown side by side), and one
# that must hold at least one item
Distinct = AfterValidator(_distinct)
Some = AfterValidator(_some)

Device = Annotated[str | torch.device, PlainValidator(_device),
                   Spec("a device this machine has, such as 'cpu' or 'cuda'", "device")]

# Declarations many entries share.
# NumPy's generator takes seeds below 2**32 (loop.seed_everything seeds it too).
Seed = Int("a random seed: the same seed gives the same draws", ge=0, le=2**32 - 1)
# seeds of a comparison over seeds, each once
Seeds = Annotated[list[Seed] | tuple[Seed, ...], Some, Distinct]


def _spec(hint) -> Spec | None:
    """The declaration inside one annotation, if it has one."""
    return next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Spec)), None)


def declared(fn) -> dict[str, Spec]:
    """The declarations of a checked function's parameters, by name (those declared with
    ``Int``, ``Float``, ``Flag``, ``Choice`` or ``Tensor``, inside ``| None`` too; a union of
    declarations, such as a number or a tensor, is one ``Spec`` whose words join its members')."""
    hints = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)
    specs = {}
    for name, hint in hints.items():
        if typing.get_origin(hint) is Annotated and _spec(hint) is None:  # Seeds: the list inside
            hint = typing.get_args(hint)[0]
        origin = typing.get_origin(hint)
        union = origin in (typing.Union, types.UnionType)  # X | None, tuple[X, ...] | list[X]
        members = typing.get_args(hint) if union or origin in (tuple, list) else (hint,)
        found = [spec for spec in map(_spec, members) if spec is not None]
        # tuple[X, ...] | list[X]: a tuple or a list of items, each declared
        sequences = [m for m in members if typing.get_origin(m) in (tuple, list)]
        if union and sequences and _spec(typing.get_args(sequences[0])[0]):
            item = _spec(typing.get_args(sequences[0])[0])
            forms = " or a ".join(typing.get_origin(m).__name__ for m in sequences)
            specs[name + "[]"] = item
            specs[name] = item._replace(expected=f"a {forms} of items, each {item.expected}",
                                        kind="sequence")
        elif found and origin in (tuple, list):  # each item declared: "name[]" holds the item's
            specs[name + "[]"] = found[0]
            specs[name] = found[0]._replace(
                expected=f"a {origin.__name__} of items, each {found[0].expected}",
                kind=origin.__name__)
        elif len(found) > 1:
            specs[name] = Spec(" or ".join(spec.expected for spec in found), "union",
                               members=tuple(found))
        elif found:
            specs[name] = found[0]
    return specs


# pydantic's error types that mean "the wrong kind of value" (TypeError); the rest are values of
# the right kind out of range, or not among the choices (ValueError)
_TYPE_ERRORS = {"tensor_type", "array_type", "is_instance_of", "missing_argument",
                "unexpected_keyword_argument", "unexpected_positional_argument",
                "multiple_argument_values", "dataclass_type"}

_ADVICE = {
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
    "tuple_type": "pass a tuple, e.g. (512, 1024)",
    "list_type": "pass a list",
    "callable_type": "pass the function itself, by its name without parentheses: f, not f(x)",
}


def _is_wrong_type(kind: str) -> bool:
    return kind in _TYPE_ERRORS or kind.endswith("_type")


def _of_its_form(error: dict) -> bool:
    """Whether ``error`` is about a value of the form its member takes (a number out of range, a
    tensor of the wrong dtype or shape), not about a value of another form."""
    given = error.get("input")
    return not _is_wrong_type(error["type"]) or (
        error["type"] == "tensor_type" and isinstance(given, torch.Tensor | np.ndarray)
        or error["type"] == "array_type" and isinstance(given, np.ndarray))


def _first_error(err: ValidationError) -> dict:
    """The error of ``err`` a learner reads first: a bad value before a missing one, and of a
    union's errors (one per form it takes) that of the form the value has."""
    def rank(e):  # an array's or a tensor's own check speaks for it before a number's
        as_array = isinstance(e.get("input"), torch.Tensor | np.ndarray)
        return (e["type"] == "missing_argument", not _of_its_form(e),
                as_array and not e["type"].startswith(("tensor_", "array_")))

    return min(err.errors(include_url=False), key=rank)


def _refusal(err: ValidationError, parameters: list[str],
             specs: dict[str, Spec]) -> tuple[type, str]:
    """The first error of ``err`` as a learner reads it: the exception's class (``TypeError`` or
    ``ValueError``) and its sentence, which ``_where`` puts after the function's name."""
    error = _first_error(err)
    loc = error["loc"]
    name = parameters[loc[0]] if loc and isinstance(loc[0], int) and loc[0] < len(parameters) \
        else str(loc[0]) if loc else "an argument"
    index = [part for part in loc[1:] if isinstance(part, int)]  # one of a tuple's items
    item = f"[{index[-1]}]" if index else ""
    got = error.get("input")
    kind = error["type"]
    spec = specs.get(name + "[]" if item else name)
    if spec is not None and spec.kind in ("union", "sequence") and not item \
            and not _of_its_form(error):  # no form fits
        text = f"{name} must be {spec.expected}, got {_kind_of(got)}; pass one of those"
        kind = "union_type"
    elif kind.startswith(("tensor_", "array_")) or kind == "value_error":
        text = f"{name}{item} {error['msg'].removeprefix('Value error, ')}"
        kind = "tensor_type" if kind.endswith("_type") else "value_error"
    elif kind in _TYPE_ERRORS and kind != "is_instance_of":
        text = f"{error['msg'].lower()} ({name})"
    else:
        expected = spec.expected if spec else error["msg"].removeprefix("Input should be ")
        advice = _ADVICE.get(kind, "see the function's docstring for what it takes")
        text = f"{name}{item} must be {expected}, got {_shown(got)}; {advice}"
    return TypeError if _is_wrong_type(kind) else ValueError, text


def _where(fn) -> str:
    """The function a refusal names, as called: ``squash()``; a class by its name."""
    return f"{fn.__qualname__.removesuffix('.__init__').removesuffix('.__new__')}()"


def _shown(value) -> str:
    """A value as a message shows what came: as written when short, else by its kind (a model's
    repr runs to many lines)."""
    text = repr(value)
    if isinstance(value, torch.Tensor | np.ndarray) or "\n" in text or len(text) > 80:
        return _kind_of(value) if isinstance(value, torch.Tensor | np.ndarray) else \
            f"a {type(value).__name__} ({text.splitlines()[0][:60]}...)"
    return text


def _kind_of(value) -> str:
    """A value in a message: a number or a string as it is, a tensor by its shape and dtype."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"a {type(value).__name__} of shape {tuple(value.shape)}, dtype {value.dtype}"
    return repr(value)[:80]


@functools.cache
def _fields_model(cls):
    """A pydantic model of the dataclass ``cls``'s declared fields (built once per class)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name: (hints[f.name], ...) for f in dataclasses.fields(cls)}
    return create_model(cls.__name__, __config__=STRICT, **fields)


def check_fields(record) -> None:
    """Enforce a dataclass's declared field types and ranges (call it from ``__post_init__``):
    the same declarations, enforcement and messages as ``checked`` gives a function."""
    cls = type(record)
    values = {f.name: getattr(record, f.name) for f in dataclasses.fields(cls)}
    try:
        _fields_model(cls).model_validate(values)
    except ValidationError as err:
        error, text = _refusal(err, list(values), declared(cls))
        raise error(f"{_where(cls)}: {text}") from None


def check_value(where: str, name: str, declaration, value):
    """Enforce one declaration (``Int``, ``Float``, ...) on a value that is no parameter of its
    own (a field of a manifest row given as ``**fields``, an entry of a dict), with the messages
    ``checked`` gives a parameter; hands back the value as validated."""
    from pydantic import TypeAdapter

    try:
        return TypeAdapter(declaration, config=STRICT).validate_python(value)
    except ValidationError as err:
        error = _first_error(err)
        spec = _spec(declaration)
        expected = spec.expected if spec else error["msg"].removeprefix("Input should be ")
        advice = _ADVICE.get(error["type"], "see the function's docstring for what it takes")
        text = f"{where}(): {name} must be {expected}, got {_shown(value)}; {advice}"
        raise (TypeError if _is_wrong_type(error["type"]) else ValueError)(text) from None


def check_class(where: str, label, n_classes: int) -> int:
    """Enforce that ``label`` is a class of a model of ``n_classes`` classes (an int from 0 to
    n_classes - 1; -1 would read the last class, a string or True no class at all)."""
    return check_value(where, "label", Int("a class of the model", ge=0, le=n_classes - 1),
                       label)


def checked(fn=None, *, checker: bool = False):
    """Enforce ``fn``'s annotated parameter types and ranges at every call (see the module's
    docstring); a bad argument is refused before ``fn`` runs, with a message naming it.

    ``@checked(checker=True)`` is for an exercise checker, which never raises (see
    ``capsedu.exercises.checking``): the refusal's sentence is printed as a FAIL and the call
    returns False, so a notebook goes on to its next cell."""
    if fn is None:  # @checked(checker=True)
        return functools.partial(checked, checker=checker)
    validated = validate_call(fn, config=STRICT)
    parameters = list(inspect.signature(fn).parameters)
    specs = declared(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return validated(*args, **kwargs)
        except ValidationError as err:
            error, text = _refusal(err, parameters, specs)
            if not checker:
                raise error(f"{_where(fn)}: {text}") from None
            print(f"{_where(fn)}: FAIL - {text}")
            return False

    call.declared = specs  # what tests/test_boundary.py reads
    return call

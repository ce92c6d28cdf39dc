"""Input checks that turn a deep torch traceback into a sentence a learner can act on.

The course's one boundary. A public function declares what each parameter takes in its
annotation, and ``@checked`` enforces the declaration at every call, through pydantic's
``validate_call`` in strict mode (so the string ``"False"`` is never a bool, ``"5"`` and ``True``
are never counts, and a NaN is never a finite number)::

    @checked
    def dynamic_routing(u_hat: Tensor("votes u_hat", ndim=4, floating=True),
                        iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3): ...

``Int``, ``Float``, ``Flag``, ``Choice``, ``Tensor``, ``Array``, ``Numbers``, ``Instances`` and
``Function`` build those annotations: a type, its range and a few words on what the value means
(``X | Y`` takes either form; ``Record`` a NamedTuple as it is; a class, its instances; shared
ones, ``Seed``, ``Images``, ..., are ``course_settings``'); one no value can meet is refused when
built. A refusal is a ``TypeError`` (the wrong kind of value) or a ``ValueError`` (the right
kind, out of range) naming the function and the argument, what was expected, what came, and
what to do (``refusals`` words it). An exercise checker, which must never raise, is
``@checked(checker=True)``: the sentence is printed as a FAIL and the call returns False.
``declared(fn)`` hands the declarations back: tests/test_boundary.py derives bad values from them.
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
    BeforeValidator,
    ConfigDict,
    Field,
    InstanceOf,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    create_model,
    validate_call,
)

from . import checks, refusals
from .refusals import declared_error, kind_of, refusal, unmasked, where, with_article

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
    shape: tuple = ()  # a tensor's or an array's: the shape of the smallest that fits


def _as_python_number(value):
    """NumPy scalars and 0-d arrays as the Python numbers they are (np.bool_ stays a bool)."""
    value = unmasked(value)[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
    for numpy, python in ((np.integer, int), (np.floating, float), (np.bool_, bool)):
        if isinstance(value, numpy):
            return python(value)
    return value


_NUMBERS = BeforeValidator(_as_python_number)


def Int(meaning: str, ge: int | None = None, le: int | None = None) -> Any:
    """An integer (never a bool, a float or a string) within ``[ge, le]``; ``le`` bounds the work
    a caller can ask for (a count of images, iterations, repeats)."""
    words = refusals.range_words("Int", meaning, ge=ge, le=le)
    spec = Spec(f"an integer {words} ({meaning})".replace("  ", " "), "int", ge, le)
    return Annotated[int, _NUMBERS, Field(ge=ge, le=le, description=spec.expected), spec]


def Float(meaning: str, ge: float | None = None, gt: float | None = None,
          le: float | None = None, lt: float | None = None) -> Any:
    """A finite real number within the bounds (an int will do; a NaN, an inf, a bool, no)."""
    words = refusals.range_words("Float", meaning, ge=ge, gt=gt, le=le, lt=lt)
    spec = Spec(f"a finite number {words} ({meaning})".replace("  ", " "), "float",
                ge if ge is not None else gt, le if le is not None else lt)
    return Annotated[float, _NUMBERS, Field(ge=ge, gt=gt, le=le, lt=lt, allow_inf_nan=False,
                                              description=spec.expected), spec]


def Flag(meaning: str) -> Any:
    """``True`` or ``False`` itself, not a number nor a string (``"False"`` would be true)."""
    refusals.impossible("Flag", meaning)
    spec = Spec(f"True or False ({meaning})", "bool")
    return Annotated[bool, _NUMBERS, Field(description=spec.expected), spec]


def Choice(meaning: str, *options: str) -> Any:
    """One of the strings ``options``."""
    for option in options:
        refusals.of_kind("Choice", "each option", option, str, "a str")
    refusals.impossible("Choice", meaning, not options and "it has no options (list them after it)",
                        len(set(options)) < len(options) and f"its options repeat: {options}")
    listed = ", ".join(repr(o) for o in options)
    spec = Spec(f"one of {listed} ({meaning})", "choice", choices=options)
    return Annotated[Literal[options], Field(description=spec.expected), spec]


def Tensor(meaning: str, ndim: int | None = None, floating: bool = False,
           finite: bool = False, pixels: bool = False, sizes: dict[int, int] | None = None,
           within: tuple | None = None, fix: str = "pass values in that range") -> Any:
    """A torch tensor (a NumPy array is taken as the tensor it is, sharing its memory, so it goes
    through the same checks): ``ndim`` dimensions, floating-point numbers, finite ones, or
    images (``pixels``: floating-point and finite; uint8 pixels are refused, never rescaled);
    ``sizes``: the size some dimensions must have, by index (``{2: 4}``: 4 along dimension 2);
    ``within``: its values in ``[low, high]`` (else ``fix`` says what to do)."""
    refusals.of_kind("Tensor", "ndim", ndim, int, "an int")
    refusals.of_kind("Tensor", "within", within, tuple, "a pair of numbers (low, high)")
    refusals.impossible("Tensor", meaning, ndim is not None and ndim < 0 and f"ndim is {ndim}, < 0",
                        within is not None and refusals.no_range(*within))
    sizes = sizes or {}
    shape = f" with {ndim} dimensions" if ndim is not None else ""
    shape += "".join(f", {size} along dimension {d}" for d, size in sizes.items())
    numbers = " of pixels in [0, 1]" if pixels else " of floating-point numbers" if floating else ""
    values = f" in [{within[0]}, {within[1]}]" if within else ""
    spec = Spec(f"a torch.Tensor{numbers}{values}{shape} ({meaning})", "tensor", *(within or (
        None, None)), shape=tuple(sizes.get(d, 1) for d in range(ndim if ndim is not None else 1)))

    def check(value, info: ValidationInfo):
        name = info.field_name or "the tensor"
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(unmasked(value, form="tensor"))
        if not isinstance(value, torch.Tensor):
            raise declared_error(TypeError, f"must be {spec.expected}, got a "
                                f"{type(value).__name__}; convert it with torch.as_tensor(...)")
        try:
            checks.check_data(value, name)
            if pixels:
                checks.check_pixels(value, name)
            elif floating or finite:
                checks.check_float(value, name)
            if finite:
                checks.check_finite(value, name)
        except (TypeError, ValueError) as err:  # the shared checks' sentences, which name it
            raise declared_error(type(err), str(err).removeprefix(f"{name} ")) from None
        if ndim is not None and value.ndim != ndim or any(
                value.ndim <= d or value.shape[d] != size for d, size in sizes.items()):
            raise declared_error(ValueError, f"must be {spec.expected}, got shape "
                                f"{tuple(value.shape)}; pass a tensor of that shape")
        low, high = torch.aminmax(value.detach()) if within and value.numel() else within or (0, 0)
        if within and not within[0] <= low <= high <= within[1]:  # (not for autograd to keep)
            raise declared_error(ValueError, f"must be {spec.expected}, got values from "
                                 f"{low:.4g} to {high:.4g}; {fix}")
        return value

    return Annotated[torch.Tensor, PlainValidator(check), spec]


def Array(meaning: str, ndim: int | None = None) -> Any:
    """A NumPy array of finite real numbers (``ndim`` dimensions), kept a NumPy array: for the
    geometry that works in NumPy. A list, a tensor or an array of booleans is refused."""
    refusals.of_kind("Array", "ndim", ndim, int, "an int")
    refusals.impossible("Array", meaning)
    shape = f" with {ndim} dimensions" if ndim is not None else ""
    spec = Spec(f"a NumPy array of finite real numbers{shape} ({meaning})", "array",
                shape=(1,) * (ndim if ndim is not None else 1))

    def check(value, info: ValidationInfo):
        if not isinstance(unmasked(value), np.ndarray) or value.dtype.kind not in "iuf":
            raise declared_error(TypeError, f"must be {spec.expected}, got {kind_of(value)}; "
                                "convert it with np.asarray(..., dtype=float)", "array")
        if ndim is not None and value.ndim != ndim:
            raise declared_error(ValueError, f"must be {spec.expected}, got shape {value.shape}",
                                 "array")
        bad = np.count_nonzero(~np.isfinite(value))
        if bad:
            raise declared_error(ValueError, f"must be {spec.expected}, got {bad} NaN or "
                                 "infinite value(s); find where they first appear upstream",
                                 "array")
        return value

    return Annotated[np.ndarray, PlainValidator(check), spec]


def Numbers(meaning: str, ndim: int | None = None, last: int | None = None,
            ge: float | None = None, le: float | None = None, at_least: int = 0,
            bools: bool = False, whole: bool = False, tensor: bool = False, nan: bool = False,
            shape: tuple | None = None, fix: str = "pass numbers of that shape") -> Any:
    """Numbers however a learner holds them: a torch tensor (on any device), a NumPy array, a list
    or tuple of numbers, or one number (``meaning`` says which and their shape, "angles [n]"), all
    through the same checks: real numbers (no string, boolean or ragged list), finite, ``ndim``
    dimensions (or a whole ``shape``, None where any size will do), ``last`` entries along the
    last, at least ``at_least`` along the first (else ``fix`` says what to do), within [``ge``,
    ``le``]. Handed on as a NumPy array (``tensor``: a torch tensor); ``bools``: booleans or 0/1,
    handed on as booleans; ``whole``: integers (indices, classes); ``nan``: a NaN is a gap."""
    refusals.of_kind("Numbers", "ndim", ndim, int, "an int")
    refusals.impossible("Numbers", meaning, refusals.no_range(ge, le), at_least < 0 and f"at_least "
                        f"is {at_least}, < 0", (ndim or 0) < 0 and f"ndim is {ndim}, < 0",
                        None not in (ndim, shape) and len(shape) != ndim and f"ndim is {ndim} "
                        f"but shape {shape} has {len(shape)} dimensions: give one of them")
    count = f", at least {at_least} of them" if at_least > 1 else ", at least one" * at_least
    within = f" in [{ge}, {le}]" if ge is not None and le is not None else f" >= {ge}" \
        if ge is not None else f" <= {le}" if le is not None else ""
    spec = Spec(f"{meaning}{within}{count}", "numbers", ge, le)

    def check(value, info: ValidationInfo):
        given = value.detach().cpu() if isinstance(value, torch.Tensor) else unmasked(value)
        try:  # a string, a dict or a ragged list holds no numbers
            array = None if isinstance(given, str | bytes | dict) else np.asarray(given)
        except (TypeError, ValueError, RuntimeError):
            array = None
        if array is None or array.dtype.kind not in ("iufb" if bools else "iuf"):
            raise declared_error(TypeError, f"must be {meaning}, got {kind_of(value)}; "
                                 f"{refusals.numbers_advice(given)}", "array")
        if whole and array.dtype.kind not in "iu":
            raise declared_error(ValueError, f"must be whole numbers ({meaning}), got dtype "
                                 f"{array.dtype}; pass integers (int(...), .long())", "array")
        if ndim is not None and array.ndim != ndim or last is not None and array.shape[-1:] != (
                last,) or (len(array) if array.ndim else 0) < at_least or not _fits(array, shape):
            got = repr(value) if isinstance(value, list | tuple) and len(repr(value)) < 60 \
                else f"shape {array.shape}"
            raise declared_error(ValueError, f"must be {meaning}{count}, got {got}; {fix}", "array")
        bad = np.count_nonzero(np.isinf(array) if nan else ~np.isfinite(array)) \
            if array.dtype.kind == "f" else 0
        if bad:
            verb = "be" if isinstance(value, list | tuple) else "hold"  # a tensor holds them
            raise declared_error(ValueError, f"must {verb} finite numbers ({meaning}), got {bad} "
                                 f"NaN or infinite value(s) of {array.size}; a NaN would make "
                                 "every result after it NaN: find where it first appears", "array")
        if bools and not np.isin(array, (0, 1)).all():
            raise declared_error(ValueError, f"must hold booleans or 0/1 ({meaning}), got values "
                                 f"such as {array[~np.isin(array, (0, 1))][:3].tolist()}; pass "
                                 "booleans, each True where it holds (a comparison such as x > "
                                 "threshold, or predictions == labels)", "array")
        if array.size and (ge is not None and array.min() < ge or le is not None
                           and array.max() > le):
            raise declared_error(ValueError, f"must be{within} ({meaning}), got values from "
                                 f"{array.min():g} to {array.max():g}; pass values in that "
                                 "range", "array")
        if tensor:
            return value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
        return array.astype(bool) if bools else array

    return Annotated[Any, PlainValidator(check), spec]


def _fits(array: np.ndarray, shape: tuple[int | None, ...] | None) -> bool:
    """Whether ``array`` has ``shape`` (None: any; a None in it: any size along that axis)."""
    return shape is None or array.ndim == len(shape) and all(
        s in (None, n) for s, n in zip(shape, array.shape, strict=True))


def Instances(cls: type, meaning: str, ndim: int | None = None,
              fix: str = "pass the axes plt.subplots (or fig.subplots) made") -> Any:
    """Instances of ``cls`` side by side, such as the axes ``plt.subplots`` makes: a NumPy array
    of them, a list or a tuple of them, or one; handed on as a NumPy array with ``ndim``
    dimensions (None: any, flattened to one). ``fix``: what to do when they are not."""
    refusals.of_kind("Instances", "cls", cls, type, "a class, e.g. matplotlib.axes.Axes")
    refusals.impossible("Instances", meaning)
    shape = f" [{', '.join('n' * ndim)}]" if ndim else ""
    spec = Spec(f"{meaning}: {cls.__name__} objects{shape}", "record")

    def check(value, info: ValidationInfo):
        try:
            array = np.asarray(value, dtype=object)
        except ValueError:  # a ragged list of lists
            array = np.asarray(None, dtype=object)
        if not all(isinstance(item, cls) for item in array.flat) or not array.size:
            raise declared_error(TypeError, f"must be {spec.expected}, got "
                                 f"{kind_of(value)[:60]}; {fix}", "array")
        if ndim is not None and array.ndim != ndim:
            raise declared_error(ValueError, f"must be {spec.expected}, got shape {array.shape}; "
                                 f"{fix}", "array")
        return array if ndim is not None else array.ravel()

    return Annotated[Any, PlainValidator(check), spec]


def Function(meaning: str) -> Any:
    """Anything callable, passed itself: a learner's answer to an exercise is their function, not
    the result of calling it, a tensor or a string."""
    refusals.impossible("Function", meaning)
    spec = Spec(f"a function ({meaning})", "function")
    return Annotated[Callable, Field(description=spec.expected), spec]


def Has(meaning: str, *fields: str, source: str, many: bool = False) -> Any:
    """A record read by its fields: any value but a string with the attributes ``fields``
    (``meaning``, e.g. "a comparison", made by ``source``; ``"__iter__"``: anything to go over,
    taken as it is, a generator not used up); ``many``: a list of them, or any other iterable but
    a string, handed on as a list of at least one."""
    refusals.impossible("Has", meaning, not fields and "it names no fields (list them after it)")
    spec = Spec(f"{meaning} with {', '.join(fields)}", "record")

    def check(value, info: ValidationInfo):
        items = list(value) if many and not isinstance(value, str | bytes) and hasattr(
            value, "__iter__") else [value] if not many else None
        if many and not isinstance(value, str | bytes) and all(hasattr(value, f) for f in fields):
            raise declared_error(TypeError, f"must be {spec.expected}, got a single one, "
                                 f"{kind_of(value)[:60]}; wrap it in a list: [it]", "sequence")
        if items is None or many and not items:
            raise declared_error(TypeError if items is None else ValueError, f"must be "
                                 f"{spec.expected}, at least one, got {kind_of(value)}; pass "
                                 f"a list of {source}", "array")
        for i, item in enumerate(items):
            if isinstance(item, str | bytes) or not all(hasattr(item, f) for f in fields):
                which = f"; its item {i} is {kind_of(item)[:60]}" if many else ""
                raise declared_error(TypeError, f"must be {spec.expected}, got "
                                     f"{kind_of(value)[:60]}{which}; pass {source}", "array")
        return items if many else value

    return Annotated[Any, PlainValidator(check), spec]


def Record(cls: type, source: str | None = None) -> Any:
    """An instance of the record class ``cls``, taken as it is (pydantic would build a new one,
    or read any tuple as a NamedTuple); ``source``: where one comes from, for the refusal."""
    refusals.of_kind("Record", "cls", cls, type, "a record's class, e.g. statistics.Paired")
    spec = Spec(with_article(cls.__name__) + (f" ({source})" if source else ""), "record")
    return Annotated[InstanceOf[cls], spec]


def _distinct(items):
    seen = set()  # refuse items (a list, a tensor) that repeat one: those met once already
    values = items.tolist() if hasattr(items, "tolist") else items  # a tensor's: numbers
    repeated = sorted({repr(x) for x in values if x in seen or seen.add(x)})
    if repeated:
        raise ValueError(f"must hold each item once, got {', '.join(repeated)} more than once; "
                         "drop the repeats (a repeated seed, row or name counts one thing twice)")
    return items


def _some(items):
    """Refuse an empty list (a comparison of no seeds, a figure of no models)."""
    if len(items) == 0:
        raise ValueError(f"must hold at least one item, got {items!r}; pass one or more")
    return items


# A list whose items must all differ (``Seeds``; names of models side by side); one of at least one
Distinct = AfterValidator(_distinct)
Some = AfterValidator(_some)

def _spec(hint) -> Spec | None:
    """The declaration inside one annotation, if it has one (a NamedTuple record's class is its
    own: pydantic would read any tuple as one, and a wrong value as one missing an item)."""
    if isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"):
        return Spec(with_article(hint.__name__), "record")
    return next((m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Spec)), None)


def declared(fn) -> dict[str, Spec]:
    """The declarations of a checked function's (or record's) parameters, by name (inside ``|
    None`` too; a union, such as a number or a tensor, is one ``Spec`` joining its members' words;
    a tuple's or a list's items' under "name[]", a dict's values' under "name{}")."""
    refusals.annotated("declared", fn)  # the boundary's own: checked by hand
    hints = typing.get_type_hints(inspect.unwrap(fn), include_extras=True)
    specs = {}
    for name, hint in hints.items():
        if name == "return":  # what it gives back, no parameter
            continue
        if typing.get_origin(hint) is Annotated and _spec(hint) is None:  # Seeds: the list inside
            hint = typing.get_args(hint)[0]
        origin = typing.get_origin(hint)
        union = origin in (typing.Union, types.UnionType)  # X | None, tuple[X, ...] | list[X]
        members = typing.get_args(hint) if union or origin in (tuple, list) else (hint,)
        found = [spec for spec in map(_spec, members) if spec is not None]
        dicts = [m for m in members if typing.get_origin(m) is dict]
        if dicts and _spec(typing.get_args(dicts[0])[1]):  # name -> a declared value: "name{}"
            value = specs[name + "{}"] = _spec(typing.get_args(dicts[0])[1])
            specs[name] = value._replace(expected=f"a dict of name -> {value.expected}",
                                         kind="dict")
            continue
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


@functools.cache
def _fields_model(cls):
    """A pydantic model of the dataclass ``cls``'s declared fields (built once per class)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name: (hints[f.name], ...) for f in dataclasses.fields(cls)}
    return create_model(cls.__name__, __config__=STRICT, **fields)


class CheckedRecord(refusals.KnownFields):
    """A record that checks its fields when made: a dataclass subclassing it declares its fields
    (``Int``, ``Float``, ...) and a bad one is refused as ``checked`` refuses a bad argument. A
    record with checks across its fields calls ``super().__post_init__()`` in its own first."""

    def __post_init__(self) -> None:  # the dataclass calls it once the fields are set
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        try:
            model = _fields_model(type(self)).model_validate(values)
        except ValidationError as err:
            error, text = refusal(err, list(values), declared(type(self)), annotated=type(self))
            raise error(f"{where(type(self))}: {text}") from None
        for name in (n for n, v in values.items() if isinstance(v, np.generic | np.ndarray)):
            object.__setattr__(self, name, getattr(model, name))  # NumPy's as validated: Python's


def check_value(where: str, name: str, declaration, value):
    """Enforce one declaration (``Int``, ``Float``, ...) on a value that is no parameter of its
    own (a field of a manifest row given as ``**fields``, an entry of a dict), with the messages
    ``checked`` gives a parameter; hands back the value as validated."""
    refusals.a_declaration("check_value", declaration)  # 5 is none: pydantic would pass any value
    try:
        return TypeAdapter(declaration, config=STRICT).validate_python(value)
    except ValidationError as err:
        error, text = refusal(err, [name], {name: _spec(declaration)}, name=name)
        raise error(f"{where}(): {text}") from None


def check_class(where: str, label, n_classes: int) -> int:
    """Enforce that ``label`` is a class of a model of ``n_classes`` classes (an int from 0 to
    n_classes - 1; -1 would read the last class, a string or True no class at all)."""
    if n_classes < 1:  # no class to be one of: the caller's count is wrong, not the label
        raise ValueError(f"{where}(): n_classes must be at least 1, got {n_classes}; pass the "
                         "model's number of classes")
    return check_value(where, "label", Int("a class of the model", ge=0, le=n_classes - 1), label)


def checked(fn=None, *, checker: bool = False, reads: tuple[str, ...] = ()):
    """Enforce ``fn``'s annotated parameter types and ranges at every call (see the module's
    docstring); a bad argument is refused before ``fn`` runs, with a message naming it.

    ``@checked(checker=True)`` is for an exercise checker, which never raises (see
    ``capsedu.exercises.checking``): the refusal's sentence is printed as a FAIL and the call
    returns False, so a notebook goes on to its next cell. ``reads=("model", "images")``: the
    last argument named (images) must have the shape each of the others reads (a model, a dict
    of them, or a method's ``self``; ``checks.check_input``), refused by its name; and
    ``labels``, if it takes them, must be one per image, classes of each (``check_read_labels``)."""
    if fn is None:  # @checked(checker=True) or @checked(reads=...)
        return functools.partial(checked, checker=checker, reads=reads)
    if not callable(fn) or inspect.isclass(fn):  # the boundary's own: checked by hand
        raise TypeError(f"checked(): fn must be a function, got {kind_of(fn)}; put it above a def"
                        + " (a class's: above its __init__)" * inspect.isclass(fn))
    validated = validate_call(_reading(fn, *reads) if reads else fn, config=STRICT)
    parameters = list(inspect.signature(fn).parameters)
    specs = declared(fn)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return validated(*args, **kwargs)
        except ValidationError as err:
            error, text = refusal(err, parameters, specs, annotated=fn)
            if not checker:
                raise error(f"{where(fn, args)}: {text}") from None
            print(f"{where(fn, args)}: FAIL - {text}")
            return False

    call.declared = specs  # what tests/test_boundary.py reads
    return call


def _reading(fn, *names: str):
    """``fn``, first checking its images (the last of ``names``) fit each model named before."""
    signature = inspect.signature(fn)
    *models, images = names

    @functools.wraps(fn)
    def run(*args, **kwargs):
        given, called = signature.bind(*args, **kwargs).arguments, where(fn, args)
        labels = given.get("labels")  # the images' labels, if it takes them: one per image
        for m in models:
            for reader in given[m].values() if isinstance(given.get(m), dict) else [given.get(m)]:
                if isinstance(reader, torch.nn.Module) and torch.is_tensor(given.get(images)):
                    checks.check_input(given[images], f"{called}: {images}", reader)
                    if torch.is_tensor(labels):
                        checks.check_read_labels(labels, f"{called}: labels", given[images],
                                                 reader)
        return fn(*args, **kwargs)

    return run

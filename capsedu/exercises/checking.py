"""The checkers' one loop, ``check``, and what every checker shares: the learner's result read
against the reference's (``_read``: its kind, layout, shape, dtype and finiteness, in words when
it is not what the exercise asks; ``_expect`` for a checker's own code that computes with it),
compared within the tolerance (``_near``), and, after a FAIL, the known mistake its answers show
(``_hint``).

A checker never raises: it prints PASS or FAIL with the largest difference (or the first case it
gets wrong), or "not implemented yet" while the learner's function still raises
``NotImplementedError`` -- so a notebook with unsolved exercises still runs top to bottom. It also
returns ``True``/``False``/``None``. Every checker of ``capsedu.exercises`` (notebooks 01 to 11)
is ``check`` on its own cases, and declares its parameters with ``@checked(checker=True)``: a
bad argument (a tensor, or nothing, where the learner's function belongs) is a FAIL that names
it, never an exception.
"""

import inspect
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager
from copy import deepcopy
from typing import Annotated

import numpy as np
import torch

from ..course_settings import Checked, Text
from ..refusals import shown
from ..validate import Float, Function, Some, checked

# the seconds a learner's function may take on one case (the cases are small: a right answer
# takes milliseconds, an endless loop would hold the notebook until the kernel is interrupted)
CASE_SECONDS = 30
# Whether the learner's function ran past CASE_SECONDS in the last check(): then _hint, which
# would call it again under a second limit, says nothing, so the FAIL comes at CASE_SECONDS.
_RAN_PAST = {"last check": False}


class _Returned(Exception):
    """The learner's function returned what the exercise cannot use (its words say what came and
    what was expected): raised by ``_expect`` inside a checker's own code, and told as the
    learner's FAIL, never as an error of the checker."""


@contextmanager
def _time_limit(name: str):
    """Stop the learner's function after ``CASE_SECONDS`` with a ``_Returned`` (a FAIL that says
    so), where Python can: on a POSIX system's main thread, where a notebook's cells run."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return

    def stop(*_):
        _RAN_PAST["last check"] = True
        raise _Returned(f"your {name} ran past {CASE_SECONDS} s on a small case (an endless "
                        "loop?); make sure every loop ends")
    before = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def _describe(args: tuple) -> str:
    """A case in a few words: a tensor or array by its shape, anything else as written (cut
    short), never the numbers of a whole tensor."""
    def one(a):
        if isinstance(a, (torch.Tensor, np.ndarray)):
            kind = "a tensor" if isinstance(a, torch.Tensor) else "an array"
            return f"{kind} of shape {tuple(a.shape)}"
        text = repr(a)
        return text if len(text) <= 60 else text[:57] + "..."
    return ", ".join(one(a) for a in args)


def _references(value, name: str) -> tuple:
    """``check``'s reference: one function, or a tuple of at least one (the right answers a
    notebook teaches), handed on as a tuple."""
    references = value if isinstance(value, tuple) else (value,)
    if not references or not all(callable(r) for r in references):
        raise TypeError(f"{name} must be the reference function, or a tuple of at least one, got "
                        f"{shown(value)}; pass the function itself (squash, not squash(s)), or "
                        "(answer_1, answer_2) where the notebook teaches two right answers")
    return references


@checked(checker=True)
def check(name: Text, learner: Function("your answer to the exercise"),
          reference: Checked(_references, "the reference function, or a tuple of right answers",
                             "function"),
          cases: Annotated[list[tuple], Some],
          atol: Float("the largest difference allowed", ge=0) = 1e-5,
          describe: Function("turns a case into words") = _describe,
          outputs: tuple[str, ...] | None = None):
    """Call ``learner(*case)`` and ``reference(*case)`` for each case and compare the results:
    a tensor, or a tuple (or list) of tensors compared element by element, within ``atol``; or an
    integer, which must be matched exactly by a whole number (``5``, ``5.0`` or a one-number
    tensor). A NumPy array or scalar, a Python number or a tensor of any float dtype, on any
    device, counts as the tensor it holds. A NaN where the reference is finite, or a complex
    number, fails at once. Where the notebook teaches more than one right answer, ``reference``
    is a tuple of them and matching any one passes.

    The learner's function gets its own copy of each case, and changing it in place is a FAIL
    (the reference gets another copy, so nothing the learner does can change what it is checked
    against). The first result off the reference is a FAIL on a few lines that names the case
    (``describe(case)``: shapes, not numbers), the result (``outputs``, e.g. ``("c", "v", "b")``,
    else its position), the element, both values and by how much they differ. An error in the
    learner's function, or a result the exercise cannot use (``_Returned``), is a FAIL; one in the
    checker's own code is said to be the course's, never the learner's. What the instructor gives
    check() is checked first: ``describe`` on every case before any runs, then each reference's
    result (something to compare, as many results as ``outputs`` names): a FAIL that names the
    argument, never an exception."""
    _RAN_PAST["last check"] = False
    said, wrong = _said(describe, reference, cases)
    if wrong:
        print(f"check(): FAIL - {wrong}")
        return False
    worst = 0.0
    for args, case in zip(cases, said, strict=True):
        line, verdict, off = _one_case(name, learner, reference, args, case, atol, outputs)
        if line:
            print(line)
            return verdict
        worst = max(worst, off)
    print(f"{name}: PASS (largest difference {worst:.2e} on {len(cases)} cases)")
    return True


def _said(describe: Callable, references: tuple, cases: list[tuple]) -> tuple[list[str], str]:
    """What the instructor gave ``check``, checked before any case runs: every case in words
    (``describe`` is their code) and "", or what is wrong with it, naming the argument."""
    try:
        said = [str(describe(case)) for case in cases]
    except Exception as err:
        return [], (f"describe raised {type(err).__name__}: {err}; describe must turn each case "
                    "in `cases` into a few words: fix it, or leave it out to describe the cases "
                    "by their shapes")
    unfit = _unfit_case(references, cases)
    if unfit:
        return [], (f"{unfit}; each case in `cases` must be a tuple of the reference's "
                    "arguments, (x,) for one")
    return said, ""


def _one_case(name, learner, references, args, case: str, atol, outputs):
    """One case of ``check``: ``("", True, largest difference)`` when the learner's result
    matches a reference; else the line to print and what check returns (False for a FAIL, None
    while the exercise is not implemented yet or when the checker itself failed)."""
    given = deepcopy(args)  # the learner's own copy of the case
    try:
        got = _kept_dtype(learner, name)(*given)
    except NotImplementedError:
        return (f"{name}: not implemented yet - replace the `raise NotImplementedError` line.",
                None, 0.0)
    except _Returned as err:  # a checker's own code could not use what the learner returned
        return f"{name}: FAIL - for {case}, {err}", False, 0.0
    except Exception as err:  # a learner's bug is a FAIL, never a crash of the notebook
        if "in-place operation" in str(err):  # torch refused to change an input needing a grad
            return _in_place(name, case, "an argument that carries a gradient"), False, 0.0
        return f"{name}: FAIL - for {case} it raised {type(err).__name__}: {err}", False, 0.0
    except SystemExit as err:  # sys.exit(), exit() or quit(): the notebook goes on
        return (f"{name}: FAIL - for {case} your function exited (SystemExit {err.code!r}); "
                "return the answer instead of calling sys.exit or exit()"), False, 0.0
    changed = _changed(args, given)
    if changed:
        return _in_place(name, case, changed), False, 0.0
    try:
        wants = [ref(*deepcopy(args)) for ref in references]  # reference: a tuple, declared
        wrong = next(filter(None, (_reference_problem(want, outputs) for want in wants)), "")
        verdicts = [] if wrong else [_compare(name, got, want, case, atol, outputs)
                                     for want in wants]
    except _Returned as err:  # an equivariance reference runs the learner's function too
        return f"{name}: FAIL - for {case}, {err}", False, 0.0
    except Exception as err:  # the reference or the comparison: the cases', or the course's
        return (f"{name}: the checker itself failed on the case {case} ({type(err).__name__}: "
                f"{err}); if you gave check() these cases, each case in `cases` must be a tuple "
                "of the reference's arguments; else this is a bug of the course, not of your "
                "answer: please report it"), None, 0.0
    if wrong:
        return f"check(): FAIL - for the case {case}, {wrong}", False, 0.0
    passing = [off for verdict, off in verdicts if not verdict]
    if not passing:
        return verdicts[0][0], False, 0.0  # measured against the first (the main) reference
    return "", True, min(passing)


def _in_place(name: str, case: str, which: str) -> str:
    """The FAIL of a learner's function that changed its input ``which`` in place (or tried to,
    and torch refused: an input whose gradient is being computed cannot be changed)."""
    return (f"{name}: FAIL - for {case} your function changed its input ({which}) in place. "
            "Leave the inputs as they are: work on a copy (x = x.clone()) or with operations "
            "that return new tensors (x = x / n, not x /= n).")


def _kept_dtype(learner: Callable, name: str) -> Callable:
    """The learner's function as every checker calls it (``check`` does, for each case): the one
    dtype rule, every floating tensor it returns in the dtype of its first floating tensor
    argument (float64 for float32 input is right in value, but the model's next layer would
    refuse it); else ``_Returned``, a FAIL that says so."""
    def call(*args):
        with _time_limit(name):
            got = learner(*args)
        x = next((a for a in args if isinstance(a, torch.Tensor) and a.is_floating_point()), None)
        for v in (got if isinstance(got, tuple | list) else (got,)) if x is not None else ():
            if isinstance(v, torch.Tensor) and v.dtype != x.dtype and (v.is_floating_point()
                                                                        or v.is_complex()):
                kind = "complex" if v.is_complex() else str(v.dtype)
                raise _Returned(f"your {name} returned {kind} numbers for {x.dtype} input; keep "
                                "the input's dtype (no .double(), .float() or .to()): a model's "
                                "next layer would refuse the other one")
        return got
    return call


def _unfit_case(references: tuple, cases: list[tuple]) -> str:
    """The first case that a reference cannot take as its arguments, in words ("" when every
    case fits every reference that has a signature to read)."""
    for ref in references:
        try:
            signature = inspect.signature(ref)
        except (TypeError, ValueError):  # no signature to read (a builtin): its call will tell
            continue
        for k, case in enumerate(cases):
            try:
                signature.bind(*case)
            except TypeError as err:
                return (f"cases[{k}] holds {len(case)} argument(s), which reference "
                        f"{getattr(ref, '__name__', '')}{signature} cannot take ({err})")
    return ""


def _reference_problem(want, outputs: tuple[str, ...] | None) -> str:
    """What is wrong with a reference's result ``want`` for ``check`` to compare with, in words
    naming check()'s argument; "" when nothing is."""
    if isinstance(want, int) and not isinstance(want, bool):  # a count, matched exactly
        return ""
    wants = want if isinstance(want, tuple) else (want,)
    if not wants or any(_as_tensor(w) is None for w in wants):
        return (f"reference returned {_what(want)}; a reference must return what the learner's "
                "function must: a tensor, a NumPy array, a number, or a tuple of them")
    if outputs is not None and len(outputs) != len(wants):
        return (f"outputs names {len(outputs)} result(s), {outputs!r}, but reference returns "
                f"{len(wants)}; give outputs one name per result, in order, or leave it out")
    return ""


def _changed(args: tuple, given: tuple) -> str:
    """Which of the learner's copies ``given`` of the case ``args`` no longer equals its
    original ("argument 2"), or "" when none changed."""
    def same(a, g) -> bool:
        if isinstance(a, torch.Tensor):  # equal element by element, NaN where NaN was
            return (isinstance(g, torch.Tensor) and a.shape == g.shape and a.dtype == g.dtype
                    and bool(((a == g) | (a.isnan() & g.isnan())).all()))
        if isinstance(a, np.ndarray):
            return isinstance(g, np.ndarray) and np.array_equal(a, g, equal_nan=a.dtype.kind == "f")
        if isinstance(a, (list, tuple)):
            return (type(a) is type(g) and len(a) == len(g)
                    and all(same(x, y) for x, y in zip(a, g, strict=True)))
        return True  # numbers, configs and the like cannot be changed in place
    return next((f"argument {k}" for k, (a, g) in enumerate(zip(args, given, strict=True), 1)
                 if not same(a, g)), "")


def _as_tensor(value):
    """A learner's result as a CPU tensor: a tensor on any device, a NumPy array or scalar, a
    Python number or a list of numbers (``None`` for anything else: also a tensor without data,
    on the 'meta' device, a sparse, nested or quantized one, which ``_what`` names)."""
    if isinstance(value, torch.Tensor):
        unusual = (value.is_meta or value.layout != torch.strided or value.is_nested
                   or value.is_quantized)
        return None if unusual else value.detach().cpu()
    if isinstance(value, bool):
        return None
    if isinstance(value, (np.ndarray, np.generic, float, int, complex, list)):
        try:
            return torch.as_tensor(np.asarray(value))
        except (TypeError, ValueError, RuntimeError):  # a list of things that are not numbers
            return None
    return None


def _what(value) -> str:
    """What a learner's function returned, in words: as written when short, else by its kind
    (a tensor by its shape, or what makes it one ``_as_tensor`` cannot read)."""
    if isinstance(value, torch.Tensor):
        if value.is_meta:
            return "a tensor without data (on the 'meta' device)"
        if value.layout != torch.strided or value.is_nested:
            kind = "nested" if value.is_nested else f"sparse ({value.layout})"
            return (f"a {kind} tensor; return an ordinary (dense) tensor: leave out "
                    ".to_sparse() and the like, or call .to_dense() on it")
        if value.is_quantized:
            return f"a quantized tensor ({value.dtype}); return one of real numbers (float)"
        if value.numel() <= 6:  # a few numbers: as they are (a count, a fraction)
            return f"a tensor holding {value.detach().cpu().tolist()}"
        return f"a tensor of shape {tuple(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array holding {value.tolist()}" if value.size <= 6 else \
            f"a NumPy array of shape {value.shape}, dtype {value.dtype}"
    text = repr(value)
    if isinstance(value, str | bool | int | float) or value is None:
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, list | tuple | dict):
        short = "\n" not in text and len(text) <= 60
        return f"{text} (a {type(value).__name__})" if short else \
            f"a {type(value).__name__} of {len(value)} item(s)"
    return f"a {type(value).__name__}"


def _read(value, want: torch.Tensor, which: str, strict: bool = False):
    """The learner's result ``value`` read against the reference's ``want``: ``(tensor, "")``, or
    ``(None, words)`` saying what came and what was expected (``which`` names the result): no
    tensor in it, another shape, complex numbers, NaN or inf where the reference is finite. With
    ``strict`` (a checker's own code computes with it) it must also be a torch tensor of
    ``want``'s dtype."""
    tensor, want = _as_tensor(value), _as_tensor(want)
    expected = f"expected a tensor of shape {tuple(want.shape)}"
    if tensor is None:
        forgot = "; does your function end with `return` and its answer?" if value is None else ""
        return None, f"{which}: {expected}, got {_what(value)}{forgot}"
    if strict and not isinstance(value, torch.Tensor):
        return None, (f"{which}: expected a torch tensor of shape {tuple(want.shape)}, got "
                      f"{_what(value)}; the checker computes with it in torch: return a torch "
                      "tensor (torch.from_numpy turns an array into one)")
    if tensor.shape != want.shape:
        return None, f"{which}: {expected}, got one of shape {tuple(tensor.shape)}"
    if tensor.is_complex():
        return None, (f"{which}: expected real numbers, got complex numbers ({tensor.dtype}). "
                      "Look for a square root or a power of a negative number.")
    if strict and tensor.dtype != want.dtype:
        return None, (f"{which}: expected {want.dtype} numbers, the dtype of the input, got "
                      f"{tensor.dtype}; keep the input's dtype (no .float(), .half() or .to())")
    finite = want.isfinite() if want.is_floating_point() else torch.ones_like(want, dtype=bool)
    for bad, words in ((tensor.isnan(), "NaN"), (tensor.isinf(), "an infinite value")):
        if (bad & finite).any():
            return None, (f"your result contains {words} where the reference is finite "
                          f"({which}, element {_element(bad & finite)}). Look for 0 / 0, a "
                          "division by 0 or the square root of a negative number.")
    return tensor, ""


def _expect(value, want: torch.Tensor, which: str):
    """``value``, what the learner's function returned, for a checker's own code to compute
    with (a layer built with the learner's filters, a gradient through their squash): a torch
    tensor of ``want``'s shape and dtype, finite where ``want`` is; else ``_Returned`` saying what
    came and what was expected."""
    _, wrong = _read(value, want, which, strict=True)
    if wrong:
        raise _Returned(wrong)
    return value


def _compare(name, got, want, case: str, atol: float, outputs) -> tuple[str, float]:
    """``(fail message or "", largest difference)`` of a learner's result ``got`` against the
    reference's ``want`` on one case (``check``)."""
    if isinstance(want, int):
        if _same_whole_number(got, want):
            return "", 0.0
        return f"{name}: FAIL - for {case} the answer is {want:,}, you returned {_what(got)}.", 0.0
    wants = want if isinstance(want, tuple) else (want,)
    gots = tuple(got) if isinstance(got, (tuple, list)) and len(wants) > 1 else (
        got if isinstance(got, tuple) else (got,))
    if len(gots) != len(wants):
        came = "" if isinstance(got, (tuple, list)) else f", {_what(got)}"
        fix = ("return one result, not a tuple" if len(wants) == 1 else
               f"return them as a tuple: return {', '.join(outputs)}" if outputs else
               "return them as a tuple")
        return f"{name}: FAIL - expected {len(wants)} result(s), got {len(gots)}{came}; {fix}.", 0.0
    worst = 0.0
    for k, (g, w) in enumerate(zip(gots, wants, strict=True)):
        which = (f"{outputs[k]}" if outputs else f"result {k + 1}" if len(wants) > 1
                 else "the result")
        tensor, wrong = _read(g, w, which)
        if wrong:
            return f"{name}: FAIL - for {case}, {wrong}", 0.0
        g64, w64 = tensor.double(), _as_tensor(w).double()
        same = (g64 == w64) | g64.isnan() & w64.isnan()  # NaN where the reference has NaN too
        diff = torch.where(same, 0.0, (g64 - w64).abs().nan_to_num(float("inf")))
        if diff.numel() and diff.max() > atol:
            at = _element(diff == diff.max())
            index = tuple(int(i) for i in at) if at else ()
            return (f"{name}: FAIL - for {case}, {which} at element {list(index)}: you returned "
                    f"{float(g64[index]):.6g}, the reference gives {float(w64[index]):.6g} "
                    f"(off by {float(diff[index]):.3g}; allowed {atol:g})."), 0.0
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
    return "", worst


def _hint(find: Callable, learner: Callable, cases: list[tuple]) -> None:
    """After a FAIL, print the known mistake ``find(answers, cases)`` names in the learner's
    answers on ``cases`` (each a tuple of tensors, or one tensor, as ``_as_tensor`` makes them),
    if it names one. Finding it never fails the notebook: answers it cannot read say nothing.
    After a FAIL for running past ``CASE_SECONDS`` it says nothing and returns at once."""
    if _RAN_PAST["last check"]:
        return
    try:
        with _time_limit("function"):  # find may run the learner's function too
            with torch.no_grad():
                answers = [learner(*deepcopy(case)) for case in cases]
            answers = [tuple(_as_tensor(x) for x in a) if isinstance(a, (tuple, list))
                       else _as_tensor(a) for a in answers]
            mistake = find(answers, cases)
    except (Exception, SystemExit):  # check has already reported what the answers do wrong
        return
    if mistake:
        print(f"  What to look at: {mistake}")


def _near(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Two results equal to the checkers' tolerance (in float64, on the CPU)."""
    return (a is not None and a.shape == b.shape
            and torch.allclose(a.double(), b.detach().cpu().double(), rtol=1e-4, atol=1e-5))


def _element(mask: torch.Tensor) -> list[int]:
    """The index of the first true element of ``mask``."""
    return [int(i) for i in mask.nonzero()[0]] if mask.ndim else []


def _same_whole_number(got, want: int) -> bool:
    """``got`` is the whole number ``want``: an integer, a float with no fractional part, or a
    tensor or array holding one such number."""
    if isinstance(got, torch.Tensor):  # a tensor of data: its one number
        got = _as_tensor(got)
        if got is None or got.numel() != 1 or got.dtype == torch.bool:
            return False
        got = got.item()
    elif isinstance(got, np.ndarray) and got.size == 1 and got.dtype.kind != "b":
        got = got.item()
    if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
        return False
    return float(got).is_integer() and int(got) == want

"""A selection's options (a dropdown's, toggle buttons', radio buttons'), read once and checked
before ipywidgets makes anything of them: a list, a tuple or a dict of at most ``MAX_OPTIONS``
options (``range(10**9)`` would fill the memory), in an order (a set's changes from run to run),
each a value or a ``(label, value)`` pair with a text label (ipywidgets takes ``[(1, 'a')]`` as
the label '1' and ``[('a',)]`` as the value ``('a',)``), no value None (ipywidgets' "nothing
chosen"), NaN (never equal to itself, so never chosen) or a tensor, and no two of one label."""

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sized
from itertools import islice

import numpy as np
import torch

from .controls import _Control, _owner

# the most options a selection takes: what a learner can pick from in a list
MAX_OPTIONS = 2000


def read_options(control, options):
    """``options`` for ``control``, read once (an iterator or a range without its items made),
    else refused naming the control: a ``TypeError`` for no collection of options or an option
    of the wrong kind, a ``ValueError`` for too many or an option none could pick."""
    if not isinstance(control, _Control):  # its refusals name it: no control, nothing to name
        raise TypeError(f"read_options(): control must be one of the course's selections (a "
                        f"Dropdown, ToggleButtons or RadioButtons of widgets.sliders), got "
                        f"{control!r:.60}; pass the control the options are for, e.g. "
                        f"read_options(Dropdown(options=['a']), {options!r:.40})")
    where, example = f"{_owner(control)}options", f"{type(control).__name__}(options=['a', 'b'])"
    unordered = isinstance(options, set | frozenset)
    if isinstance(options, str | bytes | torch.Tensor | np.ndarray) or unordered \
            or not isinstance(options, Iterable):
        why = (" (text, each letter of which would be an option)" * isinstance(options, str)
               + " (a set, whose order changes from run to run)" * unordered)
        fix = "options.tolist()" if hasattr(options, "tolist") else \
            "sorted(options)" if unordered else "a list"
        raise TypeError(f"{where} must be a list or a tuple of options (or of (label, value) "
                        f"pairs), got {options!r:.80}{why}; pass {fix}, e.g. {example}")
    count = len(options) if isinstance(options, Sized) else None  # a range's is cheap
    if count is None:  # an iterator: read no more than one past the bound
        options = tuple(islice(options, MAX_OPTIONS + 1))
    if len(options) > MAX_OPTIONS:
        raise ValueError(f"{where} must hold at most {MAX_OPTIONS} options (what a learner can "
                         f"pick from in a list), got {'more' if count is None else count}; "
                         "offer fewer, e.g. every tenth, or use a slider")
    items = tuple(options.items()) if isinstance(options, Mapping) else options
    _check_items(control, where, items, options)
    return options


def _check_items(control, where: str, items, options) -> None:
    """Refuse options that are no values nor (label, value) pairs with a text label, a value none
    could pick, or two options of one label."""
    paired = any(isinstance(item, list | tuple) for item in items)
    odd = next((item for item in items if paired and not (
        isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str))), None)
    if odd is not None:
        raise TypeError(f"{where} must each be a value or, all of them, a (label, value) pair "
                        f"with a text label, got {odd!r:.60}; pass pairs such as ('one', 1), "
                        "or a value as (label, value), e.g. ('a', ('a',))")
    values = [item[1] for item in items] if paired else list(items)
    for value in values:
        if value is None or isinstance(value, float) and math.isnan(value):
            why, fix = ("None is no option chosen", "leave it out, or offer a value of its own, "
                        "e.g. ('none', 'none')") if value is None else \
                ("NaN never equals itself", "leave it out")
            raise ValueError(f"{where} must each be a value one can pick, got {value!r} ({why}, "
                             f"so it could never be picked); {fix}")
        if isinstance(value, torch.Tensor | np.ndarray):
            raise TypeError(f"{where} must each be a value, not a tensor or an array (whose "
                            f"comparison is no yes or no), got {value!r:.60}; pass x.item() or "
                            "x.tolist()")
    labels = Counter(item[0] if paired else str(item) for item in items)
    if twice := next((label for label, n in labels.items() if n > 1), None):
        raise ValueError(f"{where} must each have a label of their own (the {control.control} "
                         f"shows the labels), got {twice!r} {labels[twice]} times in "
                         f"{options!r:.80}; label each option apart")

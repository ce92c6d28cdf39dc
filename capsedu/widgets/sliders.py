"""The course widgets' sliders, dropdowns and buttons: ipywidgets' own, except that a value set
outside a slider's range is refused with a sentence, not moved to the nearest end without a word
(``w.norm.value = 50`` on a slider of 0 to 5 would otherwise show 5 as if 50 had been taken), a
slider whose min is above its max is refused naming both, a NaN min or max naming it, a step of 0
or less (or NaN) naming it, a bool or a string set as a number naming it (ipywidgets would cast
``'90'`` to 90 without a word) or None naming it, a min or max that would leave the value
outside the range naming it (ipywidgets would move the value to the new end without a word), a
value none of a dropdown's (or toggle or radio buttons') options naming the control and its
options, and options that are text (each letter an option) or None naming them. A control
built by hand, with no description, is named by its class: "IntSlider(): value must be ...". A
drag in the browser never leaves the range."""

import math
from collections.abc import Iterable

import ipywidgets as widgets
from traitlets import TraitError, validate


class OutOfRange(TraitError, ValueError):
    """A slider's value outside its range: a ``TraitError`` to traitlets (which puts the old
    value back) and, as every refusal of a value of the right kind, a ``ValueError``."""


def _owner(control) -> str:
    """Who owns ``control`` in a refusal: the widget's attribute it is (``slider_name``, e.g.
    "SquashExplorer.norm: ") or, for a control built by hand, its class ("IntSlider(): ")."""
    return f"{control.slider_name}: " if control.slider_name else f"{type(control).__name__}(): "


def _control(control, words: str) -> str:
    """``control``'s value, as a refusal names it: "SquashExplorer.norm: the slider '||s||'" by
    its description, or "IntSlider(): value" where it has none."""
    if control.description:
        return f"{_owner(control)}the {words} {control.description!r}"
    return f"{_owner(control)}value"


class _Refusing:
    """A bounded slider's value check: within ``[min, max]``, else ``OutOfRange`` naming the
    slider (``slider_name``, the widget's attribute that ``Widget`` sets, such as
    "SquashExplorer.norm", and its description), its range, what came and what to do."""

    slider_name = None
    _made = False  # True once made: while it is made, ipywidgets moves the default value in

    def __init__(self, *args, **kwargs):
        for name in ("min", "max"):  # a NaN end would refuse every value, blaming the value
            end = kwargs.get(name)
            number = isinstance(end, int | float) and not isinstance(end, bool)
            if end is not None and not (number and math.isfinite(end)):
                raise (OutOfRange if number else TypeError)(
                    f"{type(self).__name__}(): {name} must be a finite number (an end of the "
                    f"slider's range), got {end!r}; pass a number")
        low, high = kwargs.get("min"), kwargs.get("max")
        if low is not None and high is not None and low > high:
            raise OutOfRange(f"{type(self).__name__}(): min must be at most max (the slider runs "
                             f"from min up to max), got min={low!r} and max={high!r}; swap them")
        # the value set once the range stands: traitlets checks the arguments in an order that
        # changes from run to run, and a max checked first would move the value without a word
        given = {"value": kwargs.pop("value")} if "value" in kwargs else {}
        super().__init__(*args, **kwargs)
        self._made = True  # from here on, an end that leaves the value outside is refused
        for name, value in given.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name in ("value", "min", "max", "step"):
            self._check_number(name, value)
        super().__setattr__(name, value)

    def _check_number(self, name: str, value) -> None:
        """Refuse what ipywidgets would cast to a number without a word, naming ``name``."""
        # None, where traitlets would say only "expected a float, not the NoneType None"
        if value is None and name != "step":
            raise TypeError(f"{self._named(name)} must be a number, got None; pass a number")
        # a bool would be cast to 0 or 1 before any check sees it: True drawn as 1 degree
        if isinstance(value, bool):
            raise TypeError(f"{self._named(name)} must be a number, got {value!r} (a bool, which "
                            f"it would read as {int(value)}); pass a number")
        # and a string cast to the number it spells: '90' taken as 90, text never a number
        if isinstance(value, str | bytes):
            raise TypeError(f"{self._named(name)} must be a number, got {value!r} (text, which "
                            "it would read as the number it spells); pass a number, without "
                            "quotes (e.g. 90, not '90')")
        # ipywidgets' IntSlider casts 2.7 to 2 without a word: a whole number or nothing
        if isinstance(self, widgets.IntSlider) and isinstance(value, float) \
                and not value.is_integer():
            raise TypeError(f"{self._named(name)} must be a whole number (an IntSlider), got "
                            f"{value!r}, which it would cut to {int(value)}; pass an int, e.g. "
                            f"round({value!r}), or use a FloatSlider")

    def _named(self, name: str) -> str:
        """``name`` of this slider, as a refusal names it: its owner's attribute (or class) and
        description."""
        return _owner(self) + name + (f" of the slider {self.description!r}"
                                      if self.description else "")

    def _end(self, proposal, low, high):
        """An end set after the slider is made: finite, min at most max, and the value still
        between them, naming the slider (ipywidgets says only "setting max < min", takes a NaN,
        or moves the value to the new end without a word)."""
        name, end = proposal["trait"].name, proposal["value"]
        if not math.isfinite(end) or low > high:
            raise OutOfRange(f"{self._named(name)} must be a finite number with min at most max "
                             f"(the slider runs from min up to max), got min={low!r} and max="
                             f"{high!r}; set the other end first, or swap them")
        if self._made and not low <= self.value <= high:
            raise OutOfRange(f"{self._named(name)} must keep the slider's value {self.value!r} "
                             f"in its range, got {end!r}; set the value first (into "
                             f"{low:g} to {high:g}), then {name} (ipywidgets would move the "
                             "value to the new end without a word)")

    @validate("min")
    def _validate_min(self, proposal):
        self._end(proposal, proposal["value"], self.max)
        return super()._validate_min(proposal)

    @validate("max")
    def _validate_max(self, proposal):
        self._end(proposal, self.min, proposal["value"])
        return super()._validate_max(proposal)

    @validate("value")
    def _validate_value(self, proposal):
        value = proposal["value"]
        if not self.min <= value <= self.max:
            raise OutOfRange(f"{_control(self, 'slider')} must be set to a value from "
                             f"{self.min:g} to {self.max:g} (its range), got {value!r}; set a "
                             "value in that range (ipywidgets would move it to the nearest end "
                             "without a word)")
        return value

    @validate("step")
    def _validate_step(self, proposal):
        step = proposal["value"]
        if step is not None and not step > 0:  # ipywidgets takes it (0, or NaN): a slider that
            # never moves
            slider = f"the slider {self.description!r}" if self.description else "the slider"
            raise OutOfRange(f"{_owner(self)}step must be > 0 (how far one notch moves "
                             f"{slider}), got {step!r}; pass a positive step, e.g. "
                             f"{type(self).__name__}(step=1)")
        return step


class IntSlider(_Refusing, widgets.IntSlider):
    """``ipywidgets.IntSlider`` that refuses a value outside its range."""


class FloatSlider(_Refusing, widgets.FloatSlider):
    """``ipywidgets.FloatSlider`` that refuses a value outside its range."""


class _Choosing:
    """A selection's value check (a dropdown's, toggle buttons', radio buttons'): one of its
    options, else ``OutOfRange`` naming the control (``slider_name``, which ``Widget`` sets as
    for a slider, and its description), its options and what came, where ipywidgets says only
    "Invalid selection: value not found"."""

    slider_name = None
    control = "dropdown"  # the control, in words

    def __init__(self, *args, **kwargs):
        self._check_options(kwargs.get("options", ()))  # ipywidgets reads them before any check
        super().__init__(*args, **kwargs)

    def _check_options(self, options) -> None:
        """Refuse ``options`` that are no collection of options: a string (ipywidgets would make
        each of its letters an option) or None (a bare "not iterable")."""
        if isinstance(options, str | bytes) or not isinstance(options, Iterable):
            text = " (text, each letter of which would be an option)" * isinstance(options, str)
            raise TypeError(f"{_owner(self)}options must be a list or a tuple of options (or of "
                            f"(label, value) pairs), got {options!r}{text}; pass a list, e.g. "
                            f"{type(self).__name__}(options=['a', 'b'])")

    @validate("options")
    def _validate_options(self, proposal):
        self._check_options(proposal["value"])
        return super()._validate_options(proposal)

    @validate("value")
    def _validate_value(self, proposal):
        try:
            return super()._validate_value(proposal)
        except TraitError:
            self._refuse(proposal["value"])

    def __setattr__(self, name, value):
        # None, which ipywidgets takes as no option chosen before any check sees it, only where
        # there is none to choose
        if name == "value" and value is None and self._options_values:
            self._refuse(value)
        super().__setattr__(name, value)

    def _refuse(self, value):
        """Refuse ``value``, none of the options, naming the control and its options."""
        listed = ", ".join(getattr(v, "__name__", None) if callable(v) else repr(v)
                           for v in self._options_values)  # a function by its name
        raise OutOfRange(f"{_control(self, self.control)} must be set to one of its options "
                         f"{listed}, got {value!r}; pick one of those") from None


class Dropdown(_Choosing, widgets.Dropdown):
    """``ipywidgets.Dropdown`` that refuses a value none of its options."""


class ToggleButtons(_Choosing, widgets.ToggleButtons):
    """``ipywidgets.ToggleButtons`` that refuses a value none of its options."""

    control = "toggle buttons"


class RadioButtons(_Choosing, widgets.RadioButtons):
    """``ipywidgets.RadioButtons`` that refuses a value none of its options."""

    control = "radio buttons"

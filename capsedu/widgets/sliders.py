"""The course widgets' sliders, dropdowns and buttons: ipywidgets' own, except that a value set
outside a slider's range is refused with a sentence, not moved to the nearest end without a word
(``w.norm.value = 50`` on a slider of 0 to 5 would otherwise show 5 as if 50 had been taken), a
slider whose min is above its max is refused naming both, a NaN min or max naming it, a step of 0
or less (or NaN) naming it, and a value none of a dropdown's (or toggle or radio buttons') options
is refused naming the control and its options. A drag in the browser never leaves the range."""

import math

import ipywidgets as widgets
from traitlets import TraitError, validate


class OutOfRange(TraitError, ValueError):
    """A slider's value outside its range: a ``TraitError`` to traitlets (which puts the old
    value back) and, as every refusal of a value of the right kind, a ``ValueError``."""


class _Refusing:
    """A bounded slider's value check: within ``[min, max]``, else ``OutOfRange`` naming the
    slider (``slider_name``, the widget's attribute that ``Widget`` sets, such as
    "SquashExplorer.norm", and its description), its range, what came and what to do."""

    slider_name = None

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
        super().__init__(*args, **kwargs)

    def __setattr__(self, name, value):
        # a bool would be cast to 0 or 1 before any check sees it: True drawn as 1 degree
        if name in ("value", "min", "max", "step") and isinstance(value, bool):
            raise TypeError(f"{self._named(name)} must be a number, got {value!r} (a bool, which "
                            f"it would read as {int(value)}); pass a number")
        # ipywidgets' IntSlider casts 2.7 to 2 without a word: a whole number or nothing
        if (name in ("value", "min", "max", "step") and isinstance(self, widgets.IntSlider)
                and isinstance(value, float) and not value.is_integer()):
            raise TypeError(f"{self._named(name)} must be a whole number (an IntSlider), got "
                            f"{value!r}, which it would cut to {int(value)}; pass an int, e.g. "
                            f"round({value!r}), or use a FloatSlider")
        super().__setattr__(name, value)

    def _named(self, name: str) -> str:
        """``name`` of this slider, as a refusal names it: its owner's attribute (or class) and
        description."""
        owner = f"{self.slider_name}: " if self.slider_name else f"{type(self).__name__}(): "
        return owner + name + (f" of the slider {self.description!r}" if self.description else "")

    def _end(self, proposal, low, high):
        """An end set after the slider is made: finite, and min at most max, naming the slider
        (ipywidgets says only "setting max < min", or takes a NaN)."""
        name, end = proposal["trait"].name, proposal["value"]
        if not math.isfinite(end) or low > high:
            raise OutOfRange(f"{self._named(name)} must be a finite number with min at most max "
                             f"(the slider runs from min up to max), got min={low!r} and max="
                             f"{high!r}; set the other end first, or swap them")

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
            owner = f"{self.slider_name}: " if self.slider_name else ""
            raise OutOfRange(f"{owner}the slider {self.description!r} must be set to a value "
                             f"from {self.min:g} to {self.max:g} (its range), got {value!r}; set "
                             "a value in that range (ipywidgets would move it to the nearest end "
                             "without a word)")
        return value

    @validate("step")
    def _validate_step(self, proposal):
        step = proposal["value"]
        if step is not None and not step > 0:  # ipywidgets takes it (0, or NaN): a slider that
            # never moves
            owner = f"{self.slider_name}: " if self.slider_name else f"{type(self).__name__}(): "
            slider = f"the slider {self.description!r}" if self.description else "the slider"
            raise OutOfRange(f"{owner}step must be > 0 (how far one notch moves {slider}), got "
                             f"{step!r}; pass a positive step, e.g. {type(self).__name__}(step=1)")
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

    @validate("value")
    def _validate_value(self, proposal):
        try:
            return super()._validate_value(proposal)
        except TraitError:
            owner = f"{self.slider_name}: " if self.slider_name else ""
            listed = ", ".join(getattr(v, "__name__", None) if callable(v) else repr(v)
                               for v in self._options_values)  # a function by its name
            raise OutOfRange(f"{owner}the {self.control} {self.description!r} must be set to one "
                             f"of its options {listed}, got {proposal['value']!r}; pick one of "
                             "those") from None


class Dropdown(_Choosing, widgets.Dropdown):
    """``ipywidgets.Dropdown`` that refuses a value none of its options."""


class ToggleButtons(_Choosing, widgets.ToggleButtons):
    """``ipywidgets.ToggleButtons`` that refuses a value none of its options."""

    control = "toggle buttons"


class RadioButtons(_Choosing, widgets.RadioButtons):
    """``ipywidgets.RadioButtons`` that refuses a value none of its options."""

    control = "radio buttons"

"""The course widgets' sliders, dropdowns and buttons: ipywidgets' own, except that a value set
outside a slider's range is refused with a sentence, not moved to the nearest end without a word
(``w.norm.value = 50`` on a slider of 0 to 5 would otherwise show 5 as if 50 had been taken), a
slider whose min is above its max is refused naming both, a NaN min or max naming it, a step of 0
or less (or NaN) naming it, a bool or a string set as a number naming it (ipywidgets would cast
``'90'`` to 90 without a word) or None naming it, a min or max that would leave the value
outside the range naming it (ipywidgets would move the value to the new end without a word), a
value none of a dropdown's (or toggle or radio buttons') options naming the control and its
options, and options that are text (each letter an option) or None naming them. A slider knows
the range its widget computes (``limits``: the range it was made with, unless declared wider;
fixed once made, but for its widget's own ``span``) and refuses a min or max beyond it, and a
step longer than its range; a selection refuses options that are empty, that read alike (two of
one label), that drop its value (ipywidgets would move the value to the first option without a
word: ``replace_options`` changes both at once) or, on a widget's own control, that its widget
cannot compute, and an index or label none of its options (an index that is no int, a label
that is no text). A control built by hand, with no description, is named by
its class: "IntSlider(): value must be ...". A drag in the browser never leaves the range.
What every control shares (a keyword it lacks, or one its trait cannot take, refused in the
course's words; arguments by position, a slider's value, min, max and step, a selection's options
and value) is ``widgets.controls``; a selection's options are read and checked by
``widgets.options``."""

import math
import numbers
from collections.abc import Iterable

import ipywidgets as widgets
from ipywidgets.widgets.widget_selection import _make_options
from traitlets import TraitError, validate

from ..refusals import MAX_FLOAT, is_number, shown, unmasked
from ..validate import Float, check_value
from .controls import OutOfRange, _by_position, _Control, _control, _listed, _owner
from .options import read_options

# the furthest from 0 an IntSlider's numbers go: the browser counts in doubles, which hold every
# whole number only up to 2**53 (past it, 2**53 + 1 would show as 2**53)
MAX_WHOLE = 2**53
# an end of a slider's range, as span() takes it: any finite number, whole ones within MAX_WHOLE
END = Float("an end of the slider's range")
WHOLE_END = Float("an end of an IntSlider's range", ge=-MAX_WHOLE, le=MAX_WHOLE)


def _beyond_floats(value) -> bool:
    """Whether ``value`` is a whole number past what a float holds (``10**400``)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) \
        and abs(value) > MAX_FLOAT


def _finite(value) -> bool:
    """Whether the number ``value`` is finite as a float holds it (an int past ``MAX_FLOAT`` is
    not: ``math.isfinite`` would raise an OverflowError)."""
    return not _beyond_floats(value) and math.isfinite(value)


class _Refusing(_Control):
    """A bounded slider's value check: within ``[min, max]``, else ``OutOfRange`` naming the
    slider (``slider_name`` and its description), its range, what came and what to do.

    ``limits``: the range its widget computes, ``(low, high)``, which min and max never leave
    (by default the range it is made with: a widget's function refuses beyond it). Checked when
    the slider is made; after, only its widget moves it (``span``)."""

    _keywords = ("limits",)

    def __init__(self, *args, limits: tuple[float, float] | None = None, **kwargs):
        # by position, as ipywidgets takes them: checked as by name (a value given by position
        # would reach ipywidgets, which moves it into the range without a word)
        kwargs = _by_position(type(self), ("value", "min", "max", "step"), args, kwargs)
        for name in ("min", "max"):  # a NaN end would refuse every value, blaming the value
            end = kwargs.get(name)
            if end is not None and (far := self._too_far(end)):  # 10**400: OverflowError
                raise OutOfRange(f"{type(self).__name__}(): {name} {far}")
            if end is not None and not (is_number(end) and math.isfinite(end)):
                raise (OutOfRange if is_number(end) else TypeError)(
                    f"{type(self).__name__}(): {name} must be a finite number (an end of the "
                    f"slider's range), got {end!r}; pass a number")
        low, high = kwargs.get("min"), kwargs.get("max")
        if low is not None and high is not None and low > high:
            raise OutOfRange(f"{type(self).__name__}(): min must be at most max (the slider runs "
                             f"from min up to max), got min={low!r} and max={high!r}; swap them")
        # the value set once the range stands: traitlets cross-validates the arguments in the
        # order of a set of their names, which changes from run to run (PYTHONHASHSEED), and a
        # max checked first would move the value without a word
        given = {"value": kwargs.pop("value")} if "value" in kwargs else {}
        super().__init__(**kwargs)
        self.limits = (self.min, self.max) if limits is None else limits
        self._computes = self.limits  # what a widget's own slider may span
        self._check_step(self.step)
        self._made = True  # from here on, an end that leaves the value outside is refused
        for name, value in given.items():
            setattr(self, name, value)

    def _check_limits(self, limits, low, high) -> tuple:
        """Refuse ``limits`` that are no range holding ``low`` to ``high`` (the slider's min and
        max): two finite numbers, low at most high (whole numbers for an IntSlider)."""
        whole = isinstance(self, widgets.IntSlider)
        unmasked(limits, self._named("limits"))  # a mask's ends would be read as numbers
        pair = not isinstance(limits, str | bytes) and isinstance(limits, Iterable) \
            and getattr(limits, "ndim", 1) == 1 and len(limits := tuple(limits)) == 2 \
            and all(map(is_number, limits))  # a 0-d array, iterable by its type, holds no pair
        if not pair or not all(_finite(end) and (not whole or float(end).is_integer())
                               for end in limits) or not limits[0] <= low <= high <= limits[1]:
            kind = "whole numbers" if whole else "finite numbers"
            got = f"({shown(limits[0])}, {shown(limits[1])})" if pair else f"{limits!r:.80}"
            raise (OutOfRange if pair else TypeError)(
                f"{self._named('limits')} must be two {kind} (low, high), the range its widget "
                f"computes, holding its min and max ({low:g} to {high:g}), got {got}; "
                f"pass e.g. ({low:g}, {high:g})")
        return limits

    def span(self, low, high=None) -> None:
        """Move the range its widget computes (``limits``) to ``low`` to ``high``, and the
        slider's min and max with it: a widget's own change (RotationExplorer's layer of other
        channels), within the range its widget was made to compute. Checked whole before any end
        moves: the value must lie in it already, and the step fit; a slider built by hand spans
        within the limits it was made with alike. The two ends come apart (``span(0, 1)``);
        ``high`` left out is refused, saying so."""
        low, high = self._check_span(low, high)
        kept = self.limits
        # the ends move one by one, widening first: each range between holds the new one
        super().__setattr__("limits", (min(low, self.min), max(high, self.max)))
        try:
            for name in ("max", "min") if high > self.max else ("min", "max"):
                setattr(self, name, {"min": low, "max": high}[name])
        except TraitError:  # none the checks let through: the slider left as it was
            super().__setattr__("limits", kept)
            raise
        super().__setattr__("limits", (low, high))

    def _check_span(self, low, high) -> tuple:
        """Refuse a span that is no range (two finite numbers, low at most high; whole for an
        IntSlider), one beyond the limits the slider was made with (what a widget's own slider
        computes), one without the value, or one shorter than the step, naming ``span()``."""
        where = f"{self.slider_name or type(self).__name__}.span"
        if high is None:  # span((0, 1)): the range as one pair
            pair = isinstance(low, tuple | list) and len(low) == 2
            fix = f"span({low[0]!r}, {low[1]!r})" if pair else "span(0, 1)"
            raise TypeError(f"{where}(): takes the range's two ends apart, low and high, got "
                            f"only {low!r:.60}; pass them apart, e.g. {fix}")
        declared = WHOLE_END if isinstance(self, widgets.IntSlider) else END
        low, high = (check_value(where, name, declared, end)
                     for name, end in (("low", low), ("high", high)))
        bottom, top = self._computes
        bounds = ("the range its widget computes" if self.slider_name else "the slider's limits, "
                  "fixed when it is made")
        whole = not isinstance(self, widgets.IntSlider) or low.is_integer() and high.is_integer()
        refused = next(((must, fix) for right, must, fix in (
            (whole, "whole numbers (an IntSlider)", "pass whole numbers"),
            (low <= high, "low at most high (the slider runs from low up to high)",
             f"swap them: span({high:g}, {low:g})"),
            (bottom <= low <= high <= top, f"within {bottom:g} to {top:g} ({bounds})",
             "pass a range within it" if self.slider_name else "pass a range within them, or "
             f"make a slider with wider ones: {type(self).__name__}(..., limits=(low, high))"),
            (low <= self.value <= high, f"a range holding the slider's value {self.value!r}",
             "set the value into the new range first"),
            (self.step is None or not 0 < high - low < self.step, f"at least the step "
             f"{self.step!r} apart", "set a smaller step first")) if not right), None)
        if refused:
            raise OutOfRange(f"{where}(): low and high must be {refused[0]}, got ({low:g}, "
                             f"{high:g}); {refused[1]}")
        return type(self.min)(low), type(self.min)(high)  # an IntSlider's as ints

    def __setattr__(self, name, value):
        if name in ("value", "min", "max", "step"):
            self._check_number(name, value)
        if name == "limits" and self._made:  # a learner's wider limits: ends the widget refuses
            raise AttributeError(f"{self._named('limits')} is the range its widget computes, "
                                 f"fixed when the slider is made ({self.limits[0]:g} to "
                                 f"{self.limits[1]:g}), got {value!r}; set min and max within "
                                 "it, or make a slider with other limits")
        if name == "limits":
            value = self._check_limits(value, self.min, self.max)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name == "limits":  # every end set later is checked against it
            raise AttributeError(f"{self._named('limits')} is the range its widget computes, "
                                 "fixed when the slider is made; it cannot be deleted (make a "
                                 "slider with other limits instead)")
        super().__delattr__(name)

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
        # a list, an array, a complex number: ipywidgets' bare "expected a float"
        if value is not None and not is_number(value):
            raise TypeError(f"{self._named(name)} must be a number (an int or a float), got "
                            f"{value!r:.60}; pass one number (x.item() of a one-element array)")
        if value is not None and (far := self._too_far(value)):  # a float cannot hold it
            raise OutOfRange(f"{self._named(name)} {far}")
        if not isinstance(self, widgets.IntSlider) or value is None:
            return
        # ipywidgets' IntSlider casts 2.7 to 2 without a word: a whole number or nothing
        if isinstance(value, float) and not value.is_integer():
            cut = f", which it would cut to {int(value)}; pass an int, e.g. round({value!r})" \
                if math.isfinite(value) else "; pass an int"
            raise TypeError(f"{self._named(name)} must be a whole number (an IntSlider), got "
                            f"{value!r}{cut}, or use a FloatSlider")

    def _too_far(self, value) -> str | None:
        """What is wrong with a number further from 0 than the slider's numbers go (past what
        the browser counts exactly for an IntSlider, what a float holds for a FloatSlider), as
        a refusal says it after the argument's name; None for one within."""
        if not is_number(value):
            return None
        if isinstance(self, widgets.IntSlider) and (_beyond_floats(value) or math.isfinite(
                value) and abs(value) > MAX_WHOLE):  # beyond what the browser counts exactly
            return (f"must be from -2**53 to 2**53 (the whole numbers a browser shows exactly), "
                    f"got {shown(value)}; pass a number within that")
        if _beyond_floats(value):
            return (f"must be a finite number within -{MAX_FLOAT:.2g} to {MAX_FLOAT:.2g} (what a "
                    f"float, the slider's number, holds), got {shown(value)}; pass a number "
                    "within that")
        return None

    def _end(self, proposal, low, high):
        """An end set after the slider is made: finite, min at most max, within ``limits``, the
        value still between them and the step no longer than the range, naming the slider
        (ipywidgets says only "setting max < min", takes a NaN, moves the value to the new end
        without a word, or takes a range the widget cannot compute)."""
        name, end = proposal["trait"].name, proposal["value"]
        if not math.isfinite(end) or low > high:
            raise OutOfRange(f"{self._named(name)} must be a finite number with min at most max "
                             f"(the slider runs from min up to max), got min={low!r} and max="
                             f"{high!r}; set the other end first, or swap them")
        if not self._made:
            return
        bottom, top = self.limits
        if not bottom <= end <= top:
            raise OutOfRange(f"{self._named(name)} must stay from {bottom:g} to {top:g} (its "
                             f"limits: the range its widget computes), got {end!r}; set {name} "
                             "within that range")
        if self.step is not None and 0 < high - low < self.step:  # as _check_step, by the end
            raise OutOfRange(f"{self._named(name)} must leave the slider a range (max - min) at "
                             f"least as long as its step, {self.step:g}, got {end!r} (a range of "
                             f"{high - low:g}); set a smaller step first")
        if not low <= self.value <= high:
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
        if self._made:
            self._check_step(step)
        return step

    def _check_step(self, step) -> None:
        """Refuse a step longer than the range (max - min): one notch would leave it, and the
        slider could show only its ends. A range of one value has no step to take."""
        span = self.max - self.min
        if step is not None and 0 < span < step:
            raise OutOfRange(f"{self._named('step')} must be at most the slider's range, "
                             f"{span:g} (max - min), got {step!r}; pass a smaller step, or "
                             "widen the range")


class IntSlider(_Refusing, widgets.IntSlider):
    """``ipywidgets.IntSlider`` that refuses a value outside its range."""


class FloatSlider(_Refusing, widgets.FloatSlider):
    """``ipywidgets.FloatSlider`` that refuses a value outside its range."""


class _Choosing(_Control):
    """A selection's checks (a dropdown's, toggle buttons', radio buttons'): a value, an index or
    a label one of its options, else ``OutOfRange`` naming the control (``slider_name`` and its
    description), its options and what came, where ipywidgets says only "Invalid selection: value
    not found"; options given that are none, or read alike, or (once made) drop its value are
    refused, and options that keep it keep it (ipywidgets would move it to the first). Options
    and a value may come by position; an index, a label and a value given together must pick one
    option."""

    control = "dropdown"
    _keywords = ("equals",)  # ipywidgets' own: how two values compare
    _replacing = False  # True while ``replace_options`` changes the options and the value

    def __init__(self, *args, **kwargs):
        # by position as the sliders take theirs: options first, then the value
        kwargs = _by_position(type(self), ("options", "value"), args, kwargs)
        if "options" in kwargs:  # read once, and checked before ipywidgets reads them
            kwargs["options"] = options = read_options(self, kwargs["options"])
            if not len(options):  # left out, none is chosen (ipywidgets')
                self._refuse_empty(options)
        super().__init__(**kwargs)
        self._computes = self._options_values  # what a widget's own control may offer
        self._made = True
        self._check_agreeing({name: kwargs[name] for name in ("index", "label", "value")
                              if name in kwargs})

    def _check_agreeing(self, picks: dict) -> None:
        """Refuse an index, a label and a value given together that pick different options
        (ipywidgets would take one of them without a word); agreeing ones are taken."""
        chosen = {name: (pick if name == "index" else self._options_labels.index(pick)
                         if name == "label" else next(k for k, v in enumerate(
                             self._options_values) if self.equals(v, pick)))
                  for name, pick in picks.items()}
        if len(set(chosen.values())) > 1:
            given = " and ".join(f"{name}={pick!r}" for name, pick in picks.items())
            raise ValueError(f"{type(self).__name__}(): {given} pick different options ("
                             f"{', '.join(f'{self._options_labels[k]!r}' for k in chosen.values())}"
                             "); pass one of them")

    def _refuse_empty(self, options):
        """Refuse options that hold none: nothing to pick (the value would be None)."""
        raise ValueError(f"{self._named('options')} must hold at least one option (something to "
                         f"pick), got {options!r}; pass one or more, e.g. "
                         f"{type(self).__name__}(options=['a', 'b'])")

    @validate("options")
    def _validate_options(self, proposal):
        proposal["value"] = options = read_options(self, proposal["value"])
        values = [value for _, value in _make_options(options)] if self._made else []
        if self._made and not self._replacing and self.value is not None \
                and not any(self.equals(v, self.value) for v in values):
            raise OutOfRange(f"{self._named('options')} must keep its value {self.value!r} "
                             f"among them, got {options!r}; set a value the new options keep "
                             f"first, or call replace_options(options, value) to change both "
                             "(ipywidgets would move the value to the first option without a "
                             "word)")
        return super()._validate_options(proposal)

    def replace_options(self, options, value=None) -> None:
        """Change the options and the value together: ``value`` one of the new ``options`` (by
        default the first), where a change of options alone must keep the value."""
        self._replacing = True
        try:
            self.options = options
        finally:
            self._replacing = False
        if value is not None:
            self.value = value

    @validate("value")
    def _validate_value(self, proposal):
        try:
            return super()._validate_value(proposal)
        except (TraitError, TypeError):  # TypeError: ipywidgets formats a tuple with %
            self._refuse(proposal["value"])

    @validate("index")
    def _validate_index(self, proposal):
        return self._picked(super()._validate_index, proposal)

    @validate("label")
    def _validate_label(self, proposal):
        return self._picked(super()._validate_label, proposal)

    def _picked(self, validator, proposal):
        """ipywidgets' own check of a new index or label (``validator``), refused in the
        course's words."""
        try:
            return validator(proposal)
        except TraitError:
            name = proposal["trait"].name
            raise OutOfRange(self._pick_refused(name, proposal["value"])) from None

    def _pick_refused(self, name: str, value, kind: str = "") -> str:
        """The refusal of ``value`` set as the ``index`` or the ``label``: what it must be, what
        came (``kind``: what it is, where it is no int or no text) and what to do."""
        if name == "label":
            return (f"{self._named('label')} must be one of its labels "
                    f"{', '.join(map(repr, self._options_labels))}, got {value!r}{kind}; pick "
                    "one of those, as written")
        n = len(self._options_labels)
        return (f"{self._named('index')} must be from 0 to {n - 1} (one of its {n} options, "
                f"counted from 0), got {value!r}{kind}; pass an index in that range (the last "
                f"is {n - 1}, not -1)")

    def _check_pick(self, name: str, value) -> None:
        """Refuse an index that is no int (ipywidgets takes True and 1.0 as 1; '1' meets a bare
        TraitError) or a label that is no text, and None (no option chosen, which ipywidgets
        passes on to the value) where there are options."""
        right = isinstance(value, str) if name == "label" else \
            isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if not right and (value is not None or self._options_values):
            kind = "" if value is None else f" (of type {type(value).__name__}, not " + \
                ("text)" if name == "label" else "an int)")
            raise TypeError(self._pick_refused(name, value, kind))

    def _check_computed(self, options) -> None:
        """Refuse, on a widget's own control (``slider_name``), an option its widget cannot
        compute: one it was not made with (a layer the model lacks, a routing step it has not);
        a control built by hand takes any."""
        strange = [value for _, value in _make_options(options)
                   if not any(self.equals(value, known) for known in self._computes)]
        if self.slider_name and strange:
            raise OutOfRange(f"{self._named('options')} must be among the options its widget "
                             f"computes, {_listed(self._computes)}, got {strange[0]!r}; pick "
                             "among those (replace_options(options) may leave some out)")

    def __setattr__(self, name, value):
        if self._made and name == "options":  # None too, which traitlets takes unchecked
            value = read_options(self, value)
            if not len(value):
                self._refuse_empty(value)
            self._check_computed(value)
        if name in ("index", "label"):  # given when it is made, too
            self._check_pick(name, value)
        # None, which ipywidgets takes as no option chosen before any check sees it, only where
        # there is none to choose
        if name == "value" and value is None and self._options_values:
            self._refuse(value)
        kept = self.value if name == "options" and self._made and not self._replacing else None
        super().__setattr__(name, value)
        if kept is not None and not self.equals(self.value, kept):  # ipywidgets chose the first
            self.value = kept

    def _refuse(self, value):
        """Refuse ``value``, none of the options, naming the control and its options (and, for
        one of its (label, value) pairs, the value to set)."""
        listed = _listed(self._options_values)
        pairs = list(zip(self._options_labels, self._options_values, strict=True))
        pair = (f" (a (label, value) pair, as .options lists them: set its value, "
                f"{value[1]!r})" if isinstance(value, tuple) and value in pairs else "")
        raise OutOfRange(f"{_control(self, self.control)} must be set to one of its options "
                         f"{listed}, got {value!r}{pair}; pick one of those") from None


class Dropdown(_Choosing, widgets.Dropdown):
    """``ipywidgets.Dropdown`` that refuses a value none of its options."""


class ToggleButtons(_Choosing, widgets.ToggleButtons):
    """``ipywidgets.ToggleButtons`` that refuses a value none of its options, and tooltips that
    are not one per button (or none): ipywidgets leaves a button without one, or one unused."""

    control = "toggle buttons"

    def _check_tooltips(self, tooltips, options) -> None:
        """Refuse ``tooltips`` that are neither one per option of ``options`` nor none."""
        labels = [label for label, _ in _make_options(options)]
        if tooltips and len(tooltips) != len(labels):
            raise ValueError(f"{self._named('tooltips')} must be one per option (the options "
                             f"{', '.join(map(repr, labels)):.80}) or none, got {len(tooltips)}: "
                             f"{tuple(tooltips)!r:.80}; pass {len(labels)} tooltips, or none (to "
                             "change how many options it has, set tooltips=() first)")

    @validate("tooltips")
    def _validate_tooltips(self, proposal):
        self._check_tooltips(proposal["value"], self._options_full)
        return proposal["value"]

    @validate("options")
    def _validate_options(self, proposal):
        options = super()._validate_options(proposal)
        self._check_tooltips(self.tooltips, options)
        return options


class RadioButtons(_Choosing, widgets.RadioButtons):
    """``ipywidgets.RadioButtons`` that refuses a value none of its options."""

    control = "radio buttons"

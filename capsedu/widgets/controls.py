"""What the course's controls (``widgets.sliders``) share: how a refusal names a control, and
one check of every keyword and trait, so that nothing reaches the learner in traitlets' words.
A keyword no control has is refused naming the control's keywords (traitlets would only warn),
a value by position and by name naming it (as Python would), and a value a trait cannot take
(``readout='yes'``, ``orientation='diagonal'``, ``style='bold'``) naming the control, the trait,
what it takes and what came, whether given when the control is made or set later."""


import numpy as np
import traitlets
from traitlets import TraitError

# a control's plumbing, traits no learner passes: left out of the keywords a refusal lists
_PLUMBING = ("comm", "keys", "log")


class OutOfRange(TraitError, ValueError):
    """A slider's value outside its range: a ``TraitError`` to traitlets (which puts the old
    value back) and, as every refusal of a value of the right kind, a ``ValueError``."""


class WrongKind(TraitError, TypeError):
    """A value of a kind a control's trait does not take (a string for a flag): a ``TraitError``
    to traitlets and, as every refusal of the wrong kind of value, a ``TypeError``."""


def _listed(values) -> str:
    """A selection's option values, as a refusal lists them: a function by its name."""
    return ", ".join(getattr(v, "__name__", None) if callable(v) else repr(v) for v in values)


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


def _by_position(cls, names: tuple, args: tuple, kwargs: dict) -> dict:
    """The keywords of ``cls(*args, **kwargs)``, ``args`` taken as ``names`` in order (as
    ipywidgets' sliders take value, min, max and step); one given both ways is refused, as
    Python refuses it, rather than the keyword winning without a word."""
    where = f"{cls.__name__}()"
    if len(args) > len(names):
        raise TypeError(f"{where}: takes {', '.join(names)} by position, got {len(args)} values; "
                        "pass the others by name")
    given = dict(zip(names, args, strict=False))
    if twice := next((name for name in given if name in kwargs), None):
        raise TypeError(f"{where}: got two values for {twice}, {given[twice]!r} by position and "
                        f"{kwargs[twice]!r} by name ({twice}=); pass it once")
    return given | kwargs


def _name_controls(name: str, value) -> None:
    """Tell each control in ``value`` the attribute ``name`` it is (``slider_name``): a control
    itself, each of a dict, a list or a tuple of them ("ViewpointExplorer.sliders['scale']"),
    and each control of an ``Owner`` held inside ("FaceVerdicts.editor.x")."""
    controls = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list | tuple) else [(None, value)]
    for key, control in controls:
        named = name if key is None else f"{name}[{key!r}]"
        if isinstance(control, _Control):
            control.slider_name = named
        elif isinstance(control, Owner):
            for attribute, inner in vars(control).items():
                _name_controls(f"{named}.{attribute}", inner)


class Owner:
    """An object whose controls are its own (a course widget, a ``PartsEditor``): each control
    set as its attribute learns the attribute it is (``slider_name``), so that its refusal names
    it ("SquashExplorer.norm: the slider '||s||' must be ...") and its ranges are bounded by what
    its owner computes (a hand-made control's are free). An owner held by another is named by
    the other's attribute ("FaceVerdicts.editor.x")."""

    def __setattr__(self, name, value):
        held = getattr(self, name, None)
        if isinstance(held, _Control) and not isinstance(value, _Control):  # w.norm = 5
            raise TypeError(f"{type(self).__name__}.{name} is the widget's {held.control}, got "
                            f"{value!r:.60} set in its place (the {held.control} on screen would "
                            f"stay as it is); set its value instead: .{name}.value = {value!r:.40}")
        _name_controls(f"{type(self).__name__}.{name}", value)
        super().__setattr__(name, value)


class _Control:
    """What the course's controls share: the widget's attribute they are (``slider_name``, which
    ``Widget`` sets, such as "SquashExplorer.norm"), the control in words, whether it is made
    (while it is made, ipywidgets sets its traits in an order of its own), and the check of its
    keywords and traits."""

    slider_name = None
    control = "slider"  # the control, in words
    _made = False
    _keywords = ()  # keywords a control takes that are no trait of it (a dropdown's equals)

    def __init__(self, **kwargs):
        unknown = [name for name in kwargs
                   if not self.has_trait(name) and name not in self._keywords]
        if unknown:  # traitlets would only warn, and the control ignore it
            taken = sorted({name for name in self.trait_names() if not name.startswith("_")
                            and name not in _PLUMBING} | set(self._keywords))
            raise TypeError(f"{type(self).__name__}(): {unknown[0]} is no keyword of "
                            f"{type(self).__name__}(); pass keywords among {', '.join(taken)}")
        super().__init__(**kwargs)

    def __setattr__(self, name, value):
        # ipywidgets' bare "expected a unicode string"
        if name == "description" and not isinstance(value, str):
            raise TypeError(f"{_owner(self)}description must be text (the words shown beside "
                            f"the {self.control}), got {value!r}; pass a string, e.g. "
                            f"description='{value}'")
        if isinstance(value, np.bool_) and isinstance(self.traits().get(name), traitlets.Bool):
            value = bool(value)  # NumPy's boolean (disabled=x.max() > 1) is a flag as Python's
        try:
            super().__setattr__(name, value)
        except TraitError as err:
            if isinstance(err, OutOfRange | WrongKind) or not self.has_trait(name):
                raise
            raise self._untaken(name, value) from None

    def _untaken(self, name: str, value) -> TraitError:
        """The refusal of ``value``, which the trait ``name`` cannot take, in the course's words:
        out of range where it is of the trait's kind (a text none of its choices), else of the
        wrong kind."""
        trait, now = self.traits()[name], getattr(self, name, None)
        plain = isinstance(now, bool | int | float | str)
        example = f", e.g. {name}={now!r}" if plain else \
            f" (or a dict of its settings: {name}={{...}})" * isinstance(trait, traitlets.Instance)
        kind = OutOfRange if plain and type(value) is type(now) else WrongKind
        module = type(value).__module__  # NumPy's bool by its module: numpy.bool, not bool
        named = type(value).__name__ if module == "builtins" else f"{module}.{type(value).__name__}"
        return kind(f"{self._named(name)} must be {trait.info()}, got {value!r:.60} (of type "
                    f"{named}); pass {trait.info()}{example}")

    def __delattr__(self, name):
        """Refuse deleting a setting (traitlets says only "__delete__"): a control keeps each."""
        if self.has_trait(name) or name in self._keywords:
            now = getattr(self, name, None)
            example = f", e.g. {name}={now!r}" if isinstance(now, bool | int | float | str) else ""
            raise AttributeError(f"{self._named(name)} cannot be deleted (a control keeps every "
                                 f"setting it has); set it to another value instead{example}")
        super().__delattr__(name)

    def _named(self, name: str) -> str:
        """``name`` of this control, as a refusal names it: its owner's attribute (or class) and
        description."""
        return _owner(self) + name + (f" of the {self.control} {self.description!r}"
                                      if self.description else "")

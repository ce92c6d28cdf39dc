"""The parser of every command line of the course (``python -m capsedu.train``, the recorded
experiments', ``parts.curves``'): argparse's, except that an option given twice is refused, naming
it (``CourseParser``), and so is an item given twice to an option that takes several
(``EachOnce``: ``--seeds 0 0``). Both are argparse's classes, declared at their constructors: a
refusal names ``CourseParser(): prog``, not an error deep inside argparse."""

import argparse
import difflib
import functools
import re
import sys
from typing import Any

from .course_settings import Name, Text
from .validate import checked


class EachOnce(argparse.Action):
    """``nargs="+"`` items that must all differ (``--seeds 0 0`` would train one run twice and
    count it twice over the seeds): a repeat is refused, naming the option."""

    @checked
    def __init__(self, option_strings: list[Text], dest: Name, **rest: Any):
        """argparse's action for the options ``option_strings`` (``["--seeds"]``) stored as
        ``dest``; ``rest``: argparse's other keywords (``nargs``, ``type``, ``default``, ...)."""
        super().__init__(option_strings, dest, **rest)

    def __call__(self, parser, namespace, values, option_string=None):
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        if repeated:
            parser.error(f"argument {option_string}: each must be given once, got "
                         f"{', '.join(repeated)} more than once; drop the repeats")
        setattr(namespace, self.dest, values)


class CourseParser(argparse.ArgumentParser):
    """The parser of every command line of the course: ``argparse``'s, except that an option
    given twice (``--epochs 1 --epochs 2``, ``--seeds 0 --seeds 1``) is refused, naming it, where
    argparse keeps the last without a word (a run of another budget, a seed dropped), and an
    option is never abbreviated (``--replace`` would be ``--replace-shipped``, ``--epoch``
    ``--epochs``)."""

    @checked
    def __init__(self, prog: Text | None = None, description: Text | None = None, **rest: Any):
        """argparse's parser of the command ``prog`` (None: the script's name), ``description``
        shown above its options; ``rest``: argparse's other keywords (``formatter_class``, ...)."""
        super().__init__(prog=prog, description=description, **rest)

    def error(self, message):
        """argparse's ``message``, without the option named twice (the type's words name it,
        ``integer``); a value given to a switch refused in words that say it takes none; an unknown
        option with the closest one named."""
        message = re.sub(r"^(argument \S+: )--.*? (?=must )", r"\1", message)
        if switch := re.match(r"argument (\S+): ignored explicit argument (.*)", message):
            message = (f"{switch[1]} is a switch, taking no value, got {switch[1]}={switch[2]}; "
                       f"give {switch[1]} alone to switch it on, or leave it out")
        if unknown := re.match(r"unrecognized arguments: (--[\w-]+)", message):
            options = [option for action in self._actions for option in action.option_strings]
            close = difflib.get_close_matches(unknown[1], options, n=1)
            message += f"; did you mean {close[0]}? (no option is abbreviated)" if close else ""
            if "--" in getattr(self, "args_given", ()):  # after it an option is read as a name
                message = (f"unrecognized arguments: {message.split(': ', 1)[1].split(';')[0]}, "
                           "given after '--', which makes every word after it a name, not an "
                           "option; drop the '--'")
        super().error(message)

    def parse_known_args(self, args=None, namespace=None):
        for action in self._actions:  # every option, however it was added (groups too)
            if action.option_strings and not isinstance(action, _Once):
                action.__class__ = _once(type(action))
        self.options_given = {}  # dest -> the option as given, as the actions meet them
        self.args_given = list(sys.argv[1:] if args is None else args)
        self.allow_abbrev = False  # --replace is no --replace-shipped, --epoch no --epochs
        return super().parse_known_args(args, namespace)


class _Once:
    """The mark of an action that ``CourseParser`` has made refuse a second time."""


@functools.cache
def _once(action: type) -> type:
    """``action`` (an ``argparse.Action`` class) refusing its option a second time."""

    def call(self, parser, namespace, values, option_string=None):
        shown = " ".join(map(str, values)) if isinstance(values, list) else str(values)
        given = f"{option_string} {shown}".strip() if values is not None else option_string
        first = parser.options_given.get(self.dest)
        if first is not None:
            parser.error(f"argument {option_string}: must be given once, got {first} and "
                         f"{given}; give it once (argparse would keep the last without a word)")
        parser.options_given[self.dest] = given
        action.__call__(self, parser, namespace, values, option_string)

    return type(action.__name__, (_Once, action), {"__call__": call})

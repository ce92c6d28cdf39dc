"""A progress bar that a notebook's kernel can keep up with: ``progress_bar``, what the training
loop and the experiments show while they run."""

import difflib
import sys

import tqdm
import tqdm.auto

from . import course_settings
from .course_settings import Text
from .validate import Flag, Has, Int, check_value, checked

PROGRESS_UPDATES_PER_S = 2  # how often a live progress bar may redraw
# and how many times in all, however slow the machine: a bar's messages to the browser stay
# bounded (the kernel's output channel drops messages past about a thousand, nbval's among them)
PROGRESS_REDRAWS = 50
TEXT_PROGRESS_INTERVAL_S = 30  # a stored text bar: one line every 30 s at most, the last kept
Progress = Flag("True to show a progress bar")
# the tqdm keywords progress_bar sets itself, which a caller's would clash with
SET_HERE = {"iterable", "desc", "disable", "leave", "file", "mininterval", "miniters",
            "maxinterval"}
# the tqdm keywords a caller may add, each declared: tqdm ignores a value of the wrong kind
PASSED_ON = {"unit": Text, "unit_scale": Flag("True to show 1.2k for 1200"), "colour": Text,
             "initial": Int("the count the bar starts at", ge=0),
             "position": Int("the line the bar is drawn on", ge=0)}


@checked
def progress_bar(iterable: Has("what the bar counts", "__iter__",
                                source="a range, a list or a DataLoader"),
                 desc: str, progress: Progress = True,
                 total: Int("how many items the bar counts to", ge=0) | None = None, **kwargs):
    """A bar over ``iterable`` (``progress=False``: none). Live, tqdm.auto's (a widget in a
    notebook), redrawn at most ``PROGRESS_UPDATES_PER_S`` times a second and ``PROGRESS_REDRAWS``
    times in all (so a slow machine sends no more messages than a fast one), which it erases when
    done: in a notebook every redraw is a message to the browser, and a flood of them overruns
    the kernel's output channel. With ``course_settings.TEXT_PROGRESS`` (the website's build), a
    text bar on stdout that keeps its finished line, which is what a stored page shows.
    ``total``: the count the bar goes to where ``iterable`` has no length (a generator);
    ``kwargs``: more of tqdm's keywords, those of ``PASSED_ON`` (e.g. ``unit``), each refused by
    name unless declared there and its value of the declared kind (a typo, or a wrong value,
    would be dropped without a word)."""
    for name, value in kwargs.items():
        if name not in PASSED_ON:
            close = difflib.get_close_matches(name, sorted({*PASSED_ON, "total"}), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise TypeError(f"progress_bar(): {name} is not a keyword of tqdm's that progress_bar "
                            f"passes on; {hint}"
                            + ("progress_bar sets it itself" if name in SET_HERE else
                               f"it passes on {', '.join(PASSED_ON)}"))
        check_value("progress_bar", name, PASSED_ON[name], value)
    try:  # a redraw every 1/PROGRESS_REDRAWS of the way at most (maxinterval: no forced ones)
        count = len(iterable) if total is None else total
        every = {"miniters": max(1, -(-count // PROGRESS_REDRAWS)),
                 "maxinterval": float("inf")}
    except TypeError:  # no length: the time limit alone
        every = {}
    if course_settings.TEXT_PROGRESS:
        return tqdm.tqdm(iterable, desc=desc, disable=not progress, leave=True, file=sys.stdout,
                         mininterval=TEXT_PROGRESS_INTERVAL_S, total=total, **every, **kwargs)
    return tqdm.auto.tqdm(iterable, desc=desc, disable=not progress, leave=False,
                          mininterval=1 / PROGRESS_UPDATES_PER_S, total=total, **every,
                          **kwargs)

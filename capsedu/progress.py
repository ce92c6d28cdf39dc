"""A progress bar that a notebook's kernel can keep up with: ``progress_bar``, what the training
loop and the experiments show while they run."""

import sys

import tqdm
import tqdm.auto

from . import course_settings
from .validate import Flag, Has, checked

PROGRESS_UPDATES_PER_S = 2  # how often a live progress bar may redraw
# and how many times in all, however slow the machine: a bar's messages to the browser stay
# bounded (the kernel's output channel drops messages past about a thousand, nbval's among them)
PROGRESS_REDRAWS = 50
TEXT_PROGRESS_INTERVAL_S = 30  # a stored text bar: one line every 30 s at most, the last kept
Progress = Flag("True to show a progress bar")


@checked
def progress_bar(iterable: Has("what the bar counts", "__iter__",
                                source="a range, a list or a DataLoader"),
                 desc: str, progress: Progress = True, **kwargs):
    """A bar over ``iterable`` (``progress=False``: none). Live, tqdm.auto's (a widget in a
    notebook), redrawn at most ``PROGRESS_UPDATES_PER_S`` times a second and ``PROGRESS_REDRAWS``
    times in all (so a slow machine sends no more messages than a fast one), which it erases when
    done: in a notebook every redraw is a message to the browser, and a flood of them overruns
    the kernel's output channel. With ``course_settings.TEXT_PROGRESS`` (the website's build), a
    text bar on stdout that keeps its finished line, which is what a stored page shows."""
    try:  # a redraw every 1/PROGRESS_REDRAWS of the way at most (maxinterval: no forced ones)
        every = {"miniters": max(1, -(-len(iterable) // PROGRESS_REDRAWS)),
                 "maxinterval": float("inf")}
    except TypeError:  # no length: the time limit alone
        every = {}
    if course_settings.TEXT_PROGRESS:
        return tqdm.tqdm(iterable, desc=desc, disable=not progress, leave=True, file=sys.stdout,
                         mininterval=TEXT_PROGRESS_INTERVAL_S, **every, **kwargs)
    return tqdm.auto.tqdm(iterable, desc=desc, disable=not progress, leave=False,
                          mininterval=1 / PROGRESS_UPDATES_PER_S, **every, **kwargs)

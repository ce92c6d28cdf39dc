"""The course's stopping rule: a run has converged when ``PATIENCE`` epochs in a row brought no
gain in held-out accuracy (``converged``), its best epoch the first of ties (``best_epoch``).

``fit`` (``capsedu.loop``) stops by it, a run's record says whether it held (``Metrics``,
``ZooRun``, ``FaceCurve``: each checked against it), and ``convergence`` judges what a verdict
resting on a run may say.
"""

from typing import Annotated

import numpy as np
import torch
from pydantic import BeforeValidator

from .course_settings import MAX_EPOCHS
from .validate import Float, Int, Some, checked


def _as_list(scores):
    """A 1-D NumPy array or torch tensor of accuracies as the list of its numbers, to go through
    the same checks as a list (anything else is handed on as it is, to be checked)."""
    one_d = isinstance(scores, np.ndarray | torch.Tensor) and scores.ndim == 1
    return scores.tolist() if one_d and not getattr(scores, "is_meta", False) else scores


PATIENCE = 3  # the course's rule: a run has converged after 3 epochs without a held-out gain

# A run's held-out accuracy of every epoch (0..1), a list or a tuple (a record's), or a 1-D NumPy
# array or torch tensor of them (_as_list), one at least
Accuracy = Float("a held-out accuracy, from 0 to 1", ge=0, le=1)
Scores = Annotated[list[Accuracy] | tuple[Accuracy, ...], BeforeValidator(_as_list), Some]
Patience = Int("epochs without a held-out gain that stop a run", ge=1, le=MAX_EPOCHS)


@checked
def converged(scores: Scores, patience: Patience = PATIENCE) -> bool:
    """The stopping rule, on the held-out accuracy of every epoch so far (a manifest's
    ``validation_by_epoch``): the best epoch (the first of ties, as ``chosen_epoch``) lies
    ``patience`` or more epochs before the last one, i.e. that many epochs in a row brought no
    gain. A run for which this is false was still improving when it stopped."""
    return len(scores) - best_epoch(scores) >= patience


@checked
def best_epoch(scores: Scores) -> int:
    """The epoch (from 1) with the best held-out accuracy, the first of ties (as
    ``convergence.chosen_epoch`` picks from a history)."""
    return scores.index(max(scores)) + 1

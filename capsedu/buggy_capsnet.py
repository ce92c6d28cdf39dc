"""A CapsNet with one of the bug zoo's bugs (notebook 09): ``BuggyCapsNet(name, config)``.

A subclass of the paper's ``CapsNet`` that overrides what the bug changes and nothing else: the
routing step of its DigitCaps layer (``bug_catalogue.BUGS[name].step``), the votes it routes (a
stop-gradient), what the decoder reconstructs from, or the loss (``buggy.unsquared_margin_loss``).
``capsnet`` itself implements the paper and has no switch for a bug.
"""

import torch

from .bug_catalogue import BUGS
from .buggy import unsquared_margin_loss
from .capsnet import PAPER, CapsNet, CapsNetConfig, Labels, Originals, Output, Vectors
from .functional import Lengths, Targets, reconstruction_loss
from .validate import Choice, checked


class BuggyCapsNet(CapsNet):
    """A ``CapsNet`` of ``config`` (with any field ``overrides``) with bug ``bug`` (a key of
    ``BUGS``), e.g. ``BuggyCapsNet("mask-by-prediction", SMALL)``. Its weights are drawn as the
    correct model's of the same seed: two runs differ only by the bug."""

    @checked
    def __init__(self, bug: Choice("a bug of the zoo (bug_catalogue.BUGS)", *BUGS),
                 config: CapsNetConfig = PAPER, **overrides):
        super().__init__(config, **overrides)
        self.bug = bug
        self.hparams = {"bug": bug, **self.hparams}
        self.digits.step = BUGS[bug].step  # the paper's, unless the bug is in the routing step

    def _votes(self, x: torch.Tensor) -> torch.Tensor:
        u_hat = super()._votes(x)
        # detached-output: the stop-gradient covers the last routing iteration too
        return u_hat.detach() if self.bug == "detached-output" else u_hat

    @checked
    def reconstruct(self, v: Vectors, lengths: Lengths, targets: Labels | None = None
                    ) -> torch.Tensor:
        # mask-by-prediction: the decoder sees the longest capsule, in training too
        by_label = None if self.bug == "mask-by-prediction" else targets
        return super().reconstruct(v, lengths, by_label)

    @checked
    def loss(self, out: Output, x: Originals, targets: Targets) -> torch.Tensor:
        if self.bug != "unsquared-margin-loss":
            return super().loss(out, x, targets)
        self._check_loss(out, x, targets)
        recon = reconstruction_loss(out.reconstruction, x)
        return unsquared_margin_loss(out.lengths, targets) + self.config.recon_weight * recon

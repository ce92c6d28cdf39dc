"""Two digits at once: the MultiMNIST models of notebook 08 (Sabour et al. 2017, Section 6).

A MultiMNIST image overlays two digits of different classes (``capsedu.data.transformed_mnist``).
Both models read it as the two classes they score highest, and an example counts as correct only
when both digits are right (``capsedu.loop.is_correct``).

* ``MultiDigitCapsNet``: the CapsNet, trained with the margin loss with both classes present
  (T_k = 1 for both) and with one reconstruction per digit: the decoder, masked by each true
  class in turn, must redraw that digit alone.
* ``TwoDigitCNN``: the baseline, ``MaxPoolCNN``'s layers with 10 independent sigmoid outputs
  ("is a k in the image?") trained with binary cross-entropy against the 2-hot target.

Like every model of the course they keep ``hparams`` and offer ``training_loss``, ``predict`` and
``score``; both train on the batches ``(pairs, labels, parts)``.
"""

import torch
import torch.nn.functional as F

from .baselines import Channels, Dropout, ImageSide, MaxPoolCNN, Widths
from .capsnet import MULTIMNIST, CapsNet, CapsNetConfig, Vectors
from .checks import check_labels, check_pixels, check_shape
from .course_settings import MAX_WIDTH, Batch, Classes, Label, evaluating
from .functional import Lengths, class_targets
from .validate import Int, Tensor, check_class, check_value, checked

# finite: a NaN or an infinity would be ranked as if it were a score
Scores = Tensor("scores [batch, n_classes], one per class", ndim=2, finite=True)
# a pair's two classes [B, 2], and each digit of it alone [B, 2, C, S, S] (as multimnist gives):
# their shapes are the model's to check, in words that say what each holds
Pairs = Tensor("the two classes of each pair [B, 2]")
Parts = Tensor("each digit of a pair alone [B, 2, C, S, S]", pixels=True)


@checked
def two_largest(scores: Scores) -> torch.Tensor:
    """The two classes read from ``scores`` ``[B, n_classes]``: the two highest, in ascending
    order of class ``[B, 2]`` (so that a pair reads the same whichever digit is on top)."""
    if scores.shape[1] < 2:
        raise ValueError(f"two_largest(): scores must hold at least two classes to read two, got "
                         f"shape {tuple(scores.shape)}; pass the scores of every class")
    return scores.topk(2, dim=1).indices.sort(dim=1).values


@checked
def two_digit_score(scores: Scores, label: Int("the class scored", ge=0, le=MAX_WIDTH - 1)
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Class ``label``'s score ``[B]`` and the score it must beat to be one of the two classes
    read ``[B]``: the second highest of the other classes' scores."""
    if not label < scores.shape[1]:
        raise ValueError(f"two_digit_score(): label must be a class of scores, in [0, "
                         f"{scores.shape[1] - 1}], got {label}; pass one of its classes")
    if scores.shape[1] < 3:
        raise ValueError(f"two_digit_score(): scores must hold at least 3 classes (the label and "
                         f"two others), got {scores.shape[1]}")
    others = torch.cat([scores[:, :label], scores[:, label + 1:]], dim=1)  # [B, n_classes - 1]
    return scores[:, label], others.topk(2, dim=1).values[:, 1]


class MultiDigitCapsNet(CapsNet):
    """``CapsNet`` reading two overlapping digits (Section 6): the same network, trained with both
    classes present and one reconstruction per digit; it reads the two longest digit capsules.

    ``MultiDigitCapsNet()`` has the CPU-sized ``MULTIMNIST`` sizes (36x36 images); any
    ``CapsNetConfig`` works, e.g. the paper's: ``MultiDigitCapsNet(PAPER, image_size=36)``. Its
    output's ``reconstruction`` holds one image per digit: ``[B, 2, C, S, S]``.
    """

    @checked
    def __init__(self, config: CapsNetConfig = MULTIMNIST, **overrides):
        check_value("MultiDigitCapsNet", "n_classes", Int("classes: a pair shows two different "
                                                          "digits", ge=2, le=MAX_WIDTH),
                    overrides.get("n_classes", config.n_classes))
        super().__init__(config, **overrides)

    @checked
    def reconstruct(self, v: Vectors, lengths: Lengths, targets: Pairs | None = None
                    ) -> torch.Tensor:
        """Decode each of two digits from its own capsule, all the others masked: the true classes
        ``targets`` ``[B, 2]`` (training), else the two longest capsules (test). ``v``:
        ``[B, n_classes, digit_dim]``, ``lengths``: ``[B, n_classes]``; returns
        ``[B, 2, C, S, S]``."""
        self._check_capsules("reconstruct", v, lengths)
        if targets is None:
            chosen = two_largest(lengths)
        else:
            check_labels(targets, f"{type(self).__name__}.reconstruct(): targets", v.shape[0],
                         self.config.n_classes, k=2)
            chosen = targets
        decode_one = super().reconstruct  # CapsNet's: keeps one capsule per image, decodes it
        return torch.stack([decode_one(v, lengths, chosen[:, k]) for k in range(2)], dim=1)

    @checked(reads=("self", "x"))
    def training_loss(self, x: Batch, labels: Pairs, parts: Parts):
        """Margin loss with both classes present, plus 0.0005 x the sum of the two digits'
        reconstruction errors: the decoder masked by ``labels[:, k]`` must redraw
        ``parts[:, k]``, that digit alone.

        ``x``: pairs ``[B, C, S, S]``, ``labels``: ``[B, 2]``, ``parts``: ``[B, 2, C, S, S]``
        (as ``multimnist`` returns them). Returns ``(loss, the two longest capsules [B, 2])``."""
        where = f"{type(self).__name__}.training_loss()"
        check_labels(labels, f"{where}: labels", len(x), self.config.n_classes, k=2)
        cfg = self.config
        shape = (len(x), 2, cfg.in_channels, cfg.image_size, cfg.image_size)
        expected = (f"[batch, 2, {cfg.in_channels}, {cfg.image_size}, {cfg.image_size}] (each "
                    "digit of a pair alone, as multimnist returns them)")
        check_shape(parts, f"{where}: parts", expected, ndim=5)
        if tuple(parts.shape) != shape:
            raise ValueError(f"{where}: parts must have shape {expected}, got shape "
                             f"{tuple(parts.shape)}")
        check_pixels(parts, f"{where}: parts")  # the decoder's targets, as the pairs' pixels
        out = self(x, labels)  # the decoder masked by each TRUE class in turn
        # L = sum_k L_k (T_k = 1 for both digits) + 0.0005 (||r_1 - part_1||^2 + ||r_2 - part_2||^2)
        return self.loss(out, parts, labels), two_largest(out.lengths)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def predict(self, x: Batch) -> torch.Tensor:
        """The two longest digit capsules ``[B, 2]``, in ascending order of class."""
        return two_largest(self._read("predict", x).lengths)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def score(self, x: Batch, label: Label) -> tuple[torch.Tensor, torch.Tensor]:
        """Capsule ``label``'s length ``[B]`` and the length it must beat to be one of the two
        read ``[B]``: the second longest of the other capsules."""
        label = check_class(f"{type(self).__name__}.score", label, self.config.n_classes)
        return two_digit_score(self._read("score", x).lengths, label)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def reconstruct_each(self, x: Batch):
        """Fig. 5: the capsule lengths ``[B, n_classes]``, the two classes read ``[B, 2]`` and
        each one's reconstruction from its own capsule ``[B, 2, C, S, S]`` (to draw in two
        colours over the pair)."""
        out = self._read("reconstruct_each", x)  # without labels: the two longest capsules drawn
        return out.lengths, two_largest(out.lengths), out.reconstruction


class TwoDigitCNN(MaxPoolCNN):
    """The baseline of Section 6: ``MaxPoolCNN``'s layers on the 36x36 canvas whose outputs are
    independent sigmoids, p_k = sigma(z_k) = P(a k is in the image), trained with binary
    cross-entropy against the 2-hot target; it reads the two most probable classes.

    The defaults match ``MultiDigitCapsNet()``'s parameter count, its decoder included.
    """

    @checked
    def __init__(self, in_channels: Channels = 1, n_classes: Classes = 10,
                 image_size: ImageSide = 36, channels: Widths = (32, 64, 128),
                 hidden: Widths = (1280, 192), dropout: Dropout = 0.5):
        super().__init__(in_channels, n_classes, image_size, channels, hidden, dropout)

    @checked(reads=("self", "x"))
    def training_loss(self, x: Batch, labels: Pairs, parts: Parts | None = None):
        """Binary cross-entropy of every class, summed over classes and averaged over the batch.
        ``labels``: ``[B, 2]``; ``parts`` is not used (there is no decoder): it is accepted so
        that both models train on the same batches. Returns ``(loss, two_largest [B, 2])``."""
        check_labels(labels, f"{type(self).__name__}.training_loss(): labels", len(x),
                     self.hparams["n_classes"], k=2)
        logits = self(x)  # [B, n_classes]
        T = class_targets(labels, logits.shape[1]).to(logits.dtype)  # the 2-hot target
        # L = -sum_k [T_k log sigma(z_k) + (1 - T_k) log(1 - sigma(z_k))]
        L = F.binary_cross_entropy_with_logits(logits, T, reduction="none")  # [B, n_classes]
        return L.sum(dim=1).mean(), two_largest(logits)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def predict(self, x: Batch) -> torch.Tensor:
        """The two most probable classes ``[B, 2]``, in ascending order of class (in eval mode,
        as ``score``: ``evaluating``)."""
        with evaluating(self):  # sigma is increasing: the largest logits, the most probable
            return two_largest(self(x))

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def score(self, x: Batch, label: Label) -> tuple[torch.Tensor, torch.Tensor]:
        """P(``label``) ``[B]`` (its sigmoid) and the probability it must beat to be one of the
        two read ``[B]``: the second highest of the other classes'."""
        label = check_class(f"{type(self).__name__}.score", label, self.hparams["n_classes"])
        with evaluating(self):
            return two_digit_score(torch.sigmoid(self(x)), label)

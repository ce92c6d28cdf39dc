"""What notebook 08's widgets show, each as a frozen record made by one call: one MNIST digit
under an affine map read by a CapsNet and a CNN (``viewpoint_state``, ``widgets.viewpoint``),
and two digits overlaid read by the two-digit models (``overlap_state``, ``widgets.overlap``).
Accuracy under new viewpoints, measured, is ``robustness``."""

from dataclasses import dataclass
from typing import Annotated

import torch

from .capsnet import CapsNet, LogitsCNN
from .checks import check_on_canvas, check_same, check_side
from .data import digit_pairs, transformed_mnist
from .data.affine_params import Rotation, Scale, Shear
from .data.digit_pairs import MULTI_CANVAS, MULTI_SHIFT
from .data.transformed_mnist import CANVAS
from .derived import check_read
from .multi_digit import MultiDigitCapsNet, TwoDigitCNN
from .validate import (
    Array,
    CheckedRecord,
    Distinct,
    Float,
    Int,
    Numbers,
    Tensor,
    checked,
)

# what to do when a model of another size is shown the canvas (``checks.check_side``)
EIGHTS_MODELS = "pass notebook 08's models, e.g. checkpoints.pretrained(...) of their recipes"

# one MNIST digit, which the state places on its canvas: 28x28 (another side is no digit it
# can place, and a canvas-sized image would be placed again)
Digit = Tensor("one MNIST digit [1, 28, 28]", ndim=3, pixels=True, sizes={0: 1, 1: 28, 2: 28})
Image = Array("an image [side, side]", ndim=2)
Images = Array("images [2, side, side]", ndim=3)
Lengths = Numbers("a score per class, each 0..1 [10]", ndim=1, at_least=1, ge=0, le=1)
Class = Int("a class", ge=0)
# the two classes a model reads in a pair: two different ones (a pair's digits never share one)
Read = Annotated[list[Class], Distinct]


def _check_read(where: str, name: str, read: list[int], scores_name: str, scores) -> None:
    """Refuse classes ``read`` that are not those of the highest ``scores`` [n_classes]."""
    check_read(where, f"pass what {where[:-5].lower()}_state(...) gives", name, read,
               scores_name, scores)


@dataclass(frozen=True)
class ViewpointState(CheckedRecord):
    """What notebook 08's widget shows of one test digit under one affine map
    (``viewpoint_state``)."""

    image: Image  # [40, 40] what both models see
    lengths: Lengths  # [10] the CapsNet's capsule lengths, each P(class present)
    capsnet_prediction: Class  # the longest capsule
    reconstruction: Image  # [40, 40] the CapsNet's drawing from its longest capsule
    probabilities: Lengths  # [10] the CNN's softmax
    cnn_prediction: Class
    rotation: Float("degrees")
    shear: Float("a shear factor")
    scale: Float("a scale factor, both axes")
    dx: Float("pixels to the right")
    dy: Float("pixels down")

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a drawing of another shape than the
        image, probabilities that are no softmax, or a prediction that is no class of its
        scores."""
        super().__post_init__()
        check_same("ViewpointState", "shape", "pass what viewpoint_state(...) gives",
                   image=self.image.shape, reconstruction=self.reconstruction.shape)
        if abs(self.probabilities.sum() - 1) > 1e-3:
            raise ValueError(f"ViewpointState(): probabilities must sum to 1 (the CNN's softmax), "
                             f"got {self.probabilities.sum():g}; pass the softmax of its scores")
        _check_read("ViewpointState", "capsnet_prediction", [self.capsnet_prediction],
                    "lengths", self.lengths)
        _check_read("ViewpointState", "cnn_prediction", [self.cnn_prediction], "probabilities",
                    self.probabilities)


@checked
@torch.no_grad()
def viewpoint_state(capsnet: CapsNet, cnn: LogitsCNN, digit: Digit,
                    rotation: Rotation = 0.0, shear: Shear = 0.0, scale: Scale = 1.0,
                    dx: Float("pixels to the right") = 0.0,
                    dy: Float("pixels down") = 0.0) -> ViewpointState:
    """What notebook 08's widget shows for one MNIST ``digit`` ``[1, 28, 28]`` under one affine
    map (``transformed_mnist.affine``, both axes scaled by ``scale``, moved by ``(dx, dy)``
    pixels from the centre of the canvas):

    * ``image`` ``[40, 40]``: what both models see;
    * ``lengths`` ``[10]``: the CapsNet's capsule lengths, each the probability that its class is
      present (they need not sum to 1), its ``capsnet_prediction`` (the longest) and the
      ``reconstruction`` ``[40, 40]`` its decoder draws from that capsule alone;
    * ``probabilities`` ``[10]``: the CNN's softmax, and its ``cnn_prediction``;
    * the map itself: ``rotation``, ``shear``, ``scale``, ``dx`` and ``dy``.
    """
    check_on_canvas("viewpoint_state", transformed_mnist.affine_matrix(
        rotation, shear, scale, scale)[None], CANVAS, dx=dx, dy=dy)
    check_side("viewpoint_state", CANVAS, EIGHTS_MODELS, capsnet=capsnet, cnn=cnn)
    # what both models see, [1, 1, 40, 40]
    x = transformed_mnist.affine(digit[None], rotation, shear, scale, scale, dx, dy)
    capsnet.eval()
    cnn.eval()
    out = capsnet(x)  # no targets: the decoder redraws the longest capsule
    probabilities = torch.softmax(cnn(x), dim=1)[0]  # [10]
    return ViewpointState(
        image=x[0, 0].numpy(), lengths=out.lengths[0].numpy(),
        capsnet_prediction=int(out.lengths[0].argmax()),
        reconstruction=out.reconstruction[0, 0].numpy(),
        probabilities=probabilities.numpy(), cnn_prediction=int(probabilities.argmax()),
        rotation=rotation, shear=shear, scale=scale, dx=dx, dy=dy)


@dataclass(frozen=True)
class OverlapState(CheckedRecord):
    """What notebook 08's MultiMNIST widget shows of two digits overlaid (``overlap_state``)."""

    pair: Image  # [36, 36] the two digits overlaid (pixel-wise maximum)
    parts: Images  # [2, 36, 36] each digit alone on the canvas
    # how much their ink boxes overlap (digit_pairs.box_overlap)
    overlap: Float("the share of the smaller ink box inside the other", ge=0, le=1)
    lengths: Lengths  # [10] the CapsNet's capsule lengths
    capsnet_read: Read  # the two classes the CapsNet reads
    reconstructions: Images  # [2, 36, 36] its drawing from each, in capsnet_read's order
    probabilities: Lengths  # [10] the CNN's sigmoids
    cnn_read: Read  # the two classes the CNN reads

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), other than one class read and one
        drawing per digit, or a class read that is none of its scores'."""
        super().__post_init__()
        check_same("OverlapState", "digits", "pass one of each per digit of the pair",
                   parts=len(self.parts), capsnet_read=len(self.capsnet_read),
                   reconstructions=len(self.reconstructions), cnn_read=len(self.cnn_read))
        _check_read("OverlapState", "capsnet_read", self.capsnet_read, "lengths", self.lengths)
        _check_read("OverlapState", "cnn_read", self.cnn_read, "probabilities",
                    self.probabilities)


@checked
@torch.no_grad()
def overlap_state(capsnet: MultiDigitCapsNet, cnn: TwoDigitCNN, first: Digit, second: Digit,
                  dx: Int("pixels to the right", ge=-MULTI_SHIFT, le=MULTI_SHIFT) = 0,
                  dy: Int("pixels down", ge=-MULTI_SHIFT, le=MULTI_SHIFT) = 0
                  ) -> OverlapState:
    """What notebook 08's MultiMNIST widget shows for two MNIST digits ``[1, 28, 28]``: the first
    at the centre of the 36x36 canvas, the second moved by ``(dx, dy)`` pixels (each within +-4),
    overlaid as in ``digit_pairs.multimnist`` (pixel-wise maximum).

    * ``pair`` ``[36, 36]`` and ``parts`` ``[2, 36, 36]`` (each digit alone), their ink boxes'
      ``overlap`` (``digit_pairs.box_overlap``);
    * the CapsNet's capsule ``lengths`` ``[10]``, the two classes it reads (``capsnet_read``) and
      the digit its decoder redraws from each of those capsules (``reconstructions``
      ``[2, 36, 36]``, in the order of ``capsnet_read``);
    * the CNN's ten sigmoid ``probabilities`` and the two classes it reads (``cnn_read``).

    One digit twice is refused; two digits of one class are drawn as asked, since images carry
    no class (MultiMNIST's pairs never share one: ``OverlapExplorer``, which knows the labels,
    says so beside such a pair)."""
    side, m = MULTI_CANVAS, MULTI_SHIFT
    check_side("overlap_state", side, EIGHTS_MODELS, capsnet=capsnet, cnn=cnn)
    if torch.equal(first, second):
        raise ValueError("overlap_state(): first and second must be two different digits (a "
                         "digit overlaid on itself is no pair), got the same digit twice; pass "
                         "two digits, of different classes as MultiMNIST's pairs")
    corners = [(m, m), (m + int(dx), m + int(dy))]  # top-left corners on the canvas
    parts = torch.cat([transformed_mnist.on_canvas(digit[None], torch.tensor([x]),
                                                   torch.tensor([y]), side)
                       for digit, (x, y) in zip((first, second), corners, strict=True)])
    pair = parts.amax(dim=0, keepdim=True)  # [1, 1, 36, 36]
    capsnet.eval()
    cnn.eval()
    lengths, read, reconstructions = capsnet.reconstruct_each(pair)
    return OverlapState(
        pair=pair[0, 0].numpy(), parts=parts[:, 0].numpy(),
        overlap=float(digit_pairs.box_overlap(parts[None])[0]),
        lengths=lengths[0].numpy(), capsnet_read=read[0].tolist(),
        reconstructions=reconstructions[0, :, 0].numpy(),
        probabilities=torch.sigmoid(cnn(pair))[0].numpy(),
        cnn_read=cnn.predict(pair)[0].tolist())

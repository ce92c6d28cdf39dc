"""The CNN baselines the capsule networks are compared with, and their receptive fields.

A "bag of parts" CNN (a small receptive field, then a global max-pool: it can tell *which* parts
are present, not *where*) and a deeper one whose receptive field covers the whole input. They
keep their keyword arguments in ``self.hparams`` (for ``capsedu.checkpoints``) and, like every
model of the course, offer ``training_loss``, ``predict`` and ``score``.
"""

from typing import Annotated

import torch
import torch.nn.functional as F
from torch import nn

from .capsnet import Labels, count_parameters
from .checks import check_input, check_labels, check_pixels
from .course_settings import MAX_IMAGE, MAX_WIDTH, Batch, Label, LogitClasses, evaluating
from .memory import check_memory
from .validate import Float, Has, Int, Spec, check_class, checked

# Bounds on a CNN's sizes, far past the course's (64 channels, 1,280 hidden units, 40x40
# images), so that a typo is refused before it allocates; the weights' memory is estimated up
# front too (``_check_weights``), since sizes in range can still multiply past it.

Channels = Int("the image's channels", ge=1, le=MAX_WIDTH)
ImageSide = Int("the images' side in pixels", ge=1, le=MAX_IMAGE)
Width = Int("a layer's channels or units", ge=1, le=MAX_WIDTH)
# widths, one per layer: a tuple as the defaults have them, or a list as a learner may write them
Widths = tuple[Width, ...] | list[Width]


def _some_layers(channels, where: str) -> None:
    """Refuse an empty ``channels``: a network of no layer is no feature extractor."""
    if not channels:
        raise ValueError(f"{where}(): channels must name at least one layer (one width per "
                         f"convolution), got {channels!r}; e.g. channels=(32, 64)")
# below 1: a layer that drops every unit passes nothing on, and trains nothing
Dropout = Float("the share of hidden units dropped in training", ge=0, lt=1)


def _check_weights(numbers: int, model: str) -> None:
    """Refuse up front a model whose weights (``numbers`` float32, made in place) do not fit."""
    check_memory(4 * numbers, f"{model}'s weights", "use fewer or narrower layers")


class LogitClassifier(nn.Module):
    """What a model whose ``forward`` returns class logits ``[B, n_classes]`` offers the
    training loop and the experiments: ``training_loss``, ``predict`` and ``score``."""

    @checked(reads=("self", "x"))
    def training_loss(self, x: Batch, y: Labels):
        logits = self(x)
        check_labels(y, f"{type(self).__name__}.training_loss(): y", len(logits),
                     logits.shape[1])  # not cross-entropy's own words
        return F.cross_entropy(logits, y), logits.argmax(dim=1)

    def _check_image_size(self, pools: int) -> None:
        """Refuse, when the model is made, an ``image_size`` (``hparams``') under ``2 ** pools``
        pixels: ``_check_side`` would refuse every input of that size."""
        side = self.hparams.get("image_size")
        if side is not None and side < 2**pools:
            raise ValueError(f"{type(self).__name__}(): image_size must be at least {2**pools}, "
                             f"the smallest side it reads ({pools} 2x2 max-pools halve it), got "
                             f"{side}; pass image_size={2**pools} or more, or fewer max-pools")

    def _check_side(self, x: torch.Tensor, pools: int) -> None:
        """Refuse images under ``2 ** pools`` pixels a side: each 2x2 max-pool halves the maps,
        and a side of 0 leaves nothing to read."""
        if min(x.shape[-2:]) < 2**pools:
            raise ValueError(f"{type(self).__name__}(): x must be at least {2**pools} x "
                             f"{2**pools} pixels ({pools} 2x2 max-pools halve it), got shape "
                             f"{tuple(x.shape)}; pass larger images")

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def predict(self, x: Batch) -> torch.Tensor:
        """The class of the largest logit ``[B]``, read in eval mode (``evaluating``: no
        dropout), whatever mode the model is in, as ``score`` is."""
        with evaluating(self):
            return self(x).argmax(dim=1)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def score(self, x: Batch, label: Label) -> tuple[torch.Tensor, torch.Tensor]:
        """P(``label``) ``[B]`` (softmax of the logits) and the probability it must beat to be
        predicted ``[B]``: the one it would have if its logit tied the best other logit,
        1 / (1 + sum_{j != label} exp(z_j - max_{j != label} z_j)); 0.5 with two classes."""
        with evaluating(self):
            logits = self(x)  # [B, n_classes]
        label = check_class(f"{type(self).__name__}.score", label, logits.shape[1])
        others = torch.cat([logits[:, :label], logits[:, label + 1:]], dim=1)
        # p_label at a tie: exp(m) / (exp(m) + sum_j exp(z_j)), with m = max_j z_j (j != label)
        cut = 1 / (1 + torch.exp(others - others.amax(dim=1, keepdim=True)).sum(dim=1))
        return torch.softmax(logits, dim=1)[:, label], cut


class _CNN(LogitClassifier):
    """A stack of conv layers, a global max-pool over positions and a linear classifier."""

    def __init__(self, features: nn.Sequential, n_features: int, n_classes: int, hparams: dict):
        super().__init__()
        self.hparams = hparams
        self.features = features
        self.classifier = nn.Linear(n_features, n_classes)
        self._check_image_size(sum(isinstance(m, nn.MaxPool2d) for m in features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, H, W]`` -> class logits ``[B, n_classes]``."""
        check_input(x, f"{type(self).__name__}(): x", self, some=True)
        check_pixels(x, f"{type(self).__name__}(): x")
        self._check_side(x, sum(isinstance(m, nn.MaxPool2d) for m in self.features))
        # global max-pool: "is this feature anywhere?" -- where it is, is thrown away
        return self.classifier(self.features(x).amax(dim=(2, 3)))

    @property
    def receptive_field(self) -> int:
        return receptive_field(self.features)


class BagOfPartsCNN(_CNN):
    """Two 3x3 convolutions (receptive field 5x5 pixels: a piece of one face part on a 32x32
    face, less than the gap between two parts) then a global max-pool: it can report *which*
    parts are present, never *where* they are relative to each other. ``image_size``: the side
    it reads, e.g. 32 for the face scenes (``check_input`` then refuses others), or None (the
    default) for any: it is fully convolutional."""

    @checked
    def __init__(self, in_channels: Channels = 1, n_classes: LogitClasses = 2,
                 channels: Widths = (32, 64), image_size: ImageSide | None = None):
        _some_layers(channels, "BagOfPartsCNN")
        widths = [in_channels, *channels]  # 3x3 convolutions, then the classifier
        _check_weights(sum(a * b * 9 + b for a, b in zip(widths, widths[1:], strict=False))
                       + (widths[-1] + 1) * n_classes, type(self).__name__)
        convs, c_in = [], in_channels
        for c in channels:
            convs += [nn.Conv2d(c_in, c, 3, padding=1), nn.ReLU()]
            c_in = c
        hp = dict(in_channels=in_channels, n_classes=n_classes, channels=tuple(channels),
                  image_size=image_size)
        super().__init__(nn.Sequential(*convs), c_in, n_classes, hp)


class DeepCNN(_CNN):
    """Conv + 2x2 max-pool blocks and a last conv: its receptive field (38 px with the defaults)
    covers a whole 32x32 input, so its features can encode the arrangement of parts.
    ``image_size``: the side it reads, e.g. 32 for the face scenes, or None (the default): any."""

    @checked
    def __init__(self, in_channels: Channels = 1, n_classes: LogitClasses = 2,
                 channels: Widths = (16, 32, 64, 64), image_size: ImageSide | None = None):
        _some_layers(channels, "DeepCNN")
        widths = [in_channels, *channels]  # 3x3 convolutions, then the classifier
        _check_weights(sum(a * b * 9 + b for a, b in zip(widths, widths[1:], strict=False))
                       + (widths[-1] + 1) * n_classes, type(self).__name__)
        layers, c_in = [], in_channels
        for k, c in enumerate(channels):
            layers += [nn.Conv2d(c_in, c, 3, padding=1), nn.ReLU()]
            if k < len(channels) - 1:
                layers.append(nn.MaxPool2d(2))
            c_in = c
        hp = dict(in_channels=in_channels, n_classes=n_classes, channels=tuple(channels),
                  image_size=image_size)
        super().__init__(nn.Sequential(*layers), c_in, n_classes, hp)


class MaxPoolCNN(LogitClassifier):
    """The paper's kind of baseline for the affNIST test (Section 5.2): 5x5 convolutions, each
    followed by a 2x2 max-pool, then fully connected layers with dropout and class logits.

    The paper's has conv channels 256, 256, 128 and hidden layers 328, 192 (35.4M parameters);
    ours is sized to the CapsNet it is compared with (``recipes`` in ``capsedu.train``)."""

    @checked
    def __init__(self, in_channels: Channels = 1, n_classes: LogitClasses = 10,
                 image_size: ImageSide = 40, channels: Widths = (32, 64, 128),
                 hidden: Widths = (880, 192), dropout: Dropout = 0.5):
        _some_layers(channels, type(self).__name__)
        _check_weights(_maxpool_cnn_weights(in_channels, n_classes, image_size, channels, hidden),
                       type(self).__name__)
        super().__init__()
        self.hparams = dict(in_channels=in_channels, n_classes=n_classes, image_size=image_size,
                            channels=tuple(channels), hidden=tuple(hidden), dropout=dropout)
        self._check_image_size(len(channels))  # one 2x2 max-pool per item of channels
        layers, c_in, side = [], in_channels, image_size
        for c in channels:
            layers += [nn.Conv2d(c_in, c, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2)]
            c_in, side = c, side // 2
        layers.append(nn.Flatten())
        n = c_in * side * side
        for h in hidden:
            layers += [nn.Linear(n, h), nn.ReLU(), nn.Dropout(dropout)]
            n = h
        self.layers = nn.Sequential(*layers, nn.Linear(n, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[B, C, image_size, image_size]`` -> class logits ``[B, n_classes]``."""
        check_input(x, f"{type(self).__name__}(): x", self, some=True)
        check_pixels(x, f"{type(self).__name__}(): x")
        return self.layers(x)


def _maxpool_cnn_weights(in_channels: int, n_classes: int, image_size: int, channels,
                        hidden) -> int:
    """The numbers in a ``MaxPoolCNN``'s weights and biases: 5x5 convolutions, each halving the
    side, then the fully connected layers."""
    count, c_in, side = 0, in_channels, image_size
    for c in channels:
        count, c_in, side = count + c_in * c * 25 + c, c, side // 2
    n = c_in * side * side
    for h in [*hidden, n_classes]:
        count, n = count + n * h + h, h
    return count


# layers that act on each pixel alone: they leave the window a unit sees as it is
_PER_PIXEL = (nn.ReLU, nn.LeakyReLU, nn.ELU, nn.GELU, nn.SiLU, nn.Sigmoid, nn.Tanh, nn.Identity,
              nn.BatchNorm2d, nn.InstanceNorm2d, nn.Dropout, nn.Dropout2d)


def _sides(value) -> tuple[int, int]:
    """A layer's kernel, stride or dilation as (rows, columns): torch keeps one int for both."""
    return (value, value) if isinstance(value, int) else tuple(value)


def _windows(layers, where: str):
    """(kernel, stride, dilation), each as (rows, columns), of every layer that widens the
    window, in order; a layer whose window is not a fixed kernel is refused by name."""
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Sequential):
            yield from _windows(layer, where)
        elif isinstance(layer, (nn.Conv2d, nn.MaxPool2d)):
            yield _sides(layer.kernel_size), _sides(layer.stride), _sides(layer.dilation)
        elif isinstance(layer, nn.AvgPool2d):  # no dilation in an average pool
            yield _sides(layer.kernel_size), _sides(layer.stride), (1, 1)
        elif (isinstance(layer, tuple) and len(layer) == 2
              and all(type(n) is int and n >= 1 for n in layer)):
            yield (layer[0],) * 2, (layer[1],) * 2, (1, 1)  # exercise 01's (kernel, stride)
        elif not isinstance(layer, _PER_PIXEL):
            raise ValueError(
                f"{where}(): layers must be 2-d conv and pool layers (nn.Conv2d, nn.MaxPool2d, "
                f"nn.AvgPool2d), per-pixel layers (activations, batch norm, dropout) or "
                f"(kernel, stride) pairs of whole numbers >= 1, got {layer!r} at layers[{i}], "
                f"whose window is not a fixed kernel (a Linear, Flatten or adaptive pool sees the "
                f"whole input); pass only the layers before it (e.g. model.features)")


@checked
def receptive_field(layers: Has("a stack of layers to go over", "__iter__",
                                source="a model's features, e.g. an nn.Sequential of conv and "
                                "pool layers (model.features)")) -> int | tuple[int, int]:
    """Side, in input pixels, of the window one output unit of ``layers`` can see: an int when
    the window is square, ``(height, width)`` when it is not.

    r <- r + (k - 1) * d * j and j <- j * s for each conv / pool of kernel k, dilation d and
    stride s (each per side), where j is the distance in input pixels between neighbouring units
    (the "jump"). ``layers`` may also be (kernel, stride) pairs, as exercise 01 writes them.
    """
    r, jump = [1, 1], [1, 1]
    for kernel, stride, dilation in _windows(layers, "receptive_field"):
        for side in (0, 1):
            r[side] += (kernel[side] - 1) * dilation[side] * jump[side]
            jump[side] *= stride[side]
    return r[0] if r[0] == r[1] else tuple(r)


@checked
def describe_features(model: Annotated[BagOfPartsCNN | DeepCNN, Spec(
                          "a face CNN of the course, baselines.BagOfPartsCNN or DeepCNN (its "
                          "features are described)", "record")],
                      image_size: ImageSide = 32) -> str:
    """One line on a face CNN (``BagOfPartsCNN``, ``DeepCNN``): its receptive field, the feature
    maps ``[n_maps, height, width]`` its ``features`` give an ``image_size`` image before the
    global pool, and its number of parameters."""
    try:
        with torch.no_grad():
            top = model.features(torch.zeros(1, 1, image_size, image_size))
    except RuntimeError as err:  # torch's "Output size is too small" from a pool or a conv
        raise ValueError(f"describe_features(): image_size must leave {type(model).__name__}'s "
                         f"feature maps a pixel at least, got {image_size}, which its "
                         "convolutions and pools shrink to nothing; pass a larger side, e.g. 32 "
                         "(the faces')") from err
    _, n_maps, height, width = top.shape
    return (f"{type(model).__name__:>13}: receptive field {receptive_field(model.features)} px, "
            f"{n_maps} feature maps of {height}x{width} before the pool, "
            f"{count_parameters(model):,} parameters")

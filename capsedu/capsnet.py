"""The paper's CapsNet: its sizes (``CapsNetConfig``, like nanoGPT's ``GPTConfig``) and the model.

Conv1 -> PrimaryCaps -> DigitCaps (routing) -> decoder, Sabour, Frosst & Hinton (2017), Fig. 1-2.
Like every model of the course, it keeps the keyword arguments that built it in ``self.hparams``
(so a checkpoint can rebuild it, ``capsedu.checkpoints``) and offers the training loop
``training_loss(x, y) -> (loss, predictions)``, ``predict(x)`` and ``score(x, label)``.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from .checks import (
    check_input,
    check_labels,
    check_pixels,
    check_same,
    check_shape,
    replaced,
)
from .course_settings import (
    MAX_IMAGE,
    MAX_WIDTH,
    Batch,
    Checked,
    Classes,
    Label,
    evaluating,
)
from .functional import Lengths, Targets, margin_loss, reconstruction_loss
from .layers import MAX_CHILDREN, PrimaryCapsules, RoutingCapsules
from .memory import check_memory
from .refusals import kind_of, shown
from .routing import (
    MAX_ITERATIONS,
    RoutingResult,
    _check_routed,
    _check_tensors,
    _check_values,
    _Remade,
    _rounding,
)
from .validate import CheckedRecord, Flag, Float, Int, Tensor, check_class, checked

# Upper bounds on a CapsNet's sizes, far past the paper's, so that a typo (a 10**6 channels)
# is refused before it allocates: sizes of layers, and the image's side.


@dataclass(frozen=True)
class CapsNetConfig(CheckedRecord):
    """Sizes of a CapsNet. The defaults are the paper's (Section 4, Fig. 1 and 2)."""

    in_channels: Int("the images' channels", ge=1, le=MAX_WIDTH) = 1
    image_size: Int("the images' side in pixels", ge=1, le=MAX_IMAGE) = 28
    # Conv1: 256 channels, 9x9, stride 1, ReLU
    conv_channels: Int("Conv1's channels", ge=1, le=MAX_WIDTH) = 256
    conv_kernel: Int("Conv1's kernel side", ge=1, le=MAX_IMAGE) = 9
    # PrimaryCaps: 32 maps of 8D capsules, 9x9, stride 2
    primary_maps: Int("primary capsule maps", ge=1, le=MAX_WIDTH) = 32
    primary_dim: Int("a primary capsule's dimensions", ge=1, le=MAX_WIDTH) = 8
    primary_kernel: Int("PrimaryCaps' kernel side", ge=1, le=MAX_IMAGE) = 9
    primary_stride: Int("PrimaryCaps' stride", ge=1, le=MAX_IMAGE) = 2
    # DigitCaps: one 16D capsule per class
    n_classes: Classes = 10
    digit_dim: Int("a digit capsule's dimensions", ge=1, le=MAX_WIDTH) = 16
    iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS) = 3
    grad_through_routing: Flag("whether gradients flow through the routing iterations") = True
    decoder_hidden: tuple[Int("a hidden layer's width", ge=1, le=MAX_WIDTH), ...] = (512, 1024)
    # "scaled down by 0.0005" (Section 4.1)
    recon_weight: Float("the weight of the reconstruction loss", ge=0) = 0.0005

    def __post_init__(self):
        """Refuse sizes that make no network, naming the field: the declared types and ranges
        above (``CheckedRecord``), and sizes that leave no primary capsule (the model
        would fail only at forward)."""
        super().__post_init__()
        if self.primary_grid < 1:
            after_conv = max(0, self.image_size - self.conv_kernel + 1)
            raise ValueError(
                f"CapsNetConfig(): image_size={self.image_size}, with conv_kernel="
                f"{self.conv_kernel} and primary_kernel={self.primary_kernel}, leaves no primary "
                f"capsule: Conv1 ({self.conv_kernel}x{self.conv_kernel}) gives {after_conv} "
                "pixels a side, "
                f"PrimaryCaps needs at least primary_kernel={self.primary_kernel}. Use image_size "
                f">= {self.conv_kernel + self.primary_kernel - 1}, or smaller conv_kernel / "
                "primary_kernel."
            )
        if self.n_primary > MAX_CHILDREN:  # refused here, not as RoutingCapsules' n_in
            raise ValueError(f"CapsNetConfig(): image_size must leave at most {MAX_CHILDREN:,} "
                             f"primary capsules (primary_grid² x primary_maps, the routing's "
                             f"children), got {self.image_size}, which leaves "
                             f"{self.n_primary:,}; pass a smaller image_size or primary_maps, or "
                             "a larger primary_stride")

    @property
    def primary_grid(self) -> int:
        """Side of the PrimaryCaps grid: 28 -> 20 (Conv1) -> 6 (PrimaryCaps) in the paper."""
        after_conv = self.image_size - self.conv_kernel + 1
        return (after_conv - self.primary_kernel) // self.primary_stride + 1

    @property
    def n_primary(self) -> int:
        """Number of primary capsules, 6 * 6 * 32 = 1152 in the paper."""
        return self.primary_grid**2 * self.primary_maps


PAPER = CapsNetConfig()
# A CPU-friendly CapsNet: 64 Conv1 channels and 8 primary maps (288 capsules instead of 1152).
SMALL = CapsNetConfig(conv_channels=64, primary_maps=8)
# The CapsNet a learner trains live in notebook 05: half of SMALL's Conv1 channels.
LIVE = CapsNetConfig(conv_channels=32, primary_maps=8)
# SMALL on affNIST's 40x40 canvas (notebook 08). PrimaryCaps stride 3 gives an 8x8 grid (512
# capsules) instead of 12x12 (1152): half the time per epoch on a CPU.
AFFNIST = CapsNetConfig(image_size=40, conv_channels=64, primary_maps=8, primary_stride=3)
# The MultiMNIST CapsNet on the 36x36 canvas (notebook 08, Section 6; ``capsedu.multi_digit``):
# the paper's PrimaryCaps stride 2 keeps a 10x10 grid (800 capsules) to tell two overlapping digits
# apart, and half of SMALL's Conv1 channels pays for it on a CPU.
MULTIMNIST = CapsNetConfig(image_size=36, conv_channels=32, primary_maps=8)


class _Output(NamedTuple):
    v: torch.Tensor  # [B, n_classes, digit_dim]  DigitCaps vectors
    lengths: torch.Tensor  # [B, n_classes]  ||v_j||: the probability that class j is present
    reconstruction: torch.Tensor  # [B, C, H, W]  the decoder's image from the masked v
    routing: RoutingResult  # couplings and per-iteration trace of the DigitCaps routing


class CapsNetOutput(_Remade, _Output):
    """What a CapsNet computes for a batch of images; checked when made by hand, shapes and
    values (v finite and its routing's v, lengths its norms, a reconstruction of pixels in
    [0, 1], as the decoder's sigmoid gives): every forward pass makes one with ``_made``,
    unchecked."""

    __slots__ = ()

    def __new__(cls, v, lengths, reconstruction, routing):
        # reconstruction: [B, C, H, W], or [B, 2, C, H, W] of a MultiDigitCapsNet (one per digit)
        _check_tensors("CapsNetOutput", "pass what a CapsNet gives, model(x)", v=(v, 3),
                      lengths=(lengths, 2), reconstruction=(reconstruction, (4, 5)))
        _check_routed(routing, "CapsNetOutput(): routing")
        out = super().__new__(cls, v, lengths, reconstruction, routing)
        _check_batch(out, "CapsNetOutput(): v, lengths, reconstruction and routing")
        fix = "pass what a CapsNet gives, model(x)"
        _check_values("CapsNetOutput", fix, v=v, lengths=lengths)
        _check_values("CapsNetOutput", fix, (0, 1), reconstruction=reconstruction)
        if not torch.equal(v.detach(), routing.v.detach()):  # a CapsNet's v is its routing's
            raise ValueError("CapsNetOutput(): v must be its routing's v (the DigitCaps a CapsNet "
                             "routes to), got another; pass v and routing of one model(x), or "
                             "replace both: out._replace(v=r.v, lengths=r.v.norm(dim=-1), "
                             "routing=r)")
        norms = v.detach().norm(dim=-1)  # [B, n_classes]
        # relative: an untrained model's lengths are ~1e-3, doubled they are still near 0
        if not torch.allclose(lengths.detach().to(norms.dtype), norms, rtol=_rounding(v),
                              atol=1e-6):
            raise ValueError(f"CapsNetOutput(): lengths must be the norms of v, ||v_j||, got "
                             f"lengths off them by up to {(lengths - norms).abs().max():.4g}; "
                             "pass v.norm(dim=-1) as the lengths")
        return out


def _check_batch(out: CapsNetOutput, name: str) -> None:
    """Refuse an output whose fields are not of one batch and one set of capsules (lengths
    ``[B, n_classes]`` of v ``[B, n_classes, digit_dim]``, the routing's v of v's shape: a model's
    v is its routing's; a reconstruction of the same B)."""
    shapes = {"v": tuple(out.v.shape), "lengths": tuple(out.lengths.shape),
              "reconstruction": tuple(out.reconstruction.shape),
              "routing.v": tuple(out.routing.v.shape)}
    if len({shape[:1] for shape in shapes.values()}) > 1 or shapes["lengths"] != shapes["v"][:2] \
            or shapes["routing.v"] != shapes["v"]:
        got = ", ".join(f"{field} {shape}" for field, shape in shapes.items())
        raise ValueError(f"{name} must hold one batch: lengths [B, n_classes] of v [B, n_classes, "
                         f"digit_dim], a routing whose v has v's shape and a reconstruction of the "
                         f"same B, got {got}; pass the output of one call of the model")


def _check_output(out, name: str) -> CapsNetOutput:
    """Refuse anything but a ``CapsNetOutput`` whose fields share one batch and one set of
    capsules (``_check_batch``; a routing of the same B: ``Routed``), as ``CapsNetOutput``
    checks when made by hand (``_replace`` too, with its values): what is no CapsNetOutput, or
    one built past those checks (``tuple.__new__``), would be drawn, or read, image by image
    wrongly. Only shapes here, no values: the outputs a model gives (``_made``) are never
    refused, a buggy model's included."""
    if not isinstance(out, CapsNetOutput):
        raise TypeError(f"{name} must be a CapsNetOutput (model(x)), got {kind_of(out)[:60]}; "
                        "pass what a CapsNet gives")
    _check_routed(out.routing, name)  # its words name the routing's steps
    _check_batch(out, name)
    return out


# a CapsNet's output (model(x)), its fields of one batch
Output = Checked(_check_output, "a CapsNetOutput (model(x)) whose fields share one batch",
                 "record")
# what a CapsNet's decoder reads: DigitCaps vectors, and the true classes (one per image)
Vectors = Tensor("DigitCaps vectors [B, n_classes, digit_dim]", ndim=3, floating=True)
Labels = Tensor("the true classes [B], one per image", ndim=1)
# the images a reconstruction is compared with ([B, C, H, W]; [B, 2, C, H, W] for two digits)
Originals = Tensor("the images out was computed from [B, ...]", pixels=True)


class CapsNet(nn.Module):
    """Conv1 -> PrimaryCaps -> DigitCaps (routing) -> decoder (Sabour et al. 2017, Fig. 1-2).

    ``CapsNet()`` is the paper's network, ``CapsNet(SMALL)`` the CPU-sized one; any
    ``CapsNetConfig`` field can be overridden by keyword, e.g. ``CapsNet(SMALL, iterations=1)``.
    (Notebook 09's buggy CapsNets are ``capsedu.buggy_capsnet.BuggyCapsNet``.)
    """

    @checked
    def __init__(self, config: CapsNetConfig = PAPER, **overrides):
        super().__init__()
        cfg = self.config = replaced(type(self).__name__, config, **overrides)
        self.hparams = asdict(cfg)
        self.conv1 = nn.Conv2d(cfg.in_channels, cfg.conv_channels, cfg.conv_kernel)
        self.primary = PrimaryCapsules(
            cfg.conv_channels, cfg.primary_maps, cfg.primary_dim, cfg.primary_kernel,
            cfg.primary_stride,
        )
        self.digits = RoutingCapsules(
            cfg.n_primary, cfg.primary_dim, cfg.n_classes, cfg.digit_dim, cfg.iterations,
            cfg.grad_through_routing,
        )
        sizes = [cfg.n_classes * cfg.digit_dim, *cfg.decoder_hidden]
        layers = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            layers += [nn.Linear(a, b), nn.ReLU()]
        n_pixels = cfg.in_channels * cfg.image_size**2
        self.decoder = nn.Sequential(*layers, nn.Linear(sizes[-1], n_pixels), nn.Sigmoid())

    @checked(reads=("self", "x"))
    def votes(self, x: Batch) -> torch.Tensor:
        """What DigitCaps routes: every primary capsule's prediction of every digit capsule,
        u_hat_j|i = W_ij u_i, ``[B, n_primary, n_classes, digit_dim]``, for ``x`` ``[B, C, H, W]``
        images in the model's dtype (float32 in [0, 1] unless the model was converted)."""
        return self._votes(x)

    def _votes(self, x: torch.Tensor) -> torch.Tensor:
        """``votes``, its input checked (a bug of the zoo changes what it gives)."""
        u = self.primary(F.relu(self.conv1(x)))  # [B, n_primary, primary_dim]
        return self.digits.votes(u)

    def forward(self, x: torch.Tensor, targets: torch.Tensor | None = None) -> CapsNetOutput:
        """``x``: ``[B, C, H, W]`` images (``votes``), checked by hand at every pass (the hot
        path: ``@checked`` would check them again). The decoder sees only one DigitCaps vector:
        the true class's when integer ``targets`` ``[B]`` are given (training; checked by
        ``reconstruct``), else the longest (test)."""
        check_input(x, f"{type(self).__name__}(): x", self, some=True)  # shape, dtype, one or more
        if self.conv1.weight.is_meta:  # model.to('meta'): torch reads x with no weights, as NaN
            raise ValueError(f"{type(self).__name__}(): the model must hold weights to read x, "
                             "got one on the 'meta' device (shapes without values); load them: "
                             "checkpoints.pretrained(name), or model.to_empty(device='cpu') and "
                             "model.load_state_dict(...)")
        check_pixels(x, f"{type(self).__name__}(): x")
        if targets is not None:  # by the model's name, not reconstruct's, before the routing
            check_labels(targets, f"{type(self).__name__}(): targets", len(x),
                         self.config.n_classes,
                         k=targets.shape[1] if getattr(targets, "ndim", 1) == 2 else None)
        routing = self.digits.route(self._votes(x))
        v = routing.v  # [B, n_classes, digit_dim]
        lengths = v.norm(dim=-1)  # [B, n_classes]
        return CapsNetOutput._made(v, lengths, self.reconstruct(v, lengths, targets), routing)

    @checked
    def reconstruct(self, v: Vectors, lengths: Lengths, targets: Labels | None = None
                    ) -> torch.Tensor:
        """Mask all but one capsule (the target's, else the longest) and decode it to an image.

        ``v``: ``[B, n_classes, digit_dim]``, ``lengths``: ``[B, n_classes]``, ``targets``:
        ``[B]`` integer labels or None."""
        self._check_capsules("reconstruct", v, lengths)
        if targets is None:
            chosen = lengths.argmax(dim=1)
        else:
            check_labels(targets, f"{type(self).__name__}.reconstruct(): targets", v.shape[0],
                         self.config.n_classes)
            chosen = targets.long()
        return self._decoded(v, chosen)

    def _decoded(self, v: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
        """The decoder's images of capsules ``v`` with all but class ``chosen`` ``[B]`` zeroed,
        unchecked: ``digit_capsules`` decodes capsules edited past length 1 on purpose (Fig. 4)."""
        mask = F.one_hot(chosen, self.config.n_classes).to(v.dtype)  # [B, n_classes]
        flat = (v * mask.unsqueeze(-1)).flatten(1)  # [B, n_classes * digit_dim]
        cfg = self.config
        return self.decoder(flat).view(-1, cfg.in_channels, cfg.image_size, cfg.image_size)

    def _check_capsules(self, method: str, v: torch.Tensor, lengths: torch.Tensor) -> None:
        """Refuse digit capsules ``v`` of another model's sizes or of another dtype than its
        decoder's weights, ``lengths`` not theirs, and capsules longer than 1 (not squashed)."""
        n, d = self.config.n_classes, self.config.digit_dim
        where = f"{type(self).__name__}.{method}()"
        check_shape(v, f"{where}: v", f"[batch, {n}, {d}] (n_classes, digit_dim)", 3, (n, d))
        check_shape(lengths, f"{where}: lengths", f"[batch, {n}] = v's [B, n_classes]", 2, (n,))
        check_same(where, "batch", "pass the lengths of v", v=len(v), lengths=len(lengths))
        weights = self.decoder[0].weight.dtype
        if v.dtype != weights:  # the decoder's matrix product takes one dtype
            raise TypeError(f"{where}: v must be of the decoder's dtype, {weights}, got "
                            f"{v.dtype}; pass v.to({weights}), or the model in {v.dtype}: "
                            f"model.to({v.dtype})")
        norms, lengths = v.detach().norm(dim=-1), lengths.detach().to(v.dtype)
        off = (lengths - norms).abs() > 1e-4 + 1e-3 * norms  # float tolerance
        if off.any():
            b, k = (int(i) for i in off.nonzero()[0])
            raise ValueError(f"{where}: lengths must be v's lengths, v.norm(dim=-1) (the decoder "
                             f"is masked by the longest), got {float(lengths[b, k]):.4g} for "
                             f"the capsule [{b}, {k}] of length {float(norms[b, k]):.4g} "
                             f"({int(off.sum())} of {off.numel()} differ); pass v.norm(dim=-1)")
        if norms.numel() and (longest := float(norms.max())) > 1 + 1e-4:  # a presence: <= 1
            raise ValueError(f"{where}: v must be squashed capsules, each of length at most 1 (a "
                             f"length is a probability, all the decoder was trained on), got "
                             f"length {longest:.4g}; squash it first: squash(v) (capsules "
                             "edited on purpose: digit_capsules.decode(model, v, labels))")

    @checked
    def loss(self, out: Output, x: Originals, targets: Targets) -> torch.Tensor:
        """Margin loss (Eq. 4) plus 0.0005 x the reconstruction's sum of squared errors."""
        self._check_loss(out, x, targets)
        recon = reconstruction_loss(out.reconstruction, x)
        return margin_loss(out.lengths, targets) + self.config.recon_weight * recon

    def _check_loss(self, out: CapsNetOutput, x: torch.Tensor, targets: torch.Tensor) -> None:
        """Refuse images ``x`` of another batch or shape than ``out``'s reconstruction, or
        ``targets`` that are not one (or k) classes of this model per image, by ``loss``'s name
        (not margin_loss's nor reconstruction_loss's)."""
        where = f"{type(self).__name__}.loss"
        check_same(where, "batch (one image per output)", "pass the images out was computed "
                   "from", out=len(out.lengths), x=len(x))
        check_same(where, "shape", "pass the images out was computed from, as the model read "
                   "them (not flattened)", **{"out.reconstruction": tuple(out.reconstruction.shape),
                                              "x": tuple(x.shape)})
        check_labels(targets, f"{where}(): targets", len(x), self.config.n_classes,
                     k=targets.shape[1] if targets.ndim == 2 else None)

    @checked(reads=("self", "x"))
    def training_loss(self, x: Batch, y: Labels):
        """``(loss, predictions [B])`` for images ``x`` ``[B, C, H, W]`` and labels ``y`` ``[B]``,
        refused by their own names (not forward's or margin_loss's targets)."""
        check_labels(y, f"{type(self).__name__}.training_loss(): y", len(x), self.config.n_classes)
        out = self(x, y)  # the decoder is masked by the TRUE label during training
        return self.loss(out, x, y), out.lengths.argmax(dim=1)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def predict(self, x: Batch) -> torch.Tensor:
        return self._read("predict", x).lengths.argmax(dim=1)

    def _read(self, method: str, x: torch.Tensor) -> CapsNetOutput:
        """``self(x)`` for ``method`` (one that reads without gradients), refused before the pass
        where ``x`` holds more images than memory does (a test set at once): about the bytes
        of the pass, temporaries counted, per image Conv1's maps, the primary capsules, the votes
        u_hat and the routing's logits, twice each of the last two (``memory.check_memory``);
        read in eval mode (``evaluating``), as a test image is, whatever mode the model is in."""
        cfg, where = self.config, f"{type(self).__name__}.{method}()"
        per_image = (cfg.conv_channels * (cfg.image_size - cfg.conv_kernel + 1) ** 2
                     + cfg.n_primary * (cfg.primary_dim + 2 * cfg.n_classes * (cfg.digit_dim + 1)))
        check_memory(x.element_size() * len(x) * per_image, f"{where}: x of {len(x):,} images",
                     "pass fewer at a time: loop.predict(model, x) reads them in batches of 32")
        with evaluating(self):
            return self(x)

    @checked(reads=("self", "x"))
    @torch.no_grad()
    def score(self, x: Batch, label: Label) -> tuple[torch.Tensor, torch.Tensor]:
        """Capsule ``label``'s length ``[B]`` and the length it must beat to be predicted ``[B]``:
        the longest of the other capsules."""
        label = check_class(f"{type(self).__name__}.score", label, self.config.n_classes)
        lengths = self._read("score", x).lengths  # [B, n_classes]
        others = torch.cat([lengths[:, :label], lengths[:, label + 1:]], dim=1)
        return lengths[:, label], others.amax(dim=1)


def _check_cnn(model, name: str) -> nn.Module:
    """Refuse anything but a model whose forward pass gives class logits: a CapsNet gives a
    ``CapsNetOutput``, which no softmax reads (most likely the two models passed swapped)."""
    if isinstance(model, CapsNet) or not isinstance(model, nn.Module):
        raise TypeError(f"{name} must be a CNN whose forward pass gives class logits [B, "
                        f"classes] (a torch.nn.Module, not a CapsNet), got {shown(model)}; "
                        "pass the CNN here"
                        + " and the CapsNet as capsnet (were the two swapped?)"
                        * isinstance(model, CapsNet))
    return model


# the CNN read beside a CapsNet (notebook 08's readers): a model that gives class logits
LogitsCNN = Checked(_check_cnn, "a CNN whose forward pass gives class logits (not a CapsNet)",
                    "record")


@contextmanager
@checked
def routing_iterations(model: nn.Module,
                       iterations: Int("routing iterations", ge=1, le=MAX_ITERATIONS),
                       where: str = "routing_iterations", argument: str = "model"
                       ) -> Iterator[nn.Module]:
    """Route ``model`` (a ``CapsNet``, any model whose ``digits`` layer routes, or a model that
    routes by its own ``iterations``, as ``parts.pose_net.PoseCapsuleNet``) with ``iterations``
    inside the ``with`` block, its weights unchanged; its own number of iterations comes back
    when the block ends, also after an error::

        with routing_iterations(capsnet, 1):  # uniform coupling, the same weights
            accuracy = evaluate(capsnet, test)

    A model that does not route is refused in the words of ``where`` (the function the caller
    called) and its ``argument``."""
    router = getattr(model, "digits", model)  # the layer (or model) that holds the iterations
    if not hasattr(router, "iterations"):
        raise TypeError(f"{where}(): {argument} must be a model that routes, to be routed "
                        f"{iterations} times: one with a routing 'digits' layer (CapsNet) or an "
                        f"'iterations' of its own (PoseCapsuleNet), got a {type(model).__name__}, "
                        "which does not route; pass iterations=None (as trained), or such a model")
    trained_with = router.iterations
    router.iterations = iterations
    try:
        yield model
    finally:
        router.iterations = trained_with


@checked
def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

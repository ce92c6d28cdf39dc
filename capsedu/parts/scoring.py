"""How every face model is scored: its score for "face" and where it cuts, its verdicts, and its
*face rate* per kind of image, over seeds (notebooks 01 and 07).

A model is trained to tell faces from non-faces (``faces.dataset`` kinds ``face`` and
``nonface``); scrambled faces are **never** shown in training (``parts.training``). Then we
measure its face rate on held-out images of every kind: the fraction of images it calls "face".
On faces a good model says 1.0, on non-faces 0.0; on a scramble (the right parts in the wrong
places) a model that only checks *which* parts are present says "face", one that checks *where*
they are says "not a face".

Every model family answers ``model.score(images, label) -> (score, cut)`` (``capsedu.baselines``,
``capsedu.capsnet``, ``parts.pose_net``), so one function scores them all. Held-out sets use other
seeds than the training sets (``TEST_SEED``), so no image is shared.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated

import numpy as np
import torch
from pydantic import AfterValidator

from ..checks import check_input, check_same
from ..course_settings import Name, Seeds, model_device, with_methods
from ..data import faces, sprites
from ..loop import predict
from ..poses import wrap_angle
from ..statistics import OverSeeds, over_seeds
from ..units import InDegrees
from ..validate import (
    CheckedRecord,
    Choice,
    Distinct,
    Flag,
    Float,
    Has,
    Int,
    Numbers,
    Some,
    Spec,
    Tensor,
    check_value,
    checked,
)

TEST_SEED = 1000  # held-out sets use seeds from here on; training sets use small seeds
# a held-out draw's seed: never one the face models trained on (training.py's --seeds 0 1 2)
HeldOutSeed = Int("a seed of held-out draws, past the training seeds 0, 1, 2 the face models "
                  "learnt from (the same seed draws the same images)", ge=3, le=2**32 - 1)
FACE = faces.LABELS["face"]  # the label (and class index) of "face"
# Images per forward pass when scoring: one pass over hundreds of images would hold the first
# feature maps of all of them at once (a 32x32 pixel CapsNet's: 0.6 MB per image)
BATCH = 128

# Kinds no model trained on: faces (and scrambles) drawn outside the training range of the face
# pose (``faces.TRAINING_POSES``: centre within 0.06 of the middle, scale 0.85-1.1, parts exactly
# in place). Scales at least 20 % beyond the range on both sides, centres beyond it, parts 1-2
# pixels (at 32 x 32) and up to 10 degrees out of place; and a new scramble, a face with one of
# its parts moved 0.20-0.35 of the image away.
_PX = 1 / 32
UNSEEN = {
    "smaller faces": ("face", faces.FacePoses(scale=(0.62, 0.68))),
    "larger faces": ("face", faces.FacePoses(scale=(1.32, 1.40))),
    "off-centre faces": ("face", faces.FacePoses(shift=(0.10, 0.14))),
    "jittered faces": ("face", faces.FacePoses(jitter=(1 * _PX, 2 * _PX), jitter_angle=10.0)),
    "smaller permuted": ("permuted", faces.FacePoses(scale=(0.62, 0.68))),
    "larger swapped": ("swapped", faces.FacePoses(scale=(1.32, 1.40))),
    "off-centre upside_down": ("upside_down", faces.FacePoses(shift=(0.10, 0.14))),
    "smaller random": ("random", faces.FacePoses(scale=(0.62, 0.68))),
    "one part moved": ("face", faces.FacePoses(displace=(0.20, 0.35))),  # a scramble, not a face
}
# the sets a person calls faces (the other unseen sets are scrambles)
UNSEEN_FACES = ("smaller faces", "larger faces", "off-centre faces", "jittered faces")

Kind = Choice("a kind of image: one of faces.KINDS or of UNSEEN", *faces.KINDS, *UNSEEN)
# kinds to measure or show, each once (a kind twice is a row or a measure twice), at least one
Kinds = Annotated[tuple[Kind, ...] | list[Kind], Some, Distinct]
# n of each held-out kind: every kind, seen and unseen, drawn together stays in half of
# MAX_IMAGES, as a model reads each too (probe 30: face_rates of all 16 kinds at 1,250 took 64 s)
MAX_PER_KIND = faces.MAX_IMAGES // (2 * (len(faces.KINDS) + len(UNSEEN)))
Count = Int("held-out images of each kind", ge=1, le=MAX_PER_KIND)
# the side every face model is trained on (held_out's): a CNN would read any side without a word
Images = Tensor("face scenes [n, 1, 32, 32]", ndim=4, pixels=True, sizes={1: 1, 2: 32, 3: 32})


def _two_classes(model: torch.nn.Module) -> torch.nn.Module:
    """Refuse a model of other classes than face and non-face (an MNIST model's class 1 is a
    digit, not "face")."""
    n = getattr(model, "hparams", {}).get("n_classes", 2)  # the capsule and MLP models: 2
    if n != 2:
        raise ValueError(f"must tell faces from non-faces (2 classes), got a "
                         f"{type(model).__name__} of {n} classes; pass a face model, e.g. one "
                         "of training.load_face_models([0])")
    return model


# a model of the face task: faces against non-faces, read by .predict and .score (a torch module
# without them, nn.Linear, is refused, naming what it lacks); and at least one, e.g. one per seed
FACE_NET = ("a face model (a torch.nn.Module of 2 classes: face, non-face, with .predict(x) and "
            ".score(x, label))")
FaceNet = Annotated[torch.nn.Module, with_methods(
    FACE_NET, ["predict(x)", "score(x, label)"], "pass a face model, e.g. "
    "training.shipped_or_trained('pixel CapsNet', 0) or one that training.load_face_models([0]) "
    "loads"), AfterValidator(_two_classes),
                    Spec(FACE_NET, "record")]
FaceNets = Annotated[list[FaceNet] | tuple[FaceNet, ...], Some]
NamedFaceNets = Annotated[dict[Name, FaceNet], Some]  # face models side by side, name -> model
# turns in degrees, of one scene (turned_face_scores; pose_net.rotation_sweep)
Turns = Annotated[Numbers("the turns in degrees [n]", ndim=1, at_least=1,
                          fix="pass e.g. np.arange(0, 360, 15)"), InDegrees]
Width = Int("degrees of |angle| per bin", ge=1, le=180)


def _some_images(images: torch.Tensor) -> torch.Tensor:
    """Refuse a set of no images: its face rate would be the NaN of an empty mean."""
    if not len(images):
        raise ValueError("must hold at least one image, got shape "
                         f"{tuple(images.shape)}; probe with one or more")
    return images


# image sets to probe every model with, label -> scenes [n, 1, 32, 32] (turned_faces, spread_faces)
Probe = Annotated[dict[str, Annotated[Images, AfterValidator(_some_images)]], Some]
# each model's face rates on a probe, name -> probe_rates' [seeds, sets]
ProbeRates = Annotated[dict[str, Numbers("face rates [seeds, sets] (probe_rates)", ndim=2, ge=0,
                                         le=1, at_least=1)], Some]


def _angle_curve(curve: np.ndarray) -> np.ndarray:
    """Refuse a curve of no bins, of bin centres out of order or repeated (the first bin is the
    one nearest upright) or in radians (``units.InDegrees``: 0 to pi on an axis of degrees), or
    of face rates above 1 (a percentage, the bins' counts)."""
    if not curve.shape[1]:
        raise ValueError("must hold at least one bin, got none; pass the pair "
                         "mean_face_rate_by_angle returns")
    if not (np.diff(curve[0]) > 0).all():
        raise ValueError(f"must hold bin centres in increasing order, each once, got "
                         f"{curve[0].tolist()}; pass the pair mean_face_rate_by_angle returns")
    try:
        InDegrees.func(curve[0])
    except ValueError as err:
        raise ValueError(str(err).replace("must be", "must hold bin centres as", 1)) from None
    if np.nanmax(curve[1], initial=0) > 1:
        raise ValueError(f"must hold face rates in [0, 1] in its second row, got values up to "
                         f"{np.nanmax(curve[1]):g}; pass fractions, as mean_face_rate_by_angle "
                         "gives them")
    return curve


# face rate against the face's turn, name -> (bin centres [bins], rates [bins]) as
# mean_face_rate_by_angle gives them, a NaN for an empty bin; handed on as [2, bins] arrays
AngleCurves = Annotated[dict[str, Annotated[
    Numbers("(bin centres in degrees [bins], face rates [bins]), as mean_face_rate_by_angle "
            "gives them", shape=(2, None), ge=0, nan=True,
            fix="pass the pair mean_face_rate_by_angle returns"),
    AfterValidator(_angle_curve)]], Some]


@checked
def held_out(kind: Kind, n: Count, seed: HeldOutSeed = TEST_SEED) -> tuple[torch.Tensor, list]:
    """``n`` held-out images of ``kind`` ``[n, 1, 32, 32]`` and the parts that drew them:
    ``kind`` is one of ``faces.KINDS`` (in the training range) or of ``UNSEEN``.

    Drawn once and kept (``_drawn``), so every model is measured on the very same images; each
    call hands back copies, so a caller who changes them changes no other caller's."""
    images, parts = _drawn(kind, n, seed)
    return images.clone(), list(parts)


@lru_cache(maxsize=64)
def _drawn(kind: str, n: int, seed: int) -> tuple[torch.Tensor, list]:
    """``held_out``'s images and parts, drawn once per (kind, n, seed)."""
    kind, poses = UNSEEN.get(kind, (kind, faces.TRAINING_POSES))
    images, _, parts = faces.dataset(kind, n, seed, poses=poses)
    return images, parts


@checked(reads=("model", "images"))
@torch.no_grad()
def face_scores(model: FaceNet, images: Images):
    """One forward pass of ``model`` on face scenes ``[n, 1, 32, 32]``: its score for "face"
    ``[n]`` and the score above which it calls an image a face ``[n]`` (``model.score(x, FACE)``):

    * a CNN: P(face), the softmax of its two logits; cut at 0.5 (the larger output wins);
    * the pixel CapsNet: the face capsule's length; cut at the other capsule's length;
    * the pose-capsule model: the face capsule's length; cut at the threshold chosen in training.
    """
    model.eval()
    device = model_device(model)  # the CPU for a model without parameters
    scores, cuts = zip(*(model.score(batch.to(device), FACE) for batch in images.split(BATCH)),
                       strict=True)
    return torch.cat(scores).cpu(), torch.cat(cuts).cpu()


@checked(reads=("model", "images"))
def face_probability(model: FaceNet, images: Images) -> torch.Tensor:
    """P(face) ``[n]`` for face scenes ``[n, 1, 32, 32]``: for a CNN the softmax of its two
    logits, for a capsule network the length of its face capsule (see ``face_scores``)."""
    return face_scores(model, images)[0]


@checked(reads=("model", "images"))
def face_threshold(model: FaceNet, images: Images) -> torch.Tensor:
    """``[n]``: the ``face_probability`` above which ``model`` calls each image a face (see
    ``face_scores``)."""
    return face_scores(model, images)[1]


@checked(reads=("model", "images"))
def called_face(model: FaceNet, images: Images) -> torch.Tensor:
    """``[n]`` bool: which images ``model.predict`` calls "face"."""
    return predict(model, images, BATCH) == FACE


@checked
def face_rates(model: FaceNet, kinds: Kinds = faces.KINDS, n: Count = 500,
               seed: HeldOutSeed = TEST_SEED) -> dict[str, float]:
    """For each kind (of ``faces.KINDS`` or ``UNSEEN``), the fraction of ``n`` held-out images
    that ``model.predict`` calls "face"."""
    return {kind: called_face(model, held_out(kind, n, seed)[0]).float().mean().item()
            for kind in kinds}


# a model's score for "face" (P(face), or a face capsule's length), or where it cuts
Score = Float("a face model's score for face, or its cut", ge=0, le=1)


@checked
def check_verdicts(record: Has("verdicts", "face_probability", "threshold", "called_face",
                               source="a Verdicts, or a widget's FaceState")) -> None:
    """Refuse verdicts (dicts keyed by model name) of other models than each other's, or a
    verdict other than score > cut."""
    p, cut, called = record.face_probability, record.threshold, record.called_face
    if not list(p) == list(cut) == list(called) or any(called[m] != (p[m] > cut[m]) for m in p):
        raise ValueError(f"{type(record).__name__}(): called_face must be face_probability > "
                         f"threshold, for the same models, got {p}, {cut}, {called}; pass the "
                         "models' own verdicts (scoring.verdicts)")


@dataclass(frozen=True)
class Verdicts(CheckedRecord):
    """Every model's verdict on one image (``verdicts``): three dicts keyed by model name."""

    face_probability: dict[str, Score]  # each model's score for "face"
    threshold: dict[str, Score]  # where each model cuts between face and not
    called_face: dict[str, Flag("whether the model calls the image a face")]  # score > cut

    def __post_init__(self):
        super().__post_init__()
        check_verdicts(self)


@checked(reads=("models", "x"))
def verdicts(models: NamedFaceNets, x: Tensor("one image [1, 1, H, W]", ndim=4, pixels=True,
                                     sizes={0: 1, 1: 1})) -> Verdicts:
    """Each model's score for "face" on the one image ``x`` ``[1, 1, H, W]``, where it cuts, and
    its verdict (score above the cut), from one forward pass per model (``models``: name ->
    model), each keyed by model name."""
    scores = {name: [float(t[0]) for t in face_scores(m, x)] for name, m in models.items()}
    return Verdicts(face_probability={name: p for name, (p, _) in scores.items()},
                    threshold={name: cut for name, (_, cut) in scores.items()},
                    called_face={name: p > cut for name, (p, cut) in scores.items()})


def _edited_faces(edit, n: int, seed: int) -> torch.Tensor:
    """The held-out faces, each passed through ``edit(parts) -> parts``: ``[n, 1, 32, 32]``."""
    scenes = held_out("face", n, seed)[1]
    return sprites.render_many([edit(ps) for ps in scenes])


@checked
def spread_faces(factor: Float("how far the layout spreads; beyond 1.3 parts leave the image",
                               ge=1, le=1.3),
                 n: Count = 500, seed: HeldOutSeed = TEST_SEED) -> torch.Tensor:
    """The held-out faces with their layout spread by ``factor``: ``[n, 1, 32, 32]``.

    ``factor = 1`` gives the held-out faces themselves. Up to 1.2 every face part stays inside
    the image; at 1.3, under 1% of the faces have a part touching the border (a distractor stroke
    near the border may be cut off at any factor above 1).
    """
    return _edited_faces(lambda parts: faces.spread(parts, factor), n, seed)


@checked
def turned_faces(kinds: tuple[faces.PartKind, ...] | list[faces.PartKind], n: Count = 500,
                 seed: HeldOutSeed = TEST_SEED) -> torch.Tensor:
    """The held-out faces with the parts of ``kinds`` turned over in place: ``[n, 1, 32, 32]``.

    ``kinds = ()`` gives the held-out faces themselves; all four kinds, their ``upside_down``
    versions.
    """
    return _edited_faces(lambda parts: faces.turn_over(parts, kinds), n, seed)


@checked
def probe_rates(models: FaceNets, probe: Probe) -> np.ndarray:
    """Face rate of every model (rows, e.g. one per seed) on every image set of ``probe``
    (columns, in the order of ``probe``, a dict label -> images): ``[models, sets]``."""
    for label, images in probe.items():
        for model in models:
            check_input(images, f"probe_rates(): probe[{label!r}]", model)
    return np.array([[called_face(model, images).float().mean().item()
                      for images in probe.values()] for model in models])


@checked
def face_rate_by_angle(model: FaceNet, n: Count = 500, width: Width = 30,
                       seed: HeldOutSeed = TEST_SEED):
    """Face rate on held-out ``rotated`` faces, binned by how far the face is turned.

    Returns ``(centres, rates)``: bin centres in degrees (``|angle|`` from 0 to 180) and the
    fraction called "face" in each bin (NaN for an empty bin).
    """
    images, parts = held_out("rotated", n, seed)
    turn = np.abs(wrap_angle(np.array([ps[0].angle for ps in parts])))  # |angle| [n]
    said_face = called_face(model, images).numpy()
    edges = np.arange(0, 180 + width, width)
    bins = np.clip(np.digitize(turn, edges) - 1, 0, len(edges) - 2)
    rates = [said_face[bins == b].mean() if (bins == b).any() else np.nan
             for b in range(len(edges) - 1)]
    return (edges[:-1] + edges[1:]) / 2, np.array(rates)


@dataclass
class SeedRuns(CheckedRecord):
    """One baseline trained with several seeds, and its face rates on the same held-out sets."""

    name: Name
    seeds: Seeds
    # one per seed, or none where the rates were recorded without them (patch_order's)
    models: list[FaceNet] = field(repr=False)
    rates: dict[Kind, list[Float("a face rate", ge=0, le=1)]]  # kind -> one face rate per seed

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or models or rates of other seeds."""
        super().__post_init__()
        check_same("SeedRuns", "length, one per seed", "pass one face rate (and one model, or "
                   "none) per seed", seeds=len(self.seeds), **{f"rates[{k!r}]": len(r) for k, r
                   in self.rates.items()}, **{"models": len(self.models)} if self.models else {})

    @checked
    def mean(self, kind: Kind) -> float:
        check_value("SeedRuns.mean", "kind", Choice("a kind measured here", *self.rates), kind)
        return float(np.mean(self.rates[kind]))

    @checked
    def interval(self, kind: Kind) -> OverSeeds | None:
        """The face rates on ``kind`` over the seeds (``over_seeds``); None for one seed."""
        check_value("SeedRuns.interval", "kind", Choice("a kind measured here", *self.rates), kind)
        return over_seeds(self.rates[kind]) if len(self.seeds) > 1 else None

    def accuracy(self) -> np.ndarray:
        """Faces vs non-faces accuracy ``[seeds]``: the mean of the face rate on faces and one
        minus it on non-faces (the two held-out sets have equal size)."""
        faces_ok, nonfaces_ok = np.array(self.rates["face"]), 1 - np.array(self.rates["nonface"])
        return (faces_ok + nonfaces_ok) / 2

    @checked
    def fooled(self, threshold: Float("a face rate", ge=0, le=1) = 0.5) -> list[str]:
        """The scramble kinds (``faces.SCRAMBLED_KINDS``) whose mean face rate is above
        ``threshold``: the scrambles this model calls a face."""
        return [kind for kind in faces.SCRAMBLED_KINDS if self.mean(kind) > threshold]


@checked
def measure_seeds(name: Name, models: FaceNets, seeds: Seeds, kinds: Kinds = faces.KINDS,
                  n_test: Count = 500) -> SeedRuns:
    """The face rates of ``models`` (one per seed of ``seeds``) on the same held-out sets."""
    if len(models) != len(seeds):
        raise ValueError(f"measure_seeds(): models must hold one model per seed, got "
                         f"{len(models)} for the {len(seeds)} seeds {list(seeds)}; pass the seeds "
                         "the models were trained with")
    rates = [face_rates(model, kinds, n_test) for model in models]  # one dict per seed
    return SeedRuns(name, list(seeds), list(models), {k: [r[k] for r in rates] for k in kinds})


@checked
def mean_face_rate_by_angle(models: FaceNets, n: Count = 500, width: Width = 30,
                            seed: HeldOutSeed = TEST_SEED):
    """``face_rate_by_angle`` of every model of ``models`` (one per seed), averaged over them:
    ``(centres [bins], rates [bins])`` (an empty bin is left out of the mean)."""
    curves = [face_rate_by_angle(m, n, width, seed) for m in models]
    return curves[0][0], np.nanmean([rates for _, rates in curves], axis=0)


@checked
def turned_face_scores(models: NamedFaceNets, parts: sprites.Parts, angles: Turns
                       ) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """Each model's ``face_scores`` (score and cut, ``[len(angles)]`` each) on the scene
    ``parts`` turned by each of ``angles`` (degrees, ``faces.rotate``); ``models``: name ->
    model. A scene with no part on the image (``('nose', 16, 16)``: pixels, not fractions of it)
    is refused: every model would score a blank image."""
    sprites._refuse_off_canvas("turned_face_scores", "parts",
                               [sprites._as_part(p, "turned_face_scores") for p in parts],
                               every=False)
    x = sprites.render_many([faces._rotate(parts, a) for a in angles])  # [angles, 1, 32, 32]
    return {name: face_scores(model, x) for name, model in models.items()}

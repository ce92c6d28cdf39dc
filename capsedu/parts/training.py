"""Training the five face models of notebooks 01 and 07, over seeds, and shipping them.

    python -m capsedu.parts.training --seeds 0          # retrains every model into <data root>/runs
    python -m capsedu.parts.training --seeds 0 1 2 --replace-shipped   # rebuilds the shipped ones

The models: a bag-of-parts CNN and a deep CNN (``capsedu.baselines``), the paper's CapsNet on
pixels (``recipes.PIXEL_CAPSNET``), the pose-capsule model (``parts.pose_net``) and its control, an
MLP over the same part capsules (``parts.pose_mlp``). Each is trained by its recipe in
``recipes.RECIPES`` (``face_recipe_name``), one run per seed. All of them learn faces vs non-faces
from ``training_set``; none ever sees a scrambled face.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Annotated

import numpy as np
import torch

from .. import checkpoints
from ..capsnet import routing_iterations
from ..checks import check_same
from ..course_settings import MIN_SIDE, Argv, Seed, Seeds
from ..data import faces
from ..loop import fit
from ..manifest_rows import ManifestRow, Metrics
from ..recipes import RECIPES, Epochs, Recipe
from ..routing import MAX_ITERATIONS
from ..train import train_over_seeds
from ..validate import CheckedRecord, Choice, Flag, Float, Int, Record, Some, check_value, checked
from .detector import detector_training_set
from .pose_net import PoseCapsuleNet, fit_threshold, fit_transforms
from .scoring import Count, Kind, Kinds, face_rates, held_out

FACE_MODELS = ("bag-of-parts CNN", "deep CNN", "pixel CapsNet", "pose capsules", "part-pose MLP")
BASELINES = ("bag-of-parts CNN", "deep CNN")  # notebook 01's CNNs
FaceModel = Choice("one of notebook 07's face models (FACE_MODELS)", *FACE_MODELS)
# images a face model trains or fits on: a training set, or each of faces and non-faces
Images = Int("images", ge=1, le=faces.MAX_IMAGES)
Pairs = Int("faces, and as many non-faces", ge=1, le=faces.MAX_IMAGES // 2)  # 2 n drawn
Iterations = Int("routing iterations", ge=1, le=MAX_ITERATIONS)


@checked
def training_set(n: Int("images, half faces and half non-faces", ge=2, le=faces.MAX_IMAGES),
                 seed: Seed = 0,
                 size: Int("the image side in pixels", ge=MIN_SIDE, le=512) = 32,
                 where: str = "training_set", argument: str = "n"
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` images, half faces and half non-faces, shuffled: ``([n, 1, size, size], [n])``.

    No scrambled face is in it: the models never see "right parts, wrong places" while learning.
    Deterministic in ``(n, seed, size)``. An odd ``n`` is refused in the words of ``where`` (the
    function the caller called) and its ``argument``.
    """
    if n % 2:
        raise ValueError(f"{where}(): {argument} must be an even number >= 2 (half faces, half "
                         f"non-faces), got {n}; pass {n + 1}")
    x_face, y_face, _ = faces.dataset("face", n // 2, seed, size)
    x_non, y_non, _ = faces.dataset("nonface", n // 2, seed, size)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    return torch.cat([x_face, x_non])[order], torch.cat([y_face, y_non])[order]


@checked
def face_recipe_name(name: FaceModel) -> str:
    """The recipe of face model ``name`` in ``recipes.RECIPES``, e.g. ``faces-deep-cnn``."""
    return f"faces-{name.lower().replace(' ', '-')}"


@checked
def face_model_recipe(name: FaceModel, examples: Images | None = None,
                      epochs: Epochs | None = None) -> Recipe:
    """The recipe of face model ``name`` (``recipes.RECIPES``), with fewer (or more) ``examples``
    or ``epochs`` if given: a trial (notebook 01's quick mode), or one epoch at a time
    (``parts.curves``)."""
    recipe = RECIPES[face_recipe_name(name)]
    return replace(recipe, examples=examples or recipe.examples, epochs=epochs or recipe.epochs)


@checked
def train_face_model(name: FaceModel, seed: Seed = 0,
                     progress: Flag("whether to show a progress bar") = True,
                     root: checkpoints.Root = None, epochs: Epochs | None = None,
                     examples: Images | None = None, state_path: str | Path | None = None):
    """Train face model ``name`` by its recipe (``face_model_recipe``: its own number of epochs
    and training images, or ``epochs`` and ``examples``) with ``seed``, on ``training_set``:
    ``examples`` images, half faces and half non-faces, of training seed ``seed``. Returns the
    model on the CPU, in eval mode; ``state_path``: resumable training state, as in ``fit``.

    The pose-capsule model trains in three steps (``train_pose_capsules``). The part-pose MLP
    reads the part capsules of the pose-capsule model of the same seed, frozen (the one in
    ``root`` when this run trained it there, else the shipped one), and learns from ``examples``
    faces and as many non-faces: those the pose-capsule model fitted its W_i and threshold on."""
    recipe = face_model_recipe(name, examples, epochs)
    _check_draws("train_face_model", "examples", name, recipe.examples)
    if name == "pose capsules":
        return train_pose_capsules(recipe, seed, progress, state_path)
    n = recipe.examples
    if name == "part-pose MLP":
        pose_model = shipped_or_trained("pose capsules", seed, root)
        n = 2 * recipe.examples
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    if name == "part-pose MLP":
        model.detector.load_state_dict(pose_model.detector.state_dict())
    data = training_set(n, seed, where="train_face_model", argument="examples")
    fit(model, data, recipe.epochs, recipe.batch_size, recipe.lr,
        recipe.lr_decay, seed, progress=progress, state_path=state_path)
    return model.cpu().eval()


@checked
def train_pose_capsules(recipe: Recipe, seed: Seed = 0,
                        progress: Flag("whether to show a progress bar") = True,
                        state_path: str | Path | None = None) -> PoseCapsuleNet:
    """Build and train notebook 07's pose-capsule model (``parts.pose_net``) by ``recipe`` in
    three steps:

    1. the part detector on ``detector_training_set(3 * recipe.examples, seed)``: ground-truth
       part poses of parts scattered at any place, angle and many sizes; it never sees a face;
    2. and 3. ``fit_readout``: the W_i and the face-length threshold, from ``recipe.examples``
       faces and as many non-faces of training seed ``seed`` (never a scramble), like the CNNs.

    Returns the model on the CPU, in eval mode."""
    own = RECIPES[face_recipe_name("pose capsules")]
    if recipe.build is not own.build or recipe.examples is None:
        raise ValueError(f"train_pose_capsules(): recipe must be the pose-capsule recipe "
                         f"(face_model_recipe('pose capsules'), its examples changed or not), got "
                         f"{recipe.description[:60]!r}; pass that recipe")
    _check_draws("train_pose_capsules", "recipe.examples", "pose capsules", recipe.examples)
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    detector_data = detector_training_set(3 * recipe.examples, seed)
    fit(model.detector, detector_data, recipe.epochs, recipe.batch_size, recipe.lr,
        recipe.lr_decay, seed, progress=progress, state_path=state_path)
    return fit_readout(model.cpu().eval(), recipe.examples, seed)


# images of the training seed a face model draws in one call per example of its recipe: the
# pose-capsule model's part detector learns from 3 x examples, the part-pose MLP from 2 x
DRAWS_PER_EXAMPLE = {"pose capsules": 3, "part-pose MLP": 2}


def _check_draws(where: str, argument: str, name: str, examples: int) -> None:
    """Refuse ``examples`` whose draw for model ``name`` passes ``faces.MAX_IMAGES``, in the words
    of ``where`` and its ``argument``, before any training (not in the drawing function's)."""
    times = DRAWS_PER_EXAMPLE.get(name, 1)
    if examples * times > faces.MAX_IMAGES:
        raise ValueError(f"{where}(): {argument} must be at most {faces.MAX_IMAGES // times:,} "
                         f"for {name!r}, which draws {times} x {argument} images in one call "
                         f"(faces.MAX_IMAGES = {faces.MAX_IMAGES:,}), got {examples:,}; pass "
                         f"fewer examples")


@checked
def shipped_or_trained(name: FaceModel, seed: Seed, root: checkpoints.Root = None):
    """Face model ``name`` of ``seed``: the one in ``root`` when a run saved it there, else the
    shipped one (verified, in eval mode)."""
    saved = checkpoint_name(name, seed)
    in_root = root is not None and saved in checkpoints.rows_in(Path(root).expanduser())
    if not in_root:  # the seeds there are, not pretrained()'s word on a name never passed
        check_saved_seeds("shipped_or_trained", [seed], {name: checkpoint_name(name, 0)},
                          argument="seed")
    return checkpoints.pretrained(saved, root if in_root else None)


@checked
def readout_data(n: Pairs, seed: Seed) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` training faces and ``n`` non-faces of ``seed`` ``[n, 1, 32, 32]`` each, the images
    ``fit_readout`` fits with; drawn once (refitting several versions of a model draws them
    once), handed back as copies, so a caller who changes them changes no other caller's."""
    faces_, nonfaces = _readout_drawn(n, seed)
    return faces_.clone(), nonfaces.clone()


@lru_cache(maxsize=4)
def _readout_drawn(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    return faces.dataset("face", n, seed)[0], faces.dataset("nonface", n, seed)[0]


@checked
@torch.no_grad()
def fit_readout(model: PoseCapsuleNet, n: Pairs | None = None,
                seed: Seed = 0) -> PoseCapsuleNet:
    """Fit what a pose-capsule model reads its verdict with, from training data of ``seed``:

    * the W_i by least squares from the detected parts of ``n`` clean training faces (by
      default the pose-capsule recipe's ``examples``, as the shipped models were fitted);
    * the face-length threshold on those faces and ``n`` non-faces (``fit_threshold``), with
      the model's own number of routing iterations.

    Changes ``model`` in place and returns it."""
    x_face, x_non = readout_data(n or face_model_recipe("pose capsules").examples, seed)
    poses, presence = model.detector.detect(x_face)
    complete = (presence > 0.5).all(dim=1)  # faces where the detector found all four parts
    model.W.copy_(torch.from_numpy(fit_transforms(poses[complete].double().numpy())))
    face_p, non_p = (model.face_probability(x).numpy() for x in (x_face, x_non))
    model.threshold.fill_(fit_threshold(face_p, non_p))
    return model


@contextmanager
@checked
def refitted(model: PoseCapsuleNet, iterations: Iterations, n: Images | None = None,
             seed: Seed = 0) -> Iterator[PoseCapsuleNet]:
    """``model`` routing ``iterations`` times inside the ``with`` block
    (``capsnet.routing_iterations``), with its W_i and threshold refitted for that number
    (``fit_readout`` on ``n`` training faces and non-faces of ``seed``). Its own iterations, W
    and threshold come back when the block ends, also after an error::

        with refitted(pose_model, 1, 1000, seed=0):  # uniform coupling, its own threshold
            rates = face_rates(pose_model)
    """
    W, threshold = model.W.clone(), model.threshold.clone()
    with routing_iterations(model, iterations, "refitted"):
        try:
            yield fit_readout(model, n, seed)
        finally:
            model.W.copy_(W)
            model.threshold.copy_(threshold)


@dataclass(frozen=True)
class Refitted(CheckedRecord):
    """Pose-capsule models (one per seed) routed another number of times and refitted
    (``refitted``), measured on the held-out sets."""

    rates: dict[str, list[Float("a face rate", ge=0, le=1)]]  # kind -> each seed's face rate
    # each seed's refitted threshold, a face length
    thresholds: Annotated[list[Float("a threshold on the face length", ge=0, le=1)], Some]
    # kind -> each seed's median face length minus its threshold
    margins: dict[str, list[Float("a face length minus the threshold", ge=-1, le=1)]]

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or rates or margins of other seeds
        than the thresholds'."""
        super().__post_init__()
        check_same("Refitted", "length, one per seed", "pass one number per seed", thresholds=len(
            self.thresholds), **{f"{name}[{kind!r}]": len(values) for name in ("rates", "margins")
                                 for kind, values in getattr(self, name).items()})

    @checked
    def mean(self, kind: Kind) -> float:
        """The face rate on ``kind`` (one of ``rates``), averaged over the seeds."""
        check_value("Refitted.mean", "kind", Choice("a kind measured here", *self.rates), kind)
        return float(np.mean(self.rates[kind]))


# routing_ablation's results: iterations -> its Refitted
Ablation = dict[int, Record(Refitted, "routing_ablation(...)'s values")]


@checked
def routing_ablation(models: list | tuple, seeds: Seeds,
                     iterations: list[Iterations] | tuple[Iterations, ...],
                     kinds: Kinds,
                     n_test: Count = 500,
                     n_fit: Images | None = None,
                     margin_kinds: list[Kind] | tuple[Kind, ...] = ()) -> dict[int, Refitted]:
    """For each number of ``iterations``: every pose-capsule model of ``models`` (one per seed of
    ``seeds``) refitted for it on training data of its seed (``refitted``, ``n_fit`` faces and
    non-faces), its face rates on ``n_test`` held-out images of each of ``kinds``, and its median
    face length on each of ``margin_kinds`` minus its threshold. The models are left as they
    were. Each kind is checked before any refitting (a typo is refused at once, not after it)."""
    check_same("routing_ablation", "length, one model per seed", "pass one model per seed",
               models=len(models), seeds=len(seeds))
    results = {}
    for its in iterations:
        rates, thresholds = {kind: [] for kind in kinds}, []
        margins = {kind: [] for kind in margin_kinds}
        for model, seed in zip(models, seeds, strict=True):
            with refitted(model, its, n_fit, seed):
                for kind, rate in face_rates(model, kinds, n_test).items():
                    rates[kind].append(rate)
                t = model.threshold.item()
                thresholds.append(t)
                for kind in margin_kinds:
                    lengths = model.face_probability(held_out(kind, n_test)[0]).numpy()
                    margins[kind].append(np.median(lengths) - t)
        results[its] = Refitted(rates, thresholds, margins)
    return results


@checked
def format_ablation(ablation: Ablation, kinds: list[str] | tuple[str, ...]) -> str:
    """A table of ``routing_ablation``'s face rates: one row per number of iterations, one
    column per kind of ``kinds``, each the mean over seeds."""
    every = [set(run.rates) for run in ablation.values()]
    recorded = set.intersection(*every) if every else set()
    if unknown := sorted(set(kinds) - recorded):
        raise ValueError(f"format_ablation(): kinds must be kinds the ablation holds rates of, "
                         f"{sorted(recorded)}, got {unknown[0]!r}; pass some of those")
    lines = ["pose capsules, face rate (mean over seeds):",
             f"{'iterations':>10} " + " ".join(f"{k:>11}" for k in kinds)]
    lines += [f"{its:>10} " + " ".join(f"{run.mean(k):>11.2f}" for k in kinds)
              for its, run in ablation.items()]
    return "\n".join(lines)


@checked
def format_margins(ablation: Ablation) -> str:
    """A table of ``routing_ablation``'s first seed: one row per number of iterations, its
    refitted threshold and, per margin kind, the median face length minus that threshold."""
    kinds = list(next(iter(ablation.values())).margins)
    widths = [max(len(kind) + 1, 8) for kind in kinds]
    lines = [f"{'iterations':>10} {'threshold':>10} "
             + " ".join(f"{kind:>{w}}" for kind, w in zip(kinds, widths, strict=True))
             + "   (median |v_face| - threshold, first seed)"]
    lines += [f"{its:>10} {run.thresholds[0]:>10.3f} "
              + " ".join(f"{run.margins[kind][0]:>+{w}.3f}"
                         for kind, w in zip(kinds, widths, strict=True))
              for its, run in ablation.items()]
    return "\n".join(lines)


@checked
def checkpoint_name(name: FaceModel, seed: Seed) -> str:
    """The shipped checkpoint of model ``name`` trained with ``seed``: its recipe's name and the
    seed, e.g. ``faces-pose-capsules-seed0``."""
    return f"{face_recipe_name(name)}-seed{seed}"


@checked
def check_saved_seeds(where: str, seeds: Seeds, checkpoints_of: dict[str, str],
                      root: checkpoints.Root = None, argument: str = "seeds") -> None:
    """Refuse ``seeds`` of which the manifest in ``root`` holds no checkpoint of a model of
    ``checkpoints_of`` (name -> its checkpoint of seed 0), naming the caller, its ``argument``,
    the seeds and the seeds there are (``pretrained`` would refuse the first checkpoint missing,
    by its own name)."""
    entries = checkpoints.rows_in(checkpoints.checkpoint_dir(root, where))
    for name, first in checkpoints_of.items():
        prefix = first.removesuffix("0")
        kept = sorted(int(k.removeprefix(prefix)) for k in entries
                      if k.startswith(prefix) and k.removeprefix(prefix).isdigit())
        missing = [s for s in seeds if s not in kept]
        if not kept:
            raise ValueError(f"{where}(): root must hold saved face models, got "
                             f"{checkpoints.checkpoint_dir(root)}, whose {checkpoints.MANIFEST} "
                             f"holds no {name!r}; pass the folder they were saved in (None: the "
                             "shipped ones)")
        if missing:
            raise ValueError(f"{where}(): {argument} must be among the seeds of a saved "
                             f"{name!r}, got {', '.join(map(str, missing))}: "
                             f"{checkpoints.checkpoint_dir(root) / checkpoints.MANIFEST} holds its "
                             f"seeds {kept or 'none'}; pass one of those")


@checked
def load_face_models(seeds: Seeds,
                     names: list[FaceModel] | tuple[FaceModel, ...] = FACE_MODELS,
                     root: checkpoints.Root = None) -> dict[str, list]:
    """The shipped face models: name -> one model per seed (verified, in eval mode)."""
    check_saved_seeds("load_face_models", seeds, {name: checkpoint_name(name, 0)
                                                  for name in names}, root)
    return {name: [checkpoints.pretrained(checkpoint_name(name, s), root) for s in seeds]
            for name in names}


@checked
def train_and_save(names: list[FaceModel] | tuple[FaceModel, ...] = FACE_MODELS,
                   seeds: Seeds = (0, 1, 2),
                   root: checkpoints.Root = None, command: str = "",
                   progress: Flag("whether to show progress bars") = True,
                   replace_shipped: Flag("True only to replace the shipped checkpoints") = False
                   ) -> list[ManifestRow]:
    """Train every model of ``names`` with every seed by its recipe (``train_face_model``) and
    save it in ``root`` (``checkpoints.save``) with its faces-vs-non-faces accuracy on the
    held-out sets (400 images of each): their manifest rows. ``root`` defaults to
    ``<data root>/runs`` (the shipped checkpoints with ``replace_shipped=True``; checked for every
    model before any training)."""
    for name in names:
        for seed in seeds:
            folder = checkpoints.check_writable(checkpoint_name(name, seed), root, replace_shipped,
                                                "train_and_save")
    entries = []
    for name in names:
        for seed in seeds:
            start = time.perf_counter()
            model = train_face_model(name, seed, progress=progress, root=folder)
            seconds = time.perf_counter() - start
            rates = face_rates(model, ("face", "nonface"), n=400)
            entries.append(checkpoints.save(
                model, checkpoint_name(name, seed), folder, replace_shipped,
                description=RECIPES[face_recipe_name(name)].description,
                command=command, seed=seed, train_time_s=round(seconds, 1), device="cpu",
                threads=torch.get_num_threads(),
                metrics=Metrics(
                    held_out_accuracy=round((rates["face"] + 1 - rates["nonface"]) / 2, 4),
                    face_rate=round(rates["face"], 4), nonface_rate=round(rates["nonface"], 4))))
    return entries


@checked
def main(argv: Argv | None = None) -> int:
    """``python -m capsedu.parts.training``: retrain notebook 07's face models, into
    <data root>/runs (or --out); the shipped ones are replaced only with --replace-shipped."""
    return train_over_seeds("python -m capsedu.parts.training", main.__doc__, FACE_MODELS,
                            (0, 1, 2), train_and_save, argv)


if __name__ == "__main__":
    raise SystemExit(main())

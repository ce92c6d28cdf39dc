"""Training the five face models of notebooks 01 and 07, over seeds, and shipping them.

    python -m capsedu.parts.training --seeds 0          # retrains every model into <data root>/runs
    python -m capsedu.parts.training --seeds 0 1 2 --replace-shipped   # rebuilds the shipped ones

The models: a bag-of-parts CNN and a deep CNN (``capsedu.baselines``), the paper's CapsNet on
pixels (``PIXEL_CAPSNET``) and the pose-capsule model (``parts.pose_net``). All of them learn faces
vs non-faces from ``training_set``; none ever sees a scrambled face.
"""

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import torch

from .. import checkpoints
from ..baselines import BagOfPartsCNN, DeepCNN
from ..capsnet import CapsNet, CapsNetConfig, routing_iterations
from ..data import faces
from ..loop import fit
from ..recipes import command_line
from ..train import add_output_arguments, output_folder, positive_int
from .detector import detector_training_set
from .pose_mlp import PartPoseMLP
from .pose_net import PoseCapsuleNet, fit_threshold, fit_transforms
from .scoring import face_rates, held_out

BASELINES = {"bag-of-parts CNN": BagOfPartsCNN, "deep CNN": DeepCNN}


def training_set(n: int, seed: int = 0, size: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` images, half faces and half non-faces, shuffled: ``([n, 1, size, size], [n])``.

    No scrambled face is in it: the models never see "right parts, wrong places" while learning.
    Deterministic in ``(n, seed, size)``.
    """
    if n < 2 or n % 2:
        raise ValueError(f"n must be an even number >= 2 (half faces, half non-faces), got {n}")
    x_face, y_face, _ = faces.dataset("face", n // 2, seed, size)
    x_non, y_non, _ = faces.dataset("nonface", n // 2, seed, size)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    return torch.cat([x_face, x_non])[order], torch.cat([y_face, y_non])[order]


def train_baseline(name: str, n: int = 2000, epochs: int = 4, seed: int = 0, batch_size: int = 64,
                   lr: float = 3e-3, lr_decay: float = 0.7, progress: bool = True,
                   state_path=None):
    """Build the CNN ``name`` (a key of ``BASELINES``) with seed ``seed`` and train it on
    ``training_set(n, seed)`` (Adam; the learning rate is multiplied by ``lr_decay`` after each
    epoch). The defaults are notebook 01's recipe. Returns the model on the CPU, in eval mode.
    ``state_path``: resumable training state, as in ``fit`` (every face recipe takes it)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; choose from {list(BASELINES)}")
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = BASELINES[name]()
    fit(model, training_set(n, seed), epochs, batch_size, lr, lr_decay, seed, progress=progress,
        state_path=state_path)
    return model.cpu().eval()


# The pixel CapsNet: the paper's architecture (Conv1, PrimaryCaps, routing to one capsule per
# class, decoder masked by the true label) for 32x32 images and two classes, face and not a face.
# CPU-sized: 32 Conv1 channels, 8 maps of primary capsules (8 x 8 x 8 = 512), a smaller decoder.
PIXEL_CAPSNET = CapsNetConfig(image_size=32, n_classes=2, conv_channels=32, primary_maps=8,
                              decoder_hidden=(256, 512))
FACE_MODELS = ("bag-of-parts CNN", "deep CNN", "pixel CapsNet", "pose capsules", "part-pose MLP")


def train_pixel_capsnet(n: int = 2000, epochs: int = 6, seed: int = 0, batch_size: int = 64,
                        lr: float = 2e-3, lr_decay: float = 0.8, progress: bool = True,
                        state_path=None):
    """``CapsNet(PIXEL_CAPSNET)`` trained end to end on ``training_set(n, seed)``, with no pose
    supervision: the same images and labels as the CNNs. Returns it on the CPU, in eval mode."""
    torch.manual_seed(seed)
    model = CapsNet(PIXEL_CAPSNET)
    fit(model, training_set(n, seed), epochs, batch_size, lr, lr_decay, seed, progress=progress,
        state_path=state_path)
    return model.cpu().eval()


# The pose-capsule recipe's votes: as long as notebook 04's, with the pose cells tuned wider (so
# that a part one or two pixels off still agrees). Chosen, after the detectors were trained, on
# validation images (seed 500: neither a training nor a test seed) of faces with jittered parts,
# which should be accepted, and faces with one part moved away, which should not.
POSE_TUNING = dict(face_gain=1.5, background_gain=1.0, sigma_xy=0.12, sigma_angle=45.0)


def train_pose_capsules(n: int = 6000, epochs: int = 14, seed: int = 0, batch_size: int = 64,
                        lr: float = 3e-3, lr_decay: float = 0.75, progress: bool = True,
                        state_path=None):
    """Build and train notebook 07's pose-capsule model (``parts.pose_net``) in three steps:

    1. the part detector on ``detector_training_set(3 * n, seed)``: ground-truth part poses of
       parts scattered at any place, angle and many sizes; it never sees a face;
    2. and 3. ``fit_readout``: the W_i and the face-length threshold.

    Steps 2-3 use faces and non-faces of training seed ``seed`` (never a scramble), like the
    CNNs. Returns the model on the CPU, in eval mode.
    """
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = PoseCapsuleNet(**POSE_TUNING)
    detector_data = detector_training_set(3 * n, seed)
    fit(model.detector, detector_data, epochs, batch_size, lr, lr_decay, seed, progress=progress,
        state_path=state_path)
    return fit_readout(model.cpu().eval(), n, seed)


def readout_data(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` training faces and ``n`` non-faces of ``seed`` ``[n, 1, 32, 32]`` each, the images
    ``fit_readout`` fits with; drawn once (refitting several versions of a model draws them
    once), handed back as copies, so a caller who changes them changes no other caller's."""
    faces_, nonfaces = _readout_drawn(n, seed)
    return faces_.clone(), nonfaces.clone()


@lru_cache(maxsize=4)
def _readout_drawn(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    return faces.dataset("face", n, seed)[0], faces.dataset("nonface", n, seed)[0]


@torch.no_grad()
def fit_readout(model: PoseCapsuleNet, n: int = 6000, seed: int = 0) -> PoseCapsuleNet:
    """Fit what a pose-capsule model reads its verdict with, from training data of ``seed``:

    * the W_i by least squares from the detected parts of ``n`` clean training faces;
    * the face-length threshold on those faces and ``n`` non-faces (``fit_threshold``), with
      the model's own number of routing iterations.

    Changes ``model`` in place and returns it."""
    x_face, x_non = readout_data(n, seed)
    poses, presence = model.detector.detect(x_face)
    complete = (presence > 0.5).all(dim=1)  # faces where the detector found all four parts
    model.W.copy_(torch.from_numpy(fit_transforms(poses[complete].double().numpy())))
    face_p, non_p = (model.face_probability(x).numpy() for x in (x_face, x_non))
    model.threshold.fill_(fit_threshold(face_p, non_p))
    return model


@contextmanager
def refitted(model: PoseCapsuleNet, iterations: int, n: int = 6000,
             seed: int = 0) -> Iterator[PoseCapsuleNet]:
    """``model`` routing ``iterations`` times inside the ``with`` block
    (``capsnet.routing_iterations``), with its W_i and threshold refitted for that number
    (``fit_readout`` on ``n`` training faces and non-faces of ``seed``). Its own iterations, W
    and threshold come back when the block ends, also after an error::

        with refitted(pose_model, 1, 1000, seed=0):  # uniform coupling, its own threshold
            rates = face_rates(pose_model)
    """
    W, threshold = model.W.clone(), model.threshold.clone()
    with routing_iterations(model, iterations):
        try:
            yield fit_readout(model, n, seed)
        finally:
            model.W.copy_(W)
            model.threshold.copy_(threshold)


class Refitted(NamedTuple):
    """Pose-capsule models (one per seed) routed another number of times and refitted
    (``refitted``), measured on the held-out sets."""

    rates: dict[str, list[float]]  # kind -> the face rate of each seed
    thresholds: list[float]  # each seed's refitted threshold
    margins: dict[str, list[float]]  # kind -> each seed's median face length minus its threshold

    def mean(self, kind: str) -> float:
        """The face rate on ``kind``, averaged over the seeds."""
        return float(np.mean(self.rates[kind]))


def routing_ablation(models, seeds, iterations, kinds, n_test: int = 500, n_fit: int = 6000,
                     margin_kinds=()) -> dict[int, Refitted]:
    """For each number of ``iterations``: every pose-capsule model of ``models`` (one per seed of
    ``seeds``) refitted for it on training data of its seed (``refitted``, ``n_fit`` faces and
    non-faces), its face rates on ``n_test`` held-out images of each of ``kinds``, and its median
    face length on each of ``margin_kinds`` minus its threshold. The models are left as they
    were."""
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


def format_ablation(ablation: dict[int, Refitted], kinds) -> str:
    """A table of ``routing_ablation``'s face rates: one row per number of iterations, one
    column per kind of ``kinds``, each the mean over seeds."""
    lines = ["pose capsules, face rate (mean over seeds):",
             f"{'iterations':>10} " + " ".join(f"{k:>11}" for k in kinds)]
    lines += [f"{its:>10} " + " ".join(f"{run.mean(k):>11.2f}" for k in kinds)
              for its, run in ablation.items()]
    return "\n".join(lines)


def format_margins(ablation: dict[int, Refitted]) -> str:
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


def train_part_pose_mlp(pose_model: PoseCapsuleNet, n: int = 6000, epochs: int = 10,
                        seed: int = 0, batch_size: int = 64, lr: float = 3e-3,
                        lr_decay: float = 0.8, progress: bool = True,
                        state_path=None) -> PartPoseMLP:
    """The control of notebook 07 (``parts.pose_mlp``): ``pose_model``'s detector, frozen, and an
    MLP over the part capsules it reads, trained on the faces and non-faces the pose-capsule
    model fitted its W_i and threshold on (``n`` of each, seed ``seed``)."""
    torch.manual_seed(seed)
    model = PartPoseMLP(pose_model.hparams["channels"])
    model.detector.load_state_dict(pose_model.detector.state_dict())
    fit(model, training_set(2 * n, seed), epochs, batch_size, lr, lr_decay, seed,
        progress=progress, state_path=state_path)
    return model.cpu().eval()


def train_face_model(name: str, seed: int = 0, progress: bool = True, root=None,
                     epochs: int | None = None, state_path=None):
    """Train one of ``FACE_MODELS`` with its recipe (the CNNs with notebook 01's), for its own
    number of epochs or ``epochs``; ``state_path`` as in ``fit``. The part-pose MLP reads the part
    capsules of the pose-capsule model of the same seed: the one in ``root`` when this run trained
    it there, else the shipped one."""
    given = {"seed": seed, "progress": progress, "state_path": state_path}
    if epochs is not None:
        given["epochs"] = epochs
    if name in BASELINES:
        return train_baseline(name, **given)
    if name == "pixel CapsNet":
        return train_pixel_capsnet(**given)
    if name == "pose capsules":
        return train_pose_capsules(**given)
    if name == "part-pose MLP":
        pose_name = checkpoint_name("pose capsules", seed)
        in_root = root is not None and pose_name in checkpoints.read_manifest(root)
        pose_model = checkpoints.pretrained(pose_name, root if in_root else None)
        return train_part_pose_mlp(pose_model, **given)
    raise ValueError(f"unknown model {name!r}; choose from {list(FACE_MODELS)}")


def checkpoint_name(name: str, seed: int) -> str:
    """The shipped checkpoint of model ``name`` trained with ``seed``, e.g.
    ``faces-pose-capsules-seed0``."""
    return f"faces-{name.lower().replace(' ', '-')}-seed{seed}"


def load_face_models(seeds, names=FACE_MODELS, root=None) -> dict[str, list]:
    """The shipped face models: name -> one model per seed (verified, in eval mode)."""
    return {name: [checkpoints.pretrained(checkpoint_name(name, s), root) for s in seeds]
            for name in names}


DETAILS = {  # what the manifest adds to "notebook 07's <name>, trained on faces vs non-faces"
    "pose capsules": " (part detector on ground-truth poses of parts scattered at any place, "
                     "angle and scale 0.5-1.6; it never sees a face)",
    "part-pose MLP": " (an MLP over the part capsules of the pose-capsule model of the same seed)",
}


def train_and_save(names=FACE_MODELS, seeds=(0, 1, 2), root=None, command: str = "",
                   progress: bool = True, replace_shipped: bool = False) -> list:
    """Train every model of ``names`` with every seed and save it in ``root``
    (``checkpoints.save``) with its faces-vs-non-faces accuracy on the held-out sets (400 images
    of each). ``root`` defaults to ``<data root>/runs`` (the shipped checkpoints with
    ``replace_shipped=True``; checked for every model before any training)."""
    for name in names:
        for seed in seeds:
            folder = checkpoints.check_writable(checkpoint_name(name, seed), root, replace_shipped)
    entries = []
    for name in names:
        for seed in seeds:
            start = time.perf_counter()
            model = train_face_model(name, seed, progress=progress, root=folder)
            seconds = time.perf_counter() - start
            rates = face_rates(model, ("face", "nonface"), n=400)
            entries.append(checkpoints.save(
                model, checkpoint_name(name, seed), folder, replace_shipped,
                description=f"notebook 07's {name}, trained on faces vs non-faces"
                + DETAILS.get(name, ""),
                command=command, seed=seed, train_time_s=round(seconds, 1), device="cpu",
                threads=torch.get_num_threads(),
                metrics={"held_out_accuracy": round((rates["face"] + 1 - rates["nonface"]) / 2, 4),
                         "face_rate": round(rates["face"], 4),
                         "nonface_rate": round(rates["nonface"], 4)}))
    return entries


def main(argv=None):
    """``python -m capsedu.parts.training``: retrain notebook 07's face models, into
    <data root>/runs (or --out); the shipped ones are replaced only with --replace-shipped."""
    parser = argparse.ArgumentParser(prog="python -m capsedu.parts.training",
                                     description=main.__doc__)
    parser.add_argument("--models", nargs="+", default=list(FACE_MODELS), choices=FACE_MODELS)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    add_output_arguments(parser)
    parser.add_argument("--threads", type=positive_int,
                        help="CPU threads for torch (default: all)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    command = command_line("python -m capsedu.parts.training",  # the models only when chosen
                           models=None if args.models == list(FACE_MODELS) else args.models,
                           seeds=args.seeds, threads=args.threads)
    out = output_folder(args)
    try:  # refused before any training when it would replace a shipped checkpoint
        entries = train_and_save(args.models, args.seeds, out, command,
                                 replace_shipped=args.replace_shipped)
    except FileExistsError as err:
        parser.error(str(err))
    for entry in entries:
        print(f"saved {entry['file']} in {out}: {entry['metrics']}, {entry['train_time_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Faces vs non-faces, then scrambled faces: the experiment of notebooks 01 and 07.

A model is trained to tell faces from non-faces (``faces.dataset`` kinds ``face`` and
``nonface``); scrambled faces are **never** shown in training. Then we measure its *face rate* on
held-out images of every kind: the fraction of images it calls "face". On faces a good model says
1.0, on non-faces 0.0; on a scramble (the right parts in the wrong places) a model that only checks
*which* parts are present says "face", one that checks *where* they are says "not a face".

Held-out sets use other seeds than the training set (``TEST_SEED``), so no image is shared.
"""

import argparse
import shlex
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle

from . import checkpoints
from . import part_capsules as pcap
from .data import faces
from .models import BagOfPartsCNN, CapsNet, CapsNetConfig, CapsNetOutput, DeepCNN, receptive_field
from .train import fit

BASELINES = {"bag-of-parts CNN": BagOfPartsCNN, "deep CNN": DeepCNN}
TEST_SEED = 1000  # held-out sets use seeds from here on; training sets use small seeds
FACE = 1  # the label (and class index) of "face"


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
                   lr: float = 3e-3, lr_decay: float = 0.7, progress: bool = True):
    """Build the CNN ``name`` (a key of ``BASELINES``) with seed ``seed`` and train it on
    ``training_set(n, seed)`` (Adam; the learning rate is multiplied by ``lr_decay`` after each
    epoch). The defaults are notebook 01's recipe. Returns the model on the CPU, in eval mode."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; choose from {list(BASELINES)}")
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = BASELINES[name]()
    fit(model, training_set(n, seed), epochs, batch_size, lr, lr_decay, seed, progress=progress)
    return model.cpu().eval()


@lru_cache(maxsize=32)
def held_out(kind: str, n: int, seed: int = TEST_SEED) -> tuple[torch.Tensor, list]:
    """``n`` held-out images of ``kind`` ``[n, 1, 32, 32]`` and the parts that drew them.

    Cached, so every model is measured on the very same images (do not modify them in place).
    """
    images, _, parts = faces.dataset(kind, n, seed)
    return images, parts


@torch.no_grad()
def face_scores(model: torch.nn.Module, images: torch.Tensor):
    """One forward pass of ``model`` on images ``[n, 1, H, W]``: its score for "face" ``[n]``
    and the score above which it calls an image a face ``[n]``.

    * a CNN: P(face), the softmax of its two logits; cut at 0.5 (the larger output wins);
    * the pixel CapsNet: the face capsule's length; cut at the other capsule's length;
    * the pose-capsule model: the face capsule's length; cut at the threshold chosen in training.
    """
    model.eval()
    images = images.to(next(model.parameters()).device)
    if hasattr(model, "threshold"):  # the pose-capsule model
        p = model.face_probability(images).cpu()
        return p, model.threshold.float().cpu().expand(len(p))
    out = model(images)
    if isinstance(out, CapsNetOutput):
        return out.lengths[:, FACE].cpu(), out.lengths[:, 1 - FACE].cpu()
    p = torch.softmax(out, dim=1)[:, FACE].cpu()
    return p, torch.full_like(p, 0.5)


def face_probability(model: torch.nn.Module, images: torch.Tensor) -> torch.Tensor:
    """P(face) ``[n]`` for images ``[n, 1, H, W]``: for a CNN the softmax of its two logits, for
    a capsule network the length of its face capsule (see ``face_scores``)."""
    return face_scores(model, images)[0]


def face_threshold(model: torch.nn.Module, images: torch.Tensor) -> torch.Tensor:
    """``[n]``: the ``face_probability`` above which ``model`` calls each image a face (see
    ``face_scores``)."""
    return face_scores(model, images)[1]


@torch.no_grad()
def called_face(model, images: torch.Tensor) -> torch.Tensor:
    """``[n]`` bool: which images ``model.predict`` calls "face"."""
    model.eval()
    return (model.predict(images.to(next(model.parameters()).device)) == FACE).cpu()


def face_rates(model, kinds=faces.KINDS, n: int = 500, seed: int = TEST_SEED) -> dict[str, float]:
    """For each kind, the fraction of ``n`` held-out images that ``model.predict`` calls "face"."""
    return {kind: called_face(model, held_out(kind, n, seed)[0]).float().mean().item()
            for kind in kinds}


def spread(parts, factor: float) -> list:
    """Move every part ``factor`` times farther from the centre of the four face parts.

    A uniform stretch of the layout: the arrangement stays a face's, each sprite keeps its size
    and angle, and only the gaps between neighbouring sprites grow (so none start to overlap).
    """
    parts = [faces.Part(*p) for p in parts]
    four = [p for p in parts if p.kind in faces.PART_KINDS]
    cx, cy = np.mean([p.x for p in four]), np.mean([p.y for p in four])
    # x' = c + factor (x - c), the same for y
    return [p._replace(x=float(cx + factor * (p.x - cx)), y=float(cy + factor * (p.y - cy)))
            for p in parts]


def turn_over(parts, kinds) -> list:
    """Turn the parts of the given ``kinds`` by 180 degrees where they stand (``upside_down``
    does this to all four): each keeps its place, and looks as it would in a face upside down."""
    parts = [faces.Part(*p) for p in parts]
    unknown = set(kinds) - set(faces.PART_KINDS)
    if unknown:
        raise ValueError(f"unknown part kinds {sorted(unknown)}; choose from {faces.PART_KINDS}")
    return [p._replace(angle=p.angle + 180.0) if p.kind in kinds else p for p in parts]


def _edited_faces(edit, n: int, seed: int) -> torch.Tensor:
    """The held-out faces, each passed through ``edit(parts) -> parts``: ``[n, 1, 32, 32]``."""
    scenes = held_out("face", n, seed)[1]
    return torch.from_numpy(faces.render_many([edit(ps) for ps in scenes]))[:, None]


def spread_faces(factor: float, n: int = 500, seed: int = TEST_SEED) -> torch.Tensor:
    """The held-out faces with their layout spread by ``factor``: ``[n, 1, 32, 32]``.

    ``factor = 1`` gives the held-out faces themselves. Up to 1.2 every face part stays inside
    the image; at 1.3, under 1% of the faces have a part touching the border (a distractor stroke
    near the border may be cut off at any factor above 1).
    """
    if not 1.0 <= factor <= 1.3:
        raise ValueError(f"factor must be in [1, 1.3] (beyond, parts leave the image), "
                         f"got {factor}")
    return _edited_faces(lambda parts: spread(parts, factor), n, seed)


def turned_faces(kinds, n: int = 500, seed: int = TEST_SEED) -> torch.Tensor:
    """The held-out faces with the parts of ``kinds`` turned over in place: ``[n, 1, 32, 32]``.

    ``kinds = ()`` gives the held-out faces themselves; all four kinds, their ``upside_down``
    versions.
    """
    return _edited_faces(lambda parts: turn_over(parts, kinds), n, seed)


def probe_rates(models, probe: dict) -> np.ndarray:
    """Face rate of every model (rows, e.g. one per seed) on every image set of ``probe``
    (columns, in the order of ``probe``, a dict label -> images): ``[models, sets]``."""
    return np.array([[called_face(model, images).float().mean().item()
                      for images in probe.values()] for model in models])


def _ink(parts, kind: str, size: int) -> np.ndarray:
    """``[size, size]`` bool: the pixels where part ``kind`` alone puts ink (> 0.5)."""
    part = next(p for p in parts if p[0] == kind)
    return faces.render([part], size) > 0.5


def ink_gap(parts, a: str, b: str, size: int = 32) -> float:
    """Distance in pixels between the nearest inked pixels (> 0.5) of parts ``a`` and ``b``."""
    pa, pb = np.argwhere(_ink(parts, a, size)), np.argwhere(_ink(parts, b, size))  # [pixels, 2]
    return float(np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1)).min())


def windows_holding_both(parts, a: str, b: str, window: int, size: int = 32) -> int:
    """How many ``window`` x ``window`` squares, one centred on each pixel (the inputs of the
    units of a padded stack of convolutions with that receptive field), hold ink of both parts.

    A unit can only respond to how two parts meet if its window holds some of each.
    """
    if window < 1 or window % 2 == 0:
        raise ValueError(f"window must be an odd number of pixels >= 1, got {window}")
    held = []
    for kind in (a, b):
        ink = torch.from_numpy(_ink(parts, kind, size)).float()[None, None]  # [1, 1, size, size]
        # a window holds some of the part <=> the max of its ink mask over the window is 1
        held.append(F.max_pool2d(ink, window, stride=1, padding=window // 2)[0, 0])
    return int((held[0] * held[1]).sum())


def face_rate_by_angle(model, n: int = 500, width: int = 30, seed: int = TEST_SEED):
    """Face rate on held-out ``rotated`` faces, binned by how far the face is turned.

    Returns ``(centres, rates)``: bin centres in degrees (|angle| from 0 to 180) and the fraction
    called "face" in each bin (NaN for an empty bin).
    """
    images, parts = held_out("rotated", n, seed)
    turn = np.abs((np.array([ps[0].angle for ps in parts]) + 180) % 360 - 180)  # |angle| [n]
    said_face = called_face(model, images).numpy()
    edges = np.arange(0, 180 + width, width)
    bins = np.clip(np.digitize(turn, edges) - 1, 0, len(edges) - 2)
    rates = [said_face[bins == b].mean() if (bins == b).any() else np.nan
             for b in range(len(edges) - 1)]
    return (edges[:-1] + edges[1:]) / 2, np.array(rates)


@dataclass
class SeedRuns:
    """One baseline trained with several seeds, and its face rates on the same held-out sets."""

    name: str
    seeds: list[int]
    models: list = field(repr=False)
    rates: dict[str, list[float]]  # kind -> one face rate per seed

    def mean(self, kind: str) -> float:
        return float(np.mean(self.rates[kind]))

    def std(self, kind: str) -> float:
        """Standard deviation over seeds (0 for a single seed)."""
        return float(np.std(self.rates[kind]))


def measure_seeds(name: str, models, seeds, kinds=faces.KINDS, n_test: int = 500) -> SeedRuns:
    """The face rates of trained ``models`` (one per seed) on the same held-out sets."""
    rates = {kind: [] for kind in kinds}
    for model in models:
        for kind, rate in face_rates(model, kinds, n_test).items():
            rates[kind].append(rate)
    return SeedRuns(name, list(seeds), list(models), rates)


def run_seeds(name: str, seeds, kinds=faces.KINDS, n_test: int = 500, **train) -> SeedRuns:
    """Train ``name`` once per seed (``train``: arguments of ``train_baseline``) and measure."""
    models = [train_baseline(name, seed=seed, **train) for seed in seeds]
    return measure_seeds(name, models, seeds, kinds, n_test)


# --- Notebook 07: four models, several seeds, shipped as checkpoints ---------------------------

# The pixel CapsNet: the paper's architecture (Conv1, PrimaryCaps, routing to one capsule per
# class, decoder masked by the true label) for 32x32 images and two classes, face and not a face.
# CPU-sized: 32 Conv1 channels, 8 maps of primary capsules (8 x 8 x 8 = 512), a smaller decoder.
PIXEL_CAPSNET = CapsNetConfig(image_size=32, n_classes=2, conv_channels=32, primary_maps=8,
                              decoder_hidden=(256, 512))
FACE_MODELS = ("bag-of-parts CNN", "deep CNN", "pixel CapsNet", "pose capsules")


def train_pixel_capsnet(n: int = 2000, epochs: int = 6, seed: int = 0, batch_size: int = 64,
                        lr: float = 2e-3, lr_decay: float = 0.8, progress: bool = True):
    """``CapsNet(PIXEL_CAPSNET)`` trained end to end on ``training_set(n, seed)``, with no pose
    supervision: the same images and labels as the CNNs. Returns it on the CPU, in eval mode."""
    torch.manual_seed(seed)
    model = CapsNet(PIXEL_CAPSNET)
    fit(model, training_set(n, seed), epochs, batch_size, lr, lr_decay, seed, progress=progress)
    return model.cpu().eval()


def train_pose_capsules(n: int = 6000, epochs: int = 14, seed: int = 0, batch_size: int = 64,
                        lr: float = 3e-3, lr_decay: float = 0.75, progress: bool = True):
    """Build and train notebook 07's pose-capsule model (``part_capsules``) in three steps:

    1. the part detector on ``detector_training_set(n, seed)`` (ground-truth part poses);
    2. the W_i by least squares from the detected parts of ``n`` clean training faces;
    3. the face-length threshold on ``n`` training faces and ``n`` non-faces.

    Steps 2-3 use faces and non-faces of training seed ``seed`` (never a scramble), like the
    CNNs. Returns the model on the CPU, in eval mode.
    """
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = pcap.PoseCapsuleNet()
    detector_data = pcap.detector_training_set(n, seed)
    fit(model.detector, detector_data, epochs, batch_size, lr, lr_decay, seed, progress=progress)
    model.cpu().eval()
    x_face, _, _ = faces.dataset("face", n, seed)
    poses, presence = model.detector.detect(x_face)
    complete = (presence > 0.5).all(dim=1)  # faces where the detector found all four parts
    model.W.copy_(torch.from_numpy(pcap.fit_transforms(poses[complete].double().numpy())))
    x_non, _, _ = faces.dataset("nonface", n, seed)
    face_p, non_p = (model.face_probability(x).numpy() for x in (x_face, x_non))
    model.threshold.fill_(pcap.fit_threshold(face_p, non_p))
    return model


def train_face_model(name: str, seed: int = 0, progress: bool = True):
    """Train one of ``FACE_MODELS`` with its recipe (the CNNs with notebook 01's)."""
    if name in BASELINES:
        return train_baseline(name, seed=seed, progress=progress)
    if name == "pixel CapsNet":
        return train_pixel_capsnet(seed=seed, progress=progress)
    if name == "pose capsules":
        return train_pose_capsules(seed=seed, progress=progress)
    raise ValueError(f"unknown model {name!r}; choose from {list(FACE_MODELS)}")


def checkpoint_name(name: str, seed: int) -> str:
    """The shipped checkpoint of model ``name`` trained with ``seed``, e.g.
    ``faces-pose-capsules-seed0``."""
    return f"faces-{name.lower().replace(' ', '-')}-seed{seed}"


def load_face_models(seeds, names=FACE_MODELS, root=None) -> dict[str, list]:
    """The shipped face models: name -> one model per seed (verified, in eval mode)."""
    return {name: [checkpoints.pretrained(checkpoint_name(name, s), root) for s in seeds]
            for name in names}


def train_and_save(names=FACE_MODELS, seeds=(0, 1, 2), root=None, command: str = "",
                   progress: bool = True) -> list:
    """Train every model of ``names`` with every seed and ship it (``checkpoints.save``) with
    its faces-vs-non-faces accuracy on the held-out sets (400 images of each)."""
    entries = []
    for name in names:
        for seed in seeds:
            start = time.perf_counter()
            model = train_face_model(name, seed, progress=progress)
            seconds = time.perf_counter() - start
            rates = face_rates(model, ("face", "nonface"), n=400)
            entries.append(checkpoints.save(
                model, checkpoint_name(name, seed), root,
                description=f"notebook 07's {name}, trained on faces vs non-faces"
                + (" (part detector on ground-truth part poses)" if name == "pose capsules"
                   else ""),
                command=command, seed=seed, train_time_s=round(seconds, 1), device="cpu",
                threads=torch.get_num_threads(),
                metrics={"held_out_accuracy": round((rates["face"] + 1 - rates["nonface"]) / 2, 4),
                         "face_rate": round(rates["face"], 4),
                         "nonface_rate": round(rates["nonface"], 4)}))
    return entries


# --- Figures ----------------------------------------------------------------------------------


def show_kinds(fig, kinds=faces.KINDS, per_kind: int = 4, seed: int = 0, size: int = 32):
    """A grid of example images: one row per kind, ``per_kind`` images each."""
    axes = fig.subplots(len(kinds), per_kind, squeeze=False)
    for row, kind in zip(axes, kinds, strict=True):
        images = faces.dataset(kind, per_kind, seed, size)[0]
        for ax, image in zip(row, images, strict=True):
            ax.imshow(image[0], cmap="gray", vmin=0, vmax=1)
            ax.set(xticks=[], yticks=[])
        row[0].set_ylabel(kind, rotation=0, ha="right", va="center")
    return axes


def show_receptive_field(ax, image, size: int, centres, colors=("tab:orange", "tab:cyan")):
    """Draw ``image`` and, at each pixel ``centre`` (row, col), a ``size`` x ``size`` square: the
    window that one output unit of a conv stack with that receptive field sees."""
    ax.imshow(image, cmap="gray", vmin=0, vmax=1)
    for (row, col), color in zip(centres, colors, strict=False):
        ax.add_patch(Rectangle((col - size / 2, row - size / 2), size, size, fill=False,
                               edgecolor=color, lw=2))
    h, w = np.shape(image)
    pad = max(0, (size - min(h, w)) / 2 + 1)  # widen the view when the window is bigger
    ax.set(xlim=(-0.5 - pad, w - 0.5 + pad), ylim=(h - 0.5 + pad, -0.5 - pad),
           xticks=[], yticks=[])


def bar_face_rates(ax, runs: list[SeedRuns], kinds=faces.KINDS):
    """Grouped bars: one group per kind, one bar per model (mean over seeds, std as error bar,
    one black dot per seed)."""
    width = 0.8 / len(runs)
    x = np.arange(len(kinds))
    for k, run in enumerate(runs):
        at = x + (k - (len(runs) - 1) / 2) * width
        means = [run.mean(kind) for kind in kinds]
        errors = [run.std(kind) for kind in kinds] if len(run.seeds) > 1 else None
        ax.bar(at, means, width, yerr=errors, capsize=3, ecolor="0.4",
               label=f"{run.name} ({len(run.seeds)} seed{'s' * (len(run.seeds) > 1)})")
        per_seed = np.array([run.rates[kind] for kind in kinds])  # [kinds, seeds]
        for seed_rates in per_seed.T:
            ax.plot(at, seed_rates, "k.", ms=4)
    ax.axhline(0.5, color="0.6", ls=":", lw=1)
    ax.set_xticks(x, kinds)
    ax.set(ylim=(0, 1.22), yticks=np.linspace(0, 1, 6), ylabel='face rate (fraction called "face")')
    ax.legend(loc="upper center", ncol=len(runs), fontsize="small")


def show_probe(fig, probe: dict, rates: dict, xlabel: str):
    """Left: the first image of every set of ``probe`` (label -> images) side by side; right:
    each model's face rate on every set (``rates``: name -> ``probe_rates`` array ``[seeds,
    sets]``; mean over seeds, std as error bar)."""
    ax_examples, ax_rates = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    labels, side = list(probe), next(iter(probe.values())).shape[-1]
    ax_examples.imshow(torch.cat([images[0, 0] for images in probe.values()], dim=1),
                       cmap="gray", vmin=0, vmax=1)
    ax_examples.set(xticks=[side / 2 + side * k for k in range(len(labels))], yticks=[],
                    title="one held-out face, edited")
    ax_examples.set_xticklabels(labels)
    x = np.arange(len(labels))
    for name, r in rates.items():
        ax_rates.errorbar(x, r.mean(0), yerr=r.std(0), marker="o", capsize=3, label=name)
    ax_rates.set_xticks(x, labels)
    ax_rates.set(xlabel=xlabel, ylabel="face rate", ylim=(-0.05, 1.05))
    ax_rates.legend(fontsize="small")


# --- Exercise ---------------------------------------------------------------------------------

# Conv / pool stacks as (kernel, stride) pairs, input first: the bag-of-parts CNN, the deep CNN,
# and a few more that a wrong formula gets wrong (strides that compound, a 1x1 kernel, ...).
RF_STACKS = [
    [(3, 1)] * 2,
    [(3, 1), (2, 2), (3, 1), (2, 2), (3, 1), (2, 2), (3, 1)],
    [(1, 1)],
    [(5, 1), (5, 1)],
    [(3, 2), (3, 2), (3, 2)],
    [(7, 2), (3, 2), (3, 1), (3, 1)],
    [(9, 1), (2, 2), (9, 1), (2, 2)],
]


def _reference_rf(stack) -> int:
    return receptive_field(torch.nn.Sequential(*[torch.nn.Conv2d(1, 1, k, s) for k, s in stack]))


def check_receptive_field(learner) -> bool | None:
    """Check ``learner(layers) -> int``: the receptive field (side, in input pixels) of a stack of
    convolutions / poolings given as ``(kernel, stride)`` pairs, input first. Prints PASS, FAIL
    with the first stack it gets wrong, or "not implemented yet"; returns True / False / None."""
    for stack in RF_STACKS:
        try:
            got = learner(list(stack))
        except NotImplementedError:
            print("receptive field: not implemented yet - replace the `raise NotImplementedError`.")
            return None
        want = _reference_rf(stack)
        if not isinstance(got, (int, np.integer)) or got != want:
            print(f"receptive field: FAIL - for layers {stack} the answer is {want} px, "
                  f"you returned {got!r}.")
            return False
    print(f"receptive field: PASS (right on all {len(RF_STACKS)} stacks, e.g. the deep CNN's "
          f"{_reference_rf(RF_STACKS[1])} px)")
    return True


def main(argv=None):
    """``python -m capsedu.face_experiments``: retrain and ship notebook 07's face models."""
    parser = argparse.ArgumentParser(prog="python -m capsedu.face_experiments",
                                     description=main.__doc__)
    parser.add_argument("--models", nargs="+", default=list(FACE_MODELS), choices=FACE_MODELS)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--out", help="checkpoint folder (default: <data root>/checkpoints)")
    parser.add_argument("--threads", type=int, help="CPU threads for torch (default: all)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    command = shlex.join(["python", "-m", "capsedu.face_experiments", *(argv or sys.argv[1:])])
    for entry in train_and_save(args.models, args.seeds, args.out, command):
        print(f"saved {entry['file']}: {entry['metrics']}, {entry['train_time_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Plotting helpers shared by notebooks and widgets.

Widgets draw into a ``matplotlib.figure.Figure`` (not pyplot, so nothing is shown twice) and send
the PNG bytes to an ``ipywidgets.Image``: the update is one assignment, and a test can check the
bytes changed.
"""

import io

import numpy as np
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, FancyBboxPatch, Rectangle
from PIL import Image

from . import config
from .bug_zoo import running_mean
from .capsnet import CapsNet
from .capsule_vectors import decode_pose, draw, part_from_vector, pose_vector, read_pose
from .costs import anatomy
from .data import faces
from .data import transformed_mnist as tm
from .digit_capsules import DELTAS, couplings_on_grid, grid_extent
from .functional import margin_loss_curves
from .loop import PATIENCE, best_epoch, finished
from .parts.votes import PARENTS, pose_code, predict_face, predicted_faces
from .poses import wrap_angle
from .statistics import over_seeds


def png_bytes(fig: Figure, dpi: int | None = None) -> bytes:
    """Render ``fig`` to PNG bytes at ``dpi`` (default: the widgets' ``config.WIDGET_DPI``); PNG
    rather than SVG: SVG output embeds a date.

    No ``bbox_inches="tight"``: it draws the figure twice, and widgets redraw on every change;
    lay the figure out once instead (``layout="constrained"`` or ``subplots_adjust``).
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi or config.WIDGET_DPI)
    return buf.getvalue()


def draw_vector(ax, x: float, y: float, color="tab:blue", label=None, head: float = 20):
    """An arrow from the origin to (x, y) on a square unit-circle canvas; ``head``: the size of
    its head in points (smaller for an arrow drawn short on a larger canvas, which a full-size
    head would hide)."""
    ax.annotate("", xy=(x, y), xytext=(0, 0),
                arrowprops=dict(arrowstyle="-|>", color=color, lw=2.5, mutation_scale=head))
    if label:
        ax.text(x * 1.12, y * 1.12, label, color=color, ha="center", va="center")
    ax.add_patch(_unit_circle())
    ax.set(xlim=(-1.25, 1.25), ylim=(-1.25, 1.25), aspect="equal", xticks=[], yticks=[])


def _unit_circle():
    return Circle((0, 0), 1.0, fill=False, ls="--", color="0.7")


# One colour per face part, the same in every figure of the course.
PART_COLORS = {"left_eye": "tab:blue", "right_eye": "tab:orange", "nose": "tab:green",
               "mouth": "tab:red", "stroke": "0.6"}


def ghost_lines(ghosts: dict) -> tuple[list, list]:
    """The line segments ``[n, 2, 2]`` of ghost faces and one colour per segment: ``ghosts``
    maps a part kind to the face pose (x, y, angle, scale) it predicts."""
    segments, colors = [], []
    for kind, pose in ghosts.items():
        lines = faces.segments(faces.face_parts(*pose)).reshape(-1, 2, 2)
        segments.extend(lines)
        colors += [PART_COLORS[kind]] * len(lines)
    return segments, colors


def draw_scene(ax, parts, size: int = 96, ghosts=None):
    """The rendered parts (grey) and, optionally, ghost faces: ``ghosts`` maps a part kind to the
    face pose (x, y, angle, scale) it predicts, drawn as a face outline in that part's colour."""
    ax.imshow(faces.render(parts, size=size), cmap="gray", extent=(0, 1, 1, 0), vmin=0, vmax=1,
              interpolation="nearest")
    segments, colors = ghost_lines(ghosts or {})
    ax.add_collection(LineCollection(segments, colors=colors, alpha=0.6, lw=1.5))
    for kind, pose in (ghosts or {}).items():
        ax.plot(pose[0], pose[1], "+", color=PART_COLORS[kind], ms=10, mew=2)
    ax.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])


def coupling_heatmap(ax, c, rows, cols, title=None, fontsize=None, values=True):
    """Coupling coefficients ``c`` [rows, cols] as a heatmap with the values written in (a NaN is
    left blank; none with ``values=False``). Returns the image and the texts ``[rows][cols]``
    (empty without values), which ``set_couplings`` updates."""
    image = ax.imshow(np.zeros((len(rows), len(cols))), cmap="viridis", vmin=0, vmax=1,
                      aspect="auto")
    texts = [[ax.text(j, i, "", ha="center", va="center", fontsize=fontsize)
              for j in range(len(cols))] for i in range(len(rows))] if values else []
    set_couplings(image, texts, c)
    ax.set(xticks=range(len(cols)), xticklabels=cols, yticks=range(len(rows)), yticklabels=rows)
    if title:
        ax.set_title(title)
    return image, texts


def set_couplings(image, texts, c) -> None:
    """Show the couplings ``c`` [rows, cols] in a ``coupling_heatmap``'s image and texts."""
    image.set_data(np.ma.masked_invalid(c))
    for i, row in enumerate(texts):
        for j, text in enumerate(row):
            text.set_text("" if np.isnan(c[i, j]) else f"{c[i, j]:.2f}")
            text.set_color("black" if c[i, j] > 0.6 else "white")


def draw_detections(ax, image, poses, presence, threshold: float = 0.5):
    """``image`` ``[H, W]`` with each detected part (presence > ``threshold``) drawn as a dot in
    its colour and an arrow along its "up" direction (the part frame's -y axis, turned by its
    angle). ``poses`` ``[4, 4]`` (x, y, angle, scale), ``presence`` ``[4]``, in PART_KINDS order."""
    ax.imshow(image, cmap="gray", extent=(0, 1, 1, 0), vmin=0, vmax=1)
    for kind, (x, y, angle, _), p in zip(faces.PART_KINDS, poses, presence, strict=True):
        if p > threshold:
            # "up" in the part's frame is (0, -1); on screen it turns to (-sin a, -cos a)
            a = np.radians(float(angle))
            ax.annotate("", xy=(x - 0.1 * np.sin(a), y - 0.1 * np.cos(a)), xytext=(x, y),
                        arrowprops=dict(arrowstyle="-|>", color=PART_COLORS[kind], lw=2))
            ax.plot(x, y, "o", color=PART_COLORS[kind], ms=5)
    ax.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])


class Blitter:
    """PNG frames of ``figure`` where only ``artists`` change: everything else is drawn once and
    kept as a background; each frame restores it and draws just those artists over it.

    Every artist that changes between frames must be listed (and must stay inside its axes), or
    it keeps showing its first state.
    """

    def __init__(self, figure: Figure, artists):
        self.figure, self.artists = figure, list(artists)
        for artist in self.artists:
            artist.set_animated(True)  # left out of the full draw, which is the background
        self.canvas = FigureCanvasAgg(figure)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(figure.bbox)

    def png(self) -> bytes:
        self.canvas.restore_region(self.background)
        for artist in self.artists:
            self.figure.draw_artist(artist)
        buf = io.BytesIO()
        Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(buf, format="png",
                                                                    compress_level=1)
        return buf.getvalue()


# --- The faces world (notebooks 01 and 07) ----------------------------------------------------


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


def within_rates(means, half_widths) -> np.ndarray:
    """Error bars ``[2, n]`` (below, above) of intervals mean ± half-width, cut where they would
    pass a rate of 0 or 1."""
    means, half = np.asarray(means, dtype=float), np.asarray(half_widths, dtype=float)
    return np.stack([np.minimum(half, means), np.minimum(half, 1 - means)])


def bar_face_rates(ax, runs, kinds=faces.KINDS):
    """Grouped bars: one group per kind, one bar per model (``runs``: ``parts.scoring.SeedRuns``;
    mean over seeds, its 95 % t interval as error bar, cut at the rates 0 and 1 that a face rate
    cannot pass; one black dot per seed)."""
    width = 0.8 / len(runs)
    x = np.arange(len(kinds))
    for k, run in enumerate(runs):
        at = x + (k - (len(runs) - 1) / 2) * width
        means = [run.mean(kind) for kind in kinds]
        errors = (within_rates(means, [run.interval(kind).half_width for kind in kinds])
                  if len(run.seeds) > 1 else None)
        ax.bar(at, means, width, yerr=errors, capsize=3, ecolor="0.4",
               label=f"{run.name} ({len(run.seeds)} seed{'s' * (len(run.seeds) > 1)})")
        per_seed = np.array([run.rates[kind] for kind in kinds])  # [kinds, seeds]
        for seed_rates in per_seed.T:
            ax.plot(at, seed_rates, "k.", ms=4)
    ax.axhline(0.5, color="0.6", ls=":", lw=1)
    # long names slant, each ending under its own tick, so that no name runs into its neighbour's
    slant = max(len(kind) for kind in kinds) > 12
    ax.set_xticks(x, kinds, rotation=20 if slant else 0, ha="right" if slant else "center",
                  rotation_mode="anchor")
    ax.set(ylim=(0, 1.05), yticks=np.linspace(0, 1, 6), ylabel='face rate (fraction called "face")')
    # outside the axes, to their right: a bar can reach 1, and no bar is hidden behind the key
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")


def show_probe(fig, probe: dict, rates: dict, xlabel: str):
    """Left: the first image of every set of ``probe`` (label -> images) side by side; right:
    each model's face rate on every set (``rates``: name -> ``probe_rates`` array ``[seeds,
    sets]``; mean over seeds, its 95 % t interval as error bar, within 0 and 1)."""
    ax_examples, ax_rates = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    labels, side = list(probe), next(iter(probe.values())).shape[-1]
    ax_examples.imshow(torch.cat([images[0, 0] for images in probe.values()], dim=1),
                       cmap="gray", vmin=0, vmax=1)
    ax_examples.set(xticks=[side / 2 + side * k for k in range(len(labels))], yticks=[],
                    title="one held-out face, edited")
    ax_examples.set_xticklabels(labels)
    x = np.arange(len(labels))
    for name, r in rates.items():
        r = np.asarray(r)
        half = ([over_seeds(column).half_width for column in r.T] if len(r) > 1
                else np.zeros(r.shape[1]))
        ax_rates.errorbar(x, r.mean(0), yerr=within_rates(r.mean(0), half), marker="o",
                          capsize=3, label=name)
    ax_rates.set_xticks(x, labels)
    ax_rates.set(xlabel=xlabel, ylabel="face rate", ylim=(-0.05, 1.05))
    ax_rates.legend(fontsize="small")


# --- A CapsNet (notebooks 05 and 06) ----------------------------------------------------------


def draw_architecture(ax, model: CapsNet) -> None:
    """A block diagram of ``model`` (the paper's Fig. 1 and 2) on a matplotlib ``ax``."""
    cfg = model.config
    rows = anatomy(model)
    blocks = [
        ("input", f"{cfg.in_channels}x{cfg.image_size}x{cfg.image_size}\nimage"),
        ("Conv1", f"{cfg.conv_channels} @ {cfg.conv_kernel}x{cfg.conv_kernel}, ReLU\n"
                  + "x".join(map(str, rows[0].output_shape))),
        ("PrimaryCaps", f"{cfg.primary_maps} maps x {cfg.primary_dim}D\n"
                        f"{cfg.primary_kernel}x{cfg.primary_kernel}, stride {cfg.primary_stride}\n"
                        f"{cfg.n_primary} capsules"),
        ("DigitCaps", f"W_ij: {cfg.n_primary}x{cfg.n_classes}\nmatrices "
                      f"{cfg.digit_dim}x{cfg.primary_dim}\n{cfg.iterations} routing iter."),
        ("lengths ||v_j||", f"{cfg.n_classes} class\nprobabilities\n-> margin loss"),
        ("decoder", "mask all but one v_j\nFC " + "-".join(
            map(str, [*cfg.decoder_hidden, cfg.in_channels * cfg.image_size**2]))
         + "\n-> reconstruction"),
    ]
    positions = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1.6), (4, 0.3)]
    for (title, text), (x, y) in zip(blocks, positions, strict=True):
        ax.add_patch(FancyBboxPatch((x + 0.06, y - 0.4), 0.78, 0.8, boxstyle="round,pad=0.02",
                                    fc="#dde8f5", ec="#3b6ea5"))
        ax.text(x + 0.45, y + 0.28, title, ha="center", fontweight="bold", fontsize=9)
        ax.text(x + 0.45, y - 0.05, text, ha="center", va="center", fontsize=7.5)
    arrows = [((0.84, 1), (1.06, 1)), ((1.84, 1), (2.06, 1)), ((2.84, 1), (3.06, 1)),
              ((3.84, 1.1), (4.06, 1.5)), ((3.84, 0.9), (4.06, 0.4))]
    for start, end in arrows:
        ax.annotate("", end, start, arrowprops=dict(arrowstyle="->", color="#3b6ea5"))
    ax.set(xlim=(0, 5), ylim=(-0.2, 2.1))
    ax.axis("off")


def draw_routing_cost(ax, rows, references: dict[str, float] | None = None) -> None:
    """Milliseconds of a DigitCaps training step (forward + backward) against n_in x n_out x
    d_out, the numbers in one example's u_hat: one line per iteration count of ``rows``
    (``capsedu.costs.routing_sweep``), and each of ``references`` (label -> seconds, e.g. a
    whole CNN's training step on the same batch) as a horizontal line (notebook 09)."""
    for r in sorted({row.iterations for row in rows}):
        points = sorted((row.size, 1000 * (row.forward + row.backward))
                        for row in rows if row.iterations == r)
        label = "u_hat = W u only" if r == 0 else f"{r} routing iteration{'s' * (r > 1)}"
        ax.plot(*zip(*points, strict=True), marker="o", label=label)
    for k, (label, seconds) in enumerate((references or {}).items()):
        ax.axhline(1000 * seconds, color="0.4", ls=("--", ":", "-.")[k % 3], label=label)
    ax.set(xlabel="n_in × n_out × d_out (numbers in one example's u_hat)",
           ylabel="ms per batch, forward + backward", ylim=(0, None))
    ax.legend(fontsize="small")


def mosaic(images) -> np.ndarray:
    """Tile ``images`` ``[rows, cols, H, W]`` into one ``[rows * H, cols * W]`` array."""
    images = np.asarray(images)
    rows, cols, h, w = images.shape
    return images.transpose(0, 2, 1, 3).reshape(rows * h, cols * w)


def draw_perturbation_grid(ax, grid: torch.Tensor, deltas: torch.Tensor = DELTAS, title=None):
    """Show a ``perturbation_grid`` as one image: a row per dimension, a column per Delta."""
    dim, k, h, w = grid.shape
    ax.imshow(mosaic(grid), cmap="gray", vmin=0, vmax=1)
    ax.set_xticks(np.arange(k) * w + w / 2, [f"{d:+.2f}" for d in deltas.tolist()], fontsize=7,
                  rotation=90)
    ax.set_yticks(np.arange(dim) * h + h / 2, [f"dim {d}" for d in range(dim)], fontsize=7)
    ax.set_xlabel("Δ added to that dimension")
    if title:
        ax.set_title(title)


# One colour per kind of model across Part IV (08-10): capsules warm, convolutions cool
MODEL_COLOURS = {"CapsNet": "tab:orange", "CapsNet, 1 iteration": "tab:red",
                 "CNN": "tab:blue", "G-CNN": "tab:green"}


def model_colour(name: str) -> str:
    """The Part IV colour of a checkpoint ``name`` (e.g. ``"affnist-capsnet-1iter"``)."""
    if "1iter" in name or "1 iteration" in name:
        return MODEL_COLOURS["CapsNet, 1 iteration"]
    for kind, colour in (("gcnn", "G-CNN"), ("capsnet", "CapsNet"), ("cnn", "CNN")):
        if kind in name.lower().replace("-", ""):  # "G-CNN" and "rotmnist-gcnn" alike
            return MODEL_COLOURS[colour]
    raise KeyError(f"no Part IV colour for {name!r}: its name should say capsnet, cnn or gcnn")


def held_out_curves(ax, rows: dict[str, dict], patience: int = PATIENCE) -> None:
    """The held-out accuracy of every epoch of each recorded run (``rows``: name -> manifest
    row), the kept epoch circled; a dashed line marks a run that had not finished (``finished``:
    the rule had not stopped it, or its last epochs were still rising)."""
    for name, row in rows.items():
        scores = row["metrics"]["validation_by_epoch"]
        curve, best = [100 * a for a in scores], best_epoch(scores)
        done = finished(scores, patience)
        ax.plot(range(1, len(curve) + 1), curve, "-" if done else "--", marker="o", ms=3,
                color=model_colour(name),
                label=f"{name} ({'converged' if done else 'still improving'})")
        ax.plot(best, curve[best - 1], "o", ms=9, mfc="none", color=model_colour(name))
    ax.set(xlabel="epoch", ylabel="held-out accuracy (%)")
    ax.legend(fontsize=8, loc="lower right")


def draw_face_curves(axes, records: dict[str, dict]) -> None:
    """The face models' held-out curves (``parts.curves.read_results``), one panel of ``axes``
    per model in the order the records first name them: each seed's held-out accuracy after every
    epoch, its best epoch circled, and a dotted line at the epoch the shipped recipe stops at."""
    models = list(dict.fromkeys(record["model"] for record in records.values()))
    for ax, model in zip(axes, models, strict=True):
        for record in (r for r in records.values() if r["model"] == model):
            curve = [100 * a for a in record["validation_by_epoch"]]
            line, = ax.plot(range(1, len(curve) + 1), curve, marker="o", ms=3,
                            label=f"seed {record['seed']}")
            best = record["best_epoch"]
            ax.plot(best, curve[best - 1], "o", ms=9, mfc="none", color=line.get_color())
        ax.axvline(record["recipe_epochs"], color="grey", ls=":", lw=1)
        ax.set(title=model, xlabel="epoch")
    axes[0].set_ylabel("held-out accuracy (%)")
    axes[0].legend(fontsize=8, loc="lower right")


TWO_COLOURS = ("tab:orange", "tab:blue")  # the two digits of a MultiMNIST pair (notebook 08)


def two_colour(images: np.ndarray) -> np.ndarray:
    """Two grey images ``[2, S, S]`` in [0, 1] drawn as ink of ``TWO_COLOURS`` on white, over each
    other: ``[S, S, 3]`` RGB (the paper's Fig. 5 draws its two reconstructions so)."""
    ink = 1 - np.array([to_rgb(c) for c in TWO_COLOURS])  # [2, 3]: what full ink takes from white
    return np.clip(1 - np.einsum("kxy,kc->xyc", images, ink), 0, 1)


def capsnet_vs_cnn_figure(cnn_output: str):
    """The figure of notebook 08's widgets: two image panels (what both models see, what the
    CapsNet redraws) and, per class, the CapsNet's capsule length beside the CNN's
    ``cnn_output`` probability. Returns ``(figure, (seen_ax, recon_ax), (lengths, probabilities))``
    where the last two are the bar containers ``set_class_bars`` updates."""
    figure = Figure(figsize=(10, 2.9))
    figure.subplots_adjust(left=0.02, right=0.98, bottom=0.17, top=0.86, wspace=0.25)
    seen, recon, bars = figure.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 2.2]})
    for ax in (seen, recon):
        ax.set(xticks=[], yticks=[])
    seen.set_title("what both models see")
    classes = np.arange(10)
    lengths = bars.bar(classes - 0.2, np.zeros(10), 0.4, color="tab:orange",
                       label="CapsNet: capsule length ‖v_j‖")
    probabilities = bars.bar(classes + 0.2, np.zeros(10), 0.4, color="tab:blue",
                             label=f"CNN: {cnn_output} probability")
    bars.set(xticks=classes, xlabel="class", ylim=(0, 1.05))
    bars.legend(loc="upper left", fontsize=8)
    return figure, (seen, recon), (lengths, probabilities)


def set_class_bars(bars, values, chosen=None) -> None:
    """Set one bar per class to ``values``; with ``chosen`` classes, the others are drawn pale."""
    for j, (bar, value) in enumerate(zip(bars, values, strict=True)):
        bar.set_height(value)
        bar.set_alpha(1.0 if chosen is None or j in chosen else 0.45)


def rotation_figure(face_size: int | None = None):
    """The figure of notebook 10's widget: what both models see (and, with a ``face_size``, the
    turned face of notebook 07's world), four feature maps of the G-CNN (one channel, one map
    per rotation) above four of the CNN, and each model's softmax probability per class.

    Returns ``(figure, panels, maps, bars)``: ``panels`` maps "digit" (and "face") to its image,
    ``maps`` maps "gcnn" and "cnn" to their four images, ``bars`` holds the two bar containers
    (G-CNN, CNN) that ``set_class_bars`` updates; with a face, ``panels["arrow"]`` is the line
    that shows the face capsule's angle."""
    figure = Figure(figsize=(11, 4.2))
    figure.subplots_adjust(left=0.03, right=0.98, bottom=0.12, top=0.9, wspace=0.15,
                           hspace=0.3)
    grid = figure.add_gridspec(2, 7, width_ratios=[1, 1, 1, 1, 1, 0.25, 2.4])  # 6: a gap
    panels, maps = {}, {"gcnn": [], "cnn": []}
    seen = figure.add_subplot(grid[0, 0])
    panels["digit"] = seen.imshow(np.zeros((28, 28)), cmap="gray", vmin=0, vmax=1)
    seen.set_title("what both see", fontsize=9)
    titles = {"gcnn": [f"G-CNN, rotation {90 * k}°" for k in range(4)],
              "cnn": [f"CNN, map {k + 1}" for k in range(4)]}
    for row, name in enumerate(maps):
        for k in range(4):
            ax = figure.add_subplot(grid[row, 1 + k])
            maps[name].append(ax.imshow(np.zeros((28, 28)), cmap="viridis", vmin=0, vmax=1))
            ax.set(xticks=[], yticks=[])
            ax.set_title(titles[name][k], fontsize=8)
    face = figure.add_subplot(grid[1, 0])
    if face_size:
        panels["face"] = face.imshow(np.zeros((face_size, face_size)), cmap="gray", vmin=0,
                                     vmax=1)
        (panels["arrow"],) = face.plot([], [], color="tab:orange", lw=2, marker="o",
                                       markevery=[1])
        face.set_title("a face, turned", fontsize=9)
    else:
        face.set_axis_off()
    seen.set(xticks=[], yticks=[])
    face.set(xticks=[], yticks=[])
    bars = figure.add_subplot(grid[:, 6])
    classes = np.arange(10)
    gcnn = bars.bar(classes - 0.2, np.zeros(10), 0.4, color="tab:green", label="G-CNN")
    cnn = bars.bar(classes + 0.2, np.zeros(10), 0.4, color="tab:blue", label="CNN")
    bars.set(xticks=classes, xlabel="class", ylim=(0, 1.05), title="softmax probability")
    bars.legend(loc="upper left", fontsize=8)
    return figure, panels, maps, (gcnn, cnn)


# --- CapsNet on MNIST (05): the margin loss, accuracies, mistakes, digits -----------------------


def draw_margin_loss(ax) -> None:
    """Eq. 4's loss L_k of one class against its capsule length, present and absent
    (``margin_loss_curves``), with the margins m+ = 0.9 and m- = 0.1 marked."""
    lengths = torch.linspace(0, 1, 101)
    present, absent = margin_loss_curves(lengths)
    ax.plot(lengths, present, label="class present ($T_k = 1$)")
    ax.plot(lengths, absent, label="class absent ($T_k = 0$)")
    for m, name in ((0.9, "$m^+$"), (0.1, "$m^-$")):
        ax.axvline(m, color="gray", ls=":")
        ax.text(m, 0.88, name, ha="center")
    ax.set(xlabel="capsule length $||v_k||$", ylabel="$L_k$", ylim=(-0.03, 0.95),
           title="margin loss of one class (Eq. 4)")
    ax.legend(loc="center")


def draw_accuracy_bars(ax, accuracies: dict[str, float], colors) -> None:
    """One horizontal bar per named accuracy (in %), top to bottom, its value written beside it."""
    names, values = list(accuracies), list(accuracies.values())
    ax.barh(names, values, color=colors)
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:.2f} %", va="center")
    ax.set(xlim=(min(values) - 1, 100.5), xlabel="MNIST test accuracy (%)")
    ax.invert_yaxis()


def draw_confusion(fig, confusion: torch.Tensor) -> None:
    """Two panels on ``fig`` from ``confusion`` ``[10, 10]`` counts (``loop.confusion``): the
    mistakes (true digit by row, prediction by column, the diagonal left out, each count
    written in its cell) and the accuracy of each true digit."""
    per_class = confusion.diag() / confusion.sum(dim=1)  # [10]
    errors = confusion.clone().fill_diagonal_(0)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.imshow(errors, cmap="Reds")
    for t, p in errors.nonzero().tolist():
        white = errors[t, p] > errors.max() / 2
        ax1.text(p, t, int(errors[t, p]), ha="center", va="center", fontsize=8,
                 color="white" if white else "black")
    ax1.set(xticks=range(10), yticks=range(10), xlabel="predicted", ylabel="true",
            title="mistakes (diagonal left out)")
    ax2.bar(range(10), 100 * per_class)
    ax2.set(xticks=range(10), xlabel="true digit", ylabel="accuracy (%)",
            ylim=(100 * per_class.min().item() - 1, 100), title="per-class accuracy")


def draw_digits(axes, images, titles=None, fontsize: int | None = 9, frame: bool = False,
                **imshow) -> None:
    """One image ``[H, W]`` of ``images`` per axes, without ticks (and without a frame unless
    ``frame``), each titled by ``titles`` if given; ``imshow``: e.g. ``cmap``, ``vmin``."""
    for k, (ax, image) in enumerate(zip(axes, images, strict=True)):
        ax.imshow(image, **{"cmap": "gray_r", **imshow})
        ax.set(xticks=[], yticks=[])
        ax.set_frame_on(frame)
        if titles is not None:
            ax.set_title(titles[k], fontsize=fontsize)


# --- Pooling, pose vectors, squash and parts voting (notebooks 01-04) ------------------------


def draw_feature_map(ax, m, title: str, window: int | None = None) -> None:
    """A feature map ``m`` ``[H, W]`` as a grid of its numbers (blue = fired), with lines between
    the ``window`` x ``window`` pooling windows when ``window`` is given."""
    m = np.asarray(m)
    ax.imshow(m, cmap="Blues", vmin=0, vmax=1.5)
    for (row, col), value in np.ndenumerate(m):
        ax.text(col, row, f"{value:g}", ha="center", va="center")
    for k in range(window, len(m), window) if window else []:
        ax.axhline(k - 0.5, color="k", lw=2)
        ax.axvline(k - 0.5, color="k", lw=2)
    ax.set(xticks=[], yticks=[], title=title)


def show_feature_maps(fig, rows, window: int | None = None):
    """A grid of ``draw_feature_map`` panels on ``fig``: ``rows`` is a list of rows, each a list
    of ``(title, map [H, W])``; ``window`` as in ``draw_feature_map`` (no line on a map no
    larger than one window). Returns the axes ``[rows, cols]``."""
    if not rows or len({len(row) for row in rows}) != 1:
        raise ValueError("rows must be a non-empty list of rows of the same length")
    axes = fig.subplots(len(rows), len(rows[0]), squeeze=False)
    for ax_row, row in zip(axes, rows, strict=True):
        for ax, (title, m) in zip(ax_row, row, strict=True):
            draw_feature_map(ax, m, title, window)
    return axes


def show_receptive_fields(fig, face, bag_rf: int, deep_rf: int, size: int = 32):
    """Two panels on ``fig``: the ``face`` (parts, as ``faces.face_parts`` returns them) with the
    bag-of-parts CNN's ``bag_rf`` window on its left eye and between the eye and the nose, and
    with the deep CNN's ``deep_rf`` window at the centre (dashed: the image's border)."""
    image = faces.render(face, size)
    left_eye, nose = face[0], face[2]

    def pixel(x, y):  # image fractions (x, y) -> pixel coordinates (row, col)
        return y * size - 0.5, x * size - 0.5

    ax_bag, ax_deep = fig.subplots(1, 2)
    between = pixel((left_eye.x + nose.x) / 2, (left_eye.y + nose.y) / 2)
    show_receptive_field(ax_bag, image, bag_rf, [pixel(left_eye.x, left_eye.y), between])
    ax_bag.set_title(f"bag-of-parts CNN: {bag_rf}x{bag_rf} px")
    show_receptive_field(ax_deep, image, deep_rf, [pixel(0.5, 0.5)])
    ax_deep.set_title(f"deep CNN: {deep_rf}x{deep_rf} px (dashed: the image)")
    ax_deep.add_patch(Rectangle((-0.5, -0.5), size, size, fill=False, ls="--", color="0.6"))
    return ax_bag, ax_deep


def show_angle_curves(ax, curves: dict) -> None:
    """Face rate against how far the face is turned, one line per model: ``curves`` maps a name
    to ``(centres [bins], rates [bins])`` (``parts.scoring.mean_face_rate_by_angle``); the
    training range (±15°) shaded."""
    for name, (centres, rates) in curves.items():
        ax.plot(centres, rates, marker="o", label=name)
    ax.axvspan(0, 15, color="0.9", label="training faces (±15°)")
    ax.set(xlabel="|face angle| (degrees)", ylabel="face rate", ylim=(-0.05, 1.05))
    ax.legend(fontsize="small")


def draw_part(ax, part, presence: float, title: str) -> None:
    """One part drawn with ink ``presence`` (``capsule_vectors.draw``), titled, without ticks."""
    ax.imshow(draw(part, presence), cmap="gray", vmin=0, vmax=1)
    ax.set(xticks=[], yticks=[], title=title)


def show_pose_vectors(fig, examples, kind: str = "nose"):
    """Top row: each 2-D capsule of ``examples`` (a list of ``(angle in degrees, presence)``) as
    an arrow; bottom row: the ``kind`` part it describes. Returns the axes ``[2, n]``."""
    axes = fig.subplots(2, len(examples), squeeze=False)
    for (angle, presence), ax_v, ax_part in zip(examples, *axes, strict=True):
        v = pose_vector(angle, presence)
        draw_vector(ax_v, float(v[0]), float(v[1]))
        ax_v.set_title(f"v = ({v[0]:+.2f}, {v[1]:+.2f})")
        part, p = part_from_vector(kind, v)
        draw_part(ax_part, part, p, f"{kind} at {part.angle:.0f}°, p = {p:.2f}")
    fig.suptitle("top: the capsule's vector (dashed: length 1); bottom: the part it describes")
    return axes


def show_decoded_poses(fig, kind: str, vectors) -> None:
    """One panel per 5-D capsule of ``vectors`` (each ``[5]``): the ``kind`` part it decodes to
    (``capsule_vectors.decode_pose``), drawn with ink = its length."""
    axes = fig.subplots(1, len(vectors), squeeze=False)[0]
    for ax, v in zip(axes, vectors, strict=True):
        part, p = decode_pose(kind, v)
        draw_part(ax, part, p, f"||v|| = {p:.1f}, angle {part.angle:.0f}°")


def show_templates(fig, templates, angles) -> None:
    """A row of template images ``[n, 1, h, w]``, each titled with its angle ``[n]``."""
    axes = fig.subplots(1, len(templates), squeeze=False)[0]
    for ax, t, a in zip(axes, templates, angles, strict=True):
        ax.imshow(t[0], cmap="gray")
        ax.set(xticks=[], yticks=[], title=f"{a:.0f}°")


def show_rotation_readouts(fig, input_angles, cnn_unit, pooled, error) -> None:
    """Notebook 02's three panels against the input angle ``[n]``: (a) one upright filter's and
    (b) the bank's pooled match ``[n]``; (c) the capsule's angle, the input angle plus its
    ``error`` ``[n]``, against perfect equivariance; and the error alone, magnified."""
    ax_inv, ax_eq, ax_err = fig.subplots(1, 3)
    quarters = range(0, 361, 90)
    ax_inv.plot(input_angles, cnn_unit, label="(a) one upright filter")
    ax_inv.plot(input_angles, pooled, label="(b) max over the bank = capsule length")
    ax_inv.set(xlabel="input angle (°)", ylabel="best match", ylim=(0, 1.05), xticks=quarters,
               title="pooled features: (b) is nearly invariant")
    ax_inv.legend(loc="lower right")
    ax_eq.plot(input_angles, input_angles, ":", color="0.5", label="perfect equivariance")
    ax_eq.plot(input_angles, input_angles + error, ".", ms=3, label="(c) capsule direction")
    ax_eq.set(xlabel="input angle (°)", ylabel="angle read from the capsule (°)",
              xticks=quarters, yticks=quarters, title="the capsule is equivariant")
    ax_eq.legend(loc="upper left")
    ax_err.plot(input_angles, error, ".", ms=3, color="tab:red")
    ax_err.axhline(0, color="0.5", lw=0.8)
    ax_err.set(xlabel="input angle (°)", ylabel="capsule angle - input angle (°)",
               xticks=quarters, title="(c)'s error, magnified")


def show_turned_capsules(fig, images, input_angles, capsules, n_shown: int = 6) -> None:
    """Top row: ``n_shown`` evenly spaced of the ``images`` ``[N, 1, H, W]`` at ``input_angles``
    ``[N]``; bottom row: each image's 2-D capsule of ``capsules`` ``[N, 2]`` as an arrow, titled
    with the angle and length read from it."""
    presence, estimated = read_pose(capsules)
    shown = range(0, len(input_angles), len(input_angles) // n_shown)
    axes = fig.subplots(2, len(shown), squeeze=False)
    for i, ax_img, ax_v in zip(shown, *axes, strict=True):
        ax_img.imshow(images[i, 0], cmap="gray")
        ax_img.set(xticks=[], yticks=[], title=f"input at {input_angles[i]:.0f}°")
        draw_vector(ax_v, *capsules[i].tolist(), color="tab:red")
        ax_v.set_title(f"capsule: {estimated[i] % 360:.0f}°\nlength {presence[i]:.2f}",
                       fontsize=10)


def show_squash_curves(fig, r, slope_autograd, slope_formula) -> None:
    """Left: the output length against ``||s|| = r`` ``[n]`` for squash, r^2 / (1 + r^2),
    beside sigmoid(r) and tanh(r); right: squash's slope ``[n]`` by autograd and by formula."""
    ax_len, ax_slope = fig.subplots(1, 2)
    ax_len.plot(r, r**2 / (1 + r**2), label="squash: r² / (1 + r²)", lw=2.5)
    ax_len.plot(r, torch.sigmoid(r), "--", label="sigmoid(r)")
    ax_len.plot(r, torch.tanh(r), ":", label="tanh(r)")
    ax_len.axhline(1, color="0.6", lw=0.8)
    ax_len.set(xlabel="||s|| = r", ylabel="output length", title="length out vs length in")
    ax_len.legend()
    ax_slope.plot(r, slope_autograd, lw=2.5, label="autograd through capsedu.squash")
    ax_slope.plot(r, slope_formula, "--", color="k", label="2r / (1 + r²)²")
    ax_slope.set(xlabel="||s||", ylabel="d||v|| / d||s||", title="the slope")
    ax_slope.legend()


def show_ghosts(fig, scenes: dict):
    """One panel per scene of ``scenes`` (title -> parts): the parts and, in each part's colour,
    the face it predicts (``parts.votes.predict_face``), with a key of the part colours."""
    axes = fig.subplots(1, len(scenes), squeeze=False)[0]
    for ax, (title, scene) in zip(axes, scenes.items(), strict=True):
        draw_scene(ax, scene, ghosts={p.kind: predict_face(p) for p in scene})
        ax.set_title(title)
    handles = [Line2D([], [], color=PART_COLORS[k], label=k) for k in faces.PART_KINDS]
    fig.legend(handles=handles, loc="lower center", ncol=4)
    return axes


def show_code_agreement(fig, offsets, angle_differences) -> None:
    """The dot product of two pose-cell codes (``parts.votes.pose_code``) against the distance
    ``offsets`` ``[n]`` (image widths) and the angle ``angle_differences`` ``[m]`` (degrees)
    between their poses."""
    base = pose_code(0.5, 0.5, 0.0)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(offsets, pose_code(0.5 + offsets, 0.5, 0.0) @ base)
    ax1.set(xlabel="distance between the two predictions\n(image widths)", ylabel="dot product")
    ax2.plot(angle_differences, pose_code(0.5, 0.5, angle_differences) @ base)
    ax2.set(xlabel="difference between the two predicted\nangles (degrees)")
    fig.suptitle("agreement between two pose-cell codes")


def draw_routing_flow(ax, u_hat_shape) -> None:
    """Procedure 1 as a flow of tensors with their shapes, for votes ``u_hat`` of
    ``u_hat_shape`` ``[B, children, parents, dims]``: the logits b give the couplings c (softmax
    over the parents), c weighs the votes into s (a sum over the children), squash gives v, the
    agreement of each vote with v goes back into b."""
    batch, n_in, n_out, dims = u_hat_shape
    pair, parent = f"[{batch}, {n_in}, {n_out}]", f"[{batch}, {n_out}, {dims}]"
    boxes = [  # (x, y, text): one tensor each
        (0.06, 0.35, f"$b_{{ij}}$ logits\n{pair}\nstart at 0"),
        (0.27, 0.35, f"$c_{{ij}}$ couplings\n{pair}\nsoftmax over parents $j$"),
        (0.50, 0.35, f"$s_j = \\sum_i c_{{ij}}\\,\\hat u_{{j|i}}$\n{parent}\n"
                     "sum over children $i$"),
        (0.72, 0.35, f"$v_j$ = squash($s_j$)\n{parent}"),
        (0.93, 0.35, f"$\\hat u_{{j|i}} \\cdot v_j$ agreement\n{pair}"),
        (0.50, 0.90, f"$\\hat u_{{j|i}}$ votes\n[{batch}, {n_in}, {n_out}, {dims}]"),
    ]
    for x, y, text in boxes:
        ax.text(x, y, text, ha="center", va="center", fontsize=9,
                bbox={"boxstyle": "round", "fc": "white", "ec": "0.4"})
    arrow = {"arrowstyle": "->", "color": "0.3"}
    for (x0, y0), (x1, y1) in (((0.13, 0.35), (0.19, 0.35)), ((0.36, 0.35), (0.40, 0.35)),
                               ((0.60, 0.35), (0.66, 0.35)), ((0.78, 0.35), (0.85, 0.35)),
                               ((0.50, 0.79), (0.50, 0.50)), ((0.56, 0.82), (0.90, 0.47))):
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops=arrow)
    ax.annotate("", xy=(0.06, 0.17), xytext=(0.93, 0.22),
                arrowprops={**arrow, "connectionstyle": "arc3,rad=-0.15"})
    ax.text(0.50, -0.16, "b += agreement: the next iteration", ha="center", fontsize=9)
    ax.set(xlim=(-0.04, 1.04), ylim=(-0.2, 1.05))
    ax.axis("off")


def show_coupling_trace(fig, trace, rows, cols) -> None:
    """One ``coupling_heatmap`` per iteration: ``trace`` ``[iterations, rows, cols]``."""
    axes = fig.subplots(1, len(trace), sharey=True, squeeze=False)[0]
    for r, (ax, c) in enumerate(zip(axes, trace, strict=True), start=1):
        coupling_heatmap(ax, c, rows, cols, title=f"iteration {r}")
    fig.suptitle("coupling coefficients c_ij (rows sum to 1: softmax over the parents)")
    fig.tight_layout()


def face_length_boxplot(ax, lengths: dict, threshold: float, legend_below: bool = False) -> None:
    """A box of face-capsule lengths per kind (``lengths``: kind -> ``[n]``) and the
    ``threshold`` above which a length counts as a face, dashed; its key in the lower left, or
    with ``legend_below`` below the axes (a figure with ``layout="constrained"``), where it hides
    no box."""
    ax.boxplot(list(lengths.values()), showfliers=True)
    ax.set_xticks(range(1, len(lengths) + 1), list(lengths))
    ax.axhline(threshold, color="gray", ls="--", label=f"threshold {threshold:.3g}")
    ax.set(ylabel="face capsule length after routing", ylim=(0, 1))
    if legend_below:
        ax.figure.legend(loc="outside lower center")
    else:
        ax.legend(loc="lower left")


# --- Faces: parts vote for wholes (07) ---------------------------------------------------------


def draw_detected_parts(fig, detector, examples: dict) -> None:
    """One panel per named image of ``examples`` (name -> ``[1, 1, H, W]``) with the part
    capsules ``detector`` reads off it (``draw_detections``), and a legend of the parts'
    colours below."""
    for ax, (name, image) in zip(fig.subplots(1, len(examples)), examples.items(), strict=True):
        poses, presence = detector.detect(image)
        draw_detections(ax, image[0, 0], poses[0], presence[0])
        ax.set_title(name)
    handles = [Line2D([], [], color=PART_COLORS[k], marker="o", label=k) for k in faces.PART_KINDS]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize="small")


def draw_part_votes(ax_scene, ax_c, model, scene, title: str):
    """Render ``scene``, let the pose-capsule ``model`` detect, vote and route it, and draw the
    scene with each detected part's predicted face as a ghost (``ax_scene``) and the couplings
    part -> parent (``ax_c``). Returns the ``RoutingResult`` (couplings ``c`` ``[1, 4, 2]``,
    parents ``v`` ``[1, 2, D + 1]``)."""
    x = faces.render_many([scene])  # [1, 1, 32, 32]
    poses, _, _, routing = model.capsules(x)
    ghosts = predicted_faces(poses[0].double().numpy(), model.W.numpy())  # [4, 4]
    draw_scene(ax_scene, scene, size=32, ghosts=dict(zip(faces.PART_KINDS, ghosts, strict=True)))
    ax_scene.set_title(f"{title}: |v_face| = {routing.v[0, 0].norm().item():.2f}")
    coupling_heatmap(ax_c, routing.c[0].numpy(), faces.PART_KINDS, PARENTS, title="c_ij")
    return routing


def draw_rotation_sweep(ax, sweep: dict) -> None:
    """The angles a pose-capsule model reads off a turning face (``pose_net.rotation_sweep``):
    each part's as dots in its colour, the face capsule's as a line, each taken to the turn's
    side of 360°, against the turn."""
    angles = sweep["angles"]
    for k, kind in enumerate(faces.PART_KINDS):
        ax.plot(angles, angles + wrap_angle(sweep["part_angles"][:, k] - angles), ".",
                color=PART_COLORS[kind], label=kind)
    ax.plot(angles, angles + wrap_angle(sweep["face_angle"] - angles), "k-", lw=1,
            label="face capsule")
    ax.set(xlabel="face turned by (°)", ylabel="angle read by the model (°)",
           title="poses turn with the face")
    ax.legend(fontsize="small")


def draw_turned_scores(ax, angles, scores: dict) -> None:
    """Each model's score for "face" against the turn of the face, and dotted in the same
    colour where it cuts (``scores``: name -> (score, cut), ``scoring.turned_face_scores``)."""
    for name, (score, cut) in scores.items():
        (line,) = ax.plot(angles, score.numpy(), ".-", label=name)
        ax.plot(angles, cut.numpy(), ":", color=line.get_color(), lw=1)
    ax.set(xlabel="face turned by (°)", ylabel="score for face (dotted: its cut)", ylim=(0, 1.05),
           title="the verdict stays (or not)")
    ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))


# --- Viewpoint and overlapping digits (08) -------------------------------------------------------


def affine_titles(params: dict, n: int) -> list[str]:
    """Short titles of the first ``n`` maps ``random_affine`` drew (its ``params``): the rotation
    in whole degrees, the shear, the two scales."""
    return [f"{round(float(params['rotation'][k])):+d}°, sh {params['shear'][k]:+.2f}\n"
            f"s {params['scale_x'][k]:.2f}x{params['scale_y'][k]:.2f}" for k in range(n)]


def draw_affine_examples(fig, translated: torch.Tensor, affine: torch.Tensor,
                         params: dict) -> None:
    """The same digits twice on ``fig``: ``translated`` ``[n, 1, S, S]`` on the top row, under
    their affNIST-style maps (``affine`` ``[n, 1, S, S]``, each titled by its map of
    ``params``) on the bottom row."""
    axes = fig.subplots(2, len(translated), squeeze=False)
    draw_digits(axes[0], translated[:, 0], frame=True)
    draw_digits(axes[1], affine[:, 0], affine_titles(params, len(affine)), fontsize=8,
                frame=True)
    axes[0, 0].set_ylabel("translated")
    axes[1, 0].set_ylabel("affNIST-style")
    fig.suptitle("the same test digits, as the models are trained (top) and as the affNIST test "
                 "shows them")


def draw_sweep_examples(fig, digit: torch.Tensor) -> None:
    """One MNIST ``digit`` ``[1, 28, 28]`` at every value of each sweep of
    ``transformed_mnist.SWEEPS``, one row per factor, each image titled by its value."""
    columns = max(len(values) for values in tm.SWEEPS.values())
    axes = fig.subplots(len(tm.SWEEPS), columns, squeeze=False)
    for row, (factor, values) in zip(axes, tm.SWEEPS.items(), strict=True):
        images = torch.cat([tm.sweep(digit[None], factor, value) for value in values])
        draw_digits(row[:len(values)], images[:, 0], [f"{v:g}" for v in values], fontsize=8,
                    frame=True)
        for ax in row[len(values):]:
            ax.axis("off")
        row[0].set_ylabel(factor)


def draw_quoted_bars(ax, measured: dict[str, float], quoted: dict[str, float]) -> None:
    """One horizontal bar per accuracy (%), top to bottom: the ``measured`` ones (name -> %) in
    each model's colour (``model_colour``), then the ``quoted`` ones (source: model -> %) in grey,
    a lighter grey for each next source; each value written beside its bar."""
    sources = list(dict.fromkeys(name.split(":")[0] for name in quoted))
    greys = {source: f"{0.55 + 0.1 * k:.2f}" for k, source in enumerate(sources)}
    colors = ([model_colour(name) for name in measured]
              + [greys[name.split(":")[0]] for name in quoted])
    values = [*measured.values(), *quoted.values()]
    ax.barh([*measured, *quoted], values, color=colors)
    for y, value in enumerate(values):
        ax.text(value, y, f" {value:.1f} %", va="center")
    ax.set(xlim=(0, 109), xlabel="accuracy on affine-transformed digits (%)")
    ax.invert_yaxis()


SWEEP_STYLES = ("o-", "^--", "s-")  # the markers and lines of 08's sweep curves, model by model


def draw_sweep_curves(fig, curves: dict, n: int,
                      ranges: tm.AffineRanges = tm.AFFNIST_RANGES) -> None:
    """One panel per factor of ``transformed_mnist.SWEEPS``: each model's accuracy (%) at every
    value of the sweep (``curves``: ``robustness.sweep_curves``, on ``n`` digits), the range of
    that factor in ``ranges`` as a grey band."""
    if len(curves) > len(SWEEP_STYLES):
        raise ValueError(f"draw_sweep_curves draws at most {len(SWEEP_STYLES)} models, got "
                         f"{len(curves)}")
    axes = fig.subplots(1, len(tm.SWEEPS), sharey=True, squeeze=False)[0]
    for ax, factor in zip(axes, tm.SWEEPS, strict=True):
        for (name, by_factor), style in zip(curves.items(), SWEEP_STYLES, strict=False):
            ax.plot(tm.SWEEPS[factor], [100 * a for a in by_factor[factor]], style,
                    color=model_colour(name), ms=4, label=name)
        ax.axvspan(*ranges.band(factor), color="0.92", zorder=0)
        ax.set(xlabel=factor + (" (degrees)" if factor == "rotation" else ""),
               title=f"sweep of {factor}")
    axes[0].set_ylabel(f"accuracy (%), {n:,} digits")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.suptitle("grey band: the affNIST range of that factor", y=1.02)


def draw_group_bars(ax, scores: dict[str, list[float]], labels: list[str]) -> None:
    """Grouped bars: one group per label, one bar per model (``scores``: name -> one accuracy in %
    per group, e.g. ``robustness.accuracy_by_group``), in each model's colour."""
    width = 0.8 / len(scores)
    for k, (name, values) in enumerate(scores.items()):
        at = np.arange(len(labels)) + (k - (len(scores) - 1) / 2) * width
        ax.bar(at, values, width, label=name, color=model_colour(name))
    ax.set(xticks=range(len(labels)), xticklabels=labels, ylim=(0, 100))
    ax.legend(loc="lower left")


def draw_segmentation(fig, pairs: torch.Tensor, labels: torch.Tensor, read: torch.Tensor,
                      redrawn: torch.Tensor) -> None:
    """The paper's Fig. 5 on ``fig``: test ``pairs`` ``[n, 1, S, S]`` with their true ``labels``
    ``[n, 2]`` on top, below them the two digits a two-digit CapsNet redraws from the two
    capsules it reads (``read`` ``[n, 2]``, ``redrawn`` ``[n, 2, 1, S, S]``, from
    ``reconstruct_each``) in the two colours of ``two_colour``."""
    axes = fig.subplots(2, len(pairs), squeeze=False)
    draw_digits(axes[0], pairs[:, 0], [f"true {sorted(pair)}" for pair in labels.tolist()],
                frame=True)
    draw_digits(axes[1], [two_colour(images[:, 0].numpy()) for images in redrawn],
                [f"read {first} / {second}" for first, second in read.tolist()], frame=True)
    first, second = (colour.removeprefix("tab:") for colour in TWO_COLOURS)
    fig.suptitle(f"top: test pairs; bottom: the CapsNet's two reconstructions ({first} = the "
                 f"smaller class read, {second} = the larger)", y=1.0)


# --- Routing under the microscope (09) -----------------------------------------------------------


def draw_seed_spread(ax, errors: dict[str, np.ndarray], ylabel: str,
                     gap_after: int | None = None) -> None:
    """Each setting's value per seed (``errors``: label -> ``[seeds]``, e.g. a test error in %,
    named by ``ylabel``) as grey dots and their mean with its 95 % t interval over the seeds in
    orange (``statistics.over_seeds``), one column per setting; after the first ``gap_after``
    settings, a gap."""
    x = [k + 0.6 * (gap_after is not None and k >= gap_after) for k in range(len(errors))]
    for at, values in zip(x, errors.values(), strict=True):
        ax.scatter([at] * len(values), values, color="0.5", s=14, zorder=3)
        ax.errorbar(at, values.mean(), yerr=over_seeds(values).half_width, fmt="o",
                    color="tab:orange", capsize=4, zorder=4)
    ax.set(xticks=x, xticklabels=list(errors), ylabel=ylabel,
           title="each grey dot one seed; orange: the mean and its 95 % t interval over seeds")


def draw_epoch_curves(ax, curves: dict[str, list[float]], color: str = "tab:orange") -> None:
    """Every run's held-out accuracy (%) after each epoch (``curves``: name -> accuracy in [0, 1]
    per epoch), one faint line each."""
    for curve in curves.values():
        ax.plot(range(1, len(curve) + 1), [100 * a for a in curve], "-", color=color,
                alpha=0.4, marker="o", ms=3)
    epochs = max(len(curve) for curve in curves.values())
    ax.set(xlabel="epoch", ylabel="held-out accuracy (%)", xticks=range(1, epochs + 1))


COUPLING_STATS = {"entropy": "normalised entropy", "distance": "distance from uniform",
                  "polarised": "share polarised (> 0.9)"}  # couplings.coupling_trace's numbers


def draw_coupling_traces(fig, traces: dict[str, list[dict]], trained_with: int = 3) -> None:
    """One panel per number of ``couplings.coupling_trace`` (``COUPLING_STATS``): each model's
    value at every routing iteration (``traces``: name -> trace; a name with "permuted" in it
    dashed), the iterations the models were trained with marked by a grey line."""
    axes = fig.subplots(1, len(COUPLING_STATS))
    iterations = range(1, max(len(trace) for trace in traces.values()) + 1)
    for name, trace in traces.items():
        style = "--" if "permuted" in name else "-"
        for ax, stat in zip(axes, COUPLING_STATS, strict=True):
            ax.plot(range(1, len(trace) + 1), [step[stat] for step in trace], style, marker="o",
                    ms=3, label=name)
    for ax, title in zip(axes, COUPLING_STATS.values(), strict=True):
        ax.axvline(trained_with, color="0.8", zorder=0)
        ax.set(xlabel="routing iteration", title=title, xticks=iterations)
    axes[-1].legend(fontsize=8)
    fig.suptitle(f"grey line: the {trained_with} iterations each model was trained with", y=1.02)


def draw_zoo_curves(fig, zoo: dict[str, dict], correct: str, bugs, stopped_at: int) -> None:
    """One column per bug of ``bugs``: its recorded run's loss (top, log scale) and training
    accuracy (bottom) of every step, each the mean of its last steps (``bug_zoo.running_mean``),
    in red over the ``correct`` run's in grey (``zoo``: the recorded runs by name,
    ``bug_zoo.read_results``); a dotted line at step ``stopped_at`` (where a live run stopped).
    Steps run 1, 2, ... on a logarithmic axis, so that the first epoch, where the bugs differ
    most, is as wide as the many epochs after it."""
    axes = fig.subplots(2, len(bugs), sharex=True, squeeze=False)
    for col, name in enumerate(bugs):
        for row, key in enumerate(("batch_loss", "batch_accuracy")):
            ax = axes[row, col]
            for run, colour in ((correct, "0.6"), (name, "tab:red")):
                curve = running_mean(zoo[run][key])
                ax.plot(range(1, len(curve) + 1), curve, color=colour, label=run)
            ax.axvline(stopped_at, color="0.3", ls=":")
            ax.set(xscale="log", yscale="log" if key == "batch_loss" else "linear")
        axes[0, col].set_title(f"{name}\ntest {100 * zoo[name]['test_accuracy']:.1f} % "
                               f"(correct {100 * zoo[correct]['test_accuracy']:.1f} %)",
                               fontsize=9)
        axes[1, col].set_xlabel("training step")
    axes[0, 0].set_ylabel("loss (log scale)")
    axes[1, 0].set_ylabel("training accuracy")
    key_lines = [Line2D([], [], color="0.6"), Line2D([], [], color="tab:red"),
                 Line2D([], [], color="0.3", ls=":")]
    fig.legend(key_lines, ["the correct model", "the panel's bug", "where the live run stopped"],
               loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.06), fontsize=9)


# --- What the pose dimensions mean (06) --------------------------------------------------------


def draw_capsule_values(fig, ax, capsules: torch.Tensor, row_labels) -> None:
    """Capsules ``[rows, dims]`` as a heatmap, one row each (labelled ``row_labels``), a colour
    scale symmetric about 0 and its colour bar."""
    lim = float(capsules.abs().max())
    im = ax.imshow(capsules, cmap="coolwarm", vmin=-lim, vmax=lim)
    ax.set(xticks=range(capsules.shape[1]), yticks=range(len(row_labels)), xlabel="dimension",
           yticklabels=row_labels)
    fig.colorbar(im, ax=ax, label="value")


def draw_dimension_changes(fig, study) -> None:
    """One heatmap per class of ``study`` (``digit_capsules.measure_dimensions``): a row per
    dimension, a column per shape measure, each cell its change from Δ = -0.25 to +0.25 in
    standard deviations of real digits, written in. ``fig``: ``layout="constrained"``."""
    names = list(study.spread)
    axes = fig.subplots(1, len(study.relative), sharey=True, squeeze=False)[0]
    for ax, (d, r) in zip(axes, study.relative.items(), strict=True):
        im = ax.imshow(r, cmap="coolwarm", vmin=-3, vmax=3, aspect="auto")
        for (i, j), value in np.ndenumerate(r.numpy()):
            ax.text(j, i, f"{value:+.1f}", ha="center", va="center", fontsize=7)
        n = len(next(iter(study.changes[d].values())))
        ax.set(xticks=range(len(names)), xticklabels=names, yticks=range(r.shape[0]),
               title=f"capsule {d} ({n} test {d}s)")
    axes[0].set_ylabel("dimension")
    fig.colorbar(im, ax=axes, shrink=0.8, label="change, in standard deviations of real digits")
    fig.suptitle("change from Δ = -0.25 to +0.25, in standard deviations of real digits")


def draw_couplings_on_grid(fig, out, image: torch.Tensor, example: int, classes, config) -> None:
    """For each class j of ``classes`` a row: the ``image`` ``[28, 28]`` with the length of its
    capsule j, then the couplings of every primary grid position to j (mean over the maps) at
    each routing iteration, laid over the image where those capsules look (``grid_extent``).
    ``out``: the ``CapsNetOutput`` of a batch, ``example`` the image's index in it."""
    iterations = len(out.routing.history)
    axes = fig.subplots(len(classes), iterations + 1, squeeze=False)
    extent = grid_extent(config)
    for row, j in enumerate(classes):
        c = couplings_on_grid(out.routing, example, j, config.primary_maps)  # [its, maps, g, g]
        axes[row, 0].imshow(image, cmap="gray")
        axes[row, 0].set_title(f"#{example}: ‖v_{j}‖ = {out.lengths[example, j]:.2f}")
        for r in range(iterations):
            ax = axes[row, r + 1]
            ax.imshow(image, cmap="gray", extent=(0, 28, 28, 0))
            im = ax.imshow(c[r].mean(dim=0), cmap="coolwarm", vmin=0, vmax=0.2, alpha=0.75,
                           extent=extent)
            ax.set(xlim=(0, 28), ylim=(28, 0), title=f"c(i -> {j}), iteration {r + 1}")
    for ax in axes.flat:
        ax.set(xticks=[], yticks=[])
    fig.colorbar(im, ax=axes, shrink=0.6, label="coupling, mean over maps (uniform = 0.1)")


def draw_map_couplings(fig, c: torch.Tensor, cols: int = 8) -> None:
    """The couplings ``c`` ``[maps, grid, grid]`` of every primary map, one panel each, ``cols``
    a row, on one colour scale (uniform coupling to one of ten classes is 0.1)."""
    rows = -(-len(c) // cols)
    axes = fig.subplots(rows, cols, squeeze=False)
    for m, ax in enumerate(axes.flat):
        ax.set(xticks=[], yticks=[])
        if m < len(c):
            im = ax.imshow(c[m], cmap="coolwarm", vmin=0, vmax=0.2)
            ax.set_title(f"map {m}", fontsize=8)
        else:
            ax.axis("off")
    fig.colorbar(im, ax=axes, shrink=0.8, label="coupling (uniform = 0.1)")


# --- Notebook 10's figures -------------------------------------------------------------------


def draw_panels(axes, panels) -> None:
    """One ``(image [H, W], title, cmap)`` of ``panels`` per axes, without ticks (10 §1: a digit,
    its shift and their feature maps)."""
    for ax, (image, title, cmap) in zip(axes, panels, strict=True):
        ax.imshow(image, cmap=cmap)
        ax.set(xticks=[], yticks=[], title=title)


def draw_shift_changes(ax, shifts, changes: dict) -> None:
    """How much each pooling's output changes (``changes``: pooling -> one value per shift)
    against the shift of the feature maps in px (10 §1)."""
    for (pool, change), style in zip(changes.items(), ["o-", "s--", "^-"], strict=True):
        ax.plot(shifts, change, style, label=pool)
    ax.set(xticks=shifts, xlabel="shift of the feature maps (px)",
           ylabel="relative change after pooling", title="pooling and shifts")
    ax.legend()


def draw_face_sweep(fig, face_angles, sweep: dict, slope: float,
                    shown=(0, 45, 90, 135, 180, 225, 270, 315)) -> None:
    """10 §2: the pose capsules' face angle (``sweep``: ``rotation_sweep``'s ``face_angle`` and
    ``images``) against the angle the face was turned by, with the fitted line of ``slope``,
    and the faces turned by the ``shown`` angles (8), each titled with the angle read."""
    grid = fig.add_gridspec(2, 6, width_ratios=[2.6, 0.2, 1, 1, 1, 1])
    ax = fig.add_subplot(grid[:, 0])
    read = np.unwrap(sweep["face_angle"], period=360)
    ax.plot(face_angles, read, "o", ms=4, label="face capsule reads")
    # the line of the fitted slope through the first point
    ax.plot(face_angles, slope * face_angles + read[0] - slope * face_angles[0],
            "k-", lw=1, label=f"fitted line, slope {slope:.2f}")
    ax.set(xlabel="face turned by (°)", ylabel="angle read (°, unwrapped)")
    ax.legend(fontsize="small")
    for k, a in enumerate(shown):
        i = int(np.flatnonzero(face_angles == a)[0])
        sub = fig.add_subplot(grid[k // 4, 2 + k % 4])
        sub.imshow(sweep["images"][i], cmap="gray_r")
        sub.set(xticks=[], yticks=[])
        sub.set_title(f"{a}° -> {sweep['face_angle'][i]:.0f}°", fontsize=8)


def draw_capsule_under_rotation(axes, angles, lengths, cosines, v, title: str) -> None:
    """10 §2, on three axes: each digit's true capsule's length and its cosine with the upright
    capsule (``lengths``, ``cosines`` [digits, angles]) against the angle the digit was turned
    by, with their means, and one digit's capsule ``v`` [angles, 16] as a heatmap titled
    ``title``."""
    for length, cosine in zip(lengths, cosines, strict=True):
        axes[0].plot(angles, length, lw=0.8, alpha=0.6)
        axes[1].plot(angles, cosine, lw=0.8, alpha=0.6)
    axes[0].plot(angles, lengths.mean(axis=0), "k-", lw=2, label=f"mean of the {len(lengths)}")
    axes[1].plot(angles, cosines.mean(axis=0), "k-", lw=2)
    axes[0].set(xlabel="digit turned by (°)", ylabel="length of the true capsule", ylim=(0, 1))
    axes[1].set(xlabel="digit turned by (°)", ylabel="cosine with the upright capsule")
    axes[0].legend(fontsize="small")
    # one column per angle, centred on it (the angles 15° apart)
    image = axes[2].imshow(v.T, aspect="auto", cmap="RdBu_r", vmin=-0.5, vmax=0.5,
                           extent=[angles[0] - 7.5, angles[-1] + 7.5, v.shape[1] - 0.5, -0.5])
    axes[2].set(xlabel="digit turned by (°)", ylabel="dimension", title=title)
    axes[2].figure.colorbar(image, ax=axes[2])


def draw_lifted_maps(axes, digits, maps) -> None:
    """10 §3, on axes [rows, 5]: each of ``digits`` (upright, turned 90°) and its lifting
    convolution's map of one filter in its 4 orientations (``maps`` [rows, 4, H, W])."""
    for row, (digit, maps_) in enumerate(zip(digits, maps, strict=True)):
        axes[row, 0].imshow(digit, cmap="gray_r")
        axes[row, 0].set_title(["the digit", "turned 90°"][row])
        for r in range(4):
            axes[row, 1 + r].imshow(maps_[r], cmap="viridis")
            axes[row, 1 + r].set_title(f"filter turned {90 * r}°", fontsize=9)
    for ax in axes.flat:
        ax.set(xticks=[], yticks=[])


def draw_rotation_curves(ax, angles, curves: dict, n_digits: int) -> None:
    """10 §4: each model's accuracy (``curves``: name -> % per angle) on ``n_digits`` test
    digits turned by ``angles``, the quarter turns marked."""
    for name, curve in curves.items():
        ax.plot(angles, curve, "o-", ms=3, color=model_colour(name), label=f"{name}, seed 0")
    for a in (90, 180, 270):
        ax.axvline(a, color="0.85", zorder=0)
    ax.set(xticks=range(0, 361, 45), xlabel="test digits turned by (°)", ylim=(0, 100),
           ylabel=f"accuracy (%), {n_digits:,} digits", title="trained on upright digits only")
    ax.legend()

"""What turns with the input and what does not (invariance and equivariance): a hand-built
capsule's angle and a pooled match against the input's angle (02), face rates and face scores of
turned faces (01, 07), the poses a pose-capsule model reads off a turning face (07, 10), a
CapsNet's digit capsule as its digit turns (10), accuracy on turned digits (10), and the figure of
10's widget (``rotation_figure``).
"""

from typing import Annotated

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure, FigureBase

from ..capsule_vectors import read_pose
from ..checks import check_one_each, check_same
from ..course_settings import MAX_SIDE, MIN_SIDE
from ..data import faces
from ..parts.pose_net import RotationSweep
from ..parts.scoring import AngleCurves
from ..poses import wrap_angle
from ..units import InDegrees, InPercent
from ..validate import Array, Float, Instances, Int, Numbers, Record, Some, Tensor, checked
from .canvas import FlatAxes, check_distinct_axes
from .capsule_poses import draw_vector
from .colours import PART_COLORS, model_colour, model_kind

MAX_SHOWN = 24  # draw_turned_capsules' images: one panel each, in a row
FACES_SHOWN = 8  # draw_face_sweep's turned faces: two rows of four panels

Angles = Annotated[Numbers("the angles turned by, degrees [n]", ndim=1), InDegrees]
PerDigit = Numbers("one number per digit and angle [digits, angles]", ndim=2)


# each model's accuracy in % on digits turned by each angle, name -> [angles]
RotationCurves = Annotated[dict[str, Annotated[Numbers(
    "accuracies in %, one per angle [n]", ndim=1, ge=0, le=100), InPercent]],
    Some]


def _per_angle(meaning: str):
    """One number per input angle ``[n]``, a tensor (notebook 02's readouts)."""
    return Tensor(meaning, ndim=1, finite=True)


# the input angles of a sweep, a tensor in degrees: radians (linspace(0, pi, 8)) refused, which
# an axis of degrees would squeeze into its first few
InputAngles = Annotated[_per_angle("input angles in degrees [n]"), InDegrees]


@checked
def draw_rotation_readouts(fig: FigureBase, input_angles: InputAngles,
                           cnn_unit: _per_angle("one upright filter's best match [n]"),
                           pooled: _per_angle("the bank's pooled match [n]"),
                           error: _per_angle("the capsule's angle minus the input angle [n]")
                           ) -> None:
    """Notebook 02's three panels against the input angle ``[n]``: (a) one upright filter's and
    (b) the bank's pooled match ``[n]``; (c) the capsule's angle, the input angle plus its
    ``error`` ``[n]``, against perfect equivariance; and the error alone, magnified."""
    check_same("draw_rotation_readouts", "length", "pass one value of each per input angle",
               input_angles=len(input_angles), cnn_unit=len(cnn_unit), pooled=len(pooled),
               error=len(error))
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


@checked
def draw_turned_capsules(fig: FigureBase,
                         images: Tensor("images [N, 1, H, W], pixels in [0, 1]", ndim=4,
                                        pixels=True),
                         input_angles: InputAngles,
                         capsules: Tensor("their 2-D capsules [N, 2]", ndim=2, finite=True,
                                          sizes={1: 2}),
                         n_shown: Int("images shown", ge=1, le=MAX_SHOWN) = 6) -> None:
    """Top row: ``n_shown`` evenly spaced of the ``images`` ``[N, 1, H, W]`` at ``input_angles``
    ``[N]``; bottom row: each image's 2-D capsule of ``capsules`` ``[N, 2]`` as an arrow, titled
    with the angle and length read from it."""
    check_same("draw_turned_capsules", "length, one per image", "pass the angle and the capsule "
               "of each image", images=len(images), input_angles=len(input_angles),
               capsules=len(capsules))
    if n_shown > len(input_angles):
        raise ValueError(f"draw_turned_capsules(): n_shown must be at most the {len(input_angles)} "
                         f"images given, got {n_shown}; pass fewer")
    if (longest := capsules.double().norm(dim=-1).max()) > 1 + 1e-6:  # a length: a presence
        raise ValueError(f"draw_turned_capsules(): capsules must be of length at most 1 (each "
                         f"length is the presence drawn, a probability), got length "
                         f"{longest.item():.4g}; squash them first: squash(capsules)")
    presence, estimated = read_pose(capsules)
    shown = range(0, len(input_angles), len(input_angles) // n_shown)
    axes = fig.subplots(2, len(shown), squeeze=False)
    for i, ax_img, ax_v in zip(shown, *axes, strict=True):
        ax_img.imshow(images[i, 0], cmap="gray")
        ax_img.set(xticks=[], yticks=[], title=f"input at {input_angles[i]:.0f}°")
        draw_vector(ax_v, *capsules[i].tolist(), color="tab:red")
        ax_v.set_title(f"capsule: {estimated[i] % 360:.0f}°\nlength {presence[i]:.2f}",
                       fontsize=10)


@checked
def draw_angle_curves(ax: FlatAxes, curves: AngleCurves) -> None:
    """Face rate against how far the face is turned, one line per model: ``curves`` maps a name
    to ``(centres [bins], rates [bins])`` (``parts.scoring.mean_face_rate_by_angle``); the
    training range (±15°) shaded."""
    for name, (centres, rates) in curves.items():
        ax.plot(centres, rates, marker="o", label=name)
    ax.axvspan(0, 15, color="0.9", label="training faces (±15°)")
    ax.set(xlabel="|face angle| (degrees)", ylabel="face rate", ylim=(-0.05, 1.05))
    ax.legend(fontsize="small")


@checked
def draw_rotation_sweep(ax: FlatAxes, sweep: Record(RotationSweep)) -> None:
    """The angles a pose-capsule model reads off a turning face (``sweep``: a
    ``pose_net.RotationSweep``, its ``angles``, ``part_angles`` and ``face_angle``):
    each part's as dots in its colour, the face capsule's as a line, each taken to the turn's
    side of 360°, against the turn."""
    angles = sweep.angles
    for k, kind in enumerate(faces.PART_KINDS):
        ax.plot(angles, angles + wrap_angle(sweep.part_angles[:, k] - angles), ".",
                color=PART_COLORS[kind], label=kind)
    ax.plot(angles, angles + wrap_angle(sweep.face_angle - angles), "k-", lw=1,
            label="face capsule")
    ax.set(xlabel="face turned by (°)", ylabel="angle read by the model (°)",
           title="poses turn with the face")
    ax.legend(fontsize="small")


@checked
def draw_turned_scores(ax: FlatAxes, angles: Angles, scores: Annotated[dict[str, Numbers(
        "(score [n], cut [n]), as scoring.turned_face_scores gives them",
        shape=(2, None), ge=0, le=1, fix="pass the pair turned_face_scores gives")], Some]
                       ) -> None:
    """Each model's score for "face" against the turn of the face, and dotted in the same
    colour where it cuts (``scores``: name -> (score, cut), ``scoring.turned_face_scores``)."""
    for name, pair in scores.items():
        check_same("draw_turned_scores", "length", "pass one score and one cut per angle",
                   angles=len(angles), **{f"scores[{name!r}]": pair.shape[1]})
    for name, (score, cut) in scores.items():
        (line,) = ax.plot(angles, score, ".-", label=name)
        ax.plot(angles, cut, ":", color=line.get_color(), lw=1)
    ax.set(xlabel="face turned by (°)", ylabel="score for face (dotted: its cut)", ylim=(0, 1.05),
           title="the verdict stays (or not)")
    ax.legend(fontsize="x-small", loc="center left", bbox_to_anchor=(1.01, 0.5))


@checked
def draw_face_sweep(fig: FigureBase,
                    face_angles: Array("the angles the face was turned by, degrees [n]", ndim=1),
                    sweep: Record(RotationSweep), slope: Float("the fitted line's slope"),
                    shown: tuple[Int("an angle of face_angles to show, in degrees"), ...]
                    | list[Int("an angle of face_angles to show, in degrees")]
                    = (0, 45, 90, 135, 180, 225, 270, 315)) -> None:
    """10 §2: the pose capsules' face angle (``sweep``: a ``pose_net.RotationSweep``, its
    ``face_angle`` and ``images``) against the angle the face was turned by, with the fitted
    line of ``slope``, and the faces turned by the ``shown`` angles (at most 8, each one of
    ``face_angles``), each titled with the angle read."""
    if face_angles.shape != sweep.angles.shape or not np.allclose(face_angles, sweep.angles):
        raise ValueError(f"draw_face_sweep(): face_angles must be the angles sweep turned the face "
                         f"by ({len(sweep.angles)}: {sweep.angles[:3].tolist()}...), got "
                         f"{len(face_angles)}: {face_angles[:3].tolist()}...; pass sweep.angles")
    missing = [a for a in shown if not np.any(face_angles == a)]
    if len(shown) > FACES_SHOWN or missing:
        raise ValueError(f"draw_face_sweep(): shown must be at most {FACES_SHOWN} angles of "
                         f"face_angles, got {list(shown)}" + (f" ({missing} not among them)"
                                                              if missing else "")
                         + "; pass fewer, or angles the face was turned by")
    grid = fig.add_gridspec(2, 6, width_ratios=[2.6, 0.2, 1, 1, 1, 1])
    ax = fig.add_subplot(grid[:, 0])
    read = np.unwrap(sweep.face_angle, period=360)
    ax.plot(face_angles, read, "o", ms=4, label="face capsule reads")
    # the line of the fitted slope through the first point
    ax.plot(face_angles, slope * face_angles + read[0] - slope * face_angles[0],
            "k-", lw=1, label=f"fitted line, slope {slope:.2f}")
    ax.set(xlabel="face turned by (°)", ylabel="angle read (°, unwrapped)")
    ax.legend(fontsize="small")
    for k, a in enumerate(shown):
        i = int(np.flatnonzero(face_angles == a)[0])
        sub = fig.add_subplot(grid[k // 4, 2 + k % 4])
        sub.imshow(sweep.images[i], cmap="gray_r")
        sub.set(xticks=[], yticks=[])
        sub.set_title(f"{a}° -> {sweep.face_angle[i]:.0f}°", fontsize=8)


@checked
def draw_capsule_under_rotation(axes: Instances(Axes, "three axes"), angles: Angles,
                                lengths: PerDigit, cosines: PerDigit,
                                v: Numbers("one digit's capsule at each angle [angles, dims]",
                                           ndim=2),
                                title: str) -> None:
    """10 §2, on three axes: each digit's true capsule's length and its cosine with the upright
    capsule (``lengths``, ``cosines`` [digits, angles]) against the angle the digit was turned
    by, with their means, and one digit's capsule ``v`` [angles, 16] as a heatmap titled
    ``title``."""
    check_one_each("draw_capsule_under_rotation", "axes", axes, 3, "panel (lengths, cosines, v)")
    check_distinct_axes("draw_capsule_under_rotation", axes=axes)
    check_same("draw_capsule_under_rotation", "number", "pass one column per angle",
               angles=len(angles), **{"lengths' columns": lengths.shape[1],
                                      "cosines' columns": cosines.shape[1], "v's rows": len(v)})
    check_same("draw_capsule_under_rotation", "number", "pass both for the same digits",
               **{"lengths' rows": len(lengths), "cosines' rows": len(cosines)})
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


@checked
def draw_rotation_curves(ax: FlatAxes, angles: Angles, curves: RotationCurves,
                         n_digits: Int("test digits each accuracy was measured on", ge=1)
                         ) -> None:
    """10 §4: each model's accuracy (``curves``: name -> % per angle) on ``n_digits`` test
    digits turned by ``angles``, the quarter turns marked."""
    for name, curve in curves.items():
        check_same("draw_rotation_curves", "length", "pass one accuracy per angle",
                   angles=len(angles), **{f"curves[{name!r}]": len(curve)})
        if model_kind(name) is None:  # its colour says the model's kind
            raise ValueError(f"draw_rotation_curves(): curves must be keyed by names that say the "
                             f"model's kind (capsnet, cnn, gcnn or vit: its colour), got {name!r};"
                             " key each by its checkpoint's name, e.g. 'affnist-capsnet'")
    for name, curve in curves.items():
        ax.plot(angles, curve, "o-", ms=3, color=model_colour(name), label=f"{name}, seed 0")
    for a in (90, 180, 270):
        ax.axvline(a, color="0.85", zorder=0)
    ax.set(xticks=range(0, 361, 45), xlabel="test digits turned by (°)", ylim=(0, 100),
           ylabel=f"accuracy (%), {n_digits:,} digits", title="trained on upright digits only")
    ax.legend()


@checked
def rotation_figure(face_size: Int("the face image's side in pixels", ge=MIN_SIDE, le=MAX_SIDE)
                    | None = None):
    """The figure of notebook 10's widget: what both models see (and, with a ``face_size``, the
    turned face of notebook 07's world), four feature maps of the G-CNN (one channel, one map
    per rotation) above four of the CNN, and each model's softmax probability per class.

    Returns ``(figure, panels, maps, bars)``: ``panels`` maps "digit" (and "face") to its image,
    ``maps`` maps "gcnn" and "cnn" to their four images, ``bars`` holds the two bar containers
    (G-CNN, CNN) that ``model_scores.update_class_bars`` updates; with a face, ``panels["arrow"]``
    is the line that shows the face capsule's angle."""
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

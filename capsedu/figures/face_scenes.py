"""The faces world's scenes and the parts in them: example images of every kind (01), rendered
parts with the "ghost" faces each part predicts (04, and 04's and 07's widgets through
``ghost_lines``), how far two pose-cell codes agree (04), the parts a detector finds (07), and a
pose-capsule model's votes and couplings on one scene (07).

The parts' colours are ``colours.PART_COLORS``.
"""

from typing import Annotated

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import FigureBase
from matplotlib.lines import Line2D
from pydantic import AfterValidator

from ..checks import check_input
from ..course_settings import Checked, Pictures, Seed
from ..data import faces, sprites
from ..data.sprites import Parts, Side
from ..parts.detector import PartDetector
from ..parts.pose_net import PoseCapsuleNet
from ..parts.voting import PARENTS, _face_poses, _pose_code, _predict_face
from ..refusals import kind_of
from ..units import InDegrees
from ..validate import Choice, Float, Int, Numbers, Some, Tensor, checked
from .canvas import FlatAxes, check_distinct_axes
from .colours import PART_COLORS
from .routing_couplings import draw_coupling_heatmap

MAX_PER_KIND = 32  # draw_kinds' images per kind: one panel each, in a row

Kind = Choice("a kind of image", *faces.KINDS)


def _face_pose(pose: np.ndarray) -> np.ndarray:
    """Refuse a ghost face of no size: a scale of 0 or less draws no face."""
    if pose[3] <= 0:
        raise ValueError(f"must have a scale > 0 (the last of x, y, angle, scale), got "
                         f"{pose[3]:g}; pass the pose predict_face gives")
    return pose


# the ghost faces the parts predict, part kind -> face pose (x, y, angle, scale) (predict_face)
Ghosts = dict[faces.PartKind, Annotated[
    Numbers("a face pose (x, y, angle, scale)", shape=(4,), fix="pass the pose predict_face "
            "gives"), AfterValidator(_face_pose)]]


def _face_scene(scene, name: str) -> list:
    """A scene whose every part predicts a ghost face: parts of ``faces.PART_KINDS`` (a ``Part``
    or a tuple (kind, x, y, angle, scale)), handed on as ``Part``s."""
    if not isinstance(scene, list | tuple):
        raise TypeError(f"{name} must be a scene, a list of face parts, got "
                        f"{kind_of(scene)[:60]}; pass e.g. faces.face_parts()")
    parts = []
    for i, p in enumerate(scene):
        try:
            part, error = sprites.as_part(p), ValueError  # a part, of a kind that is no face's?
        except (TypeError, ValueError) as err:
            part, error = None, type(err)
        if part is None or part.kind not in faces.PART_KINDS:
            raise error(f"{name} must be a scene of face parts (a Part or a tuple (kind, x, y, "
                        f"angle, scale) of {faces.PART_KINDS}), its item {i} is "
                        f"{kind_of(p)[:60]}; pass e.g. faces.face_parts()")
        parts.append(part)
    return parts


@checked
def ghost_lines(ghosts: Ghosts) -> tuple[list, list]:
    """The line segments ``[n, 2, 2]`` of ghost faces and one colour per segment: ``ghosts``
    maps a part kind to the face pose (x, y, angle, scale) it predicts."""
    segments, colors = [], []
    for kind, pose in ghosts.items():
        lines = sprites.segments(faces._face_parts(*pose)).reshape(-1, 2, 2)  # a reading
        segments.extend(lines)
        colors += [PART_COLORS[kind]] * len(lines)
    return segments, colors


@checked
def draw_scene(ax: FlatAxes, parts: Parts, size: Side = 96, ghosts: Ghosts | None = None):
    """The rendered parts (grey) and, optionally, ghost faces: ``ghosts`` maps a part kind to the
    face pose (x, y, angle, scale) it predicts, drawn as a face outline in that part's colour."""
    ax.imshow(sprites.render(parts, size=size), cmap="gray", extent=(0, 1, 1, 0), vmin=0, vmax=1,
              interpolation="nearest")
    segments, colors = ghost_lines(ghosts or {})
    ax.add_collection(LineCollection(segments, colors=colors, alpha=0.6, lw=1.5))
    for kind, pose in (ghosts or {}).items():
        ax.plot(pose[0], pose[1], "+", color=PART_COLORS[kind], ms=10, mew=2)
    ax.set(xlim=(0, 1), ylim=(1, 0), xticks=[], yticks=[])


@checked
def draw_detections(ax: FlatAxes, image: Pictures("an image [H, W]", ndim=2),
                    poses: Numbers("each part's pose (x, y, angle, scale) [4, 4], a row per part "
                                   "of PART_KINDS", shape=(len(faces.PART_KINDS), 4),
                                   fix="pass the detector's poses of one image"),
                    presence: Numbers("each part's presence [4], one per part of PART_KINDS",
                                      shape=(len(faces.PART_KINDS),), ge=0, le=1,
                                      fix="pass the detector's presence of one image"),
                    threshold: Float("the presence above which a part counts as found", ge=0,
                                     le=1) = 0.5):
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


@checked
def draw_kinds(fig: FigureBase,
               kinds: Annotated[tuple[Kind, ...] | list[Kind], Some] = faces.KINDS,
               per_kind: Int("images per kind", ge=1, le=MAX_PER_KIND) = 4, seed: Seed = 0,
               size: Side = 32):
    """A grid of example images: one row per kind, ``per_kind`` images each."""
    axes = fig.subplots(len(kinds), per_kind, squeeze=False)
    for row, kind in zip(axes, kinds, strict=True):
        images = faces.dataset(kind, per_kind, seed, size)[0]
        for ax, image in zip(row, images, strict=True):
            ax.imshow(image[0], cmap="gray", vmin=0, vmax=1)
            ax.set(xticks=[], yticks=[])
        row[0].set_ylabel(kind, rotation=0, ha="right", va="center")
    return axes


@checked
def draw_ghosts(fig: FigureBase, scenes: Annotated[dict[str, Checked(
        _face_scene, "a scene of face parts", "list")], Some]):
    """One panel per scene of ``scenes`` (title -> parts): the parts and, in each part's colour,
    the face it predicts (``parts.voting.predict_face``), with a key of the part colours."""
    axes = fig.subplots(1, len(scenes), squeeze=False)[0]
    for ax, (title, scene) in zip(axes, scenes.items(), strict=True):
        draw_scene(ax, scene, ghosts={p.kind: _predict_face(p) for p in scene})
        ax.set_title(title)
    handles = [Line2D([], [], color=PART_COLORS[k], label=k) for k in faces.PART_KINDS]
    fig.legend(handles=handles, loc="lower center", ncol=4)
    return axes


@checked
def draw_code_agreement(fig: FigureBase,
                        offsets: Numbers("distances between two predictions, fractions of "
                                         "the image's width [n]", ndim=1, at_least=1, ge=-1,
                                         le=1, fix="pass fractions of the image, not pixels"),
                        angle_differences: Annotated[Numbers("angles between them in degrees "
                                                             "[m]", ndim=1, at_least=1),
                                                     InDegrees]
                        ) -> None:
    """The dot product of two pose-cell codes (``parts.voting.pose_code``) against the distance
    ``offsets`` ``[n]`` (image widths) and the angle ``angle_differences`` ``[m]`` (degrees)
    between their poses. Its own codes are made unchecked (``_pose_code``): 0.5 + offsets may
    lie off the image; one past an image width (16: pixels) is refused, as no cell's code."""
    base = _pose_code(0.5, 0.5, 0.0)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(offsets, _pose_code(0.5 + offsets, 0.5, 0.0) @ base)
    ax1.set(xlabel="distance between the two predictions\n(image widths)", ylabel="dot product")
    ax2.plot(angle_differences, _pose_code(0.5, 0.5, angle_differences) @ base)
    ax2.set(xlabel="difference between the two predicted\nangles (degrees)")
    fig.suptitle("agreement between two pose-cell codes")


@checked
def draw_detected_parts(fig: FigureBase, detector: PartDetector, examples: Annotated[dict[
        str, Tensor("one image [1, 1, H, W]", ndim=4, pixels=True, sizes={0: 1, 1: 1})], Some]
                        ) -> None:
    """One panel per named image of ``examples`` (name -> ``[1, 1, H, W]``) with the part
    capsules ``detector`` reads off it (``draw_detections``), and a legend of the parts'
    colours below."""
    for name, image in examples.items():
        check_input(image, f"draw_detected_parts(): examples[{name!r}]", detector)
    axes = fig.subplots(1, len(examples), squeeze=False)[0]
    for ax, (name, image) in zip(axes, examples.items(), strict=True):
        poses, presence = detector.detect(image)
        draw_detections(ax, image[0, 0], poses[0], presence[0])
        ax.set_title(name)
    handles = [Line2D([], [], color=PART_COLORS[k], marker="o", label=k) for k in faces.PART_KINDS]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize="small")


@checked
def draw_part_votes(ax_scene: FlatAxes, ax_c: FlatAxes, model: PoseCapsuleNet,
                    scene: Annotated[Parts, Some], title: str):
    """Render ``scene``, let the pose-capsule ``model`` detect, vote and route it, and draw the
    scene with each detected part's predicted face as a ghost (``ax_scene``) and the couplings
    part -> parent (``ax_c``, ``routing_couplings.draw_coupling_heatmap``). Returns the
    ``RoutingResult`` (couplings ``c`` ``[1, 4, 2]``, parents ``v`` ``[1, 2, D + 1]``)."""
    check_distinct_axes("draw_part_votes", ax_scene=ax_scene, ax_c=ax_c)
    x = sprites.render_many([scene])  # [1, 1, 32, 32]
    poses, _, _, routing = model.capsules(x)
    ghosts = _face_poses("predicted_faces", poses[0].double().numpy(), model.W.numpy())  # [4, 4]
    draw_scene(ax_scene, scene, size=32, ghosts=dict(zip(faces.PART_KINDS, ghosts, strict=True)))
    ax_scene.set_title(f"{title}: |v_face| = {routing.v[0, 0].norm().item():.2f}")
    draw_coupling_heatmap(ax_c, routing.c[0].numpy(), faces.PART_KINDS, PARENTS, title="c_ij")
    return routing

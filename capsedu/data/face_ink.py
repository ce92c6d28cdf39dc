"""What a face scene's ink shows a convolution (notebook 01): how far apart two parts' ink is
(``ink_gap``) and how many windows of a given side hold ink of both (``windows_holding_both``).

A unit of a stack of convolutions sees one window of the image (its receptive field). It can only
respond to how two parts meet if its window holds ink of each; pooling after it keeps *that* some
unit responded, not where. The scenes are those of ``faces`` (``sprites.Part`` lists).
"""

from typing import Annotated

import numpy as np
import torch
import torch.nn.functional as F
from pydantic import AfterValidator

from ..checks import check_different
from ..course_settings import MAX_SIDE
from ..validate import Distinct, Int, Some, Spec, checked
from .faces import _index
from .sprites import Parts, Side, render

MAX_WINDOW = 2 * MAX_SIDE + 1  # a window this wide, centred on any pixel, covers the whole image
Window = Int("a window's side in pixels (odd)", ge=1, le=MAX_WINDOW)


def _ink(parts, kind: str, size: int, where: str) -> np.ndarray:
    """``[size, size]`` bool: the pixels where part ``kind`` alone puts ink (> 0.5)."""
    return render([parts[_index(parts, kind, where)]], size) > 0.5


@checked
def ink_gap(parts: Parts, a: str, b: str, size: Side = 32) -> float:
    """Distance in pixels between the nearest inked pixels (> 0.5) of parts ``a`` and ``b``."""
    check_different("ink_gap", "the gap of a part to itself is 0", a=a, b=b)
    pa, pb = (np.argwhere(_ink(parts, kind, size, "ink_gap")) for kind in (a, b))  # [pixels, 2]
    return float(np.sqrt(((pa[:, None, :] - pb[None, :, :]) ** 2).sum(-1)).min())


@checked
def windows_holding_both(parts: Parts, a: str, b: str,
                         window: Window, size: Side = 32) -> int:
    """How many ``window`` x ``window`` squares, one centred on each pixel (the inputs of the
    units of a padded stack of convolutions with that receptive field), hold ink of both parts.
    A unit can only respond to how two parts meet if its window holds some of each."""
    return _held(parts, a, b, window, size, "windows_holding_both")


def _held(parts, a: str, b: str, window: int, size: int, where: str) -> int:
    """``windows_holding_both``, refused in the words of the entry ``where``."""
    if window % 2 == 0:
        raise ValueError(f"{where}(): window must be an odd number of pixels (a window centred on "
                         f"a pixel), got {window}; pass {window + 1}")
    check_different(where, "name two parts", a=a, b=b)
    held = []
    for kind in (a, b):
        ink = torch.from_numpy(_ink(parts, kind, size, where)).float()  # [S, S]
        # a window holds some of the part <=> the max of its ink mask over the window is 1
        held.append(F.max_pool2d(ink[None, None], window, stride=1, padding=window // 2)[0, 0])
    return int((held[0] * held[1]).sum())


def _each_pair_once(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Refuse a pair given again reversed: (a, b) and (b, a) are one gap, one line twice."""
    seen = set()
    for a, b in pairs:
        if (b, a) in seen:
            raise ValueError(f"must hold each pair once in either order, got {(a, b)!r} after "
                             f"{(b, a)!r} (the same two parts); drop one of them")
        seen.add((a, b))
    return pairs


@checked
def pair_table(parts: Parts,
               pairs: Annotated[list[Annotated[tuple[str, str], Spec(
                   "a pair (a, b) of two part names, e.g. ('nose', 'mouth')", "tuple")]], Some,
                   Distinct, AfterValidator(_each_pair_once)],
               window: Window, size: Side = 32) -> str:
    """One line per pair ``(a, b)`` of ``pairs``: how far apart the parts' ink is (``ink_gap``)
    and how many of the ``size * size`` windows of ``window`` pixels hold ink of both
    (``windows_holding_both``)."""
    lines = []
    for a, b in pairs:
        both = _held(parts, a, b, window, size, "pair_table")
        lines.append(f"{a:>9} - {b:<9}: {ink_gap(parts, a, b, size):.1f} px apart, "
                     f"{both:>2} of the {size * size} {window}x{window} windows hold ink of both")
    return "\n".join(lines)

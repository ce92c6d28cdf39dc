"""The course's colours, the same in every figure: one per face part (``PART_COLORS``: the faces
world of 01, 04 and 07 and their widgets) and one per kind of model in Part IV (``MODEL_COLOURS``,
``model_colour``: 08-10, capsules warm, convolutions cool), and the colour maps a caller names
(``ColourMap``) and colours (``Colour``).
"""

from typing import Annotated

import matplotlib
from matplotlib.colors import is_color_like
from pydantic import AfterValidator

from ..validate import checked

# One colour per face part, the same in every figure of the course.
PART_COLORS = {"left_eye": "tab:blue", "right_eye": "tab:orange", "nose": "tab:green",
               "mouth": "tab:red", "stroke": "0.6"}


# One colour per kind of model across Part IV (08-10): capsules warm, convolutions cool
MODEL_COLOURS = {"CapsNet": "tab:orange", "CapsNet, 1 iteration": "tab:red",
                 "CNN": "tab:blue", "G-CNN": "tab:green",
                 "ViT": "tab:purple", "ViT without positions": "tab:pink"}


@checked
def model_kind(name: str) -> str | None:
    """The kind of model (a key of ``MODEL_COLOURS``) a checkpoint ``name`` says it is (e.g.
    ``"affnist-capsnet-1iter"``, or 10 §8's ``"faces-vit-no-positions-seed0"``); None when it
    says none."""
    if "1iter" in name or "1 iteration" in name:
        return "CapsNet, 1 iteration"
    for word, kind in (("positions", "ViT without positions"), ("vit", "ViT"), ("gcnn", "G-CNN"),
                       ("capsnet", "CapsNet"), ("cnn", "CNN")):
        if word in name.lower().replace("-", ""):  # "G-CNN" and "rotmnist-gcnn" alike
            return kind
    return None


@checked
def model_colour(name: str) -> str:
    """The Part IV colour of a checkpoint ``name`` (``model_kind``'s)."""
    kind = model_kind(name)
    if kind is None:
        raise ValueError(f"model_colour(): name must say which kind of model it is (capsnet, cnn, "
                         f"gcnn or vit), got {name!r}, which has no Part IV colour; pass a "
                         "checkpoint's name, e.g. 'affnist-capsnet'")
    return MODEL_COLOURS[kind]


def _colour_map(name: str) -> str:
    """Refuse a name matplotlib has no colour map of (it would fail deep inside ``imshow``)."""
    if name not in matplotlib.colormaps:
        raise ValueError(f"must be the name of a matplotlib colour map (e.g. 'gray', 'viridis'), "
                         f"got {name!r}; pick one of list(matplotlib.colormaps)")
    return name


# the name of a matplotlib colour map, e.g. "gray"
ColourMap = Annotated[str, AfterValidator(_colour_map)]


def _colour(name: str) -> str:
    """Refuse a string matplotlib reads as no colour (it would fail deep inside the drawing, in
    words that name no argument)."""
    if not is_color_like(name):
        raise ValueError(f"must be a matplotlib colour (a name such as 'red' or 'tab:blue', a hex "
                         f"code such as '#3182bd', or a grey level such as '0.6'), got {name!r}; "
                         "pick one of those")
    return name


# one matplotlib colour, e.g. "tab:blue"
Colour = Annotated[str, AfterValidator(_colour)]

"""The course's colours, the same in every figure: one per face part (``PART_COLORS``: the faces
world of 01, 04 and 07 and their widgets) and one per kind of model in Part IV (``MODEL_COLOURS``,
``model_colour``: 08-10, capsules warm, convolutions cool).
"""

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
        raise KeyError(f"no Part IV colour for {name!r}: its name should say capsnet, cnn, gcnn "
                       "or vit")
    return MODEL_COLOURS[kind]

"""The checkers of reading a network: the receptive field of a stack of convolutions (notebook
01), the weights of a CapsNet's DigitCaps layer (05), the decoder's input (06, which names
masking by the prediction) and a two-digit prediction scored right (08, MultiMNIST).
"""

import torch

from ..baselines import receptive_field
from ..capsnet import CapsNet, CapsNetConfig
from ..course_settings import Checked
from ..refusals import shown
from ..validate import Function, checked
from .checking import _hint, _near, check

# --- 01 · what pooling throws away --------------------------------------------------------------


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


@checked(checker=True)
def check_receptive_field(learner: Function("your receptive_field(layers)")) -> bool | None:
    """Check ``learner(layers) -> int``: the receptive field (side, in input pixels) of a stack of
    convolutions / poolings given as ``(kernel, stride)`` pairs, input first."""
    return check("receptive field", lambda stack: learner(list(stack)), _reference_rf,
                 [(stack,) for stack in RF_STACKS], describe=lambda args: f"layers {args[0]}")


# --- 05 · CapsNet on MNIST ----------------------------------------------------------------------


@checked
def digitcaps_parameters(cfg: CapsNetConfig) -> int:
    """Reference for notebook 05's exercise: the number of W_ij weights, read off a model."""
    return CapsNet(cfg).digits.W.numel()


EXERCISE_CONFIGS = {
    "PAPER": CapsNetConfig(),
    "SMALL": CapsNetConfig(conv_channels=64, primary_maps=8),
    "16x16 images, 4 maps, 12D digits": CapsNetConfig(image_size=16, conv_kernel=5,
                                                      primary_maps=4, digit_dim=12),
    "3 classes, 4D primary capsules, stride 1": CapsNetConfig(
        n_classes=3, primary_dim=4, primary_stride=1, primary_maps=2),
    # odd sides, where a grid formula off by one pixel is not rounded away
    "27x27 images": CapsNetConfig(image_size=27, primary_maps=4),
    "29x29 images, stride 3": CapsNetConfig(image_size=29, primary_stride=3, primary_maps=4),
}


@checked(checker=True)
def check_digitcaps_parameters(learner: Function("your digitcaps_parameters(cfg)")) -> bool | None:
    """Check a learner's ``digitcaps_parameters(cfg) -> int`` on the configs above."""
    return check("digitcaps_parameters", learner, digitcaps_parameters,
                 [(cfg,) for cfg in EXERCISE_CONFIGS.values()],
                 describe=lambda args: f"{args[0].n_primary} primary capsules ({args[0]})")


# --- 06 · what the pose dimensions mean ---------------------------------------------------------


def _masked(v: torch.Tensor, classes: torch.Tensor) -> torch.Tensor:
    """Capsules ``v`` ``[B, n, d]`` with all but ``classes`` ``[B]`` zeroed, flattened
    ``[B, n * d]``: the decoder's input (the reference of ``check_decoder_input``)."""
    keep = torch.nn.functional.one_hot(classes, v.shape[1]).to(v.dtype)  # [B, n]
    return (v * keep[..., None]).flatten(1)


def _classes_to_mask(model, name: str) -> CapsNet:
    """Refuse a model of which masking cannot be checked: no CapsNet, or one of a single class,
    whose one capsule is kept by the right answer and by keeping every capsule alike."""
    if not isinstance(model, CapsNet):
        raise TypeError(f"{name} must be an instance of CapsNet, got {shown(model)}; pass the "
                        "notebook's model (made with CapsNet(...))")
    if model.config.n_classes < 2:
        raise ValueError(f"{name} must be a CapsNet of at least 2 classes, got one of "
                         f"n_classes={model.config.n_classes}: with one capsule, masking all but "
                         "the label's keeps everything, so a wrong answer would pass; pass the "
                         "notebook's 10-class model")
    return model


@checked(checker=True)
def check_decoder_input(learner: Function("your decoder_input(v, labels)"),
                        model: Checked(_classes_to_mask, "a CapsNet of at least 2 classes",
                                       "record")) -> bool | None:
    """Check a learner's ``decoder_input(v, labels)``: capsules ``v`` ``[B, 10, 16]`` with all but
    the true class ``labels`` ``[B]`` zeroed, flattened to ``[B, 160]``, as ``model``'s decoder
    takes it (``digit_capsules.decode`` masks so). In the cases the label's capsule is half as
    long as the longest, so masking by the prediction fails, and the FAIL says so."""
    g = torch.Generator().manual_seed(0)
    n, dim = model.config.n_classes, model.config.digit_dim
    cases = []
    for batch in (1, 4, 7):
        v = 0.3 * torch.randn(batch, n, dim, generator=g)
        labels = torch.randint(0, n, (batch,), generator=g)
        rows = torch.arange(batch)
        longest = v.norm(dim=-1).max(dim=1).values  # [batch]
        # the true class is never the longest capsule, whatever the model's sizes
        v[rows, labels] *= (0.5 * longest / v[rows, labels].norm(dim=-1))[:, None]
        cases.append((v, labels))
    passed = check("decoder_input", learner, _masked, cases, outputs=("the decoder's input",),
                   describe=lambda c: f"a batch of {len(c[0])} ({n} capsules of {dim} numbers "
                                      "each)")
    if passed is False:
        _hint(_decoder_input_mistake, learner, cases)
    return passed


def _decoder_input_mistake(answers: list, cases: list[tuple]) -> str | None:
    """The known mistake of the decoder's input that every answer shows, in words."""
    def every(reference) -> bool:
        return all(_near(a, reference(*case)) for a, case in zip(answers, cases, strict=True))

    if every(lambda v, labels: _masked(v, v.norm(dim=-1).argmax(dim=1))):
        return ("you kept the longest capsule, the prediction. In training the decoder is "
                "masked by the true label (Section 4.1), so it learns to redraw the digit that "
                "is there, also when the network reads it wrong.")
    if every(lambda v, labels: v.flatten(1)):
        return "every capsule is kept: zero all but the label's capsule before flattening."
    if every(lambda v, labels: _masked(v, labels).view(v.shape).transpose(1, 2).flatten(1)):
        return ("the right numbers in the wrong order: flatten [B, 10, 16] as it is (capsule by "
                "capsule), without transposing it.")
    return None


# --- 08 · viewpoint and robustness --------------------------------------------------------------


def _both_correct(predicted: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Reference for ``check_both_correct``: rows whose two classes match as a set."""
    same = predicted.sort(dim=1).values == labels.sort(dim=1).values  # [N, 2]
    return same.all(dim=1).double().mean()


@checked(checker=True)
def check_both_correct(learner: Function("your both_correct(predicted, labels)")) -> bool | None:
    """Check a learner's ``both_correct(predicted [N, 2], labels [N, 2]) -> float``: the
    fraction of MultiMNIST images whose two predicted classes are exactly the two true classes,
    in either order (the paper's Section 6 counts an image right only when both digits are)."""
    cases = [
        (torch.tensor([[3, 7], [1, 2]]), torch.tensor([[3, 7], [1, 2]])),  # all right
        (torch.tensor([[7, 3], [2, 1]]), torch.tensor([[3, 7], [1, 2]])),  # right, other order
        (torch.tensor([[3, 8], [1, 2], [4, 0]]), torch.tensor([[3, 7], [2, 1], [9, 5]])),
        (torch.tensor([[5, 6], [6, 5], [0, 1], [9, 8]]), torch.tensor([[5, 6], [5, 9], [1, 0],
                                                                       [8, 2]])),
        # one digit right in every row, in either place: no image is read right
        (torch.tensor([[1, 4], [2, 6], [8, 3]]), torch.tensor([[1, 5], [6, 3], [0, 8]])),
        (torch.tensor([[0, 9]]), torch.tensor([[9, 0]])),
        (torch.tensor([[2, 4], [4, 2], [7, 1], [1, 3], [5, 0]]),
         torch.tensor([[4, 2], [4, 7], [7, 1], [3, 9], [0, 5]])),
    ]

    return check("both_correct", learner, _both_correct, cases,
                 describe=lambda c: f"predicted={c[0].tolist()}, labels={c[1].tolist()}")

"""Exercise checkers: compare a learner's function with the reference on fixed inputs.

A checker never raises: it prints PASS or FAIL with the largest difference (or the first case it
gets wrong), or "not implemented yet" while the learner's function still raises
``NotImplementedError`` -- so a notebook with unsolved exercises still runs top to bottom. It also
returns ``True``/``False``/``None``. Every checker is ``check`` on its own cases.
"""

from collections.abc import Callable
from copy import deepcopy

import numpy as np
import torch

from .baselines import receptive_field
from .capsnet import CapsNet, CapsNetConfig
from .capsule_vectors import pose_vector
from .data.transformed_mnist import affine_matrix
from .functional import squash
from .group_conv import GroupConv, group_filters, rotate_c4
from .parts.votes import exact_transforms, predicted_faces
from .poses import pose_matrix
from .routing import dynamic_routing, routing_step


def _describe(args: tuple) -> str:
    """A case in a few words: a tensor or array by its shape, anything else as written (cut
    short), never the numbers of a whole tensor."""
    def one(a):
        if isinstance(a, (torch.Tensor, np.ndarray)):
            kind = "a tensor" if isinstance(a, torch.Tensor) else "an array"
            return f"{kind} of shape {tuple(a.shape)}"
        text = repr(a)
        return text if len(text) <= 60 else text[:57] + "..."
    return ", ".join(one(a) for a in args)


def check(name: str, learner: Callable, reference: Callable | tuple[Callable, ...],
          cases: list[tuple], atol=1e-5, describe: Callable = _describe,
          outputs: tuple[str, ...] | None = None):
    """Call ``learner(*case)`` and ``reference(*case)`` for each case and compare the results:
    a tensor, or a tuple (or list) of tensors compared element by element, within ``atol``; or an
    integer, which must be matched exactly by a whole number (``5``, ``5.0`` or a one-number
    tensor). A NumPy array or scalar, a Python number or a tensor of any float dtype, on any
    device, counts as the tensor it holds. A NaN where the reference is finite, or a complex
    number, fails at once. Where the notebook teaches more than one right answer, ``reference``
    is a tuple of them and matching any one passes.

    The learner's function gets its own copy of each case, and changing it in place is a FAIL
    (the reference gets another copy, so nothing the learner does can change what it is checked
    against). The first result off the reference is a FAIL on a few lines that names the case
    (``describe(case)``: shapes, not numbers), the result (``outputs``, e.g. ``("c", "v", "b")``,
    else its position), the element, both values and by how much they differ. An error in the
    learner's function is a FAIL; one in the checker's own code is said to be the course's,
    never the learner's."""
    references = reference if isinstance(reference, tuple) else (reference,)
    worst = 0.0
    for args in cases:
        given = deepcopy(args)  # the learner's own copy of the case
        try:
            got = learner(*given)
        except NotImplementedError:
            print(f"{name}: not implemented yet - replace the `raise NotImplementedError` line.")
            return None
        except Exception as err:  # a learner's bug is a FAIL, never a crash of the notebook
            print(f"{name}: FAIL - for {describe(args)} it raised {type(err).__name__}: {err}")
            return False
        changed = _changed(args, given)
        if changed:
            print(f"{name}: FAIL - for {describe(args)} your function changed its input "
                  f"({changed}) in place. Leave the inputs as they are: work on a copy "
                  "(x = x.clone()) or with operations that return new tensors (x = x / n, "
                  "not x /= n).")
            return False
        try:
            verdicts = [_compare(name, got, ref(*deepcopy(args)), describe(args), atol,
                                 outputs) for ref in references]
        except Exception as err:  # the reference or the comparison: the course's bug
            print(f"{name}: the checker itself failed ({type(err).__name__}: {err}); this is a "
                  "bug of the course, not of your answer: please report it")
            return None
        passing = [off for verdict, off in verdicts if not verdict]
        if not passing:
            print(verdicts[0][0])  # measured against the first (the main) reference
            return False
        worst = max(worst, min(passing))
    print(f"{name}: PASS (largest difference {worst:.2e} on {len(cases)} cases)")
    return True


def _changed(args: tuple, given: tuple) -> str:
    """Which of the learner's copies ``given`` of the case ``args`` no longer equals its
    original ("argument 2"), or "" when none changed."""
    def same(a, g) -> bool:
        if isinstance(a, torch.Tensor):  # equal element by element, NaN where NaN was
            return (isinstance(g, torch.Tensor) and a.shape == g.shape and a.dtype == g.dtype
                    and bool(((a == g) | (a.isnan() & g.isnan())).all()))
        if isinstance(a, np.ndarray):
            return isinstance(g, np.ndarray) and np.array_equal(a, g, equal_nan=a.dtype.kind == "f")
        if isinstance(a, (list, tuple)):
            return (type(a) is type(g) and len(a) == len(g)
                    and all(same(x, y) for x, y in zip(a, g, strict=True)))
        return True  # numbers, configs and the like cannot be changed in place
    return next((f"argument {k}" for k, (a, g) in enumerate(zip(args, given, strict=True), 1)
                 if not same(a, g)), "")


def _as_tensor(value):
    """A learner's result as a CPU tensor: a tensor on any device, a NumPy array or scalar, a
    Python number or a list of numbers (``None`` for anything else)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, bool):
        return None
    if isinstance(value, (np.ndarray, np.generic, float, int, complex, list)):
        try:
            return torch.as_tensor(np.asarray(value))
        except (TypeError, ValueError, RuntimeError):  # a list of things that are not numbers
            return None
    return None


def _compare(name, got, want, case: str, atol: float, outputs) -> tuple[str, float]:
    """``(fail message or "", largest difference)`` of a learner's result ``got`` against the
    reference's ``want`` on one case (``check``)."""
    if isinstance(want, int):
        if _same_whole_number(got, want):
            return "", 0.0
        return f"{name}: FAIL - for {case} the answer is {want:,}, you returned {got!r}.", 0.0
    wants = want if isinstance(want, tuple) else (want,)
    gots = tuple(got) if isinstance(got, (tuple, list)) and len(wants) > 1 else (
        got if isinstance(got, tuple) else (got,))
    if len(gots) != len(wants):
        return f"{name}: FAIL - expected {len(wants)} result(s), got {len(gots)}.", 0.0
    worst = 0.0
    for k, (g, w) in enumerate(zip(gots, wants, strict=True)):
        which = (f"{outputs[k]}" if outputs else f"result {k + 1}" if len(wants) > 1
                 else "the result")
        tensor = _as_tensor(g)
        if tensor is None or tensor.shape != w.shape:
            shape = tuple(tensor.shape) if tensor is not None else type(g).__name__
            return (f"{name}: FAIL - for {case}, {which}: expected a tensor of shape "
                    f"{tuple(w.shape)}, got {shape}."), 0.0
        if tensor.is_complex():
            return (f"{name}: FAIL - for {case}, {which} holds complex numbers; the answer is "
                    "real. Look for a square root or a power of a negative number."), 0.0
        g64, w64 = tensor.double(), w.detach().cpu().double()
        if (g64.isnan() & ~w64.isnan()).any():
            return (f"{name}: FAIL - for {case} your result contains NaN where the reference "
                    f"is finite ({which}, element {_element(g64.isnan() & ~w64.isnan())}). "
                    "Look for 0 / 0 or the square root of a negative number."), 0.0
        diff = (g64 - w64).abs().nan_to_num(float("inf"))
        if diff.numel() and diff.max() > atol:
            at = _element(diff == diff.max())
            index = tuple(int(i) for i in at) if at else ()
            return (f"{name}: FAIL - for {case}, {which} at element {list(index)}: you returned "
                    f"{float(g64[index]):.6g}, the reference gives {float(w64[index]):.6g} "
                    f"(off by {float(diff[index]):.3g}; allowed {atol:g})."), 0.0
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
    return "", worst


def _hint(find: Callable, learner: Callable, cases: list[tuple]) -> None:
    """After a FAIL, print the known mistake ``find(answers, cases)`` names in the learner's
    answers on ``cases`` (each a tuple of tensors, or one tensor, as ``_as_tensor`` makes them),
    if it names one. Finding it never fails the notebook: answers it cannot read say nothing."""
    try:
        with torch.no_grad():
            answers = [learner(*deepcopy(case)) for case in cases]
        answers = [tuple(_as_tensor(x) for x in a) if isinstance(a, (tuple, list))
                   else _as_tensor(a) for a in answers]
        mistake = find(answers, cases)
    except Exception:  # check has already reported what the answers do wrong
        return
    if mistake:
        print(f"  What to look at: {mistake}")


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Two results equal to the checkers' tolerance (in float64, on the CPU)."""
    return (a is not None and a.shape == b.shape
            and torch.allclose(a.double(), b.detach().cpu().double(), rtol=1e-4, atol=1e-5))


def _element(mask: torch.Tensor) -> list[int]:
    """The index of the first true element of ``mask``."""
    return [int(i) for i in mask.nonzero()[0]] if mask.ndim else []


def _same_whole_number(got, want: int) -> bool:
    """``got`` is the whole number ``want``: an integer, a float with no fractional part, or a
    tensor or array holding one such number."""
    if isinstance(got, torch.Tensor) and got.numel() == 1 and got.dtype != torch.bool:
        got = got.item()
    elif isinstance(got, np.ndarray) and got.size == 1 and got.dtype.kind != "b":
        got = got.item()
    if isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
        return False
    return float(got).is_integer() and int(got) == want


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


def check_receptive_field(learner) -> bool | None:
    """Check ``learner(layers) -> int``: the receptive field (side, in input pixels) of a stack of
    convolutions / poolings given as ``(kernel, stride)`` pairs, input first."""
    return check("receptive field", lambda stack: learner(list(stack)), _reference_rf,
                 [(stack,) for stack in RF_STACKS], describe=lambda args: f"layers {args[0]}")


# --- 02 · capsules: vectors, not scalars --------------------------------------------------------


def check_pose_vector(learner) -> bool | None:
    """Check a learner's ``pose_vector(angle, presence)`` (tensors ``[n]`` -> ``[n, 2]``)."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.tensor([45.0]), torch.tensor([0.3])),
             (torch.tensor([0.0, 90.0, 180.0, 270.0]), torch.tensor([1.0, 0.5, 0.25, 0.0])),
             (360 * torch.rand(8, generator=g) - 180, torch.rand(8, generator=g))]
    return check("pose_vector", learner, pose_vector, cases)


# --- 03 · squash, 04 · routing ------------------------------------------------------------------


def check_squash(learner: Callable) -> bool | None:
    """Check a learner's ``squash(s)`` (Eq. 1 along the last dim) on batches and at s = 0: first
    its values, then its gradient, which must be finite at s = 0 too (notebook 03, section 4)."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(4, 8, generator=g),), (3 * torch.randn(2, 5, 16, generator=g),),
             (torch.zeros(3, 8),), (torch.tensor([[3.0, 4.0]]),)]
    describe = lambda args: ("s = 0" if not args[0].any() else f"s of shape {tuple(args[0].shape)}")
    values = check("squash", learner, squash, cases, describe=describe)
    if not values:
        return values
    return check("squash's gradient", lambda s: _squash_gradient(learner, s),
                 lambda s: _squash_gradient(squash, s), cases, describe=describe)


def _squash_gradient(fn: Callable, s: torch.Tensor) -> torch.Tensor:
    """d(sum of v * w)/ds for v = fn(s) and fixed weights w: the gradient training would see."""
    s = s.detach().requires_grad_(True)
    w = torch.linspace(-1, 1, s.numel()).view(s.shape)  # weighs every output differently
    v = fn(s)
    if not isinstance(v, torch.Tensor):
        raise TypeError(f"it returned a {type(v).__name__}, and no gradient flows through "
                        "NumPy: write squash with torch operations so that training can "
                        "differentiate it")
    (grad,) = torch.autograd.grad((v * w).sum(), s, allow_unused=True)
    return torch.zeros_like(s) if grad is None else grad


def check_routing_step(learner: Callable) -> bool | None:
    """Check a learner's ``routing_step(u_hat, b) -> (c, v, b_new)``: one iteration of
    Procedure 1 with u_hat ``[batch, n_in, n_out, d]`` and logits b ``[batch, n_in, n_out]``."""
    g = torch.Generator().manual_seed(0)
    cases = [(torch.randn(2, 6, 3, 4, generator=g), torch.zeros(2, 6, 3)),
             (torch.randn(1, 5, 4, 8, generator=g), torch.randn(1, 5, 4, generator=g)),
             (torch.randn(3, 4, 2, 16, generator=g), 2 * torch.randn(3, 4, 2, generator=g))]
    passed = check("routing_step", learner, routing_step, cases, outputs=("c", "v", "b"),
                   describe=lambda c: f"u_hat of shape {tuple(c[0].shape)}, b of shape "
                                      f"{tuple(c[1].shape)}")
    if passed is False:
        _hint(_routing_step_mistake, learner, cases)
    return passed


def _routing_step_mistake(answers: list, cases: list[tuple]) -> str | None:
    """The known mistake of one routing step that the learner's ``(c, v, b)`` answers show on
    every case, in words (notebook 04, section 6, features the first)."""
    def every(test) -> bool:
        return all(test(answer, case) for answer, case in zip(answers, cases, strict=True))

    if not every(lambda a, case: isinstance(a, tuple) and len(a) == 3):
        return None
    if every(lambda a, case: _close(a[0].sum(dim=1), torch.ones(a[0].shape[0], a[0].shape[2]))
             and not _close(a[0].sum(dim=2), torch.ones(a[0].shape[:2]))):
        return ("your couplings sum to 1 over the children i (dim 1): the softmax runs over the "
                "wrong axis, the bug of notebook 04, section 6. Each child shares one vote among "
                "its parents: c_i = softmax(b_i) over the parents j, dim 2.")
    if not every(lambda a, case: _close(a[0], torch.softmax(case[1], dim=2))):
        return "c = softmax(b) over the parents (dim 2), computed from the b you were given."
    s = lambda case: torch.einsum("bij,bijd->bjd", torch.softmax(case[1], dim=2), case[0])
    if every(lambda a, case: _close(a[1], s(case))):
        return "v = s: the squash of Eq. 1, v_j = squash(s_j), is missing."
    if not every(lambda a, case: _close(a[1], squash(s(case)))):
        return ("v_j = squash(s_j) with s_j = sum_i c_ij u_hat_j|i: sum the predictions over the "
                "children i (dim 1), weighted by c.")
    agreement = lambda a, case: torch.einsum("bijd,bjd->bij", case[0], a[1].to(case[0].dtype))
    if every(lambda a, case: _close(a[2], agreement(a, case))):
        return ("your new b is the agreement alone: b must accumulate, b_ij <- b_ij + "
                "u_hat_j|i . v_j (the first case starts from b = 0, where this goes unseen).")
    return None


# --- 05 · CapsNet on MNIST ----------------------------------------------------------------------


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


def check_digitcaps_parameters(learner: Callable[[CapsNetConfig], int]) -> bool | None:
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


def check_decoder_input(learner: Callable, model: CapsNet) -> bool | None:
    """Check a learner's ``decoder_input(v, labels)``: capsules ``v`` ``[B, 10, 16]`` with all but
    the true class ``labels`` ``[B]`` zeroed, flattened to ``[B, 160]``, as ``model``'s decoder
    takes it (``digit_capsules.decode`` masks so). In the cases the label is never the longest
    capsule, so masking by the prediction fails, and the FAIL says so."""
    g = torch.Generator().manual_seed(0)
    n, dim = model.config.n_classes, model.config.digit_dim
    cases = []
    for batch in (1, 4, 7):
        v = 0.3 * torch.randn(batch, n, dim, generator=g)
        labels = torch.randint(0, n, (batch,), generator=g)
        v[torch.arange(batch), labels] *= 0.5  # the true class is not the longest capsule
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
        return all(_close(a, reference(*case)) for a, case in zip(answers, cases, strict=True))

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


# --- 07 · faces: parts vote for wholes ----------------------------------------------------------


def _face_vote(poses, W):
    """Reference for ``check_face_vote``: P W read back as (x, y, angle, scale) ``[N, 4]``."""
    return torch.from_numpy(predicted_faces(poses.numpy(), W.numpy()))


def check_face_vote(learner: Callable) -> bool | None:
    """Check a learner's ``face_vote(poses, W) -> [N, 4]``: the face pose (x, y, angle in
    (-180, 180], scale) that parts with poses ``[N, 4]`` (x, y, angle in degrees, scale) predict
    through one part-to-face transform W ``[3, 3]``: P_face|i = P_i W_i (notebook 07)."""
    g = torch.Generator().manual_seed(0)
    low, high = torch.tensor([0.1, 0.1, -180.0, 0.8]), torch.tensor([0.9, 0.9, 180.0, 1.2])
    poses = [(low + (high - low) * torch.rand(n, 4, generator=g)).double() for n in (5, 12)]
    W = torch.from_numpy(exact_transforms())
    # a part-to-face transform of another face: a pose matrix too (a turn, a scale, a shift)
    other = torch.from_numpy(pose_matrix(0.05, -0.1, 30.0, 1.2))
    cases = [(poses[0], W[0]), (poses[1], W[3]), (poses[1], other)]
    return check("face_vote", learner, _face_vote, cases)


def _fit_transform(P, F):
    """Reference for ``check_fit_transform``: least squares over the stacked equations P W = F."""
    return torch.linalg.lstsq(P.reshape(-1, 3), F.reshape(-1, 3)).solution


def _fit_pose_transform(P, F):
    """The other right answer, the fit of 07 section 3 (``pose_net.fit_transforms``): the same
    least squares with W's last row held at (0, 0, 1), as in every pose matrix. The top two rows
    of P W = F read A W_top = B with A = P[:2, :2] and B = F[:2] - P[:2, 2] (0, 0, 1)."""
    A = P[:, :2, :2].reshape(-1, 2)  # [2N, 2]
    B = (F[:, :2] - P[:, :2, 2:3] * torch.tensor([0.0, 0.0, 1.0], dtype=P.dtype)).reshape(-1, 3)
    top = torch.linalg.lstsq(A, B).solution  # [2, 3]
    return torch.cat([top, torch.tensor([[0.0, 0.0, 1.0]], dtype=P.dtype)])


def check_fit_transform(learner: Callable) -> bool | None:
    """Check a learner's ``fit_transform(P, F) -> W [3, 3]``: the W that best maps part pose
    matrices ``P [N, 3, 3]`` onto face pose matrices ``F [N, 3, 3]``: the least-squares solution
    of all N equations P W = F stacked (3N rows), with W free or, as notebook 07 fits it, with
    its last row held at (0, 0, 1): either passes. The faces are noisy, like detected ones, so
    solving one equation alone, or averaging per-face solutions, is not the answer."""
    g = torch.Generator().manual_seed(1)
    cases = []
    for n, kind in ((3, 0), (20, 3)):
        pose = torch.rand(4, n, generator=g).double() * torch.tensor([[0.8], [0.8], [360], [0.4]])
        pose += torch.tensor([[0.1], [0.1], [-180], [0.8]])
        P = torch.from_numpy(pose_matrix(*pose.numpy()))  # [n, 3, 3]
        F = P @ torch.from_numpy(exact_transforms()[kind])
        F[:, :2] += 0.01 * torch.randn(n, 2, 3, generator=g).double()  # noise in the top rows
        cases.append((P, F))
    return check("fit_transform", learner, (_fit_transform, _fit_pose_transform), cases,
                 atol=1e-6)


# --- 08 · viewpoint and robustness --------------------------------------------------------------


def check_affine_matrix(learner: Callable) -> bool | None:
    """Check a learner's ``affine_matrix(rotation, shear, scale_x, scale_y) -> [2, 2]``: the
    linear part of an affNIST-style map in pixel coordinates (y down), A = R(rotation) Sh(shear)
    S(scale_x, scale_y) with the rotation in degrees, counter-clockwise on screen
    (``transformed_mnist.affine_matrix``)."""
    cases = [(0.0, 0.0, 1.0, 1.0), (90.0, 0.0, 1.0, 1.0), (30.0, 0.0, 1.0, 1.0),
             (0.0, 0.2, 1.0, 1.0), (0.0, 0.0, 0.8, 1.2), (-20.0, 0.15, 1.1, 0.9),
             (45.0, -0.3, 0.7, 1.3)]

    def reference(rotation, shear, scale_x, scale_y):
        return affine_matrix(rotation, shear, scale_x, scale_y).double()

    def as_matrix(*case):
        return torch.as_tensor(learner(*case), dtype=torch.float64)

    return check("affine_matrix", as_matrix, reference, cases, atol=1e-5,
                 describe=lambda c: "rotation={}, shear={}, scale_x={}, scale_y={}".format(*c))


def _both_correct(predicted: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Reference for ``check_both_correct``: rows whose two classes match as a set."""
    same = predicted.sort(dim=1).values == labels.sort(dim=1).values  # [N, 2]
    return same.all(dim=1).double().mean()


def check_both_correct(learner: Callable) -> bool | None:
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

    def as_number(predicted, labels):
        return torch.as_tensor(learner(predicted, labels), dtype=torch.float64)

    return check("both_correct", as_number, _both_correct, cases,
                 describe=lambda c: f"predicted={c[0].tolist()}, labels={c[1].tolist()}")


# --- 09 · routing under the microscope ----------------------------------------------------------


def _routing_cases() -> list[tuple]:
    """Predictions u_hat ``[batch, n_in, n_out, d]`` and an iteration count: several examples a
    batch, 1 to 5 iterations (replacing b instead of adding to it shows from the third on)."""
    g = torch.Generator().manual_seed(0)
    sizes = [(3, 6, 4, 5, 1), (2, 8, 3, 4, 2), (4, 7, 5, 8, 3), (3, 5, 4, 6, 5)]
    return [(2 * torch.randn(batch, n_in, n_out, d, generator=g), iterations)
            for batch, n_in, n_out, d, iterations in sizes]


def _routed(u_hat: torch.Tensor, iterations: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Reference for ``check_dynamic_routing``: Procedure 1's outputs v and the couplings c that
    produced them."""
    result = dynamic_routing(u_hat, iterations)
    return result.v, result.c


def check_dynamic_routing(learner: Callable) -> bool | None:
    """Check a learner's ``routing(u_hat, iterations) -> (v, c)``: Procedure 1 on predictions
    u_hat ``[batch, n_in, n_out, d]``, returning the output capsules v ``[batch, n_out, d]`` and
    the couplings c ``[batch, n_in, n_out]`` that produced them (notebook 09's "find the bug").
    A FAIL is followed by the mistake the answers show, when it is a known one
    (``_routing_mistake``)."""
    cases = _routing_cases()
    passed = check("dynamic_routing", learner, _routed, cases, outputs=("v", "c"),
                   describe=lambda case: f"u_hat of shape {tuple(case[0].shape)}, "
                                         f"iterations={case[1]}")
    if passed is False:
        _hint(lambda answers, cases: _routing_mistake(learner, answers, cases), learner, cases)
    return passed


def _routing_mistake(learner: Callable, answers: list, cases: list[tuple]) -> str | None:
    """The first known routing mistake that ``learner``'s ``answers`` on ``cases`` show, in
    words; None when they show none of them (or are not a pair of tensors of the right shapes,
    which ``check`` has already said)."""
    alone = [_as_tensor(learner(u_hat[:1].clone(), r)[0]) for u_hat, r in cases]  # 1st example
    shapes = lambda answer: [getattr(x, "shape", None) for x in answer]
    if any(not isinstance(answer, tuple) or shapes(answer) != shapes(_routed(*case))
           for answer, case in zip(answers, cases, strict=True)):
        return None
    close = lambda a, b: torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5)
    if not all(close(v_alone, v[:1]) for v_alone, (v, _) in zip(alone, answers, strict=True)):
        return ("the first example's v changes when other examples share its batch. Each example "
                "routes with logits b of its own, [batch, n_in, n_out]: never sum or average the "
                "agreements over the batch (dim 0).")
    couplings = [c for _, c in answers]
    if not all(close(c.sum(dim=2), torch.ones(c.shape[:2])) for c in couplings):
        if all(close(c.sum(dim=1), torch.ones(c.shape[0], c.shape[2])) for c in couplings):
            return ("your couplings sum to 1 over the children i (dim 1). Procedure 1 takes "
                    "c_i = softmax(b_i): each child i shares one vote among its parents j, so the "
                    "softmax runs over the parents, dim 2.")
        return "your couplings c do not sum to 1 over the parents j: c = softmax of b over dim 2."
    for (v, c), (u_hat, _) in zip(answers, cases, strict=True):
        # s_j = sum_i c_ij u_hat_j|i with the learner's own c; [batch, n_out, d]
        s = torch.einsum("bij,bijd->bjd", c.to(u_hat.dtype), u_hat)
        if close(v, s):
            return "v = s: the squash of Eq. 1, v_j = squash(s_j), is missing."
        if not close(v, squash(s)):
            return ("your v is not squash(s_j) with s_j = sum_i c_ij u_hat_j|i for the c you "
                    "return. Return the couplings that produced v (computed from b before its "
                    "last update), and sum the predictions over the children i, weighted by c.")
    for shift, words in ((1, "too many"), (-1, "too few")):
        compared = [(v, u_hat, r + shift) for (v, _), (u_hat, r) in zip(answers, cases,
                                                                         strict=True)
                    if r + shift >= 1]
        if all(close(v, dynamic_routing(u_hat, r).v) for v, u_hat, r in compared):
            return (f"you route one iteration {words}. With iterations=r, Procedure 1 computes "
                    "the couplings r times, the first time from b = 0 (uniform); iterations=1 "
                    "is uniform coupling, with no agreement used at all.")
    if all(close(v, _routed(u_hat, r)[0]) == (r <= 2) for (v, _), (u_hat, r) in zip(
            answers, cases, strict=True)):
        return ("your routing agrees with Procedure 1 for 1 and 2 iterations, not from 3 on: b "
                "must accumulate the agreements, b_ij <- b_ij + u_hat_j|i . v_j. Replacing b with "
                "the latest agreement gives the same couplings only up to the second iteration.")
    return None


# --- 10 · the legacy: equivariance --------------------------------------------------------------


def _c4_cases() -> list[tuple]:
    """C4 filters ``[C_out, C_in, 4, k, k]``: one or several filters, 1x1 to 5x5 kernels."""
    g = torch.Generator().manual_seed(0)
    shapes = [(1, 1, 4, 3, 3), (2, 3, 4, 3, 3), (3, 2, 4, 5, 5), (2, 2, 4, 1, 1)]
    return [(torch.randn(*shape, generator=g, dtype=torch.float64),) for shape in shapes]


@torch.no_grad()
def _turned_group_conv(stack: Callable, weight: torch.Tensor, x: torch.Tensor, r: int):
    """A ``GroupConv`` with filters ``weight``, stacked by ``stack``, applied to ``x`` turned by
    ``r`` quarter turns (``rotate_c4``)."""
    c_out, c_in, _, k, _ = weight.shape
    layer = GroupConv(c_in, c_out, k).double()
    layer.weight.data = weight
    layer.stack = stack
    return layer(rotate_c4(x, r))


# Known mistakes: (what the learner's filters match, in words; how the filters come out)
C4_MISTAKES = {
    "your four copies are the filter as it is, neither turned nor shifted: copy r turns every "
    "slice by r quarter turns and shifts the rotation axis by r":
        lambda W, r: W,
    "copy r turns every slice but does not shift the rotation axis: each slice of the input's "
    "rotation axis must move to where the turn sends it, W_r[:, :, s] = rot^r(W[:, :, s - r])":
        lambda W, r: torch.rot90(W, r, dims=(-2, -1)),
    "copy r shifts the rotation axis but does not turn the slices: turn each k x k slice too, "
    "torch.rot90(..., r, dims=(-2, -1))":
        lambda W, r: W.roll(r, dims=2),
    "the rotation axis shifts the wrong way: slice s of copy r comes from slice s - r "
    "(roll by +r), not s + r":
        lambda W, r: torch.rot90(W, r, dims=(-2, -1)).roll(-r, dims=2),
    "the slices turn the wrong way: torch.rot90 with +r turns the way the input turns (the way "
    "rotate_c4 turns feature maps)":
        lambda W, r: torch.rot90(W, -r, dims=(-2, -1)).roll(r, dims=2),
}


def _c4_mistake(learner: Callable, cases: list[tuple]) -> str | None:
    """The known mistake (``C4_MISTAKES``, or the order of the stacked copies) that the
    learner's filters show on every case, in words; None when they show none of them."""
    try:
        with torch.no_grad():
            answers = [learner(W.clone()) for (W,) in cases]
    except Exception:  # check has already reported what it raised
        return None
    shapes_right = all(isinstance(a, torch.Tensor) and a.shape == group_filters(W).shape
                       for a, (W,) in zip(answers, cases, strict=True))
    if not shapes_right:
        return None

    def same(stacked):  # the learner's answer on every case equals stacked(W)
        return all(torch.allclose(a.double(), stacked(W)) for a, (W,) in zip(answers, cases,
                                                                                strict=True))

    for words, copy in C4_MISTAKES.items():
        # [C_out, 4 copies, C_in, 4, k, k] -> [C_out * 4, C_in * 4, k, k], as group_filters does
        if same(lambda W, copy=copy: torch.stack([copy(W, r) for r in range(4)], dim=1)
                .flatten(0, 1).flatten(1, 2)):
            return words
    if same(lambda W: torch.stack([rotate_c4(W, r) for r in range(4)]).flatten(0, 1)
            .flatten(1, 2)):
        return ("the right copies, stacked in the wrong order: output channel o * 4 + r must be "
                "filter o's copy r (stack the copies on dim 1, then flatten dims 0 and 1), so "
                "that each filter's four copies sit next to each other")
    if same(lambda W: torch.stack([rotate_c4(W, r) for r in range(4)], dim=1).transpose(2, 3)
            .flatten(0, 1).flatten(1, 2)):
        return ("the input channels are flattened in the wrong order: the input's channel "
                "i * 4 + s is its channel i at rotation s (as GroupConv flattens [B, C_in, 4, H, "
                "W]), so flatten the filters' dims C_in and 4 in that order, without swapping "
                "them")
    return None


def check_c4_filters(learner: Callable) -> bool | None:
    """Check a learner's ``c4_filters(weight) -> [C_out * 4, C_in * 4, k, k]``: the four
    transformed copies of C4 filters ``weight`` ``[C_out, C_in, 4, k, k]`` that a group
    convolution stacks for one ``conv2d`` (``group_conv.group_filters``): copy r turns every
    k x k slice by r quarter turns and shifts the rotation axis by r,
    W_r[:, :, s] = rot^r(W[:, :, s - r]); output channel o * 4 + r is filter o's copy r.

    First the test that matters: a ``GroupConv`` built with the learner's filters must be
    equivariant, layer(rotate_c4(x, r)) = rotate_c4(layer(x), r) for r = 1, 2, 3. Then the
    filters are compared with ``group_filters``. A FAIL is followed by the known mistake the
    answers show, when there is one."""
    cases = _c4_cases()
    g = torch.Generator().manual_seed(1)
    turns = [(W, torch.randn(2, W.shape[1], 4, 9, 9, generator=g, dtype=torch.float64), r)
             for (W,) in cases for r in (1, 2, 3)]
    passed = check("GroupConv with your filters, equivariance",
                   lambda W, x, r: _turned_group_conv(learner, W, x, r),
                   lambda W, x, r: rotate_c4(_turned_group_conv(learner, W, x, 0), r), turns,
                   atol=1e-9,
                   describe=lambda c: f"filters {tuple(c[0].shape)}, {c[2]} quarter turn(s)")
    if passed:
        passed = check("c4_filters", learner, group_filters, cases, atol=1e-9,
                       describe=lambda c: f"filters of shape {tuple(c[0].shape)}")
    mistake = _c4_mistake(learner, cases) if passed is False else None
    if mistake:
        print(f"  What to look at: {mistake}")
    return passed

"""Whether a saved training run is this one, before ``loop.fit`` goes on from it: the state file
``fit`` leaves after every epoch, read back and checked against the run about to resume
(``read_state``: another model, seed, schedule or data is refused, ``check_same_run``), the data a
run trains and chooses its epoch on, known by a fingerprint (``fingerprint``), and the weights of
an earlier run checked against the model that is to continue it (``check_weights``). A state of
another run is refused naming the file and what to do, never resumed: resumed, it would hand back
that run's weights as if trained on this one's images."""

import hashlib
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import TensorDataset

from .course_settings import model_device
from .refusals import kind_of
from .shipped_folders import check_regular
from .validate import Int, checked

# the keys of a run's record (``made_with``) that know its data by fingerprint, in words
DATA = {"train_data": "training examples (train)", "validation_data": "held-out examples "
        "(validation)"}


@checked
def fingerprint(data: TensorDataset | None) -> str | None:
    """The sha256 of examples ``data`` (every tensor's dtype, shape and bytes, in order): two sets
    of other images, or of the same images with other labels, get two fingerprints; None for no
    examples. About a second for MNIST's 60,000 training digits."""
    if data is None:
        return None
    digest = hashlib.sha256()
    for tensor in data.tensors:
        values = tensor.detach().cpu().contiguous()
        digest.update(f"{values.dtype} {tuple(values.shape)};".encode())
        digest.update(values.reshape(-1).view(torch.uint8).numpy())
    return digest.hexdigest()


@checked
def read_state(state_path: Path, model: nn.Module, made_with: dict,
               epochs: Int("the epochs fit was asked for", ge=1)) -> dict | None:
    """The state ``loop.save_state`` left at ``state_path`` for this run (``made_with``), loaded
    where ``model`` is; None where there is none yet. A file that is no state, one of another run
    or of other data (``check_same_run``), or of a run already longer than ``epochs``, is refused
    and left as it is, not resumed (its record would name a command, or data, that did not make
    it)."""
    if not state_path.exists():
        return None
    check_regular(state_path, "fit", "state_path", "pass another state_path, a regular file "
                  "(a new path starts afresh)")  # a named pipe would block torch.load forever
    try:
        state = torch.load(state_path, model_device(model), weights_only=True)
    except Exception as err:  # a file that is not a state: text, another pickle, a cut-off copy
        raise ValueError(f"fit(): state_path must be a training state fit saved, or a file not "
                         f"there yet (a new run), got {state_path}, which is not one "
                         f"({type(err).__name__}); it was left as it is. Pass another state_path "
                         "(a new path starts afresh), or move that file away") from None
    if not isinstance(state, dict) or not {"model", "history", "optimizer"} <= state.keys():
        raise ValueError(f"fit(): state_path must be a training state fit saved, got "
                         f"{state_path}, which holds no model, optimizer and history; it was "
                         "left as it is. Pass another state_path, or move that file away")
    check_same_run(state.get("made_with", {}), made_with, state_path)
    if len(state["history"]) > epochs:
        raise ValueError(f"fit(): state_path {state_path} holds {len(state['history'])} epochs, "
                         f"more than epochs={epochs}: resumed, it would be recorded as a run of "
                         f"{epochs} epochs. Pass epochs={len(state['history'])} or more, another "
                         "state_path, or delete it to start afresh")
    return state


@checked
def check_same_run(saved: dict, now: dict, state_path: Path) -> None:
    """Refuse to resume from ``state_path`` when the run that ``saved`` it differs from this one
    (``now``): another model, seed, number of training examples (``--limit``) or schedule, or
    other examples (``DATA``: their fingerprints differ). A state saved before fit kept its
    data's fingerprint is refused too: it cannot be told from a run on other images."""
    if not DATA.keys() <= saved.keys():
        raise ValueError(f"fit(): state_path {state_path} was saved by an older fit, which kept no "
                         "fingerprint of the images it trained on: it cannot be told from a run "
                         "on other images; it was left as it is. Delete it to start afresh, or "
                         "pass another state_path")
    differ = [f"{key} {saved.get(key)!r} there, {value!r} here" for key, value in now.items()
              if key not in DATA and saved.get(key) != value]
    if differ:
        raise ValueError(f"fit(): state_path {state_path} was saved by another run "
                         f"({'; '.join(differ)}). Pass the arguments it was made with, another "
                         "state_path, or delete it to start afresh")
    other = [words for key, words in DATA.items() if saved[key] != now[key]]
    if other:
        raise ValueError(f"fit(): state_path {state_path} was saved by a run on other "
                         f"{' and '.join(other)} (the same model, seed and count): resumed, fit "
                         "would hand back that run's weights, not trained on yours; it was left "
                         "as it is. Pass another state_path for these examples, or delete it to "
                         "start afresh")


@checked
def check_weights(model: nn.Module, weights: dict, what: str) -> None:
    """Refuse ``weights`` (``what``: ``fit(): start``'s) unless a ``state_dict`` of ``model``'s
    kind: its names, each a tensor of the shape ``model`` holds there. Checked before any is
    loaded (``load_state_dict`` copies those that fit before it fails, and in torch's words)."""
    held = model.state_dict()
    lack = [name for name in held if name not in weights]
    extra = [name for name in weights if name not in held]
    wrong = [f"hold {name!r} as {kind_of(weights[name])}, where it has shape {tuple(value.shape)}"
             for name, value in held.items() if name in weights and not (
                 isinstance(weights[name], torch.Tensor) and weights[name].shape == value.shape)]
    found = wrong[:3]
    if extra:
        found.insert(0, f"hold {', '.join(map(repr, extra[:3]))}, which {type(model).__name__} "
                        "has not")
    if lack:
        found.insert(0, f"lack {len(lack)} of the {len(held)} it holds ("
                        f"{', '.join(map(repr, lack[:3]))}{', ...' * (len(lack) > 3)})")
    if found:
        raise ValueError(f"{what} must be (weights, history) of a run of this "
                         f"{type(model).__name__}, as recipe_run.continue_from gives, got weights "
                         f"that {'; '.join(found)}; pass the weights of such a run "
                         "(model.state_dict()), or start=None to train afresh")

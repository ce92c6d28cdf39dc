"""Course-wide settings read from the environment.

* ``CAPSEDU_QUICK=1`` switches every notebook to *quick mode*: less data, fewer epochs. The test
  command (``make test``) sets it so the whole course executes in a few minutes; learners leave it
  unset and get the real thing.
* ``CAPSEDU_TEXT_PROGRESS=1`` draws progress bars as text that leaves its finished line, for
  outputs stored and read later (the website's build sets it): a bar widget stored without its
  live state shows frozen at 0 %.
* ``CAPSEDU_WIDGET_DPI`` sets the resolution the widgets draw at (dots per inch, default 80): a
  larger value draws every widget's figure, its labels included, larger in proportion, for a
  projector (``make demo`` uses 130).
* ``CAPSEDU_DATA`` moves the data root (MNIST, checkpoints). By default it is the ``data/`` folder
  of the repository this package was installed from, or ``./data`` when that does not exist.

Training runs on ``device()``, the GPU when there is one; ``Device`` declares a device a caller
names instead, as ``capsedu.validate`` declares every parameter; ``Folder`` a folder a caller
names; ``Name`` and ``Text`` a name or a text that says something; ``Checked`` a declaration made
of a check of ``capsedu.checks``. The bounds (``MAX_WIDTH``, ...) and the declarations many
entries share (``Seed``, ``Images``, ``Models``, ...) live here too, one home each.
"""

import inspect
import itertools
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import torch
from pydantic import AfterValidator, Field, PlainValidator, ValidationInfo

from .checks import check_examples, check_images, check_pixels
from .refusals import declared_error, kind_of, with_article
from .validate import (
    Distinct,
    Function,
    Has,
    Int,
    Numbers,
    Some,
    Spec,
    Tensor,
    checked,
)

# Upper bounds every entry shares, one home each (issue 37.2): past them a call asks for more
# work or memory than any lesson needs, and its refusal says so before anything is allocated.
MAX_WIDTH = 4096  # a layer's channels or units, capsule maps, a capsule's dimensions, classes
MAX_IMAGE = 1024  # a model's input side in pixels, or a kernel's side or stride
MAX_SIDE = 256  # a generated image's side in pixels (sprites, faces, MNIST on a new canvas)
# ... and the least a drawn part needs: at 16 pixels its pen (PEN, 0.04 of the side) still covers a
# pixel centre wherever it goes; on a smaller image a small part can fall between the centres and
# draw nothing (a blank image)
MIN_SIDE = 16
MAX_BATCH = 65_536  # examples in one batch
# a run's epochs, far past the course's recipes (at most 40): a typo is refused before it trains
# for days
MAX_EPOCHS = 1000
# the examples a run trains on, as a record keeps them: the course's sets hold 60,000 at most, and
# a count past ten million is a typo (10**12 would pass for a run no machine makes)
MAX_EXAMPLES = 10_000_000
# the CPU threads a record keeps: another machine's count, so no bound of this one's cores, but
# past the largest servers' 1,024 a typo (10**6 would pass for a run no machine makes)
MAX_THREADS = 1024
# timed runs of one measurement, their median reported: 1,000 training steps of the paper's
# CapsNet take about an hour on a CPU, far past the 3 to 5 the notebooks take a median of
MAX_REPEATS = 1000


def _name(value: str) -> str:
    """What ``Name`` declares: a name with something in it ('' or spaces would begin a line with
    a comma, or leave a row of a table unnamed)."""
    if not value.strip():
        raise ValueError(f"must be a name, got {value!r}, which names nothing; pass a name such "
                         "as 'capsnet'")
    return value


# a name a caller gives a model, a layer or a line of a table: not empty
Name = Annotated[str, AfterValidator(_name)]


def _text(value: str) -> str:
    """What ``Text`` declares: words that say something ('' or spaces would leave a sentence, a
    cell of a table or a command empty)."""
    if not value.strip():
        raise ValueError(f"must say something, got {value!r}, an empty text; write it out")
    return value


# a text a sentence, a table or a command is built from: not empty
Text = Annotated[str, AfterValidator(_text)]


def _argument(value: str) -> str:
    """What ``Argument`` declares: the caller's argument a refusal names, as "function():
    argument" or a command's "--option" (a learner reads whose argument it was)."""
    if not re.match(r"(\w+\(\): |--)\S", value):
        raise ValueError(f"must name the argument refused, as 'save(): root' or '--out', got "
                         f"{value!r}; pass the function called and its argument")
    return value


# the caller's argument a refusal names: "save(): root", "--out"
Argument = Annotated[str, AfterValidator(_argument)]
# a command line's words, as a command's main(argv) takes them: sys.argv[1:], a list or a tuple
Argv = list[str] | tuple[str, ...]


@checked
def Checked(check: Function("a check of capsedu.checks, check(value, name)"), expected: Text,
            kind: Text) -> Any:
    """A declaration made of a check of ``capsedu.checks``, ``check(value, name)``: it refuses
    with its own sentence, which names the argument, and hands on what it returns (``Examples``,
    ``Images``); ``expected`` and ``kind`` as in ``Spec``."""

    def validate(value, info: ValidationInfo):
        name = info.field_name or "the argument"
        try:
            return check(value, name)
        except (TypeError, ValueError) as err:
            said = str(err).removeprefix(name).lstrip(" ")
            raise declared_error(type(err), said, "array") from None

    return Annotated[Any, PlainValidator(validate), Spec(expected, kind)]


# Declarations many entries share. Seeds: NumPy's generator takes them below 2**32.
Seed = Int("a random seed: the same seed gives the same draws", ge=0, le=2**32 - 1)
# the CPU threads torch had in a recorded run (any machine's)
RunThreads = Int("the CPU threads torch had", ge=1, le=MAX_THREADS)
# seeds of a comparison over seeds, each once
Seeds = Annotated[list[Seed] | tuple[Seed, ...], Some, Distinct]
# examples for training or scoring, (images, labels, ...), handed on as a TensorDataset: checked
# once (fit passes it on to its pieces, which take a TensorDataset, not checked again)
Examples = Checked(check_examples, "a tuple (images, labels, ...) of tensors or NumPy arrays with "
                   "one row per example in each, the images pixels in [0, 1]", "examples")
# a model fit trains: one of the course's, which supplies its own loss
Trainable = Has("a model of the course", "training_loss", "parameters", source="a model of the "
                "course, e.g. CapsNet(): training_loss(x, *targets) gives (loss, predictions)")
# images a model scores [N, C, H, W], handed on as float32
Images = Checked(check_images, "images [N, C, H, W] of pixels in [0, 1], at least one",
                 "numbers")
# what a model's own methods read (predict, score, training_loss): a batch as given, in the
# model's dtype (a model made float64 reads float64), its shape the model's to check
# (``checked(reads=("self", "x"))``: [N, C, H, W] of its size); and a class of the model, an int
# (``check_class`` bounds it by the model's own classes)
Batch = Tensor("images [B, C, H, W] of pixels in [0, 1]", pixels=True)
Label = Int("a class of the model")
# the classes of a model (one output or digit capsule each) or of one-hot targets (a column each)
Classes = Int("classes, one output each", ge=1, le=MAX_WIDTH)
# the classes of a model read by a softmax of its logits: over one class it is always 1, so the
# loss is 0 and nothing can be learned (a CapsNet's capsule of one class still learns its length)
LogitClasses = Int("classes, one logit each; a softmax over one class is always 1", ge=2,
                   le=MAX_WIDTH)


def _pixels(array, info: ValidationInfo):
    """Refuse a picture whose values are not pixels in [0, 1] (``checks.check_pixels``): drawn on
    a 0-1 scale, 0-255 pixels would all show white, and normalised ones clipped."""
    name = info.field_name or "the picture"
    try:
        check_pixels(torch.as_tensor(array, dtype=torch.float64), name)
    except ValueError as err:  # its sentence names the argument: the refusal puts the name first
        raise ValueError(str(err).removeprefix(f"{name} ")) from None
    return array


@checked
def Pictures(meaning: Text, ndim: Int("dimensions", ge=0) | None = None,
             shape: tuple[int | None, ...] | None = None,
             fix: Text = "pass numbers of that shape") -> Any:
    """Pictures a figure draws, however a learner holds them (``Numbers``, with its options
    ``ndim``, ``shape`` and ``fix``), their values pixels in [0, 1]; handed on as a NumPy array."""
    return Annotated[Numbers(f"{meaning}, pixels in [0, 1]", ndim=ndim, shape=shape, fix=fix),
                     AfterValidator(_pixels)]


# rows of a full set, a sample of it (e.g. mnist.fixed_sample(n)), each once (a row twice would
# count one digit twice)
Rows = Annotated[Numbers("a 1-d list of image indices (e.g. mnist.fixed_sample(n))", ndim=1,
                         at_least=1, ge=0, whole=True, tensor=True, fix="pass such a list"),
                 Distinct]

_FLAG_VALUES = {"": False, "0": False, "false": False, "no": False, "off": False,
                "1": True, "true": True, "yes": True, "on": True}


def _flag(name: str) -> bool:
    """The environment variable ``name`` read as a switch (any case, spaces ignored); a value
    that is neither on nor off is refused rather than guessed (``maybe`` is not true)."""
    value = os.environ.get(name, "").strip().lower()
    if value not in _FLAG_VALUES:
        raise ValueError(f"{name} must be one of 1, true, yes, on (on) or 0, false, no, off or "
                         f"empty (off), got {os.environ[name]!r}; set it to 1 or unset it")
    return _FLAG_VALUES[value]


def _dots_per_inch(name: str, default: int) -> int:
    """The environment variable ``name`` read as a resolution for figures, in [40, 400]."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or not 40 <= int(value) <= 400:
        raise ValueError(f"{name} must be a whole number of dots per inch from 40 to 400 "
                         f"({default} by default, about 130 for a projector), got "
                         f"{os.environ[name]!r}; set it to such a number or unset it")
    return int(value)


QUICK: bool = _flag("CAPSEDU_QUICK")
TEXT_PROGRESS: bool = _flag("CAPSEDU_TEXT_PROGRESS")
WIDGET_DPI: int = _dots_per_inch("CAPSEDU_WIDGET_DPI", 80)

_REPO_DATA = Path(__file__).resolve().parent.parent / "data"


def data_root() -> Path:
    """Where datasets and checkpoints live (``$CAPSEDU_DATA``, else the repository's ``data/``):
    a folder, so a stray space or a file named in the variable is refused, naming it."""
    named = os.environ.get("CAPSEDU_DATA")
    if not named:
        return _REPO_DATA if _REPO_DATA.is_dir() else Path.cwd() / "data"
    try:
        root = Path(_folder(named)).expanduser()
    except ValueError as err:  # its sentence starts "must name a folder ..."
        raise ValueError(f"data_root(): the variable CAPSEDU_DATA {err}") from None
    if root.exists() and not root.is_dir():  # MNIST and checkpoints would go inside a file
        raise ValueError(f"data_root(): the variable CAPSEDU_DATA must name a folder (datasets "
                         f"and checkpoints go in it), got {named!r}, a file; set it to a "
                         "folder, e.g. CAPSEDU_DATA=~/capsedu-data, or unset it for the "
                         "repository's data/")
    return root


def _kind(setting) -> str:
    """A setting's kind as ``pick`` compares two: a number (an int or a float alike), a list or
    a tuple alike, else its class."""
    if isinstance(setting, int | float) and not isinstance(setting, bool):
        return "number"
    return "sequence" if isinstance(setting, list | tuple) else type(setting).__name__


@checked
def pick(full: Any, quick: Any):
    """Return ``quick`` in quick mode and ``full`` otherwise, e.g. ``epochs = pick(3, 1)``: any
    two settings of one kind (counts, tuples, records; None, the default, beside any), declared
    ``Any`` as what they are set for checks them where they are used. Quick mode runs less (less
    data, fewer epochs): of two numbers, ``quick`` is at most ``full``."""
    if full is not None and quick is not None and _kind(full) != _kind(quick):
        raise TypeError(f"pick(): full and quick must be two settings of one kind (None, a "
                        f"default, beside any), got {full!r}, a {_kind(full)}, and {quick!r}, a "
                        f"{_kind(quick)}; pass two of one kind, e.g. pick(3, 1)")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (full, quick))
    if numbers and quick > full:  # swapped: pick(1, 10) would run more in quick mode
        raise ValueError(f"pick(): quick must be at most full (quick mode runs less: less data, "
                         f"fewer epochs), got full={full!r} and quick={quick!r}; pass the full "
                         f"setting first, pick({quick!r}, {full!r})")
    return quick if QUICK else full


# models side by side, name -> model (e.g. {"CapsNet": capsnet, "CNN": cnn}), at least one,
# each named
Models = Annotated[dict[Name, torch.nn.Module], Some]


@checked
def with_methods(expected: Text, methods: Annotated[list[Text], Some], fix: Text) -> Any:
    """A check for a model read by its ``methods``, each written as it is called
    (``["predict(x)", "score(x, label)"]``): a torch ``Module`` without one of them
    (``nn.Linear``, a layer), or whose method takes other arguments (a ``score(x)``), is refused
    at the boundary, naming what it lacks (it would fail inside, in a bare AttributeError or
    TypeError); ``expected`` and ``fix``: in the refusal."""
    def check(model):
        lacking = [f".{m.partition('(')[0]}()" for m in methods
                   if not callable(getattr(model, m.partition("(")[0], None))]
        other = [f"whose .{_takes(model, m)} cannot be called as .{m}" for m in methods
                 if not lacking and _takes(model, m)]
        if lacking or other:
            which = f"which has no {' nor '.join(lacking)}" if lacking else other[0]
            raise declared_error(TypeError, f"must be {expected}, got "
                                 f"{with_article(type(model).__name__)}, {which}; {fix}", "array")
        return model

    return AfterValidator(check)


def _takes(model, method: str) -> str | None:
    """``model``'s method of ``method``'s form (``"score(x, label)"``) as it is written, if it
    cannot be called with that many arguments; else None."""
    name, _, arguments = method.partition("(")
    try:
        signature = inspect.signature(getattr(model, name))
    except (TypeError, ValueError):  # a builtin without a signature: not judged
        return None
    try:
        signature.bind(*arguments.rstrip(")").split(", "))
    except TypeError:
        return f"{name}{signature}"
    return None


# a classifier read by .predict(x) (the class of each image): the course's models all have one
CLASSIFIER = ("a classifier (a torch.nn.Module with .predict(x), the class of each image: "
              "CapsNet(), a baselines or gcnn CNN, ...)")
Classifier = Annotated[torch.nn.Module, with_methods(
    CLASSIFIER, ["predict(x)"], "pass one of the course's models, e.g. CapsNet() or one that "
    "checkpoints.pretrained(name) loads, or give yours a predict(x)"), Spec(CLASSIFIER, "record")]
# classifiers side by side, name -> model, at least one, each named
Classifiers = Annotated[dict[Name, Classifier], Some]


@checked
def model_output(where: Name, argument: Name, model: torch.nn.Module,
                 images: Tensor("the images it reads [B, ...]"),
                 read: Function("read(images) -> what the model gives for them"), gives: Text,
                 fits: Function("fits(output) -> whether it is what gives says"), fix: Text
                 ) -> Any:
    """``read(images)``: a model's forward pass, its ``predict``. A model that fails on the
    images (a layer made for another size: torch's bare "mat1 and mat2 shapes cannot be
    multiplied"), or gives other than ``gives`` says (``fits``; then ``fix`` says what to do),
    is refused in the words of
    ``where`` (the function the caller called) and its ``argument``, naming the model's class
    and the images' shape: the one check of every reading of a learner's model
    (``attacks.check_attackable``, ``loop.predict``, ``loop.evaluate``)."""
    try:
        out = read(images)
    except torch.OutOfMemoryError:
        raise
    except RuntimeError as err:  # a layer that does not take images of this shape
        got = f"failed on them ({str(err).splitlines()[0][:90]})"
        fix = "pass a model made for such images (e.g. one trained on them)"
    else:
        got = None if fits(out) else f"returned {kind_of(out)}"
    if got:
        shape = ", ".join(map(str, images.shape[1:]))
        raise ValueError(f"{where}(): {argument} must take images [B, {shape}] and return "
                         f"{gives}, got {with_article(type(model).__name__)} that {got}; {fix}")
    return out


@checked
def classes_read(model: Classifier, where: Name) -> Any:
    """``model.predict`` as ``where`` (the function the caller called) reads it, batch by batch
    (``loop.predict``, ``loop.evaluate``): each batch through ``model_output``, so that a
    predict that fails on the images, or returns scores or classes held as floats rather than
    integer classes ``[B]`` (``[B, k]``: k per image), is refused naming the model."""
    def read(images: torch.Tensor) -> torch.Tensor:
        return model_output(where, "model", model, images, model.predict, "their classes from "
                            ".predict(x), integer classes [B] ([B, k]: k per image)",
                            lambda out: torch.is_tensor(out) and out.ndim in (1, 2)
                            and len(out) == len(images) and not out.is_floating_point()
                            and not out.is_complex() and out.dtype != torch.bool,
                            "make predict return them: scores.argmax(1), the class of each "
                            "row's highest score, or .long() of classes held as floats")

    return read


def device() -> torch.device:
    """The GPU when there is one (Colab, Binder with a GPU), else the CPU: where training runs."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _device(value):
    """A device this machine has, named by a string or a ``torch.device`` (kept as given): what
    ``Device`` declares, for an argument that overrides ``device()``."""
    if not isinstance(value, str | torch.device):
        raise declared_error(TypeError, "must name a device, a string such as 'cpu' or 'cuda' or "
                             f"a torch.device, got {kind_of(value)}", "device")
    try:
        named = torch.device(value)
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"must name a device such as 'cpu' or 'cuda', got {value!r} "
                         f"({str(err).splitlines()[0][:80]}); pass 'cpu', or 'cuda' on a GPU "
                         "machine") from None
    if named.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"must be a device this machine has, got {value!r}, but torch finds no "
                         "CUDA GPU here; pass 'cpu' (or None: course_settings.device() picks the "
                         "GPU when there is one)")
    if named.type == "meta":
        raise ValueError(f"must be a device this machine has, got {value!r}, a device without "
                         "data (its tensors hold shapes, no values); pass 'cpu', or 'cuda' on a "
                         "GPU machine")
    if named.type != "cpu" and not _has(named):
        gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
        has = f"'cpu' and 'cuda:0' to 'cuda:{gpus - 1}'" if gpus else "'cpu' only"
        raise ValueError(f"must be a device this machine has, got {value!r}, but this machine "
                         f"has {has}; pass one of those")
    return value


def _has(device: torch.device) -> bool:
    """Whether torch can place a tensor on ``device`` here ('mps' fails, in words by backend)."""
    try:
        torch.empty(0, device=device)
    except Exception:  # NotImplementedError, AssertionError, RuntimeError, ... by backend
        return False
    return True


@checked
def spaced_part(path: str | Path) -> str | None:
    """The part of ``path`` (a folder's or the file's name) that starts or ends with a space, a
    paste's or a typo's (no folder of the course is named so), else None."""
    return next((part for part in Path(path).parts if part != part.strip()), None)


def _folder(value: str | Path) -> str | Path:
    """What ``Folder`` declares: '' names no folder (it would read as "not given": the default),
    and a name with a space at either end names a folder no one meant (``spaced_part``)."""
    if not str(value).strip():
        raise ValueError(f"must name a folder, got {str(value)!r}; pass None for the default "
                         "folder, or a folder")
    head = str(value).split("/")[0]  # ~user: os.path leaves it as it is, Path raises
    if head.startswith("~") and os.path.expanduser(head) == head:
        raise ValueError(f"must name a folder whose '~' is a home folder of this machine, got "
                         f"{str(value)!r} (no user {head[1:]!r} here); "
                         "write the whole path, or ~ alone for your own home folder")
    if (part := spaced_part(value)) is not None:
        raise ValueError(f"must name a folder without a space at either end of a name, got "
                         f"{str(value)!r}" + (f" ({part!r})" if part != str(value) else "")
                         + "; remove the space")
    return value


# a folder a caller names (where to read or write checkpoints and results)
Folder = Annotated[str | Path, AfterValidator(_folder),
                   Field(description="a folder path (a str or a Path)")]


def _state_file(value: str | Path) -> str | Path:
    """What ``StateFile`` declares: a file's path, not '' (the current folder), a folder, nor a
    path ending in '/' (which names a folder: the state would become a file of that name)."""
    if not str(value).strip() or str(value).endswith(("/", os.sep)) or Path(value).is_dir():
        raise ValueError(f"must name a file for the training state, got {str(value)!r}, which "
                         "names a folder; name a file in it, e.g. data/runs/state.pt")
    return value


# a resumable training state's file (saved after every epoch)
StateFile = Annotated[str | Path, AfterValidator(_state_file),
                      Field(description="a state file's path (a str or a Path)")]
# a device a caller names (where to train, where to load weights)
Device = Annotated[str | torch.device, PlainValidator(_device),
                   Spec("a device this machine has, such as 'cpu' or 'cuda'", "device")]


def _device_name(value: str) -> str:
    """What ``DeviceName`` declares: a device torch knows by that name ('cpu', 'cuda', 'cuda:0'),
    on this machine or on the one that made a record ('gpu' or 'tpu' is no torch device)."""
    try:
        torch.device(value)
    except (RuntimeError, ValueError):
        raise ValueError(f"must name a device torch knows, such as 'cpu', 'cuda' or 'cuda:0', got "
                         f"{value!r}; pass str(torch.device(...)) of where it ran") from None
    return value


# the device a record says a run used: a name torch knows (the machine need not have it)
DeviceName = Annotated[str, AfterValidator(_device_name)]


def _floating(dtype: torch.dtype) -> torch.dtype:
    if not dtype.is_floating_point:
        raise ValueError(f"must be a floating-point dtype such as torch.float32, got {dtype}")
    return dtype


# the dtype a model computes in
FloatDtype = Annotated[torch.dtype, AfterValidator(_floating)]  # torch.float32, not torch.int64


@checked
def model_device(model: torch.nn.Module) -> torch.device:
    """Where ``model`` is: the device of its first parameter (or buffer); the CPU for a model
    with neither. The course's device rule: a function given a model runs where the model is."""
    tensors = itertools.chain(model.parameters(), model.buffers())
    return next((t.device for t in tensors), torch.device("cpu"))


@contextmanager
@checked
def evaluating(model: torch.nn.Module) -> Iterator[torch.nn.Module]:
    """``model`` in eval mode inside the block (no dropout: the model as it reads a test image),
    in its own mode again after it: how every ``predict``, ``score`` and scoring loop reads."""
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)

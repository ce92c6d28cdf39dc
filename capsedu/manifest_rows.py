"""What a row of the checkpoint manifest holds, as frozen records: the checkpoint
(``ManifestRow``), what its training reached (``Metrics``) and the earlier sittings of a run
continued from one (``Sitting``).

``checkpoints`` reads and writes them (``read_manifest``, ``save``, ``record``) through
``json_records``, in the order of their fields. Every field of a row and of its metrics but the
checkpoint's name, file, sha256 and class is optional: a row keeps what its training recorded,
and a field it lacks is None and absent from the file (a face model's metrics have no test
accuracy, an MNIST model's no face rate). Each record checks its fields' types when made
(``CheckedRecord``); ``Metrics`` checks its numbers' ranges too, a row its seed
(``course_settings.Seed``) and its hashes (``Sha256``: 64 hexadecimal digits). A row reads as
text through ``format_record``.
"""

import inspect
import re
import typing
from dataclasses import dataclass, field, fields
from typing import Annotated, Any

from pydantic import AfterValidator

from .checks import check_order, check_same
from .course_settings import MAX_EXAMPLES, DeviceName, RunThreads, Seed, Text
from .derived import check_derived
from .json_records import OMITTED_WHEN_NONE, json_row
from .stopping_rule import best_epoch, converged
from .validate import (
    CheckedRecord,
    Choice,
    Flag,
    Float,
    Int,
    Record,
    Spec,
    check_value,
    checked,
)


def _optional():
    """A field a row may lack: None, and then absent from the manifest."""
    return field(default=None, metadata={OMITTED_WHEN_NONE: True})


# The class a checkpoint's "arch" names, and the module that defines it. Imported only when such a
# checkpoint is loaded, so that loading a CapsNet never pulls in the faces world.
# (one list: a row made by hand and a row read from a manifest are checked against it alike)
ARCHS = {
    "CapsNet": "capsedu.capsnet",
    "BagOfPartsCNN": "capsedu.baselines",
    "DeepCNN": "capsedu.baselines",
    "MaxPoolCNN": "capsedu.baselines",
    "C4CNN": "capsedu.gcnn",
    "PlainCNN": "capsedu.gcnn",
    "MultiDigitCapsNet": "capsedu.multi_digit",
    "TwoDigitCNN": "capsedu.multi_digit",
    "PoseCapsuleNet": "capsedu.parts.pose_net",
    "PartPoseMLP": "capsedu.parts.pose_mlp",
    "VisionTransformer": "capsedu.vit",
}


Accuracy = Float("an accuracy or a rate", ge=0, le=1)
Count = Int("a count", ge=0)
EpochCount = Int("epochs, counted from 1", ge=1)  # a run trains one at least, and keeps one of them


def _sha256(value: str) -> str:
    """What ``Sha256`` declares: a sha256 as ``hashlib`` writes it, 64 lowercase hex digits."""
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise ValueError(f"must be 64 hexadecimal digits (0-9, a-f), the sha256 of the file's "
                         f"bytes, got {value!r}; pass checkpoints.sha256(path) of the file")
    return value


# the sha256 of a checkpoint's bytes, as hashlib's hexdigest() writes it
Sha256 = Annotated[str, AfterValidator(_sha256)]


NAME_BYTES = 200  # the longest name a checkpoint's files may have (255 bytes, less what is added)


def _plain_name(value: str) -> str:
    """What ``PlainName`` declares: a plain file name (no folder in it: no ``/``, ``\\``, ``..``,
    not absolute, not empty; no control character, such as a newline a careless paste brings,
    and no space at either end, which names another file; at most ``NAME_BYTES`` long)."""
    if not value or value in (".", "..") or re.search(r"[/\\\x00-\x1f\x7f]", value) \
            or value != value.strip():
        raise ValueError(f"must be a plain file name inside its folder (no '/', '\\', '..', "
                         f"control character such as a newline, or space at either end), got "
                         f"{value!r}; pass a name such as 'my-capsnet'")
    if len(value.encode()) > NAME_BYTES:
        raise ValueError(f"must be a file name of at most {NAME_BYTES} bytes (file systems hold "
                         f"255, and a save adds '.pt' and a temporary file's '.<pid>.tmp'), got "
                         f"{len(value.encode())} bytes, {value[:20]!r}...; pass a shorter name")
    return value


@checked
def plain_name(name: str, what: Text) -> str:
    """``name`` if it is a plain file name (``PlainName``); else a ``ValueError`` naming ``what``
    it is (e.g. ``"save(): name"``; a bare argument's name, ``"name"``, headed by plain_name's)."""
    try:
        return _plain_name(name)
    except ValueError as err:
        head = "plain_name(): " if what.isidentifier() else ""
        raise ValueError(f"{head}{what} {err}") from None


# a checkpoint's name and file: plain file names in the manifest's folder
PlainName = Annotated[str, AfterValidator(_plain_name)]


@dataclass(frozen=True, kw_only=True)
class Metrics(CheckedRecord):
    """What a run reached: an MNIST model's test accuracy, a face model's held-out accuracy and
    face rates, and, for a run stopped by the course's rule, its held-out curve and the epoch
    kept."""

    test_accuracy: Accuracy | None = _optional()  # on the test split, scored once
    held_out_accuracy: Accuracy | None = _optional()  # a face model's faces against non-faces
    face_rate: Accuracy | None = _optional()  # its share of faces called faces
    nonface_rate: Accuracy | None = _optional()  # its share of non-faces called faces
    validation_accuracy: Accuracy | None = _optional()  # the kept epoch's held-out accuracy
    final_train_loss: Float("the last epoch's training loss", ge=0) | None = _optional()
    epochs: EpochCount | None = _optional()  # the epochs it trained
    chosen_epoch: EpochCount | None = _optional()  # the epoch whose weights it kept
    max_epochs: EpochCount | None = _optional()  # its budget
    patience: EpochCount | None = _optional()  # the rule's epochs without a held-out gain
    converged: Flag("whether the rule stopped it before its budget") | None = _optional()
    # the held-out examples it was chosen on (a run without them records none: None)
    validation_examples: Int("held-out examples, one at least", ge=1) | None = _optional()
    validation_seed: Seed | None = _optional()  # the seed that drew them (face models)
    validation_by_epoch: tuple[Accuracy, ...] | None = _optional()  # held-out accuracy per epoch

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an epoch kept past the epochs run or
        epochs past the budget, or a held-out curve of another length than the epochs run."""
        super().__post_init__()
        epochs = {name: getattr(self, name) for name in ("chosen_epoch", "epochs", "max_epochs")
                  if getattr(self, name) is not None}
        check_order("Metrics", "keep an epoch the run ran, within its budget", **epochs)
        if self.epochs is not None and self.validation_by_epoch is not None:
            check_same("Metrics", "the epochs run", "record one held-out accuracy per epoch",
                       epochs=self.epochs, validation_by_epoch=len(self.validation_by_epoch))
        if self.validation_by_epoch:
            self._check_kept(list(self.validation_by_epoch))

    def _check_kept(self, scores: list) -> None:
        """Refuse an epoch kept, its accuracy, or a flag of the rule other than the held-out
        curve gives (``stopping_rule``): ``fit`` keeps the first best epoch."""
        kept, rule = self.chosen_epoch, f"the course's rule with patience {self.patience} " \
            "(stopping_rule.converged) on validation_by_epoch"
        derived = {"chosen_epoch": (kept, best_epoch(scores),
                                    "the first epoch with the best held-out accuracy")}
        if kept is not None and self.validation_accuracy is not None:
            derived["validation_accuracy"] = (self.validation_accuracy, scores[kept - 1],
                                              "validation_by_epoch's at chosen_epoch")
        if self.converged is not None and self.patience is not None:
            derived["converged"] = (self.converged, converged(scores, self.patience), rule)
        check_derived("Metrics", "record what the run's held-out curve gives", **{
            name: fields for name, fields in derived.items() if fields[0] is not None})


@dataclass(frozen=True)
class Sitting(CheckedRecord):
    """An earlier run of a checkpoint continued from the epoch it kept
    (``recipe_run.continue_from``); its fields by name or in their order."""

    command: Text  # the line that ran it
    sha256: Sha256  # the weights it saved
    epochs: Int("the epochs it trained", ge=1)
    kept_epoch: Int("the epoch the next sitting went on from", ge=1)

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or an epoch kept that it never ran."""
        super().__post_init__()
        check_order("Sitting", "keep an epoch the sitting ran", kept_epoch=self.kept_epoch,
                    epochs=self.epochs)


@dataclass(frozen=True, kw_only=True)
class ManifestRow(CheckedRecord):
    """A shipped or trained checkpoint: its file and hash, its class, how it was made (the command,
    seed, examples, time, device, threads and torch) and what it reached."""

    name: PlainName
    file: PlainName  # its file, in the manifest's folder
    sha256: Sha256  # of the file's bytes, checked before torch reads them
    arch: Choice("a model class of the course", *ARCHS)  # ``checkpoints.pretrained`` makes it
    description: Text | None = _optional()
    command: Text | None = _optional()  # the line that trains it
    seed: Seed | None = _optional()
    train_examples: Int("the training examples it saw", ge=1, le=MAX_EXAMPLES) | None = _optional()
    train_time_s: Float("seconds it trained", ge=0) | None = _optional()
    device: DeviceName | None = _optional()  # where it trained, as torch names it
    threads: RunThreads | None = _optional()
    torch_version: Text | None = _optional()
    sittings: tuple[Record(Sitting), ...] | None = _optional()  # earlier runs, oldest first
    notes: Text | None = _optional()  # why it was shipped: kept when it is trained again
    metrics: Record(Metrics, "make one: manifest_rows.Metrics(test_accuracy=0.99), fractions of "
                            "1, or Metrics(**d) of a dict d of its fields") | None = _optional()

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), a file other than the name's own
        (``save`` writes ``<name>.pt``: another's would be loaded, or hashed, for this one), or a
        sitting kept past the epochs its metrics say the run trained in all."""
        super().__post_init__()
        if self.file != f"{self.name}.pt":
            raise ValueError(f"ManifestRow(): file must be the name's own file, "
                             f"{self.name + '.pt'!r}, got file={self.file!r} for "
                             f"name={self.name!r}; pass file=name + '.pt', as save writes it")
        if self.metrics is None or self.metrics.epochs is None:
            return
        for i, sitting in enumerate(self.sittings or ()):
            check_order("ManifestRow", "a run goes on from each sitting's kept epoch", **{
                f"sittings[{i}].kept_epoch": sitting.kept_epoch,
                "metrics.epochs": self.metrics.epochs})


# what a caller records in a row (``checkpoints.save``, ``checkpoints.record``); the others are
# the checkpoint's own
RECORDED = frozenset(f.name for f in fields(ManifestRow)) - {"name", "file", "sha256", "arch",
                                                              "torch_version"}


@checked
def check_recorded(where: str, **recorded) -> None:
    """Refuse, before anything is written, a field a caller may not record in a row (``where``:
    ``save`` or ``record``) or a value its declaration refuses, in ``where``'s words (not the
    row's: the learner called ``save``)."""
    unknown = sorted(set(recorded) - RECORDED)
    own = [name for name in unknown if name in {f.name for f in fields(ManifestRow)}]
    if own:  # the file, its sha256, its class and the torch version: the checkpoint's own
        raise TypeError(f"{where}(): {own[0]} is a field of a manifest row that {where} records "
                        f"itself, from the checkpoint (its file, sha256, class and torch version)"
                        f", got {own[0]}={recorded[own[0]]!r}; leave it out")
    if unknown:
        raise TypeError(f"{where}(): {unknown[0]} is not a field of a manifest row; record one of "
                        f"{', '.join(sorted(RECORDED))} (a test accuracy is one of the metrics: "
                        "metrics=manifest_rows.Metrics(test_accuracy=...))")
    declared = typing.get_type_hints(ManifestRow, include_extras=True)  # each "X | None"
    for name, value in recorded.items():  # refused in the words of X, not of "X | None"
        words = next((m for m in typing.get_args(typing.get_args(declared[name])[0])
                      if isinstance(m, Spec)), None)
        check_value(where, name, Annotated[declared[name], words] if words else declared[name],
                    value)


# the side of the face scenes (data.faces draws them so), which every face model reads
FACE_SIDE = 32


@checked
def built(row: Record(ManifestRow), cls: type, hparams: dict[str, Any]) -> Any:
    """The model of class ``cls`` a checkpoint's ``row`` and saved ``hparams`` make, untrained:
    made with its ``hparams``, and, for a face model (its row's metrics hold face rates) of a
    class made for one image size but saved without it (the shipped face CNNs: "any size"), the
    face scenes' side, so that its ``predict`` and ``score`` refuse an MNIST digit as
    ``face_probability`` does. A ``cls`` that is not the row's ``arch`` is refused: the model
    would be another than the one the row describes."""
    if cls.__name__ != row.arch:
        raise ValueError(f"built(): cls must be the row's arch, {row.arch}, got {cls.__name__}; "
                         f"pass checkpoints.model_class({row.arch!r})")
    face = row.metrics is not None and row.metrics.face_rate is not None
    if face and hparams.get("image_size") is None \
            and "image_size" in inspect.signature(cls).parameters:
        return cls(**{**hparams, "image_size": FACE_SIDE})
    return cls(**hparams)


# what a reader asks of a manifest row, in this order (notebook 05 prints them)
RECORD_KEYS = ("description", "command", "seed", "train_examples", "train_time_s", "device",
               "metrics", "notes")


@checked
def format_record(row: Record(ManifestRow)) -> str:
    """A manifest row as text: one ``field: value`` line for each of ``RECORD_KEYS`` it has; its
    metrics as the manifest keeps them, without ``validation_by_epoch`` (a curve, drawn by
    ``figures.training_curves.draw_held_out_curves``)."""
    lines = []
    for key in RECORD_KEYS:
        value = getattr(row, key)
        if key == "metrics" and value is not None:
            value = {k: v for k, v in json_row(value).items() if k != "validation_by_epoch"}
        if value is not None:
            lines.append(f"{key:>15}: {value}")
    return "\n".join(lines)


@checked
def manifest_misfit(held: Any) -> str | None:
    """What a manifest's JSON ``held`` (or why it is none, a string) holds that save never writes
    (``{"checkpoints": [rows, each with its name]}``), in words; None when it holds that."""
    if isinstance(held, str):
        return held
    if not isinstance(held, dict):
        return f"a JSON {type(held).__name__}: {held}"
    rows = held.get("checkpoints")
    if not isinstance(rows, list):
        return f"'checkpoints': {rows}" if "checkpoints" in held else f"no 'checkpoints' in {held}"
    return next((f"the row {row}" for row in rows
                 if not isinstance(row, dict) or not isinstance(row.get("name"), str)), None)

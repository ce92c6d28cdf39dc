"""The training command lines: the recipes (``capsedu.recipes``), and the plumbing the recorded
experiments share (``capsedu.ablations``, ``capsedu.bug_zoo``, ``capsedu.parts.training``).

    python -m capsedu.train capsnet-mnist-live --limit 1000   # a trial run, into <data root>/runs
    python -m capsedu.train capsnet-mnist-live --replace-shipped  # rebuild the shipped checkpoint
    python -m capsedu.train --list     # every recipe, and the command that trains it

A run writes its checkpoint and manifest row to <data root>/runs/ (or --out): the shipped
checkpoints in <data root>/checkpoints/, which the notebooks load, are replaced only with
--replace-shipped (their notes are kept).
"""

import argparse
import dataclasses
import difflib
import errno
import os
import re
import sys
import tempfile
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import torch
from filelock import FileLock, Timeout
from pydantic import AfterValidator

from . import checkpoints
from .course_parser import CourseParser, EachOnce
from .course_settings import Argv, Seed, Seeds, Text
from .folder_lock import LOCK_FILE
from .json_records import json_row
from .recipe_run import TooFewExamples, run_recipe
from .recipes import RECIPES, Epochs, Limit, Threads, command_line, command_recipe, seeded_name
from .shipped_folders import checkpoint_folder, is_shipped, state_folder
from .validate import Has, Int, Spec, checked


@checked
def integer(declaration: Any, flag: str) -> Callable[[str], int]:
    """An ``argparse`` type made from a declaration (``validate.Int``) for the option ``flag``: the
    text as the integer it takes, else argparse's error in the boundary's words (``<flag> must be
    <what it takes>, got '<text>'``: called directly too), before any training."""
    spec = next((m for m in typing.get_args(declaration)[1:] if isinstance(m, Spec)), None)
    if spec is None or spec.kind != "int":
        raise TypeError(f"integer(): declaration must be a declaration of whole numbers made by "
                        f"validate.Int, got {declaration!r}; pass one, e.g. Int('epochs', ge=1)")

    @checked
    def parse(text: Any) -> int:
        if not isinstance(text, str):  # argparse hands it the option's text; a caller may not
            raise TypeError(f"{flag} must be text to read as {spec.expected}, got {text!r}; pass "
                            "the option's text, e.g. '3'")
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or (spec.low is not None and value < spec.low) \
                or (spec.high is not None and value > spec.high):
            raise argparse.ArgumentTypeError(f"{flag} must be {spec.expected}, got {text!r}")
        return value

    return parse


# The command lines' numbers, declared as the functions they reach declare them
epochs_int = integer(Epochs, "--epochs")
limit_int = integer(Limit, "--limit")
seed_int = integer(Seed, "--seed (or each of --seeds)")
threads_int = integer(Threads, "--threads")


def _option(value: str) -> str:
    """What ``Option`` declares: a command-line option, two dashes and its name ("--out")."""
    if not re.fullmatch(r"--\w[\w-]*", value):
        raise ValueError(f"must be a command-line option such as '--out' (the one whose folder it "
                         f"is, named when it is refused), got {value!r}; pass it with its two "
                         "dashes")
    return value


# the command-line option a value came by, which its refusal names: "--out", "--state"
Option = Annotated[str, AfterValidator(_option)]


@checked
def out_folder(text: str, flag: Option = "--out") -> Path:
    """An ``argparse`` type: the folder a command writes into (``~`` expanded), checked before any
    training, naming its ``flag``. It may not exist yet (it is made, with its parents), but it is
    not a file, not under a file, nor in a data set's folder or the data root outside its
    ``runs/`` (``checkpoints.check_not_shipped``; a shipped folder is refused later, without
    ``--replace-shipped``), and the folder it is or would be made in is writable (``unwritable``:
    asked after those checks, and never by a file made in a shipped folder)."""
    if not text.strip():  # Path("") is the current folder
        raise argparse.ArgumentTypeError(f"{flag} must name a folder, got an empty one, which "
                                         "would write into the current folder; pass '.' to mean "
                                         "that")
    folder = Path(text).expanduser()
    # the folder itself, or the nearest folder above it that exists, where it would be made
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    here = "is" if existing == folder else f"would be made in {str(existing)!r}, which is"
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} {here} a file, not a folder; name a folder to "
                                         "write into (one that does not exist yet is made)")
    try:  # the repository's data/ or MNIST/ taken for a folder of one's own
        folder = checkpoints.check_not_shipped(folder, flag, replace_shipped=True)
    except (PermissionError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if (denied := unwritable(existing)) is not None:
        raise argparse.ArgumentTypeError(f"{text!r} {here} not writable by you ({denied}); name "
                                         "a folder you can write to, or change its permissions")
    return folder


@checked
def unwritable(folder: Path) -> str | None:
    """Why this user cannot write in ``folder`` (an existing one), or None if it can: a file made
    there and gone (``os.access`` says yes to root for /proc or /sys); a shipped folder (refused
    after parsing, without ``--replace-shipped``) is only asked ``os.access``, so that not even a
    probe's file is ever made in it."""
    if is_shipped(folder):
        return None if os.access(folder, os.W_OK) else os.strerror(errno.EACCES)
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        return err.strerror
    return None


@checked
def state_file(text: str) -> str:
    """An ``argparse`` type: a resumable state file (``~`` expanded) whose folder can be written,
    checked before any training (``out_folder``), not after the first epoch has trained."""
    path = Path(text).expanduser()
    if not text.strip() or path.is_dir() or text.endswith(("/", os.sep)):  # '/': a folder
        raise argparse.ArgumentTypeError(f"--state must name a file, got {text!r}, which names "
                                         "a folder; name a file, e.g. data/runs/state.pt")
    out_folder(str(path.parent), "--state")
    try:  # a state goes among the course's files: not the package's source or the notebooks
        state_folder(checkpoints.check_not_shipped(path, "--state"), "--state")
    except (PermissionError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return str(path)


@checked
def check_state(parser: argparse.ArgumentParser, args: argparse.Namespace, out: Path) -> None:
    """Refuse a ``--state`` that is a file the run saves in ``out`` (its checkpoint, its manifest,
    the folder's lock: the state would be written over, or a resumed run would read a checkpoint
    as its state), or a folder above one (``out`` itself); before any training."""
    seed = RECIPES[args.name].seed if args.seed is None else args.seed
    files = {f"{seeded_name(args.name, seed)}.pt": "checkpoint", checkpoints.MANIFEST: "manifest",
             LOCK_FILE: "lock"}
    for file, kind in files.items():
        if args.state and (out / file).resolve().is_relative_to(Path(args.state).resolve()):
            parser.error(f"--state must be a file of its own, got {args.state}, which is "
                         f"{out / file} or a folder above it, where the run saves its {kind}; "
                         f"pass another, e.g. {out / 'state.pt'}")


@checked
def experiment_parser(command: Text, description: Text, limit: Any = Limit
                      ) -> argparse.ArgumentParser:
    """The command line of a recorded experiment (``python -m capsedu.ablations``, ``.bug_zoo``):
    ``--limit``, ``--threads`` and ``--replace-shipped``; the experiment adds its own options.
    ``limit``: the declaration of what ``--limit`` reaches (``recipes.Limit``: training examples;
    ``adversarial.TestDigits``), which bounds it as it is parsed."""
    parser = CourseParser(prog=command, description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=integer(limit, "--limit"),
                        help="train and test on the first N images only (a trial)")
    parser.add_argument("--threads", type=threads_int, help="CPU threads (default: all)")
    parser.add_argument("--replace-shipped", action="store_true",
                        help="write into the shipped results instead of <data root>/runs")
    parser.add_argument("--out", type=out_folder,
                        help="folder of the results file (default: <data root>/runs/results, or "
                        "<data root>/results with --replace-shipped)")
    return parser


@checked
def results_file(args: argparse.Namespace, file: str) -> Path:
    """Where an experiment's command line records its results ``file``: in ``--out``, else as
    ``checkpoints.results_path`` says (the shipped folder only with ``--replace-shipped``). A
    trial (``--limit``) is never recorded as the shipped results."""
    if args.limit and args.replace_shipped:
        raise SystemExit(f"--limit {args.limit} with --replace-shipped: a trial on part of the "
                         "data is never recorded as the shipped results; drop one of them")
    if not args.out:
        return checkpoints.results_path(file, args.replace_shipped)
    check_out_shipped(args.out / file, args)
    try:
        return checkpoints.check_not_shipped(args.out / file, "--out's results file",
                                             args.replace_shipped)
    except PermissionError as err:
        raise SystemExit(str(err)) from None


@checked
def add_budget(parser: argparse.ArgumentParser,
               budget: Int("the recipes' budget of epochs", ge=1)) -> None:
    """``--epochs``, the budget of every run of a recorded experiment (the recipes' ``budget`` by
    default), which the course's rule may stop earlier."""
    parser.add_argument("--epochs", type=epochs_int, default=budget,
                        help="the budget of every run, which the course's rule may stop earlier "
                        f"(default: the recipes', {budget})")


@checked
def parse_experiment(parser: argparse.ArgumentParser,
                     argv: Argv | None) -> argparse.Namespace:
    """The arguments ``argv`` given to an experiment's command line (``parser``: its
    ``experiment_parser``, or ``train_over_seeds``'), torch set to ``--threads`` CPU threads when
    they name them."""
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    return args


@checked
def refuse_other_budgets(parser: argparse.ArgumentParser, path: Path,
                         recorded: dict[str, tuple[int, int | None]],
                         args: argparse.Namespace) -> None:
    """Refuse to add runs to the results file ``path`` when it holds runs made with another
    ``--epochs`` or ``--limit`` (``recorded``: name -> (budget, limit) of each run it holds): a file
    holds runs of one budget only, so that they can be compared."""
    other = [name for name, made_with in recorded.items()
             if made_with != (args.epochs, args.limit)]
    if other:
        parser.error(f"{path} holds runs made with other --epochs or --limit ({', '.join(other)}):"
                     " finish it with their flags, or write elsewhere (--out)")


@checked
def test_accuracy(record: Has("a finished run", "test_accuracy", "train_time_s",
                              source="a run's record, e.g. one that record_missing wrote")) -> str:
    """A finished run of a recorded experiment (a record with ``test_accuracy`` and
    ``train_time_s``) in a few words: its test accuracy and time."""
    return f"test accuracy {100 * record.test_accuracy:.2f} %, {record.train_time_s:.0f} s"


@checked
def record_missing(path: Path, runs: dict[str, Callable[..., Any]], command: str,
                   summary: Callable[[Any], str] = test_accuracy,
                   replace_shipped: checkpoints.ReplaceShipped = False) -> None:
    """Run each of ``runs`` that the results file ``path`` does not hold yet (name -> a function
    that trains and tests, resumably from the file ``state_path=``, and returns the run's record,
    a frozen dataclass with a ``command`` field), and write it to ``path`` as soon as it is done
    (``checkpoints.add_result``), its ``command`` the line that regenerates it. An interrupted
    experiment resumes where it stopped: finished runs are skipped, and the unfinished one resumes
    from its last epoch, kept in ``<data root>/runs/state/`` (never beside the shipped results).
    Several processes may work through one experiment at once: each run is trained by the first
    that takes its state file's lock, and skipped by the others. Each finished run prints its
    name and ``summary(record)``."""
    for name, run in runs.items():
        state = checkpoints.runs_dir() / "state" / f"{path.stem}-{name}.pt"
        state.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(f"{state}.lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:  # another process is training this run
            continue
        try:
            # finished here or by another process
            if name in checkpoints.recorded_names(path, replace_shipped):
                continue
            try:
                record = run(state_path=state)
            except TooFewExamples as err:  # --limit below the held-out examples: said, not a trace
                raise SystemExit(f"{command}: --limit must leave examples to train on: "
                                 f"{err.detail}") from None
            checkpoints.add_result(path, name, dataclasses.replace(record, command=command),
                                   replace_shipped)
            state.unlink(missing_ok=True)
        finally:
            lock.release()
            Path(lock.lock_file).unlink(missing_ok=True)  # whoever comes next re-reads the results
        print(f"{name}: {summary(record)}")


@checked
def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--out`` and ``--replace-shipped``, shared by the training commands."""
    parser.add_argument("--out", type=out_folder,
                        help="checkpoint folder (default: <data root>/runs, or "
                        "<data root>/checkpoints with --replace-shipped)")
    parser.add_argument("--replace-shipped", action="store_true",
                        help="replace the shipped checkpoint and its manifest row (keeping its "
                        "notes); without it a shipped checkpoint is never overwritten")


@checked
def output_folder(args: argparse.Namespace) -> Path:
    """Where a training command writes: ``--out``, else the shipped folder with
    ``--replace-shipped``, else ``<data root>/runs``. Checked before training, naming ``--out``:
    a shipped folder without ``--replace-shipped``, a folder of other files (the repository,
    notebooks, /), a manifest that the save after training could not read."""
    folder = args.out or (checkpoints.checkpoint_dir() if args.replace_shipped
                          else checkpoints.runs_dir())
    try:
        if args.out:
            check_out_shipped(args.out, args)
            checkpoints.check_not_shipped(args.out, "--out", args.replace_shipped)
            checkpoint_folder(args.out, "--out")
        checkpoints.rows_in(folder, "save")
    except (PermissionError, ValueError) as err:
        said = str(err).removeprefix("save(): ")
        raise SystemExit(said if said == str(err) else f"{'--out' if args.out else folder}: "
                         f"the run saves into it after training, and {said}") from None
    return folder


@checked
def check_out_shipped(path: Path, args: argparse.Namespace) -> None:
    """Refuse ``--replace-shipped`` with an ``--out`` outside the shipped folders (``path``: where
    the command would write): one option asks to replace the shipped files, the other to write
    elsewhere, and nothing shipped would be replaced; refused before any run."""
    if args.replace_shipped and not checkpoints.is_shipped(path):
        raise SystemExit(f"--replace-shipped with --out {args.out}: --replace-shipped replaces the "
                         "shipped files, --out writes outside them, so nothing shipped would be "
                         "replaced; drop one of them")


@checked
def train_over_seeds(prog: str, description: str, models: list[str] | tuple[str, ...],
                     seeds: Seeds, train_and_save: Callable[..., list],
                     argv: Argv | None = None) -> int:
    """The command line of an experiment that trains some of ``models`` from each of ``seeds``
    (07's face models, 10's face ViTs): ``--models``, ``--seeds``, ``--out``,
    ``--replace-shipped``, ``--threads``; ``train_and_save(models, seeds, folder, command,
    replace_shipped=...)`` trains and saves them and returns their manifest rows
    (``manifest_rows.ManifestRow``), printed."""
    parser = CourseParser(prog=prog, description=description)
    parser.add_argument("--models", nargs="+", default=list(models), choices=models,
                        action=EachOnce)
    parser.add_argument("--seeds", nargs="+", type=seed_int, default=list(seeds), action=EachOnce)
    add_output_arguments(parser)
    parser.add_argument("--threads", type=threads_int, help="CPU threads for torch (default: all)")
    args = parse_experiment(parser, argv)
    command = command_line(prog,  # the models only when chosen
                           models=None if args.models == list(models) else args.models,
                           seeds=args.seeds, threads=args.threads)
    out = output_folder(args)
    try:  # refused before any training when it would replace a shipped checkpoint
        entries = train_and_save(args.models, args.seeds, out, command,
                                 replace_shipped=args.replace_shipped)
    except PermissionError as err:
        parser.error(str(err))
    for entry in entries:
        print(f"saved {entry.file} in {out}: {json_row(entry.metrics)}, {entry.train_time_s} s")
    return 0


@checked
def check_not_trial(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse ``--replace-shipped`` with an option that makes the run differ from the recipe that
    made the shipped checkpoint: a trial, which never replaces a shipped file. ``--limit`` (part
    of the data), a budget of ``--epochs`` under the one the shipped checkpoint trained (its own,
    or a longer one, may), a ``--seed`` of which the shipped folder holds no checkpoint (each row
    records its seed: the recipe's, or the other seeds shipped, ``seeded_name``)."""
    recipe = RECIPES[args.name]
    seed = recipe.seed if args.seed is None else args.seed
    name, shipped = seeded_name(args.name, seed), checkpoints.read_manifest()
    drop = "or drop --replace-shipped to write the trial into <data root>/runs"
    if args.limit:
        parser.error(f"--limit {args.limit} with --replace-shipped: a trial on part of the data "
                     "never replaces a shipped checkpoint; drop one of them")
    if seed != recipe.seed and name not in shipped:
        seeds = sorted(row.seed for key, row in shipped.items()  # its own, -seed<n>: seeded_name
                       if args.name in (key, key.rpartition("-seed")[0]) and row.seed is not None)
        parser.error(f"--seed {seed} with --replace-shipped: the shipped {args.name} was trained "
                     f"from seed {recipe.seed}, and no {name} is shipped (the seeds shipped: "
                     f"{seeds or 'none'}), so this run is a trial, which never replaces one; pass "
                     f"one of those seeds, {drop}")
    trained = shipped[name].metrics.epochs if name in shipped and shipped[name].metrics else None
    if args.epochs and trained and args.epochs < trained:
        parser.error(f"--epochs {args.epochs} with --replace-shipped: the shipped {name} trained "
                     f"{trained} epochs, and a shorter run is a trial, which never replaces it; "
                     f"pass --epochs {trained} or more, {drop}")


@checked
def list_recipes(parser: argparse.ArgumentParser, name: str | None) -> int:
    """``--list``: every recipe and the command that trains it; ``--list NAME``, that recipe
    only (what a learner asks; a name that is no recipe is refused, with the nearest)."""
    if name is not None and name not in RECIPES:
        close = difflib.get_close_matches(name, list(RECIPES), n=3)
        parser.error(f"name: --list NAME lists the recipe NAME, got {name!r}, no recipe; "
                     + (f"did you mean {' or '.join(close)}? " if close else "")
                     + "--list alone lists them all")
    for listed, recipe in RECIPES.items():
        if name in (None, listed):
            print(f"{listed}: {recipe.description} ({recipe.epochs} epochs, seed {recipe.seed}; "
                  f"python -m {recipe.trainer})")
    return 0


@checked
def main(argv: Argv | None = None) -> int:
    parser = CourseParser(prog="python -m capsedu.train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", nargs="?", help="recipe to train (see --list)")
    parser.add_argument("--list", action="store_true", help="list the recipes and exit")
    parser.add_argument("--epochs", type=epochs_int, help="override the recipe's epochs")
    parser.add_argument("--seed", type=seed_int, help="override the recipe's seed")
    parser.add_argument("--limit", type=limit_int, help="train on the first N examples only")
    add_output_arguments(parser)
    parser.add_argument("--threads", type=threads_int,
                        help="CPU threads for torch (default: all)")
    parser.add_argument("--state", type=state_file,
                        help="resumable training state: saved after every epoch, "
                        "and resumed from when the file exists")
    parser.add_argument("--continue-from", metavar="FOLDER", type=os.path.expanduser,
                        help="go on training this recipe's checkpoint saved in FOLDER (e.g. "
                        "data/checkpoints) from the epoch it kept, until the rule or the budget "
                        "stops it")
    args = parser.parse_args(argv)
    given = [flag for flag, value in (("--epochs", args.epochs), ("--seed", args.seed),
                                      ("--limit", args.limit), ("--out", args.out),
                                      ("--replace-shipped", args.replace_shipped),
                                      ("--threads", args.threads), ("--state", args.state),
                                      ("--continue-from", args.continue_from))
             if value is not None and value is not False]
    if args.list and given:  # --list trains nothing: its options would be dropped
        parser.error(f"--list: lists the recipes and trains nothing, got it with "
                     f"{', '.join(given)}; drop {', '.join(given)} to list, or --list to train")
    if args.name is None and given:  # nothing would train: say so
        parser.error(f"name: a recipe to train is required with {', '.join(given)}, got none; "
                     "name one of --list first, e.g. python -m capsedu.train capsnet-mnist-live "
                     "--limit 1000")
    if args.list or args.name is None:
        return list_recipes(parser, args.name)
    try:  # an unknown recipe, or one that another command trains and records
        command_recipe(args.name, "")
    except ValueError as err:
        parser.error(str(err))
    if args.replace_shipped:
        check_not_trial(parser, args)
    if args.threads:
        torch.set_num_threads(args.threads)
    out = output_folder(args)
    check_state(parser, args, out)
    try:  # refused before any training when it would replace a shipped checkpoint
        entry = run_recipe(args.name, args.epochs, args.limit, args.seed, out,
                           state_path=args.state, replace_shipped=args.replace_shipped,
                           continue_folder=args.continue_from)
    except (PermissionError, ValueError) as err:  # a shipped folder in the way, or a bad argument
        parser.error(str(err))
    if args.threads:  # part of how the run was timed: keep it in the recorded command
        entry = checkpoints.record(entry.name, out, args.replace_shipped,
                                   command=command_line(entry.command, threads=args.threads))
    print(f"saved {entry.file} in {out} (sha256 {entry.sha256[:12]}...): "
          f"{json_row(entry.metrics)}, {entry.train_time_s} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

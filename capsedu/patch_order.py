"""What a vision transformer keeps of position (10 §8), measured.

Two small vision transformers (``capsedu.vit``), with and without position embeddings, are
trained on the face CNNs' training images (``parts.training.training_set``, seeds 0, 1, 2) by
their rows of ``recipes.RECIPES`` (``faces-vit``, ``faces-vit-no-positions``): the epoch is chosen
on held-out faces and non-faces (``parts.curves``' seed 500) and a run stops by the course's rule,
so each manifest row holds its held-out curve.

    python -m capsedu.patch_order --seeds 0 1 2 --threads 1 --replace-shipped

They are then measured beside notebook 07's bag-of-parts CNN, deep CNN and pose capsules (the
shipped seeds): their face rates on the scramble kinds of 01/07 and the never-seen kinds
(``rates``), compared over seeds and, seed by seed, on the same images (``comparisons``), and
their faces-vs-non-faces accuracy when each image's tiles are shuffled on grids of several sizes
(``shuffled_accuracy``; 8 x 8 tiles of 4 pixels are the ViT's own patches, to which the ViT
without position embeddings is blind: ``largest_change``).
"""

import argparse
import time
from pathlib import Path

import torch

from . import checkpoints, config
from .convergence import PATIENCE, chosen_epoch, converged, held_out_scores
from .data import faces
from .loop import fit
from .parts.curves import VALIDATION, VALIDATION_SEED
from .parts.scoring import face_rates, held_out
from .parts.training import training_set
from .recipes import RECIPES, command_line
from .train import add_output_arguments, output_folder, seed_int, threads_int
from .validate import Choice, Flag, Seed, checked

COMMAND = "python -m capsedu.patch_order"
# the two transformers, by name, and their recipes in recipes.RECIPES
VITS = {"ViT": "faces-vit", "ViT without positions": "faces-vit-no-positions"}
SEEDS = (0, 1, 2)
Vit = Choice("one of the face ViTs (VITS)", *VITS)


@checked
def checkpoint_name(name: Vit, seed: Seed) -> str:
    """The shipped checkpoint of ViT ``name`` trained with ``seed``, e.g. ``faces-vit-seed0``."""
    return f"{VITS[name]}-seed{seed}"


@checked
def validation_set() -> tuple[torch.Tensor, torch.Tensor]:
    """The held-out images a ViT's epoch is chosen on: ``parts.curves.VALIDATION`` faces and as
    many non-faces of ``VALIDATION_SEED`` (neither a training nor a test seed), with labels."""
    x_face, x_non = (held_out(kind, VALIDATION, VALIDATION_SEED)[0] for kind in ("face", "nonface"))
    labels = [faces.LABELS["face"]] * VALIDATION + [faces.LABELS["nonface"]] * VALIDATION
    return torch.cat([x_face, x_non]), torch.tensor(labels)


@checked
def train_vit(name: Vit, seed: Seed = 0, progress: Flag("whether to show a progress bar") = True):
    """Train ViT ``name`` by its recipe with ``seed`` on ``training_set(recipe.examples, seed)``,
    keeping the epoch best on ``validation_set`` and stopping by the recipe's patience. Returns
    ``(model, history)``: the model on the CPU in eval mode, ``fit``'s history."""
    recipe = RECIPES[VITS[name]]
    torch.manual_seed(seed)  # the initial weights depend on the seed too
    model = recipe.build()
    history = fit(model, training_set(recipe.examples, seed), recipe.epochs, recipe.batch_size,
                  recipe.lr, recipe.lr_decay, seed, progress=progress,
                  validation=validation_set(), patience=recipe.patience)
    return model.cpu().eval(), history


@checked
def run_metrics(model: torch.nn.Module, history: list[dict], epochs: int) -> dict:
    """A trained ViT's manifest metrics: its faces-vs-non-faces accuracy on the test sets (400
    of each, as the face CNNs' rows) and its held-out curve, the epoch kept, and whether the
    course's rule stopped it (``converged``) before its budget of ``epochs``."""
    rates = face_rates(model, ("face", "nonface"), n=400)
    scores = held_out_scores(history)
    return {"held_out_accuracy": round((rates["face"] + 1 - rates["nonface"]) / 2, 4),
            "face_rate": round(rates["face"], 4), "nonface_rate": round(rates["nonface"], 4),
            "validation_examples": 2 * VALIDATION, "validation_seed": VALIDATION_SEED,
            "validation_by_epoch": scores, "chosen_epoch": chosen_epoch(history)["epoch"],
            "epochs": len(history), "max_epochs": epochs, "patience": PATIENCE,
            "converged": converged(scores, PATIENCE)}


@checked
def train_and_save(names: list[Vit] | tuple[Vit, ...] = tuple(VITS),
                   seeds: list[Seed] | tuple[Seed, ...] = SEEDS,
                   root: str | Path | None = None, command: str = "",
                   progress: Flag("whether to show progress bars") = True,
                   replace_shipped: Flag("True only to write into the shipped checkpoints") = False
                   ) -> list[dict]:
    """Train every ViT of ``names`` with every seed (``train_vit``) and save it in ``root``
    (``checkpoints.save``) with ``run_metrics``; ``root`` defaults to ``<data root>/runs`` (the
    shipped checkpoints with ``replace_shipped=True``; checked before any training)."""
    folders = {(name, seed): checkpoints.check_writable(checkpoint_name(name, seed), root,
                                                        replace_shipped)
               for name in names for seed in seeds}
    entries = []
    for (name, seed), folder in folders.items():
        start = time.perf_counter()
        model, history = train_vit(name, seed, progress)
        seconds = time.perf_counter() - start
        recipe = RECIPES[VITS[name]]
        entries.append(checkpoints.save(
            model, checkpoint_name(name, seed), folder, replace_shipped,
            description=recipe.description, command=command, seed=seed,
            device=str(config.device()), train_examples=recipe.examples,
            train_time_s=round(seconds, 1), threads=torch.get_num_threads(),
            metrics=run_metrics(model, history, recipe.epochs)))
    return entries


@checked
def main(argv: list[str] | None = None) -> int:
    """``python -m capsedu.patch_order``: train 10 §8's face ViTs, into <data root>/runs (or
    --out); into the shipped checkpoints only with --replace-shipped."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=main.__doc__)
    parser.add_argument("--models", nargs="+", default=list(VITS), choices=list(VITS))
    parser.add_argument("--seeds", nargs="+", type=seed_int, default=list(SEEDS))
    add_output_arguments(parser)
    parser.add_argument("--threads", type=threads_int, help="CPU threads for torch (default: all)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    command = command_line(COMMAND, models=None if args.models == list(VITS) else args.models,
                           seeds=args.seeds, threads=args.threads)
    try:  # refused before any training when it would replace a shipped checkpoint
        entries = train_and_save(args.models, args.seeds, output_folder(args), command,
                                 replace_shipped=args.replace_shipped)
    except FileExistsError as err:
        parser.error(str(err))
    for entry in entries:
        print(f"saved {entry['file']}: {entry['metrics']}, {entry['train_time_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Harder to fool? Notebook 08's models under adversarial attack (notebook 11).

The seed says capsules should be "harder to fool with adversarial examples". This module measures
it on 08's parameter-matched pair (``affnist-capsnet``, ``affnist-cnn``) and the CapsNet trained
with 1 routing iteration (routing ablated), on 08's translated test digits (40x40 canvas), under
**equal budgets**: every model gets the same ``Budget`` (eps, steps, step size, random starts,
seed) on the same digits, and a digit counts as robust only if it survives the attack with every
loss of ``attacks.LOSSES`` (a loss that suits one model badly would flatter it):

* ``robust_accuracy``: which digits each model still reads right after an attack (``Attacked``,
  image by image, for ``statistics.paired`` between models);
* the recorded run (``python -m capsedu.adversarial``): every model at every eps of ``EPS``,
  with PGD and FGSM, the examples of each model tried on the others (transfer), more steps and
  restarts, the reconstruction detector (``capsedu.reconstruction_detector``) against the plain
  attacker and one who knows about it; ``capsedu.adversarial_record`` reads it, and the checks
  that the evaluation is not fooled by masked gradients (``adversarial_record.sanity``);
* what notebook 11 measures live (``live_digits``, the first of the recorded sample, so the
  record holds the same digits: ``adversarial_record.same_as_record``) and what its widget shows
  (``attack_state``).

    python -m capsedu.adversarial --threads 1 --replace-shipped   # results/adversarial.json
"""

import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial

import torch
from torch import nn

from . import attacks, checkpoints, course_settings, reconstruction_detector
from .adversarial_units import (
    BUDGET,
    CAPSNET,
    CAPSNETS,
    MAX_IMAGES,
    MODELS,
    AdaptiveSettings,
    AdaptiveUnit,
    Attack,
    AttackUnit,
    Budget,
    CleanUnit,
    Distance,
    Eps,
    Loss,
    Losses,
    ModelsUnit,
    RunSettings,
    SanityRun,
    SanitySettings,
    SanityUnit,
    Stamp,
    Trained,
)
from .capsnet import CapsNet, LogitsCNN
from .checks import check_same
from .convergence import finished, training_status
from .course_settings import Argv, Models, Name
from .data import transformed_mnist
from .data.mnist import fixed_sample
from .derived import check_read
from .recipes import command_line
from .train import experiment_parser, parse_experiment, record_missing, results_file
from .validate import Array, CheckedRecord, Choice, Int, Tensor, check_value, checked

RESULTS = "adversarial.json"
COMMAND = "python -m capsedu.adversarial"
SAMPLE = 400  # test digits of the recorded run (mnist.fixed_sample): an hour on a 2-core CPU
EPS = (0.05, 0.1, 0.2, 0.3)  # the recorded run's radii; 0 is the clean reading
SANITY_EPS, SANITY_IMAGES = 0.1, 100  # more steps and restarts: at one eps, on fewer digits
SANITY_STEPS, SANITY_RESTARTS = 100, 5
SANITY_LOSS = "margin"
ADAPTIVE_EPS = (0.1, 0.2)
ADAPTIVE_WEIGHTS = (0.1, 0.3)  # the weight of the reconstruction distance in the attacker's loss
ADAPTIVE_LOSS = "margin"
BATCH = 50  # images attacked at once: a CapsNet's votes and their gradient, about 100 MB
# units(), --limit: 2,500, so that each attack of the run (its digits x BUDGET's 20 steps) stays
# within attacks.MAX_IMAGE_PASSES
TestDigits = Int("test digits of the recorded run", ge=1,
                 le=attacks.MAX_IMAGE_PASSES // (BUDGET.steps * BUDGET.restarts))

Images = Tensor("test images [N, 1, 40, 40]", ndim=4, pixels=True)
Labels = Tensor("their labels [N]", ndim=1)
Right = Tensor("which digits it reads right [n]", ndim=1)
Digit = Int("a digit's class", ge=0, le=9)
Against = Choice("the model attacked", "capsnet", "cnn")


@dataclass(frozen=True)
class Attacked(CheckedRecord):
    """Which test digits ``model`` still reads right after ``attack`` at ``eps`` (made on
    ``source``: the model itself, or another one for a transfer attack), one ``[n]`` boolean
    tensor per loss of ``losses``."""

    model: Name
    source: Name
    attack: Attack
    eps: Eps
    losses: Losses
    right_by_loss: tuple[Right, ...]

    def __post_init__(self):
        super().__post_init__()  # and one [n] per loss, of one n
        check_same("Attacked", "length", "pass one reading per loss",
                   losses=len(self.losses), right_by_loss=len(self.right_by_loss))
        check_same("Attacked", "digits", "pass each loss's reading of the same digits",
                   **{f"right_by_loss[{i}]": len(r) for i, r in enumerate(self.right_by_loss)})

    @property
    def right(self) -> torch.Tensor:
        """``[n]``: read right after every loss's example (the strongest attack, per image)."""
        return torch.stack(self.right_by_loss).all(dim=0)

    @property
    def accuracy(self) -> float:
        return self.right.float().mean().item()

    @checked
    def accuracy_under(self, loss: Loss) -> float:
        """The accuracy against the examples of one loss alone (one of ``losses``)."""
        check_value("Attacked.accuracy_under", "loss", Choice("a loss this attack used",
                                                              *self.losses), loss)
        return self.right_by_loss[self.losses.index(loss)].float().mean().item()


@checked
def sample_digits(n: Int("test digits", ge=1, le=MAX_IMAGES) | None = SAMPLE):
    """08's translated test digits on the 40x40 canvas, the first ``n`` of the course's fixed
    sample (``mnist.fixed_sample``): ``(rows [n], images [n, 1, 40, 40], labels [n])``."""
    rows = fixed_sample(n)
    return (rows, *transformed_mnist.translated_mnist(train=False, rows=rows))


@checked
def live_digits():
    """The digits notebook 11 attacks live (a few seconds a digit on 2 cores): the first 48 of
    the recorded sample, 12 in quick mode, so the record holds every one of them."""
    return sample_digits(course_settings.pick(full=48, quick=12))


@checked
def load_models() -> dict[str, nn.Module]:
    """The three shipped models, by name (``MODELS``), in eval mode."""
    return {name: checkpoints.pretrained(name).eval() for name in MODELS}


@checked(reads=("model", "images"))
def examples(model: nn.Module, images: Images, labels: Labels,
             attack: Attack, eps: Eps, loss: Loss, budget: Budget = BUDGET,
             penalty: attacks.Objective | None = None) -> torch.Tensor:
    """Adversarial examples ``[N, 1, 40, 40]`` made on ``model`` with ``attack`` at ``eps`` and
    ``loss``, ``BATCH`` images at a time, within ``budget`` (``penalty``: ``attacks.pgd``'s).
    PGD on more than ``attacks.MAX_IMAGE_PASSES`` image-passes in all (N x steps x restarts) is
    refused before any pass (``attacks.check_image_passes``)."""
    if attack == "pgd":
        attacks.check_image_passes("examples", len(images), budget.steps, budget.restarts)
    attacks.check_attackable("examples", "model", model, images, (loss,))
    def batch(x, y, seed):  # one batch of examples; each batch its own random starts
        if attack == "fgsm":
            return attacks.fgsm(model, x, y, eps, loss)
        return attacks.pgd(model, x, y, eps, budget.steps, budget.step_size(eps), loss,
                           budget.restarts, budget.random_start, seed, penalty)

    return torch.cat([batch(images[i:i + BATCH], labels[i:i + BATCH], budget.seed + i).cpu()
                      for i in range(0, len(images), BATCH)])


@checked(reads=("model", "images"))
@torch.no_grad()
def reads_right(model: nn.Module, images: Images, labels: Labels) -> torch.Tensor:
    """``[N]``: whether ``model`` reads each image as its label, ``BATCH`` at a time."""
    attacks.check_attackable("reads_right", "model", model, images, ())
    return torch.cat([~attacks.misreads(model, images[i:i + BATCH], labels[i:i + BATCH]).cpu()
                      for i in range(0, len(images), BATCH)])


@checked(reads=("models", "images"))
def robust_accuracy(models: Models, images: Images, labels: Labels, eps: Eps,
                    attack: Attack = "pgd",
                    budget: Budget = BUDGET) -> dict[str, Attacked]:
    """Each of ``models`` (name -> model) attacked white-box with the same ``attack``, ``eps`` and
    ``budget``, every loss of ``budget.losses``: name -> ``Attacked``. Each attack (one model, one
    loss) is bounded as ``examples``'s, refused before the first."""
    if attack == "pgd":
        attacks.check_image_passes("robust_accuracy", len(images), budget.steps, budget.restarts)
    for name, model in models.items():
        attacks.check_attackable("robust_accuracy", f"models[{name!r}]", model, images,
                                 budget.losses)
    found = {}
    for name, model in models.items():
        right = tuple(reads_right(model, examples(model, images, labels, attack, eps, loss,
                                                  budget), labels) for loss in budget.losses)
        found[name] = Attacked(name, name, attack, eps, budget.losses, right)
    return found


@dataclass(frozen=True)
class AttackState(CheckedRecord):
    """What notebook 11's widget shows of one test digit attacked (``attack_state``)."""

    label: Digit
    attack: Attack
    eps: Eps
    against: Against  # the model the example was made on
    image: Array("the digit [40, 40]", ndim=2)
    adversarial: Array("what both models see [40, 40]", ndim=2)
    capsnet_prediction: Digit
    cnn_prediction: Digit
    lengths: Array("the CapsNet's capsule lengths [10]", ndim=1)
    probabilities: Array("the CNN's softmax [10]", ndim=1)
    reconstruction: Array("the CapsNet's drawing from its longest capsule [40, 40]", ndim=2)
    distance: Distance  # ||x' - r(x')||
    threshold: Distance

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), drawings of other shapes than the
        digit, or probabilities that are no softmax (they sum to 1)."""
        super().__post_init__()
        check_same("AttackState", "shape", "pass what attack_state(...) gives",
                   image=self.image.shape, adversarial=self.adversarial.shape,
                   reconstruction=self.reconstruction.shape)
        if abs(self.probabilities.sum() - 1) > 1e-3:
            raise ValueError(f"AttackState(): probabilities must sum to 1 (the CNN's softmax), "
                             f"got {self.probabilities.sum():g}; pass the softmax of its scores")
        for name, scores in (("capsnet_prediction", "lengths"), ("cnn_prediction",
                                                                 "probabilities")):
            check_read("AttackState", "pass what attack_state(...) gives", name,
                       [getattr(self, name)], scores, getattr(self, scores))

    @property
    def flagged(self) -> bool:
        """Whether the reconstruction detector flags the adversarial digit."""
        return self.distance > self.threshold


@checked(reads=("capsnet", "cnn", "images"))
def attack_state(capsnet: CapsNet, cnn: LogitsCNN, images: Images, labels: Labels,
                 index: Int("which digit", ge=0, le=MAX_IMAGES), attack: Attack, eps: Eps,
                 against: Against, threshold: Distance, loss: Loss = "margin",
                 budget: Budget = BUDGET) -> AttackState:
    """Digit ``index`` of ``images`` attacked with ``attack`` at ``eps`` on the CapsNet or the CNN
    (``against``, within ``budget``, with ``loss``), and how both models then read it."""
    check_value("attack_state", "index", Int(f"which of the {len(images)} digits given",
                                             ge=0, le=len(images) - 1), index)
    x, y = images[index:index + 1], labels[index:index + 1]
    target = capsnet if against == "capsnet" else cnn
    adversarial = examples(target, x, y, attack, eps, loss, budget)
    with torch.no_grad():
        out = capsnet.eval()(adversarial)
        probabilities = torch.softmax(cnn.eval()(adversarial), dim=1)[0]
        distance = reconstruction_detector.reconstruction_distance(capsnet, adversarial).item()
    return AttackState(int(y[0]), attack, eps, against, x[0, 0].numpy(),
                       adversarial[0, 0].numpy(), int(out.lengths[0].argmax()),
                       int(probabilities.argmax()), out.lengths[0].numpy(), probabilities.numpy(),
                       out.reconstruction[0, 0].numpy(), distance, threshold)


# --- the recorded run -------------------------------------------------------------------------


def _wrong(right: torch.Tensor) -> tuple[int, ...]:
    """The rows read wrong: how a record keeps ``[n]`` booleans."""
    return tuple(torch.nonzero(~right).flatten().tolist())


def _stamp(began: float) -> Stamp:
    """Where and when a unit begun at ``began`` (``time.time()``) ran."""
    now = datetime.now(timezone.utc)
    return Stamp(datetime.fromtimestamp(began, timezone.utc).isoformat(timespec="seconds"),
                 now.isoformat(timespec="seconds"), round(time.time() - began, 1),
                 str(course_settings.device()), torch.get_num_threads(), torch.__version__)


def _models_unit(state_path=None) -> ModelsUnit:
    """The weights the run attacks (``ModelsUnit``); ``finished``: converged and no longer rising
    (``convergence.finished``)."""
    began, manifest = time.time(), checkpoints.read_manifest()
    trained = [Trained(manifest[name].sha256, training_status(manifest[name].metrics),
                       finished(manifest[name].metrics.validation_by_epoch)) for name in MODELS]
    return ModelsUnit(*trained, _stamp(began))


def _clean_unit(n: int, state_path=None) -> CleanUnit:
    """The clean reading of the recorded sample and the detector's thresholds (``CleanUnit``)."""
    began = time.time()
    models = load_models()
    rows, images, labels = sample_digits(n)
    held = reconstruction_detector.held_out_images()
    return CleanUnit(
        tuple(rows.tolist()), tuple(labels.tolist()),
        {name: _wrong(reads_right(m, images, labels)) for name, m in models.items()},
        {name: _rounded(reconstruction_detector.distances(models[name], images))
         for name in CAPSNETS},
        {name: reconstruction_detector.threshold(models[name], held, name) for name in CAPSNETS},
        run_settings(n), _stamp(began))


def _attack_unit(source: str, attack: str, eps: float, n: int, budget: Budget = BUDGET,
                state_path=None) -> AttackUnit:
    """``source`` attacked at ``eps`` with every loss, the examples tried on every model
    (transfer) (``AttackUnit``)."""
    began = time.time()
    models = load_models()
    _, images, labels = sample_digits(n)
    made = {loss: examples(models[source], images, labels, attack, eps, loss, budget)
            for loss in budget.losses}
    return AttackUnit(
        source, attack, eps, budget,
        {target: {loss: _wrong(reads_right(model, x, labels)) for loss, x in made.items()}
         for target, model in models.items()},
        {name: {loss: _rounded(reconstruction_detector.distances(models[name], x))
                for loss, x in made.items()} for name in CAPSNETS},
        _stamp(began))


def _adaptive_unit(eps: float, weight: float, n: int, state_path=None) -> AdaptiveUnit:
    """PGD on ``ADAPTIVE_LOSS`` minus ``weight`` x the CapsNet's reconstruction distance
    (``AdaptiveUnit``)."""
    began = time.time()
    model = load_models()[CAPSNET]
    _, images, labels = sample_digits(n)
    budget = Budget(losses=(ADAPTIVE_LOSS,))  # BUDGET's steps, step size and starts
    x = examples(model, images, labels, "pgd", eps, ADAPTIVE_LOSS, budget,
                 reconstruction_detector.penalty(model, weight))
    return AdaptiveUnit(CAPSNET, eps, weight, ADAPTIVE_LOSS, budget,
                        _wrong(reads_right(model, x, labels)),
                        _rounded(reconstruction_detector.distances(model, x)), _stamp(began))


def _sanity_unit(source: str, n: int, state_path=None) -> SanityUnit:
    """More of the budget on the first ``n`` digits (``SanityUnit``, ``SanitySettings``)."""
    began = time.time()
    model = load_models()[source]
    _, images, labels = sample_digits(n)
    run = partial(_sanity_run, model, images, labels)
    return SanityUnit(source, SANITY_EPS, SANITY_LOSS,
                      more_steps=run(Budget(steps=SANITY_STEPS, losses=(SANITY_LOSS,))),
                      more_restarts=run(Budget(restarts=SANITY_RESTARTS, losses=(SANITY_LOSS,))),
                      usual=run(Budget(losses=(SANITY_LOSS,))), stamp=_stamp(began))


def _sanity_run(model: nn.Module, images: torch.Tensor, labels: torch.Tensor,
                budget: Budget) -> SanityRun:
    """PGD at ``SANITY_EPS`` with ``SANITY_LOSS`` under ``budget``: the rows ``model`` then
    reads wrong (``SanityRun``)."""
    x = examples(model, images, labels, "pgd", SANITY_EPS, SANITY_LOSS, budget)
    return SanityRun(budget, _wrong(reads_right(model, x, labels)))


def _rounded(values: torch.Tensor) -> tuple[float, ...]:
    return tuple(round(v, 3) for v in values.tolist())


@checked
def run_settings(n: TestDigits) -> RunSettings:
    """What the recorded run on ``n`` digits is asked to do: this module's settings."""
    return RunSettings(MODELS, n, EPS, BUDGET, attacks.ATTACKS, BATCH,
                       SanitySettings(SANITY_EPS, min(n, SANITY_IMAGES), SANITY_STEPS,
                                      SANITY_RESTARTS, SANITY_LOSS),
                       AdaptiveSettings(ADAPTIVE_EPS, ADAPTIVE_WEIGHTS, ADAPTIVE_LOSS),
                       reconstruction_detector.SETTINGS)


@checked
def units(n: TestDigits) -> dict[str, partial]:
    """Every unit of the recorded run, the most telling first (a run stopped early has them)."""
    todo = {"models": _models_unit, "clean": partial(_clean_unit, n)}
    for eps in sorted(EPS, key=lambda e: abs(e - 0.1)):  # 0.1, then outwards
        for attack in attacks.ATTACKS:
            todo |= {f"{attack}, {name}, eps {eps}": partial(_attack_unit, name, attack, eps, n)
                     for name in MODELS}
    todo |= {f"adaptive, eps {eps}, weight {w}": partial(_adaptive_unit, eps, w, n)
             for eps in ADAPTIVE_EPS for w in ADAPTIVE_WEIGHTS}
    todo |= {f"sanity, {name}": partial(_sanity_unit, name, min(n, SANITY_IMAGES))
             for name in MODELS}
    return todo


@checked
def main(argv: Argv | None = None) -> int:
    parser = experiment_parser(COMMAND, __doc__, limit=TestDigits)
    args = parse_experiment(parser, argv)
    n = args.limit or SAMPLE
    command = command_line(COMMAND, limit=args.limit, threads=args.threads)
    record_missing(results_file(args, RESULTS), units(n), command,
                   summary=lambda unit: f"{unit.stamp.seconds:.0f} s",
                   replace_shipped=args.replace_shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())

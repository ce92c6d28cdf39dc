"""Issue 37: what a dict or a list holds is declared too. A parameter annotated with a bare
``dict``, ``list`` or ``tuple`` took anything inside, so a learner's wrong value failed deep inside
(an AttributeError, a TypeError 'int' object is not subscriptable, a ValueError of unpacking, a
KeyError) or was drawn and printed without a word (a pose of two numbers, rates in %). Each value
is now refused at the door in the one form, naming the entry and the argument, the key or the
index inside it (``name['key'] must be ...``), what was expected, what came and what to do."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from capsedu import face_tables, spiking
from capsedu.baselines import BagOfPartsCNN
from capsedu.capsnet import SMALL, CapsNet, CapsNetConfig
from capsedu.data import faces, sprites, transformed_mnist
from capsedu.figures import (
    capsule_lengths,
    capsule_poses,
    digit_images,
    face_scenes,
    feature_maps,
    model_scores,
    rotations,
    routing_couplings,
    spikes,
    training_curves,
)
from capsedu.manifest_rows import ManifestRow
from capsedu.parts import detector, scoring, voting
from capsedu.parts.pose_net import PoseCapsuleNet, RotationSweep
from capsedu.robustness import Sweep
from capsedu.widgets.bug_zoo import BugZooExplorer
from capsedu.widgets.parts import PartsEditor

P = sprites.Part("nose", 0.5, 0.5)
LENGTHS = {kind: np.full(3, 0.5) for kind in faces.KINDS}  # kind -> face lengths [3]
PROBE = {"none": torch.rand(2, 1, 32, 32), "mouth": torch.rand(2, 1, 32, 32)}
FACE_NET = BagOfPartsCNN(channels=(2,))  # a face model: 2 classes
SWEEPS = tuple(Sweep(f, tuple(v), (0.5,) * len(v)) for f, v in transformed_mnist.SWEEPS.items())


def _ax():
    return plt.figure().add_subplot()


def _runs(kinds=faces.KINDS):
    """One model's face rates over one seed, on ``kinds``."""
    return {"bag": scoring.SeedRuns("bag", [0], [], {kind: [0.5] for kind in kinds})}


def _routed():
    """A tiny CapsNet's config and its output on two images (routing with history)."""
    config = CapsNetConfig(conv_channels=8, primary_maps=2, decoder_hidden=(8, 8))
    with torch.no_grad():
        return config, CapsNet(config)(torch.rand(2, 1, 28, 28))


def _on_grid(example=0, classes=(0, 1), sizes=None):
    config, out = _routed()
    routing_couplings.draw_couplings_on_grid(plt.figure(), out, torch.rand(28, 28), example,
                                             classes, sizes or config)


def _sweep():
    """A pose-capsule model's reading of a face turned by 0° and 45° (pose_net.RotationSweep)."""
    two, off = np.zeros(2), np.array([0.0, 45.0])  # read at 0°: 45° off the second turn
    return RotationSweep(np.array([0.0, 45.0]), np.zeros((2, 4)), two, two, np.zeros((2, 8, 8)),
                         np.repeat(off[:, None], 4, axis=1), off)


def _zoo_curves(stopped_at):
    """The zoo's curves of a correct run and a bug's, 10 steps each."""
    from test_bug_zoo import zoo_run

    training_curves.draw_zoo_curves(plt.figure(), {"correct": zoo_run(), "bug": zoo_run()},
                                    "correct", ["bug"], stopped_at)


def _heatmap():
    """A heatmap of 3 x 2 couplings and its texts."""
    return routing_couplings.draw_coupling_heatmap(_ax(), np.full((3, 2), 0.5), list("abc"),
                                                   list("xy"))


VALUES = [
    # the examples that opened the gap
    (lambda: rotations.draw_angle_curves(_ax(), {"a": (1, 2)}), ValueError,
     r"draw_angle_curves\(\): curves\['a'\] must be \(bin centres in degrees \[bins\], face rates "
     r"\[bins\]\).*got \(1, 2\); pass the pair mean_face_rate_by_angle returns"),
    (lambda: face_tables.angle_table({"a": (1, 2)}), ValueError,
     r"angle_table\(\): curves\['a'\] must be \(bin centres .*got \(1, 2\)"),
    # parts.scoring
    (lambda: face_tables.angle_table({"a": ([15.0, 45.0], [50, 20])}), ValueError,
     r"angle_table\(\): curves\['a'\] must hold face rates in \[0, 1\] in its second row, got "
     r"values up to 50; pass fractions"),
    (lambda: scoring.probe_rates([FACE_NET], {"mouth": torch.rand(2, 1, 32, 32) * 255}),
     ValueError, r"probe_rates\(\): probe\['mouth'\] must hold pixels in \[0, 1\]"),
    (lambda: scoring.probe_rates([FACE_NET], {"mouth": torch.rand(0, 1, 32, 32)}), ValueError,
     r"probe_rates\(\): probe\['mouth'\] must hold at least one image, got shape \(0, 1, 32, 32\)"),
    (lambda: face_tables.face_rate_table({"bag": 0.5}), TypeError,
     r"face_rate_table\(\): runs\['bag'\] must be a SeedRuns, got 0.5"),
    (lambda: face_tables.face_rate_table(_runs(), ["smaller faces"]), ValueError,
     r"face_rate_table\(\): runs\['bag'\] must hold face rates of \['smaller faces'\], got the "
     r"kinds \['face', .*measure them"),
    (lambda: face_tables.rule_report(_runs(("face", "nonface")), {"r": ["swapped"]}), ValueError,
     r"rule_report\(\): runs\['bag'\] must hold face rates of \['swapped', 'permuted', 'random', "
     r"'upside_down'\]"),
    (lambda: face_tables.rule_report(_runs(), {"by parts": "swapped"}), TypeError,
     r"rule_report\(\): rules\['by parts'\] must be a list or a tuple of scramble kinds, got "
     r"'swapped'"),
    (lambda: face_tables.probe_table({"bag": [[50, 20]]}, ["none", "mouth"]), ValueError,
     r"probe_table\(\): rates\['bag'\] must be in \[0, 1\] \(face rates \[seeds, sets\]"),
    (lambda: face_tables.probe_table({"bag": [0.5, 0.2]}, ["none", "mouth"]), ValueError,
     r"probe_table\(\): rates\['bag'\] must be face rates \[seeds, sets\] .*got \[0.5, 0.2\]"),
    # parts.voting
    (lambda: voting.face_length_report({**LENGTHS, "face": "x"}, 0.9), TypeError,
     r"face_length_report\(\): lengths\['face'\] must be face-capsule lengths \[n\], got 'x'"),
    (lambda: voting.face_length_report({**LENGTHS, "face": np.zeros(0)}, 0.9), ValueError,
     r"face_length_report\(\): lengths\['face'\] must be face-capsule lengths \[n\], at least "
     r"one, got shape \(0,\)"),
    (lambda: voting.compare_steps(LENGTHS, {"face": np.ones(3)}, 0.9), ValueError,
     r"compare_steps\(\): bug must hold the kinds of paper \(\[.*\]\), got \['face'\]"),
    (lambda: voting.compare_steps(LENGTHS, {**LENGTHS, "face": np.ones(2)}, 0.9), ValueError,
     r"compare_steps\(\): bug\['face'\] must match paper\['face'\] in length \(paper\['face'\]: "
     r"3, bug\['face'\]: 2\); route the same scenes both ways"),
    # data.sprites
    (lambda: sprites.render_scenes([[P], [P, ("nose", 0.5, 0.5)]], 16), TypeError,
     r"render_scenes\(\): scenes\[1\] must be a scene, a list of Part .*its item 1 is "
     r"\('nose', 0.5, 0.5\); pass such Parts, or plain tuples to render_many"),
    (lambda: sprites.render_scenes([[("eye", 0.5, 0.5)]], 16), TypeError,
     r"render_scenes\(\): scenes\[0\] must be a scene.*its item 0 is \('eye'"),
    (lambda: sprites.Part("eye", 0.5, 0.5), ValueError,  # a Part is checked when made
     r"^Part\(\): a part's kind must be one of .*got 'eye'"),
    # figures.face_scenes
    (lambda: face_scenes.ghost_lines({"nose": (0.5, 0.5)}), ValueError,
     r"ghost_lines\(\): ghosts\['nose'\] must be a face pose \(x, y, angle, scale\), got "
     r"\(0.5, 0.5\); pass the pose predict_face gives"),
    (lambda: face_scenes.ghost_lines({"nose": (0.5, 0.5, 0.0, 0.0)}), ValueError,
     r"ghost_lines\(\): ghosts\['nose'\] must have a scale > 0"),
    (lambda: face_scenes.draw_scene(_ax(), [P], ghosts={"eye": (0.5, 0.5, 0.0, 1.0)}),
     ValueError, r"draw_scene\(\): ghosts key 'eye' must be .*, got 'eye'; pass one of those "
                 r"strings"),
    (lambda: face_scenes.draw_ghosts(plt.figure(), {"a face": [P, 3]}), TypeError,
     r"draw_ghosts\(\): scenes\['a face'\] must be a scene of face parts .*its item 1 is 3; "
     r"pass e.g. faces.face_parts\(\)"),
    (lambda: face_scenes.draw_ghosts(plt.figure(), {"a": [sprites.Part("stroke", 0.5, 0.5)]}),
     ValueError, r"draw_ghosts\(\): scenes\['a'\] must be a scene of face parts"),
    (lambda: face_scenes.draw_detected_parts(
        plt.figure(), detector.PartDetector(channels=(2, 2, 2, 2)),
        {"face": torch.zeros(1, 1, 28, 28)}), ValueError,
     r"draw_detected_parts\(\): examples\['face'\] must have shape \[N, 1, 32, 32\] for "
     r"PartDetector"),
    (lambda: face_scenes.draw_detected_parts(
        plt.figure(), detector.PartDetector(channels=(2, 2, 2, 2)), {"face": torch.zeros(32, 32)}),
     ValueError, r"draw_detected_parts\(\): examples\['face'\] must be a torch.Tensor of pixels "
                 r"in \[0, 1\] with 4 dimensions"),
    # figures.feature_maps
    (lambda: feature_maps.draw_feature_maps(plt.figure(), [[("a", np.zeros((4, 4)))],
                                                           [("b", 1)]]), TypeError,
     r"draw_feature_maps\(\): rows\[1\] must be a row of \(title, feature map \[H, W\]\) pairs.*"
     r"its item 0 is \('b', 1\)"),
    (lambda: feature_maps.draw_feature_maps(plt.figure(), [[("a", np.zeros((4, 4)))], []]),
     ValueError, r"draw_feature_maps\(\): rows\[1\] must be a row of panels.*got \[\]"),
    (lambda: feature_maps.draw_feature_maps(plt.figure(), [[("a", np.zeros((4, 4)))],
                                                           [("b", np.zeros((4, 4)))] * 2]),
     ValueError, r"draw_feature_maps\(\): rows\[1\] must match rows\[0\] in length"),
    (lambda: feature_maps.draw_shift_changes(_ax(), [1, 2], {"global max": [0.0]}), ValueError,
     r"draw_shift_changes\(\): changes\['global max'\] must match shifts in length \(shifts: 2, "
     r"changes\['global max'\]: 1\)"),
    (lambda: feature_maps.draw_shift_changes(_ax(), [1, 2], {"global max": ["0", "0"]}),
     TypeError, r"draw_shift_changes\(\): changes\['global max'\] must be relative changes"),
    # figures.model_scores
    (lambda: model_scores.draw_probe(plt.figure(), PROBE, {"bag": [[0.5, 0.2, 0.1]]}, "x"),
     ValueError, r"draw_probe\(\): rates\['bag'\] must match probe in sets \(probe: 2, "
                 r"rates\['bag'\]: 3\)"),
    (lambda: model_scores.draw_probe(plt.figure(), {**PROBE, "b": torch.rand(2, 1, 28, 28)},
                                     {"bag": [[0.5, 0.2, 0.1]]}, "x"), ValueError,
     r"draw_probe\(\): probe\['b'\] must be .*\(face scenes \[n, 1, 32, 32\]\), got shape "
     r"\(2, 1, 28, 28\)"),
    (lambda: model_scores.draw_probe(plt.figure(), {"none": "faces"}, {"bag": [[0.5]]}, "x"),
     TypeError, r"draw_probe\(\): probe\['none'\] must be a torch.Tensor"),
    (lambda: model_scores.draw_sweep_curves(plt.figure(), {"cnn": [1]}, 100), TypeError,
     r"draw_sweep_curves\(\): curves\['cnn'\] must be a model's sweeps.*its item 0 is 1"),
    (lambda: model_scores.draw_sweep_curves(plt.figure(), {"cnn": SWEEPS[:2]}, 100), ValueError,
     r"draw_sweep_curves\(\): curves\['cnn'\] must hold one sweep per factor of SWEEPS"),
    # figures.rotations
    (lambda: rotations.draw_turned_scores(_ax(), [0, 90], {"m": ([0.7, 0.2], [0.5])}),
     TypeError, r"draw_turned_scores\(\): scores\['m'\] must be \(score \[n\], cut \[n\]\)"),
    (lambda: rotations.draw_turned_scores(_ax(), [0, 90], {"m": ([75, 25], [50, 50])}),
     ValueError, r"draw_turned_scores\(\): scores\['m'\] must be in \[0, 1\]"),
    (lambda: rotations.draw_turned_scores(_ax(), [0, 90, 180], {"m": ([0.7, 0.2], [0.5, 0.5])}),
     ValueError, r"draw_turned_scores\(\): scores\['m'\] must match angles in length"),
    (lambda: rotations.draw_rotation_curves(_ax(), [0, 90], {"CNN": [95.0, 20.0, 5.0]}, 100),
     ValueError, r"draw_rotation_curves\(\): curves\['CNN'\] must match angles in length "
                 r"\(angles: 2, curves\['CNN'\]: 3\)"),
    (lambda: rotations.draw_rotation_curves(_ax(), [0, 90], {"CNN": [95.0, 120.0]}, 100),
     ValueError, r"draw_rotation_curves\(\): curves\['CNN'\] must be in \[0, 100\]"),
    # figures.routing_couplings
    (lambda: routing_couplings.update_coupling_heatmap(_heatmap()[0], [["0.5"]],
                                                       np.zeros((3, 2))), TypeError,
     r"update_coupling_heatmap\(\): texts must be the texts draw_coupling_heatmap returned"),
    (lambda: routing_couplings.update_coupling_heatmap(*_heatmap(), np.zeros((2, 2))),
     ValueError, r"update_coupling_heatmap\(\): c must match image in shape \(image: \(3, 2\), "
                 r"c: \(2, 2\)\); pass couplings of the shape the heatmap was drawn with"),
    (lambda: routing_couplings.update_coupling_heatmap(_heatmap()[0], _heatmap()[1][:2],
                                                       np.zeros((3, 2))),
     ValueError, r"update_coupling_heatmap\(\): texts must hold one text per cell of c \(3, 2\), "
                 r"got 2 rows of 2; pass the texts draw_coupling_heatmap returned with image"),
    # figures.training_curves
    (lambda: training_curves.draw_epoch_curves(_ax(), {"run": [90.0, 95.0]}), ValueError,
     r"draw_epoch_curves\(\): curves\['run'\] must be in \[0, 1\] \(held-out accuracies"),
    (lambda: training_curves.draw_epoch_curves(_ax(), {}), ValueError,
     r"draw_epoch_curves\(\): curves must hold at least one item, got \{\}"),
    (lambda: training_curves.draw_face_curves(plt.subplots(1, 2)[1], {"deep CNN": 0.9}),
     TypeError, r"draw_face_curves\(\): records\['deep CNN'\] must be a FaceCurve"),
    (lambda: training_curves.draw_zoo_curves(plt.figure(), {"correct": 0.9}, "correct", ["bug"],
                                             1), TypeError,
     r"draw_zoo_curves\(\): zoo\['correct'\] must be a ZooRun, got 0.9"),
    # round nine of the independent probe (probe4), one case each: lengths that must agree,
    # values in range, at least one item, indices within range, one axes per panel
    (lambda: capsule_lengths.draw_squash_curves(plt.figure(), torch.linspace(0, 5, 10),
                                                torch.rand(10), torch.rand(9)), ValueError,
     r"draw_squash_curves\(\): slope_formula must match r in length \(r: 10, slope_formula: 9\)"),
    (lambda: capsule_lengths.draw_face_lengths(_ax(), {"face": [0.9, 1.5]}, 0.5), ValueError,
     r"draw_face_lengths\(\): lengths\['face'\] must be in \[0, 1\] \(face-capsule lengths"),
    (lambda: capsule_poses.draw_templates(plt.figure(), torch.rand(4, 1, 8, 8),
                                          torch.tensor([0.0, 90.0, 180.0])), ValueError,
     r"draw_templates\(\): angles must match templates in length \(templates: 4, angles: 3\)"),
    (lambda: digit_images.draw_panels(plt.subplots(1, 2)[1], [(np.zeros((4, 4)), "a", "gray")] * 3),
     ValueError, r"draw_panels\(\): panels must match axes in length \(axes: 2, panels: 3\); "
                 r"make one axes per panel"),
    (lambda: digit_images.draw_perturbation_grid(_ax(), torch.rand(2, 11, 8, 8),
                                                 torch.linspace(-0.25, 0.25, 5)), ValueError,
     r"draw_perturbation_grid\(\): deltas must match grid's columns in length"),
    (lambda: digit_images.draw_capsule_values((ax := _ax()).figure, ax, torch.rand(3, 16),
                                              ["a", "b"]),
     ValueError, r"draw_capsule_values\(\): row_labels must hold one item per row of capsules "
                 r"\(3\), got 2"),
    (lambda: digit_images.draw_segmentation(plt.figure(), torch.rand(3, 1, 36, 36),
                                            torch.tensor([[1, 2]] * 3), torch.tensor([[1, 2]] * 2),
                                            torch.rand(3, 2, 1, 36, 36)), ValueError,
     r"draw_segmentation\(\): read must match pairs in length, one row per pair \(pairs: 3, "
     r"read: 2\)"),
    (lambda: digit_images.affine_titles(transformed_mnist.random_affine(
        torch.rand(2, 1, 28, 28))[1], 10), ValueError,
     r"affine_titles\(\): n must be at most the 2 maps params holds, got 10"),
    (lambda: face_scenes.draw_detected_parts(plt.figure(), FACE_NET,
                                             {"face": torch.rand(1, 1, 32, 32)}), TypeError,
     r"draw_detected_parts\(\): detector must be an instance of PartDetector, got a "
     r"BagOfPartsCNN"),
    (lambda: feature_maps.draw_lifted_maps(plt.subplots(2, 5)[1], np.zeros((3, 8, 8)),
                                           np.zeros((3, 4, 8, 8))), ValueError,
     r"draw_lifted_maps\(\): digits must be a digit upright and turned 90° \[2, H, W\], pixels "
     r"in \[0, 1\], got shape \(3, 8, 8\)"),
    (lambda: feature_maps.draw_lifted_maps(plt.subplots(2, 4)[1], np.zeros((2, 8, 8)),
                                           np.zeros((2, 4, 8, 8))), ValueError,
     r"draw_lifted_maps\(\): axes must be \[2, 5\].*got shape \(2, 4\)"),
    (lambda: model_scores.within_rates([0.5, 0.6], [0.1]), ValueError,
     r"within_rates\(\): half_widths must match means in length \(means: 2, half_widths: 1\)"),
    (lambda: model_scores.draw_face_rates(_ax(), []), ValueError,
     r"draw_face_rates\(\): runs must hold at least one item, got \[\]"),
    (lambda: model_scores.draw_group_bars(_ax(), {"CapsNet": [90.0, 80.0]}, ["x", "y", "z"]),
     ValueError, r"draw_group_bars\(\): scores\['CapsNet'\] must hold one item per label \(3\), "
                 r"got 2"),
    (lambda: model_scores.draw_group_bars(_ax(), {}, ["x"]), ValueError,
     r"draw_group_bars\(\): scores must hold at least one item, got \{\}"),
    (lambda: rotations.draw_rotation_readouts(plt.figure(), torch.arange(4.0), torch.rand(3),
                                              torch.rand(4), torch.rand(4)), ValueError,
     r"draw_rotation_readouts\(\): cnn_unit must match input_angles in length"),
    (lambda: rotations.draw_capsule_under_rotation(plt.subplots(1, 3)[1], [0, 90],
                                                   np.full((4, 3), 0.5), np.full((4, 2), 0.5),
                                                   np.zeros((2, 16)), "t"), ValueError,
     r"draw_capsule_under_rotation\(\): lengths' columns must match angles in number \(angles: "
     r"2, lengths' columns: 3\); pass one column per angle"),
    (lambda: rotations.draw_rotation_curves(_ax(), [0, 90, 180], {"CNN": [0.98, 0.2, 0.3]}, 100),
     ValueError, r"draw_rotation_curves\(\): curves\['CNN'\] must be accuracies in % \(0 to "
                 r"100\), got values from 0.2 to 0.98, fractions of 1; multiply them by 100"),
    (lambda: routing_couplings.draw_coupling_heatmap(_ax(), np.array([[1.5, -0.5], [0.5, 0.5]]),
                                                     ["a", "b"], ["x", "y"]), ValueError,
     r"draw_coupling_heatmap\(\): c must be in \[0, 1\] \(coupling coefficients"),
    (lambda: routing_couplings.draw_coupling_traces(plt.figure(), {}), ValueError,
     r"draw_coupling_traces\(\): traces must hold at least one item, got \{\}"),
    (lambda: _on_grid(example=9), ValueError,
     r"draw_couplings_on_grid\(\): example must be an integer >= 0 and <= 1 \(an image of "
     r"out's batch of 2\), got 9"),
    (lambda: _on_grid(classes=(0, 10)), ValueError,
     r"draw_couplings_on_grid\(\): classes\[1\] must be an integer >= 0 and <= 9"),
    (lambda: _on_grid(sizes=CapsNetConfig()), ValueError,
     r"draw_couplings_on_grid\(\): sizes must match out in primary capsules \(out: 72, sizes: "
     r"1152\); pass the CapsNetConfig of the model that made out"),
    (lambda: spikes.draw_membrane(_ax(), spiking.simulate(torch.tensor([1.5]), spiking.Neuron(),
                                                          duration_ms=10.0),
                                  spiking.Neuron(), current=1.5, row=5), ValueError,
     r"draw_membrane\(\): row must be an integer >= 0 and <= 0 \(a row of trace's 1 neurons\), "
     r"got 5"),
    (lambda: training_curves.draw_seed_spread(_ax(), {"a": np.array([1.0])}, "error (%)"),
     ValueError, r"draw_seed_spread\(\): errors\['a'\] must be a list of numbers, one per seed, "
                 r"at least 2 of them"),
    # widgets.bug_zoo
    (lambda: BugZooExplorer(CapsNet(SMALL), torch.rand(2, 1, 28, 28), torch.tensor([1, 2]),
                            results={"correct": 0.9}), TypeError,
     r"BugZooExplorer\(\): results\['correct'\] must be a ZooRun, got 0.9"),
]


# round ten (an independent probe, /tmp/lead/probe5): figures that drew 0-255 pixels all black,
# a window off the image, a NaN, nothing compared; or refused by what they call, not by the name
ROUND_TEN = [
    (lambda: digit_images.two_colour(torch.rand(2, 28, 28) * 255), ValueError,
     r"two_colour\(\): images must hold pixels in \[0, 1\], got values from .* to .*; divide "
     r"0-255 pixels by 255"),
    (lambda: digit_images.draw_affine_examples(plt.figure(), torch.rand(3, 1, 40, 40),
                                               *transformed_mnist.random_affine(
                                                   torch.rand(2, 1, 28, 28))), ValueError,
     r"draw_affine_examples\(\): affine must match translated in length, one per digit "
     r"\(translated: 3, affine: 2\)"),
    (lambda: face_scenes.draw_detections(_ax(), np.zeros((32, 32)), np.random.rand(4, 4),
                                         np.random.rand(3), threshold=0.5), ValueError,
     r"draw_detections\(\): presence must be each part's presence \[4\], one per part of "
     r"PART_KINDS, got shape \(3,\)"),
    (lambda: feature_maps.draw_receptive_field(_ax(), np.zeros((32, 32)), 5,
                                               np.array([[40, 40]]), ["red"]), ValueError,
     r"draw_receptive_field\(\): centres must lie on the 32x32 image \(rows from -0.5 to 31.5, "
     r"columns from -0.5 to 31.5\), got \[\(40, 40\)\]"),
    (lambda: feature_maps.draw_receptive_field(_ax(), np.zeros((32, 32)), 5,
                                               np.array([[4, 4], [8, 8]]), ["red"]), ValueError,
     r"draw_receptive_field\(\): colors must match centres in length \(centres: 2, colors: 1\)"),
    (lambda: model_scores.draw_quoted_bars(_ax(), {"CapsNet": 0.9}, {"CNN": 0.8}), ValueError,
     r"draw_quoted_bars\(\): measured must be accuracies in % \(0 to 100\), got values from 0.9 "
     r"to 0.9, fractions of 1; multiply them by 100"),
    (lambda: model_scores.draw_quoted_bars(_ax(), {"CapsNet": 90.0}, {"CNN": 80.0}), ValueError,
     r"draw_quoted_bars\(\): quoted must name each accuracy 'source: model' .*got \['CNN'\]"),
    (lambda: model_scores.draw_quoted_bars(_ax(), {"CapsNet": 90.0}, {"paper: CNN": 80.0}),
     ValueError, r"draw_quoted_bars\(\): measured and quoted must share a kind of model .*got "
                 r"measured \['CapsNet'\] and quoted \['paper: CNN'\]"),
    (lambda: routing_couplings.draw_coupling_heatmap(_ax(), np.full((2, 2), np.nan),
                                                     rows=["a", "b"], cols=["x", "y"]), ValueError,
     r"draw_coupling_heatmap\(\): c must hold finite numbers .*got 4 NaN"),
    (lambda: routing_couplings.update_coupling_heatmap(*_heatmap(), np.full((3, 2), np.nan)),
     ValueError, r"update_coupling_heatmap\(\): c must hold finite numbers"),
    (lambda: training_curves.draw_seed_spread(_ax(), {"a": np.array([1.0, 2.0]),
                                                      "b": np.array([2.0, 3.0])}, "error (%)",
                                              gap_after=5), ValueError,
     r"draw_seed_spread\(\): gap_after must be an integer >= 1 and <= 1 \(settings before the "
     r"gap, fewer than errors' 2\), got 5"),
    # the same classes, swept across the figures and widgets: pictures as pixels, lengths that
    # must agree, an index or a position inside the data, at least one where one is needed
    (lambda: capsule_poses.draw_templates(plt.figure(), torch.rand(2, 1, 8, 8) * 255,
                                          torch.tensor([0.0, 90.0])), ValueError,
     r"draw_templates\(\): templates must hold pixels in \[0, 1\].*divide 0-255 pixels by 255"),
    (lambda: digit_images.draw_digits(plt.subplots(1, 2)[1], np.full((2, 4, 4), -1.0)),
     ValueError, r"draw_digits\(\): images must hold pixels in \[0, 1\], got values from -1"),
    (lambda: capsule_poses.draw_templates(plt.figure(), torch.rand(0, 1, 8, 8), torch.ones(0)),
     ValueError, r"draw_templates\(\): templates must hold at least one template"),
    (lambda: capsule_poses.draw_pose_vectors(plt.figure(), []), ValueError,
     r"draw_pose_vectors\(\): examples must hold at least one item"),
    (lambda: digit_images.draw_segmentation(plt.figure(), torch.rand(1, 1, 8, 8),
                                            torch.tensor([[1, 12]]), torch.tensor([[1, 2]]),
                                            torch.rand(1, 2, 1, 8, 8)), ValueError,
     r"draw_segmentation\(\): labels must be in \[0, 9\] \(two classes per pair"),
    (lambda: digit_images.draw_sweep_examples(plt.figure(), torch.rand(1, 40, 40)), ValueError,
     r"draw_sweep_examples\(\): digit must be .*28 along dimension 2"),
    (lambda: face_scenes.draw_kinds(plt.figure(), []), ValueError,
     r"draw_kinds\(\): kinds must hold at least one item"),
    (lambda: feature_maps.draw_receptive_fields(plt.figure(), faces.face_parts()[1:], 5, 9),
     ValueError, r"draw_receptive_fields\(\): face must hold a left_eye and a nose"),
    (lambda: model_scores.draw_face_rates(_ax(), list(_runs(("face",)).values())), ValueError,
     r"draw_face_rates\(\): kinds must be kinds each run was measured on, got \['nonface'"),
    (lambda: model_scores.draw_accuracy_bars(_ax(), {"a": 90.0, "b": 95.0}, ["red"]), ValueError,
     r"draw_accuracy_bars\(\): colors must hold one item per accuracy \(2\), got 1"),
    (lambda: model_scores.draw_confusion(plt.figure(), torch.tensor([[3, 1], [0, 0]])),
     ValueError, r"draw_confusion\(\): confusion must count at least one example of every true "
                 r"class .*class\(es\) \[1\]"),
    (lambda: rotations.draw_turned_capsules(plt.figure(), torch.rand(4, 1, 8, 8), torch.arange(6.0),
                                            torch.rand(6, 2), 2), ValueError,
     r"draw_turned_capsules\(\): input_angles must match images in length"),
    (lambda: rotations.draw_face_sweep(plt.figure(), np.array([0.0, 90.0]), _sweep(), 1.0, [0]),
     ValueError, r"draw_face_sweep\(\): face_angles must be the angles sweep turned the face by"),
    (lambda: routing_couplings.draw_map_couplings(plt.figure(), torch.full((2, 6, 6), 3.0)),
     ValueError, r"draw_map_couplings\(\): c must be a torch.Tensor in \[0, 1\]"),
    (lambda: routing_couplings.draw_map_couplings(plt.figure(), torch.zeros(0, 6, 6)),
     ValueError, r"draw_map_couplings\(\): c must hold at least one map"),
    (lambda: routing_couplings.draw_couplings_by_iteration(plt.figure(), np.zeros((0, 2, 2)),
                                                           ["a", "b"], ["x", "y"]), ValueError,
     r"draw_couplings_by_iteration\(\): trace must be couplings .*at least one"),
    (lambda: routing_couplings.draw_coupling_heatmap(_ax(), np.full((2, 2), 0.5), ["a", "b"],
                                                     ["x", "y"], blank=np.zeros((3, 2))),
     ValueError,
     r"draw_coupling_heatmap\(\): blank must match c in shape"),
    (lambda: _zoo_curves(stopped_at=50), ValueError,
     r"draw_zoo_curves\(\): stopped_at must be an integer >= 1 and <= 10 \(a step of the runs"),
    (lambda: PartsEditor().move("ear", x=0.3), ValueError,
     r"PartsEditor.move\(\): kind must be a part of the scene \[.*\], got 'ear'"),
    (lambda: BugZooExplorer(CapsNet(SMALL), torch.rand(2, 1, 28, 28), torch.tensor([1]),
                            results={}), ValueError,
     r"BugZooExplorer\(\): labels must be integer class labels of shape \[batch\] = \[2\]"),
]


# round eleven (an independent probe, /tmp/lead/probe6): figures that drew NaN images, shares
# on an axis of %, text of a negative size, or were refused by what they call (render_many(),
# matplotlib's colour maps, an AttributeError), not by the name the caller gave
_ROW = ManifestRow(name="m", file="m.pt", sha256="0" * 64, arch="CapsNet")  # without metrics
ROUND_ELEVEN = [
    (lambda: digit_images.mosaic(torch.full((2, 2, 4, 4), float("nan"))), ValueError,
     r"mosaic\(\): images must hold finite numbers .*got 64 NaN"),
    (lambda: model_scores.draw_group_bars(_ax(), {"CapsNet": [0.9, 0.8]}, ["x", "y"]), ValueError,
     r"draw_group_bars\(\): scores\['CapsNet'\] must be accuracies in % \(0 to 100\), got "
     r"values from 0.8 to 0.9, fractions of 1; multiply them by 100"),
    (lambda: routing_couplings.draw_coupling_heatmap(_ax(), np.full((2, 2), 0.5), ["a", "b"],
                                                     ["x", "y"], fontsize=-3), ValueError,
     r"draw_coupling_heatmap\(\): fontsize must be a finite number > 0 and <= 100 \(a font "
     r"size in points\) or one of 'xx-small'.*got -3"),
    (lambda: digit_images.draw_digits(plt.figure().subplots(1, 1, squeeze=False)[0],
                                      np.zeros((1, 4, 4)), fontsize=0), ValueError,
     r"draw_digits\(\): fontsize must be a finite number > 0 .*got 0"),
    (lambda: capsule_poses.draw_vector(_ax(), 0.5, 0.5, head=float("nan")), ValueError,
     r"draw_vector\(\): head must be a finite number > 0"),
    (lambda: digit_images.draw_panels(plt.figure().subplots(1, 2), [
        (np.zeros((4, 4)), "a", "no-such-cmap"), (np.zeros((4, 4)), "b", "gray")]), ValueError,
     r"draw_panels\(\): panels\[0\]\[2\] must be the name of a matplotlib colour map .*got "
     r"'no-such-cmap'"),
    (lambda: face_scenes.draw_part_votes(_ax(), _ax(), PoseCapsuleNet(channels=(2, 2, 2, 2)),
                                         [("ear", 0.5, 0.5)], "t"), ValueError,
     r"draw_part_votes\(\): scene must hold parts of known kinds and finite poses; its item 0: "
     r"a part's kind must be one of .*got 'ear'"),
    (lambda: face_scenes.draw_scene(_ax(), [P, ("nose", float("nan"), 0.5)]), ValueError,
     r"draw_scene\(\): parts must hold parts .*; its item 1: part 'nose'"),
    (lambda: training_curves.draw_held_out_curves(_ax(), {"m": _ROW}), ValueError,
     r"draw_held_out_curves\(\): rows\['m'\] must be a manifest row with a held-out curve "
     r"\(metrics.validation_by_epoch\), got the row of 'm' without one"),
]


def test_an_arrow_longer_than_1_is_drawn_whole():
    """Round eleven: draw_vector drew an arrow of length 2 off its unit-circle canvas."""
    ax = _ax()
    capsule_poses.draw_vector(ax, 2.0, 0.0, label="v")
    assert ax.get_xlim()[1] >= 2 * 1.12 and ax.get_ylim()[1] >= 2 * 1.12


def test_a_figures_integer_images_are_tiled():
    assert digit_images.mosaic(np.arange(16).reshape(2, 2, 2, 2)).shape == (4, 4)


@pytest.mark.parametrize("call, error, message", VALUES + ROUND_TEN + ROUND_ELEVEN,
                         ids=range(len(VALUES + ROUND_TEN + ROUND_ELEVEN)))
def test_a_wrong_value_inside_a_dict_or_a_list_is_refused_naming_it(call, error, message):
    with pytest.raises(error, match=message):
        call()
    plt.close("all")


def test_draw_zoo_curves_refuses_a_zoo_without_the_runs_it_draws():
    from test_bug_zoo import zoo_run

    with pytest.raises(ValueError, match=r"draw_zoo_curves\(\): zoo must hold the runs of correct "
                                         r"and of every bug of bugs, got \['correct'\], missing "
                                         r"\['bug'\]; record them \(python -m capsedu.bug_zoo\)"):
        training_curves.draw_zoo_curves(plt.figure(), {"correct": zoo_run()}, "correct", ["bug"],
                                        1)
    plt.close("all")


def test_what_the_notebooks_pass_is_taken():
    """The values of the notebooks' calls, each in its declared form."""
    curve = (np.array([15.0, 45.0, 75.0]), np.array([0.9, np.nan, 0.1]))  # an empty bin: NaN
    assert face_tables.angle_table({"bag": curve}).endswith("0.90 within 30° of upright, 0.10 near "
                                                        "upside down")
    # one bin only (width 180): its line needs no second bin
    assert "within 180°" in face_tables.angle_table({"bag": ([90.0], [0.5])})
    rotations.draw_angle_curves(_ax(), {"bag": curve})
    scores = {"m": (torch.tensor([0.75, 0.25]), torch.tensor([0.5, 0.5]))}  # turned_face_scores
    rotations.draw_turned_scores(_ax(), [0, 90], scores)
    rates = {"bag": np.array([[0.5, 0.25], [1.0, 0.0]])}  # probe_rates: [seeds, sets]
    assert "none 0.75  mouth 0.12" in face_tables.probe_table(rates, list(PROBE))
    model_scores.draw_probe(plt.figure(), PROBE, rates, "parts turned over")
    face_scenes.draw_ghosts(plt.figure(), {"a face": faces.face_parts(),
                                           "as tuples": [tuple(p) for p in faces.face_parts()]})
    axes = feature_maps.draw_feature_maps(plt.figure(), [[("a", torch.zeros(4, 4))],
                                                         [("b", np.ones((4, 4)))]])
    assert axes.shape == (2, 1)
    assert sprites.render_scenes([[], [P]], 16).shape == (2, 1, 16, 16)  # a scene may be empty
    assert "faces accepted" in voting.face_length_report(LENGTHS, 0.4)
    assert "with the bug" in voting.compare_steps(LENGTHS, LENGTHS, 0.4)
    _on_grid(example=1, classes=[3])
    # 09's zoo widget shows each child's couplings summed over the parents: past 1 under a bug
    routing_couplings.update_coupling_heatmap(*_heatmap(), np.full((3, 2), 1.5))
    capsule_lengths.draw_face_lengths(_ax(), {"face": [0.9, 1.0], "nonface": [0.0]}, 0.5)
    plt.close("all")

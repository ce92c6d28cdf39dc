"""The course's figures, one module per thing they show; each draws with matplotlib, which is why
none of them is imported here (``import capsedu.figures`` loads nothing heavy; import the module
you need: ``from capsedu.figures import training_curves``).

* ``canvas``: a figure as PNG bytes for a widget, and frames that redraw only what changed
* ``colours``: one colour per face part and one per kind of model, the same in every figure
* ``capsule_poses``: a capsule's vector as an arrow and the part pose it describes (02)
* ``capsule_lengths``: squash's curves, the margin loss, face-capsule lengths per kind (03-05, 07)
* ``face_scenes``: the faces world's images, scenes with ghost faces, detected parts, votes (01,
  04, 07)
* ``routing_couplings``: coupling coefficients as heatmaps, per iteration, over a CapsNet's
  primary grid, and how far they move from uniform (04, 06, 07, 09)
* ``training_curves``: held-out curves of recorded runs, runs over seeds, the bug zoo's steps
  (05, 07-10)
* ``digit_images``: rows of digits and images, a digit capsule edited (Fig. 4), digits under new
  viewpoints, two-digit reconstructions (Fig. 5) (05, 06, 08, 10)
* ``feature_maps``: feature maps, receptive fields, pooling under shifts, lifted maps (01, 10)
* ``model_scores``: face rates, accuracies, confusions, sweeps and per-class scores of models side
  by side (01, 05, 07, 08 and the widgets of 08-10)
* ``architecture``: a CapsNet's block diagram, Procedure 1's tensors, routing's cost (04, 05, 09)
* ``rotations``: what turns with the input and what does not (01, 02, 07, 10)
* ``spikes``: a spiking neuron's membrane, its rate against its current, spike trains and their
  read-out (10)
"""

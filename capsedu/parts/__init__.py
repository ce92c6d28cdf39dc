"""The faces world's capsules: parts that carry pose vote for a face (notebooks 01, 04 and 07).

* ``voting``: pose codes, the votes P_i W_i of known part poses, and routing them (notebook 04);
* ``detector``: part capsules (presence, pose) read off pixels;
* ``pose_net``: ``PoseCapsuleNet`` = detector -> votes -> routing, with W_i fitted by least squares;
* ``scoring``: every face model's score, cut and verdicts, face rates per kind over seeds;
* ``training``: the five face models' recipes and checkpoints
  (``python -m capsedu.parts.training``).

None of it is loaded by ``import capsedu``.
"""

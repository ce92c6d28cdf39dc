"""Viewpoint robustness, measured (notebook 08): how a model trained on translated MNIST scores
digits it never saw turned, sheared or scaled (the paper's Section 5.2).

The data comes from ``capsedu.data.transformed_mnist``; the models are the affNIST pair of
``capsedu.train`` (``affnist-capsnet``, ``affnist-cnn``). Each function works for either model.
"""

import torch

from .data import transformed_mnist as tm
from .train import evaluate


def sweep_accuracy(model, images: torch.Tensor, labels: torch.Tensor, factor: str,
                   values=None) -> list[float]:
    """``model``'s accuracy on MNIST digits ``[N, 1, 28, 28]`` under one transformation at each
    value of a sweep (``transformed_mnist.sweep``; ``values`` default to ``SWEEPS[factor]``)."""
    values = tm.SWEEPS[factor] if values is None else values
    return [evaluate(model, (tm.sweep(images, factor, v), labels)) for v in values]


@torch.no_grad()
def viewpoint_state(capsnet, cnn, digit: torch.Tensor, rotation: float = 0.0, shear: float = 0.0,
                    scale: float = 1.0, dx: float = 0.0, dy: float = 0.0) -> dict:
    """What notebook 08's widget shows for one MNIST ``digit`` ``[1, 28, 28]`` under one affine
    map (``transformed_mnist.affine``, both axes scaled by ``scale``, moved by ``(dx, dy)``
    pixels from the centre of the canvas):

    * ``image`` ``[40, 40]``: what both models see;
    * ``lengths`` ``[10]``: the CapsNet's capsule lengths, each the probability that its class is
      present (they need not sum to 1), its ``capsnet_prediction`` (the longest) and the
      ``reconstruction`` ``[40, 40]`` its decoder draws from that capsule alone;
    * ``probabilities`` ``[10]``: the CNN's softmax, and its ``cnn_prediction``.
    """
    x = tm.affine(digit[None], rotation, shear, scale, scale, dx, dy)  # [1, 1, 40, 40]
    capsnet.eval()
    cnn.eval()
    out = capsnet(x)  # no targets: the decoder redraws the longest capsule
    probabilities = torch.softmax(cnn(x), dim=1)[0]  # [10]
    return {"image": x[0, 0].numpy(), "lengths": out.lengths[0].numpy(),
            "capsnet_prediction": int(out.lengths[0].argmax()),
            "reconstruction": out.reconstruction[0, 0].numpy(),
            "probabilities": probabilities.numpy(), "cnn_prediction": int(probabilities.argmax()),
            "transform": {"rotation": rotation, "shear": shear, "scale": scale, "dx": dx,
                          "dy": dy}}


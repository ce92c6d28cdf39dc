"""Viewpoint robustness, measured (notebook 08): how a model trained on translated MNIST scores
digits it never saw turned, sheared or scaled (the paper's Section 5.2); and notebook 10's
accuracy against the angle of a turned digit (``sweep_accuracy`` on the 28x28 canvas).

The data comes from ``capsedu.data.transformed_mnist``; the models are the affNIST pair of
``capsedu.train`` (``affnist-capsnet``, ``affnist-cnn``). Each function works for either model.
"""

import torch

from .data import transformed_mnist as tm
from .loop import evaluate


def sweep_accuracy(model, images: torch.Tensor, labels: torch.Tensor, factor: str,
                   values=None, side: int = tm.CANVAS) -> list[float]:
    """``model``'s accuracy on MNIST digits ``[N, 1, 28, 28]`` under one transformation at each
    value of a sweep (``transformed_mnist.sweep``; ``values`` default to ``SWEEPS[factor]``), on
    a ``side`` x ``side`` canvas: 40 for 08's affNIST models, 28 for 10's models, which read
    digits turned on their own canvas (``factor="rotation"``, ``values`` 0 to 360)."""
    values = tm.SWEEPS[factor] if values is None else values
    return [evaluate(model, (tm.sweep(images, factor, v, side), labels)) for v in values]


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



@torch.no_grad()
def overlap_state(capsnet, cnn, first: torch.Tensor, second: torch.Tensor, dx: int = 0,
                  dy: int = 0) -> dict:
    """What notebook 08's MultiMNIST widget shows for two MNIST digits ``[1, 28, 28]``: the first
    at the centre of the 36x36 canvas, the second moved by ``(dx, dy)`` pixels (each within +-4),
    overlaid as in ``transformed_mnist.multimnist`` (pixel-wise maximum).

    * ``pair`` ``[36, 36]`` and ``parts`` ``[2, 36, 36]`` (each digit alone), their ink boxes'
      ``overlap`` (``transformed_mnist.box_overlap``);
    * the CapsNet's capsule ``lengths`` ``[10]``, the two classes it reads (``capsnet_read``) and
      the digit its decoder redraws from each of those capsules (``reconstructions``
      ``[2, 36, 36]``, in the order of ``capsnet_read``);
    * the CNN's ten sigmoid ``probabilities`` and the two classes it reads (``cnn_read``).
    """
    for name, shift in (("dx", dx), ("dy", dy)):
        if not -tm.MULTI_SHIFT <= shift <= tm.MULTI_SHIFT:
            raise ValueError(f"{name} must be within +-{tm.MULTI_SHIFT} pixels, got {shift}")
    side, m = tm.MULTI_CANVAS, tm.MULTI_SHIFT
    place = [(m, m), (m + int(dx), m + int(dy))]  # top-left corners on the canvas
    parts = torch.cat([tm.place(digit[None], torch.tensor([x]), torch.tensor([y]), side)
                       for digit, (x, y) in zip((first, second), place, strict=True)])
    pair = parts.amax(dim=0, keepdim=True)  # [1, 1, 36, 36]
    capsnet.eval()
    cnn.eval()
    lengths, read, reconstructions = capsnet.reconstruct_each(pair)
    return {"pair": pair[0, 0].numpy(), "parts": parts[:, 0].numpy(),
            "overlap": float(tm.box_overlap(parts[None])[0]),
            "lengths": lengths[0].numpy(), "capsnet_read": read[0].tolist(),
            "reconstructions": reconstructions[0, :, 0].numpy(),
            "probabilities": torch.sigmoid(cnn(pair))[0].numpy(),
            "cnn_read": cnn.predict(pair)[0].tolist()}

"""Datasets: MNIST from the data root, and the generated faces-of-parts world (``faces``)."""

from . import faces
from .mnist import load_mnist

__all__ = ["faces", "load_mnist"]

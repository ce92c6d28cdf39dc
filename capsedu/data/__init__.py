"""Datasets: MNIST from the data root, and the generated faces-of-parts world."""

from .mnist import load_mnist

__all__ = ["load_mnist"]

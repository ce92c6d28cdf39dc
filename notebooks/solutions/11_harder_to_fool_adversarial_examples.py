"""Solution to notebook 11's exercise: the fast gradient sign method."""

import torch
import torch.nn.functional as F

from capsedu.attacks import class_scores


def my_fgsm(model, images, labels, eps):
    # the loss of the true labels: cross-entropy of the model's class scores (a CapsNet's capsule
    # lengths, a CNN's logits), with the gradient reaching the images, not the weights
    images = images.detach().clone().requires_grad_(True)
    loss = F.cross_entropy(class_scores(model, images), labels)
    (grad,) = torch.autograd.grad(loss, images)  # [B, C, H, W]
    # x' = clip_[0,1](x + eps sign(grad_x L)): ascend the loss, every pixel by eps, stay an image
    return (images + eps * grad.sign()).clamp(0, 1).detach()

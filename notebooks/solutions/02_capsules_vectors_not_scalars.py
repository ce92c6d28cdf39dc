"""Solutions to the exercises of notebook 02 (capsules: vectors, not scalars). Open on purpose!

Run this file to check exercise 1 and print the numbers of exercises 1, 2 and 5:
    python notebooks/solutions/02_capsules_vectors_not_scalars.py
"""

import torch

from capsedu.capsule_vectors import encode_pose, read_pose


def my_pose_vector(angle, presence):
    """angle [n] in degrees, presence [n] in [0, 1] -> pose vectors [n, 2]: v = p (cos a, sin a)."""
    a = torch.deg2rad(angle)
    # the length is the presence p, the direction is the angle a
    return torch.stack([presence * torch.cos(a), presence * torch.sin(a)], dim=-1)


# Exercise 1: a nose at 45 degrees, present with probability 0.3, is 0.3 (cos 45°, sin 45°),
# about (0.212, 0.212): both entries equal (45°) and length 0.3.
nose_45 = my_pose_vector(torch.tensor([45.0]), torch.tensor([0.3]))[0]

# Exercise 2: at length 0 the picture is blank whatever the angle: the ink is the presence. The
# zero vector has no direction; read_pose reports atan2(0, 0) = 0 degrees, a convention of atan2,
# not something the vector says.

# Exercise 5: decode_pose divides by the last entry, c = v / v5. For -v that gives
# (-v) / (-v5) = v / v5: the same code, so v and -v would decode to the same part, though they
# point in opposite directions. encode_pose always has a last entry 1 > 0 in c, so it never
# produces a vector with v5 <= 0 (half of all directions), nor one whose first two entries put the
# part outside the image (|v1 / v5| or |v2 / v5| above 0.5), nor one with v3 = v4 = 0 (scale 0).
def opposite_vectors_decode_alike() -> bool:
    v = encode_pose(x=0.3, y=0.7, angle=40.0, scale=1.2, presence=0.8)
    return torch.allclose(v / v[4], (-v) / (-v[4]))


if __name__ == "__main__":
    from capsedu.exercises import check_pose_vector

    check_pose_vector(my_pose_vector)
    print(f"exercise 1: nose at 45°, p = 0.3 -> v = ({nose_45[0]:.3f}, {nose_45[1]:.3f})")
    print(f"exercise 2: read_pose(0) reports the angle {read_pose(torch.zeros(2))[1]:.1f}°")
    print(f"exercise 5: v and -v decode alike without the rule: {opposite_vectors_decode_alike()}")

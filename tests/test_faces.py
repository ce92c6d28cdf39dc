"""The faces-of-parts world: poses, rendering, and that each kind is what it claims to be."""

import math

import numpy as np
import pytest
import torch

from capsedu.data import face_ink, faces, sprites

N = 40  # images per kind in the property tests


def xy(part):
    return np.array([part.x, part.y])


def face_pose(parts, turn=0.0):
    """Recover (x, y, angle, scale) of the face whose four slots ``parts`` fill.

    Every part carries the face's angle (+ ``turn``) and scale; the four slots average to the face
    centre plus the mean of the canonical offsets (placed by the same pose).
    """
    four = [p for p in parts if p.kind in faces.PART_KINDS]
    angle, scale = four[0].angle - turn, four[0].scale
    at_origin = faces._face_parts(0.0, 0.0, angle, scale)  # a reading
    centre = np.mean([xy(p) for p in four], axis=0) - np.mean([xy(p) for p in at_origin], axis=0)
    return (*centre, angle, scale)


def assert_same_parts(got, want):
    for g, w in zip(got, want, strict=True):
        assert g.kind == w.kind and g[1:] == pytest.approx(w[1:])


def kinds_of(parts):
    return sorted(p.kind for p in parts if p.kind != sprites.STROKE)


@pytest.mark.parametrize("kind", faces.KINDS)
def test_shapes_dtypes_labels(kind):
    images, labels, parts = faces.dataset(kind, 5, seed=1, size=24)
    assert images.shape == (5, 1, 24, 24) and images.dtype == torch.float32
    assert labels.shape == (5,) and labels.dtype == torch.int64
    assert 0.0 <= images.min() and images.max() <= 1.0 and images.max() > 0.5
    assert labels.tolist() == [int(kind in ("face", "rotated"))] * 5
    assert len(parts) == 5 and all(isinstance(p, sprites.Part) for ps in parts for p in ps)


def test_deterministic_in_seed_and_kind():
    a, b = faces.dataset("face", 6, seed=3), faces.dataset("face", 6, seed=3)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) and a[2] == b[2]
    assert not torch.equal(a[0], faces.dataset("face", 6, seed=4)[0])
    # The random stream depends on the kind too: otherwise both would draw the same face poses.
    upright, turned = (
        faces.dataset("face", 1, seed=3)[2][0],
        faces.dataset("upside_down", 1, seed=3)[2][0],
    )
    assert face_pose(upright) != pytest.approx(face_pose(turned, turn=180.0))


@pytest.mark.parametrize("kind", faces.KINDS)
def test_render_reproduces_dataset_images(kind):
    images, _, parts = faces.dataset(kind, 4, seed=2)
    for image, ps in zip(images, parts, strict=True):
        assert np.abs(sprites.render(ps) - image[0].numpy()).max() < 1e-6


def test_render_many_is_the_models_batch_of_the_pictures_render_draws():
    """The one type per datum: ``render`` gives a picture (NumPy ``[H, W]``, for imshow),
    ``render_many`` a batch as ``dataset`` gives one (torch ``[n, 1, H, W]`` float32)."""
    _, _, scenes = faces.dataset("permuted", 3, seed=5)
    batch = sprites.render_many(scenes, size=24)
    assert isinstance(batch, torch.Tensor) and batch.dtype == torch.float32
    assert batch.shape == (3, 1, 24, 24)
    for image, ps in zip(batch, scenes, strict=True):
        np.testing.assert_array_equal(image[0].numpy(), sprites.render(ps, size=24))


def test_face_parts_geometry():
    left, right, nose, mouth = faces.face_parts()
    assert [p.kind for p in (left, right, nose, mouth)] == list(faces.PART_KINDS)
    assert left.y == right.y < nose.y < mouth.y  # y grows downward: eyes on top
    assert left.x < nose.x < right.x and nose.x == mouth.x == 0.5
    # Turn +90 degrees on screen (counter-clockwise): "down" becomes "right", so the mouth, below
    # the centre, goes to its right; the left eye (up-left) goes down-left. (dx, dy) -> (dy, -dx).
    turned = faces.face_parts(0.5, 0.5, angle=90.0)
    for part, upright in zip(turned, faces.face_parts(), strict=True):
        dx, dy = upright.x - 0.5, upright.y - 0.5
        assert (part.x, part.y) == pytest.approx((0.5 + dy, 0.5 - dx))
        assert part.angle == 90.0 and part.scale == 1.0
    assert turned[3].x > 0.5 and turned[0].x < 0.5 < turned[0].y
    # Scale multiplies every distance from the centre.
    big = faces.face_parts(0.4, 0.6, angle=30.0, scale=1.5)
    unit = faces.face_parts(0.4, 0.6, angle=30.0)
    for b, u in zip(big, unit, strict=True):
        assert xy(b) - [0.4, 0.6] == pytest.approx(1.5 * (xy(u) - [0.4, 0.6]))


def test_face_and_rotated_are_faces():
    for kind in ("face", "rotated"):
        for parts in faces.dataset(kind, N)[2]:
            assert kinds_of(parts) == sorted(faces.PART_KINDS)
            assert_same_parts(parts[:4], faces._face_parts(*face_pose(parts)))
    angles = [ps[0].angle for ps in faces.dataset("rotated", N)[2]]
    assert max(map(abs, angles)) > 90  # large turns, not just the +-15 degrees jitter


def test_scrambles_hold_each_part_once():
    for kind in faces.SCRAMBLED_KINDS:
        for parts in faces.dataset(kind, N)[2]:
            assert kinds_of(parts) == sorted(faces.PART_KINDS), kind


def test_permuted_leaves_no_part_in_its_slot():
    for parts in faces.dataset("permuted", N)[2]:
        slots = faces._face_parts(*face_pose(parts))
        for part in parts[:4]:
            slot = min(slots, key=lambda s: np.hypot(*(xy(s) - xy(part))))
            assert np.hypot(*(xy(slot) - xy(part))) < 1e-9  # it sits on a canonical slot...
            assert slot.kind != part.kind  # ...but not on its own


def test_swapped_has_eyes_below_mouth():
    for parts in faces.dataset("swapped", N)[2]:
        a = math.radians(parts[0].angle)
        down = np.array([math.sin(a), math.cos(a)])  # the face's "down" (its +y) in the image
        depth = {p.kind: xy(p) @ down for p in parts[:4]}
        assert depth["left_eye"] > depth["mouth"] and depth["right_eye"] > depth["mouth"]


def test_upside_down_turns_each_part_in_place():
    for parts in faces.dataset("upside_down", N)[2]:
        x, y, angle, scale = face_pose(parts, turn=180.0)
        for part, upright in zip(parts[:4], faces._face_parts(x, y, angle, scale), strict=True):
            assert xy(part) == pytest.approx(xy(upright))
            assert (part.angle - upright.angle) % 360 == pytest.approx(180.0)


def test_nonface_parts_and_strokes_everywhere():
    assert all(len(kinds_of(ps)) <= 3 for ps in faces.dataset("nonface", N)[2])
    for kind in faces.KINDS:
        images, _, parts = faces.dataset(kind, N)
        assert all(1 <= sum(p.kind == sprites.STROKE for p in ps) <= 3 for ps in parts), kind
        border = torch.cat([images[..., 0, :], images[..., -1, :], images[..., 0], images[..., -1]])
        assert border.max() < 0.2, kind  # every sprite stays inside the image


def test_sprites_are_distinct_and_oriented():
    def one(kind, angle=0.0):
        return sprites.render([(kind, 0.5, 0.5, angle, 1.0)])

    assert np.abs(one("mouth") - one("mouth", 180.0)).sum() > 5  # a smile is not a frown
    assert np.abs(one("nose") - one("nose", 180.0)).sum() > 5
    assert np.abs(one("left_eye") - one("right_eye")).sum() > 5
    assert np.allclose(one("right_eye"), one("left_eye")[:, ::-1], atol=1e-5)  # mirror images
    assert not sprites.render([]).any()


def test_render_is_translation_equivariant():
    part = sprites.Part("left_eye", 0.4, 0.45, 30.0, 0.9)
    shifted = part._replace(x=part.x + 4 / 32, y=part.y + 2 / 32)
    expected = np.roll(sprites.render([part]), (2, 4), axis=(0, 1))
    assert np.abs(sprites.render([shifted]) - expected).max() < 1e-4


def test_bad_input_is_rejected_clearly():
    with pytest.raises(ValueError, match="upside_down"):
        faces.dataset("cat", 3)
    with pytest.raises(ValueError, match="n must be"):
        faces.dataset("face", -1)
    with pytest.raises(ValueError, match="left_eye"):
        sprites.render([("ear", 0.5, 0.5)])
    with pytest.raises(ValueError, match="size"):
        sprites.render([], size=0)
    with pytest.raises(ValueError, match="size"):
        faces.dataset("face", 2, size=0)


def test_training_poses_are_the_default_and_other_ranges_draw_other_faces():
    x, _, scenes = faces.dataset("face", 30, seed=5)
    x2, _, _ = faces.dataset("face", 30, seed=5, poses=faces.TRAINING_POSES)
    assert torch.equal(x, x2)
    small = faces.FacePoses(scale=(0.62, 0.68))
    xs, _, small_scenes = faces.dataset("face", 30, seed=5, poses=small)
    assert all(0.62 <= p.scale <= 0.68 for ps in small_scenes for p in ps[:4])
    assert all(0.85 <= p.scale <= 1.1 for ps in scenes for p in ps[:4])
    assert xs.sum() < x.sum()  # smaller parts, less ink
    assert torch.equal(xs, faces.dataset("face", 30, seed=5, poses=small)[0])  # deterministic


def test_shifted_faces_sit_beyond_the_training_range():
    lo, hi = 0.10, 0.14
    _, _, scenes = faces.dataset("face", 40, seed=2, poses=faces.FacePoses(shift=(lo, hi)))
    # the face's centre, recovered from its parts: their centre is the face centre plus the mean
    # canonical offset, turned and scaled by the face's pose (capsedu.poses.place)
    mean_offset = np.mean(list(faces.CANONICAL_OFFSETS.values()), axis=0)
    for ps in scenes:
        angle, scale = ps[0].angle, ps[0].scale
        cx, cy = faces.face_centre(ps)
        a = np.radians(angle)
        dx = scale * (np.cos(a) * mean_offset[0] + np.sin(a) * mean_offset[1])
        dy = scale * (-np.sin(a) * mean_offset[0] + np.cos(a) * mean_offset[1])
        assert lo - 1e-9 <= max(abs(cx - dx - 0.5), abs(cy - dy - 0.5)) <= hi + 1e-9


def test_jittered_parts_stray_by_the_drawn_distance_and_angle():
    poses = faces.FacePoses(jitter=(1 / 32, 2 / 32), jitter_angle=10.0)
    _, _, scenes = faces.dataset("face", 40, seed=3, poses=poses)
    moved = []
    for ps in scenes:
        angle, scale = np.mean([p.angle for p in ps[:4]]), ps[0].scale
        assert all(abs(p.angle - angle) <= 20 for p in ps[:4])
        left, right = ps[0], ps[1]
        moved.append(np.hypot(right.x - left.x, right.y - left.y) / scale)
    # the eyes' distance is no longer always exactly 0.36 of the face's scale
    assert np.std(moved) > 0.01


# --- Bad inputs ----------------------------------------------------------------------------


@pytest.mark.parametrize("field, bad", [("x", float("nan")), ("angle", float("inf")),
                                        ("scale", float("nan"))])
def test_a_part_with_a_nan_pose_is_named(field, bad):
    parts = [tuple(p) for p in faces.face_parts()]  # plain tuples: a Part is checked when made
    parts[2] = tuple(bad if f == field else v
                     for f, v in zip(sprites.Part._fields, parts[2], strict=True))
    for draw in (sprites.render, lambda p: sprites.render_many([p]), sprites.segments):
        with pytest.raises(ValueError, match=r"part 'nose'.s pose .*must be finite numbers"):
            draw(parts)
    with pytest.raises(ValueError, match=r"^Part\(\): part 'nose'.s pose .*must be finite"):
        faces.face_parts()[2]._replace(**{field: bad})
    with pytest.raises(ValueError, match="part 'nose'"):
        sprites.render([("nose", *parts[2][1:])])  # plain tuples too


def test_swap_and_ink_gap_name_a_missing_part():
    parts = faces.face_parts()[:3]  # no mouth
    with pytest.raises(ValueError, match=r"swap\(\): each part named must be one that parts "
                                         r"holds \(\['left_eye', .*got 'mouth'"):
        faces.swap(parts, "nose", "mouth")
    with pytest.raises(ValueError, match=r"ink_gap\(\): each part named .*got 'mouth'"):
        face_ink.ink_gap(parts, "mouth", "nose")


@pytest.mark.parametrize("seed, error", [(None, TypeError), (1.5, TypeError), (-1, ValueError),
                                         ("0", TypeError), (True, TypeError)])
def test_generators_need_an_integer_seed(seed, error):
    with pytest.raises(error, match=r"seed must be an integer >= 0 .* got "):
        faces.dataset("face", 2, seed=seed)
    with pytest.raises(error, match="seed must be an integer"):
        faces.scattered(2, seed=seed)
    images, _, _ = faces.dataset("face", 2, seed=np.int64(3))  # numpy integers are integers
    assert torch.equal(images, faces.dataset("face", 2, seed=3)[0])


def test_one_displaced_part_leaves_its_place_and_the_others_stay():
    poses = faces.FacePoses(displace=(0.20, 0.35))
    _, _, moved = faces.dataset("face", 30, seed=4, poses=poses)
    for ps in moved:
        # the three parts that stayed still sit where a face of their pose puts them
        angle, scale = np.median([p.angle for p in ps[:4]]), np.median([p.scale for p in ps[:4]])
        distances = []
        for k, part in enumerate(ps[:4]):
            others = [q for j, q in enumerate(ps[:4]) if j != k]
            # distance of this part from where the other three say it should be
            dx, dy = np.subtract(faces.CANONICAL_OFFSETS[part.kind],
                                 np.mean([faces.CANONICAL_OFFSETS[q.kind] for q in others], 0))
            a = np.radians(angle)
            want = (np.mean([q.x for q in others]) + scale * (np.cos(a) * dx + np.sin(a) * dy),
                    np.mean([q.y for q in others]) + scale * (-np.sin(a) * dx + np.cos(a) * dy))
            distances.append(np.hypot(part.x - want[0], part.y - want[1]))
        # exactly one part is far from its place; with it left out, the others agree
        assert sorted(distances)[-1] > 0.15


@pytest.mark.parametrize("poses, message", [
    (dict(shift=(0.2, 0.1)), r"shift must be \(low, high\) with low <= high"),  # looped forever
    (dict(shift=(0.1, 0.1)), "shift must have low < high"),
    (dict(scale=(1.1, 0.85)), "scale must be"),
    (dict(shift=(0.0, 0.6)), r"shift\[1\] must be a finite number >= 0 and < 0.5"),
    (dict(angle=float("nan")), "angle must be a finite number"),
])
def test_face_poses_that_draw_nothing_are_refused(poses, message):
    with pytest.raises(ValueError, match=message):
        faces.FacePoses(**poses)


def test_the_renderer_counts_its_temporaries_before_it_allocates(monkeypatch):
    """Issue 37: dataset(size=4096) passed the memory check, which counted the images only; the
    renderer's temporaries (segments x pixels per image) then filled the memory."""
    from capsedu import memory
    from capsedu.data import sprites

    scenes = [faces.face_parts()] * 2
    monkeypatch.setattr(memory, "available_memory", lambda: 3 * 256 * 256 * 4)  # images fit
    with pytest.raises(MemoryError, match="temporaries counted"):
        sprites.render_scenes(scenes, 256)
    with pytest.raises(ValueError, match="size must be an integer >= 16 and <= 256"):
        faces.dataset("face", 2, size=4096)

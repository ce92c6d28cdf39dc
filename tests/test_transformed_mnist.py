"""The generated viewpoint sets of notebook 08: translated, affNIST-style and MultiMNIST-style."""

from dataclasses import fields

import numpy as np
import pytest
import torch

from capsedu.data import affine_params, digit_pairs, transformed_mnist


def blobs(n=12, seed=0):
    """Stand-in digits: a random bright rectangle inside each 28x28 image."""
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(n, 1, 28, 28)
    for k in range(n):
        r0, c0 = torch.randint(4, 12, (2,), generator=g).tolist()
        h, w = torch.randint(6, 14, (2,), generator=g).tolist()
        x[k, 0, r0 : r0 + h, c0 : c0 + w] = 1.0
    return x


def test_translated_keeps_every_pixel_and_is_seeded():
    x = blobs()
    t = transformed_mnist.translated(x, seed=3)
    assert t.shape == (12, 1, 40, 40)
    torch.testing.assert_close(t.sum(dim=(1, 2, 3)), x.sum(dim=(1, 2, 3)))  # moved, not resampled
    assert torch.equal(t, transformed_mnist.translated(x, seed=3))
    assert not torch.equal(t, transformed_mnist.translated(x, seed=4))


def test_a_quarter_turn_moves_a_pixel_as_the_course_turns_points():
    # a dot right of the centre, turned by +90 degrees (counter-clockwise on screen), goes up
    x = torch.zeros(1, 1, 28, 28)
    x[0, 0, 13:15, 20:22] = 1.0  # right of the centre (13.5, 13.5)
    out = transformed_mnist.sweep(x, "rotation", 90.0)
    rows, cols = torch.nonzero(out[0, 0] > 0.5, as_tuple=True)
    assert rows.float().mean() < 14 and abs(cols.float().mean().item() - 19.5) < 1.0


def test_identity_sweeps_only_pad():
    x = blobs()
    for factor, value in (("rotation", 0.0), ("shear", 0.0), ("scale", 1.0)):
        torch.testing.assert_close(transformed_mnist.sweep(x, factor, value),
                                   transformed_mnist.pad_to(x, 40), atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="rotation"):
        transformed_mnist.sweep(x, "twist", 1.0)


def test_scaling_scales_the_ink():
    x = blobs()
    big, small = transformed_mnist.sweep(x, "scale", 1.2), transformed_mnist.sweep(x, "scale", 0.8)
    ratio = big.sum() / small.sum()
    assert ratio.item() == pytest.approx((1.2 / 0.8) ** 2, rel=0.05)


def test_random_affine_stays_in_range_and_keeps_the_ink_on_the_canvas():
    x = blobs(40)
    out, p = transformed_mnist.random_affine(x, seed=1)
    assert out.shape == (40, 1, 40, 40) and 0 <= out.min() and out.max() <= 1
    assert p.rotation.abs().max() <= 20 and p.shear.abs().max() <= 0.2
    for scale in (p.scale_x, p.scale_y):
        assert 0.8 <= scale.min() and scale.max() <= 1.2
    # the ink is (nearly all) still there: whole-pixel moves keep it on the canvas
    A = transformed_mnist.affine_matrix(p.rotation, p.shear, p.scale_x, p.scale_y)
    centred = transformed_mnist.warp(transformed_mnist.pad_to(x, 40), A, torch.zeros(40, 2))
    torch.testing.assert_close(out.sum(dim=(1, 2, 3)), centred.sum(dim=(1, 2, 3)), rtol=0.01,
                               atol=0.5)
    assert p.tx.abs().max() > 3  # and it does move the digits around
    again, _ = transformed_mnist.random_affine(x, seed=1)
    assert torch.equal(out, again)


def test_multimnist_pairs_differ_in_class_and_overlap_like_the_papers():
    from capsedu.data import load_mnist

    x, y = load_mnist(False, 2000)
    pairs, labels, parts = digit_pairs.multimnist(x, y, 400, seed=0)
    assert pairs.shape == (400, 1, 36, 36) and labels.shape == (400, 2)
    assert (labels[:, 0] != labels[:, 1]).all()
    torch.testing.assert_close(pairs, parts.amax(dim=1))
    # each part is an MNIST digit of its label, shifted by at most 4 pixels
    assert torch.equal(digit_pairs.multimnist(x, y, 400, seed=0)[0], pairs)
    overlap = digit_pairs.box_overlap(parts)
    # the paper: "two digits bounding boxes on average have 80% overlap"; ours, measured as the
    # shared area over the smaller box, is of that order
    assert 0.6 < overlap.mean() < 0.9
    ink = parts.flatten(2).sum(-1)  # [n, 2]
    originals = x.flatten(1).sum(-1)
    assert np.isin(ink[:, 0].round(decimals=2).numpy(), originals.round(decimals=2).numpy()).all()


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"\[N, 1, 28, 28\]"):
        transformed_mnist.translated(torch.zeros(2, 1, 32, 32))
    with pytest.raises(ValueError, match="two classes"):
        digit_pairs.multimnist(blobs(4), torch.zeros(4, dtype=torch.long), 3)


def test_move_keeps_the_ink_whole_and_reaches_every_edge():
    x = transformed_mnist.translated(blobs(200, seed=1), seed=0)
    moved = transformed_mnist.move(x, torch.Generator().manual_seed(0))
    # whole-pixel moves: exact (no resampling) and no ink leaves the canvas
    torch.testing.assert_close(moved.sum(dim=(1, 2, 3)), x.sum(dim=(1, 2, 3)))
    assert set(torch.unique(moved).tolist()) <= {0.0, 1.0}
    boxes = transformed_mnist._ink_box(moved)  # x0, x1, y0, y1
    assert (boxes[:, 0] == 0).any() and (boxes[:, 1] == 39).any()  # some touch the left / right
    assert (boxes[:, 2] == 0).any() and (boxes[:, 3] == 39).any()
    again = transformed_mnist.move(x, torch.Generator().manual_seed(0))
    assert torch.equal(moved, again)


def test_ink_keeping_offsets_span_exactly_the_allowed_range():
    x = torch.zeros(400, 1, 10, 10)
    x[:, 0, 3:5, 2:7] = 1.0  # ink in rows 3-4 and columns 2-6
    t = transformed_mnist.ink_keeping_offsets(x, torch.Generator().manual_seed(0))
    assert t[:, 0].min() == -2 and t[:, 0].max() == 3  # columns 2..6 may move to 0..4 or 5..9
    assert t[:, 1].min() == -3 and t[:, 1].max() == 5
    assert len(torch.unique(t[:, 0])) == 6  # every allowed offset is drawn


def test_translated_mnist_splits_are_placed_with_their_own_seeds(monkeypatch):
    digits, labels = blobs(6), torch.arange(6)
    monkeypatch.setattr(transformed_mnist, "load_mnist",
                        lambda train, limit: (digits[:limit], labels[:limit]))
    train_x, train_y = transformed_mnist.translated_mnist(True, 6)
    test_x, _ = transformed_mnist.translated_mnist(False, 6)
    seeds = transformed_mnist.TRANSLATED_SEEDS
    assert torch.equal(train_x, transformed_mnist.translated(digits, seed=seeds[True]))
    assert torch.equal(test_x, transformed_mnist.translated(digits, seed=seeds[False]))
    assert torch.equal(train_y, labels) and not torch.equal(train_x, test_x)


def test_translate_moves_each_image_by_its_own_offset_and_drops_what_leaves():
    x = torch.arange(2 * 2 * 3 * 3, dtype=torch.float32).view(2, 2, 3, 3)
    out = transformed_mnist.translate(x, torch.tensor([1, -2]), torch.tensor([0, 1]))
    # image 0: one pixel right; column 0 becomes zeros, every channel alike
    torch.testing.assert_close(out[0, :, :, 1:], x[0, :, :, :2])
    assert (out[0, :, :, 0] == 0).all()
    # image 1: two left and one down: only input (row 0, column 2) stays, at (row 1, column 0)
    expected = torch.zeros(2, 3, 3)
    expected[:, 1:, 0] = x[1, :, :2, 2]
    torch.testing.assert_close(out[1], expected)


def test_drawn_ranges_says_the_lowest_and_highest_map():
    params = affine_params.AffineParams(rotation=torch.tensor([-12.34, 5.0]),
                                            shear=torch.tensor([0.1, -0.05]),
                                            scale_x=torch.tensor([0.9, 1.1]),
                                            scale_y=torch.tensor([0.85, 1.15]),
                                            tx=torch.zeros(2), ty=torch.zeros(2))
    assert transformed_mnist.drawn_ranges(params) == (
        "rotation -12.3 to +5.0 degrees, shear -0.05 to +0.10, scales 0.85 to 1.15")


def test_a_band_is_the_range_of_one_factor():
    assert transformed_mnist.AFFNIST_RANGES.band("rotation") == (-20.0, 20.0)
    assert transformed_mnist.AFFNIST_RANGES.band("shear") == (-0.2, 0.2)
    assert transformed_mnist.AffineRanges(scale=(0.5, 2.0)).band("scale") == (0.5, 2.0)
    with pytest.raises(ValueError, match="factor must be one of"):
        transformed_mnist.AFFNIST_RANGES.band("tx")


def test_affine_turns_each_digit_by_its_own_angle():
    x = blobs(3)
    angles = torch.tensor([0.0, 90.0, 30.0])
    out = transformed_mnist.affine(x, rotation=angles, side=28)
    for k, a in enumerate(angles.tolist()):  # each as if turned alone
        assert torch.equal(out[k], transformed_mnist.affine(x[k : k + 1], rotation=a, side=28)[0])
    assert torch.equal(out[0], x[0])  # 0 degrees: every pixel as it was
    with pytest.raises(ValueError, match="one angle or one per digit"):
        transformed_mnist.affine(x, rotation=torch.zeros(2), side=28)


def test_large_batches_are_moved_in_chunks_exactly_as_one_by_one(monkeypatch):
    monkeypatch.setattr(transformed_mnist, "CHUNK", 5)  # 12 images: chunks of 5, 5 and 2
    x = transformed_mnist.pad_to(blobs(), 40)
    g = torch.Generator().manual_seed(0)
    tx, ty = torch.randint(-6, 7, (2, 12), generator=g)
    A = transformed_mnist.affine_matrix(torch.rand(12, generator=g) * 40, 0.1, 1.1, 0.9)
    t = torch.rand(12, 2, generator=g) * 4
    moved, warped = transformed_mnist.translate(x, tx, ty), transformed_mnist.warp(x, A, t)
    for k in range(12):
        one = slice(k, k + 1)
        assert torch.equal(moved[k], transformed_mnist.translate(x[one], tx[one], ty[one])[0])
        torch.testing.assert_close(warped[k], transformed_mnist.warp(x[one], A[one], t[one])[0])
    assert transformed_mnist.translate(x[:0], tx[:0], ty[:0]).shape == (0, 1, 40, 40)


def test_chunked_affnist_and_placement_match_one_pass(monkeypatch):
    """random_affine and on_canvas work a chunk at a time (padding included); the images, the drawn
    maps and the places must be what one pass over the whole batch gives."""
    digits = blobs()
    whole = transformed_mnist.random_affine(digits, seed=3)
    g = torch.Generator().manual_seed(0)
    dx, dy = torch.randint(0, 13, (2, 12), generator=g)
    placed = transformed_mnist.on_canvas(digits, dx, dy, 40)
    monkeypatch.setattr(transformed_mnist, "CHUNK", 5)  # 12 digits: chunks of 5, 5 and 2
    chunked = transformed_mnist.random_affine(digits, seed=3)
    torch.testing.assert_close(chunked[0], whole[0])
    assert chunked[1].side == whole[1].side == 40
    for field in fields(affine_params.AffineParams)[:-1]:  # each [N], then the canvas's side
        assert torch.equal(getattr(chunked[1], field.name), getattr(whole[1], field.name)), field
    assert torch.equal(transformed_mnist.on_canvas(digits, dx, dy, 40), placed)


def test_a_sample_is_the_full_sets_images_at_those_rows():
    # notebook 08's default mode measures rows of the full sets: the same digits, placed and
    # warped as in the whole set, not a fresh draw made for fewer digits
    x = blobs(n=30)
    rows = torch.tensor([29, 3, 17, 0])
    full, params = transformed_mnist.random_affine(x, seed=2)
    sample, sample_params = transformed_mnist.random_affine(x, seed=2, rows=rows)
    assert torch.equal(sample, full[rows])
    assert all(torch.equal(getattr(sample_params, f.name), getattr(params, f.name)[rows])
               for f in fields(affine_params.AffineParams)[:-1])  # each [N], then the side
    assert torch.equal(transformed_mnist.translated(x, seed=5, rows=rows),
                       transformed_mnist.translated(x, seed=5)[rows])
    # a prefix drawn on its own is another draw: what the rows avoid
    assert not torch.equal(transformed_mnist.random_affine(x[:4], seed=2)[0], full[:4])


def test_rows_are_checked():
    x = blobs(n=5)
    for rows in ([5], [-1], [[0, 1]], [0.5], []):
        with pytest.raises(ValueError, match="rows must"):
            transformed_mnist.translated(x, rows=rows)


def test_test_samples_are_nested_fixed_and_spread_over_the_test_set():
    from capsedu.data.mnist import fixed_sample

    small, large = fixed_sample(500), fixed_sample(3000)
    assert torch.equal(large[:500], small) and torch.equal(fixed_sample(500), small)
    assert len(torch.unique(large)) == 3000 and int(large.max()) < 10_000
    assert torch.equal(fixed_sample(None), torch.arange(10_000))
    # a random order, not the first digits: the first 3,000 are harder than the average
    assert 3500 < large.float().mean() < 6500
    for n, error in ((0, ValueError), (10_001, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match=r"n must be an integer >= 1 and <= 10000"):
            fixed_sample(n)

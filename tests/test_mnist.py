"""MNIST comes from the data root; offline without the files, the error says what to do."""

import gc
import gzip
import hashlib
import struct
import weakref

import numpy as np
import pytest
import torch

from capsedu import course_settings
from capsedu.data import load_mnist, mnist
from capsedu.data.mnist import FILES


def test_missing_mnist_offline_names_the_folder_and_files(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        load_mnist(root=tmp_path, download=False)
    message = str(err.value)
    assert str(tmp_path / "MNIST" / "raw") in message
    assert all(name in message for name in FILES)
    assert "CAPSEDU_DATA" in message


def test_data_root_follows_the_environment(tmp_path, monkeypatch):
    from capsedu import course_settings

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    assert course_settings.data_root() == tmp_path
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        load_mnist(download=False)


def test_loads_the_real_files_when_present():
    try:
        images, labels = load_mnist(train=False, limit=100, download=False)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root (link it into data/MNIST)")
    assert images.shape == (100, 1, 28, 28) and images.dtype == torch.float32
    assert 0 <= images.min() and images.max() <= 1
    # the first test digits of MNIST are 7, 2, 1, 0, 4
    assert labels[:5].tolist() == [7, 2, 1, 0, 4]


def test_loads_the_same_digits_as_torchvision():
    from torchvision.datasets import MNIST

    from capsedu import course_settings

    try:
        images, labels = load_mnist(train=False, download=False)
    except FileNotFoundError:
        pytest.skip("MNIST is not in the data root (link it into data/MNIST)")
    reference = MNIST(str(course_settings.data_root()), train=False, download=False)
    assert torch.equal(images[:, 0], reference.data.float() / 255)
    assert torch.equal(labels, reference.targets)


# --- Bad files: named, with a fix, never a silently wrong dataset -------------------------------


def idx(values: np.ndarray) -> bytes:
    """An IDX file of unsigned bytes, written independently of capsedu's reader."""
    dims = struct.pack(f">{values.ndim}I", *values.shape)
    return bytes([0, 0, 0x08, values.ndim]) + dims + values.astype(np.uint8).tobytes()


@pytest.fixture
def fake_test_split(tmp_path):
    """A valid t10k pair (10,000 random images and labels) in ``tmp_path/MNIST/raw``."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(10_000, 28, 28))
    labels = rng.integers(0, 10, size=10_000)
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "t10k-images-idx3-ubyte").write_bytes(idx(images))
    (raw / "t10k-labels-idx1-ubyte").write_bytes(idx(labels))
    return raw, images, labels


def test_a_valid_file_is_read_exactly(fake_test_split, tmp_path):
    _, images, labels = fake_test_split
    x, y = load_mnist(train=False, root=tmp_path, download=False, limit=np.int64(7))
    assert x.shape == (7, 1, 28, 28) and y.dtype == torch.int64
    np.testing.assert_array_equal(x[:, 0].numpy(), (images[:7] / 255).astype(np.float32))
    np.testing.assert_array_equal(y.numpy(), labels[:7])


def test_a_split_still_in_use_is_not_loaded_twice(fake_test_split, tmp_path):
    raw, images, _ = fake_test_split
    x, y = load_mnist(train=False, root=tmp_path, download=False)
    again = load_mnist(train=False, root=tmp_path, download=False)
    assert again[0] is x and again[1] is y  # the same 31 MB, not a second copy
    assert load_mnist(train=False, root=tmp_path, download=False, limit=5)[0] is not x
    x[0] += 1  # changed in place: the next caller gets the file's images, not these
    fresh = load_mnist(train=False, root=tmp_path, download=False)[0]
    assert fresh is not x
    np.testing.assert_array_equal(fresh[:, 0].numpy(), (images / 255).astype(np.float32))
    # nothing keeps a split alive once its callers let go of it
    ref = weakref.ref(fresh)
    del x, y, again, fresh
    gc.collect()
    assert ref() is None
    # a file changed on disk since is read again (and checked again)
    held = load_mnist(train=False, root=tmp_path, download=False)
    (raw / "t10k-images-idx3-ubyte").write_bytes(idx(np.zeros((10_000, 28, 28))))
    with pytest.raises(ValueError, match="10,000 blank images"):
        load_mnist(train=False, root=tmp_path, download=False)
    assert held[0].shape == (10_000, 1, 28, 28)


@pytest.mark.parametrize("file, spoil, match", [
    ("t10k-images-idx3-ubyte", lambda b: b[:-100], r"header promises 7840016 \(truncated\)"),
    ("t10k-images-idx3-ubyte", lambda b: b + b"\0", "extra bytes"),
    ("t10k-images-idx3-ubyte", lambda b: b"", "holds 0 bytes"),
    ("t10k-labels-idx1-ubyte", lambda b: b"<!DOCTYPE html><html>404</html>", "web page"),
    ("t10k-labels-idx1-ubyte", lambda b: gzip.compress(b), "gzip-compressed"),
    ("t10k-images-idx3-ubyte", lambda b: b[:3] + b"\x01" + b[4:], "0x00000801 instead of 0x0000"),
    ("t10k-labels-idx1-ubyte", lambda b: idx(np.zeros(60_000)), r"\[60000\].*other split"),
    ("t10k-images-idx3-ubyte", lambda b: idx(np.zeros((10_000, 32, 32))), r"\[10000, 32, 32\]"),
    ("t10k-labels-idx1-ubyte", lambda b: idx(np.full(10_000, 12)), "labels above 9"),
    ("t10k-labels-idx1-ubyte", lambda b: idx(np.full(10_000, 3)), "no label 0, 1, 2, 4, 5"),
    ("t10k-images-idx3-ubyte", lambda b: idx(np.zeros((10_000, 28, 28))), "10,000 blank images"),
    ("t10k-images-idx3-ubyte", lambda b: b[:16 + 5 * 784] + bytes(784) + b[16 + 6 * 784:],
     "holds 1 blank images of 10,000"),
])
def test_a_bad_file_is_named_with_a_fix(fake_test_split, tmp_path, file, spoil, match):
    raw = fake_test_split[0]
    (raw / file).write_bytes(spoil((raw / file).read_bytes()))
    with pytest.raises(ValueError, match=match) as err:
        load_mnist(train=False, root=tmp_path)  # download=True: a bad file is not "missing"
    assert str(raw / file) in str(err.value) and "delete it" in str(err.value)


@pytest.mark.parametrize("limit, error", [(0, ValueError), (-5, ValueError), (60_001, ValueError),
                                          (2.5, TypeError), (True, TypeError)])
def test_limit_must_be_a_positive_integer(fake_test_split, tmp_path, limit, error):
    with pytest.raises(error, match=rf"limit must be an integer >= 1 .*None.*got {limit}"):
        load_mnist(train=False, root=tmp_path, limit=limit)


# --- Downloads: a visible notice, a timeout, never a half-written file ---------------------------


def serve(folder, monkeypatch):
    """An HTTP server on localhost for ``folder``, set as the only MNIST mirror."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(mnist, "MIRRORS", (f"http://127.0.0.1:{server.server_port}/",))
    return server


def test_download_says_so_and_fetches_the_missing_files(fake_test_split, tmp_path, monkeypatch,
                                                        capsys):
    raw, images, labels = fake_test_split
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for f in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        (mirror / f"{f}.gz").write_bytes(gzip.compress((raw / f).read_bytes(), compresslevel=1))
    expected = hashlib.sha256((raw / "t10k-labels-idx1-ubyte").read_bytes()).hexdigest()
    monkeypatch.setitem(mnist.SHA256, "t10k-labels-idx1-ubyte", expected)  # the fake's own file
    (raw / "t10k-labels-idx1-ubyte").unlink()
    server = serve(mirror, monkeypatch)
    try:
        x, y = load_mnist(train=False, root=tmp_path)
    finally:
        server.shutdown()
    out, err = capsys.readouterr()
    assert "downloading http://127.0.0.1" in out
    assert "t10k-labels-idx1-ubyte" in err and "100%" in err  # the progress bar, completed
    np.testing.assert_array_equal(y.numpy(), labels)
    assert sorted(p.name for p in raw.iterdir()) == ["t10k-images-idx3-ubyte",
                                                     "t10k-labels-idx1-ubyte"]


def test_a_download_that_is_not_mnists_file_is_refused_and_not_kept(fake_test_split, tmp_path,
                                                                     monkeypatch):
    raw, _, _ = fake_test_split
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    # a valid IDX file of the right shape, but not MNIST's labels (the real hash is expected)
    name = "t10k-labels-idx1-ubyte"
    (mirror / f"{name}.gz").write_bytes(gzip.compress((raw / name).read_bytes()))
    (raw / name).unlink()
    server = serve(mirror, monkeypatch)
    try:
        refused = r"not MNIST's t10k-labels-idx1-ubyte \(sha256 [0-9a-f]{12}\.\.\., expected ff7bc"
        with pytest.raises(FileNotFoundError, match=refused):
            load_mnist(train=False, root=tmp_path)
    finally:
        server.shutdown()
    assert sorted(p.name for p in raw.iterdir()) == ["t10k-images-idx3-ubyte"]  # nothing kept


def test_the_recorded_hashes_are_those_of_the_real_files():
    raw = course_settings.data_root() / "MNIST" / "raw"
    if not (raw / mnist.FILES[3]).exists():
        pytest.skip(f"MNIST not in {raw}")
    for name in mnist.FILES:
        assert hashlib.sha256((raw / name).read_bytes()).hexdigest() == mnist.SHA256[name]


def test_a_mirror_that_never_answers_times_out_with_a_clear_message(tmp_path, monkeypatch,
                                                                    capsys):
    import socket
    import time

    silent = socket.socket()  # accepts connections (the kernel's backlog), never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    monkeypatch.setattr(mnist, "MIRRORS", (f"http://127.0.0.1:{silent.getsockname()[1]}/",))
    monkeypatch.setattr(mnist, "DOWNLOAD_TIMEOUT_S", 0.5)
    start = time.perf_counter()
    try:
        with pytest.raises(FileNotFoundError, match=r"could not be downloaded.*timed out.*0.5 s"):
            load_mnist(root=tmp_path)
    finally:
        silent.close()
    assert time.perf_counter() - start < 10
    assert "downloading" in capsys.readouterr().out
    assert not (tmp_path / "MNIST").exists()  # nothing half-written, no empty folders

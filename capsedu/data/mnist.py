"""MNIST from the course's data root, as tensors in memory.

The four files are IDX files (a small header with the sizes, then one unsigned byte per pixel or
label). They are read whole and checked: a truncated file, an HTML error page or a gzip archive
under the plain name, or a file of the other split gets an error that names the file and says how
to fix it, never a silently wrong dataset. The whole set fits in memory (60,000 x 28 x 28 bytes),
so it is loaded once as float tensors rather than image by image: that keeps a CPU epoch fast.

The full training set is 188 MB of floats, so a split asked for again while the first copy is still
in use is not loaded twice (notebook 05 trains on all 60,000 images, then scores a recipe's
held-out rows of the same set): ``load_mnist`` hands out the same tensors, unless their files
changed since or the tensors were changed in place.
"""

import gzip
import hashlib
import struct
import urllib.request
import weakref
from math import prod
from pathlib import Path

import torch
from tqdm.auto import tqdm

from .. import checkpoints, course_settings
from ..validate import Flag, Int, check_value, checked

FILES = (
    "train-images-idx3-ubyte",
    "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte",
    "t10k-labels-idx1-ubyte",
)
TRAIN_IMAGES = 60_000  # MNIST's training split: what a run trains on and holds out from
# train? -> (images file, labels file, number of examples)
SPLITS = {True: (*FILES[:2], TRAIN_IMAGES), False: (*FILES[2:], 10_000)}
# Where a missing file is downloaded from (as <file>.gz), in order; torchvision uses the same.
MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/")
# Each file's sha256, uncompressed: a download that does not match is not MNIST's and is not kept.
SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}
DOWNLOAD_TIMEOUT_S = 30  # a download that receives nothing for this long is given up
DOWNLOAD_REDRAWS = 20  # a download's progress bar redraws at most about this many times
# How to fix a bad file, for the error messages
_FIX = ("delete it and load MNIST again to download it afresh, or copy the uncompressed file "
        "from a working MNIST copy")


# (folder, split, limit, each file's size and mtime) -> weak references to the tensors handed out
# and their version counters (which every in-place change moves); an entry whose tensors are gone
# or changed is loaded afresh
_IN_USE: dict[tuple, tuple] = {}


SAMPLE_SEED = 0  # the one fixed random order of the test split that every sample is cut from


@checked
def fixed_sample(n: Int("the number of test digits to sample; None takes them all", ge=1,
                        le=10_000) | None) -> torch.Tensor:
    """Which MNIST test digits a sample of ``n`` holds: indices ``[n]`` into the 10,000 of the
    test split (and into every test set made from them, image by image: translated,
    affNIST-style, turned, paired).

    The first ``n`` of one fixed random order of the 10,000 (``SAMPLE_SEED``): quick mode's sample
    lies inside default mode's, and default mode's inside the full set, so a figure measured on a
    sample is the full set's figure measured on fewer of the same images. ``None`` is the full
    set, in its own order."""
    total = SPLITS[False][2]
    if n is None:
        return torch.arange(total)
    return torch.randperm(total, generator=torch.Generator().manual_seed(SAMPLE_SEED))[:n]


@checked
def load_mnist(
    train: Flag("True for the 60,000 training images, False for the 10,000 test images") = True,
    limit: Int("the number of examples to keep; None keeps all", ge=1, le=60_000) | None = None,
    root: course_settings.Folder | None = None,
    download: Flag("whether to download the files that are missing") = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(images [N, 1, 28, 28] float32 in [0, 1], labels [N] int64)``.

    Looks in ``<root>/MNIST/raw`` (``root`` defaults to ``capsedu.course_settings.data_root()``) and
    downloads the missing files of the split there when ``download`` is true. ``limit`` keeps the
    first ``limit`` examples (quick mode), at most the split's size (10,000 for the test split).
    """
    images_file, labels_file, n = SPLITS[bool(train)]
    if limit is not None:  # more than the split holds would quietly give fewer
        split = "training" if train else "test"
        check_value("load_mnist", "limit",
                    Int(f"examples to keep: the {split} split holds {n:,}", ge=1, le=n), limit)
    root = Path(root).expanduser() if root is not None else course_settings.data_root()
    raw = _raw_folder(root, images_file)
    missing = [raw / f for f in (images_file, labels_file) if not (raw / f).exists()]
    where = (f"Put these four files (uncompressed IDX) in {raw}: {', '.join(FILES)}; "
             "or set CAPSEDU_DATA to a folder that holds MNIST/raw/.")
    if missing and not download:
        raise FileNotFoundError(f"load_mnist(): root {root} holds no MNIST: {raw} lacks "
                                f"{', '.join(p.name for p in missing)} (download=False).\n{where}")
    if missing:  # downloaded into root: never into a shipped folder
        checkpoints.check_not_shipped(raw, "load_mnist(): root's MNIST/raw", data_set=True)
    try:
        for path in missing:
            _download(path)
    except OSError as err:  # no internet, no answer, or not the file we asked for
        raise FileNotFoundError(
            f"load_mnist(): root {root} holds no MNIST ({raw}), and it could not be "
            f"downloaded ({err}).\n{where}"
        ) from err
    files = [(raw / f).stat() for f in (images_file, labels_file)]
    key = (raw.resolve(), bool(train), limit, *((f.st_size, f.st_mtime_ns) for f in files))
    if (in_use := _still_in_use(key)) is not None:
        return in_use
    images = _read_idx(raw / images_file, (n, 28, 28))
    labels = _read_idx(raw / labels_file, (n,))
    if labels.max() > 9:
        raise ValueError(f"MNIST file {raw / labels_file} holds labels above 9: {_FIX}")
    counts = torch.bincount(labels.long(), minlength=10)
    if (counts == 0).any():  # every split of MNIST holds hundreds of each digit
        absent = ", ".join(str(k) for k in torch.nonzero(counts == 0).flatten().tolist())
        raise ValueError(f"MNIST file {raw / labels_file} holds no label {absent}: it is not "
                         f"MNIST's; {_FIX}")
    blank = int((images.flatten(1).amax(dim=1) == 0).sum())
    if blank:  # every MNIST digit has ink
        raise ValueError(f"MNIST file {raw / images_file} holds {blank:,} blank images of {n:,}: "
                         f"it is not MNIST's; {_FIX}")
    loaded = images[:limit].unsqueeze(1).float().div_(255), labels[:limit].long()
    _IN_USE[key] = tuple((weakref.ref(t), t._version) for t in loaded)
    return loaded


def _raw_folder(root: Path, images_file: str) -> Path:
    """``root``'s ``MNIST/raw``, where ``load_mnist`` looks. A ``root`` that is a file, or MNIST's
    own folder or its ``raw/`` (the files there: a download would make ``MNIST/raw/`` inside it)
    is refused, naming the folder to pass, before anything is made."""
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(f"load_mnist(): root must be a folder that holds MNIST/raw/, got "
                                 f"the file {root}; pass its folder, or None for the data root")
    raw = root / "MNIST" / "raw"
    above = next((up for up, inner in ((root.parent, root / "raw"), (root.parent.parent, root))
                  if (inner / images_file).is_file()), None)
    if not (raw / images_file).exists() and above is not None:
        raise FileNotFoundError(f"load_mnist(): root must be the folder that holds MNIST/raw/, got "
                                f"{root}, which holds MNIST's files itself; pass {above}")
    return raw


def _still_in_use(key: tuple) -> tuple[torch.Tensor, torch.Tensor] | None:
    """The tensors ``load_mnist`` handed out for ``key``, if something still holds both and
    neither was changed in place since; otherwise None."""
    tensors = [(ref(), version) for ref, version in _IN_USE.get(key, ())]
    if len(tensors) == 2 and all(t is not None and t._version == v for t, v in tensors):
        return tensors[0][0], tensors[1][0]
    _IN_USE.pop(key, None)
    return None


def _read_idx(path: Path, shape: tuple[int, ...]) -> torch.Tensor:
    """The bytes of IDX file ``path`` as a uint8 tensor of ``shape``, after checking its header.

    IDX: two zero bytes, the type (0x08: unsigned bytes), the number of dimensions, each size as
    a big-endian 4-byte integer, then the values. Raises ``ValueError`` naming the file and what
    is wrong with it.
    """
    data = bytearray(path.read_bytes())
    header = 4 + 4 * len(shape)
    magic = bytes([0, 0, 0x08, len(shape)])
    if data[:2] == b"\x1f\x8b":
        problem = f"it is gzip-compressed (decompress it: mv {path} {path}.gz; gunzip {path}.gz)"
    elif len(data) < header:
        problem = f"it holds {len(data)} bytes, less than the {header}-byte IDX header"
    elif data[:4] != magic:
        problem = f"it starts with 0x{data[:4].hex()} instead of 0x{magic.hex()}" + (
            " (it looks like a web page, e.g. a download's error page)"
            if data.lstrip()[:1] == b"<" else "")
    elif (sizes := struct.unpack(f">{len(shape)}I", data[4:header])) != shape:
        problem = f"its header says shape {list(sizes)}, MNIST's is {list(shape)}" + (
            " (is it the file of the other split? train-* hold 60,000 examples, t10k-* 10,000)"
            if sizes[1:] == shape[1:] else "")
    elif len(data) != header + prod(shape):
        problem = (f"it holds {len(data)} bytes, its header promises {header + prod(shape)} "
                   f"({'truncated' if len(data) < header + prod(shape) else 'extra bytes'})")
    else:
        return torch.frombuffer(data, dtype=torch.uint8, offset=header).view(shape)
    raise ValueError(f"MNIST file {path} is not a valid IDX file: {problem}. Fix: {_FIX}.")


def _download(path: Path) -> None:
    """Fetch ``<path.name>.gz`` from the first mirror that answers with MNIST's file (its
    ``SHA256``), showing progress, and write it, decompressed, to ``path`` (its folder made only
    then: a failed download leaves no empty folders). Raises ``OSError`` when every mirror
    fails."""
    errors = []
    for mirror in MIRRORS:
        url = f"{mirror}{path.name}.gz"
        print(f"downloading {url} ...", flush=True)
        try:
            data = gzip.decompress(_fetch(url, path.name))
        except (OSError, EOFError) as err:  # no answer within the timeout, refused, not gzip
            errors.append(f"{url}: {err}")
            continue
        if (digest := hashlib.sha256(data).hexdigest()) != SHA256[path.name]:
            errors.append(f"{url}: not MNIST's {path.name} (sha256 {digest[:12]}..., "
                          f"expected {SHA256[path.name][:12]}...)")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".part")  # never leave a half-written file behind
        partial.write_bytes(data)
        partial.replace(path)
        return
    raise OSError(f"{'; '.join(errors)} (each waited at most {DOWNLOAD_TIMEOUT_S} s)")


def _fetch(url: str, name: str, chunk: int = 1 << 16) -> bytes:
    """The bytes at ``url``, read in chunks under a progress bar named ``name`` (a few redraws
    in all, whatever the speed of the line)."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
        size = int(response.headers.get("Content-Length") or 0) or None
        parts = []
        with tqdm(total=size, unit="B", unit_scale=True, desc=name, maxinterval=float("inf"),
                  miniters=max(1, (size or 0) // DOWNLOAD_REDRAWS)) as bar:
            while block := response.read(chunk):
                parts.append(block)
                bar.update(len(block))
    return b"".join(parts)

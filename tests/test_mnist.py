"""MNIST comes from the data root; offline without the files, the error says what to do."""

import pytest
import torch

from capsedu.data import load_mnist
from capsedu.data.mnist import FILES


def test_missing_mnist_offline_names_the_folder_and_files(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        load_mnist(root=tmp_path, download=False)
    message = str(err.value)
    assert str(tmp_path / "MNIST" / "raw") in message
    assert all(name in message for name in FILES)
    assert "CAPSEDU_DATA" in message


def test_data_root_follows_the_environment(tmp_path, monkeypatch):
    from capsedu import config

    monkeypatch.setenv("CAPSEDU_DATA", str(tmp_path))
    assert config.data_root() == tmp_path
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

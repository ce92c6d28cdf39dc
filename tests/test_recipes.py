"""What every record of a training run keeps (``recipes.how_run``)."""

import torch

from capsedu.recipes import how_run


def test_how_run_sums_the_epochs_seconds_and_names_threads_and_torch():
    history = [{"seconds": 1.04, "loss": 0.3}, {"seconds": 2.03, "loss": 0.2}]
    assert how_run(history) == {"train_time_s": 3.1, "threads": torch.get_num_threads(),
                                "torch_version": torch.__version__}
    assert how_run([])["train_time_s"] == 0

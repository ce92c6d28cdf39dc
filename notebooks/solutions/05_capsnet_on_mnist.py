"""Solution to notebook 05's exercise: the number of weights in DigitCaps."""


def my_digitcaps_parameters(cfg):
    # one W_ij of shape [digit_dim x primary_dim] for every primary capsule i and digit capsule j;
    # the paper: 1152 x 10 x 16 x 8 = 1,474,560 (routing itself has no parameters)
    return cfg.n_primary * cfg.n_classes * cfg.digit_dim * cfg.primary_dim

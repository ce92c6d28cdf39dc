"""The MultiMNIST models of notebook 08 (Section 6): reading two digits, one reconstruction per
digit, both-digits-correct accuracy, the pairs they train on, and clear errors."""

import pytest
import torch
import torch.nn.functional as F

from capsedu import count_parameters, margin_loss
from capsedu.data.digit_pairs import pair_up
from capsedu.loop import evaluate, fit, is_correct
from capsedu.multi_digit import MultiDigitCapsNet, TwoDigitCNN, two_largest


@pytest.fixture(scope="module")
def tiny():
    torch.manual_seed(0)
    return MultiDigitCapsNet(conv_channels=8, primary_maps=2, decoder_hidden=(16,))


def digit_pairs(n, seed=0):
    """``n`` pairs of stand-in digits (a bright bar in a class-dependent place): pair_up's
    ``(pairs [n, 1, 36, 36], labels [n, 2], parts [n, 2, 1, 36, 36])`` and the digits."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.arange(n) % 10
    digits = torch.zeros(n, 1, 28, 28)
    for k, label in enumerate(labels.tolist()):
        digits[k, 0, 4 + 2 * label : 6 + 2 * label, 6:22] = torch.rand(1, generator=g) / 2 + 0.5
    return pair_up(digits, labels, g), digits


def test_two_largest_reads_the_two_highest_in_ascending_order():
    scores = torch.tensor([[0.1, 0.9, 0.3, 0.8], [0.7, 0.1, 0.2, 0.6], [0.0, 0.2, 0.9, 0.1]])
    assert two_largest(scores).tolist() == [[1, 3], [0, 3], [1, 2]]


def test_predict_returns_the_two_longest_capsules_sorted(tiny):
    x = torch.rand(6, 1, 36, 36)
    lengths = tiny(x).lengths  # [6, 10]
    by_length = lengths.argsort(dim=1, descending=True)[:, :2]
    assert torch.equal(tiny.predict(x), by_length.sort(dim=1).values)
    assert (tiny.predict(x)[:, 0] < tiny.predict(x)[:, 1]).all()


def test_score_cut_is_the_second_longest_other_capsule(tiny):
    """A class is read exactly when its length beats its cut, as ``predict`` reads it."""
    x = torch.rand(8, 1, 36, 36)
    read, lengths = tiny.predict(x), tiny(x).lengths
    for label in range(10):
        length, cut = tiny.score(x, label)
        others = torch.cat([lengths[:, :label], lengths[:, label + 1:]], dim=1)
        torch.testing.assert_close(cut, others.sort(dim=1, descending=True).values[:, 1])
        assert torch.equal(length > cut, (read == label).any(dim=1))


def test_training_loss_decodes_each_true_class_alone_against_its_own_digit():
    torch.manual_seed(0)
    tiny = MultiDigitCapsNet(conv_channels=8, primary_maps=2, decoder_hidden=(16,))
    with torch.no_grad():  # a decoder whose image depends strongly on the capsule it is given
        tiny.decoder[0].weight.mul_(1000)
    (pairs, labels, parts), _ = digit_pairs(4)
    masks = []  # the decoder's input each time it runs: [B, n_classes * digit_dim]
    handle = tiny.decoder.register_forward_hook(lambda module, inputs, out: masks.append(inputs[0]))
    try:
        loss, predictions = tiny.training_loss(pairs, labels, parts)
    finally:
        handle.remove()
    assert len(masks) == 2  # once per digit
    for k, flat in enumerate(masks):
        kept = flat.view(4, 10, 16).abs().sum(dim=-1) > 0  # [B, n_classes]: capsules let through
        assert torch.equal(kept, F.one_hot(labels[:, k], 10).bool())
    # the loss by hand: Eq. 4 with T_k = 1 for both classes, plus each masked capsule's
    # reconstruction against that digit alone
    v = tiny.digits(tiny.primary(F.relu(tiny.conv1(pairs)))).v  # [B, 10, 16]
    errors = 0.0
    for k in range(2):
        masked = v * F.one_hot(labels[:, k], 10)[..., None]
        recon = tiny.decoder(masked.flatten(1)).view(4, 1, 36, 36)
        errors = errors + ((recon - parts[:, k]) ** 2).flatten(1).sum(dim=1).mean()
    by_hand = margin_loss(v.norm(dim=-1), labels) + 0.0005 * errors
    torch.testing.assert_close(loss, by_hand)
    assert torch.equal(predictions, two_largest(v.norm(dim=-1)))
    # reconstruction k is compared with digit k alone: swapping the digits changes the loss
    assert tiny.training_loss(pairs, labels, parts.flip(1))[0] != loss


def test_pair_up_pairs_each_digit_of_a_batch_with_one_of_another_class():
    (pairs, labels, parts), digits = digit_pairs(40)
    assert pairs.shape == (40, 1, 36, 36) and parts.shape == (40, 2, 1, 36, 36)
    assert torch.equal(labels[:, 0], torch.arange(40) % 10)  # every digit first, in order
    assert (labels[:, 0] != labels[:, 1]).all()
    torch.testing.assert_close(pairs, parts.amax(dim=1))
    # each part is one digit alone, moved whole: its ink is that digit's
    ink = parts.flatten(2).sum(-1)  # [40, 2]
    torch.testing.assert_close(ink[:, 0], digits.flatten(1).sum(-1))
    partner_ink = digits.flatten(1).sum(-1)[:, None]  # [40, 1]: the candidates
    assert ((ink[:, 1][None] - partner_ink).abs() < 1e-4).any(dim=0).all()


def test_an_example_is_correct_only_when_both_digits_are():
    predictions = torch.tensor([[1, 3], [2, 5], [4, 7], [0, 9]])
    labels = torch.tensor([[3, 1], [2, 6], [4, 7], [8, 9]])  # either order
    assert is_correct(predictions, labels).tolist() == [True, False, True, False]
    assert is_correct(torch.tensor([1, 2, 3]), torch.tensor([1, 0, 3])).tolist() == [
        True, False, True]

    class Fixed(torch.nn.Module):
        def predict(self, x):
            return predictions[: len(x)]

    assert evaluate(Fixed(), (torch.zeros(4, 1), labels)) == 0.5


def test_the_cnn_has_the_capsnets_parameter_count():
    capsnet, cnn = MultiDigitCapsNet(), TwoDigitCNN()
    assert abs(count_parameters(cnn) / count_parameters(capsnet) - 1) < 0.10  # decoder included


def test_the_cnn_trains_its_sigmoids_against_the_two_hot_target_and_reads_the_top_two():
    torch.manual_seed(0)
    cnn = TwoDigitCNN(channels=(4, 4, 4), hidden=(16,)).eval()  # eval: no dropout noise
    (pairs, labels, parts), _ = digit_pairs(5)
    loss, predictions = cnn.training_loss(pairs, labels, parts)
    # -sum_k [T_k log p_k + (1 - T_k) log(1 - p_k)], T = 1 for both classes, by hand
    p, T = torch.sigmoid(cnn(pairs)), torch.zeros(5, 10)
    T[torch.arange(5), labels[:, 0]] = T[torch.arange(5), labels[:, 1]] = 1
    by_hand = -(T * p.log() + (1 - T) * (1 - p).log()).sum(dim=1).mean()
    torch.testing.assert_close(loss, by_hand)
    assert torch.equal(predictions, cnn.predict(pairs))
    assert torch.equal(cnn.predict(pairs), p.argsort(dim=1, descending=True)[:, :2].sort().values)
    for label in range(10):  # a class is read exactly when its probability beats its cut
        score, cut = cnn.score(pairs, label)
        torch.testing.assert_close(score, p[:, label])
        assert torch.equal(score > cut, (predictions == label).any(dim=1))


def test_reconstruct_each_redraws_the_two_longest_capsules(tiny):
    x = torch.rand(3, 1, 36, 36)
    lengths, read, images = tiny.reconstruct_each(x)
    assert lengths.shape == (3, 10) and images.shape == (3, 2, 1, 36, 36)
    assert torch.equal(read, tiny.predict(x))
    torch.testing.assert_close(images, tiny(x, read).reconstruction)  # as if they were the labels


@pytest.mark.parametrize("build", [lambda: MultiDigitCapsNet(conv_channels=4, primary_maps=2),
                                   lambda: TwoDigitCNN(channels=(2, 2, 2), hidden=(4,))],
                         ids=["capsnet", "cnn"])
@pytest.mark.parametrize("labels, match", [
    (torch.tensor([3, 1]), r"labels must be integer class labels of shape \[batch, 2\] = "
                           r"\[2, 2\] \(2 different classes per example\), got shape \(2,\)"),
    (torch.tensor([[3, 1], [4, 4]]), r"labels must list 2 different classes per example, got "
                                     r"\[4, 4\] at row 1 .*different classes"),
    (torch.tensor([[3.0, 1.0], [4.0, 5.0]]), r"labels.*dtype torch.float32.*labels\.long\(\)"),
    (torch.tensor([[3, 1], [4, 10]]), r"labels must lie in \[0, 9\].*10 at index 1, 1"),
])
def test_bad_labels_are_named_with_what_was_expected(build, labels, match):
    torch.manual_seed(0)
    net = build()
    x, parts = torch.rand(2, 1, 36, 36), torch.rand(2, 2, 1, 36, 36)
    with pytest.raises((ValueError, TypeError), match=match):
        net.training_loss(x, labels, parts)


def test_parts_of_the_wrong_shape_are_named(tiny):
    x, labels = torch.rand(2, 1, 36, 36), torch.tensor([[3, 1], [4, 5]])
    with pytest.raises(ValueError, match=r"parts must have shape \[batch, 2, 1, 36, 36\] \(each "
                                         r"digit of a pair alone.*got shape \(2, 1, 36, 36\)"):
        tiny.training_loss(x, labels, x)
    with pytest.raises(ValueError, match=r"got shape \(3, 2, 1, 36, 36\)"):
        tiny.training_loss(x, labels, torch.rand(3, 2, 1, 36, 36))


def test_fit_trains_on_pairs_made_from_each_batch_and_counts_both_digits(tmp_path):
    (_, _, _), digits = digit_pairs(70)
    labels = torch.arange(70) % 10

    def train(epochs, state_path=None):
        torch.manual_seed(0)
        model = TwoDigitCNN(channels=(2, 2, 2), hidden=(8,), dropout=0.0)  # no global draws
        history = fit(model, (digits, labels), epochs=epochs, batch_size=32, device="cpu",
                      progress=False, compose=pair_up, state_path=state_path)
        return model, history

    model, history = train(2)
    assert 0.0 <= history[-1].train_accuracy <= 1.0
    # a resumed run draws the same pairs: it ends with the same weights
    train(1, tmp_path / "state.pt")
    resumed, _ = train(2, tmp_path / "state.pt")
    for a, b in zip(model.state_dict().values(), resumed.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match="batch_size=128 training rows, got 70"):
        fit(model, (digits, labels), compose=pair_up, device="cpu", progress=False)


def test_both_models_come_back_from_a_checkpoint(tmp_path):
    from capsedu.checkpoints import pretrained, save

    torch.manual_seed(0)
    x = torch.rand(2, 1, 36, 36)
    for name, model in (("caps", MultiDigitCapsNet(conv_channels=4, primary_maps=2)),
                        ("cnn", TwoDigitCNN(channels=(2, 2, 2), hidden=(4,)))):
        save(model.eval(), name, tmp_path)
        loaded = pretrained(name, tmp_path)
        assert type(loaded) is type(model)
        torch.testing.assert_close(loaded.predict(x), model.predict(x))

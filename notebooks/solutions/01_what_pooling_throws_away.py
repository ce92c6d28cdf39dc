"""Solutions to the exercises of notebook 01 (what pooling throws away). Open on purpose!"""


def my_receptive_field(layers):
    """Receptive field (side, in input pixels) of a stack of (kernel, stride) layers, input first.

    Keep two numbers while walking from the input up:
    * r, the receptive field so far (1 pixel before any layer);
    * jump, the distance in input pixels between two neighbouring units of the current layer.
    A layer with kernel k sees k neighbouring units, i.e. (k - 1) jumps more than one unit:
        r <- r + (k - 1) * jump
    and a stride s spreads the next layer's units s times farther apart:
        jump <- jump * s
    """
    r, jump = 1, 1
    for kernel, stride in layers:
        r += (kernel - 1) * jump
        jump *= stride
    return r


# Exercise: how many 3x3 convolutions (stride 1) does a bag-of-parts CNN need before one unit sees
# the whole 32 x 32 image? Each adds 2 pixels: 1 + 2 n >= 32, so n = 16 layers.
layers_needed = next(n for n in range(1, 100) if my_receptive_field([(3, 1)] * n) >= 32)

# Exercise 4: a third 3x3 convolution widens the window by 2 pixels, to 1 + 3 * 2 = 7. Run this file
# to count how many windows of each size hold ink of both the left eye and the nose.
wider_rf = my_receptive_field([(3, 1)] * 3)

if __name__ == "__main__":
    from capsedu.data import faces
    from capsedu.data.face_ink import windows_holding_both
    from capsedu.exercises import check_receptive_field

    check_receptive_field(my_receptive_field)
    print(f"3x3 layers needed to cover 32 px: {layers_needed}")
    for window in (my_receptive_field([(3, 1)] * 2), wider_rf):
        both = windows_holding_both(faces.face_parts(), "left_eye", "nose", window)
        print(f"{window}x{window} windows that hold ink of the left eye and the nose: {both}")

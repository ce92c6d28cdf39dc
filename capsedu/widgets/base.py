"""What every course widget shares."""

import base64
import html
import re
from contextlib import contextmanager

from torch import nn

from ..capsnet import CapsNet, LogitsCNN
from ..checks import check_labels, check_shape, check_side
from ..validate import Tensor, checked
from ..viewpoint_states import EIGHTS_MODELS
from .controls import Owner
from .options import MAX_OPTIONS

# the test digits a widget of 08 or 11 shows, and their true classes
Digits = Tensor("test digits [N, 1, H, W], pixels in [0, 1]", ndim=4, pixels=True)
DigitLabels = Tensor("their true classes [N]", ndim=1)

# Shown under a widget's still where no kernel runs it (the course's website, GitHub).
STILL_NOTE = ("A still of this widget: it moves when the notebook runs, in Colab, Binder or "
              "JupyterLab.")


class Widget(Owner):
    """A course widget: its ipywidgets layout is ``self.widget``; a notebook cell that ends with
    the object displays that layout, and ``.state`` holds what the last update computed.

    Every widget draws its figure into ``self.image`` (an ``ipywidgets.Image`` holding a PNG) and
    its numbers into ``self.readout`` (an ``ipywidgets.HTML``); its controls are its own
    (``Owner``): a refusal names them as its attributes."""

    widget = None  # set by the subclass: the ipywidgets box to display
    image = readout = None  # set by the subclass: its figure and its readout
    # What the figure shows, in a sentence or two: the alt text of the still's image, which a
    # screen reader reads on the website. A subclass sets it; without it the alt names the widget.
    figure_alt = None
    _quiet = False  # True while ``moving_several`` moves controls: one redraw, not one each

    @contextmanager
    def moving_several(self):
        """Move several controls in the ``with`` block, then redraw once."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False
        self.update()

    # the digits a widget picks from at the least (two: one to overlay on another)
    least_digits = 1

    def _check_digits(self, images, labels, n_classes: int) -> None:
        """Refuse fewer than ``least_digits`` digits ``[N, ...]`` to pick from, or more than a
        dropdown lists (``MAX_OPTIONS``), or ``labels`` that are not one class of ``n_classes`` per
        digit, by the widget's name."""
        where = f"{type(self).__name__}()"
        least = "one digit" if self.least_digits == 1 else f"{self.least_digits} digits"
        if not self.least_digits <= len(images) <= MAX_OPTIONS:
            raise ValueError(f"{where}: images must hold from {least} to {MAX_OPTIONS:,} digits "
                             f"to pick from (one option each in its digit menu), got shape "
                             f"{tuple(images.shape)}; pass that many, e.g. images[:100]")
        check_labels(labels, f"{where}: labels", len(images), n_classes)

    def _changed(self, change):
        """A control's observer: redraw, unless ``moving_several`` is moving controls. A value
        the widget's function refuses by the control's own name (radians on a slider of
        degrees: ``pose_vector_state(): angle ...``) is refused naming the control the learner
        set (``PoseVectorExplorer.angle: value ...``), which goes back to its value before."""
        if self._quiet:
            return
        try:
            self.update()
        except (TypeError, ValueError) as err:
            name = change.owner.slider_name or ""
            refused = str(err).partition("(): ")[2]
            # the argument it sets: its attribute, or its key in a dict of controls ("rotation"
            # of "ViewpointExplorer.sliders['rotation']")
            attribute = name.rpartition(".")[2]
            argument = attribute.partition("['")[2].removesuffix("']") or attribute
            if not name or not refused.startswith(f"{argument} must "):
                raise
            self._quiet = True  # back to the value it had, which the widget still shows
            try:
                change.owner.value = change.old
            finally:
                self._quiet = False
            raise type(err)(f"{name}: value {refused.partition(' ')[2]}") from None

    def _repr_mimebundle_(self, **kwargs):
        """The live widget, and beside it a still (``text/html``: the readout and the figure as
        they are now, and a note) for a page that cannot run widgets. Jupyter front ends that run
        the kernel (JupyterLab, Colab, Voila) show the live widget; a static page shows the
        still."""
        if hasattr(self.widget, "_repr_mimebundle_"):  # ipywidgets 8
            bundle = self.widget._repr_mimebundle_(**kwargs)
        else:  # ipywidgets 7 (Colab's) displays through _ipython_display_: the same view
            bundle = {"text/plain": repr(self.widget),
                      "application/vnd.jupyter.widget-view+json": {
                          "version_major": 2, "version_minor": 0,
                          "model_id": self.widget.model_id}}
            # as ipywidgets 7's _ipython_display_ does when IPython calls it, without arguments:
            # its boxes' display callbacks take none (IPython gives this method include/exclude)
            self.widget._handle_displayed()
        bundle["text/html"] = self.still_html()
        return bundle

    def still_alt(self) -> str:
        """The still's alt text: ``figure_alt``, or else one naming the widget by its class name
        in words (``PoseSpaceExplorer``: "The figure of the pose space explorer widget, ...")."""
        if self.figure_alt and self.figure_alt.strip():
            return self.figure_alt.strip()
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", type(self).__name__).lower()
        name = words if "widget" in words.split() else f"{words} widget"
        return (f"The figure of the {name}, as it was when the notebook ran; the text above it "
                "gives its numbers.")

    def still_html(self) -> str:
        """The readout and the figure as they are now, as one HTML figure with ``STILL_NOTE``;
        the image's alt text is ``still_alt()``."""
        if self.image is None:
            raise TypeError(f"{type(self).__name__}.still_html(): a {type(self).__name__} has no "
                            "figure: Widget is the base of the course's widgets; make one of them "
                            "(e.g. SquashExplorer()) and call its still_html()")
        png = base64.b64encode(self.image.value).decode("ascii")
        alt = html.escape(self.still_alt(), quote=True)
        return (f'<figure class="capsedu-widget-still">'
                f'<div>{self.readout.value}</div>'
                f'<img src="data:image/png;base64,{png}" alt="{alt}">'
                f"<figcaption>{html.escape(STILL_NOTE)}</figcaption></figure>")


class TwoReaders(Widget):
    """A widget over test digits that two models read, notebook 08's ``capsnet`` and ``cnn``:
    ``images`` ``[N, 1, 28, 28]`` and their ``labels`` ``[N]``; the constructor of
    ``ViewpointExplorer``, ``OverlapExplorer`` and ``AttackExplorer``, whose refusals name the
    widget made. It is made only as one of them (it has no controls of its own). A subclass lays
    out its controls and figure in ``build``; it is then drawn once. Both models
    must read ``side`` x ``side`` images (a subclass sets its own), and ``images`` must be
    ``digit_side`` x ``digit_side``: MNIST digits, which the widget places on its canvas, or (a
    subclass that shows the images as they are) the canvas itself."""

    side = 40
    digit_side = 28
    # what each model must be beyond that, if anything: name -> (class, in words)
    readers: dict[str, tuple[type, str]] = {}

    @checked
    def __init__(self, capsnet: CapsNet, cnn: LogitsCNN, images: Digits, labels: DigitLabels):
        import ipywidgets as widgets  # here, so that every other widget's import stays light

        where = f"{type(self).__name__}()"
        if type(self) is TwoReaders:  # no controls of its own: only its subclasses lay them out
            made = ", ".join(sorted(kind.__name__ for kind in TwoReaders.__subclasses__()))
            raise TypeError(f"{where}: TwoReaders is the base of the widgets over digits that "
                            "two models read, with no controls of its own; make one of them "
                            f"with the same arguments: {made}")
        self._check_digits(images, labels, n_classes=10)
        d = self.digit_side
        check_shape(images, f"{where}: images", f"[N, 1, {d}, {d}] (the test digits it shows)", 4,
                    (1, d, d))
        for name, model in (("capsnet", capsnet), ("cnn", cnn)):
            kind, words = self.readers.get(name, (nn.Module, ""))
            if not isinstance(model, kind):
                raise TypeError(f"{where}: {name} must be a {kind.__name__} ({words}), got a "
                                f"{type(model).__name__}; pass notebook 08's {name}")
        check_side(type(self).__name__, self.side, EIGHTS_MODELS, capsnet=capsnet, cnn=cnn)

        self.capsnet, self.cnn, self.images, self.labels = capsnet, cnn, images, labels
        # the dropdowns' choices: "#k: a y" for the k-th digit, of class y
        self.digit_options = [(f"#{k}: a {int(y)}", k) for k, y in enumerate(labels)]
        self.readout, self.image = widgets.HTML(), widgets.Image(format="png")
        self.build()
        self.update()

    def build(self):
        raise NotImplementedError("a TwoReaders widget lays out its controls in build()")

    def _readers_figure(self, seen_title: str) -> None:
        """08's figure for both readers (``figures.model_scores.capsnet_vs_cnn_figure``): the
        image both models see, titled ``seen_title``, the CapsNet's reconstruction, and per class
        its capsule length beside the CNN's softmax probability."""
        import numpy as np

        from ..figures.model_scores import capsnet_vs_cnn_figure

        self.figure, (seen, recon), (self._lengths, self._probabilities) = \
            capsnet_vs_cnn_figure("softmax")
        blank = np.zeros((40, 40))
        self._seen = seen.imshow(blank, cmap="gray", vmin=0, vmax=1)
        self._recon = recon.imshow(blank, cmap="gray", vmin=0, vmax=1)
        seen.set_title(seen_title)
        recon.set_title("CapsNet reconstruction")

    def _draw_readings(self, seen, reconstruction, lengths, probabilities, capsnet_reads: int,
                       cnn_reads: int) -> None:
        """Redraw ``_readers_figure`` in place: the two images ``[40, 40]``, the ten lengths and
        probabilities, each model's answer drawn full and the other classes pale."""
        from ..figures.canvas import png_bytes
        from ..figures.model_scores import update_class_bars

        self._seen.set_data(seen)
        self._recon.set_data(reconstruction)
        update_class_bars(self._lengths, lengths, chosen=[capsnet_reads])
        update_class_bars(self._probabilities, probabilities, chosen=[cnn_reads])
        self.image.value = png_bytes(self.figure)

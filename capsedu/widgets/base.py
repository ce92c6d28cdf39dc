"""What every course widget shares."""


class Widget:
    """A course widget: its ipywidgets layout is ``self.widget``; a notebook cell that ends with
    the object displays that layout, and ``.state`` holds what the last update computed."""

    widget = None  # set by the subclass: the ipywidgets box to display

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

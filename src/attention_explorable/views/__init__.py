"""What each explorable displays, as pure Python functions of its state (the oracle).

One module per explorable (:mod:`.steps`, :mod:`.vector`, :mod:`.matrix`,
:mod:`.selfcross`), each built on :mod:`attention_explorable.core` and
importing nothing of Panel or Bokeh. A view is a plain dict:

``sources``
    ``{name: {column: list}}``, the data of each ``ColumnDataSource``;
``ranges``
    ``{name: [start, end]}``, the ranges of plot axes;
``html``
    ``{name: str}``, the HTML of readouts, formulas and messages;
``props``
    ``{name: {property: value}}``, other properties of the page's models
    (a slider's value, a box's text, whether a figure is visible, a
    button's label).

Each has a JavaScript twin in ``attention_explorable/web/`` that returns
the same dict for the same state; the browser draws with the twin and
``tests/browser/test_*_mirror.py`` hold the two to each other.
"""

"""The explorables as Panel ``Viewer`` components, and their registry.

Each explorable has a pure Python view in :mod:`attention_explorable.views`
(the oracle), a JavaScript twin and controller in
``attention_explorable/web/<name>.js``, and a thin ``Viewer`` here that
builds its Bokeh models once and lays them out. :data:`EXPLORABLES` names
them for the apps, the command line and the textbook.
"""

from __future__ import annotations

import importlib

#: name -> (module, class) of every explorable.
EXPLORABLES = {
    "steps": ("attention_explorable.explorables.steps", "StepsExplorer"),
    "vector": ("attention_explorable.explorables.vector", "VectorExplorer"),
    "matrix": ("attention_explorable.explorables.matrix", "MatrixExplorer"),
    "selfcross": ("attention_explorable.explorables.selfcross", "SelfCrossExplorer"),
}


def explorable_class(name: str) -> type:
    """The ``Viewer`` class of explorable ``name``.

    Raises
    ------
    KeyError
        If no explorable of that name is registered (the message names it).
    """
    try:
        module, cls = EXPLORABLES[name]
    except KeyError:
        raise KeyError(f"unknown explorable {name!r}; known: {sorted(EXPLORABLES)}") from None
    return getattr(importlib.import_module(module), cls)

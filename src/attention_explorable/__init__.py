"""Interactive textbook sections 3.7 and 3.8 on the attention mechanism.

The numerical core lives in :mod:`attention_explorable.core` (numpy only);
the explorables are Panel ``Viewer`` components built on it. For notebooks
and authors, the public names are at the package's top::

    import panel as pn
    from attention_explorable import StepsExplorer, VectorExplorer, core

    pn.extension()
    StepsExplorer(language="en", step=3)          # a live explorable in a notebook cell
    core.softmax([20.0, 22.0], temperature=0.02)  # the numbers it shows

``StepsExplorer`` (section 3.8, the three steps), ``VectorExplorer``
(section 3.7, the worked example), ``MatrixExplorer`` (scaled dot-product
attention), ``SelfCrossExplorer`` (self- and cross-attention),
``QkvExplorer`` (from the inputs X to the output) and ``ContextsExplorer``
(one word, two contexts) are
imported when first used, so ``from attention_explorable import core``
loads numpy only. ``export_site`` writes the static site
(``attention-explorable export``).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Public name -> the module that defines it (imported on first use).
_PUBLIC = {
    "StepsExplorer": "attention_explorable.explorables.steps",
    "VectorExplorer": "attention_explorable.explorables.vector",
    "MatrixExplorer": "attention_explorable.explorables.matrix",
    "SelfCrossExplorer": "attention_explorable.explorables.selfcross",
    "QkvExplorer": "attention_explorable.explorables.qkv",
    "ContextsExplorer": "attention_explorable.explorables.contexts",
    "export_site": "attention_explorable.site",
    "core": "attention_explorable.core",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    try:
        module = importlib.import_module(_PUBLIC[name])
    except KeyError:
        raise AttributeError(f"module 'attention_explorable' has no attribute {name!r}") from None
    return module if name == "core" else getattr(module, name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])

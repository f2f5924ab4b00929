"""Interactive textbook sections 3.7 and 3.8 on the attention mechanism.

The numerical core lives in :mod:`attention_explorable.core` (numpy only);
the explorables are Panel ``Viewer`` components built on it.
"""

__version__ = "0.1.0"

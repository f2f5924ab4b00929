"""Scaled dot-product attention of section 3.7: score and weight heatmaps.

Serve with ``panel serve apps/matrix.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("matrix").servable()

"""Self- and cross-attention of section 3.7: where Q, K and V come from.

Serve with ``panel serve apps/selfcross.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("selfcross").servable()

"""A head that learns (section 3.8): one attention head trained on key -> value lookup, on the server.

Serve with ``panel serve apps/head.py``; every browser session runs this
script and gets its own head to train.
"""

from attention_explorable.apps import explorable_app

explorable_app("head").servable()

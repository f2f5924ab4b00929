"""The worked example of section 3.7: move the query, watch weights and output.

Serve with ``panel serve apps/vector.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("vector").servable()

"""One word, two contexts (section 3.8.1): the same token, two rows of weights, two outputs.

Serve with ``panel serve apps/contexts.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("contexts").servable()

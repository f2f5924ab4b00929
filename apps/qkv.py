"""From the inputs X to the output (section 3.7.8): Q, K and V are computed.

Serve with ``panel serve apps/qkv.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("qkv").servable()

"""The three-step "predict, then demonstrate" explorable (section 3.8).

Serve with ``panel serve apps/steps.py``; every browser session runs this
script and gets its own explorer.
"""

from attention_explorable.apps import explorable_app

explorable_app("steps").servable()

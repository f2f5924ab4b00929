"""The textbook page: sections 3.7 and 3.8 with every explorable inline.

Serve with ``panel serve apps/textbook.py``; every browser session runs this
script and gets its own page.
"""

from attention_explorable.apps import textbook_app

textbook_app().servable()

"""The textbook page in English (for tests/browser/test_textbook_browser.py): no URL of the
served apps selects the English edition yet, so this app builds it directly."""

from attention_explorable.apps import textbook_app

textbook_app("en").servable(title="Attention: sections 3.7 and 3.8")

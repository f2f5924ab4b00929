"""The lecture video block of the course text, alone on a page with the textbook's scripts
(for tests/browser/test_video_browser.py). ``?lang=en`` shows the English edition's block."""

import panel as pn

from attention_explorable import content, ui
from attention_explorable.textbook import block_html, page_scripts

ui.extension()
args = pn.state.session_args or {}
language = (args.get("lang") or [b"zh"])[0].decode()
section_id, block = next((s.id, b) for s in content.load_sections(language) for b in s.blocks if b.kind == "video")
pn.Column(
    page_scripts(load_on_approach=False),
    content.math_html(block_html(section_id, block, language), css_classes=["ae-prose"]),
).servable()

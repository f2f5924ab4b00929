"""A self- and cross-attention explorable beside what the server holds of its state
(for tests/browser/test_selfcross_browser.py).

Shows the server's parameters as text, and a button that changes them on the
server (as the class or a notebook would), so a test can watch the state
travel both ways.
"""

import panel as pn

from attention_explorable import ui
from attention_explorable.explorables.selfcross import SelfCrossExplorer

ui.extension()
explorer = SelfCrossExplorer()
held = pn.pane.Str(
    pn.bind(
        lambda mode, causal, query: f"server: mode={mode} causal={causal} query={query}",
        explorer.param.mode,
        explorer.param.causal,
        explorer.param.query,
    ),
    css_classes=["ae-server-state"],
)
jump = pn.widgets.Button(label="server: cross, query 4", css_classes=["ae-server-jump"])
jump.on_click(lambda event: explorer.param.update(mode="cross", causal=False, query=4))
pn.Column(held, jump, explorer).servable()

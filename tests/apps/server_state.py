"""A steps explorable beside what the server holds of its state (for tests/browser/test_server_state.py).

Shows the server's parameters as text, and a button that changes them on the
server (as the class or a notebook would), so a test can watch the state
travel both ways.
"""

import panel as pn

from attention_explorable import ui
from attention_explorable.explorables.steps import StepsExplorer

ui.extension()
explorer = StepsExplorer(ask_prediction=False)  # (a presenter's: its sliders open before a prediction)
held = pn.pane.Str(
    pn.bind(
        lambda step, t, diff, pred: f"server: step={step} T={t:g} diff={diff:g} pred=[{pred}]",
        explorer.param.step,
        explorer.param.temperature,
        explorer.param.score_diff,
        explorer.param.prediction_text,
    ),
    css_classes=["ae-server-state"],
)
jump = pn.widgets.Button(label="server: step 3 at T = 0.05", css_classes=["ae-server-jump"])
jump.on_click(lambda event: (explorer.go_to_step(3), explorer.param.update(temperature=0.05)))
pn.Column(held, jump, explorer).servable()

"""In a notebook, a change made in Python reaches the page that shows the explorable, at once.

The explorable is displayed as a notebook displays it (its module's widget, a
Panel root with a Jupyter comm); the comm here keeps what the kernel would
send to the page. A change of a parameter in Python must be sent, and carry
the new value of the state the page draws from; a change that came from the
page sets the parameter, and nothing else goes back.
"""

from __future__ import annotations

import json

import pytest
from bokeh.document import Document
from pyviz_comms import Comm

from attention_explorable.explorables import MODULES, explorable_class


class _PageComm(Comm):
    """A comm whose page is open: it keeps what the kernel sends."""

    def __init__(self):
        super().__init__()
        self._comm = True
        self.sent: list[str] = []

    def send(self, data=None, metadata=None, buffers=[]):
        if data is not None:
            self.sent.append(data if isinstance(data, str) else data.decode("utf-8", "replace"))


def _show(explorer):
    """Display ``explorer`` as a notebook cell does (its widget's ``_repr_mimebundle_``: a document held, as
    Panel's ``render_mimebundle`` holds it, and a comm)."""
    comm, doc = _PageComm(), Document()
    explorer._notebook_view()._render_model(doc, comm)
    doc.hold()
    return comm


def _patches(comm) -> list[dict]:
    out = []
    for text in comm.sent:
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and "events" in message:
            out.append(message)
    return out


def test_a_change_in_python_reaches_the_page():
    explorer = explorable_class("steps")(language="en")
    comm = _show(explorer)
    comm.sent.clear()
    explorer.temperature = 0.05
    events = [e for m in _patches(comm) for e in m["events"]]
    changed = {(e.get("attr"), e.get("new")) for e in events if e.get("kind") == "ModelChanged"}
    assert ("temperature", 0.05) in changed, events
    comm.sent.clear()
    explorer.go_to_step(3)
    changed = {e.get("attr") for m in _patches(comm) for e in m["events"]}
    assert "step" in changed, changed


@pytest.mark.parametrize("name", [n for n, m in MODULES.items() if m.viewer and n != "head"])
def test_every_explorable_sends_its_state(name):
    explorer = explorable_class(name)(language="zh")
    comm = _show(explorer)
    comm.sent.clear()
    param_name = next(
        n
        for n in explorer._link_params
        if explorer.param[n].__class__.__name__ in ("Number", "Integer", "Boolean", "Selector")
    )
    p = explorer.param[param_name]
    if p.__class__.__name__ == "Boolean":
        new = not getattr(explorer, param_name)
    elif p.__class__.__name__ == "Selector":
        new = next(o for o in p.objects if o != getattr(explorer, param_name))
    else:
        lo, hi = p.bounds
        new = hi if getattr(explorer, param_name) != hi else lo
    setattr(explorer, param_name, new)
    changed = {e.get("attr") for m in _patches(comm) for e in m["events"]}
    assert param_name in changed, (param_name, changed)


def test_a_change_from_the_page_sets_the_parameter_and_nothing_else_is_sent():
    explorer = explorable_class("steps")(language="en")
    comm = _show(explorer)
    comm.sent.clear()
    explorer._notebook_view()._process_events({"temperature": 2.0})  # the page's message, as Panel takes it
    assert explorer.temperature == 2.0
    events = [e for m in _patches(comm) for e in m["events"]]
    assert all(e.get("attr") == "temperature" and e.get("new") == 2.0 for e in events), events


def test_the_head_trains_in_python_and_its_curves_grow_in_the_notebook():
    """The head's notebook view is its Panel component (training in the kernel): a later cell's
    ``train(20)`` streams only the new points of the curve to the page, and the readout follows."""
    explorer = explorable_class("head")(language="en", skipped=True)
    comm = _show(explorer)
    explorer.train(5)
    comm.sent.clear()
    explorer.train(20)
    events = [e for m in _patches(comm) for e in m["events"]]
    streamed = [e for e in events if e.get("kind") == "ColumnsStreamed"]
    assert len(streamed) == 1, events
    columns = dict(streamed[0]["data"]["entries"])  # Bokeh's encoding of a dict
    assert columns["step"] == list(range(6, 26)) and len(columns["loss"]) == len(columns["accuracy"]) == 20
    texts = [e.get("new") for e in events if e.get("kind") == "ModelChanged" and e.get("attr") == "text"]
    assert any("Step 25:" in (t or "") for t in texts), texts

"""The change-batching and busy-skip overrides of :mod:`attention_explorable.serving`.

Like ``tests/test_serving.py`` these tests drive the code that Panel and Bokeh
actually run (a real server on loopback, in this process, spoken to over a
websocket with Bokeh's protocol) and run each check without the override as
well, to show that it can fail.  They fail when a Panel or Bokeh release makes
an override ineffective.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import uuid

import panel as pn
import pytest
from panel.io.state import state
from panel.reactive import Syncable

from attention_explorable import serving

from .conftest import free_port


pytestmark = pytest.mark.usefixtures("restore_fast_path")


# --- a minimal Bokeh protocol client ------------------------------------------

class _Client:
    """Page request, websocket, PULL-DOC and document_ready, like a browser tab."""

    def __init__(self) -> None:
        self.messages: list[tuple[dict, dict]] = []  # (header, content) of every message
        self.models: dict[str, dict] = {}

    async def open(self, port: int) -> None:
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        base = f"http://127.0.0.1:{port}"
        page = (await AsyncHTTPClient().fetch(f"{base}/app", request_timeout=30)).body.decode()
        token = re.search(r'"token"\s*:\s*"([^"]+)"', page).group(1)
        request = HTTPRequest(f"ws://127.0.0.1:{port}/app/ws", headers={"Origin": base})
        self.ws = await websocket_connect(request, subprotocols=["bokeh", token])
        self.reader = asyncio.ensure_future(self._read())
        await self.send("PULL-DOC-REQ", {})
        reply = await self.wait_for(lambda h, c: h["msgtype"] == "PULL-DOC-REPLY")
        self._collect(reply[1]["doc"])
        await self.send("PATCH-DOC", {"events": [{
            "kind": "MessageSent", "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}}}]})
        await asyncio.sleep(0.3)

    def _collect(self, obj) -> None:
        if isinstance(obj, dict):
            if obj.get("type") == "object" and "attributes" in obj:
                self.models.setdefault(obj["id"], obj)
            for v in obj.values():
                self._collect(v)
        elif isinstance(obj, list):
            for v in obj:
                self._collect(v)

    def find(self, css: str) -> str:
        for mid, m in self.models.items():
            if css in (m["attributes"].get("css_classes") or []):
                return mid
        raise AssertionError(f"no model with class {css}")

    async def _read(self) -> None:
        while True:
            header = await self.ws.read_message()
            if header is None:
                return
            header = json.loads(header)
            await self.ws.read_message()
            content = json.loads(await self.ws.read_message())
            for _ in range(int(header.get("num_buffers", 0) or 0)):
                await self.ws.read_message()
                await self.ws.read_message()
            self.messages.append((header, content))

    async def send(self, msgtype: str, content: dict) -> None:
        await self.ws.write_message(json.dumps({"msgid": uuid.uuid4().hex, "msgtype": msgtype}))
        await self.ws.write_message("{}")
        await self.ws.write_message(json.dumps(content))

    async def wait_for(self, predicate, timeout: float = 20.0):
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for msg in self.messages:
                if predicate(*msg):
                    return msg
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no matching message; got {[h['msgtype'] for h, _ in self.messages]}")
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        self.ws.close()
        self.reader.cancel()


def _two_readout_app():
    """A slider whose change updates two separate panes (two Panel objects)."""
    slider = pn.widgets.IntSlider(start=0, end=100, value=0, css_classes=["t-slider"])
    a = pn.pane.HTML("a 0", css_classes=["t-a"])
    b = pn.pane.HTML("b 0", css_classes=["t-b"])

    def update(event):
        a.object = f"a {event.new}"
        b.object = f"b {event.new}"

    slider.param.watch(update, "value")
    return pn.Column(slider, a, b)


def _run_served(scenario):
    """Serve the two-readout app in this thread's event loop; run ``scenario(port)``."""
    async def main():
        port = free_port()
        server = pn.serve({"app": _two_readout_app}, port=port, address="127.0.0.1",
                          websocket_origin=[f"127.0.0.1:{port}"], show=False, start=False)
        server.start()
        try:
            return await asyncio.wait_for(scenario(port), 60)
        finally:
            server.stop()
            server.unlisten()
            for key, entry in list(state._servers.items()):
                if entry[0] is server:
                    del state._servers[key]
            state._server_config.pop(server._tornado, None)

    # A fresh thread has no event loop, also when the session's Playwright
    # browser keeps one running in the main thread.
    result: dict = {}

    def run():
        try:
            result["value"] = asyncio.run(main())
        except BaseException as exc:  # re-raised in the test's thread
            result["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(120)
    if "error" in result:
        raise result["error"]
    return result["value"]


async def _one_slider_change(port: int) -> dict:
    client = _Client()
    await client.open(port)
    try:
        slider, a, b = client.find("t-slider"), client.find("t-a"), client.find("t-b")
        n_before = len(client.messages)
        await client.send("PATCH-DOC", {"events": [
            {"kind": "ModelChanged", "model": {"id": slider}, "attr": "value", "new": 7}]})

        def changes(header, content):
            ids = {e.get("model", {}).get("id") for e in content.get("events", [])
                   if e.get("attr") == "text"}
            return ids & {a, b}

        await client.wait_for(lambda h, c: b in changes(h, c))
        await asyncio.sleep(0.2)  # anything else this change causes
        patches = [changes(h, c) for h, c in client.messages[n_before:]
                   if h["msgtype"] == "PATCH-DOC" and changes(h, c)]
        return {"patches": patches}
    finally:
        await client.close()


# --- one change, one PATCH-DOC, no poll ------------------------------------------

@pytest.mark.parametrize("fast", [False, True], ids=["defaults", "fast_path"])
def test_one_change_comes_back_as_one_patch_doc(fast):
    if fast:
        serving.enable_fast_path()
    else:
        serving.disable_fast_path()
    result = _run_served(_one_slider_change)
    if fast:
        assert len(result["patches"]) == 1 and len(result["patches"][0]) == 2, result
    else:
        # Panel's server path sends one message per changed Panel object.
        assert len(result["patches"]) == 2, result


@pytest.mark.parametrize("batching", [False, True], ids=["debounce_only", "fast_path"])
def test_reply_is_written_without_panels_poll(batching, monkeypatch):
    """With a zero debounce alone, Panel finds the OK reply still being written and polls."""
    import panel.io.document as pdoc

    serving.enable_fast_path()
    if not batching:
        monkeypatch.setattr(Syncable, "_change_coroutine", serving._saved["change_coroutine"])
    polled = []
    original = pdoc.schedule_write_events

    def recording(*args, **kwargs):
        polled.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(pdoc, "schedule_write_events", recording)
    _run_served(_one_slider_change)
    if batching:
        assert polled == [], "the change went through Panel's 10 ms write poll"
    else:
        assert polled, ("without the wrapper the reply was not in flight: Panel or Bokeh may no "
                        "longer need the wait in serving._change_coroutine")


def test_server_change_still_schedules_change_coroutine():
    source = inspect.getsource(Syncable._server_change)
    assert "self._change_coroutine" in source
    assert "async def" in inspect.getsource(serving._saved.get("change_coroutine")
                                            or Syncable._change_coroutine)


# --- busy bookkeeping ----------------------------------------------------------------

def _counter_changes(fast: bool, observe: str | None) -> tuple[list, list]:
    """Process one slider change; return (busy counter changes, busy values seen)."""
    if fast:
        serving.enable_fast_path()
    else:
        serving.disable_fast_path()
    counter, busy = [], []
    watchers = [state.param.watch(lambda e: counter.append(e.new), "_busy_counter")]
    indicator = None
    if observe == "watcher":
        watchers.append(state.param.watch(lambda e: busy.append(e.new), "busy"))
    elif observe == "indicator":
        indicator = pn.indicators.BooleanStatus()
        indicator.param.watch(lambda e: busy.append(e.new), "value")
        state.sync_busy(indicator)
    try:
        slider = pn.widgets.IntSlider(start=0, end=10)
        slider._process_events({"value": 3})
        assert slider.value == 3
    finally:
        for w in watchers:
            state.param.unwatch(w)
        if indicator is not None:
            state._indicators.remove(indicator)
    return counter, busy


def test_busy_bookkeeping_is_skipped_while_nothing_observes_it():
    counter, busy = _counter_changes(fast=True, observe=None)
    assert counter == [] and busy == []
    counter, _ = _counter_changes(fast=False, observe=None)
    assert counter, "Panel no longer records busy events: the busy override may be removable"


@pytest.mark.parametrize("observe", ["watcher", "indicator"])
def test_busy_state_still_works_when_observed(observe):
    counter, busy = _counter_changes(fast=True, observe=observe)
    assert counter and busy[:1] == [True] and busy[-1:] == [False], (counter, busy)


def test_panel_still_counts_busy_events_through_the_wrapped_methods():
    from panel.io.state import _state

    source = inspect.getsource(Syncable._process_events)
    assert "state._add_busy_event" in source and "state._remove_busy_event" in source
    assert "_update_busy" in _state.__dict__ and "_indicators" in dir(state)
    serving.enable_fast_path()
    status = serving.fast_path_status()
    assert status["batching"] and status["busy_skip"] and status["enabled"]
    serving.disable_fast_path()
    status = serving.fast_path_status()
    assert not (status["batching"] or status["busy_skip"] or status["enabled"])

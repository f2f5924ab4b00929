"""Low-latency serving overrides for this package's Panel apps.

Why this module exists
----------------------
Dragging or key-stepping a slider in an explorable should update its readout
within a frame or two.  With ``panel serve`` defaults the round trip from a
slider key press in the browser to the readout text changing measured about
62 ms (p50), and almost all of it is two fixed delays on the server that
neither Panel nor Bokeh exposes a public setting for:

1. **Panel's change debounce.**  Every incoming widget change is handed to
   ``panel.reactive.Syncable._server_change``, which schedules its processing
   with ``doc.add_timeout_callback(cb, self._debounce)``.  ``_debounce`` is a
   private ``ClassVar`` on :class:`panel.reactive.Syncable` that defaults to
   50 ms; there is no ``pn.config`` option, ``panel serve`` flag or widget
   parameter for it.  Changes arriving while a callback is pending are still
   merged into that callback (``Syncable._events``), so a zero delay keeps
   Panel's batching of changes that arrive together; it only stops holding
   each change for 50 ms first.

2. **Nagle's algorithm on the websocket.**  Tornado turns ``TCP_NODELAY`` on
   only while it writes an HTTP response and switches it back off when the
   response is finished, and the websocket upgrade is such a response.  The
   websocket that carries Bokeh's document patches therefore keeps Nagle's
   algorithm on.  Combined with delayed ACKs this holds back small frames.
   Tornado's documented remedy is to call
   :meth:`tornado.websocket.WebSocketHandler.set_nodelay` from ``open``, but
   Bokeh's handler (:class:`bokeh.server.views.ws.WSHandler`) never does, and
   neither Bokeh (``bokeh serve``/``Server``) nor Panel (``panel serve``,
   ``pn.serve``) has an option for it.

With those two delays gone, the time left between the browser sending a
change and the server's reply is Python work and scheduling, measured with
timestamps and ``py-spy`` (see ``benchmarks/RESULTS.md``).  Two further costs
come from Panel's server path and have no public setting either:

3. **Replies written behind a 10 ms poll, in several messages.**  Bokeh
   answers each incoming ``PATCH-DOC`` with an ``OK`` message whose three
   frames are written under the connection's ``write_lock``, one event-loop
   iteration per frame.  With a zero debounce Panel's change callback runs
   in one of those iterations, so when it pushes the resulting model changes
   (``panel.io.document.unlocked``) it finds the lock held and takes its
   fallback: queue the message and poll the lock every 10 ms
   (``asyncio.sleep(0.01)`` in ``_dispatch_msgs``).  That cost ~10 ms on
   every key press.  In addition, each Panel object that changes in response
   (for a slider: the number box echoing the value, then the explorable's
   readouts and plots) opens its own ``unlocked()`` block and sends its own
   ``PATCH-DOC``, each serialized against every model of the document.
   Panel's notebook path processes a change batch inside one document hold
   (``Syncable._schedule_change``); its server path does not.

4. **Busy-state bookkeeping nobody reads.**  Panel counts every incoming
   change and event in ``pn.state._busy_counter`` so that ``pn.state.busy``
   can drive busy indicators.  Each add and remove edits read-only
   parameters of ``pn.state`` and runs its watchers: about 2 ms per slider
   key press on the benchmark machine, a tenth of the server's work, also
   when no indicator exists.

What the override does
----------------------
:func:`enable_fast_path` changes four things, process-wide, and
:func:`disable_fast_path` puts all of them back:

* sets ``panel.reactive.Syncable._debounce = 0``.  ``Syncable`` is the base
  of every Panel widget, pane and layout, and none of them overrides
  ``_debounce``; :func:`fast_path_status` reports any loaded class that
  shadows the value;
* wraps ``bokeh.server.views.ws.WSHandler.open`` so that it first calls
  ``self.set_nodelay(True)``.  Panel's server routes ``/ws`` to its subclass
  ``panel.io.server.WSHandler`` (it rewrites ``bokeh.server.urls.
  per_app_patterns`` when ``panel.io.server`` is imported, which
  ``panel serve`` and ``pn.serve`` both do), and that subclass's ``open``
  ends with ``super().open()``, so the one wrapper covers ``panel serve``,
  ``pn.serve`` and plain Bokeh servers in the same process;
* wraps ``panel.reactive.Syncable._change_coroutine`` (the callback that
  ``_server_change`` schedules) so that it first waits until every
  connection of the session has finished writing (``async with
  write_lock``: at most the frames of one reply, since the callback holds
  the document lock), and then processes the change batch inside one
  ``panel.io.document.unlocked()`` block: everything the batch changes
  leaves as one ``PATCH-DOC``, written at once instead of after a poll.
  With a thread pool (``pn.config.nthreads``) it only waits;
* wraps ``pn.state``'s ``_add_busy_event`` so that it records nothing while
  nothing observes ``pn.state.busy`` (no indicator registered through
  ``pn.state.sync_busy`` or a template's ``busy_indicator``, and no watcher
  on ``pn.state.param.busy`` besides Panel's own), and ``_remove_busy_event``
  so that it returns at once when nothing is recorded.  As soon as an
  indicator or a watcher appears, busy tracking works as before.  The one
  visible difference: reading ``pn.state.busy`` directly, without watching
  it, gives ``False`` during callbacks.

All overrides act on objects that are looked up at run time (``self.
_debounce`` when a change arrives; ``open`` when a websocket connects), so
calling :func:`enable_fast_path` from an app script run by ``panel serve``
works: the page request that runs the script comes before the websocket
connection.  Call it as early as convenient, before serving.

The tests in ``tests/test_serving.py`` check against a real server that the
websocket socket ends up with ``TCP_NODELAY`` set only with the override, and
that ``_server_change`` still reads ``_debounce``; ``tests/
test_serving_batching.py`` checks against a real server that one slider change
comes back as one ``PATCH-DOC`` without waiting for the poll, and that busy
events are skipped only while unobserved.  If a Panel, Bokeh or Tornado
release makes an override ineffective, those tests fail.
"""

from __future__ import annotations

import functools
import os
import threading
from typing import Any

__all__ = ["FAST_PATH_ENV", "disable_fast_path", "enable_fast_path", "fast_path_requested",
           "fast_path_status"]

#: Environment variable that switches the fast path off (``0``, ``false``,
#: ``no`` or ``off``) for side-by-side measurements against Panel's defaults;
#: see :func:`fast_path_requested`.  Unset or any other value: on.
FAST_PATH_ENV = "AE_FAST_PATH"

#: Marker set on the wrappers so that re-wrapping is detectable and avoided.
_MARKER = "__attention_explorable_nodelay__"

_lock = threading.Lock()
#: Values replaced by :func:`enable_fast_path`, kept for :func:`disable_fast_path`.
_saved: dict[str, Any] = {}


def _bokeh_ws_handler() -> type:
    from bokeh.server.views.ws import WSHandler

    return WSHandler


def _syncable() -> type:
    from panel.reactive import Syncable

    return Syncable


def _served_ws_handler() -> type | None:
    """Return the handler class that Panel/Bokeh servers route ``/ws`` to."""
    import panel.io.server  # noqa: F401  (installs Panel's routes)
    from bokeh.server.urls import per_app_patterns

    for route in per_app_patterns:
        if route[0] == r"/ws":
            return route[1]
    return None


def _wrap_open(original: Any) -> Any:
    @functools.wraps(original)
    def open_with_nodelay(self: Any, *args: Any, **kwargs: Any) -> Any:
        # ws_connection exists once tornado has accepted the upgrade, which is
        # always the case when tornado calls ``open``.
        if getattr(self, "ws_connection", None) is not None:
            self.set_nodelay(True)
        return original(self, *args, **kwargs)

    setattr(open_with_nodelay, _MARKER, True)
    return open_with_nodelay


async def _replies_written(doc: Any) -> None:
    """Wait until no connection of ``doc``'s session is writing a message."""
    session = getattr(getattr(doc, "session_context", None), "session", None)
    for connection in list(getattr(session, "_subscribed_connections", ()) or ()):
        write_lock = getattr(getattr(connection, "_socket", None), "write_lock", None)
        if write_lock is not None:
            async with write_lock:  # returns at once when nothing is being written
                pass


def _wrap_change_coroutine(original: Any) -> Any:
    @functools.wraps(original)
    async def change_after_reply_in_one_patch(self: Any, doc: Any, event_id: Any = None) -> Any:
        from panel.io.document import unlocked
        from panel.io.state import set_curdoc, state

        await _replies_written(doc)
        if state._thread_pool:
            return await original(self, doc, event_id=event_id)
        with set_curdoc(doc), unlocked():
            return await original(self, doc, event_id=event_id)

    setattr(change_after_reply_in_one_patch, _MARKER, True)
    return change_after_reply_in_one_patch


def _busy_observed(state: Any) -> bool:
    """True when a busy indicator or a watcher other than Panel's own follows ``state.busy``."""
    if state._indicators:
        return True
    own = getattr(type(state), "_update_busy", None)
    for watchers in state.param.watchers.get("busy", {}).values():
        for watcher in watchers:
            fn = getattr(watcher.fn, "keywords", {}).get("function", watcher.fn)
            if own is None or getattr(fn, "__func__", None) is not own:
                return True
    return False


def _wrap_add_busy(original: Any) -> Any:
    @functools.wraps(original)
    def add_busy_event_if_observed(self: Any, event_id: str) -> None:
        if _busy_observed(self):
            original(self, event_id)

    setattr(add_busy_event_if_observed, _MARKER, True)
    return add_busy_event_if_observed


def _wrap_remove_busy(original: Any) -> Any:
    @functools.wraps(original)
    def remove_busy_event_if_any(self: Any, event_id: str) -> None:
        if self._busy_counter:
            original(self, event_id)

    setattr(remove_busy_event_if_any, _MARKER, True)
    return remove_busy_event_if_any


def _state_class() -> type:
    from panel.io.state import _state

    return _state


#: (attribute, owner getter, wrapper factory) of the method overrides.
_METHOD_OVERRIDES = (
    ("change_coroutine", _syncable, "_change_coroutine", _wrap_change_coroutine),
    ("add_busy_event", _state_class, "_add_busy_event", _wrap_add_busy),
    ("remove_busy_event", _state_class, "_remove_busy_event", _wrap_remove_busy),
)


def _all_subclasses(cls: type) -> list[type]:
    seen: list[type] = []
    stack = [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                stack.append(sub)
    return seen


def enable_fast_path() -> None:
    """Remove the fixed delays and avoidable work between a widget change and the reply.

    Sets ``panel.reactive.Syncable._debounce`` to 0; wraps
    ``bokeh.server.views.ws.WSHandler.open`` so that every websocket served
    by a Panel or Bokeh server in this process calls ``set_nodelay(True)``
    when it opens; wraps ``Syncable._change_coroutine`` so that a change batch
    is processed after the reply being written and sent as one ``PATCH-DOC``;
    and skips Panel's busy-state bookkeeping while nothing observes
    ``pn.state.busy`` (see the module docstring for why).
    Idempotent and thread-safe: calling it again changes nothing.  It
    affects sessions and connections made after the call.

    Returns
    -------
    None

    See Also
    --------
    fast_path_status : Report whether each override is in effect.
    disable_fast_path : Restore Panel's and Bokeh's defaults.

    Examples
    --------
    >>> from attention_explorable.serving import enable_fast_path
    >>> enable_fast_path()  # doctest: +SKIP
    >>> pn.serve(app)  # doctest: +SKIP
    """
    with _lock:
        syncable = _syncable()
        if "debounce" not in _saved:
            _saved["debounce"] = syncable.__dict__["_debounce"]
        syncable._debounce = 0

        handler = _bokeh_ws_handler()
        current = handler.__dict__["open"]
        if not getattr(current, _MARKER, False):
            _saved["open"] = current
            handler.open = _wrap_open(current)

        for key, owner_of, name, wrap in _METHOD_OVERRIDES:
            owner = owner_of()
            current = owner.__dict__[name]
            if not getattr(current, _MARKER, False):
                _saved[key] = current
                setattr(owner, name, wrap(current))


def fast_path_requested() -> bool:
    """Whether the page builders and the CLI should call :func:`enable_fast_path`.

    True unless the environment variable ``AE_FAST_PATH`` is ``0``, ``false``,
    ``no`` or ``off`` (any case).  The benchmarks set ``AE_FAST_PATH=0`` on a
    ``panel serve`` subprocess to measure the same apps under Panel's defaults;
    it also turns off the steps explorer's drawing in the browser
    (:attr:`~attention_explorable.steps.StepsExplorer.browser_drawing`), so
    that the baseline is a plain Panel component.

    Examples
    --------
    >>> import os
    >>> os.environ.get("AE_FAST_PATH") is None and fast_path_requested()
    True
    """
    return os.environ.get(FAST_PATH_ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def disable_fast_path() -> None:
    """Undo :func:`enable_fast_path`, restoring Panel's and Bokeh's defaults.

    Puts back the original ``Syncable._debounce`` value, ``WSHandler.open``,
    ``Syncable._change_coroutine`` and ``pn.state``'s busy-event methods.
    Safe to call when the fast path is not enabled.
    Mainly for tests and before/after comparisons.

    Returns
    -------
    None
    """
    with _lock:
        if "debounce" in _saved:
            _syncable()._debounce = _saved.pop("debounce")
        if "open" in _saved:
            _bokeh_ws_handler().open = _saved.pop("open")
        for key, owner_of, name, _wrap in _METHOD_OVERRIDES:
            if key in _saved:
                setattr(owner_of(), name, _saved.pop(key))


def fast_path_status() -> dict[str, Any]:
    """Report whether each override of :func:`enable_fast_path` is in effect.

    Returns
    -------
    dict
        ``debounce_ms`` : int
            ``panel.reactive.Syncable._debounce``, the delay in milliseconds
            before Panel processes an incoming change.
        ``debounce_shadowed_by`` : list of str
            Loaded ``Syncable`` subclasses whose effective ``_debounce``
            differs from ``debounce_ms`` (a subclass overriding the value
            escapes the override).  Empty when the value reaches every class.
        ``debounce`` : bool
            True when ``debounce_ms`` is 0 and nothing shadows it.
        ``ws_handler`` : str
            Dotted name of the handler class that Panel's and Bokeh's servers
            route ``/ws`` to.
        ``nodelay`` : bool
            True when ``bokeh.server.views.ws.WSHandler.open`` is wrapped and
            the served handler class inherits from it.
        ``batching`` : bool
            True when ``Syncable._change_coroutine`` is wrapped (change
            batches wait for pending replies and go out as one message) and
            no loaded subclass overrides it.
        ``busy_skip`` : bool
            True when ``pn.state``'s busy-event methods are wrapped.
        ``enabled`` : bool
            True when ``debounce``, ``nodelay``, ``batching`` and
            ``busy_skip`` all are.

    Examples
    --------
    >>> from attention_explorable.serving import fast_path_status
    >>> sorted(fast_path_status())  # doctest: +NORMALIZE_WHITESPACE
    ['batching', 'busy_skip', 'debounce', 'debounce_ms', 'debounce_shadowed_by',
     'enabled', 'nodelay', 'ws_handler']
    """
    syncable = _syncable()
    debounce_ms = syncable._debounce
    shadowed = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in _all_subclasses(syncable)
        if getattr(cls, "_debounce", debounce_ms) != debounce_ms
    ]
    bokeh_handler = _bokeh_ws_handler()
    served = _served_ws_handler()
    wrapped = bool(getattr(bokeh_handler.__dict__.get("open"), _MARKER, False))
    nodelay = wrapped and served is not None and issubclass(served, bokeh_handler)
    debounce = debounce_ms == 0 and not shadowed
    wrapped_methods = {
        key: bool(getattr(owner_of().__dict__.get(name), _MARKER, False))
        for key, owner_of, name, _wrap in _METHOD_OVERRIDES
    }
    batching = wrapped_methods["change_coroutine"] and not any(
        "_change_coroutine" in cls.__dict__ for cls in _all_subclasses(syncable))
    busy_skip = wrapped_methods["add_busy_event"] and wrapped_methods["remove_busy_event"]
    return {
        "debounce": debounce,
        "debounce_ms": debounce_ms,
        "debounce_shadowed_by": shadowed,
        "ws_handler": (
            f"{served.__module__}.{served.__qualname__}" if served is not None else ""
        ),
        "nodelay": nodelay,
        "batching": batching,
        "busy_skip": busy_skip,
        "enabled": debounce and nodelay and batching and busy_skip,
    }

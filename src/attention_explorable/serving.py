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

What the override does
----------------------
:func:`enable_fast_path` changes exactly two things, process-wide, and
:func:`disable_fast_path` puts both back:

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
  ``pn.serve`` and plain Bokeh servers in the same process.

Both overrides act on objects that are looked up at run time (``self.
_debounce`` when a change arrives; ``open`` when a websocket connects), so
calling :func:`enable_fast_path` from an app script run by ``panel serve``
works: the page request that runs the script comes before the websocket
connection.  Call it as early as convenient, before serving.

The tests in ``tests/test_serving.py`` check against a real server that the
websocket socket ends up with ``TCP_NODELAY`` set only with the override, and
that ``_server_change`` still reads ``_debounce``.  If a Panel, Bokeh or
Tornado release makes either override ineffective, those tests fail.
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

#: Marker set on the wrapper so that re-wrapping is detectable and avoided.
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
    """Remove Panel's 50 ms change debounce and Nagle's algorithm on websockets.

    Sets ``panel.reactive.Syncable._debounce`` to 0 and wraps
    ``bokeh.server.views.ws.WSHandler.open`` so that every websocket served
    by a Panel or Bokeh server in this process calls
    ``set_nodelay(True)`` when it opens (see the module docstring for why).
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


def fast_path_requested() -> bool:
    """Whether the page builders and the CLI should call :func:`enable_fast_path`.

    True unless the environment variable ``AE_FAST_PATH`` is ``0``, ``false``,
    ``no`` or ``off`` (any case).  The benchmarks set ``AE_FAST_PATH=0`` on a
    ``panel serve`` subprocess to measure the same apps under Panel's defaults.

    Examples
    --------
    >>> import os
    >>> os.environ.get("AE_FAST_PATH") is None and fast_path_requested()
    True
    """
    return os.environ.get(FAST_PATH_ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def disable_fast_path() -> None:
    """Undo :func:`enable_fast_path`, restoring Panel's and Bokeh's defaults.

    Puts back the original ``Syncable._debounce`` value and the original
    ``WSHandler.open``.  Safe to call when the fast path is not enabled.
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
        ``enabled`` : bool
            True when both ``debounce`` and ``nodelay`` are.

    Examples
    --------
    >>> from attention_explorable.serving import fast_path_status
    >>> sorted(fast_path_status())
    ['debounce', 'debounce_ms', 'debounce_shadowed_by', 'enabled', 'nodelay', 'ws_handler']
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
    return {
        "debounce": debounce,
        "debounce_ms": debounce_ms,
        "debounce_shadowed_by": shadowed,
        "ws_handler": (
            f"{served.__module__}.{served.__qualname__}" if served is not None else ""
        ),
        "nodelay": nodelay,
        "enabled": debounce and nodelay,
    }

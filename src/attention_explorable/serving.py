"""One serving override for this package's apps: ``TCP_NODELAY`` on the websocket.

The explorables draw every move in the browser (see
:mod:`attention_explorable.explorables.base`); what travels to the server is
a change of an explorable's state model, answered by Bokeh with an ``OK``
message, and what travels back are the changes made in Python (a deep link,
the class, a textbook part built as the reader nears it). One fixed delay
remains on that path that neither Panel nor Bokeh has a setting for:
**Nagle's algorithm on the websocket.** Tornado turns ``TCP_NODELAY`` on only
while it writes an HTTP response and switches it off when the response is
finished, and the websocket upgrade is such a response; Tornado's documented
remedy is :meth:`tornado.websocket.WebSocketHandler.set_nodelay` in
``open``, which Bokeh's handler never calls. :func:`enable_fast_path` wraps
``bokeh.server.views.ws.WSHandler.open`` to call it. Panel routes ``/ws`` to
its subclass ``panel.io.server.WSHandler``, whose ``open`` ends with
``super().open()``, so the one wrapper covers ``panel serve``, ``pn.serve``
and plain Bokeh servers in one process.

Measured with ``benchmarks/classroom.py`` (150 sessions, one state change per
session per second, 60 s, one process): p95 from a message to the server's
``OK`` 18 ms with the override, 31 ms without; both well inside the 100 ms
target, and the same server CPU per change (see ``benchmarks/RESULTS.md``).
Earlier versions of this module also removed Panel's 50 ms change debounce,
batched Panel's replies and skipped its busy-state bookkeeping; those paths
carry no student's move since the explorables draw in the browser, and they
were removed.

Guarded by ``tests/test_serving.py``: against a real server, the websocket's
socket has ``TCP_NODELAY`` with the override and not without it, and
``panel serve``'s ``/ws`` route still defers to the wrapped ``open``; if a
Panel, Bokeh or Tornado release changes that, the tests fail.
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


def enable_fast_path() -> None:
    """Set ``TCP_NODELAY`` on every websocket a Panel or Bokeh server of this process opens.

    Wraps ``bokeh.server.views.ws.WSHandler.open`` (see the module docstring
    for why). Idempotent and thread-safe: calling it again changes nothing.
    It affects connections made after the call.

    See Also
    --------
    fast_path_status : Report whether the override is in effect.
    disable_fast_path : Restore Bokeh's own ``open``.

    Examples
    --------
    >>> from attention_explorable.serving import enable_fast_path
    >>> enable_fast_path()  # doctest: +SKIP
    >>> pn.serve(app)  # doctest: +SKIP
    """
    with _lock:
        handler = _bokeh_ws_handler()
        current = handler.__dict__["open"]
        if not getattr(current, _MARKER, False):
            _saved["open"] = current
            handler.open = _wrap_open(current)


def fast_path_requested() -> bool:
    """Whether the page builders and the CLI should call :func:`enable_fast_path`.

    True unless the environment variable ``AE_FAST_PATH`` is ``0``, ``false``,
    ``no`` or ``off`` (any case).  The benchmarks set ``AE_FAST_PATH=0`` on a
    ``panel serve`` subprocess to measure the same apps without the override.

    Examples
    --------
    >>> import os
    >>> os.environ.get("AE_FAST_PATH") is None and fast_path_requested()
    True
    """
    return os.environ.get(FAST_PATH_ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def disable_fast_path() -> None:
    """Undo :func:`enable_fast_path`, restoring Bokeh's ``WSHandler.open``; safe to call when not enabled."""
    with _lock:
        if "open" in _saved:
            _bokeh_ws_handler().open = _saved.pop("open")


def fast_path_status() -> dict[str, Any]:
    """Report whether the override of :func:`enable_fast_path` is in effect.

    Returns
    -------
    dict
        ``ws_handler`` (str): dotted name of the handler class Panel's and
        Bokeh's servers route ``/ws`` to; ``nodelay`` (bool): True when
        ``WSHandler.open`` is wrapped and that class inherits from it;
        ``enabled`` (bool): the same as ``nodelay``.

    Examples
    --------
    >>> from attention_explorable.serving import fast_path_status
    >>> sorted(fast_path_status())
    ['enabled', 'nodelay', 'ws_handler']
    """
    bokeh_handler = _bokeh_ws_handler()
    served = _served_ws_handler()
    wrapped = bool(getattr(bokeh_handler.__dict__.get("open"), _MARKER, False))
    nodelay = wrapped and served is not None and issubclass(served, bokeh_handler)
    return {
        "ws_handler": f"{served.__module__}.{served.__qualname__}" if served is not None else "",
        "nodelay": nodelay,
        "enabled": nodelay,
    }

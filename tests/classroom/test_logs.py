"""A failure that repeats (out of file descriptors: every accept, every task) is one line per kind per interval
in the server's log, whatever logger says it, and no task's exception is left unretrieved."""

from __future__ import annotations

import asyncio
import errno
import gc
import io
import logging
import re

import pytest

from attention_explorable.classroom import limits
from attention_explorable.classroom.channel import ClassChannel

from . import run_coroutine

#: How each line of the captured log starts: the logger's name, then "|".
_LINE = re.compile(r"^([\w.]+)\|", re.MULTILINE)


@pytest.fixture
def server_log():
    """The root logger's handlers replaced by one writing into a string, with the server's throttle on it
    (:func:`limits.quiet_floods`, as ``serve`` installs it); the handlers restored after the test."""
    saved, level = logging.root.handlers[:], logging.root.level
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(name)s|%(message)s"))
    logging.root.handlers[:] = [handler]
    try:
        limits.quiet_floods(seconds=600)
        yield out
    finally:
        logging.root.handlers[:], logging.root.level = saved, level


def _out_of_files() -> OSError:
    return OSError(errno.EMFILE, "Too many open files")


def test_a_flood_of_one_failure_is_one_line_per_logger_whatever_logger_says_it(server_log):
    for name in ("asyncio", "tornado.general", "tornado.application", "attention_explorable.classroom.channel"):
        for _ in range(1000):
            logging.getLogger(name).error("Exception in callback %r", "accept", exc_info=_out_of_files())
    for _ in range(1000):  # another kind of failure, through the same logger: its own line, with its traceback once
        logging.getLogger("asyncio").error("Exception in callback", exc_info=ValueError("x"))
    for i in range(1000):  # a request refused in a loop: one line of the access log
        logging.getLogger("tornado.access").warning("%d %s %.2fms", 404, f"GET /x{i} (127.0.0.1)", 0.5)
    for reason in ("a", "b"):  # the server's lines of their own (no failure of a kind) are all written
        logging.getLogger("attention_explorable.route_guards").warning("socket refused: %s", reason)
    text = server_log.getvalue()
    names = _LINE.findall(text)
    assert sorted(names) == sorted(
        ["asyncio", "tornado.general", "tornado.application", "attention_explorable.classroom.channel", "asyncio"]
        + ["tornado.access"]
        + ["attention_explorable.route_guards"] * 2
    ), text[:3000]
    assert text.count("out of file descriptors") == 4 and text.count("ValueError: x") == 1, text[:3000]
    assert len(text) < 5000  # not megabytes: a few lines


def test_failing_tasks_are_one_line_and_never_an_unretrieved_exception(server_log):
    """Tasks of the server's own (a presence write of the class socket) that fail are retrieved and said once;
    tasks nobody retrieves (a library's) are one line of asyncio's per interval however many there are."""

    async def out_of_files(*_args, **_kwargs):
        raise _out_of_files()

    async def stray():
        raise ValueError("a library's task")

    async def run():
        channel = ClassChannel(lambda: None)
        channel.call = out_of_files  # every database call fails: no descriptor left for the database file
        for i in range(200):
            channel.note("seen", "ROOM22", f"student-{i:04d}")
        await asyncio.wait(list(channel._notes.values()))  # done; their exceptions not read here
        strays = [asyncio.get_running_loop().create_task(stray()) for _ in range(200)]
        await asyncio.wait(strays)
        del strays

    run_coroutine(run())
    gc.collect()  # a task that is never retrieved is said when it is collected
    text = server_log.getvalue()
    names = _LINE.findall(text)
    assert names.count(limits.__name__) == 1, text[:3000]  # the server's 200 failing tasks: one line
    assert names.count("asyncio") == 1, text[:3000]  # the 200 others, never retrieved: one line
    assert "never retrieved" in text and "note.<locals>.write" not in text, text[:3000]  # none of the server's
    assert len(names) == 2 and len(text) < 5000, text[:3000]


def test_a_message_to_a_page_whose_socket_closes_while_it_is_written_is_no_unretrieved_exception(server_log):
    """A student's page reloads while the server writes to its class socket: the write fails as the stream
    closes, and the log says nothing (the page joins again), no "Task exception was never retrieved"."""
    from tornado.websocket import WebSocketClosedError

    from attention_explorable.classroom.channel import ClassSocket

    class Closing:  # a socket whose stream closes during the write, as tornado's write_message then fails
        def write_message(self, text):
            async def write():
                raise WebSocketClosedError()

            return asyncio.ensure_future(write())

    async def run():
        for _ in range(5):
            ClassSocket._send(Closing(), type="room", step=1)
        while len(asyncio.all_tasks()) > 1:  # the writes finished (and their outcomes read)
            await asyncio.sleep(0)

    run_coroutine(run())
    gc.collect()  # a task never retrieved is said when it is collected
    assert "never retrieved" not in server_log.getvalue(), server_log.getvalue()[:3000]


def test_the_next_line_of_a_kind_after_its_interval_says_how_many_were_left_out():
    now = [0.0]
    quiet = limits.OncePerInterval(seconds=10, clock=lambda: now[0])

    def record(name="asyncio", exc=None):
        return logging.LogRecord(name, logging.ERROR, __file__, 1, "Exception in callback %r", ("accept",), exc)

    emfile = (OSError, _out_of_files(), None)
    kept = [r for r in (record(exc=emfile) for _ in range(500)) if quiet.filter(r)]
    assert len(kept) == 1 and kept[0].exc_info is None and "out of file descriptors" in kept[0].getMessage()
    now[0] = 10.5
    later = [r for r in (record(exc=emfile) for _ in range(3)) if quiet.filter(r)]
    assert len(later) == 1 and "499 more like it" in later[0].getMessage(), later[0].getMessage()
    # Below WARNING, or another logger's: as before.
    info = logging.LogRecord("asyncio", logging.INFO, __file__, 1, "x", (), None)
    assert all(quiet.filter(info) for _ in range(3))
    other = record(name="bokeh.server", exc=emfile)
    assert all(quiet.filter(other) for _ in range(3)) and other.exc_info is not None

"""StoreThreads: a database call runs in a thread of its own and is awaited for a bounded time."""

import asyncio
import threading

import pytest

from attention_explorable.classroom.context import StoreSlow, StoreThreads


class _Store:
    def __init__(self):
        self.threads = []
        self.release = threading.Event()

    def count(self, n):
        self.threads.append(threading.current_thread().name)
        return n + 1

    def stuck(self):
        self.release.wait(10)
        return "late"


def _run(coro):
    # a fresh loop in a fresh thread: the test process may already run one (Playwright's)
    out = {}

    def main():
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as error:  # handed back to the test
            out["error"] = error

    worker = threading.Thread(target=main)
    worker.start()
    worker.join(20)
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_call_answers_from_a_store_thread_not_the_loop():
    store = _Store()
    assert _run(StoreThreads(timeout=5).call(lambda: store, "count", 2)) == 3
    assert store.threads and all(name.startswith("class-store") for name in store.threads)


def test_a_stuck_call_raises_store_slow_after_its_timeout():
    store = _Store()
    try:
        with pytest.raises(StoreSlow, match="stuck took more than 0.2 s"):
            _run(StoreThreads(timeout=0.2).call(lambda: store, "stuck"))
    finally:
        store.release.set()


@pytest.mark.parametrize("kwargs, word", [({"timeout": 0}, "timeout"), ({"threads": 0}, "threads")])
def test_bad_settings_name_the_parameter(kwargs, word):
    with pytest.raises(ValueError, match=word):
        StoreThreads(**kwargs)

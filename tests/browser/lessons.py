"""What the class's browser tests share: the class server of the benchmarks (``benchmarks/classlib.py``) and
an instructor logged in, in a room of their own, whose keys answer."""

from __future__ import annotations

import sys

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from classlib import KEY, ClassServer  # noqa: E402

__all__ = ["KEY", "ClassServer", "instructor_in_a_new_room", "keys_answer"]


def instructor_in_a_new_room(teacher, server, query: str = ""):
    """``teacher`` (a browser page) logged in at ``/instructor{query}`` with the secret, in a room it started."""
    teacher.open(f"{server.base}/instructor{query}", ".ae-instructor-key")
    teacher.page.fill(".ae-instructor-key", KEY)
    teacher.page.click(".ae-instructor-login")
    teacher.page.click(".ae-start-room button", timeout=30_000)
    teacher.page.wait_for_selector(".ae-room-code", timeout=30_000)
    keys_answer(teacher.page)
    return teacher


def keys_answer(page):
    """Wait until the instructor's keys answer: their module loads on its own, after the page is drawn."""
    page.wait_for_selector("html[data-ae-keys='on']", state="attached", timeout=30_000)

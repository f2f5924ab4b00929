"""Every file in apps/ serves, renders its explorable and shows no traceback: ``panel serve apps/*.py``."""

from pathlib import Path

import pytest

from ..conftest import ServedApp

pytestmark = pytest.mark.browser

APP_FILES = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "apps").glob("*.py"))


@pytest.fixture
def every_app_file(every_panel_app):
    """``panel serve`` with every file in apps/, as the README runs it."""
    assert sorted(every_panel_app.names) == sorted(name.removesuffix(".py") for name in APP_FILES)
    return every_panel_app


@pytest.mark.parametrize("app_file", APP_FILES)
def test_app_serves_without_traceback(app_file, every_app_file, student):
    s = student()
    s.open(every_app_file.url(app_file.removesuffix(".py")), "h1")
    # Errors come, if at all, as the app's first messages arrive: a guess at how long to give them,
    # since nothing can be waited for when the right outcome is that nothing comes.
    s.page.wait_for_timeout(1500)
    s.assert_clean()
    every_app_file.assert_clean_log()


def test_a_live_page_says_so_once_its_server_is_gone(student):
    """``panel serve`` stopped under an open page: the page says the connection is lost (its explorable
    is drawn from Python, so it waits for the server; the module pages answer without one)."""
    from .pages import SERVER_GONE, wait_text

    own = ServedApp("apps/vector.py")
    s = student()
    try:
        s.open(own.url(), ".ae-vector-output")
        wait_text(s.page, ".ae-vector-output", r"y = \[0\.845, 0\.578\]")
    finally:
        own.close()
    s.errors_to_ignore = SERVER_GONE
    wait_text(s.page, ".ae-connection-lost", "连接已断开")
    s.assert_clean()

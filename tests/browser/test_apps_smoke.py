"""Every file in apps/ serves, renders its explorable and shows no traceback."""

from pathlib import Path

import pytest

from ..conftest import ServedApp

pytestmark = pytest.mark.browser

APP_FILES = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "apps").glob("*.py"))


@pytest.mark.parametrize("app_file", APP_FILES)
def test_app_serves_without_traceback(app_file, student):
    server = ServedApp(f"apps/{app_file}")
    try:
        s = student()
        s.open(server.url(), "h1")
        s.page.wait_for_timeout(1500)
        s.assert_clean()
        server.assert_clean_log()
    finally:
        server.close()

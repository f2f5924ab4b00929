import pytest

from attention_explorable.apps import APPS

from ..conftest import ServedApp
from .mirror import load_module


def _server_fixture(app_file: str):
    """A module-scoped fixture serving ``apps/<app_file>`` with ``panel serve``."""

    @pytest.fixture(scope="module")
    def server():
        app = ServedApp(f"apps/{app_file}")
        yield app
        app.close()

    return server


# ``<name>_server`` for the textbook and each explorable with a Panel app (``apps/<name>.py``).
for _name in APPS:
    globals()[f"{_name}_server"] = _server_fixture(f"{_name}.py")


@pytest.fixture(scope="session")
def every_app():
    """Every app served as ``attention-explorable serve`` serves them (its index at ``/``), once per run."""
    app = ServedApp(cli=True)
    yield app
    app.close()


@pytest.fixture(scope="module")
def module_page(chromium):
    """A blank page with the twins' module (``web/dist/mirror.mjs``) as ``window.ae``: the mirror tests' page.

    The module must load, and the tests run in it, without an error in the page.
    """
    context = chromium.new_context()
    page = load_module(context)
    yield page
    assert not page.ae_errors, page.ae_errors
    context.close()

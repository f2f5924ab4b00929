import pytest

from attention_explorable.apps import APPS

from ..conftest import ServedApp
from .mirror import load_module


@pytest.fixture(scope="session")
def every_panel_app():
    """Every Panel app (``apps/<name>.py``) served by one ``panel serve``, started once per test process:
    each server costs seconds of CPU to start, and a page opened from it is its own session."""
    app = ServedApp(*(f"apps/{name}.py" for name in APPS))
    yield app
    app.close()


def _server_fixture(name: str):
    """A fixture giving ``apps/<name>.py`` as :func:`every_panel_app` serves it (its ``url()`` is the app's)."""

    @pytest.fixture(scope="session")
    def server(every_panel_app):
        return every_panel_app.serving(name)

    return server


# ``<name>_server`` for the textbook and each explorable with a Panel app (``apps/<name>.py``).
for _name in APPS:
    globals()[f"{_name}_server"] = _server_fixture(_name)


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

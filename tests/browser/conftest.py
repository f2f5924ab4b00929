import pytest

from ..conftest import ServedApp


@pytest.fixture(scope="module")
def steps_server():
    app = ServedApp("apps/steps.py")
    yield app
    app.close()

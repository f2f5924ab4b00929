import pytest

from ..conftest import ServedApp


@pytest.fixture(scope="module")
def steps_server():
    app = ServedApp("apps/steps.py")
    yield app
    app.close()


@pytest.fixture(scope="module")
def textbook_server():
    app = ServedApp("apps/textbook.py")
    yield app
    app.close()


@pytest.fixture(scope="module")
def vector_server():
    app = ServedApp("apps/vector.py")
    yield app
    app.close()


@pytest.fixture(scope="module")
def matrix_server():
    app = ServedApp("apps/matrix.py")
    yield app
    app.close()


@pytest.fixture(scope="module")
def selfcross_server():
    app = ServedApp("apps/selfcross.py")
    yield app
    app.close()

"""Fixtures of the class's tests: a real PostgreSQL server, and a fresh database of each kind."""

from __future__ import annotations

import itertools
import os

import pytest

from ..postgres import PostgresMissing, TempPostgres

_names = itertools.count()


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server started for this test session (``tests/postgres.py``).

    Without PostgreSQL's programs the tests using it are skipped, except
    under ``CI=true``, where that is a failure.
    """
    try:
        server = TempPostgres()
    except PostgresMissing as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{exc}; under CI=true the PostgreSQL tests must run", pytrace=False)
        pytest.skip(str(exc))
    with server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """The URL of an empty database: an SQLite file, or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'class.sqlite3'}"
    return request.getfixturevalue("postgres").create_database(f"t{next(_names)}_{os.getpid()}")

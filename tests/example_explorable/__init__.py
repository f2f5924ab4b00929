"""A small explorable defined only in the tests, to prove the registry (tests/test_registry.py).

Its Python view and Viewer are in ``explorable.py`` (which registers it when
imported), its JavaScript twin in ``web/tempered.js``; the tests bundle the
twin into ``dist/tempered.mjs`` with the project's esbuild.
"""

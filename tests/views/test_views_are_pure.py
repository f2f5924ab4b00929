"""Every view module is the oracle of its JavaScript twin: it imports the core, never Panel, Bokeh or param."""

import pkgutil
import subprocess
import sys

import pytest

import attention_explorable.views

VIEWS = sorted(m.name for m in pkgutil.iter_modules(attention_explorable.views.__path__))


def test_every_explorable_has_a_view():
    assert {"steps", "vector", "matrix", "selfcross", "exercise", "numbers"} <= set(VIEWS)


@pytest.mark.parametrize("name", VIEWS)
def test_the_view_imports_no_panel_bokeh_or_param(name):
    code = (
        f"import sys, attention_explorable.views.{name}; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('panel', 'bokeh', 'param')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

"""The package's public names for notebooks and authors: at its top, imported on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import attention_explorable


@pytest.mark.parametrize(
    "name, module",
    [
        ("StepsExplorer", "attention_explorable.explorables.steps"),
        ("VectorExplorer", "attention_explorable.explorables.vector"),
        ("MatrixExplorer", "attention_explorable.explorables.matrix"),
        ("SelfCrossExplorer", "attention_explorable.explorables.selfcross"),
        ("export_site", "attention_explorable.site"),
    ],
)
def test_each_public_name_is_the_one_its_module_defines(name, module):
    import importlib

    assert getattr(attention_explorable, name) is getattr(importlib.import_module(module), name)
    assert name in attention_explorable.__all__ and name in dir(attention_explorable)


def test_the_core_alone_loads_numpy_and_not_panel():
    code = (
        "import sys; from attention_explorable import core; "
        "print(core.softmax([1.0, 1.0])[0], 'panel' in sys.modules, 'bokeh' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0.5", "False", "False"]


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="'nothing'"):
        attention_explorable.nothing  # noqa: B018

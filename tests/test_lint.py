"""The code reads as one: ruff's checks (pycodestyle's errors and warnings, pyflakes) pass on the whole tree,
and ruff's formatter would change nothing.

The rules are in ``pyproject.toml`` (``[tool.ruff]``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).is_file():
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return ruff


def test_ruff_finds_nothing():
    done = subprocess.run([_ruff(), "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_would_change_nothing():
    """Run ``ruff format`` on the tree to fix what this finds."""
    done = subprocess.run(
        [_ruff(), "format", "--check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr

"""What a course hands its students: ``python -m build`` makes a wheel and an sdist that carry the built web
assets, and the wheel, installed in a fresh virtual environment, exports the same site as this checkout."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Files that exist only once built (web/dist) or that a page is made of: each must be in both archives.
CARRIED = (
    "attention_explorable/web/dist/page/modules.js",
    "attention_explorable/web/dist/page/start.js",
    "attention_explorable/web/dist/page/resize.js",
    "attention_explorable/web/dist/head.mjs",
    "attention_explorable/web/theme.json",
    "attention_explorable/templates/module-page.html",
    "attention_explorable/sections/zh/3.8-attention-context.md",
    "attention_explorable/sections/en/3.7-attention.md",
)


def _run(*args, cwd=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_carries_the_web_assets_installs_alone_and_exports_the_same_site(tmp_path, static_site):
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    fonts = [n for n in in_wheel if n.startswith("attention_explorable/web/fonts/")]
    assert fonts, "the math font is not in the wheel"
    for name in CARRIED:
        assert name in in_wheel, name
        assert f"src/{name}" in in_sdist, name
    # A fresh environment with nothing but the wheel (and what it asks for from the index).
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel)
    site = tmp_path / "site"
    _run(venv / "bin" / "attention-explorable", "export", site, cwd=tmp_path)
    # Byte for byte the files this checkout exports (the tests' own export, which other tests may add to).
    exported = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert {"index.html", "head.html", "en/index.html", "embed/resize.js", "attention-explorable.js"} <= set(exported)
    for name in exported:
        assert (site / name).read_bytes() == (static_site / name).read_bytes(), name

"""What a course hands its students: ``python -m build`` makes a wheel and an sdist that carry the built web
assets, and the wheel, installed in a fresh virtual environment, exports the same site as this checkout."""

from __future__ import annotations

import shutil
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


def _uv() -> str | None:
    """The ``uv`` the test extras install beside this Python (or one on the PATH): it builds and installs in
    seconds what pip takes most of a minute for, from the same wheel and the same index."""
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.exists() else shutil.which("uv")


def _run(*args, cwd=None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def _source_copy(to: Path) -> Path:
    """The checkout's tracked files, as they are in the working tree, copied under ``to``: the build writes
    its release tree (``attention_explorable-VERSION/``) into the folder it builds, which must not be the
    checkout other tests read at the same moment (the linter found it half made)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode("utf-8").split("\0")):
        source, target = ROOT / name, to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # a link stays a link (the package's sections/ is the course text's folder)
            target.symlink_to(source.readlink())
        elif source.is_file():
            shutil.copy2(source, target)
    return to


def test_the_wheel_carries_the_web_assets_installs_alone_and_exports_the_same_site(tmp_path, static_site):
    dist = tmp_path / "dist"
    uv = _uv()
    installer = ["--installer", "uv"] if uv else []
    _run(sys.executable, "-m", "build", *installer, "--outdir", dist, _source_copy(tmp_path / "source"))
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
    if uv:
        _run(uv, "pip", "install", "-q", "--python", venv / "bin" / "python", wheel)
    else:
        _run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel)
    site = tmp_path / "site"
    _run(venv / "bin" / "attention-explorable", "export", site, cwd=tmp_path)
    # Byte for byte the files this checkout exports (the tests' own export, which other tests may add to).
    exported = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert {"index.html", "head.html", "en/index.html", "embed/resize.js", "attention-explorable.js"} <= set(exported)
    # (Names only: a diff of two pages' bytes would take pytest minutes to write.)
    differ = [name for name in exported if (site / name).read_bytes() != (static_site / name).read_bytes()]
    assert differ == [], f"exported otherwise from the wheel: {differ}"

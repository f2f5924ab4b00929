"""Writes the pages' math font: Noto Sans Math (OpenType MATH) subset to what the pages' formulas use.

Run after a formula gains a character (``tests/test_math_font.py`` fails
until then)::

    .venv/bin/python scripts/build-math-font.py

It reads the npm package ``@fontsource/noto-sans-math`` (``npm ci``), exports
the site to a temporary folder, gathers every character inside a ``<math>``
element of every page (both languages, the embeds included) and keeps those,
printable ASCII and the Greek letters, with the glyphs the MATH table
reaches from them (the larger brackets and radicals, their stretchy parts),
in a WOFF2 file: ``src/attention_explorable/web/fonts/math.woff2``. The
font's licence (SIL Open Font License 1.1) is copied beside it. Needs
fontTools and brotli (the ``test`` extra).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools import subset

from attention_explorable.content import math_characters

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "node_modules" / "@fontsource" / "noto-sans-math"
SOURCE = PACKAGE / "files" / "noto-sans-math-latin-400-normal.woff2"
OUT = ROOT / "src" / "attention_explorable" / "web" / "fonts"

#: Always kept, whatever the pages say today: printable ASCII, the Greek letters, a few operators.
BASE = (
    "".join(chr(c) for c in range(0x20, 0x7F))
    + "".join(chr(c) for c in range(0x391, 0x3CA))
    + "−×·÷±≤≥≈≠∑∏√∞→←↦∈∉⊂∀∃∂∇′″‖⟨⟩⌈⌉⌊⌋…⋯⋮⋱ϵϕϑ"
)


def page_characters(site: Path) -> set[str]:
    """Every character inside a ``<math>`` element of the pages and scripts under ``site``."""
    chars: set[str] = set()
    for path in [*site.rglob("*.html"), *site.rglob("*.js")]:
        chars |= math_characters(path.read_text("utf-8"))
    return chars


def main() -> int:
    if not SOURCE.exists():
        print(f"build-math-font: {SOURCE} is missing: run npm ci first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "attention_explorable.cli", "export", tmp], check=True, stdout=subprocess.DEVNULL
        )
        used = page_characters(Path(tmp))
    text = "".join(sorted(used | set(BASE)))
    OUT.mkdir(parents=True, exist_ok=True)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # ssty (script-size forms), the variants MATH names
    options.name_IDs = ["*"]
    options.notdef_outline = True
    font = subset.load_font(str(SOURCE), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    assert "MATH" in font, "the subset lost its MATH table"
    subset.save_font(font, str(OUT / "math.woff2"), options)
    shutil.copyfile(PACKAGE / "LICENSE", OUT / "LICENSE-noto-sans-math.txt")
    size = (OUT / "math.woff2").stat().st_size
    print(
        f"build-math-font: {len(text)} characters, {len(font.getGlyphOrder())} glyphs, {size} bytes "
        f"-> {OUT / 'math.woff2'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

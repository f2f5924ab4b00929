"""The pages' math font: an OpenType MATH font shipped inside the pages, covering their formulas.

A Chinese page's generic ``math`` font falls back to a CJK font without a
MATH table (brackets that do not stretch, radicals without a bar); the pages
carry their own subset of Noto Sans Math (``scripts/build-math-font.py``).
"""

from __future__ import annotations

import io

import pytest
from fontTools.ttLib import TTFont

from attention_explorable.content import MATH_FONT, math_characters, math_font_base64


def _font() -> TTFont:
    import base64

    return TTFont(io.BytesIO(base64.b64decode(math_font_base64())))


def test_the_font_keeps_its_math_table_and_covers_every_formula_of_every_page(static_site):
    font = _font()
    assert "MATH" in font
    variants = font["MATH"].table.MathVariants
    assert variants is not None and variants.VertGlyphCount > 0  # brackets and radicals that stretch
    cmap = font.getBestCmap()
    missing = {}
    for path in [*static_site.rglob("*.html"), *static_site.rglob("*.js")]:
        lost = sorted(c for c in math_characters(path.read_text("utf-8")) if ord(c) not in cmap)
        if lost:
            missing[str(path.relative_to(static_site))] = "".join(lost)
    assert not missing, f"run scripts/build-math-font.py: characters the math font lacks: {missing}"


def test_every_page_with_a_formula_carries_the_font_and_its_policy_allows_it(static_site):
    pages = [p for p in static_site.rglob("*.html") if "<math" in p.read_text("utf-8")]
    assert {"index.html", "en/index.html"} <= {p.relative_to(static_site).as_posix() for p in pages}
    for path in pages:
        text = path.read_text("utf-8")
        assert f'font-family: "{MATH_FONT}"' in text and "font-src data:" in text, path


@pytest.mark.browser
@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("mobile", [False, True], ids=["desktop", "phone"])
def test_brackets_stretch_around_a_fraction_in_both_editions(static_site, student, language, mobile):
    page = student(390, 844, mobile=True) if mobile else student()
    path = static_site / ("index.html" if language == "zh" else "en/index.html")
    page.open_offline(path, "main")
    p = page.page
    formula = (
        p.locator("math[display=block]")
        .filter(has=p.locator("mo[fence=true]"))
        .filter(has=p.locator("mfrac msqrt"))
        .first
    )
    formula.scroll_into_view_if_needed()
    p.wait_for_function(f"document.fonts.check('16px \"{MATH_FONT}\"')")
    sizes = formula.evaluate("""m => {
        const h = (e) => e.getBoundingClientRect().height;
        const fences = [...m.querySelectorAll('mo[fence=true]')].map(h);
        const plain = document.createElementNS('http://www.w3.org/1998/Math/MathML', 'mo'); plain.textContent = '('; plain.setAttribute('stretchy', 'false');
        m.querySelector('mrow').append(plain);
        const out = {fences, fraction: h(m.querySelector('mfrac')), plain: h(plain),
                     family: getComputedStyle(m).fontFamily};
        plain.remove();
        return out;
    }""")
    assert MATH_FONT in sizes["family"], sizes
    # A stretched bracket spans the fraction; an unstretched one is one line high.
    assert min(sizes["fences"]) >= 0.9 * sizes["fraction"] > 1.4 * sizes["plain"], sizes
    from .conftest import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    formula.screenshot(path=str(ARTIFACTS / f"math-{language}-{'phone' if mobile else 'desktop'}.png"))
    page.assert_clean()

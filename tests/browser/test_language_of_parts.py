"""Language of parts (WCAG 3.1.2): every Chinese part of an English page, and every English part of a
Chinese page's text, carries its own ``lang``, so a screen reader pronounces it in that language.

Every text node of the exported textbook is read, in every shadow root (screen-reader
tables and hidden answers included), and its language is the ``lang`` of the
closest element that has one, crossing shadow roots through their hosts.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

#: For each text node with a run of the other script: the run, its language, and
#: whether it lies in a formula, code or a plot's canvas-free label.
_RUNS = """([pattern, minLetters, scope]) => {
  const run = new RegExp(pattern, 'gu');
  const langOf = (node) => {
    let el = node.parentElement || (node.getRootNode && node.getRootNode().host);
    while (el) {
      if (el.hasAttribute && el.hasAttribute('lang')) return el.getAttribute('lang');
      el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null;
    }
    return '';
  };
  const skipped = (node) => {
    let el = node.parentElement;
    while (el) {
      if (['MATH', 'CODE', 'PRE', 'SCRIPT', 'STYLE'].includes(el.tagName.toUpperCase())) return true;
      el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null;
    }
    return false;
  };
  const inScope = (node) => {
    if (!scope) return true;
    let el = node.parentElement || node.getRootNode().host;
    while (el) {
      if (el.classList && el.classList.contains('ae-slot-explorable')) return false;  // an explorable's readouts
      if (el.classList && el.classList.contains(scope)) return true;
      el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null;
    }
    return false;
  };
  const out = [];
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      if (skipped(n) || !inScope(n)) continue;
      for (const m of n.textContent.matchAll(run)) {
        const letters = (m[0].match(/\\p{L}/gu) || []).length;
        if (letters >= minLetters) out.push({run: m[0], lang: langOf(n)});
      }
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}"""

CJK = r"[\u3400-\u4dbf\u4e00-\u9fff]+"
LATIN = r"[A-Za-z][A-Za-z'’-]*"


def runs(page, pattern: str, min_letters: int, scope: str = "") -> list[dict]:
    return page.evaluate(_RUNS, [pattern, min_letters, scope])


def _open_textbook(student, static_site, language: str):
    s = student()
    path = static_site / ("index.html" if language == "zh" else "en/index.html")
    s.open_offline(path, ".ae-exercise-q1-qkv")
    # The live regions' first announcements (0.8 s after each first view) are among the runs read.
    s.page.wait_for_timeout(1500)
    return s


def test_every_chinese_part_of_the_english_textbook_says_so(static_site, student):
    s = _open_textbook(student, static_site, "en")
    found = runs(s.page, CJK, 1)
    assert len([r for r in found if r["lang"].startswith("zh")]) > 30  # the glossary, the switch, the tokens
    unmarked = [r["run"] for r in found if not r["lang"].startswith("zh")]
    assert not unmarked, f"{sum(map(len, unmarked))} Chinese characters without lang: {unmarked[:20]}"
    s.assert_clean()


#: Names inside the explorables' formulas (their readouts and screen-reader table captions),
#: which WCAG 3.1.2 exempts as technical terms: ``softmax(s / T)``, ``QKᵀ / √d_k``, ``Y = AV``, the head's
#: ``ln 10`` (a blind guess's loss); and the head's optimizer, Adam, a proper name.
FORMULA_NAMES = {"softmax", "QK", "AV", "ln", "Adam"}


def test_every_english_part_of_the_chinese_page_says_so(static_site, student):
    s = _open_textbook(student, static_site, "zh")
    found = runs(s.page, LATIN, 2)
    assert len([r for r in found if r["lang"] == "en"]) > 30
    prose = runs(s.page, LATIN, 2, "ae-prose")  # the course text: prose, captions, exercises, glossary (not
    # the explorables' readouts, which sit in the text's pane)
    assert not [r["run"] for r in prose if r["lang"] != "en"]
    unmarked = [r["run"] for r in found if r["lang"] != "en" and r["run"] not in FORMULA_NAMES]
    assert not unmarked, f"English words without lang: {unmarked[:30]}"
    s.assert_clean()


_FIRST_FONT = """(css) => {
  const el = document.querySelector(css);
  return getComputedStyle(el).fontFamily.split(",")[0].trim().replace(/["']/g, "");
}"""


@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_language_is_set_in_its_own_font_and_a_formula_in_the_math_font(static_site, student, language):
    """English in a Latin font first (in a CJK font “ ” and ’ take a full-width gap), Chinese in a CJK
    font first, whichever page holds them; a formula keeps its math font whatever its language."""
    s = _open_textbook(student, static_site, language)
    page = s.page
    page.locator(".ae-vector .ae-vector-scores").first.wait_for(state="attached")
    own, other = ("Segoe UI", "Noto Sans CJK SC") if language == "en" else ("Noto Sans CJK SC", "Segoe UI")
    assert page.evaluate(_FIRST_FONT, ".ae-prose p") == own
    assert page.evaluate(_FIRST_FONT, ".ae-vector .ae-vector-scores") == own  # a module's text
    assert page.evaluate(_FIRST_FONT, f".ae-prose span[lang|='{'zh' if language == 'en' else 'en'}']") == other
    assert page.evaluate(_FIRST_FONT, ".ae-prose math") == "Attention Explorable Math"
    if language == "en":  # and drawn in one: its quotes too, on a machine whose only fonts are DejaVu and Noto CJK
        cdp = page.context.new_cdp_session(page)
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        cdp.send("CSS.enable")
        quoted = cdp.send("DOM.querySelector", {"nodeId": root, "selector": ".ae-prose p"})["nodeId"]
        used = [f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": quoted})["fonts"]]
        assert used and not any("CJK" in name for name in used), used
    s.assert_clean()

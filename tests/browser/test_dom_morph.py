"""``web/dom.js``'s morph against the browser's own parser, in Chromium.

Every move of a student page writes its readouts and figures with ``morph``
(markup made into the live nodes, only what changed written). Whatever the
nodes were before, the element must end as the same markup set by
``innerHTML`` would make it; and a node that stays where it was must be the
same node, so that a focused or selected one keeps its focus or selection.
"""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.browser


def _markup(rng: random.Random, depth: int = 0) -> str:
    """Random markup of the kinds the pages write: tables, text, sub/sup, spans, svg shapes."""
    parts = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.choice(["text", "text", "span", "sup", "table", "svg", "br", "comment"])
        word = rng.choice(["α₁ = 0.25", "s₂", "", "x & y", "权重", "<b>"]).replace("<", "&lt;")
        if kind == "text":
            parts.append(word)
        elif kind == "comment":
            parts.append(f"<!--{rng.choice(['a', 'b'])}-->")
        elif kind == "br":
            parts.append("<br>")
        elif kind in ("span", "sup"):
            attrs = rng.choice(["", " class='ae-kind'", " class='ae-output' lang='en'", " style='left:10%'"])
            inner = _markup(rng, depth + 1) if depth < 2 else word
            parts.append(f"<{kind}{attrs}>{inner}</{kind}>")
        elif kind == "table":
            cells = "".join(f"<td class='c{rng.randint(0, 2)}'>{word}</td>" for _ in range(rng.randint(1, 3)))
            parts.append(f"<table><tbody><tr>{cells}</tr></tbody></table>")
        else:
            shapes = "".join(
                rng.choice(
                    [
                        f"<rect x='{rng.randint(0, 9)}%' width='10%' fill='#4c72b0'/>",
                        f"<line x1='0' y1='{rng.randint(0, 9)}' x2='1' y2='1' stroke='#333'/>",
                        f"<text x='1' y='2' font-size='13'>{word}</text>",
                    ]
                )
                for _ in range(rng.randint(0, 3))
            )
            parts.append(f"<svg viewBox='0 0 10 10' aria-hidden='true'>{shapes}</svg>")
    return "".join(parts)


MORPH = """([before, after]) => {
  const el = document.createElement('div'), want = document.createElement('div');
  document.body.append(el, want);
  el.innerHTML = before;
  want.innerHTML = after;
  const old = [...el.querySelectorAll('*')];
  window.ae.morph(el, after);
  const same = el.innerHTML === want.innerHTML;
  // Nodes kept: those of the old tree that are still in the element, at the same path.
  const kept = old.filter((n) => el.contains(n)).length;
  const html = el.innerHTML;
  el.remove(); want.remove();
  return {same, kept, html, want: after};
}"""


def test_morph_ends_as_the_markup_whatever_came_before(module_page):
    rng = random.Random(20261205)
    for _ in range(300):
        before, after = _markup(rng), _markup(rng)
        out = module_page.evaluate(MORPH, [before, after])
        assert out["same"], f"morph({before!r} -> {after!r}) gave {out['html']!r}"
    assert not module_page.ae_errors


def test_morph_keeps_the_nodes_that_stay(module_page):
    before = "<table><tbody><tr><td class='a'>s₁ = 0.00</td><td>s₂ = 1.10</td></tr></tbody></table>x<sup>2</sup>"
    after = "<table><tbody><tr><td class='b'>s₁ = 0.50</td><td>s₂ = 1.10</td></tr></tbody></table>y<sup>3</sup>"
    out = module_page.evaluate(MORPH, [before, after])
    assert out["same"]
    assert out["kept"] == 6  # table, tbody, tr, both cells and the sup: only text and an attribute changed


def test_morph_parts_redraws_only_the_parts_that_changed(module_page):
    out = module_page.evaluate(
        """() => {
          const el = document.createElement('div');
          document.body.append(el);
          const first = ["<div class='t'>title</div>", "<div class='f'><svg><rect x='1'/></svg></div>"];
          window.ae.morphParts(el, first, null);
          const title = el.children[0], rect = el.querySelector('rect');
          const second = [first[0], "<div class='f'><svg><rect x='2'/><line/></svg></div>"];
          window.ae.morphParts(el, second, first);
          const result = {html: el.innerHTML, titleKept: el.children[0] === title, rectKept: el.querySelector('rect') === rect};
          el.remove();
          return result;
        }"""
    )
    assert out["html"] == '<div class="t">title</div><div class="f"><svg><rect x="2"></rect><line></line></svg></div>'
    assert out["titleKept"] and out["rectKept"]

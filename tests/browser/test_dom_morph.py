"""``web/dom.js``'s morph and patch, in Chromium.

Every move of a student page writes its readouts with ``morph`` (markup made
into the live nodes, only what changed written) and its figures with
``patch`` (nodes described by ``h``, only what differs from the last move
written). Whatever the nodes were before, the element must end as the same
markup set by ``innerHTML`` (or a first ``patch``) would make it; and a node
that stays where it was must be the same node, so that a focused or selected
one keeps its focus or selection.
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


def test_morph_keeps_the_nodes_that_stay(module_page):
    before = "<table><tbody><tr><td class='a'>s₁ = 0.00</td><td>s₂ = 1.10</td></tr></tbody></table>x<sup>2</sup>"
    after = "<table><tbody><tr><td class='b'>s₁ = 0.50</td><td>s₂ = 1.10</td></tr></tbody></table>y<sup>3</sup>"
    out = module_page.evaluate(MORPH, [before, after])
    assert out["same"]
    assert out["kept"] == 6  # table, tbody, tr, both cells and the sup: only text and an attribute changed


VALUES = {
    "x": ["1", "2%"],
    "y": ["0", "50%"],
    "class": ["a", "a b"],
    "style": ["left:1%", ""],
    "fill": ["#333", "none"],
}


def _nodes(rng: random.Random, depth: int = 0) -> list:
    """Random children for ``patch``, as JSON: [tag, attrs, children] or a text."""
    out = []
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.3:
            out.append(rng.choice(["0.25", "权重", "<b>&amp;", ""]))
            continue
        tag = rng.choice(["div", "span", "svg"] if depth == 0 else ["rect", "line", "text", "g"])
        names = rng.sample(sorted(VALUES), rng.randint(0, 3))
        attrs = {k: rng.choice(VALUES[k]) for k in names}
        out.append([tag, attrs, _nodes(rng, depth + 1) if depth < 2 else []])
    return out


PATCH = """([first, second]) => {
  const make = (list) => list.map((n) => typeof n === 'string' ? n : window.ae.h(n[0], n[1], make(n[2])));
  const el = document.createElement('div'), want = document.createElement('div');
  document.body.append(el, want);
  const a = make(first), b = make(second);
  window.ae.patch(el, a, null);
  const before = [...el.querySelectorAll('*')];
  window.ae.patch(el, b, a);
  // What the browser's own parser makes of the same nodes written as markup.
  const esc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const markup = (list) => list.map((n) => typeof n === 'string' ? esc(n) : `<${n[0]}` +
    Object.entries(n[1]).map(([k, v]) => ` ${k}="${esc(v)}"`).join('') + `>${markup(n[2])}</${n[0]}>`).join('');
  want.innerHTML = markup(second);
  // The same tree (attributes in any order), each element in the SVG namespace inside an <svg>.
  const tree = (n) => n.nodeType === 3 ? JSON.stringify(n.nodeValue) : `<${n.namespaceURI} ${n.tagName} ` +
    [...n.attributes].map((a) => `${a.name}=${JSON.stringify(a.value)}`).sort().join(' ') + '>' +
    [...n.childNodes].map(tree).join('') + '</>';
  // (texts side by side read as one, an empty text as none: as the parser makes them)
  const normal = (n) => { const c = n.cloneNode(true); c.normalize(); return c; };
  const out = {same: tree(normal(el)) === tree(normal(want)), html: el.innerHTML, want: want.innerHTML,
               kept: before.filter((n) => el.contains(n)).length};
  el.remove(); want.remove();
  return out;
}"""


#: Each writer: the page's function that runs it, and what makes its random input.
WRITERS = {"morph": (MORPH, _markup), "patch": (PATCH, _nodes)}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_the_element_ends_as_the_parser_makes_it_whatever_came_before(module_page, writer):
    script, make = WRITERS[writer]
    rng = random.Random(writer)
    for _ in range(300):
        first, second = make(rng), make(rng)
        out = module_page.evaluate(script, [first, second])
        assert out["same"], f"{writer}({first!r} -> {second!r}) gave {out['html']!r}, not {out['want']!r}"
    assert not module_page.ae_errors


def test_patch_writes_text_as_text_and_keeps_the_elements_that_stay(module_page):
    first = [["div", {"class": "t"}, ["title"]], ["svg", {}, [["rect", {"x": "1"}, []]]]]
    second = [["div", {"class": "t"}, ["<b>a & b</b>"]], ["svg", {}, [["rect", {"x": "2"}, []], ["line", {}, []]]]]
    out = module_page.evaluate(PATCH, [first, second])
    assert out["same"]
    assert out["html"] == '<div class="t">&lt;b&gt;a &amp; b&lt;/b&gt;</div><svg><rect x="2"></rect><line></line></svg>'
    assert out["kept"] == 3  # the div, the svg and the rect stay the same elements

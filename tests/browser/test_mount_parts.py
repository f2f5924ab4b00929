"""``web/native.js``'s mount of a long page part by part, in Chromium.

The textbook's parts (each block of a section, ``PART``) come to life one
task each, so that its first explorable answers a key before the rest is
live: at once, what lies outside every part and the first part that runs a
callback; the others in later tasks, in the page's order; a part the reader
touches first at once, before the event reaches its element.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGE = """(touch) => new Promise((resolve) => {
  document.body.innerHTML = `
    <div data-ae-model="bar"></div>
    <div class="ae-section">
      <div class="ae-prose"><p>text</p></div>
      <div id="one"><div data-ae-model="a"></div></div>
      <div id="two"><div data-ae-model="b"><button type="button">go</button></div></div>
      <div id="three"><div data-ae-model="c"></div></div>
    </div>`;
  const ran = [];
  const spec = {
    models: {bar: {type: "HTML", props: {text: ""}}, a: {type: "HTML", props: {text: ""}},
             b: {type: "HTML", props: {text: ""}}, c: {type: "HTML", props: {text: ""}}},
    callbacks: {
      page: {module: "note", args: {name: "page", host: {$ref: "bar"}}},
      one: {module: "note", args: {name: "one", models: {x: {$ref: "a"}}}},
      two: {module: "note", args: {name: "two", models: [{$ref: "b"}]}},
      three: {module: "note", args: {name: "three", models: {x: {$ref: "c"}}}},
      both: {module: "note", args: {name: "both", models: [{$ref: "a"}, {$ref: "c"}]}},
    },
    document: {document_ready: ["page", "one", "two", "three", "both"]},
  };
  const note = ({name}) => ran.push(name);
  let touchedAt = null;
  document.querySelector("#two button").addEventListener("focus", () => { touchedAt = ran.slice(); });
  window.ae.mount(spec, {note}, document, {parts: window.ae.PART, done: () => resolve({ran, atOnce, touchedAt})});
  const atOnce = ran.slice();
  if (touch) document.querySelector("#two button").focus();
});"""


def test_the_page_and_its_first_part_at_once_the_rest_after(module_page):
    out = module_page.evaluate(PAGE, False)
    # A callback naming elements of two parts runs with the page, once both of them are live.
    assert out["atOnce"] == ["page", "one", "three", "both"]
    assert out["ran"] == ["page", "one", "three", "both", "two"]


def test_a_part_touched_first_comes_to_life_before_the_event_reaches_it(module_page):
    out = module_page.evaluate(PAGE, True)
    assert out["touchedAt"] == ["page", "one", "three", "both", "two"]
    assert out["ran"] == ["page", "one", "three", "both", "two"]


def test_a_page_without_parts_is_live_at_once(module_page):
    out = module_page.evaluate(
        """() => {
          document.body.innerHTML = '<div data-ae-model="a"></div><div data-ae-model="b"></div>';
          const ran = [];
          const spec = {models: {a: {type: "HTML", props: {text: ""}}, b: {type: "HTML", props: {text: "<b>x</b>"}}},
                        callbacks: {k: {module: "note", args: {models: [{$ref: "a"}, {$ref: "b"}]}}},
                        document: {document_ready: ["k"]}};
          let done = false;
          window.ae.mount(spec, {note: () => ran.push("k")}, document, {parts: window.ae.PART, done: () => { done = true; }});
          return {ran, done};
        }"""
    )
    assert out == {"ran": ["k"], "done": True}

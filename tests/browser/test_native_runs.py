"""One key press, one run of the module, on the student page's runtime (``web/native.js``).

A slider moved by a key changes the state, the state is drawn, and the draw
writes the slider's number box: under BokehJS each of those changes calls the
explorable's module again (three runs, two of them echoes the module must
recognise). On a student page what a run changes itself does not call it
back; the controller (``web/controller.js``) draws the state it changed in
the same run (even when the module then fails). Another callback on the same
state still hears the change. A burst of changes from outside (the server, a
replay) runs the module once. Under BokehJS, where every change calls back,
the controller draws a burst once, in a microtask.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PAGE = """() => {
  document.body.innerHTML = `
    <div data-ae-model="slider"><label for="t">t</label><input id="t" type="range" min="0" max="10" step="1" value="1"></div>
    <div data-ae-model="box"><input id="box" type="text" value="1"></div>
    <div data-ae-model="notice"></div>`;
  const spec = {
    models: {
      state: {type: "State", props: {t: 1, u: 0}, on: {"change:t": ["k", "other"], "change:u": ["k"]}},
      slider: {type: "Slider", props: {value: 1, start: 0, end: 10, step: 1}, on: {"change:value": ["k"]}},
      box: {type: "TextInput", props: {value: "1"}, on: {"change:value": ["k"]}},
      notice: {type: "HTML", props: {text: "", visible: false}},
    },
    callbacks: {k: {module: "probe", args: {
      state: {$ref: "state"},
      models: {t_slider: {$ref: "slider"}, t_box: {$ref: "box"}, notice: {$ref: "notice"}},
      config: {sliders: {t: [0, 10, 1]}, labels: {t: "t"}, strings: {input_clamped: ""}},
    }},
      other: {module: "other", args: {state: {$ref: "state"}}}},
    document: {},
  };
  const seen = window.seen = {runs: 0, draws: 0};
  const heard = window.heard = [];
  const draw = (state, models) => {
    seen.draws += 1;
    models.t_slider.value = state.t;
    models.t_box.value = window.ae.formatG(state.t);
  };
  const act = (action) => {
    window.ae.sliderAction(action);
    if (action.state.t === 9) throw new Error("a module that fails after changing the state");
  };
  const run = window.ae.controller("probe", draw, act);
  const probe = (...args) => { seen.runs += 1; return run(...args); };
  // Another explorable's callback on the same state (a class panel on the steps' step).
  const other = ({state}) => heard.push(state.t);
  window.models = window.ae.mount(spec, {probe, other}, document);
}"""


def _press(page):
    """An arrow key on the slider, as a student presses it."""
    page.focus("#t")
    page.keyboard.press("ArrowRight")


def _type(text):
    """A number typed into the slider's box and entered."""

    def typed(page):
        page.fill("#box", text)
        page.press("#box", "Enter")

    return typed


def _outside_burst(page):
    """Two properties of the state set at once from outside the module (a server, a replay)."""
    page.evaluate("() => window.models.get('state').setv({t: 4, u: 1})")


def _after(page, action, shown: str, name: str):
    """Do ``action`` on a fresh page; once the slider and its box both show ``shown``, and one
    macrotask later (every run the action caused is over with its microtasks), ``window[name]``."""
    page.evaluate(PAGE)
    action(page)
    page.wait_for_function(
        "(v) => document.querySelector('#box').value === v && document.querySelector('#t').value === v", arg=shown
    )
    return page.evaluate("(name) => new Promise((resolve) => setTimeout(() => resolve(window[name])))", name)


@pytest.mark.parametrize(
    ("action", "shown"), [(_press, "2"), (_type("7"), "7"), (_outside_burst, "4")], ids=["key", "typed", "burst"]
)
def test_an_action_is_one_run_and_one_draw(module_page, action, shown):
    assert _after(module_page, action, shown, "seen") == {"runs": 1, "draws": 1}
    assert module_page.evaluate("() => window.models.get('state').t") == int(shown)


def test_another_callback_still_hears_the_change(module_page):
    assert _after(module_page, _press, "2", "heard") == [2]


def test_a_state_changed_before_the_module_failed_is_drawn(module_page):
    assert _after(module_page, _type("9"), "9", "seen") == {"runs": 1, "draws": 1}
    # The module's error went to the console, named, and nowhere else.
    assert len(module_page.ae_errors) == 1 and "attention explorable (probe)" in module_page.ae_errors[0]
    module_page.ae_errors.clear()


def test_under_bokehjs_a_change_is_drawn_once_in_a_microtask(module_page):
    """Where every change calls back (BokehJS passes a context without ``changed``), a burst is one draw."""
    module_page.evaluate(PAGE)
    out = module_page.evaluate(
        """() => new Promise((resolve) => {
          const draws = [];
          const run = window.ae.controller("bokeh", (state) => draws.push(state.t), () => {});
          const state = {t: 5, u: 1};
          run({state, models: {}, config: {}}, state, {}, {index: null});
          run({state, models: {}, config: {}}, state, {}, {index: null});
          const atOnce = draws.length;
          queueMicrotask(() => resolve({atOnce, after: draws}));
        })"""
    )
    assert out == {"atOnce": 0, "after": [5]}

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


def test_a_key_press_is_one_run_and_one_draw(module_page):
    module_page.evaluate(PAGE)
    module_page.focus("#t")
    module_page.keyboard.press("ArrowRight")
    module_page.wait_for_function("() => document.querySelector('#box').value === '2'")
    # Every run the press caused is over once its microtasks are: one macrotask later.
    seen = module_page.evaluate("() => new Promise((resolve) => setTimeout(() => resolve(window.seen)))")
    assert seen == {"runs": 1, "draws": 1}
    assert module_page.evaluate("() => window.models.get('state').t") == 2


def test_a_typed_number_is_one_run(module_page):
    module_page.evaluate(PAGE)
    module_page.fill("#box", "7")
    module_page.press("#box", "Enter")
    module_page.wait_for_function("() => document.querySelector('#t').value === '7'")
    seen = module_page.evaluate("() => new Promise((resolve) => setTimeout(() => resolve(window.seen)))")
    assert seen == {"runs": 1, "draws": 1}


def test_a_burst_of_changes_from_outside_is_one_run(module_page):
    module_page.evaluate(PAGE)
    module_page.evaluate("() => window.models.get('state').setv({t: 4, u: 1})")
    module_page.wait_for_function("() => document.querySelector('#box').value === '4'")
    seen = module_page.evaluate("() => new Promise((resolve) => setTimeout(() => resolve(window.seen)))")
    assert seen == {"runs": 1, "draws": 1}
    assert module_page.evaluate("() => document.querySelector('#t').value") == "4"


def test_another_callback_still_hears_the_change(module_page):
    module_page.evaluate(PAGE)
    module_page.focus("#t")
    module_page.keyboard.press("ArrowRight")
    module_page.wait_for_function("() => document.querySelector('#box').value === '2'")
    heard = module_page.evaluate("() => new Promise((resolve) => setTimeout(() => resolve(window.heard)))")
    assert heard == [2]


def test_a_state_changed_before_the_module_failed_is_drawn(module_page):
    module_page.evaluate(PAGE)
    module_page.fill("#box", "9")
    module_page.press("#box", "Enter")
    module_page.wait_for_function("() => document.querySelector('#t').value === '9'")
    seen = module_page.evaluate("() => new Promise((resolve) => setTimeout(() => resolve(window.seen)))")
    assert seen == {"runs": 1, "draws": 1}
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

"""A head that learns, in Chromium: its module trains the same head as the Python oracle
(views/head.py), and the page does what a student expects, from file:// with nothing else to load."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from playwright.sync_api import expect

from attention_explorable import site
from attention_explorable.views import head
from attention_explorable.views.numbers import format_number

from .mirror import load_module
from .pages import eventually, text_of, wait_text

pytestmark = pytest.mark.browser

#: (seed, d_k, scaled, steps): the default, a small unscaled head, the comparison's size.
RUNS = [(0, 16, True, 40), (5, 3, False, 40), (3, 64, True, 12)]

_JS_RUN = """([seed, dK, scaled, steps]) => {
  const run = ae.startRun({seed, d_k: dK, scaled, learning_rate: 0.01});
  const first = ae.initParams(seed, dK);
  for (let i = 0; i < steps; i++) ae.stepRun(run);
  const plain = (p) => Object.fromEntries(Object.entries(p).map(([k, w]) => [k, w.map((r) => Array.from(r))]));
  return {first: plain(first), params: plain(run.params), losses: run.losses, accuracies: run.accuracies,
          batch: ae.makeBatch(seed, 7, 64), table: ae.matchTable(run.params, scaled),
          reads: ae.valueReads(run.params)};
}"""


@pytest.mark.parametrize("seed, d_k, scaled, steps", RUNS)
def test_the_module_trains_the_same_head_as_the_python_oracle(chromium, seed, d_k, scaled, steps):
    context = chromium.new_context()
    try:
        page = load_module(context, "head")
        js = page.evaluate(_JS_RUN, [seed, d_k, scaled, steps])
        assert page.ae_errors == []
    finally:
        context.close()
    batch = head.make_batch(seed, 7, 64)
    assert js["batch"] == {"keys": batch.keys.tolist(), "values": batch.values.tolist(), "asked": batch.asked.tolist()}
    first = head.init_params(seed, d_k)
    for name, w in first.items():  # the same uniforms, the same arithmetic: equal to the last bit
        assert np.array_equal(np.array(js["first"][name]), w), name
    run = head.start(seed=seed, d_k=d_k, scaled=scaled)
    for _ in range(steps):
        run.step()
    # Sums in another order differ in the last bits; training carries them, but not into a shown digit.
    np.testing.assert_allclose(js["losses"], run.losses, rtol=1e-9)
    assert js["accuracies"] == run.accuracies
    for name, w in run.params.items():
        np.testing.assert_allclose(np.array(js["params"][name]), w, rtol=1e-7, atol=1e-10, err_msg=name)
    np.testing.assert_allclose(js["table"], head.match_table(run.params, scaled), rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(js["reads"], head.value_reads(run.params), rtol=1e-7)


#: The parameters in the order the page hands them over (each row after row, as numpy's ravel).
_PARAMS = ("W_Q", "W_K", "W_V", "W_U")

#: Each state trained in the page: its losses and accuracies, and at each checkpoint every parameter as
#: the bytes of one float64 array (base64): exact, and far quicker to hand over than numbers in JSON.
_JS_CHECKPOINTS = """(states) => states.map(([seed, dK, scaled, lr, checkpoints]) => {
  const run = ae.startRun({seed, d_k: dK, scaled, learning_rate: lr});
  const at = {};
  for (const c of checkpoints) {
    while (run.t < c) ae.stepRun(run);
    const flat = new Float64Array(%s.flatMap((k) => run.params[k].flatMap((r) => Array.from(r))));
    const bytes = new Uint8Array(flat.buffer);
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    at[c] = btoa(text);
  }
  return {losses: run.losses, accuracies: run.accuracies, at};
})""" % json.dumps(list(_PARAMS))


def _mirror_states() -> list[tuple[int, int, bool, float, list[int]]]:
    """(seed, d_k, scaled, learning rate, checkpoints): 240 states drawn over the controls' whole ranges,
    checked after 1 and 10 steps; 16 of them after 100; the default and two others after 300."""
    rng = np.random.default_rng(20261206)
    lo, hi, _ = head.BOUNDS["learning_rate"]
    states = []
    for i in range(240):
        lr = round(float(rng.integers(round(lo * 1000), round(hi * 1000) + 1)) / 1000, 3)
        seed, d_k = int(rng.integers(0, 10_000)), int(rng.integers(2, 65))
        states.append((seed, d_k, bool(rng.integers(0, 2)), lr, [1, 10, 100] if i < 16 else [1, 10]))
    return states + [(0, 16, True, 0.01, [1, 10, 100, 300]), (7, 64, False, 0.01, [300]), (11, 5, True, 0.05, [300])]


def test_the_module_trains_as_the_oracle_over_hundreds_of_states(chromium):
    """Losses and parameters after 1, 10 and 100 steps within 1e-9, after 300 within 1e-6: relative to
    each matrix's largest entry (an entry near 0 is compared at its matrix's scale), and every batch's
    accuracy equal. The two sides sum in different orders, so the last bits differ, and training carries
    that difference forward: more steps, a wider tolerance."""
    states = _mirror_states()
    context = chromium.new_context()
    try:
        page = load_module(context, "head")
        js = []
        for i in range(0, len(states), 30):
            js += page.evaluate(_JS_CHECKPOINTS, [list(s) for s in states[i : i + 30]])
        assert page.ae_errors == []
    finally:
        context.close()
    for (seed, d_k, scaled, lr, checkpoints), got in zip(states, js, strict=True):
        run = head.start(seed=seed, d_k=d_k, scaled=scaled, learning_rate=lr)
        for c in checkpoints:
            while run.t < c:
                run.step()
            tol = 1e-9 if c <= 100 else 1e-6
            state = f"seed={seed} d_k={d_k} scaled={scaled} lr={lr} after {c} steps"
            np.testing.assert_allclose(got["losses"][:c], run.losses, rtol=tol, err_msg=state)
            flat = np.frombuffer(base64.b64decode(got["at"][str(c)]), dtype="<f8")
            assert flat.size == sum(run.params[name].size for name in _PARAMS), state
            for name, page_w in zip(_PARAMS, np.split(flat, np.cumsum([run.params[n].size for n in _PARAMS])[:-1])):
                w = run.params[name]
                gap = np.max(np.abs(page_w - w.ravel()))
                assert gap <= tol * np.max(np.abs(w)), f"{name}, {state}: off by {gap:.3g}"
        assert got["accuracies"] == run.accuracies, (seed, d_k, scaled, lr)


def _compare_cases() -> list[tuple[list[float], list[float]]]:
    """Pairs of loss curves (scaled, unscaled) that reach each outcome of the comparison, and its thresholds."""
    rng = np.random.default_rng(20261208)
    steps = np.arange(head.COMPARE_STEPS)
    cases = []
    for _ in range(120):
        start_s, start_u = 2.3 + rng.normal(0, 0.3, 2)
        rate_s, rate_u = rng.choice([0.0, 0.003, 0.02, 0.08], 2)
        s = start_s * np.exp(-rate_s * steps) + rng.uniform(0, 0.01, steps.size)
        u = start_u * np.exp(-rate_u * steps) + rng.uniform(0, 0.01, steps.size)
        cases.append((s.tolist(), u.tolist()))
    flat = [2.3] * head.COMPARE_STEPS
    cases.append((flat, flat))  # the scaled head has not fallen: neither
    # Each threshold met exactly and just missed (sums of quarters: exact in both languages' floats).
    learned = [2.5] * 95 + [0.25] * 5
    cases += [
        (learned, [2.0] * 95 + [0.375] * 5),  # last exactly COMPARE_SLOWER times the scaled head's: B
        (learned, [2.0] * 95 + [0.37] * 5),  # just under it, not faster at first either: neither
        (learned, [2.5] + [2.3] * 94 + [2.25] * 5),  # last exactly COMPARE_FLAT of the first: not flat (B)
        (learned, [2.5] + [2.3] * 94 + [2.26] * 5),  # just over it: C
        (learned, [2.25] * 20 + [0.25] * 80),  # early exactly COMPARE_FASTER of the scaled head's: neither
        (learned, [2.25] * 19 + [2.0] + [0.25] * 80),  # just under it: D
    ]
    return cases


def test_the_comparisons_outcome_is_the_oracles(chromium):
    """``compareOutcome`` (web/head.js) names the option a pair of runs bears out as
    ``views.head.compare_outcome`` does, over curves that reach every outcome."""
    cases = _compare_cases()
    want = [head.compare_outcome(s, u) for s, u in cases]
    assert set(want) == {None, 0, 1, 2, 3}, want  # every outcome is reached
    context = chromium.new_context()
    try:
        page = load_module(context, "head")
        got = page.evaluate("(cases) => cases.map(([s, u]) => ae.compareOutcome(s, u))", cases)
        assert page.ae_errors == []
    finally:
        context.close()
    assert got == want


def test_a_typed_lookup_is_read_as_python_reads_it(chromium):
    context = chromium.new_context()
    try:
        page = load_module(context, "head")
        for text in ["C7 A2 D5 B9 | A", "h0 g1 f2 e3|e", "C7 A2 D5 | A", "C7 C2 D5 B9 | C", "C7 A2 D5 B9 | E", "C7 A2"]:
            js = page.evaluate("(t) => ae.parseLookup(t)", text)
            try:
                batch = head.parse_lookup(text)
            except ValueError:
                assert "error" in js, text
                continue
            assert js == {"keys": batch.keys.tolist(), "values": batch.values.tolist(),
                          "asked": batch.asked.tolist()}, text  # fmt: skip
    finally:
        context.close()


def _step_of(page) -> int:
    digits = "".join(c if c.isdigit() else " " for c in page.locator(".ae-head-readout").text_content()).split()
    return int(digits[0])


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_student_predicts_trains_and_sees_the_head_learn_offline(student, tmp_path, language):
    saved = tmp_path / "head.html"
    saved.write_text(site.build_page("head", language), encoding="utf-8")
    s = student(390, 844, mobile=True) if language == "en" else student()
    aborted = s.open_offline(saved, ".ae-head-readout")
    page = s.page
    assert _step_of(page) == 0
    # Its own headings come right under the page's title (h1 → h2: no level skipped).
    assert page.locator(".ae-head h2").count() == 4 and page.locator(".ae-head h3").count() == 0
    # Predict first: training waits for a prediction (or the explicit skip).
    assert page.locator(".ae-head-train").is_disabled() and page.locator(".ae-head-step-button").is_disabled()
    page.locator(".ae-head-prediction .ae-head-options button").nth(0).click()  # "the letter": wrong
    pressed = page.locator(".ae-head-prediction .ae-head-options button[aria-pressed=true]")
    assert pressed.count() == 1 and pressed.text_content().startswith("A.")
    # The head's insides (what W_V reads) answer the question: not shown while the choice can still change.
    after = page.locator(".ae-head-after")
    assert after.is_hidden()
    page.locator(".ae-head-prediction .ae-head-options button").nth(2).click()  # a change of mind is taken ...
    page.locator(".ae-head-prediction .ae-head-options button").nth(0).click()
    page.locator(".ae-head-step-button").click()
    assert _step_of(page) == 1
    assert after.is_visible()  # ... until the head trains: then the weights show and the choice is kept
    # Beside each bar, dashed, the same weight before training: what the question's first half asks about.
    # (the three watched examples' four bars each; the student's own lookup has no "before")
    assert page.locator(".ae-head-after svg line[stroke-dasharray][visibility=visible]").count() == 12
    options = page.locator(".ae-head-prediction .ae-head-options button")
    assert all(options.nth(i).is_disabled() for i in range(3))
    assert pressed.text_content().startswith("A.")
    page.locator(".ae-head-train").click()
    # A first play rests by itself at the 300 steps the text asks about (pressed again, it trains on).
    page.wait_for_function(
        "(train) => document.querySelector('.ae-head-train').textContent === train",
        arg=head_strings(language)["head_train"],
        timeout=60_000,
    )
    paused = _step_of(page)
    assert paused == head.REST_AT == 300
    # A paused run stays where it is: five frames later (a frame is when a playing run trains) it has not moved.
    page.evaluate(
        "() => new Promise((done) => { let n = 5; const f = () => (--n ? requestAnimationFrame(f) : done()); requestAnimationFrame(f); })"
    )
    assert _step_of(page) == paused
    # Each trained weight's number sits on its bar, clear of the dashed line of the weight before training;
    # above that line only where the line runs just over the bar (a number over a line far above its bar
    # read as the old weight).
    placed = page.evaluate(
        """() => [...document.querySelectorAll('.ae-head-after svg')].flatMap((svg) => {
          const rects = [...svg.querySelectorAll('rect')], lines = [...svg.querySelectorAll('line[stroke-dasharray]')];
          const numbers = [...svg.querySelectorAll('text.ae-tick')];
          return lines.filter((l) => l.getAttribute('visibility') === 'visible').map((l, p) =>
            [+rects[p].getAttribute('y'), +l.getAttribute('y1'), +numbers[p].getAttribute('y')]);
        })"""
    )
    assert len(placed) == 12, placed
    for top, line, number in placed:
        assert not (number - 12 <= line <= number + 2), (top, line, number)  # (a 14 px number, baseline y)
        if top - line >= 18:
            assert line < number < top, (top, line, number)
    assert "100%" in page.locator(".ae-head-readout").text_content()
    verdict = page.locator(".ae-head-verdict").text_content()
    assert ("答案 B" in verdict) if language == "zh" else ("answer B" in verdict), verdict
    # The student's own lookup: the trained head reads the digit paired with the query.
    page.locator(".ae-head-lookup").fill("E4 B8 H1 C6 | H")
    assert "1" in page.locator(".ae-head-lookup-answer").text_content()
    own_bars = page.locator(".ae-head-lookup").locator("xpath=../..").locator("svg")
    assert own_bars.is_visible()
    page.locator(".ae-head-lookup").fill("E4 B8 | H")
    assert page.locator(".ae-head-lookup-answer").text_content() == head_strings(language)["head_lookup_pairs"]
    assert not own_bars.is_visible()  # no bars of the lookup it no longer holds
    # The training record, for a screen reader: a row every 25 steps, the numbers of the readout's steps.
    rows = page.locator(".ae-head table").nth(3).locator("tbody tr")
    assert rows.nth(0).locator("th").text_content() == "1" and rows.nth(1).locator("th").text_content() == "25"
    assert rows.last.locator("th").text_content() == str(paused)
    # The comparison at d_k = 64 waits for its own prediction (A here, on purpose); then it reports each head's
    # first loss and its mean loss over steps 96-100, and the option the run bears out.
    assert page.locator(".ae-head-compare-run").is_disabled()
    assert page.locator(".ae-head-compare-first").is_visible()
    options = page.locator(".ae-head-compare .ae-head-options button")
    assert options.count() == 4 and options.nth(3).text_content().startswith("D. ")
    options.nth(0).click()
    assert not page.locator(".ae-head-compare-first").is_visible()
    page.locator(".ae-head-compare-run").click()
    page.wait_for_function("() => !document.querySelector('.ae-head-compare-run').disabled", timeout=60_000)
    said = page.locator(".ae-head-compare-result").text_content()
    oracle = dict(zip((True, False), head.compare_losses(0)))
    first_s, first_u, _ln10, scaled, unscaled, ratio = (float(x) for x in _numbers(said)[:6])
    assert (first_s, first_u) == (round(oracle[True][0], 3), round(oracle[False][0], 3))
    means = {flag: float(np.mean(oracle[flag][95:100])) for flag in (True, False)}
    assert (scaled, unscaled) == (float(f"{means[True]:.3g}"), float(f"{means[False]:.3g}"))  # three figures
    assert ratio == round(means[False] / means[True], 1)
    # Seed 0 bears out B (both start near ln 10, the unscaled head falls, slower), so A is told where it lands.
    right = head.compare_outcome(oracle[True], oracle[False])
    assert right == 1
    strings = head_strings(language)
    assert strings["head_compare_wrong"].format(option="B") in said, said
    assert strings["head_compare_why"].replace("W_V", "WV") in said  # (W_V written as W with V below)
    assert page.locator(".ae-head-compare-result sub").first.text_content() == "V"
    # The option the run bore out is marked, as in the other explorables, and the prediction is kept.
    assert options.nth(1).text_content().endswith(strings["head_right_mark"])
    assert [options.nth(i).is_disabled() for i in range(4)] == [True] * 4
    assert not options.nth(0).text_content().endswith(strings["head_right_mark"])
    # Run again: the same runs, the same report (not left at "Training…").
    page.locator(".ae-head-compare-run").click()
    page.wait_for_function("() => !document.querySelector('.ae-head-compare-run').disabled", timeout=60_000)
    assert page.locator(".ae-head-compare-result").text_content() == said
    # A setting starts a new run from step 0.
    page.locator(".ae-head-seed").fill("7")
    assert _step_of(page) == 0
    # ... and the head's insides follow it (drawn right after the frame that answers the setting): the
    # score table a screen reader reads is the new, untrained head's.
    fresh = head.match_table(head.start(seed=7).params, True)
    want = [[format_number(x, 3, False) for x in row] for row in fresh]
    table = page.locator(".ae-head table").nth(1).locator("tbody tr")

    def the_new_heads_table():
        got = [table.nth(i).locator("td").all_text_contents() for i in range(len(want))]
        assert got == want, (got, want)

    eventually(page, the_new_heads_table)
    s.screenshot(f"head-{language}")
    if language == "en":
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width  # nothing wider than the phone
    assert aborted == []
    s.assert_clean()


def _numbers(text: str) -> list[str]:
    import re

    return re.findall(r"\d+\.\d+", text)


def head_strings(language: str) -> dict:
    from attention_explorable.strings import STRINGS

    return STRINGS[language]


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_textbook_holds_the_head_and_it_trains_there_offline(student, static_site, language):
    """The head placed in section 3.8 (``:::explorable head``) runs in the exported textbook, from file://."""
    index = static_site / ("index.html" if language == "zh" else "en/index.html")
    s = student()
    aborted = s.open_offline(index, ".ae-explorable-head .ae-head-readout")
    page = s.page
    box = page.locator(".ae-explorable-head")
    box.evaluate("e => e.scrollIntoView()")
    assert page.locator(".ae-head").count() == 1  # rendered once, in its box
    assert box.locator(".ae-head h3").count() == 4  # under the section's h2 ("Try it: train one attention head")
    assert _step_of(page) == 0
    box.locator(".ae-head-skip").click()
    box.locator(".ae-head-step-button").click()
    assert _step_of(page) == 1
    # The module follows the textbook's language and the page's theme variables.
    lang = box.locator(".ae-head").get_attribute("lang")
    assert lang == ("zh-Hans" if language == "zh" else "en")
    # Its plots' labels take the page's text colour (a fixed black would vanish on a dark page).
    label = box.locator(".ae-head svg text:not(.ae-tick)").first.evaluate("e => getComputedStyle(e).fill")
    assert label == box.locator(".ae-head").evaluate("e => getComputedStyle(e).color")
    assert aborted == []
    s.assert_clean()


def test_a_screen_reader_hears_each_rest_and_reads_the_plots_numbers(student, tmp_path):
    """Training is said when it rests (a step, a pause), and the plots' numbers are tables: the learned score
    table's cells are the oracle's, to two decimals."""
    saved = tmp_path / "head.html"
    saved.write_text(site.build_page("head", "en"), encoding="utf-8")
    s = student()
    s.open_offline(saved, ".ae-head-readout")
    page = s.page
    assert page.locator(".ae-head-live").text_content() == ""  # nothing said on arrival
    page.locator(".ae-head-skip").click()
    for _ in range(3):
        page.locator(".ae-head-step-button").click()
    assert "Step 3" in page.locator(".ae-head-live").text_content()
    # While it trains, the loss is said now and then (every five seconds), not every frame. (A slow
    # phone's CPU, emulated: here a whole run of 5,000 steps takes under a second, and its end is said.)
    page.locator(".ae-head-train").click()  # first to the rest at 300, then on
    page.wait_for_function(
        "(train) => document.querySelector('.ae-head-train').textContent === train",
        arg=head_strings("en")["head_train"],
    )
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 20})
    page.locator(".ae-head-train").click()
    page.wait_for_function(
        """(pause) => document.querySelector('.ae-head-live').textContent.match(/Step (\\d+)/)[1] > 300
                      && document.querySelector('.ae-head-train').textContent === pause""",
        arg=head_strings("en")["head_pause"],
        timeout=30_000,
    )
    page.locator(".ae-head-train").click()
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 1})
    page.locator(".ae-head-reset").click()
    for _ in range(3):
        page.locator(".ae-head-step-button").click()
    run = head.start(seed=0, d_k=16, scaled=True)
    for _ in range(3):
        run.step()
    table = head.match_table(run.params, True)
    rows = page.locator(".ae-head table").nth(1).locator("tbody tr")

    def shows_the_table():  # written once training rests, a moment after the last step
        assert rows.count() == head.N_LETTERS
        shown = [rows.nth(i).locator("td").all_text_contents() for i in range(rows.count())]
        assert shown == [[format_number(x, html=False) for x in row] for row in table]  # three decimals, a true minus

    eventually(page, shows_the_table)
    caption = page.locator(".ae-head table").nth(1).locator("caption").text_content()
    assert caption == head_strings("en")["head_table_title"]
    s.assert_clean()


def test_a_link_opens_the_head_on_its_settings_and_the_address_follows(student, tmp_path):
    """``head.html?d_k=64&scaled=false``: the head opens there; a value it cannot take is said, not
    used; a setting the student changes is written into the address (the rules of views/links.py)."""
    saved = tmp_path / "head.html"
    saved.write_text(site.build_page("head", "en"), encoding="utf-8")
    s = student()
    s.open_offline(saved, ".ae-head-readout", "?d_k=64&scaled=false&seed=abc&learning_rate=9")
    page = s.page
    assert page.locator(".ae-head-d_k").input_value() == "64"
    assert not page.locator(".ae-head-scaled").is_checked()
    assert page.locator(".ae-head-seed").input_value() == "0"  # junk: the default kept
    assert page.locator(".ae-head-learning_rate").input_value() == "0.05"  # clamped to its bound
    notice = page.locator(".ae-input-notice").text_content()
    assert "seed=abc" in notice and "learning_rate=9" in notice and "<" not in notice, notice
    page.locator(".ae-head-seed").fill("7")
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '7'")
    query = page.evaluate("() => Object.fromEntries(new URLSearchParams(location.search))")
    assert query == {"d_k": "64", "scaled": "false", "seed": "7", "learning_rate": "0.05"}
    assert page.locator(".ae-head-seed-box").input_value() == "7"  # the box beside the slider follows it
    # A value typed in a setting's box: on the slider's grid within its bounds; junk keeps the value.
    page.locator(".ae-head-seed-box").fill("1234.6")
    page.locator(".ae-head-seed-box").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('seed') === '1235'")
    assert page.locator(".ae-head-seed").input_value() == "1235"
    # d_k and the scaling wait for the comparison's own question, which asks what they do.
    expect(page.locator(".ae-head-d_k-box")).to_be_disabled()
    expect(page.locator(".ae-head-scaled")).to_be_disabled()
    expect(page.locator(".ae-head-settings-wait")).to_be_visible()  # and the page says why
    page.locator(".ae-head-compare .ae-head-options button").first.click()
    expect(page.locator(".ae-head-d_k-box")).to_be_enabled()
    expect(page.locator(".ae-head-settings-wait")).to_be_hidden()
    page.locator(".ae-head-d_k-box").fill("20")
    page.locator(".ae-head-d_k-box").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('d_k') === '20'")
    page.locator(".ae-head-d_k-box").fill("500")
    page.locator(".ae-head-d_k-box").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('d_k') === '64'")  # its bound
    assert page.locator(".ae-head-d_k").input_value() == "64" == page.locator(".ae-head-d_k-box").input_value()
    page.locator(".ae-head-learning_rate-box").fill("fast")
    page.locator(".ae-head-learning_rate-box").press("Enter")
    assert page.locator(".ae-head-learning_rate-box").input_value() == "0.05"
    s.assert_clean()


def test_the_textbooks_head_reads_its_own_names_in_the_address(student, static_site):
    """On the textbook the head's link names carry its name (``head.d_k``), as every explorable's there."""
    s = student()
    s.open_offline(static_site / "index.html", ".ae-explorable-head .ae-head-readout", "?head.d_k=32&d_k=8")
    assert s.page.locator(".ae-head-d_k").input_value() == "32"
    s.assert_clean()


def test_an_author_pastes_the_heads_iframe_and_it_takes_its_contents_height(static_site, student):
    """``embed/head-iframe.html`` in an author's page (from file://): the head without its page title, in a
    frame as tall as its content (no scroll bar of its own), trained inside it."""
    host = static_site / "head-host-test.html"
    snippet = (static_site / "embed" / "head-iframe.html").read_text("utf-8")
    host.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title></head>"
        f"<body><h2>a head</h2>{snippet}<p>end</p></body></html>",
        "utf-8",
    )
    try:
        s = student()
        aborted = s.open_offline(host, "iframe.ae-embed-frame")
        page = s.page
        frame_el = page.locator("iframe.ae-embed-frame")
        frame_el.scroll_into_view_if_needed()
        frame = frame_el.content_frame
        frame.locator(".ae-head-readout").wait_for()
        assert not frame.locator("h1").is_visible()  # the page's title gives way to the explorable
        inside = frame_el.element_handle().content_frame()
        content = inside.evaluate("Math.ceil(document.body.getBoundingClientRect().height)")
        page.wait_for_function(
            "(c) => Math.abs(document.querySelector('iframe.ae-embed-frame').offsetHeight - c) <= 2", arg=content
        )
        assert content > 800  # its whole content, not the snippet's first 420 px
        frame.locator(".ae-head-skip").click()
        frame.locator(".ae-head-step-button").click()
        assert "1" in frame.locator(".ae-head-readout").text_content()
        assert aborted == []
        s.assert_clean()
    finally:
        host.unlink()


def test_an_author_puts_the_head_in_a_page_with_one_tag(static_site, student):
    """``<attention-explorable name="head" d_k="8">`` (and the one-tag form) in an author's page from file://:
    the head in its own shadow root, its state from the markup, a wrong value said as the attribute it is,
    a misspelled attribute named in the console with the parameter it is closest to, the host's address
    left alone."""
    host = static_site / "head-tag-test.html"
    one_tag = (static_site / "embed" / "head.html").read_text("utf-8")
    host.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title></head><body>"
        '<h2>one</h2><script src="attention-explorable.js"></script>'
        '<attention-explorable name="head" d_k="8" seed="x" lerning_rate="0.01"></attention-explorable>'
        f"<h2>two</h2>{one_tag}<p>end</p></body></html>",
        "utf-8",
    )
    try:
        s = student()
        warnings = []
        s.page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        aborted = s.open_offline(host, ".ae-head-readout", "?d_k=32")
        page = s.page
        page.locator(".ae-head-readout").nth(1).wait_for()
        heads = page.locator("attention-explorable")
        assert heads.count() == 2 and page.evaluate(
            "() => [...document.querySelectorAll('attention-explorable')].every((h) => h.shadowRoot)"
        )
        first, second = heads.nth(0), heads.nth(1)
        assert first.locator(".ae-head-d_k").input_value() == "8"  # the markup's, not the host's ?d_k=32
        assert second.locator(".ae-head-d_k").input_value() == "16"
        notice = first.locator(".ae-input-notice").text_content()
        assert 'seed="x"' in notice or "seed=x" in notice, notice
        # A misspelled attribute is ignored, and the console says which parameter it may have meant.
        said = [w for w in warnings if "lerning_rate" in w]
        assert said and "did you mean learning_rate?" in said[0], warnings
        assert said[0].startswith('<attention-explorable name="head">: the attribute lerning_rate'), said  # which tag
        first.locator(".ae-head-skip").click()
        first.locator(".ae-head-step-button").click()
        assert "1" in first.locator(".ae-head-readout").text_content()
        second.locator(".ae-head-seed").fill("5")
        assert page.evaluate("() => location.search") == "?d_k=32"  # the host's address is the author's
        assert aborted == []
        s.assert_clean()
    finally:
        host.unlink()


def test_with_reduced_motion_the_plots_stand_still_while_it_trains_and_are_drawn_at_rest(student, tmp_path):
    """A reader who asked for reduced motion gets the same training and numbers (the readout moves), but
    the curves stand still while it plays and are drawn when it rests."""
    saved = tmp_path / "head.html"
    saved.write_text(site.build_page("head", "en"), encoding="utf-8")
    s = student()
    s.page.emulate_media(reduced_motion="reduce")
    s.open_offline(saved, ".ae-head-readout")
    page = s.page
    page.locator(".ae-head-skip").click()
    points = "() => document.querySelector('.ae-head svg polyline').getAttribute('points').split(' ').length"
    page.locator(".ae-head-step-button").click()  # the loss curve exists (one point)
    # Every redraw of the loss curve while it plays, as the number of steps it shows.
    page.evaluate("""() => {
      const line = document.querySelector('.ae-head svg polyline');
      window.drawn = [];
      new MutationObserver(() => window.drawn.push(line.getAttribute('points').split(' ').length))
        .observe(line, {attributes: true, attributeFilter: ['points']});
    }""")
    page.locator(".ae-head-train").click()
    page.wait_for_function(  # it rests by itself at 300: drawn to the step it rests at
        "(train) => document.querySelector('.ae-head-train').textContent === train",
        arg=head_strings("en")["head_train"],
        timeout=60_000,
    )
    drawn = page.evaluate("window.drawn")
    # Not once while it played (a redraw of the step it started from aside); once when it rested.
    assert set(drawn) == {1, _step_of(page)}, drawn
    assert page.evaluate(points) == _step_of(page)
    s.assert_clean()


def test_the_panel_app_trains_the_head_on_the_server_and_its_curves_grow(head_server, student):
    """``panel serve apps/head.py``: the head is trained in Python (the oracle's numbers), the Train button
    streams the new points to the curves while it plays, Pause stops it, and a setting starts again."""
    s = student()
    s.open(head_server.url() + "?lang=en&d_k=8", ".ae-head-readout")
    page = s.page
    wait_text(page, ".ae-head-readout", "choose a prediction")
    page.locator(".ae-head-prediction button").nth(1).click()  # B: spread, then on the matching pair
    wait_text(page, ".ae-head-readout", "not trained yet")
    page.locator(".ae-head-step-button button").click()
    run = head.start(d_k=8)
    run.step()
    wait_text(page, ".ae-head-readout", rf"Step 1: loss on this batch {run.losses[0]:.3f}")
    page.locator(".ae-head-train button").click()
    wait_text(page, ".ae-head-train", "Pause")
    # It rests by itself at the 300 steps the text asks about.
    wait_text(page, ".ae-head-readout", r"Step 300:", timeout=60_000)
    wait_text(page, ".ae-head-train", "Train")
    shown = text_of(page, ".ae-head-readout")
    steps = int(shown.split()[1].rstrip(":"))
    while run.t < steps:
        run.step()
    assert f"loss on this batch {run.losses[-1]:.3f}" in shown, shown
    wait_text(page, ".ae-head-verdict", "That is right")  # learned, and the prediction was B
    # The curve holds one point per step trained (streamed while it played).
    points = page.evaluate(
        """() => { for (const m of Bokeh.documents[0].all_models) if (m.data && m.data.loss) return m.data.step.length; }"""
    )
    assert points == steps
    s.screenshot("head-panel-app-trained")
    # A setting starts a new run from step 0.
    page.locator(".ae-head-seed-box input").fill("7")
    page.locator(".ae-head-seed-box input").press("Enter")
    wait_text(page, ".ae-head-readout", "Step 0")
    s.assert_clean()
    head_server.assert_clean_log()

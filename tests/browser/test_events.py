"""What the student did reaches the author's page as events, and the xAPI example makes statements of them.

From ``file://`` with every other request aborted but the example's Learning Record Store, which the test
plays (``https://lrs.example``): the tags' events bubble to the page, an iframe's become the iframe's own
(``embed/resize.js``), and the textbook's exercises tell theirs; nothing else is requested.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .pages import wait_text

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
#: Every activity event, recorded in the page as it arrives: [type, detail, what it was dispatched on].
_RECORD = """() => { window.aeEvents = [];
  for (const kind of ["prediction", "checked", "exercise", "completed"])
    document.addEventListener(`attention-explorable-${kind}`, (e) =>
      window.aeEvents.push([e.type, e.detail, e.target.tagName.toLowerCase()])); }"""


def _lrs(page) -> list[dict]:
    """Play the LRS: every statement POSTed to https://lrs.example/xapi/statements, answered 200."""
    got: list[dict] = []

    def answer(route):
        request = route.request
        assert request.method == "POST" and request.headers["x-experience-api-version"] == "1.0.3"
        got.append(json.loads(request.post_data))
        route.fulfill(status=200, content_type="application/json", body='["id"]')

    page.route("https://lrs.example/**", answer)
    return got


def test_the_tags_tell_the_page_what_the_student_did_and_the_xapi_example_records_it(static_site, student):
    host = static_site / "host-events.html"
    (static_site / "xapi.js").write_text((ROOT / "docs" / "examples" / "xapi.js").read_text("utf-8"), "utf-8")
    script = (static_site / "embed" / "steps-element.html").read_text("utf-8").splitlines()[0]
    host.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>lesson</title>"
        f"{script}<script src='xapi.js' data-endpoint='https://lrs.example/xapi/' data-auth='Basic dGVzdA=='"
        " data-actor-mbox='mailto:learner@example.edu' data-activity='https://course.example/attention/'></script>"
        "</head><body><h1>Lesson</h1>"
        "<attention-explorable name='vector'></attention-explorable>"
        "<attention-explorable name='steps'></attention-explorable></body></html>",
        "utf-8",
    )
    try:
        s = student()
        aborted = s.cut_network()
        statements = _lrs(s.page)
        page = s.page
        page.goto(host.resolve().as_uri())
        page.evaluate(_RECORD)
        vector, steps = page.locator("attention-explorable").nth(0), page.locator("attention-explorable").nth(1)
        vector.locator(".ae-vector-output").wait_for()
        vector.locator(".ae-vector-prediction button").nth(2).click()  # the midpoint: right
        vector.locator(".ae-vector-check button").click()
        steps.locator(".ae-prediction input").fill("6")
        steps.locator(".ae-demonstrate button").click()
        page.wait_for_function("() => window.aeEvents.length >= 5")
        events = page.evaluate("window.aeEvents")
        assert [(e[0], e[1]["name"]) for e in events] == [
            ("attention-explorable-prediction", "vector"),
            ("attention-explorable-checked", "vector"),
            ("attention-explorable-completed", "vector"),
            ("attention-explorable-prediction", "steps"),
            ("attention-explorable-checked", "steps"),
        ], events
        assert all(e[2] == "attention-explorable" for e in events)  # from the element, out of its shadow root
        checked = events[1][1]
        assert checked["prediction"] == "midpoint" and checked["right"] is True and checked["skipped"] is False
        assert checked["lang"] == "en" and checked["question"] == "prediction"
        step = events[4][1]
        assert step["question"] == "step1" and step["prediction"] == 6 and step["result"] == pytest.approx(6.0)
        assert step["difference"] == pytest.approx(0.0)
        # The xAPI example made a statement of each, for the LRS it was given.
        for _ in range(200):  # the statements are POSTed as the events arrive; routed here one by one
            if len(statements) >= 5:
                break
            page.wait_for_timeout(50)  # the poll's interval, not the condition
        verbs = [st["verb"]["id"].rsplit("/", 1)[1] for st in statements]
        assert verbs == ["responded", "answered", "completed", "responded", "answered"], verbs
        first = statements[1]
        assert first["actor"]["mbox"] == "mailto:learner@example.edu"
        assert first["object"]["id"] == "https://course.example/attention/#vector%2Fprediction"
        assert first["result"] == {"response": "midpoint", "success": True}
        assert statements[4]["result"] == {"response": "6"}
        assert aborted == []
        s.assert_clean()
    finally:
        host.unlink()
        (static_site / "xapi.js").unlink()


def test_an_iframe_tells_its_events_on_the_iframe_and_the_textbook_tells_its_exercises(static_site, student):
    host = static_site / "host-frame-events.html"
    snippet = (static_site / "embed" / "steps-iframe.html").read_text("utf-8").replace(' loading="lazy"', "")
    host.write_text(
        "<!doctype html><html lang='zh-Hans'><head><meta charset='utf-8'><title>课</title></head>"
        f"<body><h1>课</h1>{snippet}</body></html>",
        "utf-8",
    )
    try:
        s = student()
        aborted = s.open_offline(host, "iframe.ae-embed-frame")
        page = s.page
        page.evaluate(_RECORD)
        frame = page.frame_locator("iframe.ae-embed-frame")
        frame.locator(".ae-prediction input").fill("8")
        frame.locator(".ae-demonstrate button").click()
        page.wait_for_function("() => window.aeEvents.length >= 2")
        events = page.evaluate("window.aeEvents")
        assert [e[0] for e in events] == ["attention-explorable-prediction", "attention-explorable-checked"], events
        assert all(e[2] == "iframe" for e in events)  # the iframe's own events (resize.js)
        assert events[1][1]["name"] == "steps" and events[1][1]["difference"] == pytest.approx(2.0)
        assert aborted == []
        s.assert_clean()
    finally:
        host.unlink()
    # The textbook itself: an exercise checked is told, right or not; a malformed answer is not.
    s = student()
    aborted = s.open_offline(static_site / "index.html", ".ae-exercise-q2-alpha2 .ae-exercise-check button")
    page = s.page
    page.evaluate(_RECORD)
    q2 = page.locator(".ae-exercise-q2-alpha2")
    q2.scroll_into_view_if_needed()
    for typed in ("abc", "0.3", "0.212"):
        q2.locator(".ae-exercise-input input").fill(typed)
        q2.locator(".ae-exercise-check button").click()
        wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", r"\S")
    page.wait_for_function("() => window.aeEvents.length >= 2")
    events = page.evaluate("window.aeEvents")
    details = [(e[0], e[1]["exercise"], e[1]["response"], e[1]["right"]) for e in events]
    assert details == [
        ("attention-explorable-exercise", "q2-alpha2", "0.3", False),
        ("attention-explorable-exercise", "q2-alpha2", "0.212", True),
    ], details
    assert (
        events[0][1]["name"] == "exercise" and events[0][1]["lang"] == "zh"
    )  # the page says zh-Hans: the course's code
    assert aborted == []
    s.assert_clean()

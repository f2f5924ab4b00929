"""The "one word, two contexts" explorable as a student uses it: served, after the server stopped, and saved."""

from __future__ import annotations

import pytest

from attention_explorable.views import contexts as view

from .pages import MODES, eventually, explorable_page, text_of, wait_text

pytestmark = pytest.mark.browser

READY = ".ae-contexts-input"


@pytest.fixture(scope="module")
def saved_contexts(static_site):
    return static_site / "contexts.html"


@pytest.fixture(params=MODES)
def contexts_page(request, contexts_server, saved_contexts, student):
    with explorable_page(request.param, student, ready=READY, server=contexts_server, saved=saved_contexts) as s:
        yield s


def test_student_predicts_then_masks_the_second_sentence(contexts_page, request):
    s, page = contexts_page, contexts_page.page
    wait_text(page, READY, r"\[1\.00, 1\.00, 0\.00\]")
    assert "[1.46" not in text_of(page, ".ae-contexts-outputs")  # the answer waits
    page.locator(".ae-contexts-prediction button", has_text="动词“发布”").click()
    page.locator(".ae-contexts-check button").click()
    wait_text(page, ".ae-contexts-feedback", "预测对了")
    fruit, company = (view.read({"causal": False}, view.contexts_config("zh"), c)[2] for c in view.CONTEXTS)
    shown = text_of(page, ".ae-contexts-outputs")
    assert "[{:.2f}, {:.2f}, {:.2f}]".format(*fruit) in shown and "[{:.2f}, {:.2f}, {:.2f}]".format(*company) in shown
    assert "偏向“水果”" in shown and "偏向“公司”" in shown
    s.screenshot(f"contexts-answered-1280-{request.node.callspec.id}")
    page.locator(".ae-contexts-causal input").click()
    wait_text(page, ".ae-contexts-outputs", r"\[1\.00, 1\.00, 0\.00\]")
    # (a live page receives its outputs and its notes as two patches)
    eventually(page, lambda: _assert_in("两边持平", text_of(page, ".ae-contexts-outputs")))
    eventually(page, lambda: _assert_in("发布", text_of(page, ".ae-contexts-notes")))
    s.assert_clean()


def _assert_in(needle: str, text: str) -> None:
    assert needle in text, (needle, text)


def test_phone_has_no_sideways_scroll(contexts_server, student):
    s = student(width=360, height=780, mobile=True)
    s.open(contexts_server.url(), READY)
    s.page.locator(".ae-contexts-skip button").tap()
    wait_text(s.page, ".ae-contexts-outputs", r"\[1\.46, 0\.34, 0\.16\]")
    s.assert_fits_phone("contexts-360")
    contexts_server.assert_clean_log()

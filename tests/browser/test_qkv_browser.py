"""The "from X to the output" explorable as a student uses it: served, after the server stopped, and saved.

Each control is clicked as a student would; every number on the page is read
back and compared with the core's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from attention_explorable.views import qkv as view

from .pages import MODES, explorable_page, text_of, wait_text

pytestmark = pytest.mark.browser

READY = ".ae-qkv-output"
CONFIG = view.qkv_config("zh")
DEFAULT = {
    "w_q": "identity",
    "w_k": "identity",
    "w_v": "identity",
    "causal": False,
    "prediction": "",
    "revealed": False,
}


@pytest.fixture(scope="module")
def saved_qkv(static_site):
    return static_site / "qkv.html"


@pytest.fixture(params=MODES)
def qkv_page(request, qkv_server, saved_qkv, student):
    with explorable_page(request.param, student, ready=READY, server=qkv_server, saved=saved_qkv) as s:
        yield s


def output_of(page) -> list[list[float]]:
    cells = re.findall(r"[−-]?\d+\.\d+", text_of(page, ".ae-qkv-output"))
    return np.array([float(c.replace("−", "-")) for c in cells]).reshape(-1, 2).tolist()


def assert_shows(page, st: dict) -> None:
    """The output matrix and the weights' table on the page are those of the view of ``st``."""
    res = view.attend(st, CONFIG)
    wait_text(page, ".ae-qkv-output", r"\s*".join(re.escape(f"{x:.3f}") for x in res["output"].ravel()))
    assert output_of(page) == pytest.approx(res["output"], abs=6e-4)
    # The weights as the screen reader's table (written once the page settles), row by row.
    cells = ["—" if not res["mask"][i, j] else f"{res['weights'][i, j]:.2f}" for i in range(3) for j in range(3)]
    expect(page.locator(".ae-qkv-weights-data").first).to_contain_text(
        re.compile(r"[\sq₁₂₃]*".join(map(re.escape, cells)))
    )


def test_student_predicts_then_changes_every_projection(qkv_page, request):
    s, page = qkv_page, qkv_page.page
    st = dict(DEFAULT)
    assert_shows(page, st)
    # The module names the matrices as the text does, W with a subscript, in the question and the labels
    # (the Panel app's widgets take plain text).
    if request.node.callspec.id == "static":
        assert page.locator(".ae-qkv-question sub").all_text_contents() == ["Q", "K", "V"]
        assert page.locator(".ae-kind sub").all_text_contents() == ["Q", "K", "V"]
    # Predict first: nothing chosen is said; "weights change" is checked, judged, and W_V swapped.
    page.locator(".ae-qkv-check button").click()
    wait_text(page, ".ae-input-notice", "先选一个预测")
    page.locator(".ae-qkv-prediction button", has_text="权重变，输出不变").click()
    page.locator(".ae-qkv-check button").click()
    wait_text(page, ".ae-qkv-feedback", "和你的预测不一样")
    st.update(w_v="swap", prediction="weights", revealed=True)
    assert_shows(page, st)
    assert "[0.802, 0.599]" in text_of(page, ".ae-qkv-feedback")
    if request.node.callspec.id == "static":  # the answer's W_V with its subscript, not "W_V"
        assert "W_V" not in text_of(page, ".ae-qkv-feedback") and page.locator(".ae-qkv-feedback sub").count() >= 2
    s.screenshot(f"qkv-answered-1280-{request.node.callspec.id}")

    # W_Q doubled: every score doubles, row 1 sharpens; then the causal mask.
    page.locator(".ae-qkv-w-q button", has_text="放大 2 倍").click()
    st["w_q"] = "double"
    assert_shows(page, st)
    assert "0.45" in text_of(page, ".ae-qkv-weights-data")
    page.locator(".ae-qkv-causal input").click()
    st["causal"] = True
    wait_text(page, ".ae-qkv-notes", "因果掩码")
    assert_shows(page, st)
    page.locator(".ae-qkv-w-k button", has_text="只留第一维").click()
    st["w_k"] = "first"
    assert_shows(page, st)
    s.screenshot(f"qkv-causal-1280-{request.node.callspec.id}")
    s.assert_clean()


def test_phone_has_no_sideways_scroll(qkv_server, student):
    s = student(width=360, height=780, mobile=True)
    s.open(qkv_server.url(), READY)
    assert_shows(s.page, DEFAULT)
    s.page.locator(".ae-qkv-skip button").tap()
    assert_shows(s.page, {**DEFAULT, "w_v": "swap", "revealed": True})
    s.assert_fits_phone("qkv-360")
    qkv_server.assert_clean_log()

"""The benchmark scripts keep working: each runs in ``--smoke`` mode.

The scripts measure; they are not timed tests.  Here each one is run as a
subprocess with ``--smoke`` (seconds-long, a handful of sessions or presses)
and must exit with status 0 and print its ``FIGURES <name> {...}`` line with
figures that exist and are plausible.  The scripts run :data:`AT_ONCE` at a
time (they only use loopback and free ports), the longest first: together,
the file takes a minute or two, without a storm of browsers and servers that
would slow the rest of the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .conftest import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
#: Seconds one script may take, from its own start.
TIMEOUT_S = 240
#: Scripts running at the same time.
AT_ONCE = 3

#: script -> needs Chromium
SCRIPTS = {  # the longest first
    "latency": True,
    "lecture": True,
    "memory": False,
    "student_cost": True,
    "pageload": True,
    "head": True,
    "first_frame": True,
    "first_paint": True,
    "static_site": True,
    "textbook_floor": True,
    "classroom": False,
    "classroom_room": False,
    "burst": False,
    "proxy_check": False,
}
#: The scripts given the exported site (``--site``).
ON_THE_EXPORT = ("latency", "first_paint", "static_site", "first_frame", "textbook_floor")


def _chromium_available() -> bool:
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def _run(name: str, extra: list[str]) -> tuple[int, str]:
    """Run ``benchmarks/<name>.py --smoke``: (its exit status, its output); a script past :data:`TIMEOUT_S`
    is killed (with its process group) and says so."""
    proc = subprocess.Popen(
        [sys.executable, str(BENCH / f"{name}.py"), "--smoke", *extra],
        cwd=BENCH,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate(timeout=10)
        return -9, f"{name}.py --smoke did not finish in {TIMEOUT_S} s:\n{out}"
    return proc.returncode, out


@pytest.fixture(scope="module")
def smoke_runs(request):
    """Run every runnable script whose test is selected, :data:`AT_ONCE` at a time; yield name -> future
    of (exit status, output)."""
    browser = _chromium_available()
    selected = {item.name for item in request.session.items}
    runnable = [
        name
        for name, needs_browser in SCRIPTS.items()
        if (browser or not needs_browser) and f"test_{name}_smoke" in selected
    ]
    # The scripts that load exported pages load this process's export (the browser tests' own),
    # instead of each exporting the site again.
    site = request.getfixturevalue("static_site") if set(runnable) & set(ON_THE_EXPORT) else None
    with ThreadPoolExecutor(AT_ONCE) as pool:
        yield {
            name: pool.submit(_run, name, ["--site", str(site)] if name in ON_THE_EXPORT else []) for name in runnable
        }


def _result(smoke_runs, name: str) -> tuple[int, str]:
    code, out = smoke_runs[name].result()
    if code == -9:
        pytest.fail(out[-3000:])
    return code, out


def _figures(name: str, out: str) -> dict:
    lines = [ln for ln in out.splitlines() if ln.startswith(f"FIGURES {name} ")]
    assert lines, f"no 'FIGURES {name}' line in the output:\n{out[-3000:]}"
    return json.loads(lines[-1].split(" ", 2)[2])


def _check(smoke_runs, name: str) -> dict:
    if name not in smoke_runs:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Chromium not found at {CHROMIUM}; under CI=true browser tests must run", pytrace=False)
        pytest.skip(f"Chromium not found at {CHROMIUM}")
    code, out = _result(smoke_runs, name)
    assert code == 0, f"{name}.py --smoke exited with {code}:\n{out[-3000:]}"
    assert out.startswith("machine: "), out[:500]
    return _figures(name, out)


@pytest.mark.browser
def test_latency_smoke(smoke_runs):
    figures = _check(smoke_runs, "latency")
    assert figures["errors"] == 0
    assert "steps" not in figures["skipped"], figures["skipped"]
    row = figures["figures"]["steps"]
    for setup in ("served", "static"):
        r = row[setup]
        assert r["n"] == 4 and r["misses"] == 0, r
        # At least the keydown and one painted frame; at most the 5 s a miss takes.
        assert 0 < r["p50"] <= r["p95"] <= r["max"] < 5000, r
    assert row["ratio_p50"] == pytest.approx(row["served"]["p50"] / row["static"]["p50"], rel=0.05)


@pytest.mark.browser
def test_pageload_smoke(smoke_runs):
    figures = _check(smoke_runs, "pageload")
    assert figures["errors"] == 0
    row = figures["figures"]["textbook"]
    assert 0 < row["cold_ttfb"] <= row["first_readout"] <= row["first_interactive"] < 60_000, row


def test_classroom_smoke(smoke_runs):
    figures = _check(smoke_runs, "classroom")
    row = figures["figures"]["served"]
    assert row["errors"] == 0 and row["sessions"] == 3
    assert row["moves"] >= 3 * (row["seconds"] - 1)  # about one move per session per second
    assert 0 < row["p50"] <= row["p95"] <= row["max"] < 10_000, row
    assert row["cpu_ms_per_move"] is not None and row["cpu_ms_per_move"] >= 0


def test_memory_smoke(smoke_runs):
    figures = _check(smoke_runs, "memory")
    row = figures["figures"]["steps"]
    assert row["errors"] == 0 and row["sessions"] == 2 and row["drift_pct"] is not None
    assert 50 < row["idle_rss_mb"] < 2000 and -50 < row["mb_per_session"] < 100, row
    klass = figures["figures"]["serve.class"]
    assert klass["errors"] == 0 and klass["students"] == klass["joined"] == 10, klass
    assert 50 < klass["idle_rss_mb"] <= klass["after_leaving_rss_mb"] + 5 < 2000, klass
    # Ten students move the RSS by a few pages or one allocator arena: a sane figure, not yet the target's.
    assert -500 < klass["kb_per_student"] < 2000 and klass["target_kb"] == 100, klass


def test_proxy_check_smoke(smoke_runs):
    figures = _check(smoke_runs, "proxy_check")
    assert figures["ok"], figures
    if figures["proxy_skipped"]:  # no nginx or PostgreSQL here (under CI=true that is a failure above)
        return
    f = figures["figures"]["proxy"]
    assert f["pages_ok"] == 2 and 1 <= f["etags_per_page"] <= 2, f
    assert f["students"] == f["joined"] == f["acked"] == f["stored"] == f["instructor_count"] == 8, f
    assert f["followed_step"] == 8, f
    assert 0 < f["receipt_p50_ms"] <= f["receipt_p95_ms"] < 10_000, f
    assert len(f["sockets_per_backend"]) == 2 and sum(f["sockets_per_backend"].values()) == 8, f
    assert f["foreign_origin"] == [403, 403] and f["instructor_one_backend"], f
    assert f["one_address"]["refused"] >= 1 and f["one_address"]["admitted"] <= 6, f


@pytest.mark.browser
def test_static_site_smoke(smoke_runs):
    figures = _check(smoke_runs, "static_site")
    assert figures["errors"] == 0
    f = figures["figures"]
    # The site given (--site) is measured, its export not timed.
    assert f["export"]["seconds"] is None and 0 < f["index_mb"] <= f["export"]["site_mb"], f
    for page in ("index.html", "steps.html"):
        assert f[page]["aborted"] == 0 and 0 < f[page]["cold_ms"] < 60_000, f[page]


def test_burst_smoke(smoke_runs):
    figures = _check(smoke_runs, "burst")
    assert figures["errors"] == 0
    f = figures["figures"]
    assert f["students"] == 20 and f["rounds"] == 1 and 0 < f["median_s"] <= f["all_answered_s"] < 60, f
    assert 0 < f["cpu_ms_per_page"] < 1000, f


@pytest.mark.browser
def test_student_cost_smoke(smoke_runs):
    figures = _check(smoke_runs, "student_cost")
    assert figures["errors"] == 0 and figures["students"] == 2 and figures["stored"] == 3, figures
    # A student page asks for itself only: its styles and its script are inside it.
    assert len(figures["cpu_ms_each"]) == 2 and figures["requests_per_student"] == 1, figures
    # The server's CPU clock ticks in 10 ms: a student's figure is a multiple of it, and far below a second.
    assert 0 <= figures["cpu_ms_per_student"] < 1000 and figures["target_ms"] == 30, figures


def test_classroom_room_smoke(smoke_runs):
    figures = _check(smoke_runs, "classroom_room")
    row = figures["figures"]["sqlite.1proc"]
    assert row["students"] == 4 and row["stored"] == 4 and row["acked"] == 4 and row["errors"] == 0, row
    assert 0 < row["p50"] <= row["p95"] <= row["max"] < 10_000, row
    assert 0 <= row["count_after_last_s"] < 15, row
    close = row["close"]
    assert close["accepted_after_close"] == 0 and close["refused_closed"] == 4 and 0 <= close["told_s"] < 10, row
    assert row["fault"]["lost"] == 0 and row["fault"]["acked_before_kill"] + row["fault"]["unacked"] == 4, row
    assert row["server_log_errors"] == 0


def test_first_paint_smoke(smoke_runs):
    figures = _check(smoke_runs, "first_paint")["figures"]
    for page in ("steps.html desktop 1x", "index.html desktop 1x"):
        row = figures[page]
        assert row["errors"] == 0, row
        assert 0 < row["paint_ms"] < 60_000 and 0 < row["key_ms"] < 60_000, row


@pytest.mark.browser
def test_textbook_floor_smoke(smoke_runs):
    row = _check(smoke_runs, "textbook_floor")["1x"]
    assert all(0 < ms < 60_000 for ms in row["dcl"].values()), row
    assert set(row["dcl"]) == {"yardstick", "text only", "textbook", "first part"}, (
        row
    )  # (one load each: no ordering of times)
    assert all(0 < ms < 60_000 for ms in row["key"].values()), row
    assert set(row["key_from_start"]) == {"yardstick", "textbook"}, row
    assert all(0 < ms < 60_000 for ms in row["key_from_start"].values()), row


def test_first_frame_smoke(smoke_runs):
    row = _check(smoke_runs, "first_frame")["figures"]["steps.html"]
    assert 0 < row["to_fcp_ms"] < 60_000 and row["ParseHTML"] > 0, row
    assert all(row[name] >= 0 for name in ("Layout", "v8.evaluateModule", "EvaluateScript")), row


def test_lecture_smoke(smoke_runs):
    out = _check(smoke_runs, "lecture")["figures"]
    assert out["students"] == 6 and out["browser_pages"] == 2, out
    assert out["round_1"]["acked"] == 6 and 0 < out["round_1"]["receipt_p50_ms"] < 10_000, out
    assert out["close"]["accepted_after_close"] == 0 and out["check"]["after_close"] == 0, out
    assert out["reload"]["answered"] == 2, out
    assert out["check"]["acked_lost"] == 0 and out["check"]["round_1_rows"] == out["check"]["round_2_rows"] == 6, out
    assert 0 <= out["fault"]["reconnect_max_s"] < 60 and out["fault"]["instructor_logged_in"], out
    assert out["fault"]["projector_back_s"] is not None and 0 <= out["fault"]["projector_back_s"] < 60, out
    assert out["compare"], out
    assert out["check"]["server_log_errors"] == 0, out["check"]["server_log_error_lines"]


@pytest.mark.browser
def test_head_smoke(smoke_runs):
    figures = _check(smoke_runs, "head")
    assert figures["seeds"] == 1 and 0.0 <= figures["min_accuracy"] <= 1.0
    assert figures["min_ratio"] > 0 and 0 < figures["ms_300_steps_1x"] < 60_000, figures
    assert 0 < figures["page_gzip_kb"] < 150, figures
    assert figures["page_accuracies_equal"] is True, figures
    assert figures["key_while_training_misses_1x"] == 0 and 0 < figures["key_while_training_p50_ms_1x"] < 5000, figures
    assert figures["long_tasks_over_50ms_1x"] >= 0, figures

"""Student pages as files (attention_explorable.page_server), against ``attention-explorable serve`` itself.

Each page is built once and answered from memory: gzipped on request, with an
ETag that a revalidation answers with 304, in the language of ``?lang=``,
else of the reader's cookie, else Chinese; the shared scripts under
content-hashed names, cached for good. A lecture hall's worth of students
asking at the same moment, each from its own address, all get the page.
(How fast: ``benchmarks/burst.py``.)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import http.client
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from attention_explorable import page_server
from attention_explorable.apps import APPS
from attention_explorable.modules import MODULES

from .classroom import run_coroutine

PAGES = [*APPS, *MODULES]


@pytest.fixture(scope="module")
def server(served_cli):
    return served_cli.port, served_cli.log


def get(port: int, path: str, headers: dict | None = None, source: str = "127.0.0.1"):
    """(status, headers, body bytes as sent) of a GET of ``path`` from the loopback address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("app", PAGES)
def test_each_page_is_a_file_gzipped_with_an_etag_and_revalidated_with_304(server, app):
    port, _ = server
    status, headers, body = get(port, f"/{app}?room=ABCDEF&step=3", {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "no-cache" and headers["content-type"].startswith("text/html")
    page = gzip.decompress(body).decode()
    assert '<html lang="zh-Hans">' in page
    assert re.search(r'<meta name="description" content="[^"]{20,}">', page)  # what a search result shows
    plain = get(port, f"/{app}")
    assert "content-encoding" not in plain[1] and plain[2].decode() == page  # the query changes nothing
    again = get(port, f"/{app}", {"If-None-Match": headers["etag"]})
    assert again[0] == 304 and again[2] == b""
    assert get(port, f"/{app}", {"If-None-Match": '"stale"'})[0] == 200


def test_the_textbooks_notebooks_are_files_beside_it(server):
    from attention_explorable import notebooks

    port, _ = server
    page = get(port, "/textbook?lang=en")[2].decode()
    href = re.search(r"class='ae-notebook' href='([^']+)'", page).group(1)
    assert href == notebooks.notebook_href("sec-3-7", "en") and "data:" not in page.split("ae-notebook")[1][:80]
    status, headers, body = get(port, f"/{href}", {"Accept-Encoding": "gzip"})  # as the browser resolves it
    assert status == 200 and headers["content-type"] == "application/x-ipynb+json"
    assert gzip.decompress(body).decode() == notebooks.notebook_json("sec-3-7", "en")
    assert get(port, "/textbook/notebooks/attention-sec-3-7-en.ipynb")[0] == 200  # the link, on /textbook/
    assert get(port, "/notebooks/attention-sec-9-9-en.ipynb")[0] == 404
    assert get(port, "/notebooks/attention-sec-3-7-fr.ipynb")[0] == 404


def test_the_language_is_the_query_then_the_cookie_then_chinese(server):
    port, _ = server

    def lang(path, cookie=None):
        _, headers, body = get(port, path, {"Cookie": cookie} if cookie else {})
        assert "Cookie" in headers["vary"]
        return re.search(r'<html lang="([^"]+)"', body.decode()).group(1)

    assert lang("/steps") == "zh-Hans"
    assert lang("/steps?lang=en") == "en"
    assert lang("/steps", "ae-lang=en") == "en"
    assert lang("/steps?lang=zh", "ae-lang=en") == "zh-Hans"
    assert lang("/steps?lang=fr", "ae-lang=xx") == "zh-Hans"


def test_the_index_is_in_the_readers_language_and_remembers_a_chosen_one(server):
    port, _ = server
    status, headers, body = get(port, "/?lang=en")
    assert status == 200 and '<html lang="en">' in body.decode() and "ae-lang=en" in headers["set-cookie"]
    assert all(f'href="{app}?lang=en"' in body.decode() for app in PAGES)
    assert '<html lang="zh-Hans">' in get(port, "/")[2].decode()


@pytest.mark.parametrize("path", ["/steps", "/textbook"])
def test_a_page_needs_nothing_else(server, path):
    # A student page is its explorables themselves: its elements, its styles and its script, inline; the
    # textbook loads its explorables' modules from one file of this server beside it, and nothing else.
    port, _ = server
    page = get(port, path)[2].decode()
    assert "assets/" not in page and "bokeh" not in page.lower().replace("window.bokeh", "")
    assert re.search(r"""data-ae-render=['"]steps['"]""", page)  # the steps module, rendered by the page's own script
    loaded = re.findall(r"<script[^>]* src=\"([^\"]*)\"", page)
    assert loaded == (["attention-textbook.js"] if path == "/textbook" else [])
    assert get(port, "/assets/attention-explorable/bokeh-panel.min.000000000000.js")[0] == 404
    assert get(port, "/nothing-here")[0] == 404


def test_the_textbooks_script_is_a_file_beside_it_that_its_policy_allows(server):
    from attention_explorable.native import textbook_script

    port, _ = server
    status, headers, page = get(port, "/textbook?lang=en")
    assert status == 200 and "script-src 'self' 'sha256-" in headers["content-security-policy"]
    assert len(page) <= 300_000  # the long page stays small: its modules come once, in the script file
    assert len(get(port, "/textbook")[2]) <= 300_000  # the Chinese edition, the longer, too
    # How a folded box opens is said at the first box; that code runs in the notebook, under each section's
    # first code block (two sections): not under every one.
    from attention_explorable.textbook import code_note, open_hint

    assert page.count(open_hint("en").encode()) == 1 and page.count(b"ae-open-hint") == 1
    assert page.count(code_note("en").encode()) == 2 and page.count(b"<pre class='ae-code'>") >= 5
    for path in (
        "/attention-textbook.js",
        "/textbook/attention-textbook.js",
    ):  # as the browser resolves it on /textbook and /textbook/
        status, headers, body = get(port, path, {"Accept-Encoding": "gzip"})
        assert status == 200 and headers["content-type"] == "text/javascript; charset=utf-8"
        assert headers["cache-control"] == "no-cache" and headers["x-content-type-options"] == "nosniff"
        assert gzip.decompress(body).decode() == textbook_script()
        assert get(port, path, {"If-None-Match": headers["etag"]})[0] == 304
    assert "window.aeModules" in textbook_script() and textbook_script().rstrip().endswith("null, 1);")
    assert get(port, "/steps.js")[0] == 404  # only the textbook loads a script file
    # The other pages need none: their policy keeps to their own inline scripts.
    assert "'self'" not in get(port, "/steps")[1]["content-security-policy"].split("script-src")[1].split(";")[0]


def test_a_lecture_hall_asking_at_the_same_moment_all_get_the_page(server):
    port, log = server
    n = 150
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        answers = list(
            pool.map(
                lambda i: get(port, "/steps?room=ABCDEF", {"Accept-Encoding": "gzip"}, f"127.0.0.{i + 2}"), range(n)
            )
        )
    assert [a[0] for a in answers] == [200] * n
    assert len({a[2] for a in answers}) == 1  # one file, the same for every student
    assert "Traceback" not in log.read_text()


def test_a_page_still_being_built_is_waited_for():
    cache = page_server.PageCache()

    async def run():
        waiting = asyncio.ensure_future(cache.get("steps", "en"))
        await asyncio.sleep(0.2)  # a moment in which a wait that did not wait would have ended
        assert not waiting.done()
        cache._keep("steps", "en", "<html>built</html>")
        return await asyncio.wait_for(waiting, 2)

    page = run_coroutine(run())
    assert page.body == b"<html>built</html>" and page.gzipped and page.etag.startswith('"')


def test_a_fresh_builder_process_builds_the_page_the_export_writes():
    """serve's builder is a fresh process; the export builds a page after others: the same bytes either way
    (a page's models are named in the order the page meets them, not by what the process made before)."""
    build = "sys.stdout.write(site.build_page('matrix', 'zh'))"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    fresh, after = [
        subprocess.run(
            [sys.executable, "-c", f"from attention_explorable import site; import sys; {setup}{build}"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
        for setup in ("", "site.build_page('steps', 'en'); site.build_page('textbook', 'zh'); ")
    ]
    assert fresh == after and len(fresh) > 10_000


def test_two_servers_build_the_same_page_byte_for_byte():
    """Behind a proxy with several backends, one page has one ETag (ids derived from the page, a fixed hash seed)."""
    code = "from attention_explorable import site; import sys; sys.stdout.write(site.build_page('steps', 'en'))"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    pages = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
        for _ in range(2)
    ]
    assert pages[0] == pages[1] and len(pages[0]) > 10_000
    assert not re.search(r'id="[0-9a-f]{8}-[0-9a-f]{4}-4', pages[0])  # no random (version 4) ids left


def test_built_pages_are_kept_on_disk_for_the_next_start_under_a_key_of_what_they_are_made_of(tmp_path, monkeypatch):
    first = page_server.PageCache(tmp_path)
    built = {f"{app}-{lang}": f"<html>{app} {lang}</html>" for app, lang in first.order()}
    first._store_cached(built)
    again = page_server.PageCache(tmp_path)
    assert again._load_cached(None)  # the next start reads them: no build
    assert run_coroutine(again.get("matrix", "en")).body == b"<html>matrix en</html>"
    monkeypatch.setattr(page_server, "build_key", lambda: "another-key")  # changed code, text or libraries
    assert not page_server.PageCache(tmp_path)._load_cached(None)


def test_servers_started_together_build_the_pages_once(tmp_path, monkeypatch):
    """The first start builds; one started meanwhile waits for it and reads its pages."""
    builds = []

    def slow_build(cache, progress):
        builds.append(cache)
        time.sleep(0.5)  # a build that takes a while, so that the second start comes during it
        built = {f"{app}-{lang}": f"<html>{app} {lang}</html>" for app, lang in cache.order()}
        for (app, lang), page in zip(cache.order(), built.values()):
            cache._keep(app, lang, page)
        cache._store_cached(built)

    monkeypatch.setattr(page_server.PageCache, "_build_all", slow_build)
    caches = [page_server.PageCache(tmp_path) for _ in range(3)]
    threads = [threading.Thread(target=c.build) for c in caches]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(builds) == 1
    for cache in caches:
        assert run_coroutine(cache.get("vector", "zh")).body == b"<html>vector zh</html>"


def test_the_cache_keeps_the_newest_builds_only(tmp_path, monkeypatch):
    built = {f"{app}-{lang}": "<html></html>" for app, lang in page_server.PageCache(None).order()}
    n = page_server.KEEP_BUILDS + 3
    for i in range(n):
        monkeypatch.setattr(page_server, "build_key", lambda i=i: f"build{i}")
        page_server.PageCache(tmp_path)._store_cached(built)
        os.utime(tmp_path / f"build{i}", (1_000_000 + i, 1_000_000 + i))
    left = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    # The one just stored, and the newest KEEP_BUILDS of the others.
    assert left == sorted(f"build{i}" for i in range(n - 1 - page_server.KEEP_BUILDS, n))


def test_a_cache_of_some_pages_builds_those_and_is_kept_apart(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match=r"only must name pages among .*'nowhere'"):
        page_server.PageCache(only=["nowhere"])
    some = page_server.PageCache(tmp_path, only=["textbook", "matrix"])
    assert some.order() == [("matrix", "zh"), ("matrix", "en"), ("textbook", "zh"), ("textbook", "en")]
    assert some._cached() != page_server.PageCache(tmp_path)._cached()  # a full start never reads a part


def _ask(port: int, method: str, path: str, headers: dict):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize(
    "encoding, gzipped",
    [
        ("gzip;q=0", False),
        ("gzip;q=0, *", False),
        ("identity", False),
        ("*", True),
        ("br;q=1, gzip;q=0.5", True),
        ("GZIP", True),
    ],
)
def test_gzip_is_sent_only_when_the_client_takes_it(server, encoding, gzipped):
    port, _ = server
    status, headers, body = get(port, "/steps", {"Accept-Encoding": encoding})
    assert status == 200 and (headers.get("content-encoding") == "gzip") is gzipped
    page = gzip.decompress(body) if gzipped else body
    assert page.startswith(b"<!DOCTYPE html>") or page.lstrip().lower().startswith(b"<!doctype html>")


def test_if_none_match_is_read_as_a_list_with_star_and_weak_tags(server):
    port, _ = server
    _, headers, _ = get(port, "/steps")
    etag = headers["etag"]
    for value in ("*", f'"nope", {etag}', f"W/{etag}"):
        assert get(port, "/steps", {"If-None-Match": value})[0] == 304, value
    assert get(port, "/steps", {"If-None-Match": '"nope"'})[0] == 200


@pytest.mark.parametrize("path", ["/", "/steps", "/textbook"])
def test_head_answers_the_headers_of_get_without_a_body(server, path):
    port, _ = server
    status, headers, body = _ask(port, "HEAD", path, {"Accept-Encoding": "gzip"})
    got_status, got_headers, got_body = get(port, path, {"Accept-Encoding": "gzip"})
    assert status == got_status == 200 and body == b""
    assert headers["etag"] == got_headers["etag"] and int(headers["content-length"]) == len(got_body)


def test_the_build_key_is_the_same_in_every_process():
    """Kept pages are found again after a restart, and servers started together share one build: the key
    of what a page is made from depends on the files, not on the process (no object's address in it)."""
    code = "from attention_explorable.page_server import build_key; print(build_key())"
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()}
    keys.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip())
    assert keys == {page_server.build_key()}, keys

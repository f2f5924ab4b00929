"""The command-line interface and the app registry."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from attention_explorable import cli
from attention_explorable.apps import APPS

ROOT = Path(__file__).resolve().parents[1]


def test_every_app_file_is_registered_and_textbook_comes_first():
    files = sorted(p.stem for p in (ROOT / "apps").glob("*.py"))
    assert files == sorted(APPS)
    assert next(iter(APPS)) == "textbook"


def test_list_prints_every_app(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"/{name}" for name in APPS]


def test_taken_port_gives_one_line_error_and_status_2():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = subprocess.run(
            [sys.executable, "-m", "attention_explorable.cli", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and f"port {port}" in lines[0] and "already in use" in lines[0]


def test_bad_port_number():
    assert cli.main(["serve", "--port", "70000"]) == 2


def test_listen_problem_tells_a_free_port_from_a_taken_one():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.listen()
        assert "already in use" in cli.listen_problem("127.0.0.1", port)
    assert cli.listen_problem("127.0.0.1", port) is None


@pytest.mark.parametrize(
    "args, says",
    [
        (["--address", "10.9.9.9"], "--address 10.9.9.9 is not an address of this machine"),
        (["--address", "not-a-host.invalid"], "--address 'not-a-host.invalid' is not a known host name"),
        (["--num-procs", "-3"], "--num-procs must be 0 (one per core) or more, got -3"),
    ],
)
def test_bad_serve_options_give_one_line_errors_and_status_2(args, says):
    res = subprocess.run(
        [sys.executable, "-m", "attention_explorable.cli", "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr, res.stderr


def test_export_into_a_file_is_a_one_line_error(tmp_path, capsys):
    from attention_explorable.cli import main

    target = tmp_path / "taken"
    target.write_text("not a folder")
    assert main(["export", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists and is not a folder" in err and str(target) in err
    assert target.read_text() == "not a folder"


def test_export_no_index_keeps_the_folders_own_index_and_names_the_textbook(tmp_path, capsys):
    """A course site's folder keeps its index.html; the textbook is textbook.html, in both languages, each
    page's language switch pointing at its twin."""
    (tmp_path / "index.html").write_text("<p>the course site's own page</p>", encoding="utf-8")
    assert cli.main(["export", str(tmp_path), "--no-index"]) == 0
    assert "textbook.html" in capsys.readouterr().out
    assert (tmp_path / "index.html").read_text(encoding="utf-8") == "<p>the course site's own page</p>"
    assert not (tmp_path / "en" / "index.html").exists()
    zh, en = (tmp_path / "textbook.html").read_text("utf-8"), (tmp_path / "en" / "textbook.html").read_text("utf-8")
    assert 'lang="zh-Hans"' in zh and 'lang="en"' in en
    assert "en/textbook.html" in zh and "../textbook.html" in en
    assert (tmp_path / "steps.html").is_file() and (tmp_path / "attention-explorable.js").is_file()

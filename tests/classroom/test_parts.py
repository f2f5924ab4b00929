"""The class's small parts: the instructor's cookie, the addresses, the session cap, the spread, serve's options."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from attention_explorable import cli
from attention_explorable.classroom import context as config, network, stats
from attention_explorable.classroom.limits import SessionCap

from ..conftest import ROOT


def test_the_cookie_carries_a_session_signed_for_the_secret_and_expires():
    session = "s" * 32
    value = config.signed_cookie("secret-one", session)
    assert config.cookie_session(value, "secret-one") == session
    assert config.cookie_session(value, "secret-two") is None  # another secret: another signing key
    assert b"secret-one" not in value
    assert config.cookie_session(value.replace(b"c3Nzc3Nz", b"dHR0dHR0"), "secret-one") is None
    assert config.cookie_session("", "secret-one") is None and config.cookie_session("junk|1|2", "secret-one") is None
    assert config.cookie_session(value, "") is None  # no secret set: no cookie is valid
    with pytest.raises(ValueError, match="session must be a session id"):
        config.signed_cookie("secret-one", "instructor")
    later = time.time() + config.COOKIE_DAYS * 86400 + 60
    from unittest import mock

    with mock.patch("time.time", return_value=later):
        assert config.cookie_session(value, "secret-one") is None


def test_a_session_is_open_until_closed_or_old(tmp_path):
    from attention_explorable.classroom.store import SESSION_S, Store

    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        one, two = store.open_session(now=1000.0), store.open_session(now=1000.0)
        assert one != two and store.session_open(one, now=1001.0) and store.session_open(two, now=1001.0)
        store.close_session(one)  # one browser logs out; the other stays in
        assert not store.session_open(one, now=1001.0) and store.session_open(two, now=1001.0)
        assert not store.session_open(two, now=1000.0 + SESSION_S + 1)
        assert not store.session_open("x" * 32, now=1001.0)
    finally:
        store.close()


def test_the_secret_is_compared_exactly():
    assert config.key_matches("abc", "abc") and not config.key_matches("abd", "abc")
    assert not config.key_matches("", "") and not config.key_matches("abc", "")


def test_lan_addresses_leave_out_loopback_and_link_local(monkeypatch):
    class Ip:
        def __init__(self, ip):
            self.ip, self.is_IPv4 = ip, isinstance(ip, str)

    class Adapter:
        def __init__(self, *ips):
            self.ips = [Ip(i) for i in ips]

    monkeypatch.setattr(
        network.ifaddr,
        "get_adapters",
        lambda: [
            Adapter("127.0.0.1", ("::1", 0, 0)),
            Adapter("192.168.1.20", ("fe80::1", 0, 2)),
            Adapter("169.254.3.4"),
            Adapter("10.0.0.5"),
        ],
    )
    assert network.lan_addresses() == ["10.0.0.5", "192.168.1.20"]
    assert network.reachable_hosts("0.0.0.0") == ["localhost", "127.0.0.1", "10.0.0.5", "192.168.1.20"]
    assert network.student_hosts("0.0.0.0") == ["10.0.0.5", "192.168.1.20"]
    assert network.reachable_hosts("127.0.0.1") == ["localhost", "127.0.0.1"]


def test_session_cap_counts_per_client_and_zero_means_none():
    cap = SessionCap(2)
    assert cap.admit("a") and cap.admit("a") and not cap.admit("a") and cap.admit("b")
    cap.release("a")
    assert cap.admit("a")
    unlimited = SessionCap(0)
    assert all(unlimited.admit("a") for _ in range(100))


def test_spread_and_histogram():
    s = stats.spread([5.5, 6.0, 6.5, 9.0], answer=6.0, within=0.5)
    assert s == {"n": 4, "median_gap": 0.5, "share_within": 0.75}
    # The steps' own rule (0.25, the page's verdict): 5.5 and 6.5 are out; 6.2 is in.
    assert stats.spread([5.5, 6.0, 6.2, 6.5], answer=6.0)["share_within"] == 0.5 == 2 / 4
    assert stats.spread([], 6.0)["median_gap"] is None
    h = stats.histogram([6.0, 6.2, 6.25, 9.05, -20.0, 20.0, 19.0])
    assert sum(h["count"]) == 7
    assert all(right - left == pytest.approx(stats.BIN_WIDTH) for left, right in zip(h["left"], h["right"]))
    # The outliers are counted at the edges, so the axis stays near the values 2 and 10.
    assert (h["left"][0], h["right"][-1]) == (1.25, 10.75) and (h["edge"][0], h["edge"][-1]) == ("below", "above")
    assert (h["count"][0], h["count"][-1]) == (1, 2) and h["edge"][1:-1] == [""] * (len(h["edge"]) - 2)
    bar = {(left + right) / 2: count for left, right, count in zip(h["left"], h["right"], h["count"])}
    assert bar[6.0] == 2 and bar[6.5] == 1 and bar[9.0] == 1  # an exact answer in the middle of its bar
    plain = stats.histogram([2.0, 10.0])
    assert plain["left"][0] == 1.75 and plain["right"][-1] == 10.25 and "below" not in plain["edge"]
    with pytest.raises(ValueError, match="width must be a positive number, got 0"):
        stats.histogram([], width=0)


def cli_limit() -> int:
    from attention_explorable.classroom.limits import DEFAULT_LIMIT

    return DEFAULT_LIMIT


def test_origins_extend_the_defaults_and_lan_urls_are_printed(monkeypatch, tmp_path):
    monkeypatch.setattr(network, "lan_addresses", lambda: ["192.168.1.20"])
    for name in (cli.DB_ENV, cli.KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    args = cli._parser().parse_args(
        [
            "serve",
            "--address",
            "0.0.0.0",
            "--port",
            "8080",
            "--db",
            f"sqlite:///{tmp_path / 'c.db'}",
            "--allow-websocket-origin",
            "class.example.org",
            "--instructor-key-file",
            str(tmp_path / "key"),
        ]
    )
    problem, served = cli._prepare_class(args)
    assert problem is None
    assert served["origins"] == ["localhost:8080", "127.0.0.1:8080", "192.168.1.20:8080", "class.example.org"]
    assert served["hosts"] == ["192.168.1.20"] and served["key"]  # a secret made (and kept) at the first start
    context = served["context"]
    assert context.public_urls == ("http://192.168.1.20:8080",)
    assert context.key_matches(served["key"]) and context.cap.limit == cli_limit()
    assert not {cli.DB_ENV, cli.KEY_ENV, "AE_PUBLIC_URLS"} & set(
        os.environ
    )  # nothing handed on through the environment


def test_a_given_secret_is_not_printed(monkeypatch, tmp_path):
    monkeypatch.delenv(cli.KEY_ENV, raising=False)
    args = cli._parser().parse_args(
        ["serve", "--db", f"sqlite:///{tmp_path / 'c.db'}", "--instructor-key", "mine-and-long"]
    )
    problem, served = cli._prepare_class(args)
    assert problem is None and served["key"] is None and served["context"].instructor_key == "mine-and-long"


def test_a_secret_on_the_command_line_is_warned_of_and_one_from_a_file_or_the_environment_is_not(
    monkeypatch, tmp_path, capsys
):
    for name in (cli.DB_ENV, cli.KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    key_file = tmp_path / "my-key"
    key_file.write_text("  a-secret-of-mine-42  \n")
    problem, served = cli._prepare_class(
        cli._parser().parse_args(["serve", *db, "--instructor-key-file", str(key_file)])
    )
    assert problem is None and served["key"] is None and served["kept_in"] is None  # nothing to print or keep
    assert served["context"].key_matches("a-secret-of-mine-42") and not served["context"].key_matches("  a-secret")
    assert key_file.read_text() == "  a-secret-of-mine-42  \n"  # read, never overwritten
    monkeypatch.setenv(cli.KEY_ENV, "from-the-environment")
    problem, served = cli._prepare_class(cli._parser().parse_args(["serve", *db]))
    assert problem is None and served["context"].key_matches("from-the-environment")
    assert "warning" not in capsys.readouterr().err
    args = cli._parser().parse_args(["serve", *db, "--instructor-key", "on-the-command-line"])
    problem, served = cli._prepare_class(args)
    err = capsys.readouterr().err
    assert problem is None and served["context"].key_matches("on-the-command-line")
    assert "warning: --instructor-key shows the secret" in err and "process list" in err and cli.KEY_ENV in err
    assert "on-the-command-line" not in err
    monkeypatch.delenv(cli.KEY_ENV)
    key_file.write_text("short\n")
    problem, _ = cli._prepare_class(cli._parser().parse_args(["serve", *db, "--instructor-key-file", str(key_file)]))
    assert problem.startswith(f"--instructor-key-file {str(key_file)!r} is too short (5 characters)"), problem


def test_the_secret_and_database_may_come_from_the_environment(monkeypatch, tmp_path):
    url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv(cli.KEY_ENV, "from-env-secret")
    monkeypatch.setenv(cli.DB_ENV, url)
    problem, served = cli._prepare_class(cli._parser().parse_args(["serve"]))
    assert problem is None and served["key"] is None
    assert served["context"].instructor_key == "from-env-secret" and served["context"].database_url == url


@pytest.mark.parametrize(
    "args, says",
    [
        (["--db", "nonsense"], "--db 'nonsense' is not a database URL"),
        (["--db", "postgresql+psycopg://nobody@127.0.0.1:1/none"], "cannot open the database"),
        (["--max-sessions-per-client", "-1"], "--max-sessions-per-client must be 0 (no limit) or more, got -1"),
        (["--instructor-key", "1"], "--instructor-key is too short (1 characters): an instructor secret needs"),
        (["--instructor-key", "eleven-char"], "--instructor-key is too short (11 characters)"),
        (["--instructor-key", ""], "--instructor-key is too short (0 characters)"),
        ([], "$AE_INSTRUCTOR_KEY is too short (5 characters)"),
    ],
)
def test_bad_class_options_give_one_line_errors(args, says, tmp_path):
    env = {**os.environ, "AE_DB": f"sqlite:///{tmp_path / 'c.db'}", cli.KEY_ENV: "short"}
    res = subprocess.run(
        [sys.executable, "-m", "attention_explorable.cli", "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr, res.stderr


def test_the_readme_class_command_allows_no_origin_wildcard():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## For instructors", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert any("serve --address 0.0.0.0" in c for c in commands)
    assert "'*'" not in section and '"*"' not in section


def test_a_secret_the_server_made_survives_a_restart_kept_hashed(monkeypatch, tmp_path):
    """A restart mid-lecture: the same secret still logs in, the cookie of before is still valid, and
    the file holds a salted hash, not the secret (readable by this user only)."""
    import os
    import stat

    for name in (cli.DB_ENV, cli.KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    key_file = tmp_path / "data" / "instructor-key"
    argv = ["serve", "--db", f"sqlite:///{tmp_path / 'c.db'}", "--instructor-key-file", str(key_file)]
    problem, first = cli._prepare_class(cli._parser().parse_args(argv))
    assert problem is None and first["key"]
    session = first["context"].store().open_session()
    secret, cookie = first["key"], first["context"].signed_cookie(session)
    assert secret not in key_file.read_text() and stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    problem, second = cli._prepare_class(cli._parser().parse_args(argv))  # the restart
    assert problem is None and second["key"] is None  # nothing new to print
    again = second["context"]
    assert again.key_matches(secret) and not again.key_matches(secret + "x") and not again.key_matches("")
    assert again.cookie_session(cookie) == session
    # The key file does not sign a cookie: neither its record nor, written there by a person, the secret.
    assert again.cookie_session(config.signed_cookie(key_file.read_text().strip(), session)) is None
    assert again.cookie_session(config.signed_cookie(secret, session)) is None
    other_db = ["serve", "--db", f"sqlite:///{tmp_path / 'other.db'}", "--instructor-key-file", str(key_file)]
    problem, elsewhere = cli._prepare_class(cli._parser().parse_args(other_db))  # same file, another database
    assert problem is None and elsewhere["context"].key_matches(secret)
    assert elsewhere["context"].cookie_session(cookie) is None  # its cookie key is that database's own
    key_file.unlink()  # deleted: a new secret, and the old one no longer works
    problem, third = cli._prepare_class(cli._parser().parse_args(argv))
    assert third["key"] and third["key"] != secret and not third["context"].key_matches(secret)
    assert third["context"].cookie_session(cookie) is None

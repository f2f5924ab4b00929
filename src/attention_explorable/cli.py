"""Command-line interface: ``attention-explorable serve``, ``export`` and ``list``.

Examples
--------
Serve every app on port 5006 of this machine and open a browser::

    attention-explorable serve --show

Write the static site (open ``site/index.html``; no server needed)::

    attention-explorable export site --language zh

Serve a classroom on the local network (prints the addresses students use,
the instructor's URL and, unless given, a fresh instructor secret)::

    attention-explorable serve --address 0.0.0.0 --port 8080
"""

from __future__ import annotations

import argparse
import errno
import functools
import socket
import sys

from .explorables import app_names  # (not Panel: a usage error is said at once)

PROG = "attention-explorable"
#: The environment variables ``serve`` reads for its options' defaults (the person starting it sets
#: them, e.g. to keep the secret out of the shell's history): the database URL and the instructor secret.
DB_ENV = "AE_DB"
KEY_ENV = "AE_INSTRUCTOR_KEY"
#: Connections the server's socket queues before it accepts them (a lecture hall at once).
LISTEN_BACKLOG = 2048
#: The largest message the instructor's session socket takes, in bytes.
INSTRUCTOR_MESSAGE_BYTES = 1 << 20


def listen_problem(address: str, port: int) -> str | None:
    """Why the server could not listen on ``address``:``port``, as one line; None when it can.

    Resolves ``address`` and binds a socket to it, as the server would: an
    unknown host name, an address that is not this machine's, or a port in
    use each give a sentence naming the option and the value.
    """
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, ValueError):
        return f"--address {address!r} is not a known host name or IP address"
    family, _, _, _, sockaddr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(sockaddr)
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES) and port:
                return f"port {port} on {address} is already in use; choose another with --port"
            if exc.errno == errno.EADDRNOTAVAIL:
                return (
                    f"--address {address} is not an address of this machine; use 127.0.0.1, "
                    f"0.0.0.0 (every network) or one of this machine's addresses"
                )
            return f"cannot listen on {address} port {port}: {exc.strerror}"
    return None


def _export(directory: str, language: str, index: bool = True) -> int:
    from pathlib import Path

    from .site import export_site

    target = Path(directory)
    try:
        report = export_site(target, language=language, progress=sys.stdout, index=index)
    except ValueError as exc:  # the folder is a file
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{PROG}: error: cannot write the site into {directory!r}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    first = (target / ("index.html" if index else "textbook.html")).resolve()
    print(
        f"{PROG}: wrote {len(report.files)} files ({report.bytes / 1e6:.1f} MB) in {report.seconds:.1f} s; "
        f"open {first.as_uri()}"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Interactive attention explorables (course sections 3.7 and 3.8)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve every app: " + ", ".join(app_names()))
    serve.add_argument("--port", type=int, default=5006, help="port to listen on (default 5006)")
    serve.add_argument(
        "--address", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for a classroom)"
    )
    serve.add_argument("--show", action="store_true", help="open the first app in a browser")
    serve.add_argument(
        "--allow-websocket-origin",
        action="append",
        default=None,
        metavar="HOST[:PORT]",
        help="origin allowed to connect besides this machine's own addresses (repeatable; '*' allows any)",
    )
    serve.add_argument(
        "--num-procs",
        type=int,
        default=1,
        help="number of worker processes (0 = one per core); every page is built before they start",
    )
    _class_options(serve)
    export = sub.add_parser("export", help="write the static site: the textbook, each explorable, embeds")
    export.add_argument("directory", help="folder to write the site into (created if missing)")
    export.add_argument(
        "--language",
        choices=["zh", "en"],
        default="zh",
        help="language of the top pages and the embeds (default zh); the other language goes to DIR/en/ or DIR/zh/",
    )
    export.add_argument(
        "--no-index",
        dest="index",
        action="store_false",
        help="name the textbook textbook.html and write no index.html (a course site's own stays)",
    )
    sub.add_parser("list", help="list the apps and their URLs")
    return parser


def _class_options(serve: argparse.ArgumentParser) -> None:
    from .classroom.channel import NEW_STUDENTS_PER_MINUTE
    from .classroom.limits import DEFAULT_CONNECTIONS, DEFAULT_LIMIT

    serve.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="database of the class (SQLAlchemy URL; default: an SQLite file in your data folder; "
        "postgresql+psycopg://... for several processes or machines)",
    )
    serve.add_argument(
        "--instructor-key",
        metavar="SECRET",
        default=None,
        help="the instructor's secret for /instructor, 12 characters or more; it shows in the process list, "
        "so prefer $AE_INSTRUCTOR_KEY or --instructor-key-file (default: $AE_INSTRUCTOR_KEY, else the "
        "--instructor-key-file's)",
    )
    serve.add_argument(
        "--instructor-key-file",
        metavar="PATH",
        default=None,
        help="file of the instructor's secret: one you wrote there (its first line, read, never shown in the "
        "process list), else where the server keeps (hashed) the secret it made (default: instructor-key "
        "in your data folder)",
    )
    serve.add_argument(
        "--max-sessions-per-client",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"class sockets (and instructor pages) one client address may hold open per process "
        f"(default {DEFAULT_LIMIT}; 0: no limit)",
    )
    serve.add_argument(
        "--max-connections-per-client",
        type=int,
        default=DEFAULT_CONNECTIONS,
        metavar="N",
        help=f"HTTP connections one client address may hold open at once, per process (default "
        f"{DEFAULT_CONNECTIONS}, enough for a lecture hall behind one NAT address; 0: no limit)",
    )
    serve.add_argument(
        "--max-new-students-per-minute",
        type=int,
        default=NEW_STUDENTS_PER_MINUTE,
        metavar="N",
        help=f"new students one client address may join a room with per minute, per process "
        f"(default {NEW_STUDENTS_PER_MINUTE}; the others' pages try again by themselves; "
        f"raise it for a lecture hall behind one NAT address; 0: no limit)",
    )
    serve.add_argument(
        "--use-xheaders",
        action="store_true",
        help="take the client's address from X-Real-IP/X-Forwarded-For (behind a proxy)",
    )


def _prepare_class(args) -> tuple[str | None, dict]:
    """Check the class's options and make the server's class context from them.

    Returns (a one-line problem or None, what the server needs: ``context``
    (a :class:`~.classroom.context.ClassContext`), ``origins``, ``hosts``, and
    ``key``, the secret when made for this run, else None). The database is
    opened once here (its tables made). The secret comes from
    ``--instructor-key``, else ``$AE_INSTRUCTOR_KEY``, else the key file (a
    person's secret written there, or the one the server keeps); one shorter
    than 12 characters is a problem. ``--instructor-key`` prints a warning
    (the process list shows it).
    """
    import os

    from .classroom import network
    from pathlib import Path

    from .classroom.context import MIN_KEY_LENGTH, ClassContext, default_key_file, file_secret, kept_secret
    from .classroom.limits import SessionCap
    from .classroom.store import Store, StoreError, check_url, default_url

    if args.max_connections_per_client < 0:
        return (f"--max-connections-per-client must be 0 (no limit) or more, got {args.max_connections_per_client}"), {}
    if args.max_sessions_per_client < 0:
        return f"--max-sessions-per-client must be 0 (no limit) or more, got {args.max_sessions_per_client}", {}
    if args.max_new_students_per_minute < 0:
        return (
            f"--max-new-students-per-minute must be 0 (no limit) or more, got {args.max_new_students_per_minute}"
        ), {}
    url = args.db or os.environ.get(DB_ENV) or default_url()
    problem = check_url(url)
    if problem:
        return problem, {}
    try:
        Store(url).close()
    except StoreError as exc:
        return f"--db: {exc}", {}
    except Exception as exc:  # noqa: BLE001 - a database that cannot be reached, named on one line
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return f"--db {url!r}: cannot open the database: {reason}", {}
    key, named = args.instructor_key, "--instructor-key"
    if key is None:
        key, named = os.environ.get(KEY_ENV) or "", f"${KEY_ENV}"
    record, made, kept_in = "", "", None
    if not key and args.instructor_key is None:  # a secret in the key file: a person's, or the server's own
        kept_in = Path(args.instructor_key_file or default_key_file())
        try:
            key = file_secret(kept_in) or ""
            if key:
                named, kept_in = f"--instructor-key-file {str(kept_in)!r}", None
            else:  # the server's own secret, kept hashed across restarts
                record, made = kept_secret(kept_in)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            return f"--instructor-key-file {str(kept_in)!r}: cannot read or keep the secret there: {reason}", {}
    if not record and len(key) < MIN_KEY_LENGTH:
        return (
            f"{named} is too short ({len(key)} characters): an instructor secret needs at least "
            f"{MIN_KEY_LENGTH}, or leave it out and the server makes one"
        ), {}
    if args.instructor_key is not None:
        print(
            f"{PROG}: warning: --instructor-key shows the secret to every user of this machine in the "
            f"process list (ps); give it in ${KEY_ENV} or in a file (--instructor-key-file PATH) instead",
            file=sys.stderr,
            flush=True,
        )
    hosts = network.student_hosts(args.address)
    context = ClassContext(
        database_url=url,
        instructor_key=key,
        key_record=record,
        public_urls=tuple(f"http://{h}:{args.port}" for h in hosts),
        cap=SessionCap(args.max_sessions_per_client),
        shared=not url.startswith("sqlite"),
    )
    try:
        context.signing_key()  # the database's random cookie key, read before any page (and any fork)
    except Exception as exc:  # noqa: BLE001 - a database that cannot be read, named on one line
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return f"--db {url!r}: cannot read the server's cookie key: {reason}", {}
    origins = [f"{h}:{args.port}" for h in network.reachable_hosts(args.address)]
    origins += [o for o in (args.allow_websocket_origin or []) if o not in origins]
    return None, {"context": context, "origins": origins, "key": made or None, "kept_in": kept_in, "hosts": hosts}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``attention-explorable`` console script.

    Returns the process exit code: 0 on success, 2 on a usage error such as
    a port that is already taken.
    """
    args = _parser().parse_args(argv)
    if args.command == "export":
        return _export(args.directory, args.language, args.index)
    if args.command == "list":
        from .apps import app_summary

        for name in app_names():
            print(f"/{name}\t{app_summary(name)}")
        return 0

    if not 0 <= args.port <= 65535:
        print(f"{PROG}: error: --port must be between 0 and 65535, got {args.port}", file=sys.stderr)
        return 2
    if args.num_procs < 0:
        print(f"{PROG}: error: --num-procs must be 0 (one per core) or more, got {args.num_procs}", file=sys.stderr)
        return 2
    problem = listen_problem(args.address, args.port)
    if problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return 2

    problem, served = _prepare_class(args)
    if problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return 2

    import panel as pn

    from . import page_server, route_guards
    from .apps import instructor_app
    from .classroom import channel, handlers, limits, questions

    route_guards.install()  # autoload takes only an element id
    before, after = limits.raise_open_files()  # each student's browser holds a few descriptors
    if after:
        print(
            f"{PROG}: open files: up to {after}" + (f" (raised from {before})" if after != before else ""), flush=True
        )
    # A failure that repeats (out of descriptors: every accept, every task) is one line per kind per interval.
    limits.quiet_floods()
    origins, context = served["origins"], served["context"]
    # Students get files and one class socket; the instructor a live Panel app.
    pages = page_server.PageCache(page_server.default_cache_dir())
    cap = context.cap  # class sockets and instructor pages, per client address
    room_channel = channel.ClassChannel(
        context.store,
        cap,
        origins,
        ids=channel.StudentIds(context.student_key()),
        new_per_minute=args.max_new_students_per_minute,
    )
    bases = [f"http://{h}:{args.port}" for h in served["hosts"]]
    print(f"{PROG}: serving " + ", ".join(f"{bases[0]}/{n}" for n in app_names()), flush=True)
    for base in bases[1:]:
        print(f"{PROG}: also at {base}/textbook", flush=True)
    print(f"{PROG}: instructor: {bases[0]}/instructor (class database: {context.database_url})", flush=True)
    if served["key"]:
        print(
            f"{PROG}: instructor secret (new; kept hashed in {served['kept_in']}, valid after a restart): "
            f"{served['key']}",
            flush=True,
        )
    elif served["kept_in"]:
        print(
            f"{PROG}: instructor secret: the one printed when {served['kept_in']} was made "
            f"(delete that file for a new one)",
            flush=True,
        )
    # The question list imports every explorable's view: read once now (before any fork), not when the
    # first room starts or the first student joins.
    questions.all_questions()
    if args.num_procs == 1:
        pages.start(progress=sys.stdout)  # the server answers meanwhile; a page not built yet is waited for
    else:
        pages.build(progress=sys.stdout)  # before the workers fork, so that each holds every page
    server = pn.serve(
        {"instructor": cap.guard(functools.partial(instructor_app, context))},
        port=args.port,
        address=args.address,
        show=False,
        websocket_origin=origins,
        num_procs=args.num_procs,
        title={"instructor": "instructor · attention"},
        extra_patterns=[
            *route_guards.refused_routes(),
            *page_server.patterns(pages),
            *channel.patterns(room_channel),
            *handlers.patterns(context),
        ],
        use_xheaders=args.use_xheaders,
        start=False,
        # The instructor's page only for the instructor's cookie, checked before a session is made;
        # the cookie then stays out of the session token that Bokeh writes into the page.
        auth_provider=handlers.InstructorAuth(context),
        **handlers.SESSION_EXCLUDES,
        # The instructor's page sends clicks: a frame announcing more is closed before it is buffered
        # (Bokeh's default buffers 20 MB).
        websocket_max_message_size=INSTRUCTOR_MESSAGE_BYTES,
    )
    # A lecture hall connects at the same moment: a listen queue of 128 (tornado's) drops the
    # rest, whose browsers retry a second later. Linux takes a longer queue on a listening socket.
    for sock in getattr(server._http, "_sockets", {}).values():
        sock.listen(LISTEN_BACKLOG)
    limits.ConnectionCap(args.max_connections_per_client).install(server._http)
    server.start()
    if args.show:
        import webbrowser

        server.io_loop.add_callback(webbrowser.open, f"{bases[0]}/textbook")
    server.io_loop.start()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

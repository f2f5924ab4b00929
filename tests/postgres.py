"""A throwaway PostgreSQL server for the tests and benchmarks of the class.

Debian's ``postgresql`` package (installed by ``scripts/install-system-deps.sh``)
puts ``initdb`` and ``pg_ctl`` in ``/usr/lib/postgresql/<version>/bin``, off
the ``PATH``. :class:`TempPostgres` finds them there (or on the ``PATH``),
makes a cluster in a temporary folder (``initdb``, trust authentication,
superuser ``ae``), starts it on a free loopback port with its socket in the
same folder, and stops it and removes the folder at the end. PostgreSQL
refuses to run as root, so as root it runs as the unprivileged user
``nobody``, owning the folder.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path


class PostgresMissing(RuntimeError):
    """No PostgreSQL server programs on this machine."""


def find_bin(name: str) -> str:
    """Path of the PostgreSQL program ``name`` (the newest Debian version first), else PostgresMissing."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True):
        path = Path(folder) / name
        if path.exists():
            return str(path)
    found = shutil.which(name)
    if found:
        return found
    raise PostgresMissing(
        f"{name} not found in /usr/lib/postgresql/*/bin nor on the PATH; "
        f"run scripts/install-system-deps.sh (Debian's postgresql package)"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TempPostgres:
    """A PostgreSQL server in a temporary folder, for as long as the ``with`` block lasts.

    Attributes
    ----------
    port : int
        Its loopback TCP port.
    """

    USER = "ae"

    def __init__(self):
        self.initdb, self.pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        self.folder = Path(tempfile.mkdtemp(prefix="ae-postgres-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as = {}
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            nobody = pwd.getpwnam("nobody")
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            self._as = {"user": nobody.pw_uid, "group": nobody.pw_gid}
        self._env = {**os.environ, "HOME": str(self.folder), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        self._started = False

    def _run(self, *cmd: str) -> None:
        done = subprocess.run(
            cmd, cwd=self.folder, env=self._env, capture_output=True, text=True, timeout=120, **self._as
        )
        if done.returncode:
            raise RuntimeError(f"{' '.join(cmd[:2])} failed ({done.returncode}): {done.stdout}{done.stderr}")

    def start(self) -> TempPostgres:
        self._run(self.initdb, "-D", str(self.data), "-U", self.USER, "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200"
        self._run(
            self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60", "start"
        )
        self._started = True
        return self

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL of ``database`` on this server (psycopg 3)."""
        return f"postgresql+psycopg://{self.USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create the empty database ``name``; return its URL."""
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user={self.USER} dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def _processes(self) -> list[int]:
        """The postmaster's pid and its children's (the backends, the writer, the checkpointer, ...)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
        return [postmaster, *map(int, children)]

    @contextlib.contextmanager
    def paused(self):
        """Stop every process of the server (SIGSTOP) for the ``with`` block, as a frozen machine would;
        SIGCONT at its end. Connections stay open, and every query waits."""
        pids = self._processes()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield pids
        finally:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)

    def log(self) -> str:
        try:
            return (self.folder / "log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self._started:
            try:
                self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop")
            finally:
                self._started = False
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> TempPostgres:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()

"""A throwaway PostgreSQL server for the tests (Debian's ``postgresql`` package; no Docker).

``PostgresCluster`` makes one in a temporary directory with ``initdb`` and starts it with
``pg_ctl`` on a Unix socket in that directory only (no TCP), ``fsync=off`` (a crash of the
server process loses nothing; only the machine's would), with ICU's en-US collation where the
server has it (like most servers' own locale, it does not sort text byte by byte). As root,
PostgreSQL's tools refuse to run, so they run as the ``postgres`` user through
``runuser -u postgres --`` (docs: serving.md section 5).
A test module imports the fixture it uses:

    from postgres_helpers import postgres_server_fixture  # noqa: F401

``postgres_server`` (session-scoped) is the server's SQLAlchemy URL,
``postgresql+psycopg://postgres@/postgres?host=DIR&port=PORT``, skipped with the reason when
PostgreSQL is not installed or cannot start; :func:`fresh_database` makes a database of its own
for one test. :class:`PostgresCluster` can also be used alone (a server a test stops).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

INITDB_GLOB = "/usr/lib/postgresql/*/bin/initdb"
START_TIMEOUT_S = 30
USER = "postgres"


class ClusterUnavailable(Exception):
    """PostgreSQL is not installed here or could not start (the reason, in words)."""


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's bin directory; ClusterUnavailable when none is."""
    found = sorted(
        glob.glob(INITDB_GLOB), key=lambda path: int(Path(path).parent.parent.name.split(".")[0])
    )
    if not found:
        raise ClusterUnavailable(
            f"PostgreSQL is not installed ({INITDB_GLOB} not found: Debian package postgresql)"
        )
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresCluster:
    """A PostgreSQL cluster of its own in a temporary directory: :meth:`start`, :meth:`stop`
    (``mode`` "fast" or "immediate", a crash), :meth:`start` again, :meth:`remove`."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                raise ClusterUnavailable("running as root, and runuser is not found")
            try:
                import pwd

                pwd.getpwnam(USER)
            except KeyError:
                raise ClusterUnavailable(
                    f"running as root, and there is no user {USER!r}"
                ) from None
            self.as_user = [runuser, "-u", USER, "--"]
        self.directory = Path(tempfile.mkdtemp(prefix="ferrochess-pg-"))
        if self.as_user:
            shutil.chown(self.directory, USER)
        self.data = self.directory / "data"
        self.log = self.directory / "log"
        self.port = free_port()
        self.running = False
        initdb = ["-D", str(self.data), "-A", "trust", "-U", USER, "--no-sync", "-E", "UTF8"]
        try:
            try:  # a collation like most servers', which sorts "a" before "B" (PostgreSQL 15+)
                self._run("initdb", *initdb, "--locale-provider=icu", "--icu-locale=en-US")
            except ClusterUnavailable:
                shutil.rmtree(self.data, ignore_errors=True)
                self._run("initdb", *initdb)
        except BaseException:
            self.remove()
            raise

    @property
    def url(self) -> str:
        """The server's SQLAlchemy URL (database ``postgres``)."""
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        return f"postgresql+psycopg://{USER}@/{name}?host={self.directory}&port={self.port}"

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.directory} -c listen_addresses='' -c fsync=off "
            "-c max_connections=100"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t",
            str(START_TIMEOUT_S), "-o", options, "start",
        )
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
            self.running = False

    def remove(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        command = [*self.as_user, str(self.bin / tool), *args]
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=START_TIMEOUT_S + 30, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ClusterUnavailable(
                f"{tool} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{log}".strip()
            )


def start_cluster() -> PostgresCluster:
    """A started cluster; ClusterUnavailable (with the reason) when it cannot be had."""
    cluster = PostgresCluster()
    try:
        cluster.start()
    except BaseException:
        cluster.remove()
        raise
    return cluster


@pytest.fixture(scope="session", name="postgres_server")
def postgres_server_fixture() -> Iterator[str]:
    """A throwaway PostgreSQL server for the session: its URL (database ``postgres``); the test
    is skipped with the reason when PostgreSQL is not installed or cannot start."""
    try:
        cluster = start_cluster()
    except ClusterUnavailable as error:
        pytest.skip(f"no PostgreSQL server for the tests: {error}")
    try:
        yield cluster.url
    finally:
        cluster.remove()


def fresh_database(server_url: str, prefix: str = "test") -> str:
    """A new, empty database on the server of ``server_url``: its URL."""
    import sqlalchemy as sa

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        engine.dispose()
    url = sa.make_url(server_url).set(database=name)
    return url.render_as_string(hide_password=False)

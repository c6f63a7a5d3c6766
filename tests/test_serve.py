"""Guards ``ferrochess serve``, run as ``python -m ferrochess serve --port 0`` in a subprocess: it
prints the address it listens on; the page and the API answer; every request is logged on stderr
in Apache's combined format (plus the microseconds taken); SIGTERM lets a running search answer
200, stops accepting, ends the live analysis stream at once and exits 0 within a bound; the engine
endpoints answer 429 JSON with Retry-After past the rate limit, other endpoints never; no
development-server warning is printed; gunicorn with two workers serves too (where it can run);
bad flags exit 2 before anything listens."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrochess.web.serving import gunicorn_unavailable
from ferrochess_tools.processes import first_line
from positions import START_FEN

START_SECONDS = 60
"""Longest a server may take to print its address (a failure guard against hangs only)."""
AGENT = "ferrochess-test/1"
COMBINED = re.compile(
    r"^(?P<host>\S+) - (?P<user>\S+) \[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "
    r'"(?P<request>[^"]*)" (?P<status>\d{3}) (?P<bytes>\d+|-) "(?P<referer>[^"]*)" '
    r'"(?P<agent>[^"]*)" (?P<micros>\d+)$'
)


class Server:
    """A ``ferrochess serve`` subprocess: its address, and its stderr gathered line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ferrochess", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.heard = threading.Condition()
        threading.Thread(target=self._gather, daemon=True).start()
        try:
            first = self._first_line()
            found = re.match(r"ferrochess serve: (http://127\.0\.0\.1:(\d+)/) ", first)
            assert found, (first, self.process.poll(), self.stderr())
        except BaseException:
            self.close()
            raise
        self.url, self.port = found.group(1), int(found.group(2))
        self.stdout = first

    def _first_line(self) -> str:
        line = first_line(self.process, START_SECONDS)
        assert line is not None, f"no address within {START_SECONDS} s: {self.stderr()}"
        return line

    def _gather(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.heard:
                self.lines.append(line.rstrip("\n"))
                self.heard.notify_all()

    def stderr(self) -> str:
        with self.heard:
            return "\n".join(self.lines)

    def wait_for_line(self, pattern: str, seconds: float = 10.0) -> re.Match[str]:
        """The first stderr line matching ``pattern`` (waiting for it up to ``seconds``)."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + seconds
        with self.heard:
            while True:
                for line in self.lines:
                    if found := wanted.search(line):
                        return found
                left = deadline - time.monotonic()
                assert left > 0, f"no stderr line matches {pattern!r}:\n" + "\n".join(self.lines)
                self.heard.wait(left)

    def stop(self, seconds: float = 30.0, *, signalled: bool = False) -> int:
        """SIGTERM (unless ``signalled`` already), then the exit status (killed, and failed, if it
        takes over ``seconds``)."""
        if not signalled and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"serve did not exit within {seconds} s of SIGTERM:\n{self.stderr()}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def request(
        self,
        path: str,
        body: Any = None,
        timeout: float = 60.0,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any, Any]:
        """``(status, headers, body)``: the body parsed as JSON when it is JSON."""
        data = None if body is None else json.dumps(body).encode()
        call = urllib.request.Request(
            self.url + path.lstrip("/"),
            data=data,
            headers={"Content-Type": "application/json", "User-Agent": AGENT, **(headers or {})},
        )
        try:
            with urllib.request.urlopen(call, timeout=timeout) as response:
                status, headers, raw = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, raw = error.code, error.headers, error.read()
        kind = headers.get("Content-Type", "")
        return status, headers, json.loads(raw) if kind.startswith("application/json") else raw


@pytest.fixture
def database(tmp_path: Path) -> str:
    """An archive file of the test's own (never the user's data directory)."""
    return str(tmp_path / "games.sqlite3")


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One waitress server for the read-only checks, with a tiny engine rate limit, behind one
    (pretended) proxy."""
    folder = tmp_path_factory.mktemp("limited")
    server = Server("--engines", "1", "--rate-limit", "3 per minute", "--proxies", "1",
                    "--database", str(folder / "games.sqlite3"))  # fmt: skip
    try:
        yield server
    finally:
        server.stop()
        server.close()


def test_serve_prints_its_address_and_answers_the_page_and_the_api(limited: Server) -> None:
    assert "waitress" in limited.stdout
    status, headers, page = limited.request("/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"<html" in page.lower()
    status, _, levels = limited.request("/api/levels")
    assert status == 200 and levels["levels"], levels


def test_each_request_is_logged_in_combined_format(limited: Server) -> None:
    status, headers, _ = limited.request("/api/levels?from=test")
    assert status == 200
    found = limited.wait_for_line(r'"GET /api/levels\?from=test HTTP/1\.1"')
    line = found.string
    fields = COMBINED.match(line)
    assert fields, line
    assert fields["host"] == "127.0.0.1" and fields["status"] == "200", line
    assert fields["bytes"] == headers["Content-Length"], line
    assert (fields["referer"], fields["agent"]) == ("-", AGENT), line


def test_the_health_check_answers(limited: Server) -> None:
    status, _, body = limited.request("/healthz")
    assert (status, body) == (200, {"ok": True, "database": "ok"})


def test_engine_requests_past_the_rate_limit_answer_429_with_retry_after(limited: Server) -> None:
    """Three engine requests a minute (bad ones too: the limit counts before the work), a 429
    after; the endpoints that search nothing stay unlimited."""
    statuses = [limited.request("/api/move", {"fen": "no fen"})[0] for _ in range(3)]
    assert statuses == [400, 400, 400]
    status, headers, body = limited.request("/api/review", {"fen": START_FEN, "moves": []})
    assert status == 429, body
    assert set(body) == {"error", "field"} and body["field"] is None, body
    assert "too many requests" in body["error"], body
    assert 1 <= int(headers["Retry-After"]) <= 60, headers
    for _ in range(5):
        assert limited.request("/api/state", {"fen": START_FEN, "moves": []})[0] == 200
        assert limited.request("/api/levels")[0] == 200
    limited.wait_for_line(r'"POST /api/review HTTP/1\.1" 429 ')


def test_behind_a_proxy_the_forwarded_address_is_logged_and_limited(limited: Server) -> None:
    """--proxies 1: X-Forwarded-For names the client in the log and in the rate limit, whose
    budget is the client's own."""
    first, second = {"X-Forwarded-For": "198.51.100.1"}, {"X-Forwarded-For": "198.51.100.2"}
    statuses = [limited.request("/api/draw", {}, headers=first)[0] for _ in range(4)]
    assert statuses == [400, 400, 400, 429]
    assert limited.request("/api/draw", {}, headers=second)[0] == 400
    line = limited.wait_for_line(r'^198\.51\.100\.1 .*"POST /api/draw HTTP/1\.1" 429 ').string
    assert COMBINED.match(line), line


def post_bytes(url: str, data: bytes) -> tuple[int, Any]:
    """POST ``data`` as urllib does (the whole body, then the answer): ``(status, JSON body)``."""
    call = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(call, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize(("size", "path"), [(100_000, "/api/state"), (10_000_000, "/api/move")])
def test_a_body_over_the_limit_is_a_413_in_json_and_logged(
    limited: Server, size: int, path: str
) -> None:
    """Over the app's 64 KiB (the app refuses it), and over the 4 MiB of a PGN (waitress refuses
    it before the app reads it): 413, JSON naming the body, a log line, and no connection reset
    for a client that sends its whole body before it reads the answer."""
    status, body = post_bytes(limited.url + path.lstrip("/"), b"a" * size)
    assert status == 413 and body["field"] == "body", body
    assert "larger than" in body["error"], body
    line = limited.wait_for_line(rf'"POST {path} HTTP/1\.1" 413 ').string
    assert COMBINED.match(line), line


def test_no_development_server_warning(limited: Server) -> None:
    limited.request("/")
    limited.wait_for_line(r'"GET / HTTP/1\.1" 200 ')
    output = limited.stdout + limited.stderr()
    assert "development server" not in output.lower(), output
    assert "Traceback" not in output, output


def test_sigterm_lets_a_running_search_answer_then_exits_0(database: str) -> None:
    """A full-strength move searching ~1 s when SIGTERM comes is answered 200; meanwhile the
    server accepts no new connection; it exits 0 soon after the answer."""
    server = Server("--engines", "1", "--think", "1", "--database", database)
    try:
        levels = server.request("/api/levels")[2]["levels"]
        strongest = max(level["number"] for level in levels)
        answer: dict[str, Any] = {}

        def move() -> None:
            body = {"fen": START_FEN, "moves": ["e2e4"], "level": strongest, "book": False}
            answer["status"], _, answer["body"] = server.request("/api/move", body)
            answer["at"] = time.monotonic()

        mover = threading.Thread(target=move)
        mover.start()
        time.sleep(0.3)  # the search is under way (it takes the whole second at full strength)
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.wait_for_line(r"stopping")
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), 2):
            pass  # no longer accepting
        mover.join(30)
        assert answer.get("status") == 200, (answer, server.stderr())
        assert answer["body"]["move"], answer
        assert answer["at"] > signalled
        assert server.stop(seconds=15, signalled=True) == 0, server.stderr()
        assert time.monotonic() - signalled < 15
        server.wait_for_line(r'"POST /api/move HTTP/1\.1" 200 ')
        assert "Traceback" not in server.stderr(), server.stderr()
    finally:
        server.close()


def test_sigterm_ends_the_live_analysis_at_once(database: str) -> None:
    """The analysis board's stream runs until stopped: a stopping server ends it rather than
    waiting out its grace (here the 30 s think cap + 5 s)."""
    server = Server("--engines", "1", "--think", "30", "--database", database)
    try:
        call = urllib.request.Request(
            server.url + "api/analyse",
            data=json.dumps({"client": "t", "fen": START_FEN, "moves": []}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(call, timeout=60) as stream:
            assert stream.headers["X-Accel-Buffering"] == "no"  # nginx passes each line on
            assert json.loads(stream.readline())  # the search is under way
            signalled = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            rest = stream.read()
        assert b'"done"' not in rest  # cut short, not finished
        assert server.stop(seconds=20, signalled=True) == 0, server.stderr()
        assert time.monotonic() - signalled < 10, server.stderr()
    finally:
        server.close()


@pytest.mark.skipif(gunicorn_unavailable() is not None, reason=str(gunicorn_unavailable()))
def test_gunicorn_with_two_workers_serves_and_stops(database: str) -> None:
    server = Server("--server", "gunicorn", "--workers", "2", "--engines", "1",
                    "--database", database)  # fmt: skip
    try:
        assert "gunicorn; workers 2" in server.stdout
        for _ in range(6):
            status, _, levels = server.request("/api/levels")
            assert status == 200 and levels["levels"]
        assert server.request("/api/state", {"fen": START_FEN, "moves": ["e2e4"]})[0] == 200
        server.wait_for_line(r'"POST /api/state HTTP/1\.1" 200 ')
        first = server.wait_for_line(r"Booting worker with pid: (\d+)")[1]
        server.wait_for_line(rf"Booting worker with pid: (?!{first}\b)\d+")  # and a second
        assert server.stop() == 0, server.stderr()
        output = server.stdout + server.stderr()
        assert "development server" not in output.lower() and "Traceback" not in output, output
    finally:
        server.close()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferrochess", "serve", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--rate-limit", "lots"], "'lots' is not a rate limit"),
        (["--rate-limit-storage", "carrier-pigeon://"], "carrier-pigeon://"),
        (["--workers", "2"], "--workers needs --server gunicorn"),
        (["--proxies", "-1"], "--proxies"),
        (["--server", "tornado"], "tornado"),
        (["--database", "postgresql://nobody@127.0.0.1:1/x"], "cannot open the games archive"),
    ],
    ids=repr,
)
def test_bad_flags_exit_2_naming_them(args: list[str], named: str) -> None:
    process = run("--port", "0", *args)
    assert process.returncode == 2, process
    assert process.stdout == ""
    assert named in process.stderr and "Traceback" not in process.stderr, process.stderr


def test_a_busy_port_is_refused_before_any_address_is_printed() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = run("--port", str(port))
    assert process.returncode == 2 and process.stdout == "", process
    assert f"cannot listen on 127.0.0.1:{port}" in process.stderr, process.stderr

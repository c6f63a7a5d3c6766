"""The request log of ``ferrochess serve``: WSGI middleware that writes one line per request in
Apache's combined log format, followed by the request's duration in microseconds (Apache's
``%D``), on the ``ferrochess.access`` logger (stderr), once the response has been sent or the
client went away. It also ends the analysis board's open-ended stream when the server stops, and
tells nginx not to buffer the NDJSON streams."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any
from urllib.parse import quote

__all__ = ["ACCESS_LOGGER", "OPEN_ENDED_PATHS", "AccessLog", "combined_log_line",
           "configure_logging"]  # fmt: skip

ACCESS_LOGGER = "ferrochess.access"
OPEN_ENDED_PATHS = frozenset({"/api/analyse"})
"""Streams that run until the client stops them: ended at once when the server stops."""
STREAMED_TYPE = "application/x-ndjson"
"""The streams' type (reviews, the live analysis): told ``X-Accel-Buffering: no`` so that nginx
passes each line on at once, whatever its proxy_buffering."""
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class AccessLog:
    """WSGI middleware: one line per request in Apache's combined log format plus ``%D`` (the
    duration in microseconds), logged on the ``ferrochess.access`` logger when the response
    iterable is closed, with the bytes of the body sent. While ``stopping`` is set, an open-ended
    stream (OPEN_ENDED_PATHS) ends before its next chunk. NDJSON streams get
    ``X-Accel-Buffering: no``."""

    def __init__(self, app: Any, stopping: threading.Event | None = None) -> None:
        self.app = app
        self.stopping = stopping
        self.logger = logging.getLogger(ACCESS_LOGGER)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        record = _Record(environ, self.logger)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            record.status = status.split(" ", 1)[0]
            if any(name.lower() == "content-type" and value.startswith(STREAMED_TYPE)
                   for name, value in headers):  # fmt: skip
                headers = [*headers, ("X-Accel-Buffering", "no")]  # nginx: pass each line on
            write = start_response(status, headers, exc_info)

            def counted_write(data: bytes) -> Any:
                record.sent += len(data)
                return write(data)

            return counted_write

        try:
            body = self.app(environ, start)
        except BaseException:
            record.status = "500"
            record.log()
            raise
        cut = self.stopping if environ.get("PATH_INFO") in OPEN_ENDED_PATHS else None
        return _LoggedBody(body, record, cut)


class _Record:
    """The facts of one request's log line."""

    def __init__(self, environ: dict[str, Any], logger: logging.Logger) -> None:
        self.environ = environ
        self.logger = logger
        self.received = datetime.now().astimezone()
        self.started = time.monotonic()
        self.status = "-"
        self.sent = 0
        self.logged = False

    def log(self) -> None:
        if self.logged:
            return
        self.logged = True
        micros = round((time.monotonic() - self.started) * 1e6)
        self.logger.info(combined_log_line(self.environ, self.received, self.status, self.sent)
                         + f" {micros}")  # fmt: skip


class _LoggedBody:
    """The app's response iterable, counting the bytes it yields; closing it logs the request."""

    def __init__(self, body: Iterable[bytes], record: _Record, cut: threading.Event | None) -> None:
        self.body = body
        self.chunks: Iterator[bytes] = iter(body)
        self.record = record
        self.cut = cut

    def __iter__(self) -> _LoggedBody:
        return self

    def __next__(self) -> bytes:
        if self.cut is not None and self.cut.is_set():
            raise StopIteration  # the server is stopping: close() stops the search
        chunk = next(self.chunks)
        self.record.sent += len(chunk)
        return chunk

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.record.log()


def combined_log_line(
    environ: Mapping[str, Any], received: datetime, status: str, sent: int
) -> str:
    """``%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"`` for a WSGI request."""
    month = MONTHS[received.month - 1]
    when = received.strftime(f"[%d/{month}/%Y:%H:%M:%S %z]")
    target = environ.get("REQUEST_URI") or environ.get("RAW_URI")
    if not target:
        path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
        target = quote(path.encode("latin-1", "replace"), safe="/;=,:@!$&'()*+~-._")
        if environ.get("QUERY_STRING"):
            target += "?" + environ["QUERY_STRING"]
    line = f"{environ.get('REQUEST_METHOD', '-')} {target} {environ.get('SERVER_PROTOCOL', '-')}"
    fields = (
        _escape(environ.get("REMOTE_ADDR") or "-"),
        "-",
        _escape(environ.get("REMOTE_USER") or "-"),
        when,
        f'"{_escape(line)}"',
        status,
        str(sent) if sent else "-",
        f'"{_escape(environ.get("HTTP_REFERER") or "-")}"',
        f'"{_escape(environ.get("HTTP_USER_AGENT") or "-")}"',
    )
    return " ".join(fields)


def _escape(text: str) -> str:
    """Apache's escaping of a logged field: ``"`` and ``\\`` backslashed, other bytes outside
    printable ASCII as ``\\xhh`` (WSGI strings hold one byte per character)."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 32 <= code < 127:
            out.append(char)
        else:
            out.append(f"\\x{code & 0xFF:02x}")
    return "".join(out)


def configure_logging() -> None:
    """Access lines as they are on stderr; the servers' own warnings with a time and a name."""
    access = logging.getLogger(ACCESS_LOGGER)
    if not access.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(handler)
        access.setLevel(logging.INFO)
        access.propagate = False
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING,
        format="%(asctime)s [%(process)d] %(levelname)s %(name)s: %(message)s",
    )  # fmt: skip

"""waitress's own refusals, as ``ferrochess serve`` answers them (imported only with waitress).

waitress refuses a request itself, before the app sees it, when its body is over waitress's
``max_request_body_size`` (:mod:`ferrochess.web.serving` sets it a little above the app's largest
limit, so that a huge body is never read). Left alone it answers in plain text, logs nothing
(the access log is middleware around the app), and closes the socket at once while the client
is still sending: a client that reads only once its body is sent (urllib, requests, most
libraries) then gets a connection reset instead of the answer.

:class:`Channel` answers such a refusal like the app: 413 ``{"error", "field": "body"}`` in JSON,
one access-log line, and a lingering close (nginx's ``lingering_close``): once the answer is
sent, the server stops writing and reads and drops what the client still sends, for at most
:data:`LINGER_SECONDS` and :data:`LINGER_BYTES`, before it closes the socket.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from datetime import datetime
from typing import Any

from waitress.channel import HTTPChannel  # type: ignore[import-untyped]
from waitress.task import ErrorTask  # type: ignore[import-untyped]
from waitress.utilities import RequestEntityTooLarge  # type: ignore[import-untyped]

from ferrochess.web.access_log import ACCESS_LOGGER, combined_log_line

__all__ = ["LINGER_BYTES", "LINGER_SECONDS", "Channel"]

LINGER_SECONDS = 30.0
"""Longest a refused client may go on sending before its connection is closed (nginx's
``lingering_time``)."""
LINGER_BYTES = 256 * 1024 * 1024
"""Most bytes read and dropped after a refusal before the connection is closed."""


class RefusalTask(ErrorTask):  # type: ignore[misc]
    """waitress's error answer; a body over the limit is answered as the API's JSON error. Each
    refusal is logged on the access log and the connection then closes lingering."""

    def execute(self) -> None:
        started = time.monotonic()
        error = self.request.error
        if isinstance(error, RequestEntityTooLarge):
            limit = self.channel.adj.max_request_body_size
            body = json.dumps(
                {"error": f"the request body is larger than {limit} bytes", "field": "body"}
            ).encode()
            self.status = f"{error.code} {error.reason}"
            self.response_headers.append(("Content-Type", "application/json"))
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)
        else:
            super().execute()
        self.channel.linger_after_close = True
        micros = round((time.monotonic() - started) * 1e6)
        line = combined_log_line(environ_of(self.request, self.channel.addr),
                                 datetime.now().astimezone(), self.status.split(" ", 1)[0],
                                 self.content_length)  # fmt: skip
        logging.getLogger(ACCESS_LOGGER).info(f"{line} {micros}")


class Channel(HTTPChannel):  # type: ignore[misc]
    """waitress's connection, answering its own refusals with :class:`RefusalTask` and closing
    lingering after them."""

    error_task_class = RefusalTask
    linger_after_close = False
    """Set by a refusal: the next close is a lingering one."""
    lingering_since: float | None = None
    dropped = 0

    def handle_close(self) -> None:
        """After a refusal's answer is sent: stop writing, then read until the client is done
        (:meth:`handle_read`); otherwise (and when that ends) waitress's close."""
        sent = self.connected and not self.total_outbufs_len
        if self.linger_after_close and self.lingering_since is None and sent:
            try:
                self.socket.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            else:
                self.lingering_since = time.monotonic()
                self.will_close = self.close_when_flushed = False
                self.last_activity = time.time()
                return
        super().handle_close()

    def handle_read(self) -> None:
        if self.lingering_since is None:
            super().handle_read()
            return
        try:
            data = self.socket.recv(self.adj.recv_bytes)
        except OSError:
            data = b""
        self.dropped += len(data)
        self.last_activity = time.time()
        too_long = time.monotonic() - self.lingering_since > LINGER_SECONDS
        if not data or too_long or self.dropped > LINGER_BYTES:
            super().handle_close()

    def writable(self) -> bool:
        if self.lingering_since is not None:
            return bool(self.will_close)  # closed by waitress's idle timeout or a stopping server
        return bool(super().writable())


def environ_of(request: Any, address: Any) -> dict[str, str]:
    """The WSGI facts the access log writes, of a request waitress refused itself."""
    headers = request.headers
    return {
        "REMOTE_ADDR": address[0] if isinstance(address, tuple) else "-",
        "REQUEST_METHOD": request.command or "-",
        "PATH_INFO": request.path or "",
        "QUERY_STRING": request.query or "",
        "SERVER_PROTOCOL": f"HTTP/{request.version}" if request.version else "-",
        "HTTP_REFERER": headers.get("REFERER", ""),
        "HTTP_USER_AGENT": headers.get("USER_AGENT", ""),
    }

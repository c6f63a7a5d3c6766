"""The production server of ``ferrochess serve``: the play app under waitress (the default, one
process, every platform) or gunicorn (Linux, ``-k gthread``, several worker processes).

Contract:

- The listening socket is made by the caller before :func:`serve` is called; the address is
  printed on stdout once the app is built (waitress) or checked (gunicorn), so whoever reads it
  can connect at once. No development-server warning: werkzeug's server is never used.
- SIGTERM and SIGINT stop the server gracefully: it stops accepting, gives the requests already
  under way :func:`grace_seconds` (the think cap plus :data:`SHUTDOWN_MARGIN_SECONDS`) to answer,
  then exits 0. The analysis board's live engine (``/api/analyse``, open-ended by nature) is ended
  at once. A second signal ends the wait.
- Every request is logged on stderr in Apache's combined log format followed by its duration in
  microseconds (Apache's ``%D``), once its response has been sent (or the client went away):
  :mod:`ferrochess.web.access_log`; one that waitress refuses itself too (a body over the
  largest limit: 413 in the API's JSON, then a lingering close):
  :mod:`ferrochess.web.waitress_refusal`.
- ``proxies`` > 0 wraps the app in werkzeug's ProxyFix (X-Forwarded-For, -Proto, -Host set by that
  many proxies), so the logs and the rate limit see the client's address, not the proxy's.
- The engine endpoints (:data:`ENGINE_PATHS`) share one request budget per client address
  (Flask-Limiter, in this process's memory); past it they answer 429 ``{"error", "field": null}``
  with ``Retry-After``. Other endpoints are not limited.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.middleware.proxy_fix import ProxyFix

from ferrochess.web.access_log import AccessLog, configure_logging

__all__ = [
    "DEFAULT_RATE_LIMIT",
    "ENGINE_PATHS",
    "ServeOptions",
    "build_app",
    "gunicorn_unavailable",
    "grace_seconds",
    "parse_rate_limit",
    "serve",
    "thread_count",
]

PROG = "ferrochess serve"
DEFAULT_RATE_LIMIT = "120 per minute"
ENGINE_PATHS = frozenset({"/api/move", "/api/review", "/api/analyse", "/api/judge", "/api/draw"})
"""The requests that make an engine search: rate-limited per client address."""
SHUTDOWN_MARGIN_SECONDS = 5.0
"""Added to the think cap for a stopping server's wait: the wait for a free engine (2 s by
default), the answer's writing, a little slack."""
IDLE_THREADS = 8
"""Threads beyond the engines' for requests that need no engine (the page, static files, the
game state, the archive, the health check)."""
WAITRESS_CONNECTION_LIMIT = 500
"""Open connections waitress keeps (its default, 100, is a few dozen browsers with keep-alive)."""
LOOP_SECONDS = 0.5


@dataclass(frozen=True)
class ServeOptions:
    """What ``ferrochess serve`` was asked for (the CLI fills it in)."""

    config: Mapping[str, Any]
    """The app's configuration (create_app's keys), FERROCHESS_ENGINES included or not."""
    host: str = "127.0.0.1"
    server: str = "waitress"
    workers: int | None = None
    threads: int | None = None
    proxies: int = 0
    rate_limit: str | None = DEFAULT_RATE_LIMIT
    rate_limit_storage: str = "memory://"
    think_seconds: float = 3.0


def thread_count(engines: int) -> int:
    """Request threads for ``engines`` engines: one per engine for a request searching on it (a
    review or live analysis holds its thread as long as its engine), one per engine for a request
    waiting for a free engine (a bounded wait, then 503), and :data:`IDLE_THREADS` for the
    requests that need no engine: ``2 * engines + 8``."""
    return 2 * engines + IDLE_THREADS


def grace_seconds(think_seconds: float) -> float:
    """How long a stopping server lets running requests finish."""
    return think_seconds + SHUTDOWN_MARGIN_SECONDS


def parse_rate_limit(text: str) -> str | None:
    """A rate limit in Flask-Limiter's notation (``"120 per minute"``, ``"10/second;200/hour"``),
    or None for ``none``/``off``; ValueError naming ``text`` otherwise."""
    from limits import parse_many

    if text.strip().lower() in ("none", "off", "0"):
        return None
    try:
        items = parse_many(text)
    except ValueError:
        items = []
    if not items or any(item.amount < 1 for item in items):
        raise ValueError(
            f"{text!r} is not a rate limit (write it as '120 per minute', '5/second', "
            "'10/second;300/hour', or 'none')"
        )
    return text


def parse_rate_limit_storage(text: str) -> str:
    """Where Flask-Limiter keeps its counts: ``memory://`` (this process) or a shared store
    (``redis://host:6379``, ``memcached://host:11211``: its client library installed); ValueError
    saying what is wrong otherwise. Nothing is connected to here."""
    from limits.errors import ConfigurationError
    from limits.storage import storage_from_string

    try:
        storage_from_string(text)
    except (ConfigurationError, ValueError) as error:
        raise ValueError(f"{text!r}: {error}") from None
    return text


def gunicorn_unavailable() -> str | None:
    """Why ``--server gunicorn`` cannot run here, or None when it can."""
    try:
        import fcntl  # noqa: F401  (gunicorn needs it: Unix only)
    except ImportError:
        return "gunicorn runs on Unix only (no fcntl here); use --server waitress"
    try:
        import gunicorn  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return (
            'gunicorn is not installed (pip install "ferrochess[serve-gunicorn]"); '
            "or use --server waitress"
        )
    return None


# --- the app -------------------------------------------------------------------------------------


def build_app(
    config: Mapping[str, Any],
    *,
    proxies: int = 0,
    rate_limit: str | None = DEFAULT_RATE_LIMIT,
    rate_limit_storage: str = "memory://",
    stopping: threading.Event | None = None,
) -> Flask:
    """The play app (``create_app(config)``) with the rate limit, the access log and, for
    ``proxies`` > 0, ProxyFix outermost (the log and the limit see the client's address)."""
    from ferrochess.web import create_app

    app = create_app(config)
    if rate_limit is not None:
        limit_engine_requests(app, rate_limit, rate_limit_storage)
    app.wsgi_app = AccessLog(app.wsgi_app, stopping)  # type: ignore[method-assign]
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )
    return app


def limit_engine_requests(app: Flask, spec: str, storage: str = "memory://") -> None:
    """One budget of ``spec`` per client address shared by the requests of ENGINE_PATHS (counted
    in ``storage``: this process's memory by default); beyond it, 429 JSON with Retry-After."""
    from flask_limiter import Limiter, RateLimitExceeded
    from flask_limiter.util import get_remote_address

    limiter = Limiter(
        get_remote_address,
        app=app,
        application_limits=[spec],
        application_limits_exempt_when=lambda: request.path not in ENGINE_PATHS,
        storage_uri=storage,
        strategy="moving-window",
        headers_enabled=False,  # Retry-After is set below, rounded up (never 0)
    )
    app.extensions["ferrochess_limiter"] = limiter

    @app.errorhandler(RateLimitExceeded)
    def too_many(error: RateLimitExceeded) -> Any:
        current = limiter.current_limit
        reset = current.window[0] if current else time.time()  # when a request is free again
        wait = max(1, math.ceil(reset - time.time()))
        response = jsonify(
            error=f"too many requests from your address (at most {error.description}); "
            f"try again in {wait} s",
            field=None,
        )
        response.status_code = 429
        response.headers["Retry-After"] = str(wait)
        return response


def close_app(app: Flask) -> None:
    """Close what the app holds open: the archive's connections, the free engines."""
    for name in ("ferrochess_archive", "ferrochess_pool"):
        held = app.extensions.get(name)
        close = getattr(held, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # pragma: no cover - exiting anyway; say so
                logging.getLogger(__name__).exception("closing %s failed", name)


# --- serving -------------------------------------------------------------------------------------


def serve(listener: socket.socket, options: ServeOptions) -> int:
    """Serve the app on ``listener`` (already listening) until SIGTERM or SIGINT; return the exit
    status."""
    configure_logging()
    if options.server == "gunicorn":
        return _serve_gunicorn(listener, options)
    if options.server != "waitress":
        raise ValueError(f"unknown server {options.server!r} (waitress or gunicorn)")
    return _serve_waitress(listener, options)


def _announce(options: ServeOptions, port: int, how: str) -> None:
    host = f"[{options.host}]" if ":" in options.host else options.host
    print(
        f"{PROG}: http://{host}:{port}/ ({how}; SIGTERM or Ctrl-C to stop)",
        flush=True,
    )  # fmt: skip


def _engines(options: ServeOptions, workers: int) -> int:
    """Engines per process: as configured, else the CPUs shared among the workers."""
    given = options.config.get("FERROCHESS_ENGINES")
    if given is not None:
        return int(given)
    return max(1, (os.cpu_count() or 2) // workers)


def _serve_waitress(listener: socket.socket, options: ServeOptions) -> int:
    from waitress.server import create_server  # type: ignore[import-untyped]
    from waitress.wasyncore import close_all, dispatcher, loop  # type: ignore[import-untyped]

    from ferrochess.web.waitress_refusal import Channel

    if options.workers not in (None, 1):
        raise ValueError("waitress runs one process: --workers needs --server gunicorn")
    engines = _engines(options, 1)
    threads = options.threads or thread_count(engines)
    stopping = threading.Event()
    app = build_app(
        {**options.config, "FERROCHESS_ENGINES": engines},
        proxies=options.proxies, rate_limit=options.rate_limit,
        rate_limit_storage=options.rate_limit_storage, stopping=stopping,
    )  # fmt: skip
    largest_body = max(int(app.config["MAX_CONTENT_LENGTH"] or 0),
                       int(app.config.get("FERROCHESS_MAX_PGN_BYTES") or 0))  # fmt: skip
    server = create_server(
        app,
        sockets=[listener],
        threads=threads,
        connection_limit=WAITRESS_CONNECTION_LIMIT,
        asyncore_use_poll=True,
        max_request_body_size=largest_body + 64 * 1024,
        # ProxyFix trusts the forwarded headers by count; waitress must not clear them first.
        clear_untrusted_proxy_headers=options.proxies == 0,
        ident="ferrochess",
    )
    server.channel_class = Channel  # waitress's own refusals: the API's JSON, logged, no reset
    forced = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        (forced if stopping.is_set() else stopping).set()
        server.pull_trigger()  # wake the loop now

    wanted = [signal.SIGINT] + ([signal.SIGTERM] if hasattr(signal, "SIGTERM") else [])
    previous = {signum: signal.signal(signum, on_signal) for signum in wanted}
    _announce(options, listener.getsockname()[1], f"waitress; threads {threads}, engines {engines}")
    socket_map = server._map
    deadline = math.inf
    try:
        while True:
            loop(timeout=LOOP_SECONDS, map=socket_map, use_poll=True, count=1)
            if not stopping.is_set():
                continue
            if deadline == math.inf:  # the first pass after the signal: stop accepting
                deadline = time.monotonic() + grace_seconds(options.think_seconds)
                dispatcher.close(server)  # wasyncore's close: the listening socket, not the trigger
                _say(f"stopping: running requests have {grace_seconds(options.think_seconds):g} s")
            running = _close_idle_channels(server)
            if not running:
                break
            if forced.is_set() or time.monotonic() >= deadline:
                _say(f"stopping now: {running} request(s) cut short")
                break
    finally:
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=1)
        close_all(socket_map)
        close_app(app)
        for signum, handler in previous.items():  # only now: a signal meanwhile changes nothing
            signal.signal(signum, handler)
    _say("stopped")
    return 0


def _close_idle_channels(server: Any) -> int:
    """Close the connections with nothing under way (kept alive, idle); return how many still
    have a request being answered or output to send."""
    running = 0
    for channel in list(server.active_channels.values()):
        if channel.requests or channel.total_outbufs_len:
            running += 1
        elif not channel.will_close:
            channel.will_close = True  # closed by the loop's next pass
    return running


def _say(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def _serve_gunicorn(listener: socket.socket, options: ServeOptions) -> int:
    why = gunicorn_unavailable()
    if why is not None:
        raise ValueError(why)
    workers = options.workers or 1
    engines = _engines(options, workers)
    threads = options.threads or thread_count(engines)
    config = {**options.config, "FERROCHESS_ENGINES": engines}
    # Build the app once here, before any fork: a bad book or database is reported now (not by
    # every worker as it boots), and the archive's schema is made or migrated once.
    close_app(create_checked_app(config))
    port = listener.getsockname()[1]
    application = _gunicorn_application(listener.detach(), options, config, workers, threads)
    each = f"threads {threads}, engines {engines}"
    _announce(options, port, f"gunicorn; workers {workers}, each with {each}")
    try:
        application.run()
    except SystemExit as stop:  # the arbiter's halt (and each worker's end) exit this way
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return 0


def create_checked_app(config: Mapping[str, Any]) -> Flask:
    """The app with one engine: building it checks the book, the tablebases and the database."""
    from ferrochess.web import create_app

    return create_app({**config, "FERROCHESS_ENGINES": 1})


def _gunicorn_application(
    fd: int, options: ServeOptions, config: Mapping[str, Any], workers: int, threads: int
) -> Any:
    """A gunicorn BaseApplication serving build_app(config) in ``workers`` gthread workers on the
    listening socket ``fd``; SIGINT is graceful like SIGTERM, in the master and the workers."""
    from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]
    from gunicorn.arbiter import Arbiter  # type: ignore[import-untyped]
    from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]

    stopping = threading.Event()  # each worker's own copy after the fork

    class FerrochessWorker(ThreadWorker):  # type: ignore[misc]
        def init_signals(self) -> None:
            super().init_signals()
            signal.signal(signal.SIGINT, self.handle_exit)  # Ctrl-C reaches every worker

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stopping.set()
            super().handle_exit(sig, frame)

    class GracefulArbiter(Arbiter):  # type: ignore[misc]
        def handle_int(self) -> None:
            raise StopIteration  # as handle_term: stop gracefully

    def worker_exit(server: Any, worker: Any) -> None:
        app = getattr(worker, "wsgi", None)
        if isinstance(app, Flask):
            close_app(app)

    class Application(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            settings = {
                "bind": [f"fd://{fd}"],
                "workers": workers,
                "threads": threads,
                "worker_class": FerrochessWorker,
                "graceful_timeout": math.ceil(grace_seconds(options.think_seconds)),
                "proc_name": "ferrochess",
                "forwarded_allow_ips": "",  # ProxyFix (--proxies) reads the forwarded headers
                "worker_exit": worker_exit,
                "control_socket_disable": True,
            }
            for key, value in settings.items():
                if key in self.cfg.settings:  # control_socket_disable: gunicorn >= 25.1
                    self.cfg.set(key, value)

        def load(self) -> Flask:
            return build_app(
                config, proxies=options.proxies, rate_limit=options.rate_limit,
                rate_limit_storage=options.rate_limit_storage, stopping=stopping,
            )  # fmt: skip

        def run(self) -> None:
            GracefulArbiter(self).run()

    return Application()

"""The ``ferrochess`` command line: ``bestmove``, ``perft``, ``bench``, ``book``, ``play`` and
``analyse``, ``match`` and ``uci``.

Contract: results go to stdout and the exit status is 0; bad input (a FEN, a move, a depth) prints
one line naming it on stderr and exits with status 2, never with a traceback. An internal engine
error (a bug) exits 1, Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import re
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from ferrochess import _core
from ferrochess.book import build_book, open_book
from ferrochess.engine import DEFAULT_BOOK, bench, perft, select_move
from ferrochess.exceptions import EngineError, FerrochessError, install_line, require_extra
from ferrochess.service.analysis_board import DEFAULT_ANALYSIS_SECONDS
from ferrochess.service.game import Settings
from ferrochess.tablebase import SYZYGY_PATH_ENV

__all__ = ["main"]

PROG = "ferrochess"
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
MAX_PLAY_ENGINES = 256
MIN_THINK_SECONDS = 0.01
MAX_THINK_SECONDS = 3600.0
MAX_ANALYSIS_SECONDS = 24 * 3600.0
LISTEN_BACKLOG = 128
"""Connections the play server's socket queues before it accepts them (werkzeug's own number)."""


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``ferrochess`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="ferrochess: a chess engine with a Rust core.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_core.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    bestmove = commands.add_parser(
        "bestmove",
        help="print the best move of a position in UCI notation",
        description="Print the best move of FEN in UCI notation, or '(none)' if it has none.",
    )
    bestmove.add_argument("fen", metavar="FEN", help="the position, quoted as one argument")
    bestmove.add_argument(
        "--depth", type=int, default=8, metavar="N", help="search depth in plies (default: 8)"
    )
    bestmove.add_argument(
        "--book",
        default=DEFAULT_BOOK,
        metavar="BOOK",
        help="Polyglot book consulted first: 'default' (built in, the default), a path, or 'none'",
    )
    bestmove.add_argument(
        "--seed", type=int, default=None, metavar="N", help="makes the book choice reproducible"
    )
    bestmove.add_argument(
        "--syzygy-path",
        default=None,
        metavar="DIRS",
        help=f"Syzygy tablebase directories, joined by '{os.pathsep}' "
        f"(default: ${SYZYGY_PATH_ENV}; '' for none)",
    )

    perft_parser = commands.add_parser(
        "perft",
        help="count the leaf nodes of the legal move tree",
        description="Print the number of leaf nodes of FEN's legal move tree to DEPTH plies.",
    )
    perft_parser.add_argument("fen", metavar="FEN", help="the position, quoted as one argument")
    perft_parser.add_argument("depth", type=int, metavar="DEPTH", help="depth in plies")

    bench_parser = commands.add_parser(
        "bench",
        help="search the fixed bench positions and print the node-count signature",
        description="Search the bench positions; 'Bench: N' is the signature of the search.",
    )
    bench_parser.add_argument(
        "--depth",
        type=int,
        default=None,
        metavar="N",
        help=f"search depth in plies (default: {_core.BENCH_DEPTH})",
    )
    add_book_commands(commands)
    add_play_command(commands)
    add_serve_command(commands)
    add_analyse_command(commands)
    add_match_command(commands)
    commands.add_parser(
        "uci",
        help="speak the UCI protocol on stdin/stdout (for chess GUIs and match tools)",
        description=(
            "Run as a UCI engine. Options: Hash, Threads, MultiPV, OwnBook, BookFile, SyzygyPath, "
            "Move Overhead, UCI_LimitStrength, UCI_Elo, Level, Evaluation, EvalFile, UCI_Chess960. "
            "The native "
            "binary ferrochess-uci "
            "(cargo build --release --bin ferrochess-uci) speaks the same."
        ),
    )
    return parser


def add_progress_option(command: argparse.ArgumentParser) -> None:
    """Add ``--progress/--no-progress`` (default: a bar when stderr is a terminal)."""
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw a progress bar on stderr (default: when stderr is a terminal)",
    )


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to draw the progress bar ``add_progress_option`` asked about."""
    return sys.stderr.isatty() if args.progress is None else bool(args.progress)


def add_analyse_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyse``: review every game of PGN files."""
    analyse = commands.add_parser(
        "analyse",
        help="review every game of PGN files (evaluations, blunders, accuracy)",
        description=(
            "Review every game of the PGN files into a JSON-lines file, one record per game, "
            "written as games finish. Rerunning with the same output continues where a stopped "
            "run left off."
        ),
    )
    analyse.add_argument("pgn", nargs="+", metavar="GAMES.pgn", help="PGN files to review")
    analyse.add_argument("-o", "--output", required=True, metavar="OUT.jsonl", help="records")
    analyse.add_argument("--depth", type=int, default=None, metavar="N", help="search depth")
    analyse.add_argument("--nodes", type=int, default=None, metavar="N", help="nodes per position")
    analyse.add_argument(
        "--workers", type=int, default=1, metavar="N", help="games analysed at once (default: 1)"
    )
    analyse.add_argument(
        "--annotate", default=None, metavar="OUT.pgn",
        help="also write the games with [%%eval] comments and ?! ? ?? marks",
    )  # fmt: skip
    add_progress_option(analyse)


def run_analyse(args: argparse.Namespace) -> int:
    """Review the games, then print a summary (and write the annotated PGN)."""
    import chess.engine

    from ferrochess.analysis import analyse_pgn, annotate_pgn

    if args.depth is None and args.nodes is None:
        args.depth = 10
    limit = chess.engine.Limit(depth=args.depth, nodes=args.nodes)
    summary = analyse_pgn(
        args.pgn, args.output, limit, workers=args.workers, progress=show_progress(args)
    )
    print(
        f"{summary.analysed} games analysed, {summary.skipped_done} already done, "
        f"{summary.broken} broken and skipped; records in {summary.output}"
    )
    if args.annotate is not None:
        written = annotate_pgn(args.pgn, args.output, args.annotate)
        print(f"{written} annotated games written to {args.annotate}")
    return 0


def add_match_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``match``: its fastchess-style options are parsed by :mod:`ferrochess.match.cli`
    (``main`` hands it the arguments before argparse sees them)."""
    from ferrochess.match.cli import HELP

    match = commands.add_parser(
        "match",
        help="play an engine match or tournament (fastchess-style options)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    match.add_argument("options", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def add_play_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``play``: serve the play page."""
    play = commands.add_parser(
        "play",
        help="play ferrochess in the browser",
        description="Serve the play page (Flask) and print its address.",
    )
    add_page_options(play, port=5000, engines_help="searches at once (default: the number of CPUs)")
    play.add_argument("--open", action="store_true", help="open the page in a web browser")


def add_page_options(command: argparse.ArgumentParser, *, port: int, engines_help: str) -> None:
    """The options ``play`` and ``serve`` share: where to listen, the engines and their book,
    tablebases and time, the analysis board's live engine, the games archive."""
    command.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s)"
    )
    command.add_argument(
        "--port", type=_bounded(int, 0, 65535), default=port, help="port (default: %(default)s)"
    )
    command.add_argument(
        "--engines", type=_bounded(int, 1, MAX_PLAY_ENGINES), default=None, metavar="N",
        help=engines_help,
    )  # fmt: skip
    command.add_argument(
        "--book", default=DEFAULT_BOOK, metavar="BOOK", help="'default' (built in), path or 'none'"
    )
    command.add_argument(
        "--syzygy-path",
        default=None,
        metavar="DIRS",
        help=f"Syzygy tablebase directories (default: ${SYZYGY_PATH_ENV})",
    )
    command.add_argument(
        "--think", type=_bounded(float, MIN_THINK_SECONDS, MAX_THINK_SECONDS),
        default=Settings.max_think_seconds,
        metavar="SECONDS", help="longest search per move (default: %(default)g)",
    )  # fmt: skip
    command.add_argument(
        "--analysis-seconds", type=_bounded(float, MIN_THINK_SECONDS, MAX_ANALYSIS_SECONDS),
        default=DEFAULT_ANALYSIS_SECONDS, metavar="SECONDS",
        help="longest the analysis board's live engine runs on a position (default: %(default)g)",
    )  # fmt: skip
    command.add_argument(
        "--database", default="default", metavar="PATH|URL",
        help="the games archive: a SQLite file, a sqlite:/// or postgresql:// URL (PostgreSQL "
        "needs the postgresql extra), 'none' (no archive) or 'default' (games.sqlite3 in your "
        "data directory; the default)",
    )  # fmt: skip


def _bounded(kind: type[int] | type[float], low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` from ``low`` to ``high`` (argparse exits 2 with the
    message otherwise)."""
    name = "an integer" if kind is int else "a number"

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None
        if not low <= value <= high:  # also refuses NaN
            raise argparse.ArgumentTypeError(f"{text!r} is not between {low:g} and {high:g}")
        return value

    return parse


def _listen(host: str, port: int) -> socket.socket | str:
    """A socket listening on ``host:port`` (port 0: one the system chooses), made before the page's
    address is printed; or why there can be none, in words that name what to change: a host that
    is no address or not this machine's (``--host``), a port in use or reserved (``--port``)."""
    # IPv6 when the host has a colon, as werkzeug, which serves on this socket, decides too.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if re.fullmatch(r"[\d.]+", host):  # dotted digits are an IPv4 address or nothing, not a name
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return f"{host!r} is not an IPv4 address (choose another with --host)"
    try:
        address = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0][4]
    except socket.gaierror as error:
        return (
            f"{host!r} is not an address or a known host name ({error.strerror}; choose another "
            "with --host)"
        )
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(LISTEN_BACKLOG)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            return f"port {port} is in use (is another server using it? choose another with --port)"
        if error.errno == errno.EADDRNOTAVAIL:
            return f"{host} is not an address of this machine (choose another with --host)"
        if error.errno == errno.EACCES:
            return f"port {port} needs privileges this user lacks (choose another with --port)"
        return f"{error.strerror or error} (check --host and --port)"
    return listener


def _app_config(args: argparse.Namespace) -> dict[str, object]:
    """The app's configuration (``create_app``) from the options ``play`` and ``serve`` share."""
    config: dict[str, object] = {
        "FERROCHESS_BOOK": None if args.book.lower() == "none" else args.book,
        "FERROCHESS_SYZYGY_PATH": args.syzygy_path,
        "FERROCHESS_MAX_THINK_SECONDS": args.think,
        "FERROCHESS_ANALYSIS_SECONDS": args.analysis_seconds,
        "FERROCHESS_DATABASE": args.database,
    }
    if args.engines is not None:
        config["FERROCHESS_ENGINES"] = args.engines
    return config


def run_play(args: argparse.Namespace) -> int:
    """Serve the play page until Ctrl-C."""
    import threading
    import webbrowser

    from werkzeug.serving import make_server

    from ferrochess.web import create_app

    config = _app_config(args)
    listener = _listen(args.host, args.port)
    if isinstance(listener, str):
        print(f"{PROG} play: cannot listen on {args.host}:{args.port}: {listener}", file=sys.stderr)
        return EXIT_USAGE
    from ferrochess.service.archive import ArchiveError

    with listener:
        port = listener.getsockname()[1]  # the system's choice for --port 0
        try:
            app = create_app(config)
        except ArchiveError as error:  # before the address is printed
            print(f"{PROG} play: cannot open the games archive {args.database!r}: {error}",
                  file=sys.stderr)  # fmt: skip
            return EXIT_USAGE
        # werkzeug's threaded server (what app.run starts) on the socket already listening.
        server = make_server(args.host, port, app, threaded=True, fd=listener.fileno())
    host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{host}:{port}/"
    print(f"ferrochess play: {url} (Ctrl-C to stop)", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    server.serve_forever()  # until Ctrl-C
    return 0


def add_serve_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve``: the play page and the games archive under a production WSGI server
    (the ``serve`` extra: waitress and Flask-Limiter; ``serve-gunicorn`` for gunicorn)."""
    from ferrochess.web.serving import DEFAULT_RATE_LIMIT, IDLE_THREADS, SHUTDOWN_MARGIN_SECONDS

    serve = commands.add_parser(
        "serve",
        help="serve the play page for many players (waitress or gunicorn)",
        description=(
            "Serve the play page, the analysis board and the games archive under a production "
            "WSGI server and print its address. Requests are logged on stderr (Apache's combined "
            "format plus the microseconds taken). SIGTERM or Ctrl-C stops it: running searches "
            f"get the think cap plus {SHUTDOWN_MARGIN_SECONDS:g} s to answer. Needs the serve "
            f"extra ({install_line('serve')}). See docs/serving.md."
        ),
    )
    add_page_options(
        serve, port=8000,
        engines_help="searches at once per process (default: the CPUs, shared among gunicorn's "
        "workers)",
    )  # fmt: skip
    serve.add_argument(
        "--server", choices=("waitress", "gunicorn"), default="waitress",
        help="waitress (default: one process, any platform) or gunicorn (Linux, several workers)",
    )  # fmt: skip
    serve.add_argument(
        "--workers", type=_bounded(int, 1, 256), default=None, metavar="N",
        help="gunicorn's worker processes, each with its own engines (default: 1)",
    )  # fmt: skip
    serve.add_argument(
        "--threads", type=_bounded(int, 1, 4096), default=None, metavar="N",
        help=f"request threads per process (default: 2 x engines + {IDLE_THREADS})",
    )  # fmt: skip
    serve.add_argument(
        "--proxies", type=_bounded(int, 0, 16), default=0, metavar="N",
        help="reverse proxies in front that set X-Forwarded-For/-Proto/-Host (default: 0; "
        "behind one nginx or Caddy: 1)",
    )  # fmt: skip
    # Read by run_serve, once the extra that reads them (Flask-Limiter's `limits`) is found.
    serve.add_argument(
        "--rate-limit", default=DEFAULT_RATE_LIMIT, metavar="SPEC",
        help="engine requests (move, review, analyse, judge, draw) per client address, per "
        "process, e.g. '60/minute;1000/day', or 'none' (default: %(default)s)",
    )  # fmt: skip
    serve.add_argument(
        "--rate-limit-storage", default="memory://", metavar="URI",
        help="where the rate limit counts: memory:// (each process its own; the default) or a "
        "store shared by gunicorn's workers and machines, e.g. redis://localhost:6379",
    )  # fmt: skip


def run_serve(args: argparse.Namespace) -> int:
    """Serve under waitress or gunicorn until SIGTERM or Ctrl-C (ferrochess.web.serving)."""
    from ferrochess.web import serving

    def refuse(why: str) -> int:
        print(f"{PROG} serve: {why}", file=sys.stderr)
        return EXIT_USAGE

    if args.server == "gunicorn":
        require_extra(f"{PROG} serve --server gunicorn", "serve-gunicorn", "gunicorn", "limits")
        if (why := serving.gunicorn_unavailable()) is not None:
            return refuse(why)
    else:
        require_extra(f"{PROG} serve", "serve", "waitress", "flask_limiter", "limits")
    try:
        rate_limit = serving.parse_rate_limit(args.rate_limit)
    except ValueError as error:
        return refuse(f"argument --rate-limit: {error}")
    try:
        serving.parse_rate_limit_storage(args.rate_limit_storage)
    except ValueError as error:
        return refuse(f"argument --rate-limit-storage: {error}")
    if args.server == "waitress" and args.workers not in (None, 1):
        return refuse("waitress runs one process: --workers needs --server gunicorn")
    config = _app_config(args)
    listener = _listen(args.host, args.port)
    if isinstance(listener, str):
        return refuse(f"cannot listen on {args.host}:{args.port}: {listener}")
    options = serving.ServeOptions(
        config=config, host=args.host, server=args.server, workers=args.workers,
        threads=args.threads, proxies=args.proxies, rate_limit=rate_limit,
        rate_limit_storage=args.rate_limit_storage, think_seconds=args.think,
    )  # fmt: skip
    from ferrochess.service.archive import ArchiveError

    with listener:
        try:
            return serving.serve(listener, options)
        except ArchiveError as error:  # raised before the address is printed
            return refuse(f"cannot open the games archive {args.database!r}: {error}")


def add_book_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``book build`` and ``book show``."""
    book = commands.add_parser(
        "book", help="build or look into Polyglot opening books", description="Opening books."
    )
    book_commands = book.add_subparsers(dest="book_command", metavar="ACTION", required=True)
    build = book_commands.add_parser(
        "build",
        help="build a book from PGN games, as 'polyglot make-book'",
        description=(
            "Build a Polyglot book from PGN games. A move scores 2 per win and 1 per draw for the "
            "side that played it; moves seen in fewer than --min-games games are left out. "
            "Broken games are skipped and counted."
        ),
    )
    build.add_argument("pgn", nargs="+", metavar="GAMES.pgn", help="PGN files to read")
    build.add_argument("-o", "--output", required=True, metavar="OUT.bin", help="book to write")
    build.add_argument(
        "--max-ply", type=int, default=_core.DEFAULT_BUILD_MAX_PLY, metavar="N",
        help="plies used per game (default: %(default)s)",
    )  # fmt: skip
    build.add_argument(
        "--min-games",
        type=int,
        default=_core.DEFAULT_BUILD_MIN_GAMES,
        metavar="N",
        help="games a move needs to be kept (default: %(default)s)",
    )
    add_progress_option(build)
    show = book_commands.add_parser(
        "show",
        help="list the book moves of a position",
        description="Print the book moves of FEN with their weights, heaviest first.",
    )
    show.add_argument("fen", metavar="FEN", help="the position, quoted as one argument")
    show.add_argument(
        "--book", default=DEFAULT_BOOK, metavar="BOOK", help="'default' (built in) or a path"
    )


class ProgressBar:
    """A one-line progress bar redrawn in place on a stream."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, games: int) -> None:
        fraction = done / total if total else 1.0
        filled = round(self.WIDTH * fraction)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        elapsed = time.monotonic() - self.started
        self.stream.write(
            f"\r[{bar}] {fraction:6.1%}  {done / 1e6:.1f}/{total / 1e6:.1f} MB  "
            f"{games} games  {elapsed:.0f} s"
        )
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def run_book(args: argparse.Namespace) -> int:
    """Execute ``book build`` or ``book show``."""
    if args.book_command == "build":
        bar = ProgressBar(sys.stderr) if show_progress(args) else None
        try:
            report = build_book(
                args.pgn,
                args.output,
                max_ply=args.max_ply,
                min_games=args.min_games,
                progress=bar,
            )
        finally:
            if bar is not None:
                bar.finish()
        for problem in report.problems:
            print(f"skipped: {problem}", file=sys.stderr)
        print(
            f"{report.games} games read, {report.broken_games} broken and skipped; "
            f"{report.positions} positions, {report.entries} entries written to {args.output}"
        )
    else:
        with open_book(args.book) as book:
            entries = sorted(book.find_all(args.fen), key=lambda e: -e.weight)
            total = sum(entry.weight for entry in entries) or 1
            for entry in entries:
                print(f"{entry.move.uci():6} {entry.weight:6} {entry.weight / total:7.1%}")
            if not entries:
                print("(not in the book)")
    return 0


def run(args: argparse.Namespace) -> int:
    """Execute the parsed command, printing its result; return the exit status."""
    if args.command == "bestmove":
        book = None if args.book.lower() == "none" else args.book
        move = select_move(
            args.fen, args.depth, book=book, seed=args.seed, syzygy_path=args.syzygy_path
        )
        print("(none)" if move is None else move)
    elif args.command == "perft":
        print(perft(args.fen, args.depth))
    elif args.command == "bench":
        result = bench(args.depth)
        print(f"Positions: {result['positions']}")
        print(f"Depth: {result['depth']}")
        print(f"Bench: {result['nodes']}")
        print(f"Time: {result['time']:.3f} s")
        print(f"Nodes/s: {result['nps']}")
    elif args.command == "book":
        return run_book(args)
    elif args.command == "play":
        return run_play(args)
    elif args.command == "serve":
        return run_serve(args)
    elif args.command == "analyse":
        return run_analyse(args)
    elif args.command == "match":
        from ferrochess.match.cli import main as match_main

        return match_main(args.options)
    elif args.command == "uci":
        sys.stdout.flush()
        _core.uci()
    else:  # pragma: no cover - argparse rejects unknown commands
        raise AssertionError(f"unknown command {args.command!r}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["match"]:  # fastchess-style single-dash options: not argparse's
        from ferrochess.match.cli import main as match_main

        return match_main(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    try:
        return run(args)
    except EngineError as error:
        print(f"{PROG} {args.command}: internal error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except FerrochessError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED

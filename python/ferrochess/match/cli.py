"""``ferrochess match``: a match from the command line, with the options of fastchess and
cutechess-cli (single dash; a double dash works too). :data:`HELP` is the syntax.

Contract: prints the result summary on stdout and exits 0; a bad option prints one line naming it
on stderr and exits 2; a player that cannot start exits 1; Ctrl-C stops the games, prints the
partial summary and exits 130.
"""

from __future__ import annotations

import logging
import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from ferrochess.engine import SearchOptions
from ferrochess.exceptions import FerrochessError, require_extra
from ferrochess.match.adjudication import Adjudication, DrawRule, ResignRule
from ferrochess.match.limits import Limit, TimeControl
from ferrochess.match.openings import DEFAULT_PLIES, Openings
from ferrochess.match.players import Ferrochess, Player, PlayerError, Uci
from ferrochess.match.runner import Match
from ferrochess.match.stats import SPRT

__all__ = ["HELP", "UsageError", "main", "parse"]

PROG = "ferrochess match"
EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130

HELP = """\
usage: ferrochess match -engine KEY=VALUE... -engine KEY=VALUE... [options]

Play a match between engines in game pairs (each opening twice, colours swapped) and print
W/D/L, the pentanomial, Elo and nElo with 95% intervals, LOS and the SPRT's LLR.

engines:
  -engine KEY=VALUE...   one player (give two or more); keys:
        cmd=COMMAND          a UCI engine (args=ARGS adds arguments, dir=DIR runs it there)
        builtin              ferrochess itself, in this process (no cmd=); with level=1..10 or
                             elo=800..2800, evaluation=network|classic, evalfile=PATH,
                             hash=MB, threads=N, syzygy=DIRS, and the search switches
                             alpha_beta= quiescence= move_ordering= transposition_table=
                             pruning= (true|false); option.Hash, option.Threads, option.Level,
                             option.UCI_Elo, option.Evaluation, option.EvalFile and
                             option.SyzygyPath also work
        name=NAME            how results and PGN call it
        proto=uci|xboard     the protocol of cmd= (default uci)
        tc=[MOVES/]BASE[+INC] a clock, seconds or min:sec (tc=10+0.1, tc=40/60, tc=inf)
        st=SECONDS           time per move
        nodes=N  depth=N     (plies=N is depth=N)
        timemargin=MS        milliseconds a move may overdraw the clock or st= (default 0)
        timeout=SECONDS      a UCI engine silent this long on an unbounded move loses (60)
        option.NAME=VALUE    a UCI option (option.Hash=16, option.UCI_Elo=1350)
        restart=on|off       accepted; an engine restarts only after a crash or a stall
  -each KEY=VALUE...     keys for every engine (an engine's own keys win)

games:
  -rounds N              rounds (default 1); games per pairing = rounds x games
  -games N               games per round (default 2); the total must be even
  -repeat                accepted: games are always played in pairs
  -concurrency N         games at once (default 1)
  -openings file=PATH format=epd|pgn|bin order=random|sequential plies=N start=N
                         openings (default: ferrochess's ECO lines, 8 plies, random order;
                         format from the file's extension; order sequential for a file)
  -variant standard|fischerandom    fischerandom (or chess960): the 960 numbered positions
                         unless -openings gives others
  -tournament gauntlet|roundrobin   with more than two engines (default roundrobin)
  -srand N               seed of the openings' order and of every game (default 1)

adjudication (fastchess's rules):
  -draw movenumber=N movecount=N score=CP      -resign movecount=N score=CP twosided=BOOL
  -maxmoves N            a draw after N moves played past the opening
  -tb DIRS               Syzygy tablebases; -tbpieces N, -tbignore50,
                         -tbadjudicate BOTH|WIN_LOSS|DRAW

test and output:
  -sprt elo0=E elo1=E alpha=0.05 beta=0.05 model=normalized|logistic   stop once it decides
  -pgnout file=PATH      append each finished game (also: -pgnout PATH)
  -event NAME            the PGN Event tag
  -progress / -noprogress    a line per finished game on stderr (default: on a terminal)
  -dask ADDRESS          play each pair as a task on a Dask scheduler (the dask extra)

example:
  ferrochess match -engine builtin level=8 -engine cmd=/usr/games/stockfish \\
      option.UCI_LimitStrength=true option.UCI_Elo=1350 -each tc=10+0.1 \\
      -rounds 50 -concurrency 2 -sprt elo0=0 elo1=50 -pgnout file=games.pgn
"""

_FLAGS = {"repeat", "tbignore50", "progress", "noprogress", "help", "h"}
_BUILTIN_OPTIONS = {"hash": "hash", "threads": "threads", "level": "level", "uci_elo": "elo",
                    "evaluation": "evaluation", "evalfile": "evalfile",
                    "syzygypath": "syzygy"}  # fmt: skip
_SWITCHES = ("alpha_beta", "quiescence", "move_ordering", "transposition_table", "pruning")
_ENGINE_KEYS = {"cmd", "builtin", "name", "proto", "tc", "st", "nodes", "depth", "plies",
                "timemargin", "timeout", "args", "dir", "restart", "level", "elo", "evaluation",
                "evalfile", "hash", "threads", "syzygy", *_SWITCHES}  # fmt: skip


class UsageError(ValueError):
    """A bad command line; the message names the option."""


def _options(argv: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Group the arguments: each option (``-name``) with the values that follow it."""
    groups: list[tuple[str, list[str]]] = []
    for token in argv:
        if re.match(r"^--?[A-Za-z]", token):
            groups.append((token.lstrip("-").lower(), []))
        elif not groups:
            raise UsageError(f"{token!r}: expected an option such as -engine")
        else:
            groups[-1][1].append(token)
    return groups


def _pairs(option: str, values: list[str], allowed: set[str] | None = None) -> dict[str, str]:
    found: dict[str, str] = {}
    for value in values:
        key, equals, text = value.partition("=")
        if key == "builtin" and not equals:
            key, text = "builtin", "true"
        elif not equals:
            raise UsageError(f"-{option}: {value!r} is not KEY=VALUE")
        if allowed is not None and key not in allowed and not key.startswith("option."):
            known = ", ".join(sorted(allowed))
            raise UsageError(f"-{option}: unknown key {key!r} (known: {known})")
        found[key] = text
    return found


def _number(option: str, key: str, text: str, kind: type = int, low: float = 0) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise UsageError(f"-{option}: {key}={text!r} is not a number") from None
    if value < low:
        raise UsageError(f"-{option}: {key}={text!r} must be at least {low:g}")
    return value


def _boolean(option: str, key: str, text: str) -> bool:
    lowered = text.lower()
    if lowered not in ("true", "false", "on", "off", "1", "0", "yes", "no"):
        raise UsageError(f"-{option}: {key}={text!r} is not true or false")
    return lowered in ("true", "on", "1", "yes")


def _uci_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _limit(option: str, keys: dict[str, str]) -> Limit | None:
    clock = None
    if keys.get("tc", "inf") not in ("inf", "infinite"):
        try:
            clock = TimeControl.parse(keys["tc"])
        except ValueError as error:
            raise UsageError(f"-{option}: tc: {error}") from None
    depth = keys.get("depth", keys.get("plies"))
    values = {
        "clock": clock,
        "nodes": _number(option, "nodes", keys["nodes"], int, 1) if "nodes" in keys else None,
        "depth": _number(option, "depth", depth, int, 1) if depth is not None else None,
        "movetime": _number(option, "st", keys["st"], float, 0.001) if "st" in keys else None,
        "margin": _number(option, "timemargin", keys.get("timemargin", "0"), float) / 1000,
    }
    if all(values[key] is None for key in ("clock", "nodes", "depth", "movetime")):
        return None
    return Limit(**values)


def _engine(keys: dict[str, str], own: dict[str, str]) -> Player:
    """The player ``keys`` describe (``-each``'s keys updated by the engine's ``own``)."""
    option = "engine"
    builtin = "builtin" in keys
    if builtin == ("cmd" in keys):
        raise UsageError("-engine: give cmd=COMMAND or builtin (one of them)")
    limit = _limit(option, keys)
    name = keys.get("name", "")
    uci_options = {key[len("option."):]: value for key, value in keys.items()
                   if key.startswith("option.")}  # fmt: skip
    if not builtin:
        command = shlex.split(keys["cmd"]) + shlex.split(keys.get("args", ""))
        timeout = _number(option, "timeout", keys.get("timeout", "60"), float, 0.001)
        proto = keys.get("proto", "uci")
        if proto not in ("uci", "xboard"):
            raise UsageError(f"-engine: proto={proto!r} must be uci or xboard")
        options = {key: _uci_value(value) for key, value in uci_options.items()}
        return Uci(command, options, proto, name, limit, timeout, keys.get("dir"))  # type: ignore[arg-type]
    for key, value in uci_options.items():
        mapped = _BUILTIN_OPTIONS.get(key.lower())
        if mapped is None and key.lower() != "uci_limitstrength":
            raise UsageError(f"-engine builtin: unknown option {key!r} (known: Hash, Threads, "
                             "Level, UCI_Elo, Evaluation, EvalFile, SyzygyPath)")  # fmt: skip
        if mapped is not None and (mapped not in keys or (f"option.{key}" in own
                                                          and mapped not in own)):  # fmt: skip
            keys[mapped] = value  # an engine's own option.Hash beats -each hash=
    switches = {key: _boolean(option, key, keys[key]) for key in _SWITCHES if key in keys}
    try:
        return Ferrochess(
            level=_number(option, "level", keys["level"], int, 1) if "level" in keys else None,
            elo=_number(option, "elo", keys["elo"], int, 1) if "elo" in keys else None,
            search_options=SearchOptions(**switches) if switches else None,
            evaluation=keys.get("evaluation", "network"), eval_file=keys.get("evalfile"),
            hash_mb=_number(option, "hash", keys.get("hash", "16"), int, 1),
            threads=_number(option, "threads", keys.get("threads", "1"), int, 1),
            syzygy_path=keys.get("syzygy", ""), limit=limit, name=name,
        )  # fmt: skip
    except ValueError as error:
        raise UsageError(f"-engine builtin: {error}") from None


def _single(option: str, values: list[str]) -> str:
    if len(values) != 1:
        raise UsageError(f"-{option}: expected one value, got {len(values)}")
    return values[0]


def parse(argv: Sequence[str]) -> dict[str, Any]:
    """The keyword arguments of :class:`~ferrochess.match.Match` that ``argv`` asks for, plus
    ``"dask"`` (a scheduler address or None); a bad option raises :class:`UsageError`."""
    engines: list[dict[str, str]] = []
    each: dict[str, str] = {}
    settings: dict[str, Any] = {"rounds": 1, "games": 2, "seed": 1, "concurrency": 1}
    adjudication: dict[str, Any] = {}
    kwargs: dict[str, Any] = {"dask": None}
    openings: dict[str, str] | None = None
    variant, tournament = "standard", None
    for option, values in _options(argv):
        if option in _FLAGS and values and option not in ("repeat",):
            raise UsageError(f"-{option}: takes no value")
        if option == "engine":
            engines.append(_pairs(option, values, _ENGINE_KEYS))
        elif option == "each":
            each.update(_pairs(option, values, _ENGINE_KEYS))
        elif option in ("rounds", "games", "concurrency"):
            settings[option] = _number(option, option, _single(option, values), int, 1)
        elif option == "srand":
            settings["seed"] = _number(option, option, _single(option, values), int)
        elif option == "repeat":
            if values and values != ["2"]:
                raise UsageError("-repeat: games are played in pairs: only -repeat or -repeat 2")
        elif option == "openings":
            openings = _pairs(option, values, {"file", "format", "order", "plies", "start"})
        elif option == "variant":
            variant = _single(option, values).lower()
            if variant not in ("standard", "fischerandom", "chess960", "frc"):
                raise UsageError(f"-variant: {variant!r} must be standard or fischerandom")
        elif option == "tournament":
            tournament = _single(option, values).lower()
            if tournament not in ("gauntlet", "roundrobin", "match"):
                raise UsageError(f"-tournament: {tournament!r} must be gauntlet or roundrobin")
        elif option == "sprt":
            keys = _pairs(option, values, {"elo0", "elo1", "alpha", "beta", "model"})
            if "elo0" not in keys or "elo1" not in keys:
                raise UsageError("-sprt: give elo0= and elo1=")
            try:
                kwargs["sprt"] = SPRT(
                    _number(option, "elo0", keys["elo0"], float, -1e9),
                    _number(option, "elo1", keys["elo1"], float, -1e9),
                    _number(option, "alpha", keys.get("alpha", "0.05"), float),
                    _number(option, "beta", keys.get("beta", "0.05"), float),
                    keys.get("model", "normalized"),  # type: ignore[arg-type]
                )
            except ValueError as error:
                raise UsageError(f"-sprt: {error}") from None
        elif option in ("draw", "resign"):
            keys = _pairs(option, values, {"movenumber", "movecount", "score"} if option == "draw"
                          else {"movecount", "score", "twosided"})  # fmt: skip
            numbers = {k: (_boolean(option, k, v) if k == "twosided" else _number(option, k, v))
                       for k, v in keys.items()}  # fmt: skip
            try:
                adjudication[option] = (DrawRule if option == "draw" else ResignRule)(**numbers)
            except ValueError as error:
                raise UsageError(f"-{option}: {error}") from None
        elif option == "maxmoves":
            adjudication["max_moves"] = _number(option, option, _single(option, values), int, 1)
        elif option == "tb":
            adjudication["tablebase"] = _single(option, values)
        elif option == "tbpieces":
            adjudication["tb_pieces"] = _number(option, option, _single(option, values), int, 1)
        elif option == "tbignore50":
            adjudication["tb_ignore_50"] = True
        elif option == "tbadjudicate":
            kind = _single(option, values).lower()
            if kind not in ("both", "win_loss", "draw"):
                raise UsageError(f"-tbadjudicate: {kind!r} must be BOTH, WIN_LOSS or DRAW")
            adjudication["tb_results"] = kind
        elif option == "pgnout":
            if len(values) == 1 and "=" not in values[0]:
                kwargs["pgn"] = values[0]
            else:
                kwargs["pgn"] = _pairs(option, values, {"file"}).get("file")
                if kwargs["pgn"] is None:
                    raise UsageError("-pgnout: give file=PATH")
        elif option == "event":
            kwargs["event"] = " ".join(values)
        elif option in ("progress", "noprogress"):
            kwargs["progress"] = option == "progress"
        elif option == "dask":
            kwargs["dask"] = _single(option, values)
        else:
            raise UsageError(f"-{option}: unknown option (see 'ferrochess match -help')")
    if len(engines) < 2:
        raise UsageError(f"-engine: give at least two engines, not {len(engines)}")
    players = [_engine({**each, **keys}, keys) for keys in engines]
    for number, player in enumerate(players, 1):
        if player.limit is None:
            raise UsageError(f"-engine ({player.name}, engine {number}): no limit: give tc=, "
                             "st=, nodes= or depth= (or -each tc=...)")  # fmt: skip
    games = settings["rounds"] * settings["games"]
    if games % 2:
        raise UsageError(f"-games/-rounds: {settings['rounds']} x {settings['games']} = {games} "
                         "games; it must be even (game pairs)")  # fmt: skip
    chess960 = variant != "standard"
    kwargs.update(
        players=players, games=games, seed=settings["seed"],
        concurrency=settings["concurrency"], chess960=chess960,
        tournament=tournament or ("match" if len(players) == 2 else "roundrobin"),
        openings=_openings(openings, chess960),
    )  # fmt: skip
    if adjudication:
        try:
            kwargs["adjudication"] = Adjudication(**adjudication)
        except ValueError as error:
            raise UsageError(f"adjudication: {error}") from None
    return kwargs


def _openings(keys: dict[str, str] | None, chess960: bool) -> Openings | None:
    if keys is None:
        return None
    option = "openings"
    path = keys.get("file")
    if not path:
        raise UsageError("-openings: give file=PATH")
    kind = keys.get("format") or path.rpartition(".")[2].lower()
    order = keys.get("order", "sequential")
    if order not in ("random", "sequential"):
        raise UsageError(f"-openings: order={order!r} must be random or sequential")
    start = _number(option, "start", keys.get("start", "1"), int, 1)
    plies = _number(option, "plies", keys["plies"], int, 0) if "plies" in keys else None
    if kind == "epd":
        return Openings.epd(path, order=order, start=start)  # type: ignore[arg-type]
    if kind == "pgn":
        return Openings.pgn(path, plies=plies, order=order, start=start)  # type: ignore[arg-type]
    if kind in ("bin", "polyglot"):
        return Openings.book(path, plies=DEFAULT_PLIES if plies is None else plies, start=start)
    raise UsageError(f"-openings: format={kind!r} must be epd, pgn or bin")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ferrochess match`` with ``argv`` (default: ``sys.argv[1:]``); the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # XBoard engines echo commands back, which python-chess logs as a warning per line.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    if not argv or any(token in ("-h", "-help", "--help") for token in argv):
        print(HELP, end="")
        return 0 if argv else EXIT_USAGE
    try:
        kwargs = parse(argv)
        address = kwargs.pop("dask")
        if address is not None:
            require_extra(f"{PROG} -dask", "dask", "distributed")
            import distributed

            kwargs["client"] = distributed.Client(address)  # type: ignore[no-untyped-call]
        running = Match(kwargs.pop("players"), **kwargs)
    except (UsageError, ValueError, FerrochessError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return EXIT_USAGE
    running.start()
    status = 0
    try:
        while not running.wait(0.2):
            pass
    except KeyboardInterrupt:
        running.stop()
        status = EXIT_INTERRUPTED
    try:
        result = running.result()
    except PlayerError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except (ValueError, FerrochessError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(result)
    return status

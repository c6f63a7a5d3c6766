"""A match between two chess engines (UCI or XBoard) on python-chess: games, score and Elo.

Contract: plays `--games` games (even: each opening twice, colours swapped) between the two
`--engine` specs, one game at a time, on a base+increment clock (`--tc 10+0.1`, seconds) that
this runner keeps: each move's wall time is taken off the mover's clock, the increment added; a
clock below minus `--time-margin` (milliseconds, 0 by default; cutechess-cli's `timemargin`)
loses on time (a draw if the opponent has no mating material), an illegal or missing move loses;
a move that overdraws the clock by less than the margin is counted in the summary, its debt stays
on the clock and the engine is told its clock as zero. Openings: the first `--opening-plies` (8)
plies of lines drawn (seeded) from ferrochess's ECO opening lines,
`src/book/openings/eco_lines.pgn`, balanced by construction (each line scored within +-0.9 pawns
by Stockfish). With `--chess960` the games are Chess960 instead: each pair starts from one of
the 960 numbered start positions (python-chess `chess.Board.from_chess960_pos`), drawn with
`--seed`, and python-chess tells both engines `setoption name UCI_Chess960 value true` (an engine
without the option cannot play). Games end by checkmate, stalemate, insufficient material,
threefold repetition or the 50-move rule (claimed automatically), or are drawn at `--max-plies`.
Writes every game to `--pgn` as it finishes (each engine move with a `[%clk]` comment: the mover's
clock after it, increment added) and prints the first engine's W/D/L, score and Elo
difference with its 95% interval; with `--sprt elo0,elo1` it also runs a sequential probability
ratio test (alpha = beta = 0.05) and stops once it decides. Exit 1 if any game had a time forfeit
or an illegal move (reported by engine).

An engine spec is `COMMAND[;proto=uci|xboard][;name=NAME][;OPTION=VALUE...]`, for example
`target/release/ferrochess-uci;UCI_LimitStrength=true;UCI_Elo=1400` or
`/usr/games/stockfish;UCI_LimitStrength=true;UCI_Elo=1350` or `/usr/games/phalanx;proto=xboard`.
XBoard engines get the clock as `level 0 M:SS INC` plus `time`/`otim` before every move; Phalanx
reads a fractional increment as 0, so it plans as if it had none (its clock here still gets it).

    python -m ferrochess_tools.match --engine SPEC --engine SPEC [--games 40] [--tc 10+0.1]
        [--pgn out.pgn] [--seed 1] [--sprt 0,10] [--time-margin 100] [--chess960] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import logging
import math
import random
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

from ferrochess_tools import REPO_ROOT, print_summary

OPENING_LINES = REPO_ROOT / "src" / "book" / "openings" / "eco_lines.pgn"


@dataclass
class Spec:
    command: list[str]
    proto: str = "uci"
    name: str = ""
    options: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def parse(text: str) -> Spec:
        command, *settings = text.split(";")
        spec = Spec(shlex.split(command))
        for setting in settings:
            key, _, value = setting.partition("=")
            key = key.strip()
            if key == "proto":
                spec.proto = value.strip()
            elif key == "name":
                spec.name = value.strip()
            elif key:
                spec.options[key] = value.strip()
        spec.name = spec.name or (Path(spec.command[0]).name + "".join(
            f" {k}={v}" for k, v in spec.options.items() if k.startswith("UCI_")))  # fmt: skip
        return spec

    def open(self) -> chess.engine.SimpleEngine:
        if self.proto == "xboard":
            engine = chess.engine.SimpleEngine.popen_xboard(self.command, timeout=60)
        else:
            engine = chess.engine.SimpleEngine.popen_uci(self.command, timeout=60)
        options: dict[str, Any] = {}
        for key, value in self.options.items():
            lowered = value.lower()
            options[key] = (
                lowered == "true" if lowered in ("true", "false")
                else int(value) if value.lstrip("-").isdigit() else value
            )  # fmt: skip
        if options:
            engine.configure(options)
        return engine


def openings(count: int, plies: int, seed: int) -> list[list[chess.Move]]:
    """`count` distinct opening lines of `plies` plies from the ECO lines, chosen with `seed`."""
    lines: dict[str, list[chess.Move]] = {}
    with OPENING_LINES.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            moves = list(game.mainline_moves())[:plies]
            lines[" ".join(m.uci() for m in moves)] = moves
    keys = sorted(lines)
    random.Random(seed).shuffle(keys)
    return [lines[key] for key in keys[:count]]


def chess960_starts(count: int, seed: int) -> list[int]:
    """`count` Chess960 start position numbers (0-959) chosen with `seed`, distinct while `count`
    is at most 960."""
    numbers = list(range(960))
    random.Random(seed).shuffle(numbers)
    return [numbers[index % 960] for index in range(count)]


@dataclass
class Outcome:
    result: str  # "1-0", "0-1", "1/2-1/2"
    reason: str
    forfeit: chess.Color | None = None  # the side that lost on time or by an illegal move
    # moves per side that overdrew the clock by less than the time margin
    overdrawn: dict[chess.Color, int] = field(default_factory=dict)


def play_game(
    white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, opening: list[chess.Move],
    base: float, increment: float, max_plies: int, margin: float = 0.0,
    start: chess.Board | None = None,
) -> tuple[chess.pgn.Game, Outcome]:  # fmt: skip
    """One game from `start` (the standard start position by default; a Chess960 board plays
    Chess960) after the `opening` moves."""
    board = start.copy() if start is not None else chess.Board()
    for move in opening:
        board.push(move)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    engines = {chess.WHITE: white, chess.BLACK: black}
    outcome: Outcome | None = None
    overdrawn = {chess.WHITE: 0, chess.BLACK: 0}
    clock_after: list[float] = []  # the mover's clock after each engine move, increment added
    while outcome is None:
        finished = board.outcome(claim_draw=True)
        if finished is not None:
            outcome = Outcome(finished.result(), finished.termination.name.lower())
            break
        if board.ply() >= max_plies:
            outcome = Outcome("1/2-1/2", "adjudicated at the ply limit")
            break
        side = board.turn
        limit = chess.engine.Limit(
            white_clock=max(clocks[chess.WHITE], 0.0), black_clock=max(clocks[chess.BLACK], 0.0),
            white_inc=increment, black_inc=increment,
        )  # fmt: skip
        start = time.perf_counter()
        try:
            move = engines[side].play(board, limit, game=id(board)).move
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as error:
            move = None
            print(f"engine error: {error}", file=sys.stderr)
        clocks[side] -= time.perf_counter() - start
        loser = "1-0" if side == chess.BLACK else "0-1"
        winner_can_mate = not board.has_insufficient_material(not side)
        if move is None or move not in board.legal_moves:
            outcome = Outcome(loser, f"illegal move {move}", forfeit=side)
            break
        if clocks[side] < 0 and -clocks[side] <= margin:
            overdrawn[side] += 1
        elif clocks[side] < 0:
            over_ms = -clocks[side] * 1000
            outcome = Outcome(loser if winner_can_mate else "1/2-1/2",
                              f"time forfeit ({over_ms:.0f} ms over, move {board.fullmove_number})",
                              forfeit=side)  # fmt: skip
            break
        clocks[side] += increment
        clock_after.append(clocks[side])
        board.push(move)
    game = chess.pgn.Game.from_board(board)
    # `[%clk]` comments (as lichess writes them) on the engines' moves, not the opening's
    for node, clock in zip(list(game.mainline())[len(opening):], clock_after):
        node.set_clock(max(clock, 0.0))
    game.headers["Result"] = outcome.result
    game.headers["Termination"] = outcome.reason
    outcome.overdrawn = overdrawn
    return game, outcome


def parse_tc(text: str) -> tuple[float, float]:
    """`base+increment` in seconds (`10+0.1`; `10` has no increment)."""
    base, _, increment = text.partition("+")
    return float(base), float(increment or 0)


def elo_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo difference and its 95% interval from a W/D/L record (normal approximation)."""
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    margin = 1.96 * math.sqrt(variance / games)

    def elo(s: float) -> float:
        s = min(max(s, 1e-6), 1 - 1e-6)
        return -400 * math.log10(1 / s - 1)

    return elo(score), elo(score - margin), elo(score + margin)


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of elo1 against elo0 (the GSPRT normal approximation)."""
    games = wins + draws + losses
    if games == 0 or wins + losses == 0:
        return 0.0
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    if variance <= 0:
        return 0.0
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return (s1 - s0) * (2 * score - s0 - s1) / (2 * variance / games)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.match",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", required=True, help="engine spec (twice)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--tc", default="10+0.1", help="base+increment in seconds")
    parser.add_argument("--opening-plies", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pgn", type=Path, default=None)
    parser.add_argument("--sprt", default=None, help="elo0,elo1")
    parser.add_argument("--time-margin", type=float, default=0.0,
                        help="milliseconds a clock may overdraw before losing on time")  # fmt: skip
    parser.add_argument("--chess960", action="store_true",
                        help="play Chess960 from seeded numbered start positions")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # XBoard engines such as Phalanx echo every command back ("you play both", "post off"), which
    # python-chess logs as a warning per line; engine errors are still reported below.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    if len(args.engine) != 2:
        parser.error("give exactly two --engine specs")
    first, second = (Spec.parse(text) for text in args.engine)
    base_s, inc_s = parse_tc(args.tc)
    pairs = (args.games + 1) // 2
    if args.chess960:
        starts = [chess.Board.from_chess960_pos(n) for n in chess960_starts(pairs, args.seed)]
        lines: list[list[chess.Move]] = [[] for _ in starts]
    else:
        starts = [chess.Board() for _ in range(pairs)]
        lines = openings(pairs, args.opening_plies, args.seed)
    bounds = None
    if args.sprt:
        elo0, elo1 = (float(x) for x in args.sprt.split(","))
        bounds = (elo0, elo1, math.log(0.05 / 0.95), math.log(0.95 / 0.05))
    wins = draws = losses = 0
    forfeits: list[str] = []
    overdrawn = {first.name: 0, second.name: 0}
    decided = None
    one, two = first.open(), second.open()
    try:
        for index in range(args.games):
            opening = lines[index // 2]
            first_white = index % 2 == 0
            white, black = (one, two) if first_white else (two, one)
            game, outcome = play_game(white, black, opening, base_s, inc_s, args.max_plies,
                                      args.time_margin / 1000, starts[index // 2])  # fmt: skip
            game.headers["Event"] = "ferrochess match"
            game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
            game.headers["Round"] = str(index + 1)
            game.headers["White"] = first.name if first_white else second.name
            game.headers["Black"] = second.name if first_white else first.name
            game.headers["TimeControl"] = args.tc
            if args.pgn is not None:
                with args.pgn.open("a", encoding="utf-8") as out:
                    print(game, file=out, end="\n\n")
            points = {"1-0": 1.0, "0-1": 0.0}.get(outcome.result, 0.5)
            points = points if first_white else 1 - points
            wins += points == 1.0
            draws += points == 0.5
            losses += points == 0.0
            if outcome.forfeit is not None:
                culprit = game.headers["White" if outcome.forfeit == chess.WHITE else "Black"]
                forfeits.append(f"game {index + 1}: {outcome.reason} ({culprit})")
            for color, count in outcome.overdrawn.items():
                overdrawn[game.headers["White" if color == chess.WHITE else "Black"]] += count
            print(f"game {index + 1}: {game.headers['White']} - {game.headers['Black']} "
                  f"{outcome.result} ({outcome.reason}); {first.name}: +{wins} ={draws} -{losses}",
                  file=sys.stderr, flush=True)  # fmt: skip
            if bounds is not None:
                llr = sprt_llr(wins, draws, losses, bounds[0], bounds[1])
                if llr <= bounds[2] or llr >= bounds[3]:
                    decided = "H1 (elo1)" if llr >= bounds[3] else "H0 (elo0)"
                    break
    finally:
        one.quit()
        two.quit()
    games = wins + draws + losses
    elo, low, high = elo_interval(wins, draws, losses)
    summary = {
        "engine": first.name,
        "opponent": second.name,
        "tc": args.tc,
        "chess960": args.chess960,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": round((wins + draws / 2) / games, 4),
        "elo": round(elo, 1),
        "elo_95": [round(low, 1), round(high, 1)],
        "forfeits": forfeits,
        "time_margin_ms": args.time_margin,
        "moves_within_margin": overdrawn,
        "sprt": decided,
    }
    print_summary(summary, args.json)
    return 1 if forfeits else 0


if __name__ == "__main__":
    sys.exit(main())

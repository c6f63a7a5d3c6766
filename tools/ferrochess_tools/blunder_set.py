"""Make the labelled set of real blunders that the explanations are measured on.

Each game's main line is scanned with Stockfish at a shallow depth; a move that drops its side's
winning chances (lichess's curve, :data:`ferrochess.analysis.WIN_SCALE`, with centipawns clamped to
+-1000 as lichess's analysis board clamps them, mates as +-1) by at least :data:`BLUNDER_DROP` from
a position not already lost is a blunder. The position after it is then searched at ``--depth`` and
labelled with what Stockfish's refutation does:

- ``{"kind": "mate", "mate": n}``: the refutation mates in ``n`` (moves);
- ``{"kind": "material", "piece": "rook", "square": "a1", "net": 5, "won": [...], "taken": [...]}``:
  walking the refutation (at most :data:`WALK_PLIES` plies), the blunderer ends ``net`` pawns down
  (1/3/3/5/9); ``taken`` lists every piece of the blunderer the line takes (``"pawn@c2"``), ``won``
  the same less the trades (a piece the blunderer takes back for one of equal worth cancels it),
  and ``piece`` is the most valuable of ``won`` and ``square`` where it is taken;
- ``{"kind": "promotion", "net": n}``: the material is won by promoting, not by taking;
- ``{"kind": "positional"}``: the line wins no material (kept apart, not part of the tactical set).

One JSON object per line: ``fen`` (before the blunder), ``move`` (UCI), ``san``, ``game``
(white, black, site, date, ply), ``label``, ``pv`` (the refutation, UCI), ``score`` (after the
blunder, the blunderer's view: ``{"cp": n}`` or ``{"mate": n}``), and ``best``: Stockfish's best
move there (``move``, ``pv``) labelled the same way for the blunderer (what the missed win wins).

    python -m ferrochess_tools.blunder_set ../shared/data/pgn/lichess_db_100k.pgn \
        --max-elo 2200 --limit 150 --out benches/data/explain_blunders.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
from ferrochess.analysis import WIN_SCALE
from ferrochess.explain import PIECE_VALUES, material

BLUNDER_DROP = 0.3
"""The least drop of winning chances (-1..1, the mover's view) that makes a blunder: lichess's."""
LOST_BEFORE = -300
"""A move from a position this bad (centipawns, the mover's view) or worse is not labelled."""
WALK_PLIES = 12
"""The most plies of Stockfish's refutation walked for material."""


def winning_chances(score: chess.engine.Score) -> float:
    """The side's winning chances on -1..1 (lichess's curve, centipawns clamped to +-1000,
    mates as +-1)."""
    mate = score.mate()
    if mate is not None:
        return 1.0 if mate > 0 else -1.0
    cp = max(-1000, min(1000, score.score() or 0))
    return 2 / (1 + math.exp(-WIN_SCALE * cp)) - 1


def label(
    board: chess.Board,
    score: chess.engine.Score,
    pv: list[chess.Move],
    played: chess.Move | None = None,
) -> dict[str, Any]:
    """What the line ``pv`` wins for its side (the winner) from the other (the loser).

    Without ``played``, ``pv`` starts at ``board`` and the winner is the side to move there (a
    missed win: Stockfish's best line before the blunder). With ``played`` (the blunder), ``board``
    is the position before it and ``pv`` the refutation after it: the blunder is the loser's first
    move of the line, so what it took counts (a blunder that takes a piece and loses its own to the
    recapture is a trade). ``score`` is the evaluation at the start of ``pv`` from the winner's
    view."""
    mate = score.mate()
    if mate is not None and mate > 0:
        return {"kind": "mate", "mate": mate}
    walk = board.copy(stack=False)
    loser = walk.turn if played is not None else not walk.turn
    start = material(walk, loser)
    taken: list[tuple[int, chess.PieceType, chess.Square]] = []
    taken_back: list[int] = []
    if played is not None:
        if walk.is_capture(played):
            taken_back.append(PIECE_VALUES[walk.piece_type_at(played.to_square) or chess.PAWN])
        walk.push(played)
    promoted = False
    for move in pv[:WALK_PLIES]:
        if move not in walk.legal_moves:
            break
        if walk.is_capture(move):
            square = move.to_square
            if walk.is_en_passant(move):
                square = chess.square(
                    chess.square_file(square), chess.square_rank(move.from_square)
                )
            piece = walk.piece_type_at(square) or chess.PAWN
            if walk.turn != loser:
                taken.append((PIECE_VALUES[piece], piece, square))
            else:
                taken_back.append(PIECE_VALUES[piece])
        if walk.turn != loser and move.promotion is not None:
            promoted = True
        walk.push(move)
    net = start - material(walk, loser)
    won = list(taken)
    for value in taken_back:  # a piece taken back for one of equal worth is a trade (the latest
        # such capture cancels: the line's point is its first win)
        match = next((entry for entry in reversed(won) if entry[0] == value), None)
        if match is not None:
            won.remove(match)
    if net <= 0:
        return {"kind": "positional"}
    if not won:
        return {"kind": "promotion" if promoted else "positional", "net": net}
    _, piece, square = max(won, key=lambda entry: entry[0])
    return {
        "kind": "material",
        "piece": chess.piece_name(piece),
        "square": chess.square_name(square),
        "net": net,
        "won": [f"{chess.piece_name(p)}@{chess.square_name(s)}" for _, p, s in won],
        "taken": [f"{chess.piece_name(p)}@{chess.square_name(s)}" for _, p, s in taken],
    }


def relabel(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with both labels made again from its stored lines and scores (no search)."""
    board = chess.Board(entry["fen"])
    move = chess.Move.from_uci(entry["move"])
    score = entry["score"]
    refuted = (
        chess.engine.Mate(score["mate"])
        if score.get("mate") is not None
        else chess.engine.Cp(score["cp"])
    )
    pv = [chess.Move.from_uci(uci) for uci in entry["pv"]]
    best = entry["best"]
    best_score = chess.engine.Mate(best["mate"]) if best["kind"] == "mate" else chess.engine.Cp(0)
    best_pv = [chess.Move.from_uci(uci) for uci in best["pv"]]
    return {
        **entry,
        "label": label(board, -refuted, pv, move),
        "best": {**label(board, best_score, best_pv), "move": best["move"], "pv": best["pv"]},
    }


def game_key(white: str, black: str, site: str, date: str) -> tuple[str, str, str, str]:
    """What tells one game from another across sets: its players, site and date."""
    return (white, black, site, date)


def excluded(paths: list[Path]) -> set[tuple[str, str, str, str]]:
    """The games of the labelled sets ``paths`` (JSON lines), to keep a new set apart from them."""
    keys = set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                game = json.loads(line)["game"]
                keys.add(game_key(game["white"], game["black"], game["site"], game["date"]))
    return keys


def games(
    paths: list[Path],
    max_elo: int | None,
    skip: set[tuple[str, str, str, str]] | None = None,
) -> Iterator[chess.pgn.Game]:
    """The games of ``paths`` in order; with ``max_elo``, only those whose players are both rated
    below it (a game without ratings is kept); none of ``skip`` (:func:`game_key`)."""
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                headers = game.headers
                key = game_key(
                    *(headers.get(tag, "?") for tag in ("White", "Black", "Site", "Date"))
                )
                if skip and key in skip:
                    continue
                if max_elo is not None:
                    elos = [game.headers.get(tag, "") for tag in ("WhiteElo", "BlackElo")]
                    if any(elo.isdigit() and int(elo) >= max_elo for elo in elos):
                        continue
                yield game


def blunders(
    game: chess.pgn.Game, engine: chess.engine.SimpleEngine, scan_depth: int, depth: int
) -> Iterator[dict[str, Any]]:
    """The labelled blunders of ``game``'s main line."""
    board = game.board()
    moves = list(game.mainline_moves())
    scores = []
    for ply in range(len(moves) + 1):
        if board.is_game_over():
            break
        info = engine.analyse(board, chess.engine.Limit(depth=scan_depth))
        scores.append(info["score"].pov(board.turn))
        if ply < len(moves):
            board.push(moves[ply])
    board = game.board()
    for ply, move in enumerate(moves[: len(scores) - 1]):
        before = scores[ply]
        after = -scores[ply + 1]  # the mover's view
        lost = before.score(mate_score=100000) <= LOST_BEFORE
        drop = winning_chances(before) - winning_chances(after)
        if not lost and drop >= BLUNDER_DROP:
            san = board.san(move)
            fen = board.fen()
            info = engine.analyse(board, chess.engine.Limit(depth=depth))
            best_pv = info.get("pv", [])
            best = {
                **label(board, info["score"].pov(board.turn), best_pv),
                "move": best_pv[0].uci() if best_pv else None,
                "pv": [step.uci() for step in best_pv],
            }
            board.push(move)
            info = engine.analyse(board, chess.engine.Limit(depth=depth))
            refuted = info["score"].pov(not board.turn)
            winner_score = info["score"].pov(board.turn)
            pv = info.get("pv", [])
            mate = refuted.mate()
            yield {
                "fen": fen,
                "move": move.uci(),
                "san": san,
                "game": {
                    "white": game.headers.get("White", "?"),
                    "black": game.headers.get("Black", "?"),
                    "site": game.headers.get("Site", "?"),
                    "date": game.headers.get("Date", "?"),
                    "ply": ply + 1,
                },
                "label": label(chess.Board(fen), winner_score, pv, move),
                "best": best,
                "pv": [step.uci() for step in pv],
                "score": {"mate": mate} if mate is not None else {"cp": refuted.score()},
            }
        else:
            board.push(move)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--engine", default="/usr/games/stockfish")
    parser.add_argument("--scan-depth", type=int, default=10)
    parser.add_argument("--depth", type=int, default=18, help="the labelling search's depth")
    parser.add_argument("--max-elo", type=int, default=None)
    parser.add_argument("--limit", type=int, default=150, help="stop after this many blunders")
    parser.add_argument("--per-game", type=int, default=3, help="at most this many per game")
    parser.add_argument("--hash", type=int, default=64)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="a labelled set (JSON lines) whose games are left out, to keep a new set apart",
    )
    parser.add_argument(
        "--relabel",
        action="store_true",
        help="make the labels of the sets PGN... (JSON lines, not PGN) again "
        "from their stored lines into --out, without searching",
    )
    args = parser.parse_args(argv)
    seen: set[tuple[str, str]] = set()  # a game in two files is labelled once
    if args.relabel:
        with args.out.open("w", encoding="utf-8") as out:
            for path in args.pgn:
                for line in path.read_text(encoding="utf-8").splitlines():
                    entry = json.loads(line) if line.strip() else None
                    if entry is None or (entry["fen"], entry["move"]) in seen:
                        continue
                    seen.add((entry["fen"], entry["move"]))
                    out.write(json.dumps(relabel(entry)) + "\n")
        return 0
    found = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": args.hash})
        with args.out.open("w", encoding="utf-8") as out:
            for game in games(args.pgn, args.max_elo, excluded(args.exclude)):
                engine.configure({"Clear Hash": None})
                for count, entry in enumerate(blunders(game, engine, args.scan_depth, args.depth)):
                    if count >= args.per_game:
                        break
                    if (entry["fen"], entry["move"]) in seen:
                        continue
                    seen.add((entry["fen"], entry["move"]))
                    out.write(json.dumps(entry) + "\n")
                    out.flush()
                    found += 1
                    print(f"{found}: {entry['san']} {entry['label']}", file=sys.stderr)
                    if found >= args.limit:
                        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

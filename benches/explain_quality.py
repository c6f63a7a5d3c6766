"""How often the review's explanation says what Stockfish's refutation of a blunder does.

The labelled sets (``benches/data/explain_blunders_*.jsonl``, made by
``python -m ferrochess_tools.blunder_set``: real blunders from ``../shared/data/pgn``, each with
what Stockfish 15.1's refutation wins at a fixed depth) are the reference. Each blunder is
reviewed as the play page reviews a game (:func:`ferrochess.analysis.review_move` on
ferrochess's searches of the positions before and after it, ``--nodes`` 150,000 each, the page's
review limit), and its sentence is sorted:

- **matched**: it says what the refutation does: "mate" for a mate; for material, a piece that
  Stockfish's line takes and that is worth at least what the line wins (the most valuable piece it
  wins, trades taken out, or its net material, the lesser), written "<piece> on <square>" with the
  square where it stands or where the line takes it; for a promotion, "promot";
- **silent**: no sentence (the move not judged a mistake at all, or judged without a sentence);
- **missed**: a true sentence that is not the point: it names only pieces Stockfish's line takes on
  the way, or it is about a missed win ("misses Nxe5, which wins the pawn on e5") that Stockfish's
  best line before the blunder (``best``) bears out;
- **false**: a sentence that says what Stockfish's line does not do: a mate it does not give, a
  piece it does not take (a missed-win sentence is checked against Stockfish's best line instead).

The **tactical** blunders, whose refutation mates or wins at least two pawns' worth (a piece, the
exchange, two pawns), are the measure; those whose refutation wins a single pawn (often after
quiet moves, where a sentence is least sure) are counted apart, with the same sorting. Blunders
whose refutation wins no material (labelled ``positional``) are counted apart too: for them
silence is right, a missed-win sentence that Stockfish's best line bears out is matched, and a
sentence that names what Stockfish's lines do not take, or a mate they do not give, is false.

With ``--stockfish-line`` each blunder is explained from Stockfish's labelled refutation instead
of ferrochess's searches (every blunder counted as judged): what the rules make of the reference
line itself, apart from the engine's lines and judgement.

    python benches/explain_quality.py benches/data/explain_blunders_*.jsonl \
        --json target/bench/explain.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import chess
import chess.engine
from _common import add_json_option, emit_json, import_ferrochess

PIECE_ON = re.compile(r"\b(pawn|knight|bishop|rook|queen|king) on ([a-h][1-8])\b")


VALUES = {"pawn": 1, "knight": 3, "bishop": 3, "rook": 5, "queen": 9, "king": 0}


def taken_by(fen: str, pv: list[str]) -> set[tuple[str, str]]:
    """Every piece of the side not to move at ``fen`` that the line ``pv`` (UCI) takes, as
    (piece, square): once with the square where it is taken, once with the square where it
    stood at ``fen`` (the same unless it moved on the way)."""
    board = chess.Board(fen)
    loser = not board.turn
    origin = {square: square for square in chess.SquareSet(board.occupied_co[loser])}
    taken = set()
    for uci in pv:
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            break
        if board.turn != loser and board.is_capture(move):
            square = move.to_square
            if board.is_en_passant(move):
                square = chess.square(
                    chess.square_file(square), chess.square_rank(move.from_square)
                )
            piece = chess.piece_name(board.piece_type_at(square) or chess.PAWN)
            taken.add((piece, chess.square_name(square)))
            if square in origin:
                taken.add((piece, chess.square_name(origin.pop(square))))
        elif board.turn == loser and move.from_square in origin:
            origin[move.to_square] = origin.pop(move.from_square)
        board.push(move)
    return taken


def claim(label: dict[str, Any], taken: set[tuple[str, str]], sentence: str) -> str:
    """``matched`` when ``sentence`` says what the labelled line wins (a mate; a piece the line
    takes that is worth at least what the line wins: its most valuable piece won or its net, the
    lesser), ``partial`` when it names only pieces the line takes on the way, ``false`` when it
    says what the line does not do."""
    says_mate = re.search(r"\bmate\b", sentence) is not None
    named = set(PIECE_ON.findall(sentence))
    if label["kind"] == "mate":
        if says_mate:
            return "matched"
        return "partial" if named and named <= taken else "false"
    if says_mate:
        return "false"
    if label["kind"] == "material":
        worth = min(VALUES[label["piece"]], label["net"])
        if any(VALUES[piece] >= worth for piece, _ in named & taken):
            return "matched"
    if label["kind"] == "promotion" and "promot" in sentence:
        return "matched"
    return "partial" if named and named <= taken else "false"


def sort_sentence(entry: dict[str, Any], sentence: str | None) -> str:
    """``matched``, ``silent``, ``missed`` or ``false`` for ``sentence`` against ``entry``'s labels
    (see the module docs): a sentence on the refutation is checked against ``label``, one on a
    missed win ("misses ...") against ``best``, Stockfish's best line before the blunder."""
    if not sentence:
        return "silent"
    positional = entry["label"]["kind"] == "positional"
    if sentence.startswith("misses"):
        board = chess.Board(entry["fen"])
        best = entry["best"]
        verdict = claim(best, taken_by(board.fen(), best["pv"]), sentence)
        if verdict == "false":
            return "false"
        return "matched" if positional and verdict == "matched" else "missed"
    after = chess.Board(entry["fen"])
    after.push(chess.Move.from_uci(entry["move"]))
    verdict = claim(entry["label"], taken_by(after.fen(), entry["pv"]), sentence)
    if positional:
        return "false" if verdict == "false" else "missed"
    return {"matched": "matched", "partial": "missed", "false": "false"}[verdict]


GROUPS = ("tactical", "pawn", "positional")


def group_of(label: dict[str, Any]) -> str:
    """``tactical`` (the refutation mates, promotes or wins two pawns or more), ``pawn`` (it wins
    one pawn) or ``positional`` (it wins nothing)."""
    if label["kind"] == "positional":
        return "positional"
    if label["kind"] == "material" and label["net"] < 2:
        return "pawn"
    return "tactical"


def review(ferrochess: Any, engine: Any, entry: dict[str, Any], nodes: int) -> dict[str, Any]:
    board = chess.Board(entry["fen"])
    move = chess.Move.from_uci(entry["move"])
    engine.new_game()
    limit = chess.engine.Limit(nodes=nodes)
    return ferrochess.analysis.review_move(board, move, limit, engine=engine)


def read_stockfish_line(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry``'s blunder explained from Stockfish's own refutation (the label's ``pv`` and
    ``score``) instead of ferrochess's search: what the rules of :mod:`ferrochess.explain` make of
    the reference line itself. Every blunder counts as judged; without the evaluation before the
    move, nothing checks that the evaluations bear the material out and no missed win is said."""
    from ferrochess.explain import explanation

    board = chess.Board(entry["fen"])
    sign = 1 if board.turn == chess.WHITE else -1
    # The label's score is the blunderer's view; the review's is White's.
    score = {key: sign * value for key, value in entry["score"].items()}
    line = [chess.Move.from_uci(uci) for uci in entry["pv"]]
    found = explanation(board, chess.Move.from_uci(entry["move"]), score, line)
    return {
        "judgement": "reference line",
        "explanation": None if found is None else found.text,
        "motifs": [] if found is None else list(found.motifs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--nodes", type=int, default=150_000)
    parser.add_argument("--show", action="store_true", help="print every blunder not matched")
    parser.add_argument(
        "--stockfish-line",
        action="store_true",
        help="explain each blunder from Stockfish's labelled refutation instead of ferrochess's "
        "search (the rules alone, apart from the engine's lines)",
    )
    add_json_option(parser)
    args = parser.parse_args(argv)
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    import ferrochess.analysis  # noqa: F401  (the review's own module)

    results: dict[str, Any] = {
        "nodes": None if args.stockfish_line else args.nodes,
        "line": "stockfish" if args.stockfish_line else "ferrochess",
        "sets": {},
    }
    with ferrochess.Engine(book=None) as engine:
        for path in args.sets:
            entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            counts: dict[str, dict[str, int]] = {group: {} for group in GROUPS}
            motif = 0
            rows = []
            for entry in entries:
                if args.stockfish_line:
                    reviewed = read_stockfish_line(entry)
                else:
                    reviewed = review(ferrochess, engine, entry, args.nodes)
                sentence = reviewed["explanation"] if reviewed["judgement"] else None
                verdict = sort_sentence(entry, sentence)
                group = group_of(entry["label"])
                counts[group][verdict] = counts[group].get(verdict, 0) + 1
                if group == "tactical" and verdict == "matched" and reviewed.get("motifs"):
                    motif += 1
                rows.append({"fen": entry["fen"], "san": entry["san"], "label": entry["label"],
                             "judgement": reviewed["judgement"], "sentence": sentence,
                             "verdict": verdict})  # fmt: skip
                if args.show and verdict != "matched":
                    line = " ".join(entry["pv"][:6])
                    print(f"{verdict:8} {entry['fen']} {entry['san']}: {entry['label']} "
                          f"sf={line} -> {reviewed['judgement']}: {sentence!r}")  # fmt: skip
            tactical = sum(counts["tactical"].values())
            results["sets"][path.name] = {
                "blunders": len(entries),
                "tactical": tactical,
                "counts": counts,
                "matched_with_motif": motif,
                "rows": rows,
            }
            share = {k: v / tactical for k, v in counts["tactical"].items()} if tactical else {}
            print(f"{path.name}: {len(entries)} blunders, {tactical} tactical")
            for verdict in ("matched", "silent", "missed", "false"):
                n = counts["tactical"].get(verdict, 0)
                print(f"  {verdict:8} {n:4}  {100 * share.get(verdict, 0):5.1f}%")
            print(f"  matched naming a motif: {motif}")
            print(f"  a pawn ({sum(counts['pawn'].values())}): {counts['pawn']}")
            print(f"  positional ({sum(counts['positional'].values())}): {counts['positional']}")
    emit_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

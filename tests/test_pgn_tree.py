"""ferrochess.pgn_tree guards the analysis board's move tree: a PGN read into the tree and written
back is the same game to python-chess (moves, variations, comments, NAGs, evaluations, clocks,
arrows, headers), on real files of ../shared/data/pgn and on an annotated game typed here; a tree
that comes in is judged move by move, and anything wrong is named by its field; a played game's
review lands on the nodes of its main line."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import pgn_tree
from ferrochess.analysis import analyse_game

ANNOTATED = """[Event "Annotated"]
[Site "?"]
[Date "2026.11.26"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "*"]
[FEN "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"]
[SetUp "1"]

{ The Spanish or the Italian? } 3. Bb5 $1 { Ruy Lopez [%eval 0.30,20] [%cal Gb5c6,Rd7d7] }
( { Calmer: } 3. Bc4 { Italian } 3... Bc5 ( 3... Nf6 $5 { Two knights } 4. Ng5 d5 ) 4. c3 )
( 3. d4 exd4 ) 3... a6 $6 { [%clk 0:01:00] } 4. Ba4 Nf6 5. O-O { [%eval #4] } *
"""


@pytest.fixture
def real_files(shared_data: Path) -> list[Path]:
    """The real games of ../shared/data/pgn (TWIC and lichess; skipped without the folder)."""
    return sorted((shared_data / "pgn").glob("*.pgn"))


def summary(game: chess.pgn.Game) -> list[tuple[Any, ...]]:
    """Everything python-chess reads from a game, node by node (arrows as a set: the writer puts
    circles before arrows)."""
    nodes: list[tuple[Any, ...]] = [("headers", tuple(sorted(game.headers.items())))]
    stack: list[tuple[chess.pgn.GameNode, tuple[int, ...]]] = [(game, ())]
    while stack:
        node, path = stack.pop()
        nodes.append((
            path,
            node.move.uci() if node.move else None,
            pgn_tree._text(node.comment),
            node.starting_comment if node.parent else "",
            tuple(sorted(node.nags)),
            node.clock(),
            str(node.eval()),
            node.eval_depth(),
            frozenset((arrow.tail, arrow.head, arrow.color) for arrow in node.arrows()),
        ))  # fmt: skip
        stack.extend((child, (*path, index)) for index, child in enumerate(node.variations))
    return nodes


def round_trip(game: chess.pgn.Game) -> chess.pgn.Game:
    """``game`` into a tree, through JSON, back to a game, written as PGN and read again."""
    tree = json.loads(json.dumps(pgn_tree.tree_from_game(game)))
    text = pgn_tree.write_pgn(pgn_tree.game_from_tree(tree))
    again = chess.pgn.read_game(io.StringIO(text))
    assert again is not None and not again.errors, text
    return again


def test_every_game_of_the_real_files_comes_back_the_same(real_files: list[Path]) -> None:
    count = 0
    for path in real_files:
        if path.stat().st_size > 200_000:
            continue  # the 1 MB TWIC file takes long; its 10k sample is the same kind
        with path.open(encoding="utf-8") as stream:
            while (game := chess.pgn.read_game(stream)) is not None:
                assert summary(round_trip(game)) == summary(game), (path.name, count)
                count += 1
    assert count >= 50


def test_an_annotated_game_with_variations_comes_back_the_same() -> None:
    game = chess.pgn.read_game(io.StringIO(ANNOTATED))
    assert game is not None and not game.errors
    assert summary(round_trip(game)) == summary(game)


def test_the_tree_holds_the_annotations_as_fields() -> None:
    game = chess.pgn.read_game(io.StringIO(ANNOTATED))
    tree = pgn_tree.tree_from_game(game)
    assert tree["comment"] == "The Spanish or the Italian?"
    first = tree["moves"][0]
    assert (first["san"], first["nags"], first["comment"]) == ("Bb5", [1], "Ruy Lopez")
    assert first["eval"] == {"cp": 30, "depth": 20}
    assert {"from": "b5", "to": "c6", "color": "green"} in first["arrows"]
    italian, central = first["variations"]
    assert [node["san"] for node in italian] == ["Bc4", "Bc5", "c3"]
    assert italian[0]["starting_comment"] == "Calmer:"
    assert [node["san"] for node in italian[1]["variations"][0]] == ["Nf6", "Ng5", "d5"]
    assert [node["san"] for node in central] == ["d4", "exd4"]
    assert tree["moves"][1]["clock"] == 60.0
    assert tree["moves"][-1]["eval"] == {"mate": 4}


def test_clock_and_eval_come_back_in_the_order_they_were_read() -> None:
    text = ("1. e4 { [%clk 0:05:00] [%eval 0.3] } e5 { [%eval -0.25,18] [%clk 0:04:59.5] }"
            " 2. Nf3 { fine [%eval #3] [%clk 1:00:00] } *")  # fmt: skip
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    again = round_trip(game)
    comments = [node.comment for node in again.mainline()]
    assert comments == ["[%clk 0:05:00] [%eval 0.30]", "[%eval -0.25,18] [%clk 0:04:59.5]",
                        "fine [%eval #3] [%clk 1:00:00]"]  # fmt: skip
    assert summary(again) == summary(game)


def test_a_long_game_crosses_json_without_deep_nesting() -> None:
    board = chess.Board()
    game = chess.pgn.Game()
    node: chess.pgn.GameNode = game
    moves = 0
    while moves < 600 and not board.is_game_over():
        move = sorted(board.legal_moves, key=lambda m: m.uci())[moves % board.legal_moves.count()]
        node = node.add_variation(move)
        board.push(move)
        moves += 1
    text = json.dumps(pgn_tree.tree_from_game(game))  # one level per move would overflow here
    assert summary(pgn_tree.game_from_tree(json.loads(text))) == summary(game)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda tree: tree["moves"][0].update(uci="e2e5"), "tree.moves[0].uci"),
        (lambda tree: tree["moves"][1].update(uci="zz"), "tree.moves[1].uci"),
        (lambda tree: tree["moves"][0]["variations"][0][1].update(uci="e2e4"),
         "tree.moves[0].variations[0][1].uci"),
        (lambda tree: tree["moves"][0].update(nags=[300]), "tree.moves[0].nags"),
        (lambda tree: tree["moves"][0].update(eval={"cp": "1"}), "tree.moves[0].eval"),
        (lambda tree: tree["moves"][0].update(commands=["eval", "emt"]), "tree.moves[0].commands"),
        (lambda tree: tree["moves"][0].update(arrows=[{"from": "e2", "to": "x9"}]),
         "tree.moves[0].arrows"),
        (lambda tree: tree.update(fen="not a fen"), "tree.fen"),
        (lambda tree: tree["headers"].update({"Bad Tag": "x"}), "tree.headers"),
        (lambda tree: tree["moves"][0]["variations"][0].__setitem__(0, {"uci": "e2e4"}),
         "tree.moves[0].variations[0][0].uci"),
    ],
)  # fmt: skip
def test_a_bad_tree_is_refused_naming_the_field(change: Any, field: str) -> None:
    tree = pgn_tree.tree_from_game(chess.pgn.read_game(io.StringIO(
        "1. e4 (1. d4 d5) e5 2. Nf3 *"
    )))  # fmt: skip
    change(tree)
    with pytest.raises(pgn_tree.TreeError) as raised:
        pgn_tree.game_from_tree(tree)
    assert raised.value.field == field, raised.value


def test_games_of_a_text_are_listed_and_one_is_read_by_its_number(real_files: list[Path]) -> None:
    text = "".join(path.read_text(encoding="utf-8") for path in real_files
                   if path.name == "lichess_db_10k.pgn")  # fmt: skip
    games, truncated = pgn_tree.read_games(text)
    assert not truncated and [game["index"] for game in games] == [0, 1, 2, 3, 4]
    third, warnings = pgn_tree.read_game_at(text, 2)
    assert warnings == [] and third.headers["Site"] == games[2]["headers"]["Site"]
    listed, cut = pgn_tree.read_games(text, limit=3)
    assert cut and len(listed) == 3
    with pytest.raises(pgn_tree.TreeError, match="no game number 6"):
        pgn_tree.read_game_at(text, 5)


def test_a_variant_game_is_refused() -> None:
    with pytest.raises(pgn_tree.TreeError, match="Atomic"):
        pgn_tree.read_game_at('[Variant "Atomic"]\n\n1. e4 *\n', 0)


def test_a_review_lands_on_the_main_line() -> None:
    board = chess.Board()
    for san in ["f3", "e5", "g4", "Qh4#"]:
        board.push_san(san)
    review = analyse_game(chess.pgn.Game.from_board(board), chess.engine.Limit(nodes=2000))
    tree = pgn_tree.tree_from_review(board, {"White": "Me"}, review)
    assert tree["headers"]["White"] == "Me"
    assert tree["eval"] == {"cp": review["moves"][0]["eval_before"]["cp"]}
    assert tree["line"] == review["moves"][0]["best_line"]
    blunder = tree["moves"][2]  # 2. g4??, allowing mate
    assert blunder["judgement"] == "blunder" and 4 in blunder["nags"]
    assert blunder["explanation"] == review["moves"][2]["explanation"]
    assert blunder["explanation"] == "allows mate in 1: ...Qh4#"
    assert blunder["eval"] == {"mate": -1}
    assert blunder["line"] == ["Qh4#"]
    assert blunder["best_san"] == review["moves"][2]["best_san"]
    assert tree["moves"][3]["line"] is None  # the game is over after the mate
    other = chess.Board()
    other.push_san("e4")
    with pytest.raises(pgn_tree.TreeError, match="another game"):
        pgn_tree.tree_from_review(other, {}, review)

"""The analysis board's move tree as JSON, to and from python-chess's :class:`chess.pgn.Game`.

The tree crosses the wire (the page's API, the notebook widget's trait) shaped like PGN, flat along
each line, so its JSON nests only where a variation opens (a tree nested once per move would
overflow Python's JSON reader, which recurses per level, on a long game)::

    tree = {"headers": {"White": "...", ...}, "fen": root FEN, "comment": "", "eval": None,
            "line": None, "moves": [node, ...]}                      # the main line
    # plus "chess960": True for a game of Chess960 (castling as the king taking its rook, e1h1)
    node = {"uci": "e2e4", "san": "e4", "comment": "", "starting_comment": "", "nags": [1],
            "eval": {"cp": 23, "depth": 18} | {"mate": -3} | None,   # White's view, after the move
            "clock": 59.0 | None, "arrows": [{"from": "e2", "to": "e4", "color": "green"}],
            "commands": ["eval", "clk"],                             # their order in the comment
            "line": [SAN, ...] | None, "judgement": None, "explanation": None, "best_san": None,
            "variations": [[node, ...], ...]}                        # lines played instead of it

``comment`` is the text of the PGN comment; its ``[%eval]``, ``[%clk]``, ``[%csl]`` and ``[%cal]``
commands are the fields ``eval``, ``clock`` and ``arrows``, and ``commands`` the order in which
``[%eval]`` and ``[%clk]`` stood (written back in that order; without it, clock first, as
python-chess writes them). ``line``, ``judgement``,
``explanation`` and ``best_san`` come from a review (:func:`tree_from_review`) and are not PGN.

:func:`tree_from_game` and :func:`game_from_tree` are inverse up to how the comments are written
(the same text and commands, ``[%eval]`` and ``[%clk]`` in their order, the others where
python-chess puts them: arrows first, then the text), and python-chess judges every
move of a tree that comes in (:class:`TreeError` names the bad field). :func:`read_games` lists the
games of a PGN text and :func:`read_game_at` reads one; :func:`write_pgn` writes a game with its
variations, comments, NAGs and commands through python-chess's exporter.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import chess
import chess.engine
import chess.pgn
import chess.svg

from ferrochess import rules
from ferrochess.analysis import NAGS

__all__ = [
    "MAX_GAMES_LISTED",
    "MAX_NODES",
    "TreeError",
    "game_from_tree",
    "read_game_at",
    "read_games",
    "tree_from_game",
    "tree_from_review",
    "write_pgn",
]

MAX_GAMES_LISTED = 1000
"""The most games :func:`read_games` lists from one text (the rest are counted as truncated)."""
MAX_NODES = 20_000
"""The most moves a tree may hold, main line and variations together."""
MAX_VARIATION_DEPTH = 50
"""The deepest a variation may sit inside others (each level is one level of JSON)."""
MAX_TEXT = 10_000
"""The longest comment or header value, in characters."""
ARROW_COLORS = ("green", "red", "yellow", "blue")
"""The colours of PGN's ``[%cal]``/``[%csl]`` (G, R, Y, B), as python-chess names them."""
TAG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*\Z")
"""A PGN tag name (python-chess's rule)."""
VARIANT_STANDARD = {"standard", "chess", "chess960", "chess 960", "fischerandom", "fischerrandom",
                    "from position", ""}  # fmt: skip
"""Variant tag values that are ordinary chess (python-chess reads the others as variants)."""

Tree = dict[str, Any]
Node = dict[str, Any]


class TreeError(ValueError):
    """A tree or a PGN the board cannot take; ``field`` names where (``"tree.moves[3].uci"``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --- python-chess -> tree -------------------------------------------------------------------------


def tree_from_game(game: chess.pgn.Game) -> Tree:
    """The tree of ``game``: its headers, start position, moves, variations and annotations."""
    board = game.board()
    tree: Tree = {
        "headers": dict(game.headers),
        "fen": board.fen(),
        "comment": _text(game.comment),
        "eval": _eval_of(game),
        "line": None,
        "moves": _line_from(game, board),
    }
    if board.chess960:  # its castling moves are the king taking its rook (e1h1)
        tree["chess960"] = True
    return tree


def _line_from(parent: chess.pgn.GameNode, board: chess.Board) -> list[Node]:
    """The line that continues from ``parent`` (whose position is ``board``, changed here), its
    variations included: along a line it loops, it recurses only into a variation."""
    line: list[Node] = []
    at = parent
    while at.variations:
        main, *others = at.variations
        node = _node_from(main, board)
        for other in others:
            branch = board.copy(stack=False)
            first = _node_from(other, branch)
            branch.push(other.move)
            node["variations"].append([first, *_line_from(other, branch)])
        line.append(node)
        board.push(main.move)
        at = main
    return line


def _node_from(node: chess.pgn.ChildNode, before: chess.Board) -> Node:
    """The tree's node of ``node``, played in ``before``."""
    return {
        "uci": node.move.uci(),
        "san": before.san(node.move),
        "comment": _text(node.comment),
        "starting_comment": node.starting_comment,
        "nags": sorted(node.nags),
        "eval": _eval_of(node),
        "clock": node.clock(),
        "arrows": [
            {"from": chess.square_name(arrow.tail), "to": chess.square_name(arrow.head),
             "color": arrow.color}  # fmt: skip
            for arrow in node.arrows()
        ],
        "commands": _commands_of(node.comment),
        "line": None,
        "judgement": None,
        "explanation": None,
        "best_san": None,
        "variations": [],
    }


def _text(comment: str) -> str:
    """A comment without its ``[%eval]``, ``[%clk]`` and arrow commands."""
    scratch = chess.pgn.Game()
    scratch.comment = comment
    scratch.set_eval(None)
    scratch.set_clock(None)
    scratch.set_arrows([])
    return scratch.comment.strip()


def _commands_of(comment: str) -> list[str]:
    """``"eval"`` and ``"clk"`` in the order their commands stand in ``comment`` (those present)."""
    found = []
    for name, pattern in (("eval", chess.pgn.EVAL_REGEX), ("clk", chess.pgn.CLOCK_REGEX)):
        match = pattern.search(comment)
        if match is not None:
            found.append((match.start(), name))
    return [name for _, name in sorted(found)]


def _eval_of(node: chess.pgn.GameNode) -> dict[str, int] | None:
    """The node's ``[%eval]``, White's view as PGN writes it (read here without python-chess's
    ``eval()``, which replays the game from its start to learn the side to move)."""
    match = chess.pgn.EVAL_REGEX.search(node.comment)
    if match is None:
        return None
    if match.group("mate"):
        mate = int(match.group("mate"))
        if mate == 0:  # "#0": the game is over; python-chess writes no such eval either
            return None
        found: dict[str, int] = {"mate": mate}
    else:
        found = {"cp": round(float(match.group("cp")) * 100)}
    if match.group("depth"):
        found["depth"] = int(match.group("depth"))
    return found


# --- tree -> python-chess -------------------------------------------------------------------------


def game_from_tree(tree: Any) -> chess.pgn.Game:
    """The :class:`chess.pgn.Game` of a tree, every move judged by python-chess; TreeError naming
    the field of anything wrong (a move illegal where it stands, a bad FEN, header or note)."""
    if not isinstance(tree, dict):
        raise TreeError("tree", "the tree must be a JSON object")
    fen = tree.get("fen") or chess.STARTING_FEN
    chess960 = tree.get("chess960", False)
    if not isinstance(chess960, bool):
        raise TreeError("tree.chess960", f"chess960 must be true or false, not {chess960!r}")
    try:
        board = rules.position(fen, chess960)
    except ValueError as error:
        raise TreeError("tree.fen", str(error)) from None
    game = chess.pgn.Game()
    headers = tree.get("headers") or {}
    if not isinstance(headers, dict):
        raise TreeError("tree.headers", "headers must be an object of tag names to strings")
    for name, value in headers.items():
        if not isinstance(name, str) or not TAG_NAME.match(name):
            raise TreeError("tree.headers", f"{name!r} is not a PGN tag name")
        if name in ("FEN", "SetUp"):
            continue  # written from the tree's own start position
        game.headers[name] = _string(value, f"tree.headers.{name}", single_line=True)
    game.setup(board)
    game.comment = _string(tree.get("comment"), "tree.comment")
    _set_eval(game, tree.get("eval"), "tree.eval")
    _add_line(game, board, tree.get("moves"), "tree.moves", 0, [0])
    return game


def _add_line(parent: chess.pgn.GameNode, board: chess.Board, line: Any, field: str, depth: int,
              counter: list[int], first: int = 0) -> None:  # fmt: skip
    """Adds the moves of ``line`` after ``parent`` (whose position is ``board``, changed here);
    ``line[0]`` is called ``field[first]`` in errors."""
    if line is None:
        return
    if not isinstance(line, list):
        raise TreeError(field, f"{field} must be a list of moves")
    if depth > MAX_VARIATION_DEPTH:
        raise TreeError(field, f"variations nest at most {MAX_VARIATION_DEPTH} deep")
    at = parent
    for index, data in enumerate(line, start=first):
        where = f"{field}[{index}]"
        child = _add_node(at, board, data, where, counter)
        variations = data.get("variations") or []
        if not isinstance(variations, list):
            raise TreeError(f"{where}.variations", f"{where}.variations must be a list of lines")
        for number, variation in enumerate(variations):
            place = f"{where}.variations[{number}]"
            if not isinstance(variation, list):
                raise TreeError(place, f"{place} must be a list of moves")
            if not variation:
                continue
            start = _add_node(at, board, variation[0], f"{place}[0]", counter)
            if isinstance(variation[0], dict) and variation[0].get("variations"):
                raise TreeError(f"{place}[0].variations", "the first move of a variation has no "
                                "variations of its own: list them beside it")  # fmt: skip
            branch = board.copy(stack=False)
            branch.push(start.move)
            _add_line(start, branch, variation[1:], place, depth + 1, counter, first=1)
        board.push(child.move)
        at = child


def _add_node(parent: chess.pgn.GameNode, board: chess.Board, data: Any, field: str,
              counter: list[int]) -> chess.pgn.ChildNode:  # fmt: skip
    """The move of ``data`` added after ``parent``, whose position is ``board``."""
    if not isinstance(data, dict):
        raise TreeError(field, f"{field} must be an object with a uci move")
    counter[0] += 1
    if counter[0] > MAX_NODES:
        raise TreeError(field, f"a tree holds at most {MAX_NODES} moves")
    uci = data.get("uci")
    try:
        move = chess.Move.from_uci(uci) if isinstance(uci, str) else None
    except ValueError:
        move = None
    if move is None:
        raise TreeError(f"{field}.uci", f"{field}.uci {uci!r} is not a move in UCI notation")
    if move not in board.legal_moves:
        raise TreeError(f"{field}.uci", f"{field}.uci {uci!r} is illegal in {board.fen()!r}")
    if parent.has_variation(move):
        raise TreeError(f"{field}.uci", f"{field}.uci {uci!r} is played twice from one position")
    nags = data.get("nags") or []
    if not isinstance(nags, list) or not all(
        isinstance(nag, int) and not isinstance(nag, bool) and 0 <= nag <= 255 for nag in nags
    ):
        raise TreeError(f"{field}.nags", f"{field}.nags must be a list of numbers 0 to 255")
    child = parent.add_variation(
        move,
        comment=_string(data.get("comment"), f"{field}.comment"),
        starting_comment=_string(data.get("starting_comment"), f"{field}.starting_comment"),
        nags=nags,
    )
    _set_arrows(child, data.get("arrows"), f"{field}.arrows")
    clock = data.get("clock")
    if clock is not None and (
        isinstance(clock, bool) or not isinstance(clock, (int, float)) or not 0 <= clock < 1e7
    ):
        raise TreeError(f"{field}.clock", f"{field}.clock must be seconds, not {clock!r}")
    commands = data.get("commands") or []
    if not isinstance(commands, list) or not all(name in ("eval", "clk") for name in commands):
        raise TreeError(f"{field}.commands", f'{field}.commands must list "eval" and "clk"')
    eval_first = {"eval", "clk"} <= set(commands) and commands.index("eval") < commands.index("clk")
    if not eval_first:  # python-chess appends each command: the first set is written first
        _set_clock(child, clock)
    _set_eval(child, data.get("eval"), f"{field}.eval")
    if eval_first:
        _set_clock(child, clock)
    return child


def _set_clock(node: chess.pgn.ChildNode, clock: float | None) -> None:
    if clock is not None:
        node.set_clock(clock)


def _string(value: Any, field: str, *, single_line: bool = False) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TreeError(field, f"{field} must be a string, not {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise TreeError(field, f"{field} is longer than {MAX_TEXT} characters")
    if single_line and ("\n" in value or "\r" in value):
        raise TreeError(field, f"{field} must be one line")
    return value


def _set_eval(node: chess.pgn.GameNode, value: Any, field: str) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise TreeError(field, f'{field} must be {{"cp": n}} or {{"mate": n}}')
    depth = value.get("depth")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise TreeError(field, f"{field}.depth must be a whole number of plies")
    for key, make in (("mate", chess.engine.Mate), ("cp", chess.engine.Cp)):
        number = value.get(key)
        if number is None:
            continue
        if isinstance(number, bool) or not isinstance(number, int) or abs(number) > 1_000_000:
            raise TreeError(field, f"{field}.{key} must be a whole number, not {number!r}")
        if key == "mate" and number == 0:
            raise TreeError(field, f"{field}.mate must not be 0")
        node.set_eval(chess.engine.PovScore(make(number), chess.WHITE), depth)
        return
    raise TreeError(field, f'{field} must be {{"cp": n}} or {{"mate": n}}')


def _set_arrows(node: chess.pgn.ChildNode, value: Any, field: str) -> None:
    if not value:
        return
    if not isinstance(value, list):
        raise TreeError(field, f"{field} must be a list of arrows")
    arrows = []
    for arrow in value:
        try:
            tail = chess.parse_square(arrow["from"])
            head = chess.parse_square(arrow["to"])
            color = arrow.get("color", "green")
        except (TypeError, KeyError, ValueError, AttributeError):
            raise TreeError(field, f'{field}: {arrow!r} is not {{"from", "to", "color"}}') from None
        if color not in ARROW_COLORS:
            raise TreeError(field, f"{field}: colour {color!r} is not one of {ARROW_COLORS}")
        arrows.append(chess.svg.Arrow(tail, head, color=color))
    node.set_arrows(arrows)


# --- a game of the play page, with its review -----------------------------------------------------


def tree_from_review(
    board: chess.Board, headers: dict[str, str], review: dict[str, Any] | None
) -> Tree:
    """The tree of a played game (``board`` with its moves) and, when given, its review
    (:func:`ferrochess.analysis.analyse_game`'s answer): each move gets the evaluation after it,
    the engine's line from there, the review's judgement as its NAG, its explanation and the move
    that was best; the root gets the start's evaluation and line."""
    game = chess.pgn.Game.from_board(board)
    for name, value in headers.items():
        game.headers[name] = value
    tree = tree_from_game(game)
    if not review:
        return tree
    records = review.get("moves") or []
    nodes = tree["moves"]
    if records:
        tree["eval"] = _plain_eval(records[0].get("eval_before"))
        tree["line"] = records[0].get("best_line")
    for index, (node, record) in enumerate(zip(nodes, records)):
        if record.get("move") != node["uci"]:
            raise TreeError(f"review.moves[{index}]", "the review is of another game")
        following = records[index + 1] if index + 1 < len(records) else None
        node["eval"] = _plain_eval(record.get("eval_after"))
        node["line"] = following.get("best_line") if following else None
        node["judgement"] = record.get("judgement")
        node["explanation"] = record.get("explanation")
        node["best_san"] = record.get("best_san")
        nag = NAGS.get(record.get("judgement") or "")
        if nag is not None and nag not in node["nags"]:
            node["nags"] = sorted([*node["nags"], nag])
    return tree


def _plain_eval(score: Any) -> dict[str, int] | None:
    """A review's score (``{"cp"}``/``{"mate"}``, maybe with its tablebase verdict) as a tree's."""
    if not isinstance(score, dict):
        return None
    for key in ("mate", "cp"):
        if isinstance(score.get(key), int) and not (key == "mate" and score[key] == 0):
            return {key: score[key]}
    return None


# --- PGN text -------------------------------------------------------------------------------------


def read_games(text: str, limit: int = MAX_GAMES_LISTED) -> tuple[list[dict[str, Any]], bool]:
    """The games of a PGN text, by their headers: ``[{"index", "headers"}]`` for the first
    ``limit``, and whether there were more."""
    stream = io.StringIO(text)
    games: list[dict[str, Any]] = []
    for index, headers in enumerate(_headers(stream)):
        if index == limit:
            return games, True
        games.append({"index": index, "headers": dict(headers)})
    return games, False


def _headers(stream: io.StringIO) -> Iterator[chess.pgn.Headers]:
    while (headers := chess.pgn.read_headers(stream)) is not None:
        yield headers


def read_game_at(text: str, index: int) -> tuple[chess.pgn.Game, list[str]]:
    """Game number ``index`` (from 0) of a PGN text and python-chess's complaints about it
    (moves it could not read); TreeError naming ``index`` when there is no such game, or ``pgn``
    when it is not a game of standard chess."""
    stream = io.StringIO(text)
    for _ in range(index):
        if not chess.pgn.skip_game(stream):
            raise TreeError("index", f"the PGN holds no game number {index + 1}")
    game = chess.pgn.read_game(stream)
    if game is None:
        raise TreeError("index" if index else "pgn", f"the PGN holds no game number {index + 1}")
    variant = game.headers.get("Variant", "").strip().lower()
    if variant not in VARIANT_STANDARD:
        raise TreeError("pgn", f"the game is of the variant {game.headers['Variant']!r}, "
                               "not standard chess")  # fmt: skip
    return game, [str(error) for error in game.errors]


def write_pgn(game: chess.pgn.Game) -> str:
    """``game`` as PGN text, with its headers, variations, comments and NAGs."""
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return game.accept(exporter) + "\n"

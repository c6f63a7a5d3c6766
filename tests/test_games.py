"""Guards move legality on real games: select_move returns a legal move for 200 positions drawn
deterministically from the PGN files in ../shared/data/pgn, each passed as a Board with its full
history (so repetitions, castling rights and en passant come from real play)."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import chess.pgn
import pytest
from ferrochess import select_move

SEED = 20240601
POSITIONS = 200
DEPTH = 2


def game_offsets(pgn_dir: Path) -> list[tuple[Path, int]]:
    """Return (file, offset) of every game in the directory's PGN files, in a stable order."""
    offsets = []
    for path in sorted(pgn_dir.glob("*.pgn")):
        with path.open(encoding="utf-8-sig") as handle:
            while True:
                offset = handle.tell()
                if chess.pgn.read_headers(handle) is None:
                    break
                offsets.append((path, offset))
    return offsets


def read_game(path: Path, offset: int) -> chess.pgn.Game:
    with path.open(encoding="utf-8-sig") as handle:
        handle.seek(offset)
        game = chess.pgn.read_game(handle)
    assert game is not None, f"no game at {path}:{offset}"
    assert not game.errors, f"{path}:{offset}: {game.errors}"
    return game


@pytest.fixture(scope="module")
def sampled_positions(shared_data: Path) -> list[tuple[str, chess.Board]]:
    """200 (label, Board with history) pairs: random games, then a random ply of each."""
    offsets = game_offsets(shared_data / "pgn")
    if not offsets:
        pytest.skip(f"no games in {shared_data / 'pgn'}")
    rng = random.Random(SEED)
    positions = []
    for _ in range(POSITIONS):
        path, offset = rng.choice(offsets)
        game = read_game(path, offset)
        moves = list(game.mainline_moves())
        ply = rng.randint(0, len(moves))
        board = game.board()
        for move in moves[:ply]:
            board.push(move)
        positions.append((f"{path.name}@{offset} ply {ply}", board))
    return positions


def test_sample_is_varied(sampled_positions: list[tuple[str, chess.Board]]) -> None:
    """Guards the sample itself: many distinct games and a spread of game phases."""
    assert len(sampled_positions) == POSITIONS
    assert len({label.split()[0] for label, _ in sampled_positions}) >= 100
    plies = [len(board.move_stack) for _, board in sampled_positions]
    assert min(plies) < 20 and max(plies) > 80


@pytest.mark.parametrize("index", range(POSITIONS))
def test_select_move_is_legal(sampled_positions: list[tuple[str, chess.Board]], index: int) -> None:
    label, board = sampled_positions[index]
    fen_before, stack_before = board.fen(), list(board.move_stack)
    uci = select_move(board, DEPTH)
    assert board.fen() == fen_before and board.move_stack == stack_before, "board was mutated"
    if not any(board.legal_moves):
        assert uci is None, f"{label}: {uci!r} returned in a position without legal moves"
        return
    assert uci is not None, f"{label}: no move for {board.fen()}"
    assert chess.Move.from_uci(uci) in board.legal_moves, f"{label}: {uci} illegal in {board.fen()}"

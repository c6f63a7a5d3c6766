#!/usr/bin/env python3
"""Derive ferrochess's default opening-book lines from Scid's ECO classification file.

Source
------
The only input is ``scid.eco``, the ECO classification file shipped by Scid
(Debian/Ubuntu package ``scid-data``, installed as ``/usr/share/scid/data/scid.eco``).
Each entry there has the form::

    C65 "Spanish: Berlin Defence"  1.e4 e5 2.Nf3 Nc6 3.Bb5 Nf6 *

where the code is a basic ECO code (A00-E99) optionally followed by a lower-case
letter and a digit (``A00a``, ``C65b2``), and the moves may continue over
several lines up to the terminating ``*``. Lines whose first non-blank character is
``#`` are comments. Only the code, the name and the move sequence of each entry
are used; nothing else is taken from the file.

Selection rules
---------------
1. Every entry is replayed with python-chess; an entry containing an illegal or
   unparsable move is reported on stderr and skipped.
2. Lines longer than 12 plies are truncated to their first 12 plies.
3. Exact duplicates (after truncation) are merged; the merged line keeps the code
   and name of the first entry in ECO order (code string order, then file order).
4. Lines shorter than 8 plies are dropped: either they are a prefix of a longer
   line (and add nothing to the book but double weight) or the theory there is
   too thin to be a main line.
5. A line that is a proper prefix of another line that is finally kept is dropped
   for the same reason, so every output line is a leaf of 8 to 12 plies.

Soundness filter
----------------
The final position of every leaf line is evaluated by Stockfish at a fixed depth
(default 12) with ``Threads=1``, ``Hash=16`` and a cleared hash (``ucinewgame``)
before each position, which makes the search deterministic. A line is dropped if
the evaluation from White's point of view is a mate score or lies outside
[-90, +90] centipawns; this removes unsound or dubious lines while keeping the
normal gambits. When a leaf is dropped, a shorter candidate line (8+ plies) that it
extended becomes a leaf once none of its extensions survive, and is evaluated in
turn, so a refuted continuation does not wipe out the sound theory before it.

Output
------
A PGN file that starts with ``%`` escape lines (skipped by PGN readers) stating
that it is generated, followed by one game per line with the tags ``ECO``,
``Opening`` and ``Result "*"`` and the movetext on a single line. Games are sorted
by ECO code, then by movetext, so the same inputs (scid.eco, Stockfish version,
depth) give a byte-identical file.

Names table (``--names``)
------------------------
``--names OUT.tsv`` also writes the opening-name table read by ``ferrochess.openings``; it
needs no Stockfish and none of the selection rules above apply. Every legal entry (rule 1)
is replayed in full, without truncation, and its final position is keyed by its EPD as
python-chess's ``Board.epd()`` gives it (no move counters; an en-passant square only when an
en-passant capture is legal). When several entries end in the same position (transpositions,
including entries that repeat one position under another name) the first in file order is
kept. The file starts with ``#`` comment lines, then has one row per distinct position,
``EPD<TAB>ECO<TAB>NAME`` with the full Scid code (``C65b``) and name (stripped of the
stray leading or trailing blanks a few Scid names have), sorted by EPD, so the same scid.eco
gives a byte-identical file.

Regenerating
------------
From the repository root::

    python src/book/openings/derive.py \\
        --scid /usr/share/scid/data/scid.eco --stockfish /usr/games/stockfish \\
        --depth 12 -o src/book/openings/eco_lines.pgn

    python src/book/openings/derive.py --names python/ferrochess/data/eco_names.tsv

``-o`` and ``--names`` may be given together or alone (at least one is required); without
``-o`` no engine is started.

A PGN run needs one CPU core and takes a few minutes. A summary (lines read, illegal,
candidates, dropped by the filter, kept, per-volume counts, first moves) is
printed to stderr. Do not edit the generated PGN by hand; change this script and
regenerate instead.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

DEFAULT_SCID = Path("/usr/share/scid/data/scid.eco")
DEFAULT_STOCKFISH = "/usr/games/stockfish"
DEFAULT_DEPTH = 12

MIN_PLIES = 8
MAX_PLIES = 12
MAX_ABS_CP = 90
HASH_MB = 16

ENTRY_HEAD_RE = re.compile(r'\s*([A-E]\d\d(?:[a-z]\d?)?)\s+"([^"]*)"')
MOVE_NUMBER_RE = re.compile(r"^\d+\.(?:\.\.)?")

Line = tuple[str, ...]  # a move sequence as UCI strings


@dataclass(frozen=True)
class Entry:
    """One ECO entry of scid.eco."""

    index: int  # position in the file, for stable ordering
    code: str
    name: str
    san: tuple[str, ...]
    where: int  # 1-based line number of the entry head, for messages


@dataclass(frozen=True)
class Candidate:
    """A (possibly truncated) legal line with the ECO entry it is credited to."""

    code: str
    name: str
    moves: Line

    @property
    def plies(self) -> int:
        return len(self.moves)


def strip_comments(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, line) for non-comment, non-blank lines."""
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            yield number, stripped


def parse_scid_eco(text: str) -> tuple[list[Entry], list[str]]:
    """Parse scid.eco into entries; also return messages about malformed text."""
    entries: list[Entry] = []
    problems: list[str] = []
    head: tuple[int, str, str] | None = None
    tokens: list[str] = []
    for number, line in strip_comments(text):
        if head is None:
            match = ENTRY_HEAD_RE.match(line)
            if match is None:
                problems.append(f"line {number}: expected an ECO entry, got {line!r}")
                continue
            head = (number, match.group(1), match.group(2))
            tokens = []
            line = line[match.end() :]
        for token in line.split():
            if token == "*":
                where, code, name = head
                entries.append(Entry(len(entries), code, name, tuple(tokens), where))
                head = None
                tokens = []
                break
            token = MOVE_NUMBER_RE.sub("", token)
            if token:
                tokens.append(token)
        else:
            continue
        # Anything after the terminating "*" on the same line is unexpected.
        rest = line.split("*", 1)[1].strip()
        if rest:
            problems.append(f"line {number}: ignoring text after '*': {rest!r}")
    if head is not None:
        problems.append(f"line {head[0]}: entry {head[1]} has no terminating '*'")
    return entries, problems


def replay(entry: Entry) -> Line | str:
    """Return the entry's moves as UCI strings, or an error message if one is illegal."""
    board = chess.Board()
    moves: list[str] = []
    for ply, san in enumerate(entry.san, start=1):
        try:
            move = board.parse_san(san)
        except ValueError as exc:
            return f"ply {ply} {san!r}: {exc}"
        moves.append(move.uci())
        board.push(move)
    return tuple(moves)


def movetext(moves: Line) -> str:
    """Render a UCI line as PGN movetext (without the result)."""
    board = chess.Board()
    return board.variation_san([chess.Move.from_uci(uci) for uci in moves])


def board_after(moves: Line) -> chess.Board:
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return board


class Evaluator:
    """Deterministic fixed-depth Stockfish evaluation (White's point of view)."""

    def __init__(self, path: str, depth: int) -> None:
        self.depth = depth
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": HASH_MB})
        self.calls = 0

    def evaluate(self, moves: Line) -> chess.engine.Score:
        self.calls += 1
        # A fresh `game` id makes python-chess send "ucinewgame", clearing the hash,
        # so each result is independent of the evaluation order.
        info = self.engine.analyse(
            board_after(moves), chess.engine.Limit(depth=self.depth), game=self.calls
        )
        score = info.get("score")
        if score is None:
            raise RuntimeError(f"no score from engine for {movetext(moves)}")
        return score.white()

    def close(self) -> None:
        self.engine.quit()


def is_sound(score: chess.engine.Score) -> bool:
    cp = score.score()
    return cp is not None and -MAX_ABS_CP <= cp <= MAX_ABS_CP


def proper_prefixes(moves: Line) -> Iterator[Line]:
    for length in range(len(moves) - 1, 0, -1):
        yield moves[:length]


def select(
    candidates: dict[Line, Candidate], evaluator: Evaluator, log: list[str]
) -> tuple[list[Candidate], int]:
    """Apply the prefix rule and soundness filter; return (kept lines, number dropped)."""
    alive = set(candidates)
    # Reference counts: how many alive lines have each line as a proper prefix.
    extended: Counter[Line] = Counter()
    for moves in alive:
        for prefix in proper_prefixes(moves):
            if prefix in alive:
                extended[prefix] += 1
    evaluated: dict[Line, bool] = {}
    dropped = 0
    while True:
        leaves = sorted(m for m in alive if extended[m] == 0 and m not in evaluated)
        if not leaves:
            break
        for moves in leaves:
            score = evaluator.evaluate(moves)
            sound = is_sound(score)
            evaluated[moves] = sound
            if sound:
                continue
            dropped += 1
            cand = candidates[moves]
            log.append(f"  drop {cand.code} {score}: {movetext(moves)}")
            alive.discard(moves)
            for prefix in proper_prefixes(moves):
                if prefix in alive:
                    extended[prefix] -= 1
    kept = [candidates[m] for m in sorted(alive) if extended[m] == 0]
    return kept, dropped


def render(kept: Sequence[Candidate], source: str) -> str:
    def key(cand: Candidate) -> tuple[str, str]:
        return cand.code, movetext(cand.moves)

    out = [
        f"% Generated by src/book/openings/derive.py from {source} (Scid ECO lines).",
        "% Do not edit by hand: change derive.py and regenerate (see its docstring).",
        "",
    ]
    for cand in sorted(kept, key=key):
        name = cand.name.replace("\\", "\\\\").replace('"', '\\"')
        out += [
            f'[ECO "{cand.code}"]',
            f'[Opening "{name}"]',
            '[Result "*"]',
            "",
            f"{movetext(cand.moves)} *",
            "",
        ]
    return "\n".join(out)


def name_rows(entries: Sequence[Entry]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Return the names-table rows ``(epd, code, name)`` sorted by EPD, and illegal-entry messages.

    Each legal entry is replayed in full; of several entries ending in the same position the
    first in file order is kept.
    """
    by_epd: dict[str, tuple[str, str]] = {}
    illegal: list[str] = []
    for entry in sorted(entries, key=lambda e: e.index):
        result = replay(entry)
        if isinstance(result, str):
            illegal.append(f"illegal: {entry.code} {entry.name!r} (line {entry.where}): {result}")
            continue
        by_epd.setdefault(board_after(result).epd(), (entry.code, entry.name.strip()))
    rows = [(epd, code, name) for epd, (code, name) in sorted(by_epd.items())]
    return rows, illegal


def render_names(rows: Sequence[tuple[str, str, str]], source: str) -> str:
    out = [
        f"# Generated by src/book/openings/derive.py --names from {source} (Scid ECO names). "
        "Do not edit by hand: change derive.py and regenerate (see its docstring).",
        "# Columns: EPD (python-chess Board.epd() of the final position), ECO code, name.",
    ]
    for epd, code, name in rows:
        if any(c in field for field in (code, name) for c in "\t\n\r"):
            raise ValueError(f"{code} {name!r}: tab or newline in a names-table field")
        out.append(f"{epd}\t{code}\t{name}")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--scid", type=Path, default=DEFAULT_SCID, help="path to scid.eco")
    parser.add_argument("--stockfish", default=DEFAULT_STOCKFISH, help="Stockfish binary")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="search depth")
    parser.add_argument("-o", "--output", type=Path, help="PGN of book lines to write")
    parser.add_argument(
        "--names", type=Path, metavar="OUT.tsv", help="opening-names table to write (no Stockfish)"
    )
    args = parser.parse_args(argv)
    if args.output is None and args.names is None:
        parser.error("nothing to do: give -o/--output and/or --names")

    started = time.monotonic()
    text = args.scid.read_text(encoding="latin-1")
    entries, problems = parse_scid_eco(text)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)

    if args.names is not None:
        rows, illegal_names = name_rows(entries)
        args.names.write_text(render_names(rows, args.scid.name), encoding="utf-8")
        if args.output is None:  # otherwise the PGN part below reports them
            for message in illegal_names:
                print(message, file=sys.stderr)
        legal = len(entries) - len(illegal_names)
        print(
            f"names: {len(rows)} positions from {legal} legal entries "
            f"({legal - len(rows)} transpositions) -> {args.names}",
            file=sys.stderr,
        )
        if args.output is None:
            return 0

    # Replay, truncate and de-duplicate (first entry in ECO order wins).
    candidates: dict[Line, Candidate] = {}
    illegal = too_short = duplicates = 0
    for entry in sorted(entries, key=lambda e: (e.code, e.index)):
        result = replay(entry)
        if isinstance(result, str):
            illegal += 1
            print(
                f"illegal: {entry.code} {entry.name!r} (line {entry.where}): {result}",
                file=sys.stderr,
            )
            continue
        moves = result[:MAX_PLIES]
        if len(moves) < MIN_PLIES:
            too_short += 1
        elif moves in candidates:
            duplicates += 1
        else:
            candidates[moves] = Candidate(entry.code, entry.name, moves)

    evaluator = Evaluator(args.stockfish, args.depth)
    log: list[str] = []
    try:
        kept, dropped = select(candidates, evaluator, log)
        evaluations = evaluator.calls
    finally:
        evaluator.close()

    args.output.write_text(render(kept, args.scid.name), encoding="utf-8")

    volumes = Counter(c.code[0] for c in kept)
    first_moves = Counter(movetext(c.moves[:1]) for c in kept)
    plies = Counter(c.plies for c in kept)
    summary = [
        *log,
        f"entries read:        {len(entries)}",
        f"illegal (skipped):   {illegal}",
        f"shorter than {MIN_PLIES}:     {too_short}",
        f"duplicates:          {duplicates}",
        f"candidates:          {len(candidates)} (lines of {MIN_PLIES}-{MAX_PLIES} plies)",
        f"evaluated:           {evaluations} (depth {args.depth})",
        f"dropped by filter:   {dropped} (mate or |eval| > {MAX_ABS_CP} cp)",
        f"dropped as prefixes: {len(candidates) - dropped - len(kept)}",
        f"kept:                {len(kept)}",
        "per volume:          " + ", ".join(f"{v} {volumes[v]}" for v in "ABCDE"),
        "plies:               " + ", ".join(f"{p}: {n}" for p, n in sorted(plies.items())),
        "first moves:         "
        + ", ".join(f"{m[3:]} {n}" for m, n in sorted(first_moves.items(), key=lambda x: -x[1])),
        f"time:                {time.monotonic() - started:.0f} s",
    ]
    print("\n".join(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

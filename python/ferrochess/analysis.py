"""Game review: every move of a game judged by the engine, and whole PGN collections analysed on
every core of a machine or on a Dask cluster.

:func:`analyse_game` reviews one :class:`chess.pgn.Game`: for each move, the evaluation before and
after it (from White's point of view), the engine's best move and line, both sides' winning
chances, the move's accuracy and a judgement (inaccuracy, mistake, blunder) from the drop in the
mover's winning chance, then each side's accuracy. The formulas are lichess's: winning chances
``2 / (1 + exp(-0.00368208 * cp)) - 1`` (a mate counts as certain: it is worth
:data:`~ferrochess.interop.MATE_CP`), a drop of 0.1, 0.2 or 0.3 in
those chances (on the -1..1 scale) is an inaccuracy, a mistake or a blunder, and a move's
accuracy is ``103.1668 * exp(-0.04354 * drop%) - 3.1669 + 1`` (drop in the mover's win percent;
the 1 is lichess's bonus for an imperfect analysis; clamped to 0..100: :func:`move_accuracy`). The
move the engine itself found best in the position before drops nothing (no judgement, accuracy
100), whatever the separate search of the position after says. A side's accuracy is lichess's game
accuracy (:func:`game_accuracy`): the mean of two means of its moves' accuracies, one weighted by
how much White's win percent swings around each move (so a blunder in a calm position weighs
more than a slip in a wild one) and the harmonic one (so one bad blunder drags the side down,
where a plain mean would still give a side that loses its queen 85%).

:func:`analyse_pgn` reviews every game of PGN files into a JSON-lines file, one record per game,
written as each game finishes. Its first line records the settings; a rerun on the same file skips
the games already there (matched by file, index and content), so an interrupted run loses nothing
it had written, and a file written with other settings is refused
(:class:`~ferrochess.AnalysisOutputError`). Games run in parallel on ``workers`` threads (the
search releases the GIL) or on the workers of a Dask ``Client``. Each game is searched by an
engine with a cleared table, so with a depth or node limit the records are the same however the
games are spread.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import statistics
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Union

import chess
import chess.engine
import chess.pgn

from ferrochess import rules
from ferrochess.engine import Engine
from ferrochess.exceptions import AnalysisOutputError, FileError
from ferrochess.explain import explanation
from ferrochess.interop import MATE_CP, limit_to_kwargs, san_line, white_score

__all__ = [
    "AnalysisSummary",
    "analyse_game",
    "analyse_pgn",
    "annotate_pgn",
    "final_score",
    "game_accuracy",
    "judgement",
    "move_accuracy",
    "review_move",
    "winning_chances",
]

PathLike = Union[str, "os.PathLike[str]"]
FORMAT_VERSION = 1
WIN_SCALE = 0.00368208
JUDGEMENTS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))
"""The least drop in the mover's winning chances (-1..1) that makes each judgement, worst first."""
NAGS = {"inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE, "mistake": chess.pgn.NAG_MISTAKE,
        "blunder": chess.pgn.NAG_BLUNDER}  # fmt: skip
ACCURACY_CURVE = (103.1668100711649, 0.04354415386753951, -3.166924740191411)
"""``a, k, b`` of a move's accuracy ``a * exp(-k * drop) + b`` for a drop in win percent (lichess's
fit: no drop 100, a drop of 10 points 60, 40 points 20, 80 points 0)."""
ACCURACY_BONUS = 1.0
"""Accuracy points lichess adds to a move that loses anything, for the analysis being imperfect."""
VOLATILITY_WINDOW_MOVES = (2, 8)
"""Least and most positions in the window whose win percents weigh a move (a tenth of the moves)."""
VOLATILITY_WEIGHT = (0.5, 12.0)
"""Least and most weight of a move: the standard deviation of its window's win percents, clamped."""
IN_FLIGHT_PER_WORKER = 4
"""Games handed out ahead per worker: enough to keep workers busy, few enough to bound memory."""


# --- one game -------------------------------------------------------------------------------------


def winning_chances(score: dict[str, Any]) -> float:
    """White's winning chances, -1 (lost) to 1 (won), for a score ``{"cp": n}`` or ``{"mate": n}``
    from White's point of view (``{"mate": 0}`` with ``"mated"`` says who is checkmated)."""
    if "mate" in score:
        mate = score["mate"]
        if mate == 0:
            return -1.0 if score.get("mated") == "white" else 1.0
        cp = MATE_CP if mate > 0 else -MATE_CP
    else:
        cp = score["cp"]
    return 2 / (1 + math.exp(-WIN_SCALE * cp)) - 1


def judgement(drop: float) -> str | None:
    """What a drop in the mover's winning chances (-1..1 scale) makes of a move: "blunder",
    "mistake", "inaccuracy" (see :data:`JUDGEMENTS`), or None for a smaller drop."""
    return next((name for bound, name in JUDGEMENTS if drop >= bound), None)


def move_accuracy(win_before: float, win_after: float) -> float:
    """A move's accuracy, 0 to 100, from the mover's win percent (0 to 100) before and after it,
    as lichess computes it: 100 when the move loses nothing, else :data:`ACCURACY_CURVE` of the
    drop plus :data:`ACCURACY_BONUS`, clamped to 0..100."""
    if win_after >= win_before:
        return 100.0
    scale, rate, offset = ACCURACY_CURVE
    raw = scale * math.exp(-rate * (win_before - win_after)) + offset + ACCURACY_BONUS
    return max(0.0, min(100.0, raw))


def game_accuracy(
    win_percents: Sequence[float], accuracies: Sequence[float], first: chess.Color = chess.WHITE
) -> dict[str, float | None]:
    """Each side's accuracy in a game, as lichess computes it, by colour name (None for a side
    that did not move).

    ``win_percents`` is White's win percent (0 to 100) in each position of the game, the start
    first (one more than the moves); ``accuracies`` each move's accuracy (:func:`move_accuracy`),
    in order; ``first`` the side that made the first move. Each move is weighted by the population
    standard deviation of the win percents in a window of the game (its size a tenth of the moves,
    within :data:`VOLATILITY_WINDOW_MOVES`: the first window stands for the first moves, then one
    window slides a position at a time), clamped to :data:`VOLATILITY_WEIGHT`. A side's accuracy is
    the mean of the weighted mean of its moves' accuracies and their harmonic mean (each accuracy
    counted as at least 1, so a move of accuracy 0 does not make it 0)."""
    if len(win_percents) != len(accuracies) + 1:
        raise ValueError(
            f"{len(win_percents)} win percents for {len(accuracies)} moves: one more is needed "
            "(the start position's, then one after each move)"
        )
    low, high = VOLATILITY_WINDOW_MOVES
    size = max(low, min(high, len(accuracies) // 10))
    windows = [win_percents[:size]] * (min(size, len(win_percents)) - 2) + [
        win_percents[start : start + size]
        for start in range(max(1, len(win_percents) - size + 1))
    ]
    least, most = VOLATILITY_WEIGHT
    weights = [max(least, min(most, statistics.pstdev(window))) for window in windows]
    sides: dict[str, list[tuple[float, float]]] = {"white": [], "black": []}
    for index, (accuracy, weight) in enumerate(zip(accuracies, weights)):
        mover = first if index % 2 == 0 else not first
        sides[chess.COLOR_NAMES[mover]].append((accuracy, weight))
    result: dict[str, float | None] = {}
    for color, moves in sides.items():
        if not moves:
            result[color] = None
            continue
        weighted = sum(a * w for a, w in moves) / sum(w for _, w in moves)
        harmonic = len(moves) / sum(1 / max(1.0, a) for a, _ in moves)
        result[color] = (weighted + harmonic) / 2
    return result


def final_score(ended: chess.Outcome) -> dict[str, Any]:
    """The score, White's view, of a position where the game has ended (``ended``, as
    :func:`ferrochess.rules.outcome` says): ``{"cp": 0}`` for a draw, ``{"mate": 0, "mated":
    "white"|"black"}`` for a mate."""
    if ended.winner is None:
        return {"cp": 0}
    return {"mate": 0, "mated": chess.COLOR_NAMES[not ended.winner]}


def analyse_game(
    game: chess.pgn.Game,
    limit: chess.engine.Limit,
    *,
    engine: Engine | None = None,
    progress: Callable[[int, int], object] | None = None,
) -> dict[str, Any]:
    """Review every move of ``game``'s main line (see the module docs).

    Returns a JSON-ready dict: ``headers``; ``moves``, one dict per move with ``ply``, ``color``,
    ``move`` (UCI), ``san``, ``eval_before``/``eval_after`` (White's view: ``{"cp": n}`` or
    ``{"mate": n}``, with ``"tablebase"``, the tables' verdict in White's view, when the engine's
    InfoDict has one), ``best_move`` and ``best_san`` and ``best_line`` (SAN) for the position
    before the move, ``win_before``/``win_after`` (the mover's winning chance, 0-100), ``accuracy``
    and ``judgement`` (None, "inaccuracy", "mistake" or "blunder"), ``explanation`` (for a
    judged move, why it is bad in words, from the engine's line after it: "allows mate in 2",
    "leaves the bishop on c4 hanging", "loses the rook on a1 after ...Nc2+"; None for another
    move or when nothing tactical is found: :func:`ferrochess.explain.explain`), ``motifs``
    (the lichess theme names that explanation reads: "fork", "pin", "mate"...; [] without one);
    ``accuracy`` per colour (None for a side that did not move); ``judgements`` counted per colour.
    ``engine`` defaults to a fresh one without book; its table is cleared first so the review
    depends only on the game and ``limit``. ``progress(done, total)`` is called before the first
    position is searched and after each (``total`` positions in all); an exception it raises ends
    the review there (how a caller cancels one). A position where the game has ended
    (:func:`ferrochess.rules.outcome`) is scored without a search. Raises InvalidLimitError for a
    limit that sets nothing.
    """
    limit_to_kwargs(limit)  # refuse a limit that sets nothing before any work
    own = engine is None
    engine = engine or Engine(book=None)
    try:
        engine.new_game()
        return _review(game, limit, engine, progress)
    finally:
        if own:
            engine.close()


def _review(
    game: chess.pgn.Game,
    limit: chess.engine.Limit,
    engine: Engine,
    progress: Callable[[int, int], object] | None,
) -> dict[str, Any]:
    board = game.board()
    positions = [board.copy()]
    moves = list(game.mainline_moves())
    for move in moves:
        board.push(move)
        positions.append(board.copy())
    evaluations: list[dict[str, Any]] = []
    for position in positions:
        if progress is not None:
            progress(len(evaluations), len(positions))
        evaluations.append(_evaluate(position, limit, engine))
    if progress is not None:
        progress(len(evaluations), len(positions))
    reviewed = []
    accuracies: list[float] = []
    counts = {color: {name: 0 for _, name in JUDGEMENTS} for color in ("white", "black")}
    for ply, move in enumerate(moves, start=1):
        entry = _reviewed(positions[ply - 1], move, evaluations[ply - 1], evaluations[ply])
        entry = {"ply": ply, **entry}
        if entry["judgement"] is not None:
            counts[entry["color"]][entry["judgement"]] += 1
        accuracies.append(entry.pop("_accuracy"))
        reviewed.append(entry)
    # White's win percent in every position, the start's own evaluation first.
    win_percents = [50 + 50 * winning_chances(evaluation["score"]) for evaluation in evaluations]
    sides = game_accuracy(win_percents, accuracies, positions[0].turn)
    return {
        "headers": dict(game.headers),
        "moves": reviewed,
        "accuracy": {
            color: None if value is None else round(value, 2) for color, value in sides.items()
        },
        "judgements": counts,
    }


def review_move(
    board: chess.Board,
    move: chess.Move,
    limit: chess.engine.Limit,
    *,
    engine: Engine,
) -> dict[str, Any]:
    """One move reviewed as :func:`analyse_game` reviews each of a game's moves (the same dict
    less ``ply``), from
    ``engine``'s searches of the position before it and after it at ``limit``. ``board`` is not
    changed. The explanation benchmark reviews its blunders this way."""
    after_board = board.copy()
    after_board.push(move)
    before = _evaluate(board, limit, engine)
    after = _evaluate(after_board, limit, engine)
    entry = _reviewed(board, move, before, after)
    entry.pop("_accuracy")
    return entry


def _reviewed(
    position: chess.Board, move: chess.Move, before: dict[str, Any], after: dict[str, Any]
) -> dict[str, Any]:
    """A move's review from the evaluations before and after it (see :func:`analyse_game`);
    ``_accuracy`` is its unrounded accuracy."""
    color = "white" if position.turn == chess.WHITE else "black"
    sign = 1 if position.turn == chess.WHITE else -1
    chances_before = sign * winning_chances(before["score"])
    chances_after = sign * winning_chances(after["score"])
    # The engine's own best move loses nothing: a drop there is the difference between two
    # node-limited searches (before and after), not the move's.
    best = move.uci() == before["best_move"]
    drop = 0.0 if best else chances_before - chances_after
    judged = judgement(drop)
    win_before = 50 + 50 * chances_before
    win_after = 50 + 50 * chances_after
    accuracy = 100.0 if best else move_accuracy(win_before, win_after)
    said = None if judged is None else explanation(
        position, move, after["score"], after["line"],
        score_before=before["score"], best_line=before["line"],
    )
    return {
        "color": color,
        "move": move.uci(),
        "san": position.san(move),
        "eval_before": before["score"],
        "eval_after": after["score"],
        "best_move": before["best_move"],
        "best_san": before["best_san"],
        "best_line": before["line"],
        "win_before": round(win_before, 2),
        "win_after": round(win_after, 2),
        "accuracy": round(accuracy, 2),
        "judgement": judged,
        "explanation": None if said is None else said.text,
        "motifs": [] if said is None else list(said.motifs),
        "_accuracy": accuracy,
    }


def _evaluate(
    board: chess.Board, limit: chess.engine.Limit, engine: Engine
) -> dict[str, Any]:
    """Score (White's view), best move and line of a position; a finished game is not searched."""
    ended = rules.outcome(board)
    if ended is not None:
        return {"score": final_score(ended), "best_move": None, "best_san": None, "line": []}
    info = engine.analyse(board, limit)
    score = white_score(info)
    assert score is not None, "a position where the game goes on is searched with a score"
    line = info.get("pv", [])
    sans = san_line(board, line)
    best = line[0] if line else None
    return {
        "score": score,
        "best_move": best.uci() if best else None,
        "best_san": sans[0] if sans else None,
        "line": sans,
    }


# --- many games -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysisSummary:
    """What :func:`analyse_pgn` did."""

    analysed: int
    """Games reviewed by this run."""
    skipped_done: int
    """Games already in the output from an earlier run, not analysed again."""
    broken: int
    """Games that could not be read (illegal moves, bad FEN): recorded as broken, not reviewed."""
    output: str


@dataclass(frozen=True)
class _Job:
    key: str
    file: str
    index: int
    pgn: str
    errors: tuple[str, ...]


def analyse_pgn(
    paths: PathLike | Iterable[PathLike],
    output: PathLike,
    limit: chess.engine.Limit,
    *,
    workers: int = 1,
    client: Any = None,
    progress: bool = True,
) -> AnalysisSummary:
    """Review every game of the PGN files ``paths`` into the JSON-lines file ``output``.

    The first line of ``output`` is ``{"type": "settings", ...}`` (the limit and format); then one
    line per game, in the order games finish: ``{"type": "game", "key", "file", "index", ...}``
    with the fields of :func:`analyse_game`, or ``{"type": "broken", "key", "file", "index",
    "errors"}`` for a game python-chess could not read. Each line is written and flushed as soon
    as its game is done. If ``output`` exists, its settings must match (else
    AnalysisOutputError) and its games are skipped; a last line cut short by a kill is dropped.
    Games run on ``workers`` threads, or on the workers of the Dask ``client`` when one is given.
    ``progress`` shows a tqdm bar. Raises FileError naming a missing PGN file.
    """
    files = [Path(os.fspath(paths))] if isinstance(paths, (str, os.PathLike)) else [
        Path(os.fspath(path)) for path in paths
    ]
    for path in files:
        if not path.is_file():
            raise FileError(f"cannot read PGN {str(path)!r}: no such file")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    limit_fields = limit_to_kwargs(limit)
    settings = {"type": "settings", "format": FORMAT_VERSION, "limit": limit_fields}
    out_path = Path(os.fspath(output))
    done = _resume(out_path, settings)
    bar = _progress_bar(progress, len(done))
    counts = {"analysed": 0, "broken": 0, "skipped": 0}
    with out_path.open("a", encoding="utf-8") as out:
        if not done and out_path.stat().st_size == 0:
            _write(out, settings)

        def record(result: dict[str, Any]) -> None:
            _write(out, result)
            counts["broken" if result["type"] == "broken" else "analysed"] += 1
            if bar is not None:
                bar.update(1)

        jobs = _jobs(files, done, counts)
        if client is not None:
            _run_dask(client, jobs, limit_fields, record)
        else:
            _run_threads(workers, jobs, limit_fields, record)
    if bar is not None:
        bar.close()
    return AnalysisSummary(counts["analysed"], counts["skipped"], counts["broken"], str(out_path))


def _write(out: IO[str], record: dict[str, Any]) -> None:
    out.write(json.dumps(record, separators=(",", ":")) + "\n")
    out.flush()


def _resume(path: Path, settings: dict[str, Any]) -> set[str]:
    """The keys of the games already in ``path``; checks its settings; drops a cut-off last line."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with path.open("r+b") as handle:
            handle.truncate(len(complete))
    lines = complete.decode("utf-8").splitlines()
    if not lines:
        return set()
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        first = None
    if not isinstance(first, dict) or first.get("type") != "settings":
        raise AnalysisOutputError(
            f"{str(path)!r} is not a ferrochess analysis file (its first line is not the settings)"
        )
    if first != settings:
        raise AnalysisOutputError(
            f"{str(path)!r} was written with other settings: {first['limit']} (format "
            f"{first.get('format')}), this run uses {settings['limit']} (format "
            f"{settings['format']}); choose another output file"
        )
    return {json.loads(line)["key"] for line in lines[1:] if line.strip()}


def _progress_bar(enabled: bool, initial: int) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm  # type: ignore[import-untyped]

    return tqdm(unit="game", initial=initial, desc="analysing", dynamic_ncols=True)


def _jobs(files: list[Path], done: set[str], counts: dict[str, int]) -> Iterator[_Job]:
    """Every game of the files not yet in the output, with its key (file, index, content)."""
    for path in files:
        with path.open(encoding="utf-8", errors="replace") as handle:
            index = 0
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                text = str(game)
                digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                key = f"{path.name}#{index}:{digest}"
                if key in done:
                    counts["skipped"] += 1
                else:
                    errors = tuple(str(error) for error in game.errors)
                    yield _Job(key, path.name, index, text, errors)
                index += 1


_local = threading.local()


def _thread_engine() -> Engine:
    """This thread's engine (a Dask worker or pool thread reuses it from game to game)."""
    engine: Engine | None = getattr(_local, "engine", None)
    if engine is None or engine.closed:
        engine = Engine(book=None)
        _local.engine = engine
    return engine


def _analyse_job(job: _Job, limit: dict[str, Any]) -> dict[str, Any]:
    """The output record of one game (run on a worker thread, process or Dask worker)."""
    place = {"key": job.key, "file": job.file, "index": job.index}
    if job.errors:
        return {"type": "broken", **place, "errors": list(job.errors)}
    game = chess.pgn.read_game(io.StringIO(job.pgn))
    if game is None:  # pragma: no cover - the text came from a game
        return {"type": "broken", **place, "errors": ["empty game"]}
    review = analyse_game(game, chess.engine.Limit(**limit), engine=_thread_engine())
    return {"type": "game", **place, **review}


def _run_threads(
    workers: int,
    jobs: Iterator[_Job],
    limit: dict[str, Any],
    record: Callable[[dict[str, Any]], None],
) -> None:
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ferrochess-analyse") as pool:
        pending: set[Future[dict[str, Any]]] = set()
        try:
            for job in jobs:
                pending.add(pool.submit(_analyse_job, job, limit))
                if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        record(future.result())
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record(future.result())
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def _run_dask(
    client: Any,
    jobs: Iterator[_Job],
    limit: dict[str, Any],
    record: Callable[[dict[str, Any]], None],
) -> None:
    from distributed import as_completed

    workers = max(1, len(client.scheduler_info().get("workers", {})))
    in_flight = workers * IN_FLIGHT_PER_WORKER
    queue: Any = as_completed()  # type: ignore[no-untyped-call]
    submitted = 0
    for job in jobs:
        queue.add(client.submit(_analyse_job, job, limit, pure=False))
        submitted += 1
        if submitted >= in_flight:
            record(next(queue).result())
            submitted -= 1
    for future in queue:
        record(future.result())


# --- annotated PGN --------------------------------------------------------------------------------


def annotate_pgn(pgn_paths: PathLike | Iterable[PathLike], analysis: PathLike,
                 output: PathLike) -> int:  # fmt: skip
    """Write the games of ``pgn_paths`` that ``analysis`` (an :func:`analyse_pgn` file) reviewed to
    ``output``, each move with an ``[%eval ...]`` comment (the evaluation after it, as lichess
    writes it; a move that mates has none) and ``?!``, ``?`` or ``??`` for inaccuracies, mistakes
    and blunders. Returns the number of games written."""
    files = [Path(os.fspath(pgn_paths))] if isinstance(pgn_paths, (str, os.PathLike)) else [
        Path(os.fspath(path)) for path in pgn_paths
    ]
    reviews: dict[str, dict[str, Any]] = {}
    with Path(os.fspath(analysis)).open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                if record.get("type") == "game":
                    reviews[record["key"]] = record
    written = 0
    with Path(os.fspath(output)).open("w", encoding="utf-8") as out:
        for job in _jobs(files, set(), {"skipped": 0}):
            review = reviews.get(job.key)
            if review is None:
                continue
            game = chess.pgn.read_game(io.StringIO(job.pgn))
            assert game is not None
            node: chess.pgn.GameNode = game
            for reviewed in review["moves"]:
                node = node.variations[0]
                if reviewed["eval_after"].get("mate") != 0:  # the mating move has no evaluation
                    node.set_eval(_pov_score(reviewed["eval_after"]))
                if reviewed["judgement"] is not None:
                    node.nags.add(NAGS[reviewed["judgement"]])
            print(game, file=out, end="\n\n")
            written += 1
    return written


def _pov_score(score: dict[str, Any]) -> chess.engine.PovScore:
    if "mate" in score:
        return chess.engine.PovScore(chess.engine.Mate(score["mate"]), chess.WHITE)
    return chess.engine.PovScore(chess.engine.Cp(score["cp"]), chess.WHITE)

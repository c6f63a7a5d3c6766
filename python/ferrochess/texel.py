"""Texel tuning from Python: fit :class:`~ferrochess.ClassicWeights` to games' results.

Texel's method scores each position with the evaluation, turns the score into an expected result
with a sigmoid, ``1 / (1 + 10 ** (-K * eval / 400))``, and moves the weights to bring the
expected results closer to the real ones (the mean squared error). The engine's Rust tuner does
the work (Adam, full batch, the GIL released); this module reads the positions, shows a progress
bar and returns the weights::

    import ferrochess

    result = ferrochess.texel_tune("selfplay-a.txt.gz", epochs=500, tune=["terms", "tempo"])
    print(result.loss_before, "->", result.loss_after)
    result.weights.save("tuned.json")
    with ferrochess.Engine(evaluation=result.weights) as engine:
        ...
"""

from __future__ import annotations

import gzip
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import IO, Any, NamedTuple, Union

import chess

from ferrochess import _core
from ferrochess.exceptions import FileError, InvalidLimitError, InvalidPositionsError
from ferrochess.weights import ClassicWeights

__all__ = ["DEFAULT_EPOCHS", "Positions", "TuneProgress", "TuneResult", "texel_tune"]

DEFAULT_EPOCHS = 3000
"""Adam's steps over all the positions when ``epochs`` is not given (the tools' default)."""

Positions = Union[
    str,
    "os.PathLike[str]",
    Iterable[tuple[Union[str, chess.Board], Union[float, str]]],
]
"""Positions to tune on: the path of a file (plain or ``.gz``) of ``FEN | score | result`` lines
(the self-play data) or ``FEN;RESULT`` lines (the Texel positions), or (FEN or board, result)
pairs. A result is White's score: ``1``, ``0.5``, ``0`` (or any expected score between), or
``"1-0"``, ``"1/2-1/2"``, ``"0-1"``."""


class TuneProgress(NamedTuple):
    """Where a run stands after an epoch (what a ``progress`` callable receives)."""

    epoch: int
    """Epochs done, 1 to ``epochs``."""
    epochs: int
    """Epochs asked for."""
    train_loss: float
    """The mean squared error on the training positions with the weights reached so far."""
    validation_loss: float | None
    """The same on the held-out positions (None: none held out)."""


@dataclass(frozen=True)
class TuneResult:
    """What :func:`texel_tune` gives: the weights reached and the errors before and after."""

    weights: ClassicWeights
    """The weights reached, rounded to centipawns (the start's if no epoch ran)."""
    loss_before: float
    """The mean squared error on the training positions with the starting weights."""
    loss_after: float
    """The same with :attr:`weights`."""
    validation_before: float | None
    """The error on the held-out positions with the starting weights (None: none held out)."""
    validation_after: float | None
    """The same with :attr:`weights`."""
    k: float
    """The sigmoid's scale, fitted to the positions with the starting weights unless given."""
    epochs_run: int
    """Epochs done."""
    cancelled: bool
    """Stopped early (``cancel`` was set, or Ctrl-C): :attr:`weights` are those reached."""
    train_positions: int
    """How many positions were tuned on."""
    validation_positions: int
    """How many were held out."""


def texel_tune(
    positions: Positions,
    weights: ClassicWeights | None = None,
    *,
    epochs: int = DEFAULT_EPOCHS,
    learning_rate: float = 1.0,
    regularize: float = 0.0,
    tune: str | Iterable[str] = ("terms",),
    validation: float = 0.1,
    k: float | None = None,
    progress: bool | Callable[[TuneProgress], object] = True,
    cancel: threading.Event | None = None,
) -> TuneResult:
    """Fits the weights ``tune`` names, starting from ``weights`` (None: the default ones), to
    ``positions`` by Texel's method; returns a :class:`TuneResult`.

    ``tune`` names what may change: ``"terms"`` (every positional term, the default),
    ``"material"``, ``"tables"``, ``"tempo"``, ``"<piece> material"`` or ``"<piece> table"``
    (``"knight table"``), or a term's name (``"passed_pawn"``, see
    :data:`ferrochess.weights.TERMS`); everything else stays as it is. ``epochs`` steps of Adam,
    ``learning_rate`` centipawns each, over all the training positions; ``regularize`` adds that
    times the squared distance of each weight from its start to the error, so a weight the
    positions say little about stays near it. ``validation`` is the share of the games held out
    (whole games, evenly spread: a game is a run of positions in order with rising move numbers
    and one result, as a file of games' positions lists them) and reported before and after, so
    over-fitting shows. ``k`` is the sigmoid's scale (None: fitted first).

    ``progress=True`` draws a bar on stderr (tqdm); a callable receives a :class:`TuneProgress`
    after every epoch instead; False shows nothing. ``cancel`` (a :class:`threading.Event`) set
    from another thread stops the run after the epoch in progress, and so does Ctrl-C when the
    run is on the main thread: either way the weights reached so far come back with
    ``cancelled=True``. An exception the callable raises ends the run and is raised here.

    The positions are read and reduced before the first epoch, and ``K`` fitted: neither is
    cancellable. Raises InvalidPositionsError for a malformed line or result, InvalidFenError
    for a bad FEN, FileError for a file that cannot be read, InvalidWeightsError for malformed
    ``weights``, InvalidLimitError for a setting out of range or an unknown name in ``tune``.
    """
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 0:
        raise InvalidLimitError(f"invalid epochs {epochs!r}: must be a whole number at least 0")
    start = (weights if weights is not None else ClassicWeights.default())._to_core()
    names = [tune] if isinstance(tune, str) else list(tune)
    pairs = _read(positions)
    bar = _bar(epochs) if progress is True else None
    callback = progress if callable(progress) else None

    def on_epoch(epoch: int, total: int, train: float, held_out: float | None) -> bool:
        if bar is not None:
            bar.update(epoch - bar.n)
            postfix = {"loss": f"{train:.6f}"}
            if held_out is not None:
                postfix["validation"] = f"{held_out:.6f}"
            bar.set_postfix(postfix, refresh=False)
        if callback is not None:
            callback(TuneProgress(epoch, total, train, held_out))
        return cancel is None or not cancel.is_set()

    watched = bar is not None or callback is not None or cancel is not None
    try:
        outcome = _core.texel_tune(
            pairs,
            start,
            epochs=epochs,
            learning_rate=learning_rate,
            regularize=regularize,
            tune=names,
            validation=validation,
            k=k,
            callback=on_epoch if watched else None,
        )
    finally:
        if bar is not None:
            bar.close()
    return TuneResult(
        weights=ClassicWeights._from_core(outcome["weights"]),
        loss_before=outcome["loss_before"],
        loss_after=outcome["loss_after"],
        validation_before=outcome["validation_before"],
        validation_after=outcome["validation_after"],
        k=outcome["k"],
        epochs_run=outcome["epochs_run"],
        cancelled=outcome["cancelled"],
        train_positions=outcome["train_positions"],
        validation_positions=outcome["validation_positions"],
    )


def _bar(epochs: int) -> Any:
    from tqdm import tqdm  # type: ignore[import-untyped]

    return tqdm(total=epochs, desc="texel_tune", unit="epoch", file=sys.stderr)


_RESULTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


def _result(text: str | float) -> float | None:
    """White's score from a number or a game result; None when it is neither or out of 0..1."""
    if isinstance(text, str):
        text = text.strip()
        if text in _RESULTS:
            return _RESULTS[text]
        try:
            value = float(text)
        except ValueError:
            return None
    elif isinstance(text, bool) or not isinstance(text, (int, float)):
        return None
    else:
        value = float(text)
    return value if 0.0 <= value <= 1.0 else None


def _read(positions: Positions) -> list[tuple[str, float]]:
    """(FEN, White's score) pairs from a file or from pairs."""
    if isinstance(positions, (str, os.PathLike)):
        return _read_file(os.fspath(positions))
    pairs = []
    for index, item in enumerate(positions):
        try:
            board, result = item
        except (TypeError, ValueError):
            raise InvalidPositionsError(
                f"positions[{index}]: expected a (FEN, result) pair, got {item!r}"
            ) from None
        fen = board.fen() if isinstance(board, chess.Board) else board
        if not isinstance(fen, str):
            raise InvalidPositionsError(f"positions[{index}]: {board!r} is not a FEN or a board")
        score = _result(result)
        if score is None:
            raise InvalidPositionsError(
                f"positions[{index}]: result {result!r} is not White's score (1, 0.5, 0 or "
                "between; 1-0, 1/2-1/2, 0-1)"
            )
        pairs.append((fen, score))
    return pairs


def _read_file(path: str) -> list[tuple[str, float]]:
    """The positions of a ``FEN | score | result`` or ``FEN;RESULT`` file, plain or gzipped."""
    pairs = []
    try:
        file: IO[str] = (
            gzip.open(path, "rt", encoding="utf-8")
            if path.endswith(".gz")
            else open(path, encoding="utf-8")
        )
        with file:
            for number, raw in enumerate(file, start=1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                if "|" in line:
                    fen, _, result = line.partition("|")
                    result = result.rpartition("|")[2]
                elif ";" in line:
                    fen, _, result = line.rpartition(";")
                else:
                    raise InvalidPositionsError(
                        f"'{path}' line {number}: no result ('FEN | score | result' or "
                        f"'FEN;RESULT' expected): {line!r}"
                    )
                score = _result(result)
                if score is None:
                    raise InvalidPositionsError(
                        f"'{path}' line {number}: result {result.strip()!r} is not White's "
                        "score (1, 0.5, 0 or between; 1-0, 1/2-1/2, 0-1)"
                    )
                pairs.append((fen.strip(), score))
    except OSError as error:
        raise FileError(f"cannot read '{path}': {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise InvalidPositionsError(f"'{path}': not a text file of positions: {error}") from None
    return pairs

"""Running a match: :func:`match` plays it and returns its result; :class:`Match` does the same
in a background thread that another thread can stop.

The games are planned before any is played: for round ``r`` (opening ``r``) and each pairing
``(a, b)`` in order, ``a`` has White then ``b`` has White; game ``i``'s seed is derived from the
match's seed and ``i``. So the games do not depend on how they are scheduled: with ``concurrency``
threads, or as one Dask task per pair, a ferrochess game at fixed nodes with one thread is the
same game. With an SPRT the LLR is computed after each pair that completes the run of finished
pairs (pair order); once it decides, no new game starts, games in flight are cancelled, and the
result holds the pairs up to the deciding one.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Literal

from ferrochess.match._seeds import derive_seed
from ferrochess.match.adjudication import Adjudication
from ferrochess.match.events import (
    Event,
    EventCallback,
    GameFinished,
    MatchFinished,
    MatchStarted,
    Progress,
)
from ferrochess.match.game import GameSpec, Setup, play_game
from ferrochess.match.limits import Limit, LimitSpec, as_limit
from ferrochess.match.openings import OpeningsSpec, as_openings
from ferrochess.match.players import Function, MoveFunction, Player, as_player, unique_names
from ferrochess.match.result import GameRecord, MatchResult, Tally
from ferrochess.match.seats import Seat, open_seat
from ferrochess.match.stats import SPRT
from ferrochess.tablebase import Tablebase, open_tablebase

__all__ = ["Match", "Tournament", "match"]

Tournament = Literal["match", "gauntlet", "roundrobin"]
POLL_SECONDS = 0.1
"""How often the waiting thread looks at the cancel event."""


def _pairings(count: int, tournament: str) -> list[tuple[int, int]]:
    if tournament == "match":
        if count != 2:
            raise ValueError(
                f"players: a match is between 2 players, not {count} (for more, give "
                "tournament='gauntlet' or 'roundrobin')"
            )
        return [(0, 1)]
    if count < 2:
        raise ValueError(f"players: a tournament needs at least 2 players, not {count}")
    if tournament == "gauntlet":
        return [(0, other) for other in range(1, count)]
    if tournament == "roundrobin":
        return [(a, b) for a in range(count) for b in range(a + 1, count)]
    raise ValueError(
        f"tournament = {tournament!r}: must be 'match', 'gauntlet' or 'roundrobin'"
    )


class Match:
    """A match between ``players``, planned at construction (bad options raise ValueError
    naming the option, a missing openings file FileError) and played by :meth:`run` in the
    calling thread or by :meth:`start` in a background thread. :meth:`stop` ends it early from
    any thread: games in flight are abandoned and the partial result is returned.

    The options are :func:`match`'s. The plan is readable (and stays so): ``players``,
    ``names`` (unique names, by player index), ``pairings`` (pairs of player indices),
    ``specs`` (every game's :class:`~ferrochess.match.game.GameSpec`, in game order), ``sprt``,
    ``limits`` (each player's), ``time_control`` (in words), ``cancel`` (the Event
    :meth:`stop` sets); ``on_event`` and ``progress`` may be changed before the match starts.
    """

    def __init__(
        self,
        players: Sequence[Player | MoveFunction | str],
        *,
        games: int = 2,
        openings: OpeningsSpec | None = None,
        limit: LimitSpec | None = None,
        concurrency: int = 1,
        sprt: SPRT | tuple[float, float] | None = None,
        seed: int = 1,
        pgn: str | Path | None = None,
        adjudication: Adjudication | None = None,
        chess960: bool = False,
        tournament: Tournament = "match",
        client: Any = None,
        on_event: EventCallback | None = None,
        progress: bool | None = None,
        cancel: threading.Event | None = None,
        event: str = "ferrochess match",
    ) -> None:
        self.players = tuple(as_player(player) for player in players)
        self.names = tuple(unique_names(self.players))
        self.pairings = _pairings(len(self.players), tournament)
        if not isinstance(games, int) or games < 2 or games % 2:
            raise ValueError(f"games = {games!r}: must be an even number >= 2 (game pairs)")
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency = {concurrency!r}: must be a whole number >= 1")
        if not isinstance(seed, int):
            raise ValueError(f"seed = {seed!r}: must be an integer")
        if isinstance(sprt, tuple):
            sprt = SPRT(*sprt)
        if sprt is not None and not isinstance(sprt, SPRT):
            raise ValueError(f"sprt = {sprt!r}: expected SPRT(elo0, elo1, ...) or (elo0, elo1)")
        if sprt is not None and len(self.players) != 2:
            raise ValueError("sprt: an SPRT tests one pairing, so it needs exactly 2 players")
        self.sprt = sprt
        self.limits = self._limits(None if limit is None else as_limit(limit))
        rounds = games // 2
        openings = as_openings(openings, chess960=chess960).select(rounds, seed, chess960=chess960)
        self.specs: list[GameSpec] = []
        for round_index, opening in enumerate(openings):
            for number, (a, b) in enumerate(self.pairings):
                index = (round_index * len(self.pairings) + number) * 2
                for offset, (white, black) in enumerate(((a, b), (b, a))):
                    self.specs.append(GameSpec(
                        index + offset, number, round_index + 1, round_index, opening, white,
                        black, derive_seed(seed, "game", index + offset),
                    ))  # fmt: skip
        self.setup = Setup(self.names, self.limits, adjudication or Adjudication(), event)
        controls = {str(limit) if limit else "-" for limit in self.limits}
        self.time_control = controls.pop() if len(controls) == 1 else "various"
        self.concurrency = concurrency
        self.client = client
        self.on_event = on_event
        self.progress = sys.stderr.isatty() if progress is None else bool(progress)
        self.pgn_path = None if pgn is None else Path(pgn)
        self.cancel = cancel if cancel is not None else threading.Event()
        self._thread: threading.Thread | None = None
        self._ended = threading.Event()
        self._outcome: MatchResult | BaseException | None = None

    def _limits(self, limit: Limit | None) -> tuple[Limit | None, ...]:
        limits = []
        for player in self.players:
            own = player.limit or limit
            if own is None and not isinstance(player, Function):
                raise ValueError(
                    f"limit: {player.name!r} has no limit; give the match a limit (e.g. "
                    "limit='10+0.1' or Limit(nodes=5000)) or the player its own"
                )
            limits.append(own)
        return tuple(limits)

    def run(self) -> MatchResult:
        """Play the match in this thread and return its result (see :func:`match`)."""
        return _Run(self).run()

    def start(self) -> Match:
        """Play the match in a background thread; returns ``self``."""
        if self._thread is not None:
            raise RuntimeError("this match was already started")

        def target() -> None:
            try:
                self._outcome = self.run()
            except BaseException as error:  # noqa: BLE001 - handed to result()
                self._outcome = error
            finally:
                self._ended.set()

        self._thread = threading.Thread(target=target, name="ferrochess-match", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the match early (from any thread): no new game starts, games in flight are
        abandoned; :meth:`run` and :meth:`result` return the partial result."""
        self.cancel.set()

    @property
    def done(self) -> bool:
        """Whether a started match has ended."""
        return self._ended.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: until it ends) for a started match to end;
        returns :attr:`done`. (An Event, not ``Thread.join``: Ctrl-C may interrupt it.)"""
        if self._thread is None:
            raise RuntimeError("the match was not started: call start() or run()")
        return self._ended.wait(timeout)

    def result(self, timeout: float | None = None) -> MatchResult:
        """Wait for a started match and return its result (re-raising its error); TimeoutError
        when ``timeout`` seconds pass first."""
        if not self.wait(timeout):
            raise TimeoutError(f"the match is still running after {timeout} s")
        if isinstance(self._outcome, BaseException):
            raise self._outcome
        assert self._outcome is not None
        return self._outcome


def match(
    players: Sequence[Player | MoveFunction | str],
    *,
    games: int = 2,
    openings: OpeningsSpec | None = None,
    limit: LimitSpec | None = None,
    concurrency: int = 1,
    sprt: SPRT | tuple[float, float] | None = None,
    seed: int = 1,
    pgn: str | Path | None = None,
    adjudication: Adjudication | None = None,
    chess960: bool = False,
    tournament: Tournament = "match",
    client: Any = None,
    on_event: EventCallback | None = None,
    progress: bool | None = None,
    cancel: threading.Event | None = None,
    event: str = "ferrochess match",
) -> MatchResult:
    """Play a match (or a tournament) and return its :class:`MatchResult`.

    ``players``: :class:`Ferrochess`, :class:`Uci` or :class:`Function` players (a callable is
    taken as a Function, a string as a Uci command). ``tournament``: ``"match"`` (two players),
    ``"gauntlet"`` (the first against each other) or ``"roundrobin"`` (every pairing).
    ``games``: games per pairing, an even number: ``games // 2`` rounds, each an opening played
    twice with colours swapped. ``openings``: :class:`Openings`, an ``.epd``/``.pgn``/``.bin``
    path or a list (default: the ECO lines, 8 plies, random order; with ``chess960`` the
    numbered Chess960 positions). ``limit``: a :class:`Limit`, a :class:`TimeControl`, ``"10+0.1"``
    or a :class:`chess.engine.Limit`, for players without their own. ``concurrency``: games at
    once (threads; a process per UCI player per thread). ``sprt``: :class:`SPRT` or ``(elo0,
    elo1)``, two players only. ``seed``: openings order and every game's seed. ``pgn``: a file
    each finished game is appended to. ``adjudication``: :class:`Adjudication` rules (none by
    default). ``client``: a ``dask.distributed.Client``: each pair is a task on its cluster.
    ``on_event``: an observer (:mod:`ferrochess.match.events`). ``progress``: a line per finished
    game on stderr (default: when stderr is a terminal). ``cancel``: a threading.Event that
    stops the match when set (the partial result is returned). ``event``: the PGN Event tag.

    Losses on time, by illegal moves, crashes and stalls are recorded, not raised; a player that
    cannot start raises :class:`PlayerError`. Ctrl-C stops the games cleanly and propagates.
    """
    return Match(
        players, games=games, openings=openings, limit=limit, concurrency=concurrency,
        sprt=sprt, seed=seed, pgn=pgn, adjudication=adjudication, chess960=chess960,
        tournament=tournament, client=client, on_event=on_event, progress=progress,
        cancel=cancel, event=event,
    ).run()  # fmt: skip


class _Run:
    """The state of one run of a :class:`Match`."""

    def __init__(self, plan: Match) -> None:
        self.plan = plan
        self.tally = Tally(plan.names, plan.pairings, len(plan.specs), plan.time_control,
                           plan.sprt)  # fmt: skip
        self.lock = threading.RLock()  # results and events, one at a time
        self.abort = threading.Event()  # stops the games: cancel, SPRT decided, error
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self.cancelled = False
        self.llr: float | None = None
        self.decision: Literal["H0", "H1"] | None = None
        self.decided_rounds: int | None = None
        self.next_spec = 0

    def run(self) -> MatchResult:
        plan = self.plan
        watcher = threading.Thread(target=self._watch, name="ferrochess-match-cancel",
                                   daemon=True)  # fmt: skip
        watcher.start()
        try:
            self.emit(MatchStarted(plan.names, len(plan.specs), tuple(plan.pairings)))
            if plan.client is not None:
                self._run_dask()
            else:
                self._run_local()
        except BaseException:
            self.abort.set()
            raise
        finally:
            self.finished.set()
        if self.error is not None:
            raise self.error
        result = self._final()
        self.emit(MatchFinished(result))
        if self.error is not None:
            raise self.error
        return result

    def _watch(self) -> None:
        while not self.finished.is_set():
            if self.plan.cancel.wait(POLL_SECONDS):
                with self.lock:
                    if not self.finished.is_set() and self.decision is None:
                        self.cancelled = True
                self.abort.set()
                return

    def fail(self, error: BaseException) -> None:
        with self.lock:
            if self.error is None:
                self.error = error
        self.abort.set()

    def emit(self, event: Event) -> None:
        callback = self.plan.on_event
        if callback is None:
            return
        with self.lock:
            if self.error is not None:
                return
            try:
                callback(event)
            except BaseException as error:  # noqa: BLE001 - re-raised by run()
                self.fail(error)

    # --- scheduling ------------------------------------------------------------------------------

    def _take(self) -> GameSpec | None:
        with self.lock:
            if self.abort.is_set() or self.next_spec >= len(self.plan.specs):
                return None
            spec = self.plan.specs[self.next_spec]
            self.next_spec += 1
            return spec

    def _run_local(self) -> None:
        slots = min(self.plan.concurrency, len(self.plan.specs))
        ended = [threading.Event() for _ in range(slots)]
        for number, event in enumerate(ended):
            threading.Thread(target=self._slot, args=(event,), name=f"ferrochess-match-{number}",
                             daemon=True).start()  # fmt: skip
        try:
            for event in ended:  # Event.wait, not Thread.join: Ctrl-C may interrupt it
                while not event.wait(POLL_SECONDS):
                    pass
        except KeyboardInterrupt:
            self.cancelled = True
            self.abort.set()
            for event in ended:
                event.wait()
            raise

    def _slot(self, ended: threading.Event) -> None:
        seats: dict[int, Seat] = {}
        tablebase = None
        try:
            tablebase = _open_tablebase(self.plan.setup.adjudication)
            while (spec := self._take()) is not None:
                for player in (spec.white, spec.black):
                    if player not in seats:
                        seats[player] = open_seat(self.plan.players[player])
                emit = None if self.plan.on_event is None else self.emit
                record = play_game(spec, self.plan.setup, seats, tablebase, self.abort, emit)
                if record is not None:
                    self.deliver(record)
        except BaseException as error:  # noqa: BLE001 - re-raised by run()
            self.fail(error)
        finally:
            for seat in seats.values():
                seat.close()
            if tablebase is not None:
                tablebase.close()
            ended.set()

    def _run_dask(self) -> None:
        import distributed

        plan, client = self.plan, self.plan.client
        pairs = [plan.specs[i:i + 2] for i in range(0, len(plan.specs), 2)]
        workers = client.scheduler_info().get("workers", {}).values()
        in_flight = max(1, sum(int(w.get("nthreads", 1)) for w in workers))
        pending: set[Any] = set()
        submitted = 0
        try:
            while True:
                while submitted < len(pairs) and len(pending) < in_flight and (
                    not self.abort.is_set()
                ):
                    pending.add(client.submit(_play_pair, pairs[submitted], plan.players,
                                              plan.setup, pure=False))  # fmt: skip
                    submitted += 1
                if not pending or self.abort.is_set():
                    break
                try:
                    done, pending = distributed.wait(  # type: ignore[no-untyped-call]
                        pending, timeout=POLL_SECONDS, return_when="FIRST_COMPLETED"
                    )
                except (TimeoutError, asyncio.TimeoutError):
                    continue
                for future in done:
                    for record in future.result():
                        self.deliver(record)
        except KeyboardInterrupt:
            self.cancelled = True
            raise
        finally:
            if pending:
                client.cancel(list(pending))

    # --- results ---------------------------------------------------------------------------------

    def deliver(self, record: GameRecord) -> None:
        plan = self.plan
        with self.lock:
            if self.decided_rounds is not None and record.round > self.decided_rounds:
                return  # after the SPRT's decision: not part of the result
            self.tally.add(record)
            if plan.pgn_path is not None:
                with plan.pgn_path.open("a", encoding="utf-8") as out:
                    out.write(record.pgn + "\n\n")
            if plan.sprt is not None and self.decision is None:
                self.llr = plan.sprt.llr(self.tally.ordered_pentanomial())
                self.decision = plan.sprt.decision(self.llr)
                if self.decision is not None:
                    self.decided_rounds = self.tally.prefix[0]
                    self.abort.set()
            snapshot = self.tally.result(llr=self.llr, decision=self.decision)
            if plan.progress:
                _progress_line(sys.stderr, record, snapshot)
            self.emit(GameFinished(record))
            self.emit(Progress(snapshot))

    def _final(self) -> MatchResult:
        plan, tally = self.plan, self.tally
        games = tally.games
        if self.decided_rounds is not None:
            games = [game for game in games if game.round <= self.decided_rounds]
            tally = Tally.of(games, plan.names, plan.pairings, len(plan.specs),
                             plan.time_control, plan.sprt)  # fmt: skip
        llr = None if plan.sprt is None else plan.sprt.llr(tally.result().pentanomial)
        cancelled = self.cancelled or (self.decision is None and len(games) < len(plan.specs))
        return tally.result(llr=llr, decision=self.decision, cancelled=cancelled)


def _open_tablebase(rules: Adjudication) -> Tablebase | None:
    return None if rules.tablebase is None else open_tablebase(rules.tablebase)


def _play_pair(specs: list[GameSpec], players: tuple[Player, ...], setup: Setup
               ) -> list[GameRecord]:  # fmt: skip
    """A Dask task: play the games of one pair on the worker and return their records."""
    seats: dict[int, Seat] = {}
    tablebase = _open_tablebase(setup.adjudication)
    never = threading.Event()
    records = []
    try:
        for spec in specs:
            for player in (spec.white, spec.black):
                if player not in seats:
                    seats[player] = open_seat(players[player])
            record = play_game(spec, setup, seats, tablebase, never, None)
            assert record is not None
            records.append(record)
    finally:
        for seat in seats.values():
            seat.close()
        if tablebase is not None:
            tablebase.close()
    return records


def _progress_line(stream: IO[str], record: GameRecord, result: MatchResult) -> None:
    """``Game 12/40: A vs B 1-0 (White mates). Score of A vs B: 6 - 3 - 3 [0.625] ...``"""
    pairing = result.pairings[record.pairing]
    elo, nelo = pairing.elo, pairing.nelo
    text = (
        f"Game {record.index + 1}/{result.planned_games}: {record.white} vs {record.black} "
        f"{record.result} ({record.reason}). Score of {pairing.first} vs {pairing.second}: "
        f"{pairing.wins} - {pairing.losses} - {pairing.draws} [{pairing.score:.3f}]"
    )
    if pairing.pentanomial.pairs:
        text += f" Elo {elo.value:.1f} +/- {elo.margin:.1f}, nElo {nelo.value:.1f} +/- "
        text += f"{nelo.margin:.1f}"
    if result.sprt is not None and result.llr is not None:
        low, high = result.sprt.bounds
        text += f" LLR {result.llr:.2f} ({low:.2f}, {high:.2f})"
        if result.decision is not None:
            text += f" {result.decision} accepted"
    stream.write(text + "\n")
    stream.flush()


"""Guards the SPSA tuner (`ferrochess_tools.spsa`, docs/tuning.md): OpenBench's schedule, random
rounding and clipping; that it climbs a synthetic objective toward its known optimum; that a run
resumed from its state file ends exactly where an uninterrupted one does, openings included; that
`apply` rewrites the defaults of params.rs's `tunables!` declarations (on a copy of the text) and
`show` prints a `ferrochess match` command that parses to the tuned and the base engine; that the
`COMMAND;OPTION=VALUE` engine spelling maps onto `ferrochess.match.Uci`; that a game lost by a
fault is blamed on the side at fault; and that a `tune` build offers every tunable as a UCI
option, its search follows `setoption`, with the defaults it searches exactly as the normal build
(the same `bench` signature), and an iteration of real games is a `ferrochess.match` match."""

from __future__ import annotations

import json
import math
import random
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from ferrochess.match import GameRecord, Opening, Openings, Uci
from ferrochess.match.cli import parse
from ferrochess_tools import faulty_player, spsa
from ferrochess_tools.spsa import GameJob, GameResult, Param, Schedule, State


def param(name: str, value: float, low: float, high: float, c_end: float, r_end: float = 0.002,
          is_float: bool = False) -> Param:  # fmt: skip
    return Param(name, is_float, value, value, low, high, c_end, r_end)


def test_the_schedule_matches_hand_computed_values() -> None:
    # N = 100, A = 0.1 N = 10, C_end = 4, R_end = 0.002: c_1 = 4 * 100^0.101 = 4 * 10^0.202,
    # a_1 = 0.002 * 4^2 * (110 / 11)^0.602 = 0.032 * 10^0.602, r_1 = a_1 / c_1^2; at k = N both
    # end at C_end and R_end.
    schedule = Schedule(100)
    p = param("X", 50, 0, 100, c_end=4)
    assert schedule.c(p, 1) == pytest.approx(6.368835, rel=1e-6)
    assert schedule.r(p, 1) == pytest.approx(0.00315522, rel=1e-5)
    assert schedule.c(p, 10) == pytest.approx(5.047310, rel=1e-6)
    assert schedule.r(p, 10) == pytest.approx(0.00350533, rel=1e-5)
    assert schedule.c(p, 100) == pytest.approx(4.0)
    assert schedule.r(p, 100) == pytest.approx(0.002)
    # An integer is never perturbed by less than half a unit; a float may be.
    assert Schedule(100).c(param("I", 3, 0, 6, c_end=0.3), 100) == 0.5
    assert Schedule(100).c(param("F", 3, 0, 6, c_end=0.3, is_float=True), 100) == pytest.approx(0.3)


def test_integers_round_at_random_and_clip() -> None:
    schedule = Schedule(10)
    rng = random.Random(7)
    p = param("X", 10.3, 0, 11, c_end=0.5)  # c_10 = 0.5: the engines get 10.3 +- 0.5
    plus_sum = minus_sum = 0
    for _ in range(4000):
        pert = spsa.perturb([p], schedule, 10, rng)
        plus, minus = pert.plus["X"], pert.minus["X"]
        assert isinstance(plus, int) and isinstance(minus, int)
        # One draw rounds both: they differ by exactly 2c = 1.
        assert abs(plus - minus) == 1 and (plus > minus) == (pert.signs[0] > 0)
        plus_sum += plus
        minus_sum += minus
    # floor(x + u) is x on average: 10.8 and 9.8 (each sign half the time: the mean is 10.3).
    assert (plus_sum + minus_sum) / 8000 == pytest.approx(10.3, abs=0.03)
    # Clipping: at the top of the range the plus side stays at the maximum.
    top = param("T", 11, 0, 11, c_end=3)
    pert = spsa.perturb([top], schedule, 10, random.Random(1))
    assert max(pert.plus["T"], pert.minus["T"]) == 11 and min(pert.plus["T"], pert.minus["T"]) == 8
    # The update moves by r * c * (W - L) * sign and clips too.
    spsa.update([top], schedule, 10, [1], wins=16, losses=0)
    assert top.value == 11
    spsa.update([top], schedule, 10, [-1], wins=16, losses=0)
    assert top.value == pytest.approx(11 - schedule.r(top, 10) * schedule.c(top, 10) * 16)


OPTIMUM = {"A": 40.0, "B": 12.0, "C": 2.0}


def synthetic_game(job: GameJob) -> GameResult:
    """A game whose winner is more likely the engine nearer OPTIMUM (each coordinate in units
    of a fifth of its range), drawn a third of the time; seeded by the job alone."""
    scale = {"A": 40.0, "B": 4.0, "C": 2.0}

    def distance(values: dict[str, float]) -> float:
        return math.sqrt(sum(((values[n] - OPTIMUM[n]) / scale[n]) ** 2 for n in OPTIMUM))

    rng = random.Random(job.seed)
    edge = distance(dict(job.minus)) - distance(dict(job.plus))
    if rng.random() < 1 / 3:
        return GameResult(0.5)
    return GameResult(1.0 if rng.random() < 1 / (1 + math.exp(-2 * edge)) else 0.0)


def synthetic_state(iterations: int, seed: int) -> State:
    params = spsa.parse_params(
        "A, int, 150, 0, 200, 10, 0.05\n"
        "# a comment line\n"
        "B, int, 2, 0, 20, 1, 0.05\n"
        "C, float, -3.0, -5.0, 5.0, 0.5, 0.05\n"
    )
    return State(params, Schedule(iterations), pairs=8, seed=seed)


def test_the_tuner_moves_toward_a_known_optimum() -> None:
    for seed in (1, 2, 3):
        state = synthetic_state(150, seed)
        start = {p.name: abs(p.value - OPTIMUM[p.name]) for p in state.params}
        spsa.tune(state, spsa.each_game(synthetic_game), 1, lambda s: None)
        assert state.iteration == 150 and state.wins + state.draws + state.losses == 150 * 16
        for p in state.params:
            left = abs(p.value - OPTIMUM[p.name])
            assert left < 0.2 * start[p.name], (seed, p.name, p.value)


def test_a_resumed_run_ends_where_an_uninterrupted_one_does(tmp_path: Path) -> None:
    played: list[list[GameJob]] = [[], []]

    def recorded(run: int) -> spsa.IterationGames:
        def games(jobs: list[GameJob], concurrency: int) -> list[GameResult]:
            played[run] += jobs
            return spsa.each_game(synthetic_game)(jobs, concurrency)

        return games

    whole = spsa.tune(synthetic_state(40, 5), recorded(0), 1, lambda s: None)
    path = tmp_path / "state.json"
    first = spsa.tune(synthetic_state(40, 5), recorded(1), 1, lambda s: s.save(path),
                      stop_after=15)  # fmt: skip
    assert first.iteration == 15
    resumed = State.from_json(json.loads(path.read_text()))
    spsa.tune(resumed, recorded(1), 4, lambda s: s.save(path))
    assert resumed.to_json() == whole.to_json()
    assert json.loads(path.read_text()) == whole.to_json()
    assert [p.value for p in whole.params] != [p.start for p in whole.params]
    # The same games, from the same openings: each pair's, then the next iteration's, in turn
    # through the ECO lines shuffled by the seed.
    assert played[0] == played[1] and len(played[0]) == 40 * 16
    pairs = [(a.opening, b.opening, a.plus_white, b.plus_white)
             for a, b in zip(played[0][::2], played[0][1::2])]  # fmt: skip
    assert all(first == second and white and not black for first, second, white, black in pairs)
    lines = Openings.eco(8).select(40 * 8, seed=5)
    assert [opening for opening, *_ in pairs] == lines
    assert all(len(opening.moves) == 8 for opening in lines) and len(set(lines[:100])) == 100


def test_apply_rewrites_the_declarations(repo_root: Path) -> None:
    original = (repo_root / "src" / "search" / "params.rs").read_text()
    declared = {match.group(2): int(match.group(4).replace("_", ""))
                for match in spsa.DECLARATION.finditer(original)}  # fmt: skip
    assert {"FUTILITY_MARGIN_CP", "LMR_HISTORY_DIVISOR"} <= set(declared)
    state = synthetic_state(10, 1)
    state.params = [param(name, declared[name], 0, 99_999, 8)
                    for name in ("FUTILITY_MARGIN_CP", "LMR_HISTORY_DIVISOR")]  # fmt: skip
    state.params[0].value = declared["FUTILITY_MARGIN_CP"] + 6.6  # rounds up to +7
    state.params[1].value = 12_345.2
    text, changes = spsa.apply(state, original)
    assert len(changes) == 2, changes
    old_lines, new_lines = original.splitlines(), text.splitlines()
    differing = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert len(old_lines) == len(new_lines) and len(differing) == 2
    margin = declared["FUTILITY_MARGIN_CP"]
    old_line, new_line = next(pair for pair in differing if "FUTILITY_MARGIN_CP" in pair[0])
    assert new_line == old_line.replace(f"= {margin},", f"= {margin + 7},")
    old_line, new_line = next(pair for pair in differing if "LMR_HISTORY_DIVISOR" in pair[0])
    assert new_line == old_line.replace(f"= {declared['LMR_HISTORY_DIVISOR']:_},", "= 12_345,")
    assert spsa.apply(state, text) == (text, [])
    state.params.append(param("NO_SUCH_TUNABLE", 1, 0, 2, 1))
    with pytest.raises(ValueError, match="NO_SUCH_TUNABLE"):
        spsa.apply(state, original)
    # `show` gives the setoption lines and a `ferrochess match` of only the changed values.
    shown = spsa.show(state)
    assert f"setoption name FUTILITY_MARGIN_CP value {margin + 7}" in shown
    assert "NO_SUCH_TUNABLE=" not in shown
    command = shown.splitlines()[-1]
    assert command.startswith("ferrochess match -engine ")
    options = parse(shlex.split(command)[2:])
    tuned, base = options["players"]
    assert isinstance(tuned, Uci) and isinstance(base, Uci)
    assert (tuned.name, base.name) == ("tuned", "base")
    assert tuned.command == base.command == (str(spsa.TUNE_BINARY),)
    assert tuned.options == {"OwnBook": False, "FUTILITY_MARGIN_CP": margin + 7,
                             "LMR_HISTORY_DIVISOR": 12345}  # fmt: skip
    assert base.options == {"OwnBook": False}
    assert tuned.limit is not None and str(tuned.limit.clock) == state.tc
    assert options["games"] == 400
    assert (options["sprt"].elo0, options["sprt"].elo1, options["sprt"].model) == (0, 5,
                                                                                "logistic")


def test_the_engine_spelling_maps_onto_uci_players() -> None:
    engine = spsa.parse_engine("target/x --flag;proto=xboard;name=tuned;OwnBook=false;"
                               "Level=-3;EvalFile=net.nnue")  # fmt: skip
    assert engine == Uci(["target/x", "--flag"], {"OwnBook": False, "Level": -3,
                                                  "EvalFile": "net.nnue"}, "xboard", "tuned")
    plain = spsa.parse_engine(spsa.DEFAULT_ENGINE)
    assert plain.command == (str(spsa.TUNE_BINARY),) and plain.options == {"OwnBook": False}
    assert plain.protocol == "uci" and plain.name == "ferrochess-uci"
    with pytest.raises(ValueError, match="proto='cecp'"):
        spsa.parse_engine("engine;proto=cecp")
    with pytest.raises(ValueError, match="no command"):
        spsa.parse_engine(";OwnBook=false")


def record(result: str, termination: str, reason: str) -> GameRecord:
    """A game between player 1 (White) and player 0 (Black) that ended so."""
    return GameRecord(0, 0, 1, 0, 0, Opening(), "one", "zero", 1, 0, result, termination, reason,
                      (), "")  # fmt: skip


def test_a_fault_is_blamed_on_the_side_at_fault() -> None:
    assert faulty_player(record("0-1", "time forfeit", "White loses on time (35 ms over)")) == 1
    assert faulty_player(record("1-0", "abandoned", "Black disconnects (it died)")) == 0
    assert faulty_player(record("1-0", "rules infraction", "Black makes an illegal move: e1e8")) \
        == 0
    # A loss on time against a lone king is a draw, and still the side's fault.
    drawn = "Black loses on time (12 ms over), but White cannot mate: draw"
    assert faulty_player(record("1/2-1/2", "time forfeit", drawn)) == 0
    assert faulty_player(record("0-1", "normal", "Black mates")) is None
    assert faulty_player(record("1/2-1/2", "adjudication", "Draw by adjudication")) is None


@pytest.fixture(scope="session")
def tune_binary(repo_root: Path) -> Path:
    """The `tune` build (release, in target/tune, as `make spsa` builds it) and the normal
    release build, built now (cargo only rebuilds what changed)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not on PATH")
    for extra in (["--features", "tune", "--target-dir", "target/tune"], []):
        subprocess.run(["cargo", "build", "--release", "--bin", "ferrochess-uci", *extra],
                       cwd=repo_root, check=True, capture_output=True)  # fmt: skip
    return repo_root / "target" / "tune" / "release" / "ferrochess-uci"


def uci(binary: Path, commands: str) -> list[str]:
    done = subprocess.run([str(binary)], input=commands + "quit\n", capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    return done.stdout.splitlines()


def benches(lines: list[str]) -> list[int]:
    return [int(line.split()[1]) for line in lines if line.startswith("Bench: ")]


def test_a_tune_build_offers_the_tunables_and_its_search_follows_them(
    tune_binary: Path, repo_root: Path
) -> None:
    params = spsa.engine_params([str(tune_binary)])
    declared = {m.group(2) for m in spsa.DECLARATION.finditer(
        (repo_root / "src" / "search" / "params.rs").read_text())}  # fmt: skip
    assert [p.name for p in params] and {p.name for p in params} == declared
    options = set(uci(tune_binary, "uci\n"))
    for p in params:
        line = f"option name {p.name} type spin default {p.start:g} min {p.min:g} max {p.max:g}"
        assert line in options
    # The normal build offers none of them.
    normal = repo_root / "target" / "release" / "ferrochess-uci"
    assert not any(p.name in line for line in uci(normal, "uci\n") for p in params)
    start = {p.name: int(p.start) for p in params}
    margin, base = start["FUTILITY_MARGIN_CP"], start["LMR_BASE_HUNDREDTHS"]
    nodes = benches(uci(tune_binary, "bench\n"
                        f"setoption name FUTILITY_MARGIN_CP value {margin + 40}\nbench\n"
                        f"setoption name futility_margin_cp value {margin}\nbench\n"
                        f"setoption name LMR_BASE_HUNDREDTHS value {base + 50}\nbench\n"
                        f"setoption name LMR_BASE_HUNDREDTHS value {base}\nbench\n"))  # fmt: skip
    assert len(nodes) == 5 and nodes[1] != nodes[0] and nodes[3] != nodes[0], nodes
    assert nodes[2] == nodes[4] == nodes[0] == benches(uci(normal, "bench\n"))[0], nodes


def test_an_iteration_of_real_games(tune_binary: Path) -> None:
    """One iteration, one pair of short games between the tune build's plus and minus engines,
    played by `ferrochess.match` (two at once)."""
    params = [p for p in spsa.engine_params([str(tune_binary)]) if p.name.startswith("FUTILITY")]
    state = State(params, Schedule(10), pairs=1, seed=3, engine=f"{tune_binary};OwnBook=false",
                  tc="1+0.05", max_plies=24, time_margin_ms=500)  # fmt: skip
    spsa.tune(state, spsa.engine_games(state), 2, lambda s: None, stop_after=1)
    assert state.iteration == 1 and state.wins + state.draws + state.losses == 2
    assert state.forfeits == []
    # The jobs must be one iteration's pairs: a lone game is refused, not played.
    job = GameJob({}, {}, Opening(), True, "x")
    with pytest.raises(ValueError, match="game pairs"):
        spsa.engine_games(state)([job], 1)

"""Guards the command line, run as ``python -m ferrochess`` in a subprocess: bestmove, perft
and bench print their results and exit 0; bad input exits 2, names the input, shows no traceback;
``play`` prints the address it really listens on (the port the system gave for ``--port 0``) and
says what is wrong with an address it cannot listen on (a busy port, a bad host)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import chess
import ferrochess
import pytest
from positions import CHECKMATED_FEN, KIWIPETE_FEN, MATE_IN_ONE_FEN, START_FEN

TIMEOUT = 300  # a failure guard against hangs only


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferrochess", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def assert_usage_error(process: subprocess.CompletedProcess[str], *named: str) -> None:
    assert process.returncode == 2, process
    assert process.stdout == ""
    assert "Traceback" not in process.stderr, process.stderr
    for fragment in named:
        assert fragment in process.stderr, f"{fragment!r} not named in {process.stderr!r}"


def test_bestmove_prints_a_legal_move() -> None:
    process = run("bestmove", KIWIPETE_FEN, "--depth", "3")
    assert process.returncode == 0, process.stderr
    uci = process.stdout.strip()
    assert chess.Move.from_uci(uci) in chess.Board(KIWIPETE_FEN).legal_moves
    assert process.stdout == uci + "\n"


def test_bestmove_finds_mate() -> None:
    process = run("bestmove", MATE_IN_ONE_FEN, "--depth", "2")
    assert (process.returncode, process.stdout) == (0, "a1a8\n")


def test_bestmove_without_legal_move_prints_none() -> None:
    process = run("bestmove", CHECKMATED_FEN, "--depth", "2")
    assert (process.returncode, process.stdout) == (0, "(none)\n")


def test_perft_prints_the_count() -> None:
    process = run("perft", START_FEN, "3")
    assert (process.returncode, process.stdout) == (0, "8902\n")


def test_bench_prints_signature() -> None:
    process = run("bench", "--depth", "2")
    assert process.returncode == 0, process.stderr
    out = process.stdout
    match = re.search(r"^Bench: (\d+)$", out, re.MULTILINE)
    assert match, out
    assert int(match.group(1)) == ferrochess.bench(2)["nodes"], "bench must be deterministic"
    assert re.search(r"^Positions: [1-9]\d*$", out, re.MULTILINE), out
    assert re.search(r"^Depth: 2$", out, re.MULTILINE), out
    assert re.search(r"^Time: \d+\.\d+ s$", out, re.MULTILINE), out
    assert re.search(r"^Nodes/s: \d+$", out, re.MULTILINE), out


def test_bad_fen_exits_2_naming_it() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1"
    assert_usage_error(run("bestmove", fen, "--depth", "2"), fen)
    assert_usage_error(run("perft", fen, "2"), fen)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["bestmove", START_FEN, "--depth", "0"], "0"),
        (["bestmove", START_FEN, "--depth", "many"], "many"),
        (["perft", START_FEN, "-1"], "-1"),
        (["perft", START_FEN, "deep"], "deep"),
        (["bench", "--depth", "999"], "999"),
        (["castle"], "castle"),
        (["play", "--think", "-1"], "--think: '-1' is not between"),
        (["play", "--think", "nan"], "'nan'"),
        (["play", "--engines", "0"], "--engines: '0' is not between 1"),
        (["play", "--analysis-seconds", "0"], "--analysis-seconds: '0' is not between"),
        (["play", "--port", "70000"], "70000"),
        ([], "COMMAND"),
    ],
    ids=repr,
)
def test_bad_arguments_exit_2(args: list[str], named: str) -> None:
    assert_usage_error(run(*args), named)


def test_play_refuses_a_busy_port_before_printing_its_address() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = run("play", "--port", str(port))
    assert_usage_error(process, f"cannot listen on 127.0.0.1:{port}", "--port")


def test_play_names_a_games_archive_it_cannot_open() -> None:
    with socket.socket() as closed:  # a port nothing listens on once this socket is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"postgresql://nobody@127.0.0.1:{port}/games"
    process = run("play", "--port", "0", "--database", url)
    assert_usage_error(process, "cannot open the games archive")


def test_play_prints_the_port_it_was_given(data_home: Path) -> None:
    """``--port 0`` lets the system choose: the printed address has that port, and it answers;
    the games archive is the default file in the (tests') data directory."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ferrochess", "play", "--port", "0", "--engines", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.match(r"ferrochess play: (http://127\.0\.0\.1:(\d+)/) ", first)
        assert found, (first, process.poll())
        url, port = found.group(1), int(found.group(2))
        assert 0 < port < 65536
        with urllib.request.urlopen(url + "api/levels", timeout=30) as response:
            assert response.status == 200 and b'"levels"' in response.read()
        with urllib.request.urlopen(url + "healthz", timeout=30) as response:
            assert json.loads(response.read()) == {"ok": True, "database": "ok"}
        assert (data_home / "ferrochess" / "games.sqlite3").is_file()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_play_answers_a_body_over_the_limit_with_a_413_in_json_and_logs_it() -> None:
    """A 10 MB body sent whole before the answer is read (as urllib sends it): 413 with the API's
    JSON error naming the body, not a connection reset, and the server's log line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ferrochess", "play", "--port", "0", "--engines", "1",
         "--database", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        found = re.match(r"ferrochess play: (http://127\.0\.0\.1:\d+/) ", process.stdout.readline())
        assert found, process.poll()
        call = urllib.request.Request(found.group(1) + "api/move", data=b"a" * 10_000_000,
                                      headers={"Content-Type": "application/json"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(call, timeout=60)
        assert refused.value.code == 413
        body = json.loads(refused.value.read())
        assert body["field"] == "body" and "larger than" in body["error"], body
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _, errors = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _, errors = process.communicate()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", errors)  # werkzeug colours its log lines
    assert re.search(r'"POST /api/move HTTP/1\.1" 413 ', plain), errors


@pytest.mark.parametrize("host", ["999.1.1.1", "no such host.invalid"])
def test_play_names_a_bad_host_and_blames_no_other_server(host: str) -> None:
    process = run("play", "--host", host, "--port", "0")
    assert_usage_error(process, f"cannot listen on {host}", "--host")
    assert "another server" not in process.stderr, process.stderr


def test_console_script() -> None:
    script = shutil.which("ferrochess")
    if script is None:
        pytest.skip("the ferrochess console script is not installed on PATH")
    process = subprocess.run(
        [script, "perft", START_FEN, "1"], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert (process.returncode, process.stdout) == (0, "20\n")

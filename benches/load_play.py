"""Load test of the play page's API: many clients asking for engine moves at once.

Contract: serves the play app as `ferrochess play --engines 2 --book none` does, in a subprocess on
127.0.0.1 (a free port; book off so that every request searches), but without the page's natural
reply delay (a level below full strength waits 0.6 to 1.8 s before it answers, holding no engine:
the latency would measure that wait; `--natural-delay` keeps it), then runs `--clients` threads
(20 by default) that each send `--requests` (50) `POST /api/move` requests at `--level` (1): each
client plays a game, making a random legal move of its own and asking for the engine's reply,
starting a new game when one ends.
Records every response's status and latency, then prints the count of each status, the latency
p50, p95 and maximum, and exits 1 if any response is a 5xx other than the deliberate 503 (all
engines busy), or if a request failed outright. Bounded: clients x requests requests, each with a
30 s timeout. `--json` prints the figures as JSON instead, `--json PATH` writes them to PATH and
prints the report too.

    python benches/load_play.py [--clients 20] [--requests 50] [--level 1] [--natural-delay]
        [--json [PATH]]
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

from _common import add_json_option, emit_json

TIMEOUT_SECONDS = 30.0
ENGINES = 2
# The app `ferrochess play --book none --syzygy-path ""` serves, the natural delay as asked.
SERVER = """
import sys
from ferrochess.web import create_app
port, engines, delay = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "on"
config = {"FERROCHESS_BOOK": None, "FERROCHESS_SYZYGY_PATH": "", "FERROCHESS_ENGINES": engines,
          "FERROCHESS_NATURAL_DELAY": delay}
create_app(config).run(host="127.0.0.1", port=port, threaded=True, use_reloader=False)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any] | None, float]:
    """(status, JSON body or None, seconds) of one POST."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            payload = json.loads(response.read())
            return response.status, payload, time.perf_counter() - start
    except urllib.error.HTTPError as error:
        error.read()
        return error.code, None, time.perf_counter() - start


def client(
    base: str, requests: int, level: int, seed: int, results: list[tuple[int, float]]
) -> None:
    """Play games against the engine: a random move of ours, then the engine's reply."""
    rng = random.Random(seed)
    moves: list[str] = []
    legal: list[str] = []
    for _ in range(requests):
        # After a 503 the same position is asked again; otherwise we move first (if we can).
        asked = moves + [rng.choice(legal)] if legal else moves
        status, body, seconds = post(
            f"{base}/api/move", {"moves": asked, "level": level, "book": False}
        )
        results.append((status, seconds))
        if status == 200 and body is not None:
            state = body["state"]
            moves, legal = state["moves"], state["legal_moves"]
            if state["status"]["over"] or not legal:
                moves, legal = [], []
        elif status == 400:
            # Our move ended the game: start again.
            moves, legal = [], []
        elif status == 503:
            legal = []
            moves = asked


def wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            with urllib.request.urlopen(f"{base}/api/levels", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not come up within 60 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument(
        "--natural-delay",
        action="store_true",
        help="keep the page's natural reply delay below full strength (off by default)",
    )
    add_json_option(parser)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    delay = "on" if args.natural_delay else "off"
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(ENGINES), delay],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_until_up(base, server)
        results: list[tuple[int, float]] = []
        threads = [
            threading.Thread(target=client, args=(base, args.requests, args.level, seed, results))
            for seed in range(args.clients)
        ]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(30)
    statuses = Counter(status for status, _ in results)
    latencies = sorted(seconds * 1000 for _, seconds in results)
    summary = {
        "clients": args.clients,
        "requests_per_client": args.requests,
        "level": args.level,
        "engines": ENGINES,
        "natural_delay": args.natural_delay,
        "requests": len(results),
        "statuses": dict(sorted(statuses.items())),
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1),
        "max_ms": round(latencies[-1], 1),
        "wall_s": round(wall, 2),
        "requests_per_s": round(len(results) / wall, 1),
    }
    unexpected = {s: n for s, n in statuses.items() if s >= 500 and s != 503}
    missing = args.clients * args.requests - len(results)
    summary["unexpected_5xx"] = sum(unexpected.values())
    summary["lost"] = missing
    if emit_json(args.json, summary):
        for key, value in summary.items():
            print(f"{key}: {value}")
    if unexpected or missing:
        print(f"FAILED: unexpected 5xx {unexpected}, {missing} requests lost", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reading a server started in a subprocess: the line it prints once it listens.

``ferrochess play`` and ``ferrochess serve`` print their address on their first line of stdout
once the socket listens. :func:`first_line` waits for that line at most ``seconds`` (a server that
hangs before printing must not hang the caller); :func:`served_port` reads the port from it.
Used by the server's tests, the crash test and the archive's load benchmark.
"""

from __future__ import annotations

import re
import subprocess
import threading

__all__ = ["first_line", "served_port"]

ADDRESS = re.compile(r"ferrochess (?:play|serve): http://[^/\s]+:(\d+)/")


def first_line(process: subprocess.Popen[str], seconds: float) -> str | None:
    """The first line ``process`` writes on its stdout (a pipe), or None when none comes within
    ``seconds`` (or the stream ends first)."""
    stream = process.stdout
    if stream is None:
        raise ValueError("the process's stdout is not a pipe")
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    return found[0] if found and found[0] else None


def served_port(line: str | None) -> int | None:
    """The port of the address a ``play`` or ``serve`` line names; None for another line."""
    found = ADDRESS.match(line or "")
    return int(found.group(1)) if found else None

"""Guards the hand-written stub: ``python -m mypy.stubtest ferrochess._core`` finds no difference
between python/ferrochess/_core.pyi and the built extension module."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_stubtest_passes() -> None:
    pytest.importorskip("mypy.stubtest", reason="mypy is not installed")
    process = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "ferrochess._core"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert process.returncode == 0, process.stdout + process.stderr

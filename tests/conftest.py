"""Shared fixtures: the repository root and the shared data directory (skipped when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (the directory holding pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``<repo>/../shared/data``; skips the test when that directory is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"../shared/data not found: {SHARED_DATA} does not exist")
    return SHARED_DATA

"""Shared fixtures: the repository root, the shared data directory and its Syzygy tables (skipped
when absent); no
test sees a FERROCHESS_SYZYGY_PATH from the environment unless it sets one itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from ferrochess import SYZYGY_PATH_ENV

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


@pytest.fixture(scope="session")
def syzygy(shared_data: Path) -> Path:
    """The 3-4-piece Syzygy tables in ``../shared/data/syzygy``; skips the test when the shared
    data directory is absent."""
    return shared_data / "syzygy"


@pytest.fixture(autouse=True)
def no_tablebases_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines find tablebases only where a test points them (a user's variable would change
    what many tests expect)."""
    monkeypatch.delenv(SYZYGY_PATH_ENV, raising=False)

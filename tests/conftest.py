"""Shared fixtures: the repository root, the shared data directory and its Syzygy tables (skipped
when absent); ``searching``, which tells when an engine's search is under way; no test sees a
FERROCHESS_SYZYGY_PATH from the environment unless it sets one itself, and none writes the games
archive into the user's data directory (XDG_DATA_HOME points into the test's temporary files).
Every test that uses
Playwright's ``page`` is marked ``browser`` (pyproject.toml registers the markers; ``make
test-fast`` leaves out the browser, notebook and games tests)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import chess.engine
import pytest
from ferrochess import SYZYGY_PATH_ENV, Engine

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
BROWSER_FIXTURES = frozenset({"page", "context", "browser"})
"""pytest-playwright's fixtures: a test that uses one (directly or through another) drives
Chromium."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test that drives Chromium: one that uses pytest-playwright's
    fixtures (not a parameter of the same name given by ``parametrize``)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        given = set(callspec.params) if callspec is not None else set()
        if BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())) - given:
            item.add_marker(pytest.mark.browser)


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


class Searching:
    """Tells when a search of :meth:`Engine.play` has completed its first iteration (so it is
    under way, and a stop or a cancel now interrupts it)."""

    def __init__(self) -> None:
        self.started = threading.Event()

    def wait(self, seconds: float = 30.0) -> None:
        """Returns once a search is under way; fails the test after ``seconds`` without one."""
        assert self.started.wait(seconds), f"no search started within {seconds} s"


@pytest.fixture
def searching(monkeypatch: pytest.MonkeyPatch) -> Searching:
    """Every Engine's ``play`` (the web app's, a notebook widget's, a test's own) reports its
    searches here, through the callback python-chess-style engines take; the caller's own
    callback, if any, still gets every InfoDict."""
    watch = Searching()
    play = Engine.play

    def observed(self: Engine, *args: Any, callback: Any = None, **kwargs: Any) -> Any:
        def started(info: chess.engine.InfoDict) -> None:
            watch.started.set()
            if callback is not None:
                callback(info)

        return play(self, *args, callback=started, **kwargs)

    monkeypatch.setattr(Engine, "play", observed)
    return watch


@pytest.fixture(scope="session")
def data_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory of the tests' own, where a ``ferrochess play`` started by a test keeps
    its games archive (the default file would be the user's)."""
    return tmp_path_factory.mktemp("data-home")


@pytest.fixture(autouse=True)
def no_archive_in_the_users_data(monkeypatch: pytest.MonkeyPatch, data_home: Path) -> None:
    """The default games archive of anything a test runs (``Archive.open(None)``, ``ferrochess
    play`` in a subprocess) is under the tests' own data directory, never the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.setenv("LOCALAPPDATA", str(data_home))

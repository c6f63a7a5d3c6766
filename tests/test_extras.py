"""Guards "dependencies follow use": importing the notebook or the game services loads no web
server and no database (no Flask, Jinja2, Werkzeug, SQLAlchemy or psycopg); the plain install
declares none of the servers and drivers, which are extras; and what needs a missing extra
(``ferrochess serve`` without ``serve``, a PostgreSQL archive without ``postgresql``) exits 2
with the exact ``pip install`` line, never a traceback. A missing module is made so in a child
process by an import hook that refuses it, as an environment without it would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ferrochess.exceptions import MissingExtraError, require_extra

HEAVY = ("flask", "jinja2", "werkzeug", "sqlalchemy", "psycopg", "waitress", "flask_limiter")
TIMEOUT = 120  # a guard against hangs only

# Run first in the child: modules named in argv[1] (comma-separated) cannot be found, as in an
# environment where they are not installed.
BLOCKER = textwrap.dedent(
    """
    import sys

    class Missing:
        def __init__(self, names):
            self.names = set(names)

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.names:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing(filter(None, sys.argv.pop(1).split(","))))
    """
)


def child(code: str, missing: tuple[str, ...] = (), *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter where the modules ``missing`` cannot be found."""
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code), ",".join(missing), *args],
        capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=Path(__file__).parent,
    )  # fmt: skip


def loaded_after(module: str) -> list[str]:
    """The heavy top-level modules that ``import module`` loads, in a new interpreter."""
    process = child(
        f"""
        import json
        import {module}
        print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
        """
    )
    assert process.returncode == 0, process.stderr
    return [name for name in json.loads(process.stdout) if name in HEAVY]


@pytest.mark.parametrize(
    "module",
    [
        "ferrochess",
        "ferrochess.notebook",
        "ferrochess.notebook_game",
        "ferrochess.notebook_analysis",
        "ferrochess.widget_comm",
        "ferrochess.service",
        "ferrochess.service.game",
        "ferrochess.service.analysis_board",
        "ferrochess.service.time_control",
        "ferrochess.cli",
        "ferrochess.training",
    ],
)
def test_light_modules_load_no_web_server_or_database(module: str) -> None:
    assert loaded_after(module) == []


def test_the_archive_loads_sqlalchemy_and_no_web_server() -> None:
    assert loaded_after("ferrochess.service.archive") == ["sqlalchemy"]


def names(requirements: list[str]) -> set[str]:
    """The distributions that requirement lines name (``"psycopg[binary]>=3.1"``: psycopg)."""
    return {re.split(r"[\[<>=!~; ]", line, maxsplit=1)[0] for line in requirements}


def test_the_plain_install_has_no_server_or_database_driver(repo_root: Path) -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    assert names(project["dependencies"]) == {
        "chess", "flask", "tqdm", "sqlalchemy", "fsrs", "glicko2"
    }
    extras = {name: names(lines) for name, lines in project["optional-dependencies"].items()}
    assert extras["serve"] == {"waitress", "flask-limiter"}
    assert extras["serve-gunicorn"] == {"gunicorn", "flask-limiter"}
    assert extras["postgresql"] == {"psycopg"}


def test_require_extra_names_the_install_line() -> None:
    require_extra("a test", "serve", "json", "sqlite3")  # both there: nothing
    with pytest.raises(MissingExtraError) as raised:
        require_extra("the production server", "serve", "json", "no_such_module_here")
    assert str(raised.value) == (
        'the production server needs no_such_module_here, which is not installed: '
        'pip install "ferrochess[serve]"'
    )
    assert raised.value.extra == "serve" and isinstance(raised.value, ImportError)


SERVE = """
from ferrochess.cli import main
sys.exit(main(["serve", "--port", "0"] + sys.argv[1:]))
"""


@pytest.mark.parametrize(
    ("missing", "args", "line"),
    [
        (("waitress",), (), 'pip install "ferrochess[serve]"'),
        (("flask_limiter", "limits"), (), 'pip install "ferrochess[serve]"'),
        (("gunicorn",), ("--server", "gunicorn"), 'pip install "ferrochess[serve-gunicorn]"'),
    ],
    ids=repr,
)
def test_serve_without_its_extra_exits_2_with_the_install_line(
    missing: tuple[str, ...], args: tuple[str, ...], line: str
) -> None:
    process = child(SERVE, missing, *args)
    assert process.returncode == 2, process
    assert process.stdout == "" and "Traceback" not in process.stderr, process.stderr
    assert line in process.stderr and missing[0] in process.stderr, process.stderr


def test_a_postgresql_archive_without_its_driver_exits_2_with_the_install_line() -> None:
    process = child(
        """
        from ferrochess.cli import main
        sys.exit(main(["play", "--port", "0", "--database", "postgresql://nobody@127.0.0.1:1/x"]))
        """,
        ("psycopg",),
    )
    assert process.returncode == 2, process
    assert process.stdout == "" and "Traceback" not in process.stderr, process.stderr
    assert 'pip install "ferrochess[postgresql]"' in process.stderr, process.stderr
    assert "postgresql://nobody@127.0.0.1:1/x" in process.stderr, process.stderr


def test_the_sqlite_archive_needs_no_extra(tmp_path: Path) -> None:
    process = child(
        """
        from ferrochess.service.archive import Archive
        with Archive.open(sys.argv[1]) as archive:
            print(archive.list_games())
        """,
        ("psycopg", "waitress", "flask_limiter", "flask"),
        str(tmp_path / "new" / "games.sqlite3"),
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "([], 0)"

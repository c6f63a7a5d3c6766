"""The archive's errors, and which database errors mean "cannot be reached now" (HTTP 503)
rather than a bug: :func:`unavailable`, and :class:`Guard`, which turns those into
:class:`ArchiveUnavailable` naming the database."""

from __future__ import annotations

from typing import Any

from sqlalchemy import exc

__all__ = [
    "ArchiveConflict",
    "ArchiveError",
    "ArchiveMissing",
    "ArchiveUnavailable",
    "Guard",
    "unavailable",
]


class ArchiveError(Exception):
    """Something the archive cannot do (the base of its errors); also a database of a newer
    schema than this code, or a database URL it does not support."""


class ArchiveConflict(ArchiveError):
    """A game with this ``client_id`` is stored with other content (HTTP 409)."""


class ArchiveMissing(ArchiveError, KeyError):
    """No stored game has this id (HTTP 404)."""

    def __str__(self) -> str:  # KeyError's str() would quote the message
        return str(self.args[0]) if self.args else ""


class ArchiveUnavailable(ArchiveError):
    """The database cannot be reached or is too busy to answer now (HTTP 503 + Retry-After)."""


class Guard:
    """A context that turns the errors of a database that cannot be reached (or is locked past
    its busy timeout) into ArchiveUnavailable naming the database (``name``: its URL without its
    password); others pass through."""

    def __init__(self, name: str, dialect: str) -> None:
        self.name = name
        self.dialect = dialect

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _tb: Any
    ) -> None:
        if error is None or not unavailable(error, self.dialect):
            return
        cause = error.orig if isinstance(error, exc.DBAPIError) else error
        reason = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        raise ArchiveUnavailable(
            f"the games database ({self.name}) cannot be reached: {reason}"
        ) from error


SQLITE_UNAVAILABLE = {
    5: "SQLITE_BUSY",
    6: "SQLITE_LOCKED",
    8: "SQLITE_READONLY",
    10: "SQLITE_IOERR",
    13: "SQLITE_FULL",
    14: "SQLITE_CANTOPEN",
    15: "SQLITE_PROTOCOL",
}
"""SQLite's primary result codes that mean the file cannot be used now (not a bug of ours)."""
SQLITE_UNAVAILABLE_WORDS = (
    "database is locked",
    "unable to open",
    "disk i/o error",
    "disk is full",
    "readonly",
)
"""The same in the words of Python before 3.11 (no ``sqlite_errorcode``)."""


def unavailable(error: BaseException, dialect: str) -> bool:
    """Whether ``error`` says the database cannot be reached or used now."""
    if isinstance(error, (exc.TimeoutError, exc.DisconnectionError)):
        return True
    if not isinstance(error, exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if dialect == "sqlite":
        code = getattr(error.orig, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF in SQLITE_UNAVAILABLE
        words = str(error.orig).lower()
        return any(phrase in words for phrase in SQLITE_UNAVAILABLE_WORDS)
    return isinstance(error, (exc.OperationalError, exc.InterfaceError))

"""The context-manager protocol shared by the library's resources (Engine, Book)."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

_Self = TypeVar("_Self", bound="Closing")


class Closing:
    """A resource with ``close()``; ``with resource:`` closes it on leaving the block."""

    def close(self) -> None:
        """Release the resource; idempotent."""
        raise NotImplementedError

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

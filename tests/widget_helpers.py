"""Shared by the notebook widgets' tests (tests/test_notebook_*.py): a stand-in for a widget's
comm, which delivers messages as the front end sends them and collects the kernel's answers."""

from __future__ import annotations

import json
import queue
from typing import Any


class Comm:
    """Stands in for the widget's comm: messages in as the front end sends them, answers out."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        widget.send = self.answers.put
        self.next_id = 0

    def send(self, path: str, body: Any = None) -> str:
        """Deliver ``{id, path, body}`` as a comm message; the answer comes in a worker thread."""
        self.next_id += 1
        ident = f"t-{self.next_id}"
        content = {"id": ident, "path": path, "body": {} if body is None else body}
        self.widget._handle_msg(
            {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
        )
        return ident

    def answer(self, ident: str, timeout: float = 30) -> dict[str, Any]:
        """The next message (skipping none): it must belong to ``ident``."""
        message = self.answers.get(timeout=timeout)
        assert message["id"] == ident, message
        json.dumps(message)  # what the comm sends must be JSON
        return message

    def collect(self, count: int, timeout: float = 30) -> dict[str, dict[str, Any]]:
        """The next ``count`` messages by id, in whatever order they came."""
        messages = [self.answers.get(timeout=timeout) for _ in range(count)]
        return {message["id"]: message for message in messages}

    def ask(self, path: str, body: Any = None) -> dict[str, Any]:
        return self.answer(self.send(path, body))

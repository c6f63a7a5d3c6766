"""When a training card comes back: spaced repetition by FSRS, the ``fsrs`` package (py-fsrs).

No scheduler is written here: each attempt is one ``Scheduler.review_card`` of the card, graded
as the FSRS author advises for right/wrong answers (:func:`grade`): a puzzle failed (a wrong move,
or the solution shown) is ``Rating.Again``; solved at the first try ``Rating.Good``, or
``Rating.Easy`` within :data:`QUICK_SECONDS`. A card is stored as its ``Card.to_dict()`` JSON
(:func:`card_to_dict`, :func:`card_from_dict`); :func:`card_summary` is what the page is told.
Times are UTC-aware datetimes (fsrs refuses naive ones).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import fsrs

__all__ = [
    "QUICK_SECONDS",
    "card_from_dict",
    "card_summary",
    "card_to_dict",
    "grade",
    "new_card",
    "review",
    "scheduler",
]

QUICK_SECONDS = 10.0
"""A puzzle solved within this many seconds is graded Easy rather than Good."""
STATE_NAMES = {fsrs.State.Learning: "learning", fsrs.State.Review: "review",
               fsrs.State.Relearning: "relearning"}  # fmt: skip

_DEFAULT = fsrs.Scheduler()


def scheduler(*, fuzz: bool = True) -> fsrs.Scheduler:
    """An FSRS scheduler with the package's default parameters (desired retention 0.9,
    learning steps 1 and 10 minutes); ``fuzz=False`` makes its intervals exact (tests)."""
    return fsrs.Scheduler(enable_fuzzing=fuzz)


def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def new_card(now: datetime.datetime | None = None) -> fsrs.Card:
    """A new card, due ``now`` (default: now)."""
    return fsrs.Card(due=_aware(now or now_utc(), "now"))


def grade(solved: bool, seconds: float | None = None) -> fsrs.Rating:
    """The FSRS rating of an attempt: Again when not ``solved``, Easy when solved within
    :data:`QUICK_SECONDS`, else Good."""
    if not solved:
        return fsrs.Rating.Again
    if seconds is not None and 0 <= seconds <= QUICK_SECONDS:
        return fsrs.Rating.Easy
    return fsrs.Rating.Good


def review(
    card: fsrs.Card,
    solved: bool,
    *,
    seconds: float | None = None,
    now: datetime.datetime | None = None,
    using: fsrs.Scheduler | None = None,
) -> fsrs.Card:
    """``card`` after an attempt at ``now`` (default: now) graded by :func:`grade`, scheduled by
    ``using`` (default: a fuzzing scheduler with the default parameters)."""
    when = _aware(now or now_utc(), "now")
    rated, _log = (using or _DEFAULT).review_card(card, grade(solved, seconds), when)
    return rated


def card_to_dict(card: fsrs.Card) -> dict[str, Any]:
    """The card as JSON-ready data (fsrs's own ``Card.to_dict``)."""
    return dict(card.to_dict())


def card_from_dict(data: Mapping[str, Any]) -> fsrs.Card:
    """The card of :func:`card_to_dict`'s data; ValueError naming ``card`` when it is not one."""
    try:
        return fsrs.Card.from_dict(dict(data))  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"card is not an fsrs card's data: {error!r}") from None


def card_summary(card: fsrs.Card, now: datetime.datetime | None = None) -> dict[str, Any]:
    """What the page is told of a card: ``due`` (ISO-8601, UTC), ``due_now`` (bool),
    ``state`` ("learning", "review" or "relearning"), ``step``, ``stability`` (days, None until
    reviewed), ``difficulty`` (1..10, None until reviewed), ``last_review`` (ISO-8601 or None)."""
    when = _aware(now or now_utc(), "now")
    return {
        "due": card.due.isoformat(),
        "due_now": card.due <= when,
        "state": STATE_NAMES[card.state],
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "last_review": None if card.last_review is None else card.last_review.isoformat(),
    }


def _aware(moment: datetime.datetime, name: str) -> datetime.datetime:
    if not isinstance(moment, datetime.datetime) or moment.tzinfo is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, not {moment!r}")
    return moment.astimezone(datetime.timezone.utc)

"""Seeds derived from a match's seed, so that each game and each opening draws its own random
numbers whatever order the games are played in."""

from __future__ import annotations

import hashlib

SEED_BITS = 63
"""Derived seeds are non-negative and below 2**63, so every seeded API takes them."""


def derive_seed(seed: int, *parts: object) -> int:
    """A seed for the thing named by ``parts`` (e.g. ``"game", 12``) in a match seeded ``seed``:
    the same arguments give the same seed on every machine and Python version."""
    text = ":".join(str(part) for part in (seed, *parts))
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)

"""The envelopes of the realm's JSON accessors, as plain string assembly.

Kept apart from the state machine so that a reader holding ready-made game
objects (the chain's cache) builds byte-for-byte the same responses without
loading the realm.
"""

from __future__ import annotations

ACTIVE_MAX_LIMIT = 100


def game_envelope(now: int, game: str | None) -> str:
    """GameJSON: ``{"now":N,"game":G}``, or ``"game":null`` for an unknown id."""
    return f'{{"now":{now},"game":{"null" if game is None else game}}}'


def active_page(ids: list[int], offset: int, limit: int) -> list[int]:
    """ActiveJSON's paging: a negative offset counts as 0; limit is clamped to 1..100."""
    offset = max(offset, 0)
    limit = min(max(limit, 1), ACTIVE_MAX_LIMIT)
    return ids[offset : offset + limit]


def active_envelope(now: int, fee: int, games: list[str]) -> str:
    return f'{{"now":{now},"fee":{fee},"games":[{",".join(games)}]}}'

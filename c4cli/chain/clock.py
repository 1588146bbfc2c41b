"""Block time as the log writes it: RFC 3339 in UTC, whole seconds."""

from __future__ import annotations

from datetime import UTC, datetime

from c4cli.errors import BadInput

MAX_TIME = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second RFC 3339 can write
MIN_TIME = -62_135_596_800  # 0001-01-01T00:00:00Z, the first
# The latest time a user may move the clock to: far enough before MAX_TIME that every
# deadline the realm can set (an offer's hour at most, a move's 90 s) can still pass,
# and stakes never stay locked behind a clock that cannot run past them.
CLOCK_ROOM = 366 * 86400
LAST_SETTABLE = MAX_TIME - CLOCK_ROOM


def check_settable(unix: int) -> None:
    """Refuse a clock the chain could not run a year past (exit 2)."""
    if unix > LAST_SETTABLE:
        raise BadInput(
            f"{format_time(unix)} is too late: the chain's clock must stay a year before "
            f"{format_time(MAX_TIME)}, so every deadline a game can set can still pass "
            f"(latest: {format_time(LAST_SETTABLE)})"
        )


def format_time(unix: int) -> str:
    """RFC 3339 of a Unix time; one a node made up beyond what RFC 3339 can write (a
    deadline of 10^20) is shown as the nearest it can.

    >>> format_time(0), format_time(10**20)
    ('1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z')
    """
    moment = datetime.fromtimestamp(min(max(unix, MIN_TIME), MAX_TIME), UTC)
    return moment.isoformat().replace("+00:00", "Z")


def parse_time(text: str) -> int:
    """RFC 3339 to Unix seconds; a time without a zone is refused rather than guessed."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(f"invalid time {text!r}: use RFC 3339, e.g. 2026-01-01T00:00:00Z") from None
    if moment.tzinfo is None:
        raise BadInput(f"invalid time {text!r}: give a zone, e.g. 2026-01-01T00:00:00Z")
    unix = int(moment.timestamp())
    if not 0 <= unix <= MAX_TIME:
        raise BadInput(f"invalid time {text!r}: give a time from 1970 to 9999")
    return unix

"""The realm's rules as plain functions of plain values.

The state machine (:mod:`c4cli.realm.connect4`) applies them to its games; a
client applies the very same functions to what the realm's JSON accessors
publish (``GameJSON``'s ``stake``, ``fee``, ``deadline``, ``expiresAt``…), so
"who is paid what" and "has the clock run out" are written once.

>>> payout(10_000_000, 100_000)
19900000
>>> clock_ran_out(now=1090, deadline=1090), clock_ran_out(now=1091, deadline=1090)
(False, True)
"""

from __future__ import annotations

import enum

DEFAULT_PATH = "gno.land/r/samcrew/connect4"
DENOM = "ugnot"
MIN_STAKE = 1_000_000
DEFAULT_FEE = 100_000
MAX_FEE = 500_000
MOVE_CLOCK = 90  # seconds of block time
MIN_VALID_FOR = 1  # minutes
MAX_VALID_FOR = 60
BOARD_SIZE = 10
LOBBY_ROWS = 50

CREATOR = 1
ACCEPTOR = 2


class Status(enum.StrEnum):
    """Where a game stands. The values are the realm's own words, as GameJSON has them."""

    OPEN = "open"
    PLAYING = "playing"
    WON = "won"
    DRAW = "draw"
    VOID = "void"
    CANCELLED = "cancelled"

    @property
    def live(self) -> bool:
        """Open or playing: in the active set, its stakes still held."""
        return self in (Status.OPEN, Status.PLAYING)


class Ending(enum.StrEnum):
    """How a settled game ended, as far as its published state tells."""

    FOUR_IN_A_ROW = "four in a row"
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"
    # GameJSON keeps no record of which it was: the winner either saw the other
    # resign or claimed the other's clock. Said only where the settling call is
    # not known.
    FORFEIT = "resignation or timeout"
    DRAW = "a full board"
    VOID = "void"
    CANCELLED = "cancelled"


def ending(status: str, *, four_in_a_row: bool, settled_by: str | None = None) -> Ending | None:
    """How a game with ``status`` ended; None while it is live. ``settled_by``: the
    realm function whose call settled it, where the caller knows it."""
    if status == Status.WON:
        if four_in_a_row:
            return Ending.FOUR_IN_A_ROW
        return {"Resign": Ending.RESIGNATION, "ClaimTimeout": Ending.TIMEOUT}.get(
            settled_by or "", Ending.FORFEIT
        )
    return {
        Status.DRAW: Ending.DRAW,
        Status.VOID: Ending.VOID,
        Status.CANCELLED: Ending.CANCELLED,
    }.get(Status(status))


def payout(stake: int, fee: int) -> int:
    """The winner's pay: both stakes less the fee the offer snapshotted."""
    return 2 * stake - fee


def deadline(last_move: int) -> int:
    """The last block time at which the player on the clock may still act."""
    return last_move + MOVE_CLOCK


def clock_ran_out(now: int, deadline: int) -> bool:
    """A call at exactly the deadline is in time; one second later it is late."""
    return now > deadline


def offer_expired(now: int, expires_at: int) -> bool:
    """An offer may be accepted before ``expires_at``, and cancelled by anyone from then."""
    return now >= expires_at


def other(side: int) -> int:
    """The other player's side: CREATOR for ACCEPTOR and back."""
    return CREATOR + ACCEPTOR - side


# The realm's calls whose first parameter is the game they act on (its ABI says so,
# and a test holds the two together); Offer names its new game in its result.
GAME_CALLS = frozenset(
    {"Accept", "Cancel", "ClaimTimeout", "Play", "Resign", "Reveal", "RevealSeed"}
)


def game_of_call(func: str, args: list[str], results: list[str]) -> int | None:
    """The game a realm call is about: an offer's by the id it returned, any other
    game call's by its first argument; None for a call about no game.

    >>> game_of_call("Offer", ["", "5", "c0ffee", "100000"], ["7"])
    7
    >>> game_of_call("Play", ["7", "3", "1"], []), game_of_call("SetFee", ["0"], [])
    (7, None)
    """
    if func == "Offer":
        return int(results[0]) if results else None
    if args and func in GAME_CALLS:
        return int(args[0])
    return None

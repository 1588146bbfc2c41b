"""Every refusal of the realm, on the realm itself: its exact words, and nothing changed.

Each case puts the realm in a stage of a game's life, makes one call, and checks the
panic's text (the words a user reads on gno.land, which the Gno realm gives too:
the differential test holds the two together) and that the state is exactly as it
was. The command line's part (exit 1, one line, nothing appended) is tested once in
tests/commands/test_realm_errors.py; here is the realm's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import NamedTuple

import pytest

from c4cli.commitment import commitment_of
from c4cli.realm import abi
from c4cli.realm.memory import Context, RealmPanic, RealmState

A = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
B = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
C = "g1v9kxjcm9ta047h6lta047h6lta047h6lzd40gh"
OWNER = A
REALM = "g1k6gkjudkl2tls7mfzhctrgre2ltjlxtgp635n0"
T0 = 1767225600
STAKE = 10_000_000
PASS, SEED = "alice's secret", "bob's seed"


class Call(NamedTuple):
    caller: str
    func: str
    args: tuple[str, ...]
    send: int = 0
    at: int = 0  # seconds after the stage's last call
    session: bool = False


def run(state: RealmState, call: Call, now: int) -> None:
    ctx = Context(
        caller=call.caller,
        send={"ugnot": call.send} if call.send else {},
        now=now,
        height=1,
        realm_address=REALM,
        session=call.session,
    )
    abi.call(state, ctx, call.func, list(call.args))


def stage(*calls: Call) -> Callable[[], tuple[RealmState, int]]:
    """A realm after ``calls`` (one second apart from T0): the state and the time."""

    def build() -> tuple[RealmState, int]:
        state = RealmState(path="gno.land/r/samcrew/connect4", owner=OWNER)
        now = T0
        for call in calls:
            now += 1 + call.at
            run(state, call, now)
        return state, now

    return build


OFFER = Call(A, "Offer", ("", "15", commitment_of(PASS), "100000"), STAKE)
RESERVED = Call(A, "Offer", (B, "1", commitment_of(PASS), "100000"), STAKE)
ACCEPT = Call(B, "Accept", ("1", commitment_of(SEED)), STAKE)
REVEAL = Call(A, "Reveal", ("1", PASS))
SEED_REVEAL = Call(B, "RevealSeed", ("1", SEED))

FRESH = stage()
OPEN = stage(OFFER)
RESERVED_OPEN = stage(RESERVED)
ACCEPTED = stage(OFFER, ACCEPT)
CREATOR_REVEALED = stage(OFFER, ACCEPT, REVEAL)
PLAYING = stage(OFFER, ACCEPT, REVEAL, SEED_REVEAL)
SEED_USED = stage(OFFER, ACCEPT, Call(C, "Offer", ("", "15", commitment_of("c"), "100000"), STAKE))
TRANSFERRING = stage(Call(OWNER, "TransferOwnership", (C,)))


def first_mover(state: RealmState) -> tuple[str, str]:
    game = state.games[1]
    first = game.player(game.turn)
    return first, B if first == A else A


CASES: list[tuple[str, Callable[[], tuple[RealmState, int]], Call, str]] = [
    # Payment and coin guards.
    (
        "no coins",
        FRESH,
        Call(A, "Offer", ("", "15", commitment_of("x"), "100000")),
        "send exactly one ugnot coin",
    ),
    ("coins to Cancel", OPEN, Call(A, "Cancel", ("1",), 1), "this function does not accept coins"),
    (
        "session offers",
        FRESH,
        OFFER._replace(session=True),
        "Offer needs the account's own key, not a session key",
    ),
    ("unknown game", FRESH, Call(A, "Play", ("9", "4", "0")), "game not found"),
    # Offer.
    (
        "yourself",
        FRESH,
        Call(A, "Offer", (A, "15", commitment_of("x"), "100000"), STAKE),
        "cannot challenge yourself",
    ),
    (
        "small stake",
        FRESH,
        Call(A, "Offer", ("", "15", commitment_of("x"), "100000"), 999_999),
        "stake below minimum of 1 GNOT",
    ),
    (
        "validFor 0",
        FRESH,
        Call(A, "Offer", ("", "0", commitment_of("x"), "100000"), STAKE),
        "validFor must be between 1 and 60 minutes",
    ),
    (
        "validFor 61",
        FRESH,
        Call(A, "Offer", ("", "61", commitment_of("x"), "100000"), STAKE),
        "validFor must be between 1 and 60 minutes",
    ),
    (
        "upper-case opponent",
        FRESH,
        Call(A, "Offer", (B.upper(), "15", commitment_of("x"), "100000"), STAKE),
        "invalid opponent address (use the lower-case g1… form)",
    ),
    (
        "upper-case commitment",
        FRESH,
        Call(A, "Offer", ("", "15", commitment_of("x").upper(), "100000"), STAKE),
        "commitment must be 64 lowercase hex chars (sha256 of your passphrase)",
    ),
    (
        "fee above maxFee",
        FRESH,
        Call(A, "Offer", ("", "15", commitment_of("x"), "50000"), STAKE),
        "house fee is 0.1 GNOT, above your maxFee of 0.05 GNOT",
    ),
    ("commitment reused", OPEN, OFFER, "commitment already used: generate a fresh secret"),
    # Accept.
    (
        "own offer",
        OPEN,
        Call(A, "Accept", ("1", commitment_of("y")), STAKE),
        "cannot accept your own offer",
    ),
    (
        "reserved",
        RESERVED_OPEN,
        Call(C, "Accept", ("1", commitment_of("y")), STAKE),
        "offer is reserved for another player",
    ),
    (
        "wrong stake",
        OPEN,
        Call(B, "Accept", ("1", commitment_of("y")), STAKE - 1),
        f"must send exactly {STAKE}ugnot",
    ),
    (
        "bad seed commitment",
        OPEN,
        Call(B, "Accept", ("1", "nothex"), STAKE),
        "seedCommitment must be 64 lowercase hex chars (sha256 of your seed)",
    ),
    (
        "expired",
        RESERVED_OPEN,
        Call(B, "Accept", ("1", commitment_of("y")), STAKE, at=60),
        "offer expired",
    ),
    (
        "seed commitment reused",
        SEED_USED,
        Call(B, "Accept", ("2", commitment_of(SEED)), STAKE),
        "commitment already used: generate a fresh secret",
    ),
    ("not open", ACCEPTED, Call(C, "Accept", ("1", commitment_of("y")), STAKE), "game is not open"),
    # Cancel.
    (
        "cancel by another",
        OPEN,
        Call(B, "Cancel", ("1",)),
        "only the creator can cancel an unexpired offer",
    ),
    ("cancel a game", ACCEPTED, Call(A, "Cancel", ("1",)), "game is not open"),
    # Reveals.
    (
        "reveal too early",
        OPEN,
        Call(A, "Reveal", ("1", PASS)),
        "game is not awaiting the creator's reveal",
    ),
    (
        "reveal by the acceptor",
        ACCEPTED,
        Call(B, "Reveal", ("1", PASS)),
        "only the creator can reveal",
    ),
    (
        "wrong passphrase",
        ACCEPTED,
        Call(A, "Reveal", ("1", "wrong")),
        "passphrase does not match the commitment",
    ),
    ("late reveal", ACCEPTED, Call(A, "Reveal", ("1", PASS), at=90), "reveal clock ran out"),
    (
        "seed before the reveal",
        ACCEPTED,
        Call(B, "RevealSeed", ("1", SEED)),
        "game is not awaiting the acceptor's seed",
    ),
    (
        "seed by the creator",
        CREATOR_REVEALED,
        Call(A, "RevealSeed", ("1", SEED)),
        "only the acceptor can reveal the seed",
    ),
    (
        "wrong seed",
        CREATOR_REVEALED,
        Call(B, "RevealSeed", ("1", "wrong")),
        "seed does not match the commitment",
    ),
    (
        "late seed",
        CREATOR_REVEALED,
        Call(B, "RevealSeed", ("1", SEED), at=90),
        "reveal clock ran out",
    ),
    # Play.
    ("play in an open game", OPEN, Call(A, "Play", ("1", "4", "0")), "game is not in progress"),
    (
        "play before the reveals",
        ACCEPTED,
        Call(A, "Play", ("1", "4", "0")),
        "waiting for the creator to reveal",
    ),
    ("resign by an outsider", PLAYING, Call(C, "Resign", ("1",)), "not a player in this game"),
    ("claim too soon", PLAYING, Call(C, "ClaimTimeout", ("1",)), "move clock has not run out"),
    ("claim in an open game", OPEN, Call(C, "ClaimTimeout", ("1",)), "game is not in progress"),
    # Owner.
    ("fee by another", FRESH, Call(B, "SetFee", ("0",)), "ownable: caller is not owner"),
    (
        "fee too high",
        FRESH,
        Call(OWNER, "SetFee", ("500001",)),
        "fee must be between 0 and 0.5 GNOT",
    ),
    (
        "withdraw to a bad address",
        FRESH,
        Call(OWNER, "WithdrawFees", (B.upper(),)),
        "invalid address (use the lower-case g1… form)",
    ),
    (
        "hand over to a bad address",
        FRESH,
        Call(OWNER, "TransferOwnership", ("g1x",)),
        "invalid address (use the lower-case g1… form)",
    ),
    (
        "accept what was not offered",
        TRANSFERRING,
        Call(B, "AcceptOwnership", ()),
        "no ownership transfer pending for this address",
    ),
]


@pytest.mark.parametrize(("name", "build", "call", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_refusal_says_why_and_changes_nothing(
    name: str, build: Callable[[], tuple[RealmState, int]], call: Call, words: str
) -> None:
    state, now = build()
    before = copy.deepcopy(state)
    with pytest.raises(RealmPanic) as refused:
        run(state, call, now + 1 + call.at)
    assert str(refused.value) == words
    assert state.snapshot() == before.snapshot()


@pytest.mark.parametrize("late", [False, True])
def test_the_moves_refusals(late: bool) -> None:
    """Whose turn, which move number, which column, and the clock."""
    state, now = PLAYING()
    first, second = first_mover(state)
    cases = [
        (Call(second, "Play", ("1", "4", "0")), "not your turn"),
        (Call(C, "Play", ("1", "4", "0")), "not your turn"),
        (Call(first, "Play", ("1", "4", "1")), "stale move: the game is at move 0"),
        (Call(first, "Play", ("1", "8", "0")), "column must be between 1 and 7"),
    ]
    if late:
        cases = [(Call(first, "Play", ("1", "4", "0"), at=90), "move clock ran out")]
    for call, words in cases:
        before = copy.deepcopy(state)
        with pytest.raises(RealmPanic) as refused:
            run(state, call, now + 1 + call.at)
        assert str(refused.value) == words
        assert state.snapshot() == before.snapshot()


def test_a_full_column() -> None:
    state, now = PLAYING()
    first, second = first_mover(state)
    for move in range(6):
        now += 1
        run(state, Call((first, second)[move % 2], "Play", ("1", "1", str(move))), now)
    with pytest.raises(RealmPanic, match=r"^column is full$"):
        run(state, Call(first, "Play", ("1", "1", "6")), now + 1)

"""The records the realm commits, in c4's mirror: gno's bytes, read back only as written.

The Gno realm's own test (gno/r/c4cli/connect4/commit_test.gno, TestRecordsExact) pins
the same two records byte for byte; the differential test holds the mirror's digests
to the ones the Gno realm commits on a real gnoland after every step.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from c4cli.address import encode_address
from c4cli.commitment import commitment_of
from c4cli.realm import abi, commitments
from c4cli.realm.commitments import RecordError, parse_books, parse_game, parse_leaders
from c4cli.realm.memory import Context, RealmState


def gno_test_address(name: str) -> str:
    """The Gno test's addresses (helpers_test.gno): ``name`` padded with '_' to 20 bytes."""
    return encode_address(name.encode().ljust(20, b"_"))


ALICE, BOB = gno_test_address("alice"), gno_test_address("bob")
DEPLOYER = gno_test_address("deployer")
REALM_PATH = "gno.land/r/c4cli/connect4"
T0 = 1767225600
COMMIT_A = commitment_of("correct horse battery staple")


def offered() -> RealmState:
    """TestRecordsExact's realm: alice offers bob 10 GNOT for ten minutes at T0."""
    state = RealmState(REALM_PATH, DEPLOYER)
    ctx = Context(ALICE, {"ugnot": 10_000_000}, T0, 2, "g1realm")
    abi.call(state, ctx, "Offer", [BOB, "10", COMMIT_A, "100000"])
    return state


def test_the_records_are_the_gno_realms_bytes() -> None:
    state = offered()
    game = (
        f"4:game1:140:{ALICE}40:{BOB}0:8:100000006:10000010:176722620064:{COMMIT_A}"
        "0:0:1:01:00:1:01:01:01:04:open0:"
    )
    assert abi.read(state, T0, "GameRecord", ["1"]) == (game, "string")
    books = f"5:books40:{DEPLOYER}0:6:1000001:08:100000001:11:1"
    assert abi.read(state, T0, "BooksRecord", []) == (books, "string")
    assert abi.read(state, T0, "LeadersRecord", []) == ("7:leaders1:01:0", "string")
    assert abi.read(state, T0, "GameRecord", ["2"]) == ("", "string")
    assert commitments.store_key(REALM_PATH, commitments.game_key(1)) == (
        b"/pv/vm:gno.land/r/c4cli/connect4:game:1"
    )
    assert commitments.digest(game.encode()) == hashlib.sha256(game.encode()).digest()


def test_a_record_reads_back_as_the_state_it_was_made_from() -> None:
    state = offered()
    game = state.games[1]
    assert parse_game(commitments.game_record(game)).to_record() == game.to_record()
    books = commitments.books_of(state)
    assert parse_books(books.encode()) == books
    assert (books.held, books.last_id, books.live) == (10_000_000, 1, 1)
    leaders = commitments.leaders_of(state)
    assert parse_leaders(leaders.encode()) == leaders == ((), ())


@given(st.text(max_size=80), st.lists(st.tuples(st.text(max_size=50), st.integers()), max_size=10))
def test_any_passphrase_and_board_round_trips(
    passphrase: str, board: list[tuple[str, int]]
) -> None:
    state = offered()
    game = state.games[1]
    game.passphrase = passphrase
    assert parse_game(commitments.game_record(game)).passphrase == passphrase
    leaders = commitments.leaders_of(state)._replace(wins=tuple(board))
    assert parse_leaders(leaders.encode()) == leaders


@pytest.mark.parametrize(
    ("kind", "record", "error"),
    [
        ("game", b"", "the record ends early"),
        ("books", b"5:books", "the record ends early"),
        ("game", b"4:game", "the record ends early"),
        ("game", b"5:books", "not a game record"),
        ("books", b"4:game1:1", "not a books record"),
        ("leaders", b"5:books", "not a leaders record"),
        ("game", b"04:game", "no field length at byte 0"),
        ("game", b"x:game", "no field length at byte 0"),
        ("books", b"9:books", "a field runs past the record's end \\(byte 2\\)"),
    ],
)
def test_what_is_not_a_record_is_refused(kind: str, record: bytes, error: str) -> None:
    with pytest.raises(RecordError, match=error):
        {"game": parse_game, "books": parse_books, "leaders": parse_leaders}[kind](record)


def test_a_record_with_a_field_too_many_or_spelt_otherwise_is_refused() -> None:
    state = offered()
    game = commitments.game_record(state.games[1])
    books = commitments.books_of(state).encode()
    leaders = commitments.leaders_of(state).encode()
    with pytest.raises(RecordError, match="bytes after the record's last field"):
        parse_game(game + b"0:")
    with pytest.raises(RecordError, match="bytes after the record's last field"):
        parse_books(books + b"1:0")
    with pytest.raises(RecordError, match="is not an integer"):
        parse_game(game.replace(b"8:10000000", b"9:010000000", 1))
    with pytest.raises(RecordError, match="is not a boolean"):
        parse_game(game.replace(b"0:0:1:0", b"0:0:1:2", 1))
    with pytest.raises(RecordError, match="is not a game's status"):
        parse_game(game.replace(b"4:open", b"4:lost"))
    with pytest.raises(RecordError, match="a leaderboard of 11 entries"):
        parse_leaders(leaders.replace(b"1:0", b"2:11", 1))
    with pytest.raises(RecordError, match="a record of"):
        parse_game(b"4:game" + b"0:" * 40_000)

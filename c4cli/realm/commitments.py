"""What the realm commits where the app hash covers it: the same bytes as its Gno.

Every call that changes a game writes ``sha256(game record)`` under the realm-local
parameter ``game:<id>``; every call that changes its books (owner, pending owner,
fee, fees collected, the stakes it holds, the last id it gave, how many games are
open or playing) writes ``sha256(books record)`` under ``books``; a win, which moves
the leaderboards, writes ``sha256(leaders record)`` under ``leaders`` (the
deployment writes the first books and leaders). gno.land keeps a realm's parameters
in its main store at ``/pv/vm:<realm path>:<key>``, so a client proves a digest
against a header the validators signed, and holds to it the record the node answers
``GameRecord(id)``, ``BooksRecord()`` or ``LeadersRecord()`` with.

A record is a list of fields, each its length in bytes in decimal, a colon, then its
bytes; integers in decimal, booleans ``1`` or ``0``; the first field names the kind
(``game``, ``books`` or ``leaders``). :func:`parse_game`, :func:`parse_books` and
:func:`parse_leaders` read one back and refuse anything else, so a record forged to
fit a digest cannot be read as another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import NamedTuple, Protocol, TypeVar

from c4cli.realm.memory import PLAYING, Game, RealmState
from c4cli.realm.rules import BOARD_SIZE, Status


class _Record(Protocol):
    def encode(self) -> bytes: ...


T = TypeVar("T", bound=_Record)
BOOKS_KEY = "books"
LEADERS_KEY = "leaders"
GAME_PREFIX = "game:"
RECORD_BYTES = 64 * 1024  # a record read from a node, at most (a game's is under 1 KiB)


class RecordError(ValueError):
    """Bytes that are not a record of the kind asked."""


def game_key(game_id: int) -> str:
    return f"{GAME_PREFIX}{game_id}"


def store_key(realm_path: str, key: str) -> bytes:
    """Where gno.land's main store keeps the realm-local parameter ``key``."""
    return f"/pv/vm:{realm_path}:{key}".encode()


def digest(record: bytes) -> bytes:
    return hashlib.sha256(record).digest()


def _field(value: str | bytes | int | bool) -> bytes:
    if isinstance(value, bool):
        raw = b"1" if value else b"0"
    elif isinstance(value, int):
        raw = str(value).encode()
    elif isinstance(value, str):
        raw = value.encode("utf-8", "surrogateescape")
    else:
        raw = value
    return str(len(raw)).encode() + b":" + raw


def game_record(game: Game) -> bytes:
    """Everything stored of ``game``, in the order the Gno realm's Game struct keeps it."""
    return b"".join(
        _field(value)
        for value in (
            "game",
            game.id,
            game.creator,
            game.opponent,
            game.acceptor,
            game.stake,
            game.fee,
            game.expires_at,
            game.commitment,
            game.seed_commitment,
            game.passphrase,
            game.revealed,
            game.first,
            game.moves,
            game.turn,
            game.last_col,
            game.last_row,
            game.last_move,
            str(game.status),
            game.winner,
        )
    )


class CommittedBooks(NamedTuple):
    """The realm's books as it commits them."""

    owner: str
    pending_owner: str
    fee: int
    collected: int
    held: int  # the stakes of the open and playing games
    last_id: int
    live: int  # how many games are open or playing

    def encode(self) -> bytes:
        return b"".join(_field(value) for value in ("books", *self))


Board = tuple[tuple[str, int], ...]


class Leaders(NamedTuple):
    """Both leaderboards as the realm commits them: most wins, most ugnot won."""

    wins: Board
    gnot: Board

    def encode(self) -> bytes:
        values: list[str | int] = ["leaders"]
        for board in self:
            values.append(len(board))
            for address, score in board:
                values += [address, score]
        return b"".join(_field(value) for value in values)


def books_of(state: RealmState) -> CommittedBooks:
    live = state.games.live()
    return CommittedBooks(
        owner=state.owner,
        pending_owner=state.pending_owner,
        fee=state.fee,
        collected=state.collected,
        held=sum(game.stake * (2 if game.status == PLAYING else 1) for game in live),
        last_id=len(state.games),
        live=len(live),
    )


def leaders_of(state: RealmState) -> Leaders:
    return Leaders(tuple(state.wins_board), tuple(state.gnot_board))


# -- reading a record back -------------------------------------------------------------


def _fields(record: bytes) -> Iterator[bytes]:
    at = 0
    while at < len(record):
        colon = record.find(b":", at, at + 8)
        size = record[at:colon]
        if colon < 0 or not size.isdigit() or (size.startswith(b"0") and size != b"0"):
            raise RecordError(f"no field length at byte {at}")
        start, at = colon + 1, colon + 1 + int(size)
        if at > len(record):
            raise RecordError(f"a field runs past the record's end (byte {start})")
        yield record[start:at]


class _Reader:
    def __init__(self, record: bytes, kind: str) -> None:
        if len(record) > RECORD_BYTES:
            raise RecordError(f"a record of {len(record)} bytes (at most {RECORD_BYTES})")
        self._fields = _fields(record)
        if self.text() != kind:
            raise RecordError(f"not a {kind} record")

    def raw(self) -> bytes:
        found = next(self._fields, None)
        if found is None:
            raise RecordError("the record ends early")
        return found

    def text(self) -> str:
        return self.raw().decode("utf-8", "surrogateescape")

    def int(self) -> int:
        raw = self.raw()
        digits = raw.removeprefix(b"-")
        if not digits.isdigit() or (digits.startswith(b"0") and raw != b"0"):
            raise RecordError(f"{raw[:24]!r} is not an integer")
        return int(raw)

    def bool(self) -> bool:
        raw = self.raw()
        if raw not in (b"0", b"1"):
            raise RecordError(f"{raw[:24]!r} is not a boolean")
        return raw == b"1"

    def end(self) -> None:
        if next(self._fields, None) is not None:
            raise RecordError("bytes after the record's last field")


def parse_game(record: bytes) -> Game:
    """The game ``record`` (:func:`game_record`'s bytes) holds; RecordError for others."""
    read = _Reader(record, "game")
    game = Game.__new__(Game)
    game.id = read.int()
    game.creator, game.opponent, game.acceptor = read.text(), read.text(), read.text()
    game.stake, game.fee, game.expires_at = read.int(), read.int(), read.int()
    game.commitment, game.seed_commitment = read.text(), read.text()
    game.passphrase, game.revealed, game.first = read.text(), read.bool(), read.int()
    game.moves, game.turn = read.text(), read.int()
    game.last_col, game.last_row, game.last_move = read.int(), read.int(), read.int()
    status, game.winner = read.text(), read.text()
    read.end()
    try:
        game.status = Status(status)
    except ValueError:
        raise RecordError(f"{status[:24]!r} is not a game's status") from None
    game._position = None
    if game_record(game) != record:
        raise RecordError("the record is not written as the realm writes one")
    return game


def parse_books(record: bytes) -> CommittedBooks:
    """The books ``record`` holds; RecordError for anything else."""
    read = _Reader(record, "books")
    found = CommittedBooks(read.text(), read.text(), *(read.int() for _ in range(5)))
    read.end()
    return _canonical(found, record)


def parse_leaders(record: bytes) -> Leaders:
    """Both boards ``record`` holds; RecordError for anything else."""
    read = _Reader(record, "leaders")
    boards: list[Board] = []
    for _ in range(2):
        count = read.int()
        if not 0 <= count <= BOARD_SIZE:
            raise RecordError(f"a leaderboard of {count} entries (at most {BOARD_SIZE})")
        boards.append(tuple((read.text(), read.int()) for _ in range(count)))
    read.end()
    return _canonical(Leaders(*boards), record)


def _canonical(found: T, record: bytes) -> T:
    if found.encode() != record:
        raise RecordError("the record is not written as the realm writes one")
    return found

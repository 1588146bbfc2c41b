"""The realm's memory: its games, players' tallies and used commitments, as plain values.

:class:`RealmState` is everything the realm keeps; :mod:`c4cli.realm.connect4`
changes it only through the realm's exported functions. Settled games and used
commitments may live in a :class:`Store` handed in (the chain's checkpoint), so
that a chain of a million games does not hold them all in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from copy import deepcopy
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from c4cli.engine import Board, Disc
from c4cli.realm.rules import ACCEPTOR, CREATOR, DEFAULT_FEE, Status, deadline, other, payout
from c4cli.records import Record

if TYPE_CHECKING:
    from typing import TypeAlias, TypedDict

    # A game as a checkpoint keeps it: each of Game.FIELDS by its name.
    GameRecord: TypeAlias = dict[str, object]

    class RealmRecordBase(TypedDict):
        """What every record of the realm holds besides its games: its owners, its
        fee and the fees it collected, the open and live games' ids, the players'
        tallies and the leaderboards."""

        path: str
        owner: str
        pending_owner: str
        fee: int
        collected: int
        active: list[int]
        stats: dict[str, list[int]]
        wins_board: list[list[str | int]]
        gnot_board: list[list[str | int]]

    class RealmSnapshot(RealmRecordBase):
        """The realm's live state (:meth:`RealmState.snapshot`): the settled games and
        the used commitments are the checkpoint's."""

        game_count: int
        live_games: list[GameRecord]


# The realm's package variables a client reads with ``vm/qeval``, by their Gno names.
VARIABLES = ("fee", "collected", "owner", "pendingOwner")

OPEN = Status.OPEN
PLAYING = Status.PLAYING
WON = Status.WON
DRAW = Status.DRAW
VOID = Status.VOID
CANCELLED = Status.CANCELLED


class RealmPanic(Exception):
    """The realm refused the call; the message is the realm's text, verbatim."""


class Context(NamedTuple):
    """What the chain tells a call: who, what was sent, when, and how it was signed."""

    caller: str
    send: dict[str, int]
    now: int
    height: int
    realm_address: str
    session: bool = False
    user_call: bool = True


class CallResult(NamedTuple):
    values: tuple[tuple[str, str], ...] = ()  # (Go value, Go type)
    transfers: tuple[tuple[str, int], ...] = ()  # (to, ugnot)


class Game(Record):
    """One game: its terms, both commitments, the moves so far and how it stands."""

    __slots__ = (
        "_position",
        "acceptor",
        "commitment",
        "creator",
        "expires_at",
        "fee",
        "first",
        "id",
        "last_col",
        "last_move",
        "last_row",
        "moves",
        "opponent",
        "passphrase",
        "revealed",
        "seed_commitment",
        "stake",
        "status",
        "turn",
        "winner",
    )

    def __init__(
        self,
        id: int,
        creator: str,
        opponent: str,
        stake: int,
        fee: int,
        expires_at: int,
        commitment: str,
    ) -> None:
        self.id = id
        self.creator = creator
        self.opponent = opponent
        self.stake = stake
        self.fee = fee
        self.expires_at = expires_at
        self.commitment = commitment
        self.acceptor = ""
        self.seed_commitment = ""
        self.passphrase = ""
        self.revealed = False
        self.first = 0  # CREATOR or ACCEPTOR once the draw is made
        self.moves = ""  # the engine's encoding
        self.turn = 0
        self.last_col = 0
        self.last_row = 0
        self.last_move = 0
        self.status = OPEN
        self.winner = ""
        # The position after ``moves``, derived and never saved: a replay plays a
        # game move after move, and copying a board is cheaper than replaying it.
        self._position: Board | None = None

    @property
    def deadline(self) -> int:
        return deadline(self.last_move)

    def payout(self) -> int:
        """What the winner is paid: the pot less the fee snapshotted at Offer."""
        return payout(self.stake, self.fee)

    def board(self) -> Board:
        """The position, a board of its own (the caller may play on it)."""
        if self._position is None or self._position.encode() != self.moves:
            self._position = Board.decode(self.moves)
        return self._position.clone()

    def moved(self, column: int, board: Board) -> None:
        """Record a disc dropped in ``column`` (1-7); ``board`` is the position after it."""
        self.moves += str(column)
        self._position = board

    # Fields saved by a checkpoint, in this order (everything but the position).
    FIELDS = (
        "id",
        "creator",
        "opponent",
        "stake",
        "fee",
        "expires_at",
        "commitment",
        "acceptor",
        "seed_commitment",
        "passphrase",
        "revealed",
        "first",
        "moves",
        "turn",
        "last_col",
        "last_row",
        "last_move",
        "status",
        "winner",
    )

    def to_record(self) -> GameRecord:
        return {name: getattr(self, name) for name in Game.FIELDS}

    @classmethod
    def from_record(cls, record: GameRecord) -> Game:
        game = cls.__new__(cls)
        for name in Game.FIELDS:
            setattr(game, name, record[name])
        game.status = Status(game.status)
        game._position = None
        return game

    def player(self, side: int) -> str:
        return self.creator if side == CREATOR else self.acceptor

    def side_of(self, disc: Disc) -> int:
        """Which player owns an engine disc: the first mover's is RED."""
        if disc is Disc.EMPTY:
            return 0
        return self.first if disc is Disc.RED else other(self.first)

    def turn_player(self) -> str:
        return self.player(self.turn) if self.status == PLAYING and self.turn else ""


class Stats(Record):
    __slots__ = ("draws", "games", "net", "wins")

    def __init__(self) -> None:
        self.games = 0
        self.wins = 0
        self.draws = 0
        self.net = 0

    def to_record(self) -> list[int]:
        return [self.games, self.wins, self.draws, self.net]

    @classmethod
    def from_record(cls, record: list[int]) -> Stats:
        stats = cls()
        stats.games, stats.wins, stats.draws, stats.net = record
        return stats


class Store(Protocol):
    """Where settled games and used commitments may be kept outside memory.

    The chain's checkpoint provides one. It answers for what it was given, and
    raises (never answers "not there") when it cannot read: a game it lost is
    damage, not a game that does not exist.
    """

    def game(self, game_id: int) -> Game: ...

    def used(self, address: str, commitment: str) -> bool: ...


class GameBook:
    """Every game by id, in creation order.

    Live games are always in memory. Settled ones may be handed to a store
    (:meth:`release`) and are read back from it on demand, so the cost of
    loading the realm does not grow with its history.
    """

    def __init__(self, store: Store | None = None) -> None:
        self._games: dict[int, Game] = {}
        self._count = 0
        self.store = store

    @classmethod
    def known(cls, games: dict[int, Game], count: int) -> GameBook:
        """A book of ``count`` games of which only ``games`` are held (a proven few)."""
        book = cls()
        book._games, book._count = dict(games), count
        return book

    def __len__(self) -> int:
        return self._count

    def get(self, game_id: int) -> Game | None:
        game = self._games.get(game_id)
        if game is None and self.store is not None and 1 <= game_id <= self._count:
            game = self.store.game(game_id)
        return game

    def __getitem__(self, game_id: int) -> Game:
        game = self.get(game_id)
        if game is None:
            raise KeyError(game_id)
        return game

    def add(self, game: Game) -> None:
        assert game.id == self._count + 1
        self._games[game.id] = game
        self._count = game.id

    def values(self) -> Iterator[Game]:
        """Every game, oldest first (settled ones read back from the cold store)."""
        for game_id in range(1, self._count + 1):
            yield self[game_id]

    def live(self) -> list[Game]:
        """The open and playing games, which always stay in memory."""
        return [g for g in self._games.values() if g.status in (OPEN, PLAYING)]

    def settled_in_memory(self) -> list[Game]:
        """The settled games still held here, for a store to take over."""
        return [g for g in self._games.values() if g.status not in (OPEN, PLAYING)]

    def release(self, games: list[Game]) -> None:
        """Stop holding games the store now has."""
        for game in games:
            self._games.pop(game.id, None)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GameBook)
            and self._count == other._count
            and self._games == other._games
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> GameBook:
        copy = GameBook(self.store)  # a read-only view: shared, not copied
        copy._games = deepcopy(self._games, memo)
        copy._count = self._count
        return copy


class CommitmentBook:
    """The (address, commitment) pairs already used: recent ones in memory, older ones cold."""

    def __init__(self, store: Store | None = None) -> None:
        self._recent: set[tuple[str, str]] = set()
        self.store = store

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._recent or (self.store is not None and self.store.used(*key))

    def add(self, key: tuple[str, str]) -> None:
        self._recent.add(key)

    def recent(self) -> set[tuple[str, str]]:
        """The pairs used since the store last took them."""
        return set(self._recent)

    def release(self, pairs: set[tuple[str, str]]) -> None:
        self._recent -= pairs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CommitmentBook) and self._recent == other._recent

    def __deepcopy__(self, memo: dict[int, Any]) -> CommitmentBook:
        copy = CommitmentBook(self.store)
        copy._recent = set(self._recent)
        return copy


class RealmState(Record):
    """Everything the realm keeps."""

    __slots__ = (
        "active",
        "collected",
        "fee",
        "games",
        "gnot_board",
        "owner",
        "path",
        "pending_owner",
        "stats",
        "used_commitments",
        "wins_board",
    )

    def __init__(self, path: str, owner: str, store: Store | None = None) -> None:
        self.path = path
        self.owner = owner
        self.fee = DEFAULT_FEE
        self.collected = 0
        self.pending_owner = ""
        self.games = GameBook(store)
        self.active: dict[int, None] = {}  # ordered set of open/playing ids
        self.stats: dict[str, Stats] = {}
        self.wins_board: list[tuple[str, int]] = []
        self.gnot_board: list[tuple[str, int]] = []
        self.used_commitments = CommitmentBook(store)

    @property
    def next_id(self) -> int:
        return len(self.games) + 1

    def keep_in(self, store: Store) -> None:
        """From now on, read settled games and used commitments from ``store``."""
        self.games.store = store
        self.used_commitments.store = store

    def variables(self) -> dict[str, int | str]:
        """The package variables a ``vm/qeval`` may name (:data:`VARIABLES`), by their names
        in the Gno realm."""
        values = (self.fee, self.collected, self.owner, self.pending_owner)
        return dict(zip(VARIABLES, values, strict=True))

    def snapshot(self) -> RealmSnapshot:
        """The realm's live state as plain JSON values.

        Settled games and used commitments are not in it: whoever saves a
        snapshot keeps them (see :class:`Store`) and hands them back through
        :meth:`restore`.
        """
        return {
            **self.base_record(),
            "game_count": len(self.games),
            "live_games": [game.to_record() for game in self.games.live()],
        }

    def base_record(self) -> RealmRecordBase:
        """What every record of the realm holds besides its games (a snapshot, a state
        document): :meth:`from_base` reads it back."""
        return {
            "path": self.path,
            "owner": self.owner,
            "pending_owner": self.pending_owner,
            "fee": self.fee,
            "collected": self.collected,
            "active": list(self.active),
            "stats": {address: s.to_record() for address, s in self.stats.items()},
            "wins_board": [list(entry) for entry in self.wins_board],
            "gnot_board": [list(entry) for entry in self.gnot_board],
        }

    @classmethod
    def from_base(cls, record: RealmRecordBase, store: Store | None = None) -> RealmState:
        """A realm holding what ``record`` holds besides its games (none yet)."""
        state = cls(str(record["path"]), str(record["owner"]), store)
        state.pending_owner = str(record["pending_owner"])
        state.fee, state.collected = int(record["fee"]), int(record["collected"])
        state.active = {int(game_id): None for game_id in record["active"]}
        state.stats = {str(a): Stats.from_record(r) for a, r in record["stats"].items()}
        state.wins_board = [(str(a), int(n)) for a, n in record["wins_board"]]
        state.gnot_board = [(str(a), int(n)) for a, n in record["gnot_board"]]
        return state

    @classmethod
    def restore(cls, snapshot: RealmSnapshot, store: Store) -> RealmState:
        """The state a :meth:`snapshot` describes, reading the rest from ``store``."""
        state = cls.from_base(snapshot, store)
        for record in snapshot["live_games"]:
            game = Game.from_record(record)
            state.games._games[game.id] = game
        state.games._count = int(snapshot["game_count"])
        return state


def first_mover(passphrase: str, seed: str, game_id: int, creator: str, acceptor: str) -> int:
    """CREATOR or ACCEPTOR: the low bit of sha256(passphrase|seed|id|creator|acceptor)."""
    digest = hashlib.sha256(f"{passphrase}|{seed}|{game_id}|{creator}|{acceptor}".encode()).digest()
    return CREATOR if digest[0] & 1 == 0 else ACCEPTOR

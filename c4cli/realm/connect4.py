"""The staked connect4 realm as a pure state machine.

A call gets a :class:`Context` and either returns a :class:`CallResult` (values
and coin transfers out of the realm) or raises :class:`RealmPanic` with the
realm's own text. Every function runs all of its checks before it changes
anything, so a panic always leaves the state exactly as it was; the chain then
throws the whole transaction away.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from copy import deepcopy
from typing import Any, NamedTuple, Protocol

from c4cli.address import is_canonical
from c4cli.coins import gnot
from c4cli.commitment import commitment_of, is_commitment
from c4cli.engine import Board, Disc, EngineError
from c4cli.realm.rules import (
    ACCEPTOR,
    BOARD_SIZE,
    CREATOR,
    DEFAULT_FEE,
    DENOM,
    MAX_FEE,
    MAX_VALID_FOR,
    MIN_STAKE,
    MIN_VALID_FOR,
    Status,
    clock_ran_out,
    deadline,
    offer_expired,
    other,
    payout,
)
from c4cli.records import Record

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

    def to_record(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Game.FIELDS}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
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

    def snapshot(self) -> dict[str, Any]:
        """The realm's live state as plain JSON values.

        Settled games and used commitments are not in it: whoever saves a
        snapshot keeps them (see :class:`Store`) and hands them back through
        :meth:`restore`.
        """
        return {
            "path": self.path,
            "owner": self.owner,
            "fee": self.fee,
            "collected": self.collected,
            "pending_owner": self.pending_owner,
            "game_count": len(self.games),
            "live_games": [game.to_record() for game in self.games.live()],
            "active": list(self.active),
            "stats": {address: s.to_record() for address, s in self.stats.items()},
            "wins_board": [list(entry) for entry in self.wins_board],
            "gnot_board": [list(entry) for entry in self.gnot_board],
        }

    @classmethod
    def restore(cls, snapshot: dict[str, Any], store: Store) -> RealmState:
        """The state a :meth:`snapshot` describes, reading the rest from ``store``."""
        state = cls(str(snapshot["path"]), str(snapshot["owner"]), store)
        state.fee = int(snapshot["fee"])
        state.collected = int(snapshot["collected"])
        state.pending_owner = str(snapshot["pending_owner"])
        for record in snapshot["live_games"]:
            game = Game.from_record(record)
            state.games._games[game.id] = game
        state.games._count = int(snapshot["game_count"])
        state.active = {int(game_id): None for game_id in snapshot["active"]}
        state.stats = {a: Stats.from_record(r) for a, r in snapshot["stats"].items()}
        state.wins_board = [(str(a), int(n)) for a, n in snapshot["wins_board"]]
        state.gnot_board = [(str(a), int(n)) for a, n in snapshot["gnot_board"]]
        return state


def first_mover(passphrase: str, seed: str, game_id: int, creator: str, acceptor: str) -> int:
    """CREATOR or ACCEPTOR: the low bit of sha256(passphrase|seed|id|creator|acceptor)."""
    digest = hashlib.sha256(f"{passphrase}|{seed}|{game_id}|{creator}|{acceptor}".encode()).digest()
    return CREATOR if digest[0] & 1 == 0 else ACCEPTOR


class Realm:
    """The realm's exported functions over one :class:`RealmState`."""

    def __init__(self, state: RealmState) -> None:
        self.state = state

    # -- guards ---------------------------------------------------------------

    @staticmethod
    def _no_session(ctx: Context, func: str) -> None:
        if ctx.session:
            raise RealmPanic(f"{func} needs the account's own key, not a session key")

    @staticmethod
    def _payment(ctx: Context) -> int:
        if not ctx.user_call:
            raise RealmPanic("only user-call (maketx call) accepted")
        if len(ctx.send) != 1 or ctx.send.get(DENOM, 0) <= 0:
            raise RealmPanic("send exactly one ugnot coin")
        return ctx.send[DENOM]

    @staticmethod
    def _no_coins(ctx: Context) -> None:
        if any(ctx.send.values()):
            raise RealmPanic("this function does not accept coins")

    def _game(self, game_id: int) -> Game:
        game = self.state.games.get(game_id)
        if game is None:
            raise RealmPanic("game not found")
        return game

    def _owner(self, ctx: Context) -> None:
        if ctx.caller != self.state.owner:
            raise RealmPanic("ownable: caller is not owner")

    @staticmethod
    def _late(game: Game, ctx: Context) -> bool:
        return clock_ran_out(ctx.now, game.deadline)

    # -- lobby ----------------------------------------------------------------

    def Offer(
        self, ctx: Context, opponent: str, valid_for: int, commitment: str, max_fee: int
    ) -> CallResult:
        st = self.state
        self._no_session(ctx, "Offer")
        stake = self._payment(ctx)
        if opponent == ctx.caller:
            raise RealmPanic("cannot challenge yourself")
        if stake < MIN_STAKE:
            raise RealmPanic("stake below minimum of 1 GNOT")
        if stake <= st.fee:
            raise RealmPanic(f"stake must exceed the house fee of {gnot(st.fee)}")
        if not MIN_VALID_FOR <= valid_for <= MAX_VALID_FOR:
            raise RealmPanic("validFor must be between 1 and 60 minutes")
        if opponent and not is_canonical(opponent):
            raise RealmPanic("invalid opponent address (use the lower-case g1… form)")
        if not is_commitment(commitment):
            raise RealmPanic(
                "commitment must be 64 lowercase hex chars (sha256 of your passphrase)"
            )
        if st.fee > max_fee:
            raise RealmPanic(f"house fee is {gnot(st.fee)}, above your maxFee of {gnot(max_fee)}")
        if (ctx.caller, commitment) in st.used_commitments:
            raise RealmPanic("commitment already used: generate a fresh secret")
        game = Game(
            id=st.next_id,
            creator=ctx.caller,
            opponent=opponent,
            stake=stake,
            fee=st.fee,
            expires_at=ctx.now + valid_for * 60,
            commitment=commitment,
        )
        st.games.add(game)
        st.active[game.id] = None
        st.used_commitments.add((ctx.caller, commitment))
        return CallResult(values=((str(game.id), "int"),))

    def Accept(self, ctx: Context, game_id: int, seed_commitment: str) -> CallResult:
        st = self.state
        self._no_session(ctx, "Accept")
        sent = self._payment(ctx)
        game = self._game(game_id)
        if game.status != OPEN:
            raise RealmPanic("game is not open")
        if offer_expired(ctx.now, game.expires_at):
            raise RealmPanic("offer expired")
        if ctx.caller == game.creator:
            raise RealmPanic("cannot accept your own offer")
        if game.opponent and ctx.caller != game.opponent:
            raise RealmPanic("offer is reserved for another player")
        if sent != game.stake:
            raise RealmPanic(f"must send exactly {game.stake}ugnot")
        if not is_commitment(seed_commitment):
            raise RealmPanic("seedCommitment must be 64 lowercase hex chars (sha256 of your seed)")
        if (ctx.caller, seed_commitment) in st.used_commitments:
            raise RealmPanic("commitment already used: generate a fresh secret")
        st.used_commitments.add((ctx.caller, seed_commitment))
        game.acceptor = ctx.caller
        game.seed_commitment = seed_commitment
        game.status = PLAYING
        game.turn = 0
        game.last_move = ctx.now
        return CallResult()

    def Cancel(self, ctx: Context, game_id: int) -> CallResult:
        self._no_coins(ctx)
        game = self._game(game_id)
        if game.status != OPEN:
            raise RealmPanic("game is not open")
        if ctx.caller != game.creator and not offer_expired(ctx.now, game.expires_at):
            raise RealmPanic("only the creator can cancel an unexpired offer")
        game.status = CANCELLED
        self.state.active.pop(game.id, None)
        return CallResult(transfers=((game.creator, game.stake),))

    # -- the draw of the first mover --------------------------------------------

    def Reveal(self, ctx: Context, game_id: int, passphrase: str) -> CallResult:
        self._no_coins(ctx)
        game = self._game(game_id)
        if not (game.status == PLAYING and game.turn == 0 and not game.revealed):
            raise RealmPanic("game is not awaiting the creator's reveal")
        if ctx.caller != game.creator:
            raise RealmPanic("only the creator can reveal")
        if self._late(game, ctx):
            raise RealmPanic("reveal clock ran out")
        if commitment_of(passphrase) != game.commitment:
            raise RealmPanic("passphrase does not match the commitment")
        game.passphrase = passphrase
        game.revealed = True
        game.last_move = ctx.now
        return CallResult()

    def RevealSeed(self, ctx: Context, game_id: int, seed: str) -> CallResult:
        self._no_coins(ctx)
        game = self._game(game_id)
        if not (game.status == PLAYING and game.turn == 0 and game.revealed):
            raise RealmPanic("game is not awaiting the acceptor's seed")
        if ctx.caller != game.acceptor:
            raise RealmPanic("only the acceptor can reveal the seed")
        if self._late(game, ctx):
            raise RealmPanic("reveal clock ran out")
        if commitment_of(seed) != game.seed_commitment:
            raise RealmPanic("seed does not match the commitment")
        game.first = first_mover(game.passphrase, seed, game.id, game.creator, game.acceptor)
        game.turn = game.first
        game.last_move = ctx.now
        return CallResult()

    # -- play -----------------------------------------------------------------

    def Play(self, ctx: Context, game_id: int, column: int, move: int) -> CallResult:
        self._no_coins(ctx)
        game = self._game(game_id)
        if game.status != PLAYING:
            raise RealmPanic("game is not in progress")
        if game.turn == 0:
            raise RealmPanic("waiting for the creator to reveal")
        if ctx.caller != game.player(game.turn):
            raise RealmPanic("not your turn")
        if self._late(game, ctx):
            raise RealmPanic("move clock ran out")
        if move != len(game.moves):
            raise RealmPanic(f"stale move: the game is at move {len(game.moves)}")
        if not 1 <= column <= 7:
            raise RealmPanic("column must be between 1 and 7")
        board = game.board()
        if not board.can_drop(column - 1):
            raise RealmPanic("column is full")
        try:
            row = board.drop(column - 1)
        except EngineError as exc:  # unreachable after can_drop; never leave a half move
            raise RealmPanic(str(exc)) from None
        game.moved(column, board)
        game.last_col, game.last_row = column - 1, row
        if board.winner is not Disc.EMPTY:
            return self._settle_win(game, game.player(game.turn))
        if board.full:
            return self._settle_draw(game)
        game.turn = other(game.turn)
        game.last_move = ctx.now
        return CallResult()

    def ClaimTimeout(self, ctx: Context, game_id: int) -> CallResult:
        self._no_coins(ctx)
        game = self._game(game_id)
        if game.status != PLAYING:
            raise RealmPanic("game is not in progress")
        if not self._late(game, ctx):
            raise RealmPanic("move clock has not run out")
        if game.turn == 0:
            # Whoever owed a reveal forfeits: not revealing is the only way left
            # to dodge a draw that went against you.
            winner = game.acceptor if not game.revealed else game.creator
            return self._settle_win(game, winner)
        if not game.moves:
            return self._settle_void(game)
        on_turn = game.turn
        return self._settle_win(game, game.player(other(on_turn)))

    def Resign(self, ctx: Context, game_id: int) -> CallResult:
        self._no_coins(ctx)
        self._no_session(ctx, "Resign")
        game = self._game(game_id)
        if game.status != PLAYING:
            raise RealmPanic("game is not in progress")
        if ctx.caller not in (game.creator, game.acceptor):
            raise RealmPanic("not a player in this game")
        winner = game.acceptor if ctx.caller == game.creator else game.creator
        return self._settle_win(game, winner)

    # -- owner ----------------------------------------------------------------

    def SetFee(self, ctx: Context, amount: int) -> CallResult:
        self._no_coins(ctx)
        self._no_session(ctx, "SetFee")
        self._owner(ctx)
        if not 0 <= amount <= MAX_FEE:
            raise RealmPanic("fee must be between 0 and 0.5 GNOT")
        self.state.fee = amount
        return CallResult()

    def WithdrawFees(self, ctx: Context, to: str) -> CallResult:
        self._no_coins(ctx)
        self._no_session(ctx, "WithdrawFees")
        self._owner(ctx)
        if not is_canonical(to):
            raise RealmPanic("invalid address (use the lower-case g1… form)")
        amount, self.state.collected = self.state.collected, 0
        return CallResult(transfers=((to, amount),) if amount else ())

    def TransferOwnership(self, ctx: Context, new_owner: str) -> CallResult:
        self._no_coins(ctx)
        self._no_session(ctx, "TransferOwnership")
        self._owner(ctx)
        if not is_canonical(new_owner):
            raise RealmPanic("invalid address (use the lower-case g1… form)")
        self.state.pending_owner = new_owner
        return CallResult()

    def AcceptOwnership(self, ctx: Context) -> CallResult:
        self._no_coins(ctx)
        self._no_session(ctx, "AcceptOwnership")
        if not self.state.pending_owner or ctx.caller != self.state.pending_owner:
            raise RealmPanic("no ownership transfer pending for this address")
        self.state.owner = ctx.caller
        self.state.pending_owner = ""
        return CallResult()

    # -- settlement: state first, then the payouts --------------------------------

    def _close(self, game: Game, status: Status) -> None:
        game.status = status
        self.state.active.pop(game.id, None)

    def _stats(self, address: str) -> Stats:
        return self.state.stats.setdefault(address, Stats())

    def _settle_win(self, game: Game, winner: str) -> CallResult:
        loser = game.acceptor if winner == game.creator else game.creator
        self._close(game, WON)
        game.winner = winner
        self.state.collected += game.fee
        won = self._stats(winner)
        won.games += 1
        won.wins += 1
        won.net += game.stake - game.fee
        self._stats(loser).games += 1
        bump(self.state.wins_board, winner, won.wins)
        bump(self.state.gnot_board, winner, won.net)
        return CallResult(transfers=_nonzero([(winner, game.payout())]))

    def _settle_draw(self, game: Game) -> CallResult:
        self._close(game, DRAW)
        for address in (game.creator, game.acceptor):
            stats = self._stats(address)
            stats.games += 1
            stats.draws += 1
        return CallResult(transfers=((game.creator, game.stake), (game.acceptor, game.stake)))

    def _settle_void(self, game: Game) -> CallResult:
        self._close(game, VOID)
        return CallResult(transfers=((game.creator, game.stake), (game.acceptor, game.stake)))


def _nonzero(transfers: list[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    return tuple((to, amount) for to, amount in transfers if amount)


def bump(board: list[tuple[str, int]], address: str, score: int) -> None:
    """Move ``address`` to ``score`` on a top-10 board; ties keep the earlier holder first."""
    board[:] = [entry for entry in board if entry[0] != address]
    position = next((i for i, (_, s) in enumerate(board) if s < score), len(board))
    if position < BOARD_SIZE:
        board.insert(position, (address, score))
    del board[BOARD_SIZE:]

"""The staked connect4 realm as a pure state machine.

A call gets a :class:`Context` and either returns a :class:`CallResult` (values
and coin transfers out of the realm) or raises :class:`RealmPanic` with the
realm's own text. Every function runs all of its checks before it changes
anything, so a panic always leaves the state exactly as it was; the chain then
throws the whole transaction away.
"""

from __future__ import annotations

from c4cli.address import is_canonical
from c4cli.coins import gnot
from c4cli.commitment import commitment_of, is_commitment
from c4cli.engine import Disc, EngineError
from c4cli.realm.memory import (
    CANCELLED,
    DRAW,
    OPEN,
    PLAYING,
    VOID,
    WON,
    CallResult,
    Context,
    Game,
    RealmPanic,
    RealmState,
    Stats,
    first_mover,
)
from c4cli.realm.rules import (
    BOARD_SIZE,
    DENOM,
    MAX_FEE,
    MAX_VALID_FOR,
    MIN_STAKE,
    MIN_VALID_FOR,
    Status,
    clock_ran_out,
    offer_expired,
    other,
)


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

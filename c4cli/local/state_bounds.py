"""A loaded state held to what the realm and the chain could ever have made of it.

`c4 init --load` and `c4 serve`'s ``c4_loadState`` begin a chain from a document that
anyone may have written. Before a byte of it is kept, every number in it is held to
the bounds the realm and tm2 keep (an int64, a fee no higher than the realm's cap, a
stake above nothing), every game is played again from its moves by the engine (its
last disc, its status and its winner must be what those moves make), and the realm
must hold what its open and live games and its fees owe. What does not add up is a
ValueError naming it, which the loaders turn into one line (exit 2), nothing written.
"""

from __future__ import annotations

import re
from typing import Any

from c4cli.address import package_address
from c4cli.coins import UGNOT, Coins
from c4cli.engine import Board, Disc, EngineError
from c4cli.realm.memory import Game, RealmState
from c4cli.realm.rules import MAX_FEE, Status

INT64_MAX = 2**63 - 1
_MOVES = re.compile(r"[1-7]{0,42}")
_SIDES = (0, 1, 2)  # none yet, the creator, the acceptor


def number(value: object, what: str, low: int = 0, high: int = INT64_MAX) -> int:
    """``value`` when it is a whole number from ``low`` to ``high`` (not a bool)."""
    if type(value) is not int or not low <= value <= high:
        shown = repr(value)[:40]
        raise ValueError(f"{what} is {shown}: not a whole number from {low} to {high}")
    return value


def coins(held: Coins, what: str) -> None:
    for denom, amount in held.items():
        number(amount, f"{what}'s {denom}", 1)


def check_realm(realm: RealmState, accounts: dict[str, Coins]) -> None:
    """The realm's numbers in bounds, each game what its moves make, and its coins enough
    for what it owes (``accounts``: each address's coins)."""
    number(realm.fee, "the fee", 0, MAX_FEE)
    number(realm.collected, "the fees collected")
    owed = realm.collected
    for game in realm.games.values():
        check_game(game)
        if game.status == Status.OPEN:
            owed += game.stake
        elif game.status == Status.PLAYING:
            owed += 2 * game.stake
    for address, stats in realm.stats.items():
        for name in ("games", "wins", "draws", "net"):
            number(getattr(stats, name), f"{address}'s {name}")
        if stats.wins + stats.draws > stats.games:
            raise ValueError(f"{address} won and drew more games than it played")
    for board in (realm.wins_board, realm.gnot_board):
        for address, score in board:
            number(score, f"{address}'s score on a leaderboard")
    held = accounts.get(package_address(realm.path), {}).get(UGNOT, 0)
    if held < owed:
        raise ValueError(
            f"the realm holds {held} ugnot, less than the {owed} its open and live games "
            "and its fees owe"
        )


def check_game(game: Game) -> None:
    """One game's record in bounds, and its board, last disc, status and winner the ones
    its moves make, played again by the engine."""
    what = f"game {game.id}"
    number(game.stake, f"{what}'s stake", 1)
    number(game.fee, f"{what}'s fee", 0, MAX_FEE)
    number(game.expires_at, f"{what}'s expiry")
    number(game.last_move, f"{what}'s last move time")
    if game.first not in _SIDES or game.turn not in _SIDES or type(game.revealed) is not bool:
        raise ValueError(f"{what}: its first mover, turn or reveal is not one the realm keeps")
    for name in ("creator", "opponent", "acceptor", "winner", "commitment", "passphrase"):
        if not isinstance(getattr(game, name), str):
            raise ValueError(f"{what}: its {name} is not text")
    moves = game.moves
    if not isinstance(moves, str) or not _MOVES.fullmatch(moves):
        raise ValueError(f"{what}: its moves are not at most 42 columns 1-7")
    try:
        board = Board.decode(moves[:-1])
        row = board.drop(int(moves[-1]) - 1) if moves else 0
    except EngineError as exc:
        raise ValueError(f"{what}: its moves are not a game ({exc})") from None
    if moves and (game.last_col, game.last_row) != (int(moves[-1]) - 1, row):
        raise ValueError(f"{what}: its last disc is not its last move's")
    if moves and not game.first:
        raise ValueError(f"{what}: it has moves and no first mover")
    _check_status(game, board, what)


def _check_status(game: Game, board: Board, what: str) -> None:
    if game.status == Status.OPEN and (game.moves or game.acceptor):
        raise ValueError(f"{what}: an open offer with an acceptor or moves")
    if game.status == Status.PLAYING and board.over:
        raise ValueError(f"{what}: still playing on a board that is over")
    if board.winner is not Disc.EMPTY:
        winner = game.player(game.side_of(board.winner))
        if game.status != Status.WON or game.winner != winner:
            raise ValueError(f"{what}: its board is won by {winner}, and it says otherwise")
    elif game.status == Status.DRAW and not board.full:
        raise ValueError(f"{what}: a draw on a board that is not full")
    if game.winner and game.status != Status.WON:
        raise ValueError(f"{what}: a winner in a game that is not won")


def check_accounts(records: list[Any]) -> None:
    """Each account's numbers (sequence, sessions' limits and clocks) in bounds."""
    for account in records:
        address = account.address
        number(account.sequence, f"{address}'s sequence")
        coins(account.coins, address)
        for session in account.sessions.values():
            for name in ("expires_at", "spend_period", "period_start", "sequence"):
                number(getattr(session, name), f"session {session.address}'s {name}")
            coins(session.spend_limit, f"session {session.address}'s spend limit")
            for denom, amount in session.spent.items():
                number(amount, f"session {session.address}'s spent {denom}")

"""A perfect player for one address: it reads its game as blocks land and moves with
the exact solver when the game is its to play (`c4 bot`).

:func:`turns` is the loop, as values: each time it moves it yields a :class:`Moved`,
and when the game is over an :class:`Over`; a move that found the game elsewhere
than it read (another move landed in between) yields a :class:`Stale`, and nothing
was signed. What sends a move is handed in, so the caller signs as it signs
everything else, and words what it yields.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from c4cli.client import workflow
from c4cli.client.realm_client import GameView, RealmClient, Status
from c4cli.engine import solver
from c4cli.errors import Refused

if TYPE_CHECKING:
    from c4cli.chain.interface import Chain, Receipt

# Seconds of the move clock kept for sending the move once it is chosen.
SEND_MARGIN = 10


class Over(NamedTuple):
    """The game is over (won, drawn, void or cancelled): as it ended."""

    game: GameView


class Moved(NamedTuple):
    """A move made: at which move count, which column, whether the solver proved it
    best, how long it thought, and the transaction's receipt."""

    move: int
    column: int
    exact: bool
    seconds: float
    receipt: Receipt


class Stale(NamedTuple):
    """The game moved on before the bot's move was signed: it looks again."""

    why: str


Send = Callable[[workflow.BuildCall], "Receipt"]


def turns(
    chain: Chain,
    number: int,
    me: str,
    send: Send,
    *,
    think: float,
    who: str,
    until_end: bool,
) -> Iterator[Over | Moved | Stale]:
    """Play game ``number`` for ``me`` (``who`` names it in a refusal) on ``chain``:
    wait for its turn, search each move for at most ``think`` seconds and never past
    the move clock, and ``send`` it; after one move, or to the end with
    ``until_end``. Refused when the game is not found or not ``me``'s."""
    while True:
        before = chain.head().height  # taken before reading: no block is missed
        game = RealmClient(chain).game(number)
        if game is None:
            raise Refused("game not found")
        if me not in (game.creator, game.acceptor) and game.status != Status.OPEN:
            raise Refused(f"{who} is not a player in game {number}")
        if game.status not in (Status.OPEN, Status.PLAYING):
            yield Over(game)
            return
        if game.status == Status.PLAYING and game.turn and game.player(game.turn) == me:
            started = time.monotonic()
            left = game.deadline - chain.chain_time(time.time()) - SEND_MARGIN
            choice = solver.solve_within(game.board(), started + max(min(think, left), 1.0))
            thought = round(time.monotonic() - started, 2)
            try:
                receipt = send(still_at(number, choice.column, game.moves))
            except GameMoved as moved:
                yield Stale(str(moved))
                continue
            yield Moved(game.moves, choice.column, choice.exact, thought, receipt)
            if not until_end:
                return
            continue
        while chain.head().height == before:  # wait for a new block, sleeping
            time.sleep(chain.poll_interval)


class GameMoved(Exception):
    """The game is no longer where the bot read it: nothing was signed."""


def still_at(number: int, column: int, moves: int) -> workflow.BuildCall:
    """The bot's move, built only while the game stands at the move count the bot read.
    A move of the bot's own whose answer was lost may land in between (the submit
    settles it before signing, from a node that has its block): a move signed for a
    count the game has passed is one the realm refuses in a block, its fee paid."""

    def build(realm: RealmClient) -> workflow.Call:
        game = realm.game(number)
        now = -1 if game is None else game.moves
        if now != moves:
            raise GameMoved(f"game {number} is at move {now}, not {moves} as the bot read it")
        return workflow.play_call(number, column, moves)

    return build

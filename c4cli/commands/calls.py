"""A realm call from sending to the line a person reads: click-free, so the fast lane
makes a move through the same code as `c4 play`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from c4cli.chain.interface import Receipt
from c4cli.client import workflow
from c4cli.client.realm_client import GameView, RealmClient, Status, game_of, game_read_back
from c4cli.coins import gnot
from c4cli.commands.run import current
from c4cli.commands.text import names, who
from c4cli.commands.transact import acting_address, print_receipt, submit
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput, C4Error, warn_once


def play_column(
    home: Path, gid: int, column: str, move: int | None, key: str, tx: TxOptions
) -> None:
    """`c4 play GAME COLUMN KEY` once the column is known: the realm judges the rest."""
    if not (column.lstrip("-").isdigit() and column.isascii()):
        raise BadInput(f"invalid column {column!r}: use 1-7, or best")
    run_call(home, key, workflow.play(gid, column, move=move), tx=tx)


Human = Callable[[GameView | None, Receipt, dict[str, str]], str]


def run_call(
    home: Path,
    key: str,
    build: workflow.BuildCall,
    *,
    tx: TxOptions,
    human: Human | None = None,
) -> None:
    """Sign and submit one realm call; print the gnokey receipt (or JSON) and a human line.

    ``build`` reads the chain the call will execute on (inside the lock, on the
    local chain), so defaults read from it (the stake, the move count) cannot
    go stale. The game the call was about is read back once it landed.
    """
    signer = acting_address(home, key, tx.master)
    receipt = submit(home, key, workflow.messages(build, signer), tx, then_read=game_read_back)
    # From here on the transaction is in a block: nothing below may fail the command.
    game = None
    about = game_of(receipt.result)
    if about is not None and not receipt.simulated:
        try:
            # The game's answer came with the transaction's block where the node could,
            # held to the realm's history where kept, as the transaction's result is.
            realm = RealmClient(current().open_chain(home), proofs=False)
            came = dict(receipt.read_back).get(realm.game_query(about))
            game = realm.game(about) if came is None else realm.game_answer(about, came.data)
        except C4Error as exc:
            warn_once(
                f"warning: the transaction is recorded (TX HASH {receipt.result.hash}), "
                f"but game {about} could not be read back: {exc}"
            )
    known = names(home)
    ending = None if game is None else game.ending(_settling_call(receipt))
    print_receipt(
        receipt,
        as_json=tx.as_json,
        human=(human or _settled)(game, receipt, known),
        game=None if game is None else game.document,
        known=known,
        extra={} if ending is None else {"ending": str(ending)},
    )


def _settled(game: GameView | None, receipt: Receipt, known: dict[str, str]) -> str:
    """One line on what a call did, for a person reading the terminal."""
    lines = [_status_line(game, known, _settling_call(receipt))] if game is not None else []
    lines += [f"paid {gnot(amount)} to {who(to, known)}" for to, amount in receipt.result.transfers]
    return "\n".join(lines)


def _settling_call(receipt: Receipt) -> str | None:
    """The realm function a transaction called last: what settled a game it ended."""
    return receipt.result.funcs[-1] if receipt.result.funcs else None


def _status_line(game: GameView, known: dict[str, str], settled_by: str | None = None) -> str:
    line = f"game {game.id}: {game.status}"
    if game.status == Status.WON:
        line += f", winner {who(game.winner, known)} ({game.ending(settled_by)})"
    elif game.status == Status.PLAYING and game.turn:
        line += f", move {game.moves}, {who(game.player(game.turn), known)} to play"
    elif game.status == Status.PLAYING:
        owed = (
            f"{who(game.acceptor, known)}'s seed"
            if game.revealed
            else f"{who(game.creator, known)}'s reveal"
        )
        line += f", waiting for {owed}"
    return line

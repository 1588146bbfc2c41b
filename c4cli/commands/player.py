"""A player's own games and stakes: `c4 games KEY`, and `c4 cancel` (one offer, or
every expired offer of a key at once)."""

from __future__ import annotations

import time as wallclock
from pathlib import Path

import click

from c4cli.chain.clock import format_time
from c4cli.client import workflow
from c4cli.client.player import STATUSES, Group, Ledger, Standing, expired_offers, ledger
from c4cli.client.verified import marks_of, verification_of
from c4cli.coins import gnot
from c4cli.commands import complete
from c4cli.commands.calls import run_call
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.game import address_arg
from c4cli.commands.options import TxCommand, common_options, tx_options
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.text import game_id_arg, names, who
from c4cli.commands.transact import (
    acting_address,
    fee_cap,
    gas_fee_ugnot,
    receipt_json,
    signer_for,
    submit,
)
from c4cli.commands.txopts import TxOptions
from c4cli.commands.views import clock_text
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.jsonvalue import Document

_HEADINGS = {
    Group.YOUR_MOVE: "waiting for you",
    Group.INVITED: "offers to you",
    Group.OPEN: "your open offers",
    Group.EXPIRED: "your expired offers, stake still held",
    Group.WAITING: "waiting for the other side",
    Group.FINISHED: "finished",
}


@click.command()
@click.argument("key", metavar="KEY_OR_ADDRESS", shell_complete=complete.keys)
@click.option(
    "--status",
    type=click.Choice(sorted(STATUSES)),
    help="Only these: open (offers), expired, live, finished.",
)
@common_options
@takes_run
def games(run: Invocation, key: str, status: str | None, home: Path, as_json: bool) -> None:
    """Every game a player is in, what the realm holds for them, and their record.

    Grouped by what the player can do: games waiting for their move or reveal,
    offers reserved for them, their open offers, their expired offers (the stake
    stays in the realm until someone cancels them: `c4 cancel --expired KEY`),
    live games waiting for the other side, and finished games with what each
    moved. KEY may be any address. Times are UTC; clocks as at the next block.

    \b
    Example:
      c4 games alice
      c4 games alice --status expired --json
    """
    address = address_arg(home, key)
    chain = run.open_chain(home)
    landing = chain.next_block_time(wallclock.time())
    found = ledger(chain, address, landing)
    shown = [s for s in found.standings if status is None or s.group in STATUSES[status]]
    known = names(home)
    if as_json:
        emit_json({**_document(found, shown, known), **marks_of(chain)})
        return
    for line in _text(found, shown, known, landing, chain.exact_clock):
        echo(line)
    verification = verification_of(chain)
    if verification is not None:
        echo(printable(verification.text()))


def _document(found: Ledger, shown: list[Standing], known: dict[str, str]) -> Document:
    record = found.record
    return {
        "address": found.address,
        "key": known.get(found.address),
        "now": found.now,
        "held_ugnot": found.held,
        "takeable_ugnot": found.takeable,
        "record": {
            "games": record.games,
            "wins": record.wins,
            "draws": record.draws,
            "won_ugnot": record.won,
            "net_ugnot": record.net,
        },
        "games": [
            {
                "group": str(s.group),
                "id": s.game.id,
                "status": str(s.game.status),
                "role": s.role,
                "rival": s.rival or None,
                "rival_key": known.get(s.rival),
                "stake_ugnot": s.game.stake,
                "claimable": s.claimable,
                "outcome": s.outcome,
                "delta_ugnot": s.delta,
                "game": s.game.document,
            }
            for s in shown
        ],
    }


def _text(
    found: Ledger, shown: list[Standing], known: dict[str, str], landing: int, exact: bool
) -> list[str]:
    name = known.get(found.address)
    record = found.record
    lines = [
        f"{who(found.address, known)}: {gnot(found.held)} held by the realm, "
        f"{gnot(found.takeable)} of it yours to take back now by cancelling your offers",
        f"record: {record.games} game{'' if record.games == 1 else 's'}, {record.wins} won, "
        f"{record.draws} drawn; {gnot(record.won)} taken in wins, net {_signed(record.net)} "
        "over its settled games",
    ]
    for group, heading in _HEADINGS.items():
        rows = [s for s in shown if s.group == group]
        if rows:
            lines.append(f"{heading} ({len(rows)}):")
            lines += [f"  {_row(s, known, landing, exact, name or 'KEY')}" for s in rows]
    if not shown:
        lines.append("no games")
    return lines


def _row(s: Standing, known: dict[str, str], landing: int, exact: bool, key: str) -> str:
    game = s.game
    head = f"game {game.id}  {gnot(game.stake)}"
    rival = f"vs {who(s.rival, known)}" if s.rival else "not accepted"
    if s.group == Group.INVITED:
        return f"{head}  from {who(game.creator, known)}  c4 accept {game.id} {key}"
    if s.group == Group.OPEN:
        opento = f"open to {who(game.opponent, known)}" if game.opponent else "open to anyone"
        return f"{head}  {opento} until {format_time(game.expires_at)}"
    if s.group == Group.EXPIRED:
        return f"{head}  expired {format_time(game.expires_at)}  c4 cancel {game.id} {key}"
    if s.group == Group.FINISHED:
        change = "" if not s.delta else f"  {_signed(s.delta)}"
        return f"{head}  {rival}  {s.outcome}{change}"
    if s.claimable:
        return f"{head}  {rival}  their clock ran out: c4 claim-timeout {game.id} {key}"
    doing = f"move {game.moves}" if game.turn else "the draw of the first mover"
    return f"{head}  {rival}  {doing}, {clock_text(game, landing, exact)}"


@click.command(cls=TxCommand)
@click.argument("game_id", metavar="[GAME]", required=False, shell_complete=complete.games)
@click.argument("key", required=False, shell_complete=complete.signers)
@click.option(
    "--expired",
    is_flag=True,
    help="Cancel every expired offer of KEY, one transaction each, and say what came back.",
)
@tx_options
@common_options
def cancel(game_id: str | None, key: str | None, expired: bool, home: Path, tx: TxOptions) -> None:
    """Cancel an open offer (Cancel): the creator any time, anyone once expired.

    With --expired, every expired offer of KEY, one transaction each: a line for
    each as it lands, then the total taken back. It stops at the first refusal;
    what landed before it stands. On a node the fee cap holds for them all.

    \b
    Example:
      c4 cancel 1 alice
      c4 cancel --expired alice
    """
    if expired:
        if key is not None or game_id is None:
            raise BadInput("with --expired, give only KEY: c4 cancel --expired KEY")
        _cancel_expired(game_id, home, tx)
        return
    if game_id is None or key is None:
        raise BadInput("give GAME and KEY (c4 cancel 1 alice), or --expired KEY")
    gid = game_id_arg(game_id)
    run_call(home, key, workflow.given(workflow.game_call("Cancel", gid)), tx=tx)


def _cancel_expired(key: str, home: Path, tx: TxOptions) -> None:
    if tx.generate_only:
        raise BadInput("--generate-only makes one transaction: give c4 cancel GAME KEY")
    address = acting_address(home, key, tx.master)
    chain = current().open_chain(home)
    offers = expired_offers(chain, address, chain.next_block_time(wallclock.time()))
    known = names(home)
    cap = fee_cap(home, tx.fee_cap)  # for the whole batch
    spent = back = 0
    signer = (
        None
        if not offers
        else signer_for(home, key, password_stdin=tx.password_stdin, master=tx.master)
    )
    rehearsed = tx.simulate == "only"  # each run, nothing sent
    for game in offers:
        step = tx._replace(fee_cap=f"{max(cap - spent, 0)}ugnot")
        call = workflow.messages(workflow.given(workflow.game_call("Cancel", game.id)), address)
        receipt = submit(home, key, call, step, signer=signer)
        spent += gas_fee_ugnot(receipt)
        came = sum(amount for to, amount in receipt.result.transfers if to == address)
        back += came
        if tx.as_json:
            emit_json({**receipt_json(receipt, known=known), "game_id": game.id})
        elif rehearsed:
            echo(
                f"game {game.id} would be cancelled: {gnot(came)} back to "
                f"{who(address, known)} (simulated only: nothing was sent)"
            )
        else:
            echo(
                f"game {game.id} cancelled: {gnot(came)} back to {who(address, known)} "
                f"(height {receipt.height}, TX HASH {receipt.result.hash})"
            )
    if tx.as_json:
        summary: Document = {"cancelled": [g.id for g in offers], "taken_back_ugnot": back}
        emit_json({**summary, "simulated": True} if rehearsed else summary)
    else:
        taken = "would take back (simulated only)" if rehearsed else "taken back"
        echo(f"{taken}: {gnot(back)} from {len(offers)} expired offers")


def _signed(ugnot: int) -> str:
    """An amount that moved to (+) or from (-) a player."""
    return f"{'+' if ugnot > 0 else ''}{gnot(ugnot)}"

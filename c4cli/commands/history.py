"""c4 log and c4 tx: the transactions a chain holds, in one shape on every backend.

The shape (documented in :mod:`c4cli.chain.listing` and the README) is the
chain's; these commands add key names (``signer_key``) and draw it for a person.
"""

from __future__ import annotations

import base64
from pathlib import Path

import click

from c4cli.chain.interface import ListedTx
from c4cli.chain.listing import proof_text
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import call_text, names, who
from c4cli.errors import BadInput, Refused
from c4cli.escape import printable
from c4cli.home.config import read_remote
from c4cli.home.journal import Journal


def calls_text(tx: ListedTx, known: dict[str, str]) -> str:
    """Each message of a listed tx: ``Play(1, 4, 0)``, ``send 1ugnot to bob (g1…)``;
    ``-`` where the chain's record does not say (another client's tx on a node)."""
    func_names, calls, sends, tos = tx["func"], tx["args"], tx["send"], tx["to"]
    if func_names is None or calls is None or sends is None or tos is None:
        return "-"
    funcs = func_names.split(",")
    shown = []
    for index, args in enumerate(calls):
        func = funcs[index] if index < len(funcs) else funcs[-1]
        sent, to = sends[index], tos[index]
        if to is not None:
            shown.append(f"send {sent} to {who(to, known)}")
        else:
            shown.append(call_text(func, args) + (f" sending {sent}" if sent else ""))
    return "; ".join(shown)


def _named(tx: ListedTx, known: dict[str, str]) -> dict[str, object]:
    """The listed tx as --json prints it: its signer's key name beside it."""
    signer = tx.get("signer")
    return {**tx, "signer_key": None if signer is None else known.get(str(signer))}


def _note(tx: ListedTx) -> str:
    status = tx["tx_status"]
    if tx.get("impersonated"):
        return "  (IMPERSONATED: no key signed it)"
    if status == "landed":
        return ""
    if tx.get("error"):
        return f"  ({status}: {tx['error']})"
    return f"  ({status})"


@click.command()
@click.option(
    "--from", "from_height", type=click.IntRange(min=1), default=1, help="First height to list."
)
@click.option("--to", "to_height", type=click.IntRange(min=1), help="Last height to list.")
@click.option(
    "--tail", type=click.IntRange(min=1), metavar="N", help="Only the last N blocks (of those)."
)
@click.option(
    "--forget-above",
    type=click.IntRange(min=0),
    metavar="HEIGHT",
    help="On a node home: the transactions journaled as landed above HEIGHT are not on "
    "this chain (a forged answer, a chain reset); drop them, so a node at HEIGHT is "
    "trusted again. Reads no node.",
)
@click.option(
    "--realm",
    "realm_history",
    is_flag=True,
    help="On a node home: the realm's transactions, every player's, from blocks its "
    "validators signed (synced first, as c4 sync does).",
)
@common_options
@takes_run
def log(
    run: Invocation,
    from_height: int,
    to_height: int | None,
    tail: int | None,
    forget_above: int | None,
    realm_history: bool,
    home: Path,
    as_json: bool,
) -> None:
    """List blocks and their transactions (height, time, signer, call, TX HASH).

    On the local chain, every block; on a node, the transactions this home sent
    (its journal), with those not seen in a block (pending, dropped) last, or with
    --realm every transaction of the realm, whoever sent it.

    \b
    Example:
      c4 log --from 1 --to 10
      c4 log --tail 5 --json | jq -r '.[-1].txs[0].hash'
      c4 log --realm --json | jq -r '.[] | select(.ok) | .calls[0].func'
    """
    if forget_above is not None:
        _forget_above(home, forget_above, as_json)
        return
    if realm_history:
        from c4cli.commands.sync import realm_log

        realm_log(home, as_json, first=from_height, last=to_height, tail=tail)
        return
    known = names(home)
    blocks = run.open_chain(home).listing(from_height, to_height, tail)
    if as_json:
        emit_json(
            [{**block, "txs": [_named(tx, known) for tx in block["txs"]]} for block in blocks]
        )
        return
    if not blocks:
        click.echo("no transactions")
    for block in blocks:
        if block["height"] is None:
            click.echo(f"{'-':>6}  not in a block")
        else:
            digest = f"  {block['hash'][:16]}" if block["hash"] else ""
            click.echo(f"{block['height']:>6}  {block['time']}{digest}")
        if not block["txs"]:
            click.echo("        (empty block)")
        for tx in block["txs"]:
            signer = "-" if tx["signer"] is None else who(str(tx["signer"]), known)
            line = f"        {signer}  {calls_text(tx, known)}  {tx['hash']}{_note(tx)}"
            click.echo(printable(line))


def _forget_above(home: Path, height: int, as_json: bool) -> None:
    """The user's word that what this node home saw land above ``height`` is not on its
    chain: those journal entries dropped, the home's seen height back within reach."""
    if read_remote(home) is None:
        raise BadInput(
            "--forget-above: this home is not bound to a node (only a node home "
            "keeps a journal of what it saw land)"
        )
    journal = Journal(home)
    forgotten = journal.forget_above(height)
    if as_json:
        emit_json({"forgotten": forgotten, "seen_height": journal.seen_height()})
        return
    for tx_hash in forgotten:
        click.echo(f"dropped {tx_hash}: not on this chain")
    click.echo(f"this home's seen height is now {journal.seen_height()}")


@click.command("tx")
@click.argument("hash_", metavar="HASH")
@click.option(
    "--binary",
    is_flag=True,
    help="Print the tx's amino bytes in base64, as a node receives them (for gnokey broadcast).",
)
@common_options
@takes_run
def tx_cmd(run: Invocation, hash_: str, binary: bool, home: Path, as_json: bool) -> None:
    """Show one transaction, its block and its result, by its TX HASH.

    On a node, any transaction the node has, whichever client sent it: its signer
    and calls are read from its own bytes.

    \b
    Example:
      c4 tx 'o1GD1jms6GgRE6xq4hOR9I1GUBGK+F9RV61cbwjODUU='
      c4 tx --binary 'o1GD1jms6GgRE6xq4hOR9I1GUBGK+F9RV61cbwjODUU=' | base64 -d > tx.bin
    """
    try:
        whole = len(base64.b64decode(hash_, validate=True)) == 32
    except ValueError:
        whole = False
    if not whole:
        raise BadInput(f"invalid TX HASH {hash_!r}: base64 of 32 bytes, as gnokey prints it")
    found = run.open_chain(home).listed_tx(hash_)
    if found is None:
        raise Refused(f"no transaction with hash {hash_!r} on this chain")
    doc, raw = found
    if binary:
        encoded = base64.b64encode(raw).decode()
        if as_json:
            emit_json({"hash": hash_, "tx": encoded})
        else:
            click.echo(encoded)
        return
    known = names(home)
    if as_json:
        emit_json(_named(doc, known))
        return
    for key in ("height", "time", "hash"):
        click.echo(f"{key + ':':<10}{doc[key]}")
    if doc["tx_status"] != "landed":
        click.echo(printable(f"{'status:':<10}{doc['tx_status']}: {doc['error'] or '-'}"))
    if doc["signer"] is not None:
        acted = " (IMPERSONATED: it acted without its key)" if doc.get("impersonated") else ""
        click.echo(f"{'signer:':<10}{who(str(doc['signer']), known)}{acted}")
    click.echo(printable(f"{'call:':<10}{calls_text(doc, known)}"))
    click.echo(printable(f"{'result:':<10}{', '.join(str(v) for v in doc['result']) or '-'}"))
    if doc["gas_used"]:
        click.echo(f"{'gas:':<10}{doc['gas_used']} used of {doc['gas_wanted']}")
    for transfer in doc["transfers"]:
        click.echo(f"{'paid:':<10}{transfer['amount']} to {who(transfer['to'], known)}")
    proof = doc.get("proof")
    if proof:  # on a node: its block proven by the validators the home trusts
        click.echo(f"{'verified:':<10}{proof_text(proof)}")
    elif "unverified" in doc:
        click.echo(printable(f"{'verified:':<10}no, the node's word: {doc['unverified']}"))

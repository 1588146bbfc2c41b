"""c4 audit: the realm's books, from its history, against what it holds and its balance."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from c4cli.address import package_address
from c4cli.client.audit import Books, books, local_tally
from c4cli.client.verified import history_checker_of
from c4cli.coins import gnot
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.options import common_options
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.sync import brought_up
from c4cli.commands.transact import local_chain
from c4cli.errors import Unreachable
from c4cli.escape import printable
from c4cli.home.config import read_remote
from c4cli.jsonvalue import Document


@click.command()
@common_options
@takes_run
def audit(run: Invocation, home: Path, as_json: bool) -> None:
    """Check the realm's books: every stake taken, paid out or given back, every fee.

    Sums what the realm's calls sent it and what it paid (payouts, stakes given
    back, fees withdrawn) over its whole history: the local chain's log, or on a
    node the realm's history from blocks its validators signed (synced first, as c4
    sync does). What the books leave must be what the realm holds by its own word
    (its open and live games' stakes, the fees not yet withdrawn) and its bank
    balance (on a node, after the block the history runs to, proven from the app
    hash the validators signed). Exit 0 and one line when they balance; else exit 1
    and each discrepancy.

    \b
    Example:
      c4 audit
      c4 audit --json | jq '.discrepancies | length'
    """
    run = run
    chain = run.open_chain(home)
    if run.remote is None and read_remote(home) is None:
        local = local_chain(home, "`c4 audit` of a local chain")
        tally, source, height = local_tally(local), "the local chain", chain.head().height
        summed = "the local chain's log"
        at = 0  # the balance now: the log the books are summed from is the chain
    else:
        brought_up(home, as_json)
        checker = history_checker_of(chain)
        if checker is None:  # the home takes its node's word: nothing to hold books to
            raise Unreachable("the realm's history could not be opened on this node")
        done = checker.computed()
        if done.unknown:
            raise Unreachable(f"the realm's books cannot be made: {done.unknown}")
        tally, height = done.tally, done.height
        source = f"the node's word after block {height}"
        summed = f"the realm's history through block {height}, in blocks the validators signed"
        at = height  # the balance after the block the books run to
    found = books(chain, tally, at)
    if found.proven_at is not None:
        source = f"proven at block {found.proven_at} by the trusted validators' signatures"
    discrepancies = found.discrepancies()
    if as_json:
        document = _document(found, chain.realm_path, height, source, discrepancies)
        emit_json({**document, "books_source": summed})
    else:
        _say(found, f"{source}; the books from {summed}", discrepancies)
    if discrepancies:
        sys.exit(1)


def _document(
    found: Books, realm_path: str, height: int, source: str, discrepancies: list[Document]
) -> Document:
    return {
        "realm_path": realm_path,
        "address": package_address(realm_path),
        "height": height,
        "taken_ugnot": found.taken,
        "sent_ugnot": found.sent,
        "paid_ugnot": found.paid,
        "refunded_ugnot": found.refunded,
        "withdrawn_ugnot": found.withdrawn,
        "left_ugnot": found.left,
        "held_ugnot": found.held,
        "pending_fees_ugnot": found.pending_fees,
        "balance_ugnot": found.balance,
        "surplus_ugnot": found.surplus,
        "balance_source": source,
        "discrepancies": discrepancies,
    }


def _say(found: Books, source: str, discrepancies: list[Document]) -> None:
    summary = (
        f"taken {gnot(found.taken + found.sent)}, paid out {gnot(found.paid)}, given back "
        f"{gnot(found.refunded)}, fees withdrawn {gnot(found.withdrawn)}: "
        f"{gnot(found.left)} left, held for {gnot(found.held)} of stakes and "
        f"{gnot(found.pending_fees)} of fees; balance {gnot(found.balance)} ({source})"
    )
    if not discrepancies:
        beyond = f"; {gnot(found.surplus)} beyond what it owes" if found.surplus else ""
        echo(printable(f"the realm's books balance: {summary}{beyond}"))
        return
    echo(printable(f"the realm's books do not balance: {summary}"))
    for item in discrepancies:
        echo(printable(f"- {item['text']}"))

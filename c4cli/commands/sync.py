"""c4 sync: the realm's history on a node, read from blocks the validators signed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import Progress

from c4cli.client.history import Done, listed, synced
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.options import common_options
from c4cli.commands.run import current
from c4cli.commands.text import call_text, names, who
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.home.config import read_remote
from c4cli.jsonvalue import Document

if TYPE_CHECKING:
    from c4cli.client.history import RealmRow

BAR_FROM = 2_000  # blocks to read before a terminal is shown a progress bar


@click.command()
@click.option(
    "--from",
    "from_height",
    type=click.IntRange(min=1),
    metavar="HEIGHT",
    help="The first block to read when the home holds no history yet (default 1).",
)
@common_options
def sync(from_height: int | None, home: Path, as_json: bool) -> None:
    """Keep the realm's history from the node's blocks, each proven before it is kept.

    Reads every block from the first to the one before the node's proven head (the
    next header proves a block's results): the headers by the validators' signatures
    and the hash chain, each block's transactions by its data hash, their results by
    the next header. Keeps, in the home (history/), every transaction that called the
    realm, deployed it, sent coins to it or reached it otherwise. A second run reads
    only the blocks made since; an interrupted one carries on from the last block
    kept. On a node home only; a home that takes its node's word cannot sync.

    \b
    Example:
      c4 sync
      c4 sync --json | jq .read.found
    """
    report, index = brought_up(home, as_json, from_height)
    reached = report.reached
    read: Document = {
        "from": report.start,
        "blocks": max(0, reached.height - report.start + 1),
        "with_txs": report.busy,
        "found": report.found,
    }
    document: Document = {
        "chain_id": index.chain_id,
        "realm_path": index.realm_path,
        "first": reached.first,
        "height": reached.height,
        "block_hash": reached.block_hash,
        "deployed": reached.deployed or None,
        "read": read,
        "txs": report.total,
        "waiting": report.waiting or None,
        "index": str(index.path),
    }
    if as_json:
        emit_json(document)
        return
    if reached.height < reached.first:
        echo(f"nothing to read yet: the node has no proven block past {reached.first - 1}")
        return
    echo(
        f"the realm {printable(index.realm_path)} on chain {printable(index.chain_id)}: blocks "
        f"{reached.first}-{reached.height} read and proven, {report.total} of its "
        f"transaction(s) kept"
    )
    if read["blocks"]:
        echo(
            f"this run: blocks {report.start}-{reached.height} ({read['with_txs']} with "
            f"transactions), {report.found} new"
        )
    if reached.deployed:
        echo(f"deployed at block {reached.deployed}")
    if report.waiting:
        echo(
            f"block {report.waiting}, the node's head, holds transactions no later block "
            "proves the results of yet: the next sync reads it"
        )


def brought_up(home: Path, as_json: bool, first: int | None = None) -> Done:
    """The home's history of its node's realm, brought up to the node's proven head
    (a progress bar on a terminal for a long first read)."""
    run = current()
    with progress_bar(as_json) as progress:
        return synced(
            home, url=run.remote, realm_path=run.realm_path, chain_id=run.chain_id,
            trust_node=run.trust_node, first=first, progress=progress,
        )  # fmt: skip


def realm_log(home: Path, as_json: bool, *, first: int, last: int | None, tail: int | None) -> None:
    """`c4 log --realm`: the realm's history, synced first, from block ``first`` to
    ``last`` (the last ``tail`` transactions of those)."""
    if read_remote(home) is None and current().remote is None:
        raise BadInput("--realm lists a node's realm: the local chain's c4 log lists every block")
    _, index = brought_up(home, as_json)
    # The rows asked, read by their key: a tail costs what it lists, not the history.
    rows = [listed(row) for row in index.txs(above=first - 1, through=last, tail=tail or None)]
    known = names(home)
    if as_json:
        emit_json([{**row, "signer_key": known.get(row["signer"] or "")} for row in rows])
        return
    if not rows:
        echo("no transactions of the realm")
    for row in rows:
        fate = "" if row["ok"] else f"  (refused: {row['error']})"
        line = (
            f"{row['height']:>6}  {row['time']}  {who(row['signer'] or '', known)}  "
            f"{_calls(row, known)}  {row['hash']}{fate}"
        )
        echo(printable(line))


def _calls(row: RealmRow, known: dict[str, str]) -> str:
    shown = []
    for call in row["calls"]:
        if "func" in call:
            sent = f" sending {call['send']}" if call["send"] else ""
            shown.append(call_text(call["func"], call["args"]) + sent)
        elif "to" in call:
            shown.append(f"send {call['send']} to {who(call['to'], known)}")
        else:
            shown.append(f"{call['type']} {call.get('package') or ''}".strip())
    if row["kind"] in ("run", "unknown"):
        shown.append("(reached the realm: not replayed)")
    return "; ".join(shown) or "-"


@contextmanager
def progress_bar(as_json: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal's stderr for a long sync; none when piped or --json."""
    if as_json or not sys.stderr.isatty():
        yield None
        return
    with Progress(transient=True, console=Console(stderr=True)) as bar:
        task: list[Any] = []

        def advance(reached: int, target: int) -> None:
            if not task and target - reached < BAR_FROM:
                return
            if not task:
                task.append(bar.add_task("reading blocks", total=target))
            bar.update(task[0], completed=reached, total=target)

        yield advance

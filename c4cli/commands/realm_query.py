"""`c4 query`'s named queries: the realm's JSON (game, active, leaders), its page
(render), its fees, a player's record (player), and an account's balance or record
by key name or address.

Apart from gnokey's paths (:mod:`c4cli.commands.query_paths`), which need neither
the realm's client nor the keyring: a query by path loads neither.
"""

from __future__ import annotations

import json
from pathlib import Path

from c4cli.chain.interface import ChainReader
from c4cli.client import accounts
from c4cli.client.player import ledger
from c4cli.client.realm_client import RealmClient
from c4cli.client.verified import marks_of, verification_of
from c4cli.coins import gnot
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.run import current
from c4cli.commands.text import game_id_arg
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.home.config import read_remote

LAST_BLOCK_ONLY = ("game", "active", "leaders", "render", "fees", "player")
# The realm's JSON printed exactly as it answers (cli.md): its marks go to stderr.
EXACT = ("game", "active", "leaders")
NODES_WORD = (
    "the node's word: no proof is checked (--trust-node, or a node this home is not bound to)"
)


def answer(
    home: Path,
    chain: ChainReader,
    what: str,
    arg: str | None,
    *,
    height: int,
    offset: int,
    limit: int,
    as_json: bool,
) -> None:
    """Print the named query ``what`` (one of ``query_paths.NAMED``) as read from ``chain``."""

    def needs_arg(name: str) -> str:
        if arg is None:
            raise BadInput(f"query {what} needs {name}")
        return arg

    realm = RealmClient(chain)
    if height and what in LAST_BLOCK_ONLY:
        raise BadInput(f"--height: query {what} reads the last block only; use vm/qeval")
    if what in EXACT:
        if what == "game":
            echo(realm.game_json(game_id_arg(needs_arg("a game id"))))
        elif what == "active":
            echo(realm.active_json(offset, limit))
        else:
            echo(realm.leaders_json())
        _say(chain, err=True)
    elif what == "render":
        markdown = realm.render(arg or "")
        if as_json:
            emit_json({"height": chain.head().height, "markdown": markdown})
        else:
            echo(printable(markdown, lines=True), nl=False)
    elif what == "fees":
        fees = realm.fees()._asdict()
        if as_json:
            # c4's words (README, JSON for scripts): ugnot amounts named so, null for none.
            emit_json(
                {
                    "fee_ugnot": fees["fee"],
                    "collected_ugnot": fees["collected"],
                    "owner": fees["owner"] or None,
                    "pending_owner": fees["pending_owner"] or None,
                    **marks_of(chain),
                }
            )
        else:
            for key, value in fees.items():
                # Amounts with their unit, as the receipts print them (--json: ugnot).
                shown = f"{value}ugnot ({gnot(value)})" if isinstance(value, int) else value
                echo(f"{key}: {shown or '-'}")
            _say(chain)
    elif what == "player":
        address = current().keyring(home).resolve(needs_arg("an address or key name"))
        record = ledger(chain, address, chain.head().time).record
        # The realm's record (its playerStats, whose "net" is what wins took beyond the
        # stakes: c4 calls it won), then c4's net of the player's settled games.
        document = {"address": address, **record._asdict()}
        document["won_ugnot"] = document.pop("won")
        document["net_ugnot"] = document.pop("net")
        if as_json:
            emit_json({**document, **marks_of(chain)})
        else:
            for key, value in document.items():
                if key == "won_ugnot":
                    key, shown = "won", f"{value}ugnot ({gnot(value)}) beyond the stakes, "
                    shown += "as the realm counts it (its net: losses not subtracted)"
                elif key == "net_ugnot":
                    key, shown = "net of every settled game", f"{value}ugnot ({gnot(value)})"
                else:
                    shown = str(value)
                echo(f"{key}: {shown}")
            _say(chain)
    else:
        address = current().keyring(home).resolve(needs_arg("an address or key name"))
        read = accounts.read(chain, address, what, height)
        proven = accounts.PROVEN.format(height=read.proven_at) if read.proven_at is not None else ""
        if what == "account":
            if as_json:
                emit_json(read.document)
            else:
                echo(json.dumps(read.document, indent=2))
        else:
            ugnot = read.ugnot
            if as_json:
                word: dict[str, object] = {}
                if read.proven_at is not None:
                    word = {"proven": True, "height": read.proven_at}
                elif _on_node(home):
                    word = {"verified": False, "unverified": NODES_WORD}
                emit_json({"address": address, "ugnot": ugnot, **word})
            else:
                echo(f"{ugnot}ugnot")
        if proven or _on_node(home):  # on stderr: stdout stays the amount or the document
            echo(proven or NODES_WORD, err=True)


def _on_node(home: Path) -> bool:
    return current().remote is not None or read_remote(home) is not None


def _say(chain: ChainReader, *, err: bool = False) -> None:
    """The line that says whether the realm's values read are what signed blocks make."""
    verification = verification_of(chain)
    if verification is not None:
        echo(printable(verification.text()), err=err)

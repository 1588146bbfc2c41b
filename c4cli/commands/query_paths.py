"""``c4 query``'s body: gnokey's query paths, and the realm's named queries by name.

Click-free: click's command (``commands/query.py``) and the fast lane of its plain
form (``cli/lanes.py``) both answer through :func:`answer`. A query by path loads
neither the realm's client nor the keyring (``commands/realm_query.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.address import canonical
from c4cli.client import accounts
from c4cli.commands.ending import echo, emit_json
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.wire.paths import (
    ACCOUNTS,
    BALANCES,
    GASPRICE,
    QDOC,
    QEVAL,
    QFILE,
    QFUNCS,
    QRENDER,
)

NEEDS_DATA = (QEVAL, QRENDER, QFUNCS, QFILE, QDOC)
# The realm's named queries (commands/realm_query.py); the rest are gnokey's paths.
NAMED = ("game", "active", "leaders", "render", "fees", "player", "balance", "account")

if TYPE_CHECKING:
    from c4cli.chain.interface import ChainReader
    from c4cli.commands.run import Invocation


def answer(
    run: Invocation,
    home: Path,
    what: str,
    arg: str | None,
    *,
    data: str | None,
    height: int,
    offset: int,
    limit: int,
) -> None:
    """Read ``what`` at the last block (or after block ``height``) and print it."""
    as_json = run.json
    chain = run.open_reader(home)
    if what in NAMED:
        from c4cli.commands import realm_query  # the realm's client, keys: named only

        realm_query.answer(
            home, chain, what, arg, height=height, offset=offset, limit=limit, as_json=as_json
        )
    elif is_raw_path(what):
        if what in NEEDS_DATA and data is None:
            raise BadInput(f"query {what} needs --data")
        raw_answer(chain, what, data or "", height, as_json)
    else:
        raise BadInput(f"unknown query {what!r}: see `c4 query --help`")


def is_raw_path(what: str) -> bool:
    """Whether ``c4 query WHAT`` is a query path, as gnokey takes any (``vm/qpaths``,
    ``.app/version``, ``params/…``): the chain says whether it answers it."""
    return "/" in what


def raw_answer(chain: ChainReader, what: str, data: str, height: int, as_json: bool) -> None:
    """Ask ``chain`` a gnokey path and print its answer (an account's, a balance or the
    gas price, on a node, once it agrees with the value proven from the app hash:
    client/accounts.py)."""
    prefix = next((p for p in (BALANCES, ACCOUNTS) if what.startswith(p)), None)
    address = canonical(what[len(prefix) :]) if prefix is not None else None
    if address is not None or what == GASPRICE:
        if address is not None:
            kind = "balance" if prefix == BALANCES else "account"
            read = accounts.read(chain, address, kind, height)
            shown: object = read.document
        else:  # its data as the node gave it, as every other path's
            read = accounts.gas_price(chain, height)
            shown = read.data
        answered, said, at = read.data, read.height, read.proven_at
    else:
        answer = chain.query(what, data, height=height)
        shown = answer.document(what) if prefix is not None else answer.data
        answered, said, at = answer.data, answer.height, None
    if as_json:
        proof = {} if at is None else {"proven": True, "proven_at": at}
        emit_json({"height": said, "data": shown, **proof})
    else:
        echo(f"height: {said}\ndata: {printable(answered, lines=True)}")
    if at is not None:
        echo(accounts.PROVEN.format(height=at), err=True)

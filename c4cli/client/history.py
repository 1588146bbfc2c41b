"""The realm's history a node home keeps (`c4 sync`, `c4 log --realm`).

The index (:mod:`c4cli.node.history.index`) is kept in the home, one file a chain and realm
(``history/<chain id>/<realm path>.sqlite``, :func:`c4cli.client.connect.history_path`):
binding the home to another chain starts another, and coming back finds the first
where it was left.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.chain.clock import format_time
from c4cli.chain.listing import LANDED, REFUSED, messages
from c4cli.chain.trust import IndexedTx
from c4cli.client import connect
from c4cli.errors import BadInput
from c4cli.home.config import read_remote
from c4cli.node.history.index import RealmIndex
from c4cli.node.history.sync import NodeHistory, Progress, SyncReport
from c4cli.node.reader import NodeReader
from c4cli.wire.msgs import Msg, MsgCall, MsgPackage, MsgSend
from c4cli.wire.std import DecodeError, Fee, Tx, decode_tx

if TYPE_CHECKING:
    from typing import TypedDict

    from c4cli.chain.interface import Messages

    class RowMessage(TypedDict, total=False):
        """One message of a realm's transaction: a call (func, args, send, pkg_path), a
        send (send, to), or another kind (type, package)."""

        func: str
        args: list[str]
        send: str
        pkg_path: str
        to: str
        type: str
        package: str | None

    class RealmRow(Messages):
        """A transaction of the realm's history as `c4 log --realm` lists it."""

        height: int
        position: int
        time: str
        hash: str
        kind: str
        tx_status: str
        signer: str | None
        session: str | None
        calls: list[RowMessage]
        ok: bool
        error: str | None


Done = tuple[SyncReport, RealmIndex]  # what a sync did, and the index it grew


def synced(
    home: Path,
    *,
    url: str | None,
    realm_path: str | None,
    chain_id: str | None,
    trust_node: bool,
    first: int | None,
    progress: Progress | None = None,
) -> Done:
    """`c4 sync`: the home's index of its node's realm, brought up to the node's proven
    head; refused, in one line, where there is nothing to sync."""
    reader = connect.open_reader(
        home, url=url, realm_path=realm_path, chain_id=chain_id, trust_node=trust_node
    )
    if not isinstance(reader, NodeReader):
        raise BadInput(
            "the local chain has nothing to sync: its own log holds every block (c4 log lists them)"
        )
    if reader.verifier is None:
        if read_remote(home) is None:
            raise BadInput(
                "this home is bound to no node: the realm's history is kept by a home "
                "bound to one, which trusts a validator set to prove its blocks by"
            )
        raise BadInput(
            "this home takes its node's word: the realm's history keeps only blocks the "
            "validators signed, and the home trusts no validator set to hold them to"
        )
    chain_id = reader.chain_id
    history = NodeHistory(reader, connect.history_path(home, chain_id, reader.realm_path), chain_id)
    return history.sync(first, progress), history.index


def listed(row: IndexedTx) -> RealmRow:
    """One transaction of the realm's history as `c4 log --realm` lists it: where and
    when, who signed (and with which session key), what it called, and its fate; each
    in the words `c4 log` gives a transaction (``tx_status``, ``func``, ``args``,
    ``send``, ``to``), beside the history's own (``kind``, ``calls``)."""
    calls: list[RowMessage] = []
    try:
        msgs: tuple[Msg, ...] = decode_tx(row.tx).msgs
    except (DecodeError, UnicodeDecodeError):
        msgs = ()
    for msg in msgs:
        if isinstance(msg, MsgCall):
            calls.append(
                {"func": msg.func, "args": list(msg.args), "send": msg.send,
                 "pkg_path": msg.pkg_path}
            )  # fmt: skip
        elif isinstance(msg, MsgSend):
            calls.append({"send": msg.amount, "to": msg.to_address})
        else:
            path = msg.package_path if isinstance(msg, MsgPackage) else None
            calls.append({"type": msg.type_url, "package": path})
    return {
        "height": row.height,
        "position": row.position,
        "time": format_time(row.time),
        "hash": row.hash,
        "kind": row.kind,
        "tx_status": LANDED if row.ok else REFUSED,
        "signer": row.signer or None,
        "session": row.session or None,
        **messages(Tx(msgs, Fee(0))),
        "calls": calls,
        "ok": row.ok,
        "error": row.error or None,
    }

"""The realm's history a node home keeps (`c4 sync`): where it lives and how it grows.

The index (:mod:`c4cli.node.history`) is kept in the home, one file a chain and realm
(``history/<chain id>/<realm path>.sqlite``): binding the home to another chain
starts another, and coming back finds the first where it was left.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from c4cli.chain.clock import format_time
from c4cli.client import connect
from c4cli.errors import BadInput
from c4cli.node.history import IndexedTx, RealmIndex
from c4cli.node.reader import NodeReader
from c4cli.node.sync import Progress, SyncReport, sync
from c4cli.wire.amino import DecodeError, decode_tx
from c4cli.wire.msgs import MSG_CALL, MSG_SEND

HISTORY = "history"
Synced = tuple[SyncReport, RealmIndex]  # what a sync did, and the index it grew


def index_path(home: Path, chain_id: str, realm_path: str) -> Path:
    """The index file of ``realm_path`` on chain ``chain_id`` in ``home``."""
    return home / HISTORY / _part(chain_id) / f"{_part(realm_path)}.sqlite"


def _part(text: str) -> str:
    """A file name for a chain id or a realm path: its own letters where they are
    safe (a path's slashes as ``_``), its hex where they are not."""
    name = text.replace("/", "_")
    return name if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", name) else text.encode().hex()


def synced(
    home: Path,
    *,
    url: str | None,
    realm_path: str | None,
    chain_id: str | None,
    trust_node: bool,
    first: int | None,
    progress: Progress | None = None,
) -> Synced:
    """The home's index of its node's realm, brought up to the node's proven head."""
    reader = connect.open_reader(
        home, url=url, realm_path=realm_path, chain_id=chain_id, trust_node=trust_node
    )
    if not isinstance(reader, NodeReader):
        raise BadInput(
            "the local chain has nothing to sync: its own log holds every block (c4 log lists them)"
        )
    verifier = reader.verifier
    if verifier is None:
        raise BadInput(
            "this home takes its node's word: the realm's history keeps only blocks the "
            "validators signed, and the home trusts no validator set to hold them to"
        )
    index = RealmIndex(
        index_path(home, reader.chain_id, reader.realm_path), reader.chain_id, reader.realm_path
    )
    kept = index.synced()
    if kept is not None and first is not None and first != kept.first:
        raise BadInput(
            f"this home's history of the realm begins at block {kept.first}, not {first}: "
            f"delete {index.path} to begin it elsewhere"
        )
    return sync(reader, verifier, index, first=first or 1, progress=progress), index


def listed(row: IndexedTx) -> dict[str, Any]:
    """One transaction of the realm's history as `c4 log --realm` lists it: where and
    when, who signed (and with which session key), what it called, and its fate."""
    calls: list[dict[str, Any]] = []
    try:
        msgs = decode_tx(row.tx)["msg"]
    except (DecodeError, UnicodeDecodeError):
        msgs = []
    for msg in msgs:
        kind = msg.get("@type")
        if kind == MSG_CALL:
            calls.append(
                {"func": msg.get("func"), "args": msg.get("args", []), "send": msg.get("send", ""),
                 "pkg_path": msg.get("pkg_path")}
            )  # fmt: skip
        elif kind == MSG_SEND:
            calls.append({"send": msg.get("amount", ""), "to": msg.get("to_address")})
        else:
            package = msg.get("package")
            path = package.get("path") if isinstance(package, dict) else None
            calls.append({"type": kind, "package": path})
    return {
        "height": row.height,
        "position": row.position,
        "time": format_time(row.time),
        "hash": row.hash,
        "kind": row.kind,
        "signer": row.signer or None,
        "session": row.session or None,
        "calls": calls,
        "ok": row.ok,
        "error": row.error or None,
    }

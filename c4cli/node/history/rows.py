"""Which of a proven block's transactions touched the realm, and how: the rows of its
history (:class:`~c4cli.chain.trust.IndexedTx`) a sync keeps.

A call of the realm, its deployment, and coins sent to its address are read from the
messages; what reaches it otherwise (code run once, a call through another realm,
bytes c4 cannot read) from the events its result holds and from the code: a package
deployed that imports the realm (or a package that does) is remembered, and code run
once that imports one, or a call of one, may reach the realm with no event at all.
Such a transaction is kept as what c4 does not replay: from it, the realm's state is
the node's word.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import NamedTuple

from c4cli.chain.trust import CALL, DEPLOY, RUN, SEND, UNKNOWN, IndexedTx
from c4cli.wire.abci import ResponseDeliverTx
from c4cli.wire.events import GnoEvent, OtherEvent, StorageEvent, TransferEvent
from c4cli.wire.msgs import MSG_ADD_PACKAGE, MSG_RUN, Msg, MsgCall, MsgOther, MsgPackage, MsgSend
from c4cli.wire.std import DecodeError, Tx, decode_tx


def _decode(raw: bytes) -> Tx | None:
    try:
        return decode_tx(raw)
    except (DecodeError, UnicodeDecodeError, ValueError):
        return None  # bytes the chain took that c4 cannot read: judged by their events


class Kept(NamedTuple):
    """The realm a sync keeps the history of: its path and its address, and the packages
    deployed that import it (directly or through another), grown as blocks are read."""

    path: str
    address: str
    importers: set[str]


REACHES = "reaches"  # a message that may reach the realm with no event saying so


def _msg_kind(msg: Msg, realm: Kept) -> str | None:
    if isinstance(msg, MsgCall) and msg.pkg_path == realm.path:
        return CALL
    if isinstance(msg, MsgCall) and msg.pkg_path in realm.importers:
        return REACHES  # a realm that imports it may call it
    if isinstance(msg, MsgPackage) and msg.type_url == MSG_RUN and _imports(msg, realm):
        return RUN  # code run once that imports it may call it, events or not
    if isinstance(msg, MsgPackage) and msg.type_url == MSG_ADD_PACKAGE:
        return DEPLOY if msg.package_path == realm.path else None
    if isinstance(msg, MsgSend) and msg.to_address == realm.address:
        return SEND
    if isinstance(msg, MsgOther):
        return UNKNOWN
    return None


def _imports(msg: MsgPackage, realm: Kept) -> bool:
    """Whether the package a ``/vm.m_addpkg`` or ``/vm.m_run`` carries names the realm,
    or a package that imports it, as a string in its code: every import of it does
    (Go's import paths are string literals), so this never misses one, and what it
    takes for one more only leaves the realm's state the node's word."""
    wanted = (realm.path, *realm.importers)
    try:
        files = msg.files()
    except (DecodeError, UnicodeDecodeError, ValueError, KeyError):
        return True  # a package c4 cannot read: it may import the realm
    for body in files.values():
        for path in wanted:
            if f'"{path}"' in body or f"`{path}`" in body:
                return True
    return False


def realm_row(
    realm: Kept, height: int, place: int, time: int, raw: bytes, result: ResponseDeliverTx
) -> IndexedTx | None:
    """The index's row of one transaction, or None when it did not touch the realm. A
    delivered deployment of another package that imports the realm is remembered in
    ``realm.importers``: a later call of it may reach the realm."""
    tx = _decode(raw)
    msgs = () if tx is None else tx.msgs
    delivered = not result.refused
    for msg in msgs:
        if not isinstance(msg, MsgPackage) or msg.type_url != MSG_ADD_PACKAGE:
            continue
        if msg.package_path != realm.path and delivered and _imports(msg, realm):
            realm.importers.add(msg.package_path)
    found = [_msg_kind(msg, realm) for msg in msgs]
    reaches = REACHES in found
    found = [UNKNOWN if kind == REACHES else kind for kind in found]
    kinds = [kind for kind in found if kind]
    touched = _touches(result, realm) or reaches
    if touched and not kinds:
        # Code run once, a call through another realm, bytes c4 cannot read: the
        # realm was reached in a way c4 does not replay.
        ran = any(msg.type_url == MSG_RUN for msg in msgs)
        kinds = [RUN if ran else UNKNOWN]
    kinds = [k for k in kinds if k != UNKNOWN or touched]
    if not kinds:
        return None
    error = (result.log or "refused") if result.refused else ""
    funcs = [m.name for m, kind in zip(msgs, found, strict=True) if kind == CALL]
    session = tx.signature.session_addr if tx is not None and tx.signatures else None
    try:
        signer = msgs[0].signer if msgs else ""
    except ValueError:
        signer = ""
    kind = _main(kinds)
    # A call's or a send's fate is its error (proven with the block's results); what is
    # not replayed keeps its whole result: the events that say it reached the realm.
    kept = result if kind in (RUN, UNKNOWN) else None
    return IndexedTx(
        height, place, time, base64.b64encode(hashlib.sha256(raw).digest()).decode(),
        kind, signer, session or "", ",".join(funcs),
        error, raw, kept,
    )  # fmt: skip


def _main(kinds: Sequence[str]) -> str:
    """A transaction's kind: what is not replayed wins, then a deployment, then a call."""
    for kind in (UNKNOWN, RUN, DEPLOY, CALL, SEND):
        if kind in kinds:
            return kind
    return kinds[0]


def _touches(result: ResponseDeliverTx, realm: Kept) -> bool:
    """Whether a result's events come from the realm or move its coins."""
    for event in result.events:
        if isinstance(event, TransferEvent):
            touched = realm.address in (event.sender, event.receiver)
        elif isinstance(event, GnoEvent | StorageEvent):
            touched = event.pkg_path == realm.path
        elif isinstance(event, OtherEvent):
            fields = event.fields
            touched = fields.get("pkg_path") == realm.path or realm.address in (
                fields.get("from"),
                fields.get("to"),
            )
        if touched:
            return True
    return False

"""Transactions on a node, by hash: found on any of the home's nodes, checked.

A node indexes transactions by hash only. ``tx`` answers are believed once their
bytes hash to the hash asked for and the block they name holds them; payouts are
read from the bank's transfer events.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from c4cli.address import package_address
from c4cli.chain.clock import format_time
from c4cli.chain.interface import ListedTx
from c4cli.chain.listing import node_tx, proof_fields
from c4cli.chain.trust import Proven
from c4cli.coins import ugnot_in
from c4cli.errors import Unreachable, Unverified
from c4cli.node import answers
from c4cli.node.reader import NodeReader, Query
from c4cli.node.transport import NodeSaid, RpcCall
from c4cli.wire import results
from c4cli.wire.amino import DecodeError, decode_tx
from c4cli.wire.msgs import Tx
from c4cli.wire.results import TxAnswer


def transaction(reader: NodeReader, tx_id: str, *, timeout: float | None = None) -> TxAnswer | None:
    """A transaction by hash, as the node's ``tx`` gives it; None if it has none. With
    several URLs, every node is asked before saying none has it (a broadcast whose
    answer was lost may have reached another node first)."""
    call = RpcCall("tx", {"hash": tx_id})
    try:
        found = reader.transport.call(call.method, call.params, timeout=timeout)
    except NodeSaid as said:
        if said.kind != "unknown tx":
            raise
        found = reader.transport.elsewhere(call, timeout)
        if found is None:
            return None
    if not isinstance(found, dict):
        raise Unreachable(f"{reader.redacted} answered tx {tx_id} in a shape it never has")
    return cast(TxAnswer, found)  # an object: its fields are read under a guard


def transaction_or_none(reader: NodeReader, tx_id: str, timeout: float) -> TxAnswer | None:
    """:func:`transaction`, with a failed look-up as no answer (it proves nothing)."""
    try:
        return transaction(reader, tx_id, timeout=max(timeout, 0.1))
    except Unreachable:
        return None


def listed_tx(reader: NodeReader, tx_hash: str) -> tuple[ListedTx, bytes] | None:
    """The node's record of any transaction, checked against its hash, read from its own
    bytes (signer, messages, signatures), whichever client sent it."""
    found = transaction(reader, tx_hash)
    if found is None:
        return None
    try:
        raw = base64.b64decode(str(found["tx"]), validate=True)
        height = answers.int64(found["height"])
        base, data, events = answers.delivered(found)
    except (KeyError, TypeError, AttributeError, ValueError):
        raise Unreachable(
            f"{reader.redacted} answered tx {tx_hash} in a shape it never has"
        ) from None
    if base64.b64encode(hashlib.sha256(raw).digest()).decode() != tx_hash:
        raise Unreachable(f"{reader.redacted} answered tx {tx_hash} with another transaction")
    error = answers.refusal(base) if base.get("Error") else ""
    values = [value for value, _ in results.call_values(data)]
    paid = [] if error else transfers(reader.realm_path, events)
    try:
        tx: Tx | None = decode_tx(raw)
    except (DecodeError, UnicodeDecodeError):
        tx = None  # bytes the node took but c4 cannot read: shown without them
    if reader.verifier is not None:
        try:
            held = block_holding(reader, height, raw)
            assert held.proven is not None
            proven = reader.verifier.result(held.proven, held.place, found["tx_result"])
        except Unverified as unverified:
            raise Unverified(f"{unverified}: transaction {tx_hash} is not believed") from None
        moment = proven.time
    else:
        proven, moment = None, reader.block_time(height)
    doc = node_tx(found, format_time(moment), (values, paid, error), tx)
    doc["hash"], doc["height"], doc["tx"] = tx_hash, height, tx
    doc.update(proof_fields(proven, reader.unproven))  # type: ignore[typeddict-item]
    return doc, raw


class Held(NamedTuple):
    """A block seen to hold a transaction: its time, what came for the reads asked with
    it, and its header's proof (None where the node's word is taken)."""

    time: int
    found: list[Any]
    proven: Proven | None
    place: int  # the transaction's index in the block


def block_holding(
    reader: NodeReader,
    height: int,
    raw: bytes,
    reads: Sequence[Query] = (),
    block: Any = None,
    commit: Any = None,
) -> Held:
    """Block ``height``, once it is seen to hold ``raw`` (a broadcast's answer is believed
    only if the block it names has the transaction in it) and, where blocks are
    verified, proven by its validators' signatures (else Unverified: not believed).

    ``block`` (and ``commit``) are that block's answers if they came already; else
    they are asked for, with ``reads`` (queries as (path, data)) at the last block in
    the same request."""
    found: list[Any] = []
    if block is None:
        block, commit, found = reader.block_with(height, reads)
    txs = answers.field(reader.redacted, block, "block", "data", "txs")
    mine = base64.b64encode(raw).decode()
    if not isinstance(txs, list) or mine not in txs:
        raise Unreachable(
            f"{reader.redacted} said the transaction is in block {height}, "
            "but that block does not hold it"
        )
    if str(answers.field(reader.redacted, block, "block", "header", "height")) != str(height):
        raise Unreachable(f"{reader.redacted} answered block {height} with another block")
    if reader.verifier is not None:
        proven = reader.verifier.block(block, commit)
        return Held(proven.time, found, proven, txs.index(mine))
    moment = answers.unix_time(
        str(answers.field(reader.redacted, block, "block", "header", "time"))
    )
    return Held(moment, found, None, txs.index(mine))


def transfers(realm_path: str, events: list[Any]) -> list[tuple[str, int]]:
    """Who was paid what, from the bank's transfer events: everything but the coins sent
    into the realm (stakes), as the local chain's receipts list payouts."""
    realm = package_address(realm_path)
    return [
        (str(event.get("to")), ugnot_in(str(event.get("coins", ""))))
        for event in events
        if isinstance(event, dict)
        and event.get("@type") == "/bank.TransferEvent"
        and event.get("to") != realm
    ]

"""Transactions on a node, by hash: found on any of the home's nodes, checked.

A node indexes transactions by hash only. ``tx`` answers are believed once their
bytes hash to the hash asked for and the block they name holds them; payouts are
read from the bank's transfer events.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
from collections.abc import Sequence
from typing import NamedTuple

from c4cli.address import package_address
from c4cli.chain.clock import format_time
from c4cli.chain.interface import ListedTx
from c4cli.chain.listing import LANDED, REFUSED, fee_of, messages, with_proof
from c4cli.chain.trust import Proven
from c4cli.coins import ugnot_in
from c4cli.errors import Unreachable, Unverified
from c4cli.node.net import answers, rpc
from c4cli.node.net.transport import UnknownTx
from c4cli.node.reader import NodeReader, Query
from c4cli.wire import results
from c4cli.wire.abci import ResponseDeliverTx
from c4cli.wire.events import Event, TransferEvent
from c4cli.wire.rpc import ResultABCIQuery, ResultBlock, ResultCommit, ResultTx
from c4cli.wire.std import DecodeError, Tx, decode_tx


def transaction(reader: NodeReader, tx_id: str, *, timeout: float | None = None) -> ResultTx | None:
    """A transaction by hash, as the node's ``tx`` gives it; None if it has none. With
    several URLs, every node is asked before saying none has it (a broadcast whose
    answer was lost may have reached another node first)."""
    ask = rpc.tx(tx_id)
    try:
        return reader.rpc.ask(ask, timeout=timeout)
    except UnknownTx:
        pass
    found = reader.transport.elsewhere(ask.call, timeout)
    return None if found is None else ask.value(reader.redacted, found)


def transaction_or_none(reader: NodeReader, tx_id: str, timeout: float) -> ResultTx | None:
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
    raw, height, result = found.tx, found.height, found.tx_result
    if base64.b64encode(hashlib.sha256(raw).digest()).decode() != tx_hash:
        raise Unreachable(f"{reader.redacted} answered tx {tx_hash} with another transaction")
    error = answers.refusal(result.error, result.log) if result.refused else ""
    values = [value for value, _ in results.call_values(result.data.decode("utf-8", "replace"))]
    paid = [] if error else transfers(reader.realm_path, result.events)
    try:
        tx: Tx | None = decode_tx(raw)
    except (DecodeError, UnicodeDecodeError):
        tx = None  # bytes the node took but c4 cannot read: shown without them
    if reader.verifier is not None:
        try:
            held = block_holding(reader, height, raw)
            assert held.proven is not None
            proven = reader.verifier.result(held.proven, held.place, result)
        except Unverified as unverified:
            raise Unverified(f"{unverified}: transaction {tx_hash} is not believed") from None
        moment = proven.time
    else:
        proven, moment = None, reader.block_time(height)
    doc = node_tx(tx_hash, height, format_time(moment), result, (values, paid, error), tx)
    with_proof(doc, proven, reader.unproven)
    return doc, raw


def node_tx(
    tx_hash: str,
    height: int,
    time: str,
    result: ResponseDeliverTx,
    outcome: tuple[list[str], list[tuple[str, int]], str],
    tx: Tx | None,
) -> ListedTx:
    """A transaction as a node's ``tx`` answer gives it (its ``result``; its call's
    values, its payouts and its refusal's words, "" if none, in ``outcome``), its
    signer and calls read from the transaction itself (``tx``, decoded from its bytes;
    None when they do not decode)."""
    values, paid, error = outcome
    doc: ListedTx = {
        "hash": tx_hash,
        "height": height,
        "time": time,
        "tx_status": REFUSED if error else LANDED,
        "ok": not error,
        "error": error or None,
        "signer": None,
        "func": None,
        "args": None,
        "send": None,
        "to": None,
        "result": values,
        "transfers": [{"to": to, "amount": f"{amount}ugnot"} for to, amount in paid],
        "gas_wanted": result.gas_wanted,
        "gas_used": result.gas_used,
        "gas_fee": None,
    }
    doc["tx"] = None if tx is None else tx.to_json()
    if tx is not None and tx.msgs:
        said = messages(tx)
        doc["func"], doc["args"] = said["func"], said["args"]
        doc["send"], doc["to"] = said["send"], said["to"]
        doc["gas_fee"] = fee_of(tx)[1]
        # A message kind c4 does not send (addpkg, run) keeps its signer in its bytes.
        with contextlib.suppress(ValueError):
            doc["signer"] = tx.signer
    return doc


class Held(NamedTuple):
    """A block seen to hold a transaction: its time, what came for the reads asked with
    it, and its header's proof (None where the node's word is taken)."""

    time: int
    found: list[ResultABCIQuery | Unreachable]
    proven: Proven | None
    place: int  # the transaction's index in the block


def block_holding(
    reader: NodeReader,
    height: int,
    raw: bytes,
    reads: Sequence[Query] = (),
    block: ResultBlock | None = None,
    commit: ResultCommit | None = None,
) -> Held:
    """Block ``height``, once it is seen to hold ``raw`` (a broadcast's answer is believed
    only if the block it names has the transaction in it) and, where blocks are
    verified, proven by its validators' signatures (else Unverified: not believed).

    ``block`` (and ``commit``) are that block's answers if they came already; else
    they are asked for, with ``reads`` (queries as (path, data)) at the last block in
    the same request."""
    found: list[ResultABCIQuery | Unreachable] = []
    if block is None:
        block, commit, found = reader.block_with(height, reads)
    txs = block.block.txs
    if raw not in txs:
        raise Unreachable(
            f"{reader.redacted} said the transaction is in block {height}, "
            "but that block does not hold it"
        )
    header = block.block.header
    if header.height != height:
        raise Unreachable(f"{reader.redacted} answered block {height} with another block")
    if reader.verifier is not None:
        proven = reader.verifier.block(block, commit)
        return Held(proven.time, found, proven, txs.index(raw))
    return Held(header.time.seconds, found, None, txs.index(raw))


def transfers(realm_path: str, events: Sequence[Event]) -> list[tuple[str, int]]:
    """Who was paid what, from the bank's transfer events: everything but the coins sent
    into the realm (stakes), as the local chain's receipts list payouts."""
    realm = package_address(realm_path)
    return [
        (event.receiver, ugnot_in(event.coins))
        for event in events
        if isinstance(event, TransferEvent) and event.receiver != realm
    ]

"""tm2 v1.7.1's values filled from the log: what ``c4 serve`` answers.

Every answer of `c4 serve` is one of the wire's values (:mod:`c4cli.wire.blocks`,
:mod:`c4cli.wire.abci`, :mod:`c4cli.wire.rpc`), built here from what the local chain
records and written by the value itself in the field order and encodings gnoland
writes: the node client reads the same values from the same JSON.

What a chain in a folder does not have is left empty in tm2's own zero values, never
made up: no validators, so no commit (``last_commit_hash``, ``validators_hash`` and
the proposer are empty) and no parts (a block here is never gossiped); no app hash
(the state is the log replayed; the block hash chains the log). The block hash is the
log's own (sha256 of the block's canonical JSON), and ``data_hash`` is tm2's: the
simple Merkle root of the block's transactions' hashes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from c4cli.address import encode_address
from c4cli.chain.clock import parse_time
from c4cli.chain.interface import TxOutcome
from c4cli.local.log import BlockRecord
from c4cli.wire.abci import STRING_ERROR, AbciError, ResponseDeliverTx
from c4cli.wire.blocks import Block, BlockID, BlockMeta, Commit, Header, Time
from c4cli.wire.events import event_from_json
from c4cli.wire.merkle import txs_root
from c4cli.wire.std import Tx, encode_tx

TM2_VERSION = "v1.0.0-rc.0"  # the block protocol version gnoland v1.7.1 reports
ZERO_ADDRESS = encode_address(bytes(20))


def record_time(record: BlockRecord) -> Time:
    return Time(parse_time(str(record["time"])))


def block_id(hash_hex: str | None) -> BlockID:
    return BlockID(bytes.fromhex(hash_hex) if hash_hex else b"")


def tx_bytes(record: BlockRecord) -> list[bytes]:
    return [encode_tx(Tx.from_json(entry["tx"])) for entry in record.get("txs", [])]


def header(
    record: BlockRecord, chain_id: str, total_txs: int, raw: Sequence[bytes] | None = None
) -> Header:
    """A block's header; ``total_txs`` counts the transactions up to and with it, ``raw``
    is the block's transactions' bytes when the caller has them already."""
    raw = tx_bytes(record) if raw is None else raw
    height = int(record["height"])
    return Header(
        version=TM2_VERSION,
        chain_id=chain_id,
        height=height,
        time=record_time(record),
        num_txs=len(raw),
        total_txs=total_txs,
        app_version="",
        last_block_id=block_id(str(record["prev_hash"]) if height > 1 else None),
        last_commit_hash=b"",
        data_hash=txs_root(list(raw)) or b"",
        validators_hash=b"",
        next_validators_hash=b"",
        consensus_hash=b"",
        app_hash=b"",
        last_results_hash=b"",
        proposer_address=ZERO_ADDRESS,
    )


def block_meta(
    record: BlockRecord, chain_id: str, total_txs: int, raw: Sequence[bytes] | None = None
) -> BlockMeta:
    return BlockMeta(block_id(str(record["hash"])), header(record, chain_id, total_txs, raw))


def block(record: BlockRecord, chain_id: str, total_txs: int) -> tuple[BlockMeta, Block]:
    """The ``block`` method's meta and block."""
    raw = tx_bytes(record)
    meta = block_meta(record, chain_id, total_txs, raw)
    return meta, Block(meta.header, tuple(raw), Commit(BlockID(), ()))


def delivered(tx: Tx, outcome: Mapping[str, Any]) -> ResponseDeliverTx:
    """A landed transaction's deliver result (``deliver_tx``, ``tx_result``) from the
    outcome the log keeps (its data, and its events in amino JSON)."""
    logs = "\n".join(f"msg:{i},success:true,log:,events:[]" for i in range(len(tx.msgs)))
    return ResponseDeliverTx(
        data=str(outcome.get("data", "")).encode(),
        events=tuple(event_from_json(event) for event in outcome.get("events", [])),
        log=logs,
        gas_wanted=tx.fee.gas_wanted,
    )


def delivered_now(tx: Tx, outcome: TxOutcome) -> ResponseDeliverTx:
    """The deliver result of a transaction just run, from its receipt's outcome (the
    same data and events the log's outcome keeps)."""
    return delivered(tx, {"data": outcome.data, "events": list(outcome.events)})


def refusal_error(text: str, kind: str) -> AbciError:
    """A refusal's error as tm2 types it: the kind the chain gave it where it has one (a
    signature, an unknown account, funds, a package path; tm2's error structs are
    empty: the words are in the log), else the realm's panic text."""
    return AbciError(kind) if kind else AbciError(STRING_ERROR, text)


def refused(text: str, kind: str, gas_wanted: int = 0) -> ResponseDeliverTx:
    """The result of a transaction the local chain refused (and never appended)."""
    return ResponseDeliverTx(error=refusal_error(text, kind), log=text, gas_wanted=gas_wanted)


def checked(tx: Tx) -> ResponseDeliverTx:
    """A transaction's check, passed (the local chain runs it in its block)."""
    return ResponseDeliverTx(gas_wanted=tx.fee.gas_wanted)

"""tm2 v1.7.1's JSON (and, for a simulation, amino binary) shapes, filled from the log.

Every answer of `c4 serve` is built here from what the local chain records, in the
field order and encodings gnoland writes: int64 as decimal strings, bytes as base64,
times as amino writes them (RFC 3339, nanoseconds with trailing zeros trimmed by
threes), empty slices as ``null``.

What a chain in a folder does not have is left empty in tm2's own zero values, never
made up: no validators, so no commit (``last_commit_hash``, ``validators_hash`` and
the proposer are empty) and no parts (a block here is never gossiped); no app hash
(the state is the log replayed; the block hash chains the log). The block hash is the
log's own (sha256 of the block's canonical JSON), and ``data_hash`` is tm2's: the
simple Merkle root of the block's transactions' hashes.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from c4cli.address import encode_address
from c4cli.chain.clock import parse_time
from c4cli.chain.interface import TxOutcome
from c4cli.local.log import BlockRecord
from c4cli.wire.amino import encode_tx
from c4cli.wire.merkle import txs_root
from c4cli.wire.msgs import Tx
from c4cli.wire.protowire import VARINT, bytes_field, encode_varint, field_key, zigzag

TM2_VERSION = "v1.0.0-rc.0"  # the block protocol version gnoland v1.7.1 reports
ZERO_ADDRESS = encode_address(bytes(20))
ZERO_PARTS = {"total": "0", "hash": None}
STRING_ERROR = "/abci.StringError"


def b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data else None


def amino_time(unix: int) -> str:
    """A block time as amino JSON writes it: whole seconds carry no fraction."""
    return datetime.fromtimestamp(unix, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def record_time(record: BlockRecord) -> int:
    return parse_time(str(record["time"]))


def block_id(hash_hex: str | None) -> dict[str, Any]:
    return {"hash": b64(bytes.fromhex(hash_hex)) if hash_hex else None, "parts": ZERO_PARTS}


def tx_bytes(record: BlockRecord) -> list[bytes]:
    return [encode_tx(entry["tx"]) for entry in record.get("txs", [])]


def header(
    record: BlockRecord, chain_id: str, total_txs: int, raw: list[bytes] | None = None
) -> dict[str, Any]:
    """A block's header; ``total_txs`` counts the transactions up to and with it, ``raw``
    is the block's transactions' bytes when the caller has them already."""
    raw = tx_bytes(record) if raw is None else raw
    height = int(record["height"])
    return {
        "version": TM2_VERSION,
        "chain_id": chain_id,
        "height": str(height),
        "time": amino_time(record_time(record)),
        "num_txs": str(len(raw)),
        "total_txs": str(total_txs),
        "app_version": "",
        "last_block_id": block_id(str(record["prev_hash"]) if height > 1 else None),
        "last_commit_hash": None,
        "data_hash": b64(txs_root(raw)),
        "validators_hash": None,
        "next_validators_hash": None,
        "consensus_hash": None,
        "app_hash": None,
        "last_results_hash": None,
        "proposer_address": ZERO_ADDRESS,
    }


def block_meta(
    record: BlockRecord, chain_id: str, total_txs: int, raw: list[bytes] | None = None
) -> dict[str, Any]:
    return {
        "block_id": block_id(str(record["hash"])),
        "header": header(record, chain_id, total_txs, raw),
    }


def block(record: BlockRecord, chain_id: str, total_txs: int) -> dict[str, Any]:
    """The ``block`` method's result."""
    raw = tx_bytes(record)
    meta = block_meta(record, chain_id, total_txs, raw)
    data = [b64(tx) for tx in raw]
    empty_commit = {"block_id": block_id(None), "precommits": None}
    return {
        "block_meta": meta,
        "block": {
            "header": meta["header"],
            "data": {"txs": data or None},
            "last_commit": empty_commit,
        },
    }


def base(
    *, error: Any = None, data: str = "", events: list[Any] | None = None, log: str = ""
) -> dict[str, Any]:
    return {
        "Error": error,
        "Data": b64(data.encode()),
        "Events": events or None,
        "Log": log,
        "Info": "",
    }


def delivered(tx: Tx, outcome: dict[str, Any]) -> dict[str, Any]:
    """A landed transaction's deliver result (``deliver_tx``, ``tx_result``)."""
    logs = "\n".join(f"msg:{i},success:true,log:,events:[]" for i in range(len(tx["msg"])))
    return {
        "ResponseBase": base(
            data=str(outcome.get("data", "")), events=list(outcome.get("events", [])), log=logs
        ),
        "GasWanted": str(tx["fee"]["gas_wanted"]),
        "GasUsed": "0",
    }


def delivered_now(tx: Tx, outcome: TxOutcome) -> dict[str, Any]:
    """The deliver result of a transaction just run, from its receipt's outcome (the
    same data and events the log's outcome keeps)."""
    return delivered(tx, {"data": outcome.data, "events": list(outcome.events)})


def refusal_error(text: str, kind: str) -> dict[str, Any]:
    """A refusal's ``Error`` as tm2 types it: the kind the chain gave it where it has
    one (a signature, an unknown account, funds, a package path), else the realm's
    panic text."""
    if kind:
        return {"@type": kind}  # tm2's error structs are empty: the words are in Log
    return {"@type": STRING_ERROR, "value": text}


def refused(text: str, kind: str, gas_wanted: object = 0) -> dict[str, Any]:
    """The result of a transaction the local chain refused (and never appended)."""
    return {
        "ResponseBase": base(error=refusal_error(text, kind), log=text),
        "GasWanted": str(gas_wanted),
        "GasUsed": "0",
    }


def empty_result() -> dict[str, Any]:
    return {"ResponseBase": base(), "GasWanted": "0", "GasUsed": "0"}


# -- amino binary: a simulation's ResponseDeliverTx, as ``.app/simulate`` returns it -----


def deliver_binary(result: dict[str, Any]) -> bytes:
    """The amino binary of a deliver result given in this module's JSON shape."""
    body = result["ResponseBase"]
    inner = b""
    error = body.get("Error")
    if error is not None:
        kind = str(error["@type"])
        value = error.get("value")  # tm2's error structs have none
        payload = bytes_field(1, value.encode()) if isinstance(value, str) and value else b""
        inner += bytes_field(1, _any(kind, payload))
    if body.get("Data"):
        inner += bytes_field(2, base64.b64decode(body["Data"]))
    for event in body.get("Events") or []:
        inner += bytes_field(3, _event_binary(event))
    if body.get("Log"):
        inner += bytes_field(4, str(body["Log"]).encode())
    out = bytes_field(1, inner) if inner else b""
    for number, name in ((2, "GasWanted"), (3, "GasUsed")):
        value = int(result.get(name) or 0)
        if value:
            out += field_key(number, VARINT) + encode_varint(zigzag(value))
    return out


def _event_binary(event: dict[str, Any]) -> bytes:
    """A bank transfer event as an amino ``Any`` (from 1, to 2, coins 3: strings)."""
    fields = b"".join(
        bytes_field(number, str(event[name]).encode())
        for number, name in ((1, "from"), (2, "to"), (3, "coins"))
        if event.get(name)
    )
    return _any(str(event["@type"]), fields)


def _any(type_url: str, value: bytes) -> bytes:
    """An amino ``Any``; an empty value (an error struct without fields) left out."""
    return bytes_field(1, type_url.encode()) + (bytes_field(2, value) if value else b"")

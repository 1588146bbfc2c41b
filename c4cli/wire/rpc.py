"""tm2's RPC: its methods' names, and its results as values.

gnoland v1.7.1's RPC (``tm2/pkg/bft/rpc/core``) answers each method with a result
whose JSON is amino's; each is a value here, read from that JSON (:meth:`from_json`,
a KeyError, TypeError or ValueError for a shape a node never sends) and written back
(:meth:`to_json`) in gnoland's field order. ``c4 serve`` writes them; the node
client's typed RPC (:mod:`c4cli.node.net.rpc`) reads them. A method is named here and
nowhere else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from c4cli.jsonvalue import Document
from c4cli.wire.abci import ResponseDeliverTx, ResponseQuery
from c4cli.wire.blocks import (
    Block,
    BlockMeta,
    Commit,
    Header,
    Time,
    Validator,
)
from c4cli.wire.fields import b64, int64, items, mapping, raw, text


class Method(StrEnum):
    """The RPC methods c4 asks and serves, as tm2 names them."""

    HEALTH = "health"
    STATUS = "status"
    ABCI_INFO = "abci_info"
    ABCI_QUERY = "abci_query"
    BLOCK = "block"
    BLOCKCHAIN = "blockchain"
    BLOCK_RESULTS = "block_results"
    COMMIT = "commit"
    VALIDATORS = "validators"
    CONSENSUS_PARAMS = "consensus_params"
    TX = "tx"
    NET_INFO = "net_info"
    GENESIS = "genesis"
    NUM_UNCONFIRMED_TXS = "num_unconfirmed_txs"
    UNCONFIRMED_TXS = "unconfirmed_txs"
    BROADCAST_TX_ASYNC = "broadcast_tx_async"
    BROADCAST_TX_SYNC = "broadcast_tx_sync"
    BROADCAST_TX_COMMIT = "broadcast_tx_commit"


class ResultStatus(NamedTuple):
    """A ``status`` answer: the node's chain and software, its last block, whether it
    is still catching up, and (c4 serve's own) the address it serves at."""

    network: str
    latest_block_height: int
    latest_block_time: Time
    catching_up: bool
    latest_block_hash: bytes = b""
    latest_app_hash: bytes = b""
    software: str = ""
    version: str = ""
    moniker: str = ""
    rpc_address: str = ""
    validator_address: str = ""

    @classmethod
    def from_json(cls, value: object) -> ResultStatus:
        found = mapping(value)
        info, sync = mapping(found["node_info"]), mapping(found["sync_info"])
        height = text(str(sync["latest_block_height"]))
        if not height.isdigit() or len(height) > 18:
            raise ValueError("a height")
        when = sync.get("latest_block_time")
        return cls(
            network=text(info["network"]),
            latest_block_height=int(height),
            latest_block_time=Time.from_json(when) if when else Time(0),
            catching_up=sync.get("catching_up") is True,
            latest_block_hash=raw(sync.get("latest_block_hash")),
            latest_app_hash=raw(sync.get("latest_app_hash")),
            software=str(info.get("software") or ""),
            version=str(info.get("version") or ""),
            moniker=str(info.get("moniker") or ""),
            rpc_address=str(mapping(info.get("other")).get("rpc_address") or ""),
            validator_address=str(mapping(found.get("validator_info")).get("address") or ""),
        )

    def to_json(self) -> Document:
        return {
            "node_info": {
                "version_set": None,
                "net_address": "",
                "network": self.network,
                "software": self.software,
                "version": self.version,
                "channels": None,
                "moniker": self.moniker,
                "other": {"tx_index": "on", "rpc_address": self.rpc_address},
            },
            "sync_info": {
                "latest_block_hash": b64(self.latest_block_hash),
                "latest_app_hash": b64(self.latest_app_hash),
                "latest_block_height": str(self.latest_block_height),
                "latest_block_time": self.latest_block_time.to_json(),
                "catching_up": self.catching_up,
            },
            "validator_info": {
                "address": self.validator_address,
                "pub_key": None,
                "voting_power": "0",
            },
            "build_version": self.version,
        }


class ResultBlock(NamedTuple):
    """A ``block`` answer: the block, and its meta (its id; None where a node left it
    out: the header proves itself by its commit)."""

    block_meta: BlockMeta | None
    block: Block

    @classmethod
    def from_json(cls, value: object) -> ResultBlock:
        found = mapping(value)
        meta = found.get("block_meta")
        return cls(BlockMeta.from_json(meta) if meta else None, Block.from_json(found["block"]))

    def to_json(self) -> Document:
        meta = None if self.block_meta is None else self.block_meta.to_json()
        return {"block_meta": meta, "block": self.block.to_json()}


class ResultBlockchain(NamedTuple):
    last_height: int
    block_metas: tuple[BlockMeta, ...]

    @classmethod
    def from_json(cls, value: object) -> ResultBlockchain:
        found = mapping(value)
        metas = items(found["block_metas"], "block_metas")
        return cls(
            int64(found.get("last_height") or 0), tuple(BlockMeta.from_json(m) for m in metas)
        )

    def to_json(self) -> Document:
        return {
            "last_height": str(self.last_height),
            "block_metas": [meta.to_json() for meta in self.block_metas],
        }


class ResultCommit(NamedTuple):
    """A ``commit`` answer: a header and the commit that signed it."""

    header: Header
    commit: Commit
    canonical: bool = True

    @classmethod
    def from_json(cls, value: object) -> ResultCommit:
        found = mapping(value)
        inner = mapping(found["signed_header"])
        return cls(
            Header.from_json(inner["header"]),
            Commit.from_json(inner["commit"]),
            found.get("canonical") is not False,
        )

    def to_json(self) -> Document:
        signed = {"header": self.header.to_json(), "commit": self.commit.to_json()}
        return {"signed_header": signed, "canonical": self.canonical}


class ResultValidators(NamedTuple):
    block_height: int
    validators: tuple[Validator, ...]

    @classmethod
    def from_json(cls, value: object) -> ResultValidators:
        found = mapping(value)
        rows = items(found["validators"], "validators")
        return cls(
            int64(found.get("block_height") or 0), tuple(Validator.from_json(v) for v in rows)
        )

    def to_json(self) -> Document:
        rows = [v.to_json() for v in self.validators]
        return {"block_height": str(self.block_height), "validators": rows or None}


class ResultBlockResults(NamedTuple):
    """A ``block_results`` answer: each transaction's result, in the block's order."""

    height: int
    deliver_tx: tuple[ResponseDeliverTx, ...]

    @classmethod
    def from_json(cls, value: object) -> ResultBlockResults:
        found = mapping(value)
        results = items(mapping(found["results"])["deliver_tx"] or [], "deliver_tx")
        return cls(
            int64(found.get("height") or 0),
            tuple(ResponseDeliverTx.from_json(r) for r in results),
        )

    def to_json(self) -> Document:
        empty = ResponseDeliverTx().base_json()
        return {
            "height": str(self.height),
            "results": {
                "deliver_tx": [r.to_json() for r in self.deliver_tx] or None,
                "end_block": {
                    "ResponseBase": empty,
                    "ValidatorUpdates": None,
                    "ConsensusParams": None,
                    "Events": None,
                },
                "begin_block": {"ResponseBase": empty},
            },
        }


class ResultTx(NamedTuple):
    """A ``tx`` answer: the transaction's hash, block, place in it (tm2's ``index``: a
    tuple's own ``index`` keeps its name), result and bytes."""

    hash: bytes
    height: int
    place: int
    tx_result: ResponseDeliverTx
    tx: bytes

    @classmethod
    def from_json(cls, value: object) -> ResultTx:
        found = mapping(value)
        index = found.get("index") or 0
        if isinstance(index, bool) or not isinstance(index, int | str):
            raise TypeError("index")
        return cls(
            raw(found.get("hash")),
            int64(found["height"]),
            int(index),
            ResponseDeliverTx.from_json(found["tx_result"]),
            raw(found["tx"]),
        )

    def to_json(self) -> Document:
        return {
            "hash": b64(self.hash),
            "height": str(self.height),
            "index": self.place,
            "tx_result": self.tx_result.to_json(),
            "tx": b64(self.tx),
        }


class ResultBroadcastTx(NamedTuple):
    """A ``broadcast_tx_sync`` (or ``async``) answer: the mempool's check, and the hash."""

    check: ResponseDeliverTx
    hash: bytes

    @classmethod
    def from_json(cls, value: object) -> ResultBroadcastTx:
        found = mapping(value)
        error = found.get("error")
        check = ResponseDeliverTx.from_json(
            {"Error": error, "Data": found.get("data"), "Log": found.get("log")}
        )
        return cls(check, raw(found.get("hash")))

    def to_json(self) -> Document:
        said = self.check.base_json()
        return {
            "error": said["Error"],
            "data": said["Data"],
            "log": said["Log"],
            "hash": b64(self.hash),
        }


class ResultBroadcastTxCommit(NamedTuple):
    """A ``broadcast_tx_commit`` answer: the check, the result in its block, the hash,
    and the block's height (0 when the check refused it)."""

    check_tx: ResponseDeliverTx
    deliver_tx: ResponseDeliverTx
    hash: bytes
    height: int

    @classmethod
    def from_json(cls, value: object) -> ResultBroadcastTxCommit:
        found = mapping(value)
        return cls(
            ResponseDeliverTx.from_json(found["check_tx"]),
            ResponseDeliverTx.from_json(found.get("deliver_tx")),
            raw(found.get("hash")),
            int64(found.get("height") or 0),
        )

    def to_json(self) -> Document:
        return {
            "check_tx": self.check_tx.to_json(),
            "deliver_tx": self.deliver_tx.to_json(),
            "hash": b64(self.hash),
            "height": str(self.height),
        }


class ResultABCIQuery(NamedTuple):
    response: ResponseQuery

    @classmethod
    def from_json(cls, value: object) -> ResultABCIQuery:
        return cls(ResponseQuery.from_json(mapping(value)["response"]))

    def to_json(self) -> Document:
        return {"response": self.response.to_json()}

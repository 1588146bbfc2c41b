"""tm2's RPC methods answered from a home's local chain, and c4's own (snapshots, time).

Each method takes its parameters as tm2 decodes them from JSON (int64 as strings or
numbers, bytes as base64) and returns the ``result`` gnoland v1.7.1 gives, or raises
:class:`RpcError` with the code and words tm2 uses. A method opens the chain afresh
(as every c4 command does), so a c4 command run beside the server (an append, a
`c4 time advance`, a `c4 revert`) is seen by the next request; the server's own
requests take turns (one lock) and the log's lock orders them with everyone else's.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from c4cli import __version__
from c4cli.errors import BadInput, C4Error, NodeOnly, Refused
from c4cli.local.chain import LocalChain
from c4cli.local.log import BlockRecord
from c4cli.serve import cheats, shapes
from c4cli.serve.broadcast import TX_DECODE_ERROR, Broadcaster, Delivered, Exists, TimedOut
from c4cli.wire.abci import AbciError, ResponseDeliverTx, ResponseQuery
from c4cli.wire.blocks import Time
from c4cli.wire.rpc import (
    ResultABCIQuery,
    ResultBlock,
    ResultBlockchain,
    ResultBlockResults,
    ResultBroadcastTx,
    ResultBroadcastTxCommit,
    ResultStatus,
    ResultTx,
)
from c4cli.wire.std import DecodeError, Tx, decode_tx, encode_tx

APP_SIMULATE = ".app/simulate"
GAS_PRICE = "auth/gasprice"
# gnoland's initial gas price (1ugnot a 1000 gas): what a client that picks its fee
# from the price reads; the local chain takes any fee and meters no gas.
GAS_PRICE_JSON = '{\n  "gas": "1000",\n  "price": "1ugnot"\n}'
MAX_GAS = 3_000_000_000  # gnoland's consensus default: what gnokey simulates with
BLOCKCHAIN_LIMIT = 20  # block metas one ``blockchain`` answer holds, as tm2


class RpcError(Exception):
    """A JSON-RPC error: tm2's code and message, and what went wrong (``data``)."""

    def __init__(self, code: int, message: str, data: str | None = None) -> None:
        super().__init__(data or message)
        self.code, self.message, self.data = code, message, data


def invalid_params(data: str) -> RpcError:
    return RpcError(-32602, "Invalid params", data)


def internal(data: str) -> RpcError:
    return RpcError(-32603, "Internal error", data)


# Each method's parameters in tm2's order (the URI form's names; a positional array).
PARAMS: dict[str, tuple[str, ...]] = {
    "abci_info": (),
    "abci_query": ("path", "data", "height", "prove"),
    "block": ("height",),
    "block_results": ("height",),
    "blockchain": ("minHeight", "maxHeight"),
    "broadcast_tx_async": ("tx",),
    "broadcast_tx_commit": ("tx",),
    "broadcast_tx_sync": ("tx",),
    "consensus_params": ("height",),
    "health": (),
    "net_info": (),
    "num_unconfirmed_txs": (),
    "status": ("heightGte",),
    "tx": ("hash",),
    "unconfirmed_txs": ("limit",),
    "validators": ("height",),
    "c4_snapshot": (),
    "c4_revert": ("id",),
    "c4_advanceTime": ("seconds",),
    **cheats.PARAMS,
}


def param_bytes(params: dict[str, Any], name: str) -> bytes:
    value = params.get(name)
    if value is None:
        return b""
    if not isinstance(value, str):
        raise invalid_params(f"json: cannot unmarshal {type(value).__name__} into []byte")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
        # Go's index: the first byte not of the alphabet, else where the unfinished
        # four-character group begins.
        ends = len(value) - len(value) % 4
        bad = next((i for i, c in enumerate(value.encode()) if c not in alphabet), ends)
        raise invalid_params(f"illegal base64 data at input byte {bad}") from None


def param_int(params: dict[str, Any], name: str) -> int:
    """An int64 parameter (amino JSON: a decimal string, or a number); 0 when absent."""
    value = params.get(name)
    if value is None or value == "":
        return 0
    text = str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""
    digits = text.lstrip("-")
    if not digits.isdigit() or len(digits) > 19 or not -(2**63) <= int(text) < 2**63:
        # Go's words for a value that is no number
        first = (text or json.dumps(value))[:1]
        raise invalid_params(f"invalid character {first!r} looking for beginning of value")
    return int(text)


class Stops(Protocol):
    def stop(self) -> None: ...


class Answers(Protocol):
    """What the server serves: a home's chain (:class:`Methods`) or a node's, proven
    (``c4cli.gateway``)."""

    @property
    def broadcaster(self) -> Stops: ...

    @property
    def params(self) -> Mapping[str, tuple[str, ...]]:
        """Each method served, and the names of its parameters in their order."""
        ...

    def call(self, method: str, params: dict[str, Any]) -> Any: ...


class Methods:
    """The RPC methods of one home's chain, as ``c4 serve`` answers them."""

    def __init__(self, home: Path, listen: str, block_time: float = 0) -> None:
        self.home = home
        self.listen = listen
        self.params = PARAMS
        self.lock = threading.Lock()
        self.broadcaster = Broadcaster(home, self.lock, block_time)
        self.impersonated: set[str] = set()  # c4_impersonate's, while the server runs
        self.broadcaster.impersonated = self.impersonated
        self.table: dict[str, Callable[[dict[str, Any]], Any]] = {
            name: getattr(self, "m_" + name) for name in PARAMS if name not in cheats.METHODS
        }
        for name, method in cheats.METHODS.items():
            self.table[name] = functools.partial(method, self)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        handler = self.table[method]
        try:
            if method.startswith("broadcast_"):  # it takes the lock itself, and may wait
                return handler(params)
            with self.lock:
                return handler(params)
        except BadInput as exc:
            if method in cheats.METHODS:  # a cheat's parameters: the caller's
                raise invalid_params(str(exc)) from None
            raise internal(str(exc)) from None
        except C4Error as exc:  # a query's or a snapshot's words; a home that cannot be read
            raise internal(str(exc)) from None

    def chain(self) -> LocalChain:
        chain = LocalChain(self.home)
        chain.require()
        return chain

    # -- the node ---------------------------------------------------------------------

    def m_health(self, params: dict[str, Any]) -> Any:
        self.chain()
        return {}

    def m_status(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        head, last = chain.head(), chain.snapshot()
        return ResultStatus(
            network=chain.chain_id,
            latest_block_height=head.height,
            latest_block_time=Time(head.time),
            catching_up=False,
            latest_block_hash=bytes.fromhex(last.hash) if head.height else b"",
            software="c4 serve",
            version=__version__,
            moniker="c4",
            rpc_address=f"tcp://{self.listen}",
            validator_address=shapes.ZERO_ADDRESS,
        ).to_json()

    def m_abci_info(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        return {
            "response": {
                "ResponseBase": ResponseDeliverTx(data=b"c4").base_json(),
                "ABCIVersion": "",
                "AppVersion": "",
                "LastBlockHeight": str(chain.head().height),
                "LastBlockAppHash": None,
            }
        }

    def m_net_info(self, params: dict[str, Any]) -> Any:
        return {"listening": True, "listeners": [], "n_peers": "0", "peers": []}

    def m_num_unconfirmed_txs(self, params: dict[str, Any]) -> Any:
        # Every transaction is a block of its own the moment it arrives: none wait.
        return {"n_txs": "0", "total": "0", "total_bytes": "0", "txs": None}

    def m_unconfirmed_txs(self, params: dict[str, Any]) -> Any:
        return self.m_num_unconfirmed_txs(params)

    def m_validators(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        height = self._height(chain, params, block=False)
        return {"block_height": str(height), "validators": None}

    def m_consensus_params(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        height = self._height(chain, params, block=False)
        block = {
            "MaxTxBytes": "1000000",
            "MaxDataBytes": "2000000",
            "MaxBlockBytes": "0",
            "MaxGas": str(MAX_GAS),
            "TimeIotaMS": "100",
        }
        return {
            "block_height": str(height),
            "consensus_params": {
                "Block": block,
                "Validator": {"PubKeyTypeURLs": ["/tm.PubKeyEd25519"]},
            },
        }

    # -- blocks -----------------------------------------------------------------------

    def _height(self, chain: LocalChain, params: dict[str, Any], *, block: bool = True) -> int:
        """The height asked for (the last when none), held to tm2's bounds; a chain's
        parameters (``block`` False) are those of genesis before the first block."""
        top = chain.head().height
        height = param_int(params, "height") or top
        if height < 0 or (height == 0 and block):
            raise internal("height must be greater than 0")
        if height > top:
            raise internal("height must be less than or equal to the current blockchain height")
        return height

    def _records(self, chain: LocalChain, first: int, last: int) -> list[tuple[BlockRecord, int]]:
        """Blocks ``first`` to ``last``, each with the transactions up to and with it."""
        total, out = chain.transactions_through(first - 1), []
        for block in chain.blocks(first, last):
            total += len(block.record.get("txs", []))
            out.append((block.record, total))
        return out

    def m_block(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        height = self._height(chain, params)
        ((record, total),) = self._records(chain, height, height)
        return ResultBlock(*shapes.block(record, chain.chain_id, total)).to_json()

    def m_blockchain(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        top = chain.head().height
        low, high = param_int(params, "minHeight"), param_int(params, "maxHeight")
        high = top if high == 0 else min(high, top)
        low = max(1, high - BLOCKCHAIN_LIMIT + 1) if low == 0 else max(low, 1)
        if low > high:
            raise internal(f"min height {low} can't be greater than max height {high}")
        low = max(low, high - BLOCKCHAIN_LIMIT + 1)
        metas = tuple(
            shapes.block_meta(record, chain.chain_id, total)
            for record, total in reversed(self._records(chain, low, high))
        )
        return ResultBlockchain(top, metas).to_json()

    def m_block_results(self, params: dict[str, Any]) -> Any:
        chain = self.chain()
        height = self._height(chain, params)
        (block,) = chain.blocks(height, height)
        results = tuple(
            shapes.delivered(Tx.from_json(entry["tx"]), outcome)
            for entry, outcome in zip(block.record.get("txs", []), block.outcomes, strict=True)
        )
        return ResultBlockResults(height, results).to_json()

    def m_tx(self, params: dict[str, Any]) -> Any:
        wanted = param_bytes(params, "hash")
        text = base64.b64encode(wanted).decode()
        found = self.chain().find_tx(text) if len(wanted) == 32 else None
        if found is None:
            raise internal(f"Could not find tx result for hash #{wanted.hex().upper()}")
        record, index, outcome = found
        tx = Tx.from_json(record["txs"][index]["tx"])
        result = shapes.delivered(tx, outcome)
        return ResultTx(wanted, int(record["height"]), index, result, encode_tx(tx)).to_json()

    # -- queries ----------------------------------------------------------------------

    def m_abci_query(self, params: dict[str, Any]) -> Any:
        path = str(params.get("path") or "")
        data = param_bytes(params, "data")
        height = param_int(params, "height")
        chain = self.chain()
        if path == GAS_PRICE:
            response = ResponseQuery(data=GAS_PRICE_JSON.encode(), height=height)
        elif path == APP_SIMULATE:
            response = ResponseQuery(value=self._simulate(chain, data).amino(), height=height)
        else:
            try:
                answer = chain.query(path, data.decode("utf-8", "replace"), height=height)
            except NodeOnly as exc:
                error = AbciError("/std.UnknownRequestError")
                response = ResponseQuery(error, log=str(exc), height=height)
            except (Refused, BadInput) as exc:
                error = shapes.refusal_error(str(exc), getattr(exc, "kind", ""))
                response = ResponseQuery(error, log=str(exc), height=height)
            else:
                response = ResponseQuery(data=answer.data.encode(), height=height)
        return ResultABCIQuery(response).to_json()

    def _simulate(self, chain: LocalChain, raw: bytes) -> ResponseDeliverTx:
        try:
            tx = decode_tx(raw)
        except DecodeError:
            return ResponseDeliverTx(AbciError(TX_DECODE_ERROR))
        try:
            receipt = chain.broadcast(tx, unsigned=True)
        except Refused as exc:
            return shapes.refused(str(exc), exc.kind, tx.fee.gas_wanted)
        return shapes.delivered_now(tx, receipt.result)

    # -- transactions -----------------------------------------------------------------

    def _deliver(self, params: dict[str, Any], *, wait: bool) -> Delivered:
        try:
            return self.broadcaster.deliver(param_bytes(params, "tx"), wait=wait)
        except Exists:
            raise internal("tx already exists in cache") from None
        except TimedOut:
            raise internal("timed out waiting for tx to be included in a block") from None

    def m_broadcast_tx_commit(self, params: dict[str, Any]) -> Any:
        tx_hash, check, deliver, height = self._deliver(params, wait=True)
        return ResultBroadcastTxCommit(
            check, deliver or ResponseDeliverTx(), tx_hash, height
        ).to_json()

    def m_broadcast_tx_sync(self, params: dict[str, Any]) -> Any:
        tx_hash, check, _, _ = self._deliver(params, wait=False)
        return ResultBroadcastTx(check, tx_hash).to_json()

    def m_broadcast_tx_async(self, params: dict[str, Any]) -> Any:
        return self.m_broadcast_tx_sync(params)

    # -- c4's own: anvil's evm_snapshot, evm_revert, evm_increaseTime ------------------

    def m_c4_snapshot(self, params: dict[str, Any]) -> Any:
        snap = self.chain().snapshot()
        return {"id": snap.id, "height": str(snap.height), "hash": snap.hash}

    def m_c4_revert(self, params: dict[str, Any]) -> Any:
        ident = params.get("id")
        if not isinstance(ident, str):
            raise invalid_params("id: a snapshot id (HEIGHT:HASH) is needed")
        try:
            done = self.chain().revert(ident)
        except BadInput as exc:  # an id that is none, or of no block: the caller's
            raise invalid_params(str(exc)) from None
        return {
            "id": done.snapshot.id,
            "height": str(done.snapshot.height),
            "blocks_cut": str(done.blocks),
            "kept": str(done.kept),
        }

    def m_c4_advanceTime(self, params: dict[str, Any]) -> Any:
        seconds = param_int(params, "seconds")
        head = self.chain().advance(seconds)
        return {"height": str(head.height), "time": Time(head.time).to_json()}

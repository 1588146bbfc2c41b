"""`c4 serve --upstream URL`: gno.land's RPC, each answer proven by c4's light client
or marked as a node's word.

Every method is asked of the upstream node as its caller asked it, and its answer is
passed on as the node wrote it, once it is proven:

- blocks (``commit``, ``block``, ``blockchain``, ``validators``, ``block_results``):
  each header held to the validators the home trusts (node/light/verify.py), a
  block's transactions to its data hash, a set to its header's validators hash, a
  block's results to the next header's results hash; ``status``'s head is the last
  header proven (its height, hash, app hash and time put in where the node's differ);
- ``tx``: the transaction in its proven block, at its place, and its result held to
  the next header;
- ``abci_query`` (gateway/queries.py): an account, a balance and the gas price held
  to the main store's proven values (client/accounts.py), a store key's proof to the
  proven app hash, c4's realm (``vm/qeval`` of its accessors and variables, its
  ``vm/qrender`` pages) to the state it committed (client/proven.py), its
  ``vm/qfile`` and ``vm/qfuncs`` to its code proven;
- ``broadcast_tx_commit``: the node's answer once its block is proven to hold the
  transaction and the next header its result; a "committed" that no block proves is
  an error, never a success. ``broadcast_tx_sync`` and ``async`` are forwarded.

What no proof reaches (another realm's state, a simulation, ``net_info``, the
mempool…) is forwarded and marked: a line on stderr, and the ``X-C4-Unproven``
header of the answer naming it; with ``--strict`` it is refused with a JSON-RPC
error that says why. A forged answer is a JSON-RPC error naming what was forged,
logged; the next request is served, and with several upstream URLs the next node
is asked the same (a broadcast is sent once, to one node, and never again).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from c4cli.client import connect
from c4cli.errors import BadInput, C4Error, Unreachable, Unverified
from c4cli.gateway import queries
from c4cli.gateway.queries import height_of, param_bytes, read_answer
from c4cli.home.config import read_remote
from c4cli.node.light.verify import Verifier, results_committed
from c4cli.node.net import rpc
from c4cli.node.net.transport import NodeSaid, RpcCall
from c4cli.node.net.urls import split_urls
from c4cli.node.reader import NodeReader
from c4cli.serve.methods import PARAMS, RpcError
from c4cli.wire.abci import Unencodable
from c4cli.wire.blocks import validators_hash
from c4cli.wire.rpc import (
    Method,
    ResultBlock,
    ResultBlockchain,
    ResultBlockResults,
    ResultBroadcastTxCommit,
    ResultCommit,
    ResultTx,
    ResultValidators,
)

RESULT_WAIT = 10.0  # seconds a landed transaction's next block is awaited for its proof
FORGED = (-32603, "Internal error")
STRICT = (-32600, "Invalid Request")
# tm2's methods that carry nothing a header proves: passed on, marked.
UNPROVABLE = {
    "health": "the node's health is its own word",
    "net_info": "a node's peers are its own word",
    "genesis": "the genesis is the node's word (c4 trusts the validators, not the file)",
    "consensus_params": "the consensus parameters are the node's word",
    "num_unconfirmed_txs": "the mempool is the node's word",
    "unconfirmed_txs": "the mempool is the node's word",
    "abci_info": "the application's info is the node's word",
}


class Gateway:
    """The RPC methods of a node, proven (see the module), for c4's HTTP server."""

    def __init__(
        self, readers: list[NodeReader], *, strict: bool, say: Callable[[str], None]
    ) -> None:
        assert readers and all(r.verifier is not None for r in readers), "each one proves"
        self.readers = readers  # one an upstream URL: a node that lies is left for the next
        self._at = 0
        self.strict = strict
        self.say = say
        self.lock = threading.Lock()  # one node client: a request at a time
        self._marks = threading.local()
        self.code_held = False  # the realm's code proven c4's (it never changes)
        self.files: dict[str, str] | None = None  # its files, once proven
        self.broadcaster = _Nothing()  # the server stops it: a gateway pools nothing
        self.params = GATEWAY_PARAMS

    @property
    def reader(self) -> NodeReader:
        return self.readers[self._at]

    @property
    def verifier(self) -> Verifier:
        verifier = self.reader.verifier
        assert verifier is not None, "a gateway's readers prove"
        return verifier

    # -- the server's side ----------------------------------------------------------------

    def call(self, method: str, params: dict[str, Any]) -> Any:
        if method not in tm2_methods():
            raise RpcError(
                *STRICT, f"{method} is the local chain's: c4 serve --upstream serves a node's"
            )
        handler = getattr(self, "m_" + method, None)
        with self.lock:
            # A read that a node forged, or could not answer, is asked of the next; a
            # broadcast is sent once, to one node.
            tries = 1 if method.startswith("broadcast_") else len(self.readers)
            for left in range(tries - 1, -1, -1):
                try:
                    if handler is None:
                        return self.passed(method, params, UNPROVABLE.get(method, "not proven"))
                    return handler(params)
                except Unverified as lie:
                    self.say(f"c4 serve: refused {method} from {self.reader.redacted}: {lie}")
                    if not left:
                        raise RpcError(*FORGED, f"c4 refused the node's answer: {lie}") from None
                except NodeSaid as said:
                    raise RpcError(*FORGED, str(said)) from None
                except Unreachable as down:
                    if not left:
                        raise RpcError(*FORGED, f"c4: {down}") from None
                except C4Error as wrong:
                    raise RpcError(-32602, "Invalid params", str(wrong)) from None
                self._at = (self._at + 1) % len(self.readers)
                self.say(f"c4 serve: asking {self.reader.redacted} instead")
            raise AssertionError("the last try returns or raises")

    def take_marks(self) -> list[str]:
        """What the answers of this thread's last request did not prove (and clears it)."""
        found: list[str] = getattr(self._marks, "list", [])
        self._marks.list = []
        return found

    def mark(self, method: str, why: str) -> None:
        if self.strict:
            raise RpcError(*STRICT, f"--strict: {method} is not proven: {why}")
        self.say(f"c4 serve: {method} passed on unproven: {why}")
        self._marks.list = [*getattr(self._marks, "list", []), f"{method}: {why}"]

    def raw(self, method: str, params: dict[str, Any]) -> Any:
        return self.reader.transport.call(Method(method), params)

    def passed(self, method: str, params: dict[str, Any], why: str) -> Any:
        self.mark(method, why)
        return self.raw(method, params)

    # -- blocks ---------------------------------------------------------------------------

    def m_status(self, params: dict[str, Any]) -> Any:
        answer = self.raw("status", params)
        header = self.verifier.latest_header()
        sync = answer.get("sync_info") if isinstance(answer, dict) else None
        if not isinstance(sync, dict):
            raise Unverified("the node answered status in a shape it never has")
        own = header.hash() or b""
        sync.update(
            latest_block_hash=own.hex().upper(),
            latest_app_hash=header.app_hash.hex().upper(),
            latest_block_height=str(header.height),
            latest_block_time=header.time.to_json(),
        )
        return answer

    def m_commit(self, params: dict[str, Any]) -> Any:
        answer = self.raw("commit", params)
        signed = read_answer(ResultCommit.from_json, answer, "commit")
        asked = height_of(params)
        if asked and signed.header.height != asked:
            raise Unverified(f"the node answered block {signed.header.height}'s commit for {asked}")
        self.verifier.header(signed.header, signed.commit)
        return answer

    def m_block(self, params: dict[str, Any]) -> Any:
        answer = self.raw("block", params)
        found = read_answer(ResultBlock.from_json, answer, "block")
        self.verifier.block(found)
        meta = found.block_meta
        if meta is not None and meta.block_id.hash != found.block.header.hash():
            raise Unverified(f"block {found.block.header.height}: its meta names another block")
        return answer

    def m_blockchain(self, params: dict[str, Any]) -> Any:
        answer = self.raw("blockchain", params)
        metas = read_answer(ResultBlockchain.from_json, answer, "blockchain").block_metas
        asks = [rpc.commit(meta.header.height) for meta in metas]
        replies = self.verifier.rpc.batch(asks)
        for meta, ask in zip(metas, asks, strict=True):
            height = meta.header.height
            proven = self.verifier.signed_in(replies, ask, height)
            if meta.header.hash() != proven.hash() or meta.block_id.hash != proven.hash():
                raise Unverified(f"block {height}: the header listed is not the one signed")
        return answer

    def m_validators(self, params: dict[str, Any]) -> Any:
        answer = self.raw("validators", params)
        found = read_answer(ResultValidators.from_json, answer, "validators")
        header = self.verifier.proven_header(found.block_height)
        if validators_hash(found.validators) != header.validators_hash:
            raise Unverified(
                f"block {found.block_height}: the validator set given is not the one its "
                "header names"
            )
        return answer

    def m_block_results(self, params: dict[str, Any]) -> Any:
        answer = self.raw("block_results", params)
        found = read_answer(ResultBlockResults.from_json, answer, "block_results")
        height = found.height
        if self.verifier.latest().height <= height:
            self.mark("block_results", f"block {height + 1}, which proves them, is not made yet")
            return answer
        header = self.verifier.proven_header(height + 1)
        try:
            results_committed(height, found.deliver_tx, header)
        except Unencodable as unknown:
            self.mark("block_results", f"they hold {unknown}, which c4 cannot encode")
        return answer

    # -- transactions ---------------------------------------------------------------------

    def m_tx(self, params: dict[str, Any]) -> Any:
        answer = self.raw("tx", params)
        found = read_answer(ResultTx.from_json, answer, "tx")
        self._landed(found.tx, found.hash, found.height, found.place, found.tx_result, "tx")
        return answer

    def m_broadcast_tx_commit(self, params: dict[str, Any]) -> Any:
        answer = self._sent("broadcast_tx_commit", params)
        found = read_answer(ResultBroadcastTxCommit.from_json, answer, "broadcast_tx_commit")
        if found.check_tx.refused or found.height <= 0:
            # Not landed, in the node's words: nothing to prove, and nothing claimed.
            self.mark("broadcast_tx_commit", "a refusal before a block is the node's word")
            return answer
        raw = param_bytes(params, "tx")
        self._landed(
            raw,
            found.hash,
            found.height,
            None,
            found.deliver_tx,
            "broadcast_tx_commit",
            must_prove=True,
        )
        return answer

    def m_broadcast_tx_sync(self, params: dict[str, Any]) -> Any:
        return self._sent("broadcast_tx_sync", params)

    def m_broadcast_tx_async(self, params: dict[str, Any]) -> Any:
        return self._sent("broadcast_tx_async", params)

    def _sent(self, method: str, params: dict[str, Any]) -> Any:
        """A broadcast, sent once to the node in use (never again on a failure)."""
        (answer,) = self.reader.transport.send([RpcCall(Method(method), params)], timeout=60)
        if isinstance(answer, Unreachable):
            raise answer
        return answer

    def _landed(
        self,
        tx: bytes,
        tx_hash: bytes,
        height: int,
        place: int | None,
        result: Any,
        method: str,
        *,
        must_prove: bool = False,
    ) -> None:
        """``tx`` held to block ``height`` (at ``place``; None: wherever the block holds
        it), and its result to the next header; a result no header proves yet is passed
        on marked, or with ``must_prove`` (a broadcast's commit: never a success unproven)
        refused."""
        if hashlib.sha256(tx).digest() != tx_hash:
            raise Unverified("the transaction given does not hash to the hash answered")
        block = self.verifier.rpc.block(height)
        proven = self.verifier.block(block)
        txs = block.block.txs
        if place is None:
            place = next((i for i, held in enumerate(txs) if held == tx), -1)
        if not 0 <= place < len(txs) or txs[place] != tx:
            raise Unverified(f"block {height} does not hold the transaction the node says it does")
        held = self.verifier.result(proven, place, result, wait=RESULT_WAIT)
        if held.result_unproven:
            why = f"its result: {held.result_unproven}"
            if must_prove:
                raise Unverified(f"the transaction's block {height} is proven; {why}")
            self.mark(method, why)

    # -- queries --------------------------------------------------------------------------

    def m_abci_query(self, params: dict[str, Any]) -> Any:
        return queries.abci_query(self, params)


class _Nothing:
    def stop(self) -> None:
        return None


# tm2's methods (and the local chain's cheats, to refuse them in words).
GATEWAY_PARAMS = {**PARAMS, "commit": ("height",), "genesis": ()}


def tm2_methods() -> set[str]:
    """The methods a gateway serves: tm2's, none of the local chain's cheats."""
    return {name for name in GATEWAY_PARAMS if not name.startswith("c4_")}


def open_gateway(home: Path, upstream: str, *, strict: bool, say: Callable[[str], None]) -> Gateway:
    """The gateway to ``upstream`` (URL[,URL…]; "": the nodes the home is bound to) for a
    home bound to its chain, whose trusted validators prove every answer; its head
    proven before it serves."""
    config = read_remote(home)
    if config is None or config.trust_node:
        raise BadInput(
            "a gateway proves each answer with the validators a home trusts: bind this home "
            "to the network first (`c4 init --remote URL`)"
        )
    readers = []
    for url in split_urls(upstream or config.url):
        reader = connect.open_reader(home, url=url)
        if not isinstance(reader, NodeReader) or reader.verifier is None:
            raise BadInput(f"{home} takes its node's word: a gateway needs its validators trusted")
        readers.append(reader)
    gateway = Gateway(readers, strict=strict, say=say)
    gateway.verifier.latest()
    return gateway

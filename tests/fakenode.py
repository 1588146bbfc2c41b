"""An in-process tm2 node for the node client's tests, as httpx's MockTransport is for
httpx: the node client runs unchanged over a :class:`FakeLink` instead of sockets.

The node keeps accounts and blocks, and checks every transaction it is sent as gno.land
does before it takes it (the signature over the account's number and sequence and the
chain id, verified with c4's own secp256k1 code); a bank send moves coins. It answers
the JSON-RPC methods the client uses, in tm2 v1.7.1's shapes. A test then makes it
misbehave through its knobs (``misbehave``): lose an answer, hold one, forge one, go
to another chain, roll back, answer a batch out of order or with entries missing. It
runs no GnoVM: the realm's code is for the gnoland-backed tests, the end-to-end net.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from typing import Any

from c4cli.chain.interface import SendPolicy
from c4cli.coins import ugnot_in
from c4cli.errors import Unreachable
from c4cli.node.net.http import Target
from c4cli.wire.abci import AbciError, ResponseDeliverTx, ResponseQuery
from c4cli.wire.blocks import Block, BlockID, BlockMeta, Commit, Header, Time
from c4cli.wire.crypto import address_of, public_key
from c4cli.wire.events import TransferEvent
from c4cli.wire.msgs import MsgSend
from c4cli.wire.rpc import (
    ResultABCIQuery,
    ResultBlock,
    ResultBlockchain,
    ResultBlockResults,
    ResultBroadcastTxCommit,
    ResultStatus,
    ResultTx,
)
from c4cli.wire.std import decode_tx
from c4cli.wire.tx import fee, signature_error

CHAIN_ID = "dev"
SKIP = SendPolicy(simulate="skip")
FEE = fee(2_000_000, "2000ugnot")
START = 1_767_225_600  # 2026-01-01, the first block's time


def _time(height: int) -> Time:
    return Time(START + height)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def tx_hash(raw: bytes) -> str:
    return _b64(hashlib.sha256(raw).digest())


def key(label: str) -> tuple[bytes, str]:
    """A private key made from a label, and its address."""
    private = hashlib.sha256(label.encode()).digest()
    return private, address_of(public_key(private))


ALICE_KEY, ALICE = key("alice")
_, BOB = key("bob")


class FakeNode:
    """One node of a chain (``chain_id``); nodes of one chain share its ``Ledger``."""

    def __init__(self, ledger: Ledger, chain_id: str = CHAIN_ID) -> None:
        self.ledger = ledger
        self.chain_id = chain_id
        self.down = False  # refuses connections
        # method -> what to do instead of answering: a function of the call and of
        # ``forward`` (which has the node do the work and gives its answer) returning the
        # document to send, or raising Unreachable (the answer is lost).
        self.misbehave: dict[str, Rule] = {}
        self.batch_order: Callable[[list[Any]], list[Any]] | None = None
        self.seen: list[list[str]] = []  # each request's methods

    def answer(self, body: bytes) -> bytes:
        request = json.loads(body)
        calls = request if isinstance(request, list) else [request]
        self.seen.append([str(call["method"]) for call in calls])
        documents = [self._one(call) for call in calls]
        if isinstance(request, list):
            if self.batch_order is not None:
                documents = self.batch_order(documents)
            return json.dumps(documents).encode()
        return json.dumps(documents[0]).encode()

    def _one(self, call: dict[str, Any]) -> Any:
        rule = self.misbehave.get(call["method"])
        return self._forward(call) if rule is None else rule(call, lambda: self._forward(call))

    def _forward(self, call: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, "rpc_" + call["method"])
        try:
            result = handler(call.get("params") or {})
        except LookupError as exc:
            error = {"code": -32603, "message": "Internal error", "data": str(exc.args[0])}
            return {"jsonrpc": "2.0", "id": call["id"], "error": error}
        return {"jsonrpc": "2.0", "id": call["id"], "result": result}

    # -- tm2's methods, answered with the wire's values ---------------------------------

    def rpc_status(self, params: dict[str, Any]) -> Any:
        height = self.ledger.height
        return ResultStatus(self.chain_id, height, _time(height), False).to_json()

    def rpc_abci_query(self, params: dict[str, Any]) -> Any:
        path, height = params["path"], self.ledger.height
        if path.startswith("auth/accounts/"):
            address = path.removeprefix("auth/accounts/")
            account = self.ledger.accounts.get(address)
            document: Any = None
            if account is not None:
                number, sequence, coins = account
                document = {
                    "BaseAccount": {
                        "address": address,
                        "coins": f"{coins}ugnot",
                        "account_number": str(number),
                        "sequence": str(sequence),
                    }
                }
            response = ResponseQuery(data=json.dumps(document).encode(), height=height)
        elif path == "auth/gasprice":
            price = {"gas": 1000, "price": "1ugnot"}
            response = ResponseQuery(data=json.dumps(price).encode(), height=height)
        else:
            error = AbciError("/std.UnknownRequestError")
            response = ResponseQuery(error, log=f"unknown query path {path}", height=height)
        return ResultABCIQuery(response).to_json()

    def rpc_broadcast_tx_commit(self, params: dict[str, Any]) -> Any:
        raw = base64.b64decode(params["tx"])
        digest = hashlib.sha256(raw).digest()
        if any(raw_of == raw for raw_of in self.ledger.all_txs()):
            raise LookupError("tx already exists in cache")
        refusal = self.ledger.check(raw, self.chain_id)
        if refusal is not None:
            check = ResponseDeliverTx(AbciError("/std.UnauthorizedError"), log=refusal)
            return ResultBroadcastTxCommit(check, ResponseDeliverTx(), digest, 0).to_json()
        height, result = self.ledger.commit(raw)
        return ResultBroadcastTxCommit(ResponseDeliverTx(), result, digest, height).to_json()

    def rpc_tx(self, params: dict[str, Any]) -> Any:
        wanted = params["hash"]
        for height, txs in enumerate(self.ledger.blocks, start=1):
            for index, raw in enumerate(txs):
                if tx_hash(raw) == wanted:
                    result = self.ledger.results[height - 1][index]
                    digest = hashlib.sha256(raw).digest()
                    return ResultTx(digest, height, index, result, raw).to_json()
        raise LookupError(f"tx ({wanted}) not found")

    def rpc_block(self, params: dict[str, Any]) -> Any:
        height = int(params.get("height") or self.ledger.height)
        if not 1 <= height <= self.ledger.height:
            raise LookupError(f"height {height} must be less than or equal to the current")
        txs = tuple(self.ledger.blocks[height - 1])
        header = self._header(height)
        block = Block(header, txs, Commit(BlockID(), ()))
        return ResultBlock(BlockMeta(BlockID(), header), block).to_json()

    def _header(self, height: int) -> Header:
        """Block ``height``'s header (no validators: a fake node proves nothing, and c4
        takes its word only with --trust-node)."""
        blocks = self.ledger.blocks
        return Header(
            version="v1.0.0-rc.0",
            chain_id=self.chain_id,
            height=height,
            time=_time(height),
            num_txs=len(blocks[height - 1]),
            total_txs=sum(len(block) for block in blocks[:height]),
            app_version="",
            last_block_id=BlockID(),
            last_commit_hash=b"",
            data_hash=b"",
            validators_hash=b"",
            next_validators_hash=b"",
            consensus_hash=b"",
            app_hash=b"",
            last_results_hash=b"",
            proposer_address="g1" + "q" * 38,
        )

    def rpc_block_results(self, params: dict[str, Any]) -> Any:
        height = int(params["height"])
        return ResultBlockResults(height, tuple(self.ledger.results[height - 1])).to_json()

    def rpc_blockchain(self, params: dict[str, Any]) -> Any:
        low, high = int(params["minHeight"]), min(int(params["maxHeight"]), self.ledger.height)
        metas = tuple(BlockMeta(BlockID(), self._header(h)) for h in range(high, low - 1, -1))
        return ResultBlockchain(self.ledger.height, metas).to_json()


class Ledger:
    """A chain's state: accounts as (number, sequence, ugnot), and its blocks."""

    def __init__(self, accounts: dict[str, int]) -> None:
        self.accounts = {
            address: (number, 0, coins)
            for number, (address, coins) in enumerate(accounts.items(), start=1)
        }
        self.blocks: list[list[bytes]] = [[]]  # block 1: the genesis, empty
        self.results: list[list[ResponseDeliverTx]] = [[]]

    @property
    def height(self) -> int:
        return len(self.blocks)

    def all_txs(self) -> list[bytes]:
        return [raw for txs in self.blocks for raw in txs]

    def empty_block(self) -> None:
        self.blocks.append([])
        self.results.append([])

    def check(self, raw: bytes, chain_id: str) -> str | None:
        """Why gno.land's ante handler refuses these bytes now, or None."""
        tx = decode_tx(raw)
        signer = tx.signer
        number, sequence, _ = self.accounts[signer]
        problem = signature_error(
            tx, chain_id=chain_id, account_number=number, sequence=sequence, key_address=signer
        )
        if problem is not None:
            return "signature verification failed; verify correct account, sequence, and chain-id"
        return None

    def commit(self, raw: bytes) -> tuple[int, ResponseDeliverTx]:
        """Deliver a checked transaction in a block of its own: its height and result."""
        tx = decode_tx(raw)
        msg = tx.msgs[0]
        assert isinstance(msg, MsgSend)  # the fake node moves coins, nothing else
        signer, to = msg.from_address, msg.to_address
        amount = ugnot_in(msg.amount)
        number, sequence, coins = self.accounts[signer]
        self.accounts[signer] = (number, sequence + 1, coins - amount)
        other = self.accounts.get(to, (len(self.accounts) + 1, 0, 0))
        self.accounts[to] = (other[0], other[1], other[2] + amount)
        event = TransferEvent(signer, to, msg.amount)
        result = ResponseDeliverTx(events=(event,), gas_wanted=tx.fee.gas_wanted, gas_used=50000)
        self.blocks.append([raw])
        self.results.append([result])
        return self.height, result


class FakeLink:
    """The nodes behind URLs, as a node client's ``link``: each URL's node answers in
    process. Counts what a socket would: requests, and the broadcasts among them."""

    def __init__(self, nodes: dict[str, FakeNode]) -> None:
        self.nodes = nodes
        self.requests = 0

    def __call__(self, target: Target, down_hint: str) -> _Exchange:
        return _Exchange(self, target)


class _Exchange:
    def __init__(self, link: FakeLink, target: Target) -> None:
        self.link = link
        self.target = target

    def post(self, body: bytes, timeout: float, *, replayable: bool) -> bytes:
        node = self.link.nodes[self.target.url]
        if node.down:
            raise Unreachable(
                f"cannot reach the chain at {self.target.redacted}: Connection refused"
            )
        self.link.requests += 1
        return node.answer(body)

    def close(self) -> None:
        return None


Rule = Callable[[dict[str, Any], Callable[[], dict[str, Any]]], Any]


def lost(call: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
    """A rule: the node did the work, and its answer never came."""
    forward()
    raise Unreachable("http://node did not answer within 2 s")


def held(call: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
    """A rule: the request never reached the node, and nothing came back."""
    raise Unreachable("http://node did not answer within 2 s")

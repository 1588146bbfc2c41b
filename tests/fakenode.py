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
from c4cli.node.http import Target
from c4cli.wire.amino import decode_tx
from c4cli.wire.crypto import address_of, public_key
from c4cli.wire.tx import fee, signature_error

CHAIN_ID = "dev"
SKIP = SendPolicy(simulate="skip")
FEE = fee(2_000_000, "2000ugnot")
START = 1_767_225_600  # 2026-01-01, the first block's time


def _time(height: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(START + height, UTC).strftime("%Y-%m-%dT%H:%M:%S.000000000Z")


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

    # -- tm2's methods ---------------------------------------------------------------

    def rpc_status(self, params: dict[str, Any]) -> Any:
        height = self.ledger.height
        return {
            "node_info": {"network": self.chain_id},
            "sync_info": {
                "latest_block_height": str(height),
                "latest_block_time": _time(height),
                "catching_up": False,
            },
        }

    def rpc_abci_query(self, params: dict[str, Any]) -> Any:
        path = params["path"]
        base: dict[str, Any] = {"Error": None, "Data": None, "Log": ""}
        if path.startswith("auth/accounts/"):
            address = path.removeprefix("auth/accounts/")
            account = self.ledger.accounts.get(address)
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
                base["Data"] = _b64(json.dumps(document).encode())
            else:
                base["Data"] = _b64(b"null")
        elif path == "auth/gasprice":
            price = {"gas": 1000, "price": "1ugnot"}
            base["Data"] = _b64(json.dumps(price).encode())
        else:
            base["Error"] = {"@type": "/std.UnknownRequestError", "value": {}}
            base["Log"] = f"unknown query path {path}"
        return {"response": {"ResponseBase": base, "Height": str(self.ledger.height)}}

    def rpc_broadcast_tx_commit(self, params: dict[str, Any]) -> Any:
        raw = base64.b64decode(params["tx"])
        tx_id = tx_hash(raw)
        if any(raw_of == raw for raw_of in self.ledger.all_txs()):
            raise LookupError("tx already exists in cache")
        refusal = self.ledger.check(raw, self.chain_id)
        if refusal is not None:
            check = {
                "ResponseBase": {
                    "Error": {"@type": "/std.UnauthorizedError", "value": {}},
                    "Log": refusal,
                }
            }
            return {"check_tx": check, "deliver_tx": {}, "hash": tx_id, "height": "0"}
        height, result = self.ledger.commit(raw)
        return {
            "check_tx": {"ResponseBase": {"Error": None}},
            "deliver_tx": result,
            "hash": tx_id,
            "height": str(height),
        }

    def rpc_tx(self, params: dict[str, Any]) -> Any:
        wanted = params["hash"]
        for height, txs in enumerate(self.ledger.blocks, start=1):
            for index, raw in enumerate(txs):
                if tx_hash(raw) == wanted:
                    return {
                        "hash": wanted,
                        "height": str(height),
                        "index": index,
                        "tx_result": self.ledger.results[height - 1][index],
                        "tx": _b64(raw),
                    }
        raise LookupError(f"tx ({wanted}) not found")

    def rpc_block(self, params: dict[str, Any]) -> Any:
        height = int(params.get("height") or self.ledger.height)
        if not 1 <= height <= self.ledger.height:
            raise LookupError(f"height {height} must be less than or equal to the current")
        txs = self.ledger.blocks[height - 1]
        header = self._header(height)
        return {"block": {"header": header, "data": {"txs": [_b64(raw) for raw in txs] or None}}}

    def _header(self, height: int) -> dict[str, Any]:
        """Block ``height``'s header as tm2's JSON gives one (no validators: a fake
        node proves nothing, and c4 takes its word only with --trust-node)."""
        blocks = self.ledger.blocks
        return {
            "version": "v1.0.0-rc.0",
            "chain_id": self.chain_id,
            "height": str(height),
            "time": _time(height),
            "num_txs": str(len(blocks[height - 1])),
            "total_txs": str(sum(len(block) for block in blocks[:height])),
            "app_version": "",
            "last_block_id": {"hash": None, "parts": {"total": "0", "hash": None}},
            "data_hash": None,
            "validators_hash": None,
            "proposer_address": "g1" + "q" * 38,
        }

    def rpc_block_results(self, params: dict[str, Any]) -> Any:
        height = int(params["height"])
        return {"height": str(height), "results": {"deliver_tx": self.ledger.results[height - 1]}}

    def rpc_blockchain(self, params: dict[str, Any]) -> Any:
        low, high = int(params["minHeight"]), min(int(params["maxHeight"]), self.ledger.height)
        metas = [
            {"block_id": {"hash": None, "parts": {"total": "0", "hash": None}},
             "header": self._header(h)}
            for h in range(high, low - 1, -1)
        ]  # fmt: skip
        return {"last_height": str(self.ledger.height), "block_metas": metas}


class Ledger:
    """A chain's state: accounts as (number, sequence, ugnot), and its blocks."""

    def __init__(self, accounts: dict[str, int]) -> None:
        self.accounts = {
            address: (number, 0, coins)
            for number, (address, coins) in enumerate(accounts.items(), start=1)
        }
        self.blocks: list[list[bytes]] = [[]]  # block 1: the genesis, empty
        self.results: list[list[Any]] = [[]]

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
        signer = tx["msg"][0]["from_address"]
        number, sequence, _ = self.accounts[signer]
        problem = signature_error(
            tx, chain_id=chain_id, account_number=number, sequence=sequence, key_address=signer
        )
        if problem is not None:
            return "signature verification failed; verify correct account, sequence, and chain-id"
        return None

    def commit(self, raw: bytes) -> tuple[int, Any]:
        """Deliver a checked transaction in a block of its own: its height and result."""
        tx = decode_tx(raw)
        msg = tx["msg"][0]
        signer, to = msg["from_address"], msg["to_address"]
        amount = ugnot_in(msg["amount"])
        number, sequence, coins = self.accounts[signer]
        self.accounts[signer] = (number, sequence + 1, coins - amount)
        other = self.accounts.get(to, (len(self.accounts) + 1, 0, 0))
        self.accounts[to] = (other[0], other[1], other[2] + amount)
        event = {"@type": "/bank.TransferEvent", "from": signer, "to": to, "coins": msg["amount"]}
        result = {
            "ResponseBase": {"Error": None, "Data": None, "Events": [event], "Log": "", "Info": ""},
            "GasWanted": tx["fee"]["gas_wanted"],
            "GasUsed": "50000",
        }
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

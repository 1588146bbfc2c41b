"""A game's record that carries its proof (`c4 export --proof`), as a file: its values
and its bytes.

The file is JSON, written one way only (:meth:`GameProof.to_bytes`): a reader takes
it back to values (:func:`read_proof`) and writes them again, and a file that is not
those same bytes is refused, so that no byte of it goes unchecked: each value is
either held to a hash the validators signed (by :mod:`c4cli.client.proofcheck`) or
is the layout around them. Nothing a signature does not cover is carried (a
validator's place in the proposers' rotation, a result's log and gas).

    {"format": "c4 game proof 1", "chain_id": …, "realm_path": …, "game": 1,
     "state": {"height": S, "record": …, "record_proof": [op, …],
               "code": …, "code_proof": [op, …]},
     "validators": [{"address", "pub_key", "voting_power"}, …],
     "blocks": [{"header": …, "commit": …}, …],
     "transactions": [{"height", "index", "total", "tx", "aunts",
                       "result", "result_aunts"}, …]}

``state`` is the realm after block S: the game's record (base64) whose sha256 the
realm committed at ``/pv/vm:<realm>:game:<id>``, that digest's store proof, and the
realm's package (``pkg:<realm>``) with its proof, both against block S+1's app hash.
``blocks`` are headers with the commits that signed them, by height, as tm2's RPC
writes them; ``validators``, the set that signed them. Each transaction is its
block's ``index``-th of ``total``, its bytes' sha256 led to the block's data hash by
``aunts``, and its result (tm2's hashed part of it, amino, base64) led to the next
block's ``last_results_hash`` by ``result_aunts``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from c4cli.errors import Unverified
from c4cli.files import MIB
from c4cli.jsonvalue import Document
from c4cli.wire.abci import ProofOp, ResponseDeliverTx
from c4cli.wire.blocks import Commit, Header, PubKey, Validator, fingerprint
from c4cli.wire.protowire import DecodeError, bytes_field

FORMAT = "c4 game proof 1"
LIMIT = 8 * MIB  # a game of 42 moves on a hundred validators is well under it
T = TypeVar("T")


class SignedBlock(NamedTuple):
    header: Header
    commit: Commit


class Included(NamedTuple):
    """A transaction in block ``height``, its place there, and its result."""

    height: int
    position: int  # its index in the block
    total: int
    tx: bytes
    aunts: tuple[bytes, ...]
    result: bytes  # tm2's ABCIResult of it, amino (ResponseDeliverTx.result_bytes)
    result_aunts: tuple[bytes, ...]

    def response(self) -> ResponseDeliverTx:
        """The result as a value (its error, data and events)."""
        return ResponseDeliverTx.from_amino(bytes_field(1, self.result))


class GameProof(NamedTuple):
    chain_id: str
    realm_path: str
    game: int
    height: int  # the record is the realm's after this block
    record: bytes
    record_proof: tuple[ProofOp, ...]
    code: bytes
    code_proof: tuple[ProofOp, ...]
    validators: tuple[Validator, ...]
    blocks: tuple[SignedBlock, ...]
    transactions: tuple[Included, ...]

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the validator set it carries (c4 trust names one so)."""
        return fingerprint(self.validators)

    def document(self) -> Document:
        return {
            "format": FORMAT,
            "chain_id": self.chain_id,
            "realm_path": self.realm_path,
            "game": self.game,
            "state": {
                "height": self.height,
                "record": _b64(self.record),
                "record_proof": [_op_json(op) for op in self.record_proof],
                "code": _b64(self.code),
                "code_proof": [_op_json(op) for op in self.code_proof],
            },
            "validators": [
                {
                    "address": v.address,
                    "pub_key": v.pub_key.to_json(),
                    "voting_power": str(v.voting_power),
                }
                for v in self.validators
            ],
            "blocks": [
                {"header": block.header.to_json(), "commit": block.commit.to_json()}
                for block in self.blocks
            ],
            "transactions": [
                {
                    "height": tx.height,
                    "index": tx.position,
                    "total": tx.total,
                    "tx": _b64(tx.tx),
                    "aunts": [_b64(aunt) for aunt in tx.aunts],
                    "result": _b64(tx.result),
                    "result_aunts": [_b64(aunt) for aunt in tx.result_aunts],
                }
                for tx in self.transactions
            ],
        }

    def to_bytes(self) -> bytes:
        return (json.dumps(self.document(), indent=1, ensure_ascii=True) + "\n").encode()


def read_proof(data: bytes, name: str) -> GameProof:
    """The game proof file ``name`` holds (its ``data``), once it is written as c4 writes
    one; Unverified naming the part that does not read."""
    try:
        found = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Unverified(f"{name} is not a game proof: it is not JSON ({exc})") from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise Unverified(f"{name} is not a game proof: its format is not {FORMAT!r}")
    state = _part(name, "its state", _mapping, found.get("state"))
    blocks = _part(name, "its blocks", _list, found.get("blocks"))
    transactions = _part(name, "its transactions", _list, found.get("transactions"))
    proof = GameProof(
        chain_id=_part(name, "its chain id", _text, found.get("chain_id")),
        realm_path=_part(name, "its realm path", _text, found.get("realm_path")),
        game=_part(name, "its game", _count, found.get("game")),
        height=_part(name, "its state's height", _count, state.get("height")),
        record=_part(name, "its record", _bytes, state.get("record")),
        record_proof=_part(name, "its record's proof", _ops, state.get("record_proof")),
        code=_part(name, "the realm's code", _bytes, state.get("code")),
        code_proof=_part(name, "the code's proof", _ops, state.get("code_proof")),
        validators=_part(name, "its validators", _validators, found.get("validators")),
        blocks=tuple(
            _part(name, f"block entry {n}", _block, entry) for n, entry in enumerate(blocks, 1)
        ),
        transactions=tuple(
            _part(name, f"transaction entry {n}", _included, entry)
            for n, entry in enumerate(transactions, 1)
        ),
    )
    written = proof.to_bytes()
    if written != data:
        raise Unverified(
            f"{name} is not written as c4 writes a game proof ({_first_difference(data, written)})"
        )
    return proof


def _first_difference(given: bytes, written: bytes) -> str:
    at = next((i for i, (a, b) in enumerate(zip(given, written, strict=False)) if a != b), None)
    if at is None:
        at = min(len(given), len(written))
    line = given.count(b"\n", 0, at) + 1
    return f"it differs at line {line}, byte {at}"


def _part(name: str, what: str, read: Callable[[Any], T], value: object) -> T:
    try:
        return read(value)
    except (KeyError, TypeError, ValueError, IndexError, DecodeError, binascii.Error):
        raise Unverified(f"{name} is not a game proof: {what} does not read") from None


def _mapping(value: object) -> dict[str, object]:
    if not isinstance(value, dict):
        raise TypeError("not an object")
    return value


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("not a list")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 62:
        raise ValueError("not a count")
    return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _bytes(value: object) -> bytes:
    return base64.b64decode(_text(value), validate=True)


def _op_json(op: ProofOp) -> Document:
    return {"type": op.type, "key": _b64(op.key), "data": _b64(op.data)}


def _ops(value: object) -> tuple[ProofOp, ...]:
    return tuple(
        ProofOp(_text(op["type"]), _bytes(op["key"]), _bytes(op["data"]))
        for op in map(_mapping, _list(value))
    )


def _validators(value: object) -> tuple[Validator, ...]:
    found = []
    for entry in map(_mapping, _list(value)):
        key = _mapping(entry["pub_key"])
        power = int(_text(entry["voting_power"]))
        pub_key = PubKey(_text(key["@type"]), _bytes(key["value"]))
        found.append(Validator(_text(entry["address"]), pub_key, power))
    return tuple(found)


def _block(value: object) -> SignedBlock:
    entry = _mapping(value)
    return SignedBlock(Header.from_json(entry["header"]), Commit.from_json(entry["commit"]))


def _included(value: object) -> Included:
    entry = _mapping(value)
    return Included(
        height=_count(entry["height"]),
        position=_count(entry["index"]),
        total=_count(entry["total"]),
        tx=_bytes(entry["tx"]),
        aunts=tuple(_bytes(aunt) for aunt in _list(entry["aunts"])),
        result=_bytes(entry["result"]),
        result_aunts=tuple(_bytes(aunt) for aunt in _list(entry["result_aunts"])),
    )

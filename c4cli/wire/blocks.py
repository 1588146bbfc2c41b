"""tm2's blocks as values: a header, a vote, a commit, a validator, a block.

Each is decoded once from a node's amino JSON (:meth:`from_json`: int64 as text or a
number, bytes as base64, times as RFC 3339) into ints, bytes and times, and written
back (:meth:`to_json`) in the field order and encodings gnoland v1.7.1 writes; a
shape a node never sends is a KeyError, TypeError or ValueError, which the node
client turns into one line. Where tm2 hashes or signs a value, its amino binary is
here too: a header hashes itself (the simple Merkle root of its sixteen fields, each
a value of its own), a vote gives its sign bytes (tm2's canonical vote,
length-prefixed), a validator set its hash, a block its transactions' data hash.

The encodings were read off gno v1.7.1 (``tm2/pkg/bft/types``) and are held, in
tests/gnoland/test_light.py and test_light_vectors.py, to a real gnoland's blocks.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from c4cli.jsonvalue import Document
from c4cli.wire.fields import b64, data_field, int64, int64_field, items, mapping, raw, text
from c4cli.wire.merkle import merkle_root, txs_root
from c4cli.wire.protowire import VARINT, any_value, bytes_field, encode_varint, field_key, zigzag

FIXED64 = 1
PRECOMMIT = 2  # tm2's SignedMsgType of a precommit


class Time(NamedTuple):
    """A tm2 time: seconds since 1970 and nanoseconds, as amino keeps one."""

    seconds: int
    nanos: int = 0

    @classmethod
    def from_json(cls, value: object) -> Time:
        """``2026-01-01T00:00:05.123456789Z`` (any fraction of up to nine digits)."""
        found = text(value).strip()
        whole, _, fraction = found.rstrip("Z").partition(".")
        if len(fraction) > 9 or (fraction and not fraction.isdigit()):
            raise ValueError("not a time")
        try:
            seconds = int(datetime.fromisoformat(whole + "+00:00").timestamp())
        except OverflowError:
            raise ValueError("not a time") from None
        return cls(seconds, int((fraction + "0" * 9)[:9]) if fraction else 0)

    def to_json(self) -> str:
        """As amino writes a time: 3, 6 or 9 digits of fraction, none when whole."""
        stamp = datetime.fromtimestamp(self.seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        fraction = f"{self.nanos:09d}"
        for _ in range(2):
            fraction = fraction.removesuffix("000")
        return f"{stamp}.{fraction}Z" if fraction != "000" else f"{stamp}Z"

    def amino(self) -> bytes:
        """Seconds in field 1, nanoseconds in field 2, each omitted when 0."""
        out = field_key(1, VARINT) + encode_varint(self.seconds) if self.seconds else b""
        return out + (field_key(2, VARINT) + encode_varint(self.nanos) if self.nanos else b"")


class PartSetHeader(NamedTuple):
    total: int = 0
    hash: bytes = b""


class BlockID(NamedTuple):
    """A block's id: its header's hash, and its parts' header."""

    hash: bytes = b""
    parts: PartSetHeader = PartSetHeader()

    @classmethod
    def from_json(cls, value: object) -> BlockID:
        found = mapping(value)
        parts = mapping(found.get("parts"))
        return cls(
            raw(found.get("hash")),
            PartSetHeader(int64(parts.get("total") or 0), raw(parts.get("hash"))),
        )

    def to_json(self) -> Document:
        parts = {"total": str(self.parts.total), "hash": b64(self.parts.hash)}
        return {"hash": b64(self.hash), "parts": parts}

    def amino(self, *, canonical: bool = False) -> bytes:
        """Hash (1) and parts (2: total, hash); the canonical form (what a vote signs)
        writes the total unsigned, a header's as a zigzag int."""
        total = self.parts.total
        inner = b""
        if total:
            inner = field_key(1, VARINT) + encode_varint(total if canonical else zigzag(total))
        inner += data_field(2, self.parts.hash)
        return data_field(1, self.hash) + data_field(2, inner)


class Header(NamedTuple):
    """A block header, its fields as tm2 orders them."""

    version: str
    chain_id: str
    height: int
    time: Time
    num_txs: int
    total_txs: int
    app_version: str
    last_block_id: BlockID
    last_commit_hash: bytes
    data_hash: bytes
    validators_hash: bytes
    next_validators_hash: bytes
    consensus_hash: bytes
    app_hash: bytes
    last_results_hash: bytes
    proposer_address: str

    @classmethod
    def from_json(cls, value: object) -> Header:
        found = mapping(value)
        proposer = found.get("proposer_address")
        return cls(
            version=text(found["version"]),
            chain_id=text(found["chain_id"]),
            height=int64(found["height"]),
            time=Time.from_json(found["time"]),
            num_txs=int64(found["num_txs"]),
            total_txs=int64(found["total_txs"]),
            app_version=text(found["app_version"]),
            last_block_id=BlockID.from_json(found.get("last_block_id")),
            last_commit_hash=raw(found.get("last_commit_hash")),
            data_hash=raw(found.get("data_hash")),
            validators_hash=raw(found.get("validators_hash")),
            next_validators_hash=raw(found.get("next_validators_hash")),
            consensus_hash=raw(found.get("consensus_hash")),
            app_hash=raw(found.get("app_hash")),
            last_results_hash=raw(found.get("last_results_hash")),
            proposer_address="" if proposer is None else text(proposer),
        )

    def to_json(self) -> Document:
        return {
            "version": self.version,
            "chain_id": self.chain_id,
            "height": str(self.height),
            "time": self.time.to_json(),
            "num_txs": str(self.num_txs),
            "total_txs": str(self.total_txs),
            "app_version": self.app_version,
            "last_block_id": self.last_block_id.to_json(),
            "last_commit_hash": b64(self.last_commit_hash),
            "data_hash": b64(self.data_hash),
            "validators_hash": b64(self.validators_hash),
            "next_validators_hash": b64(self.next_validators_hash),
            "consensus_hash": b64(self.consensus_hash),
            "app_hash": b64(self.app_hash),
            "last_results_hash": b64(self.last_results_hash),
            "proposer_address": self.proposer_address,
        }

    def hash(self) -> bytes | None:
        """The hash tm2 gives this header (None without validators, as tm2's); an
        address is its bech32 text, as this version's amino writes one."""
        if not self.validators_hash:
            return None
        time = self.time.amino()
        fields = [
            data_field(1, self.version.encode()),
            data_field(1, self.chain_id.encode()),
            int64_field(1, self.height),
            time,
            int64_field(1, self.num_txs),
            int64_field(1, self.total_txs),
            data_field(1, self.app_version.encode()),
            self.last_block_id.amino(),
            *(
                data_field(1, value)
                for value in (
                    self.last_commit_hash,
                    self.data_hash,
                    self.validators_hash,
                    self.next_validators_hash,
                    self.consensus_hash,
                    self.app_hash,
                    self.last_results_hash,
                )
            ),
            data_field(1, self.proposer_address.encode()),
        ]
        return merkle_root(fields)


class Vote(NamedTuple):
    """A vote as a commit lists it."""

    type: int
    height: int
    round: int
    block_id: BlockID
    timestamp: Time
    validator_address: str
    validator_index: int
    signature: bytes

    @classmethod
    def from_json(cls, value: object) -> Vote:
        found = mapping(value)
        return cls(
            type=int64(found["type"]),
            height=int64(found["height"]),
            round=int64(found["round"]),
            block_id=BlockID.from_json(found.get("block_id")),
            timestamp=Time.from_json(found["timestamp"]),
            validator_address=text(found.get("validator_address")),
            validator_index=int64(found.get("validator_index") or 0),
            signature=raw(found.get("signature")),
        )

    def to_json(self) -> Document:
        return {
            "type": self.type,
            "height": str(self.height),
            "round": str(self.round),
            "block_id": self.block_id.to_json(),
            "timestamp": self.timestamp.to_json(),
            "validator_address": self.validator_address,
            "validator_index": str(self.validator_index),
            "signature": b64(self.signature),
        }

    def sign_bytes(self, chain_id: str) -> bytes:
        """What a validator signs: tm2's canonical vote (type; height and round as
        fixed64; the canonical block id; the time; the chain id), length-prefixed."""
        out = field_key(1, VARINT) + encode_varint(self.type) if self.type else b""
        for number, value in ((2, self.height), (3, self.round)):
            if value:
                out += field_key(number, FIXED64) + struct.pack("<q", value)
        out += data_field(4, self.block_id.amino(canonical=True))
        out += data_field(5, self.timestamp.amino())
        out += data_field(6, chain_id.encode())
        return encode_varint(len(out)) + out


class Commit(NamedTuple):
    """The precommits of a block: a slot for each validator, None where one did not sign."""

    block_id: BlockID
    precommits: tuple[Vote | None, ...]

    @classmethod
    def from_json(cls, value: object) -> Commit:
        found = mapping(value)
        precommits = items(found.get("precommits") or [], "precommits")
        return cls(
            BlockID.from_json(found.get("block_id")),
            tuple(None if vote is None else Vote.from_json(vote) for vote in precommits),
        )

    def to_json(self) -> Document:
        votes = [None if vote is None else vote.to_json() for vote in self.precommits]
        return {"block_id": self.block_id.to_json(), "precommits": votes or None}


class PubKey(NamedTuple):
    """A public key as an amino ``Any``: its type URL and its bytes."""

    type_url: str
    value: bytes

    def to_json(self) -> Document:
        return {"@type": self.type_url, "value": b64(self.value)}

    def amino(self) -> bytes:
        """The key as an amino ``Any``: its struct holds the key's bytes in field 1."""
        return any_value(self.type_url, data_field(1, self.value))


class Validator(NamedTuple):
    """A validator: its address (bech32), public key and voting power (and its place in
    the proposers' rotation, which is no part of the set: not compared, not hashed)."""

    address: str
    pub_key: PubKey
    voting_power: int
    proposer_priority: int = 0

    # The priority is no part of the set: two sets of the same validators are equal at
    # any height (a tuple's own __ne__ does not go through __eq__: both are given).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Validator):
            return NotImplemented
        return self[:3] == other[:3]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:3])

    @classmethod
    def from_json(cls, value: object) -> Validator:
        """A ``validators`` answer's row, or a genesis's (``power``); the power above 0."""
        found = mapping(value)
        key = mapping(found["pub_key"])
        power = int64(found["voting_power"] if "voting_power" in found else found["power"])
        if power <= 0:
            raise ValueError("a validator has voting power")
        key_of = PubKey(text(key["@type"]), raw(key["value"]))
        priority = int64(found.get("proposer_priority") or 0)
        return cls(text(found["address"]), key_of, power, priority)

    def to_json(self) -> Document:
        return {
            "address": self.address,
            "pub_key": self.pub_key.to_json(),
            "voting_power": str(self.voting_power),
            "proposer_priority": str(self.proposer_priority),
        }

    def amino(self) -> bytes:
        """What a validator set's hash holds of it: its key (an Any of the key's struct,
        its bytes in field 1) and its power."""
        key = bytes_field(1, self.pub_key.amino())
        return key + int64_field(2, self.voting_power)


def validators_hash(validators: Sequence[Validator]) -> bytes | None:
    """The hash of a validator set, in the set's order."""
    return merkle_root([validator.amino() for validator in validators])


def fingerprint(validators: Sequence[Validator]) -> str:
    """A validator set's fingerprint, as c4 names a set it trusts: its validators hash
    in hex, as a header names it."""
    return (validators_hash(validators) or b"").hex().upper()


class BlockMeta(NamedTuple):
    block_id: BlockID
    header: Header

    @classmethod
    def from_json(cls, value: object) -> BlockMeta:
        found = mapping(value)
        return cls(BlockID.from_json(found.get("block_id")), Header.from_json(found["header"]))

    def to_json(self) -> Document:
        return {"block_id": self.block_id.to_json(), "header": self.header.to_json()}


class Block(NamedTuple):
    """A block: its header, its transactions' bytes, and the commit of the one before."""

    header: Header
    txs: tuple[bytes, ...]
    last_commit: Commit

    @classmethod
    def from_json(cls, value: object) -> Block:
        found = mapping(value)
        txs = items(mapping(found["data"]).get("txs") or [], "txs")
        return cls(
            Header.from_json(found["header"]),
            tuple(raw(text(tx)) for tx in txs),
            Commit.from_json(found.get("last_commit")),
        )

    def to_json(self) -> Document:
        return {
            "header": self.header.to_json(),
            "data": {"txs": [b64(tx) for tx in self.txs] or None},
            "last_commit": self.last_commit.to_json(),
        }

    def data_hash(self) -> bytes | None:
        """The hash a header gives its block's transactions: the root of their SHA-256."""
        return txs_root(list(self.txs))

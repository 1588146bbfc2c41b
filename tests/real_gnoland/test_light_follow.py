"""Following a change of validator set (c4cli/node/light/verify.py), on a chain of headers
built and signed here.

gno.land v1.7.1 changes its set only by a governance proposal, which no test
network of this project makes; so the algorithm is checked on headers of its own,
whose hashes and signatures are c4's encodings (held to gnoland's own blocks in
test_light.py): a set changed in part is followed in one skip, a set replaced
whole is followed by bisection down to the header that named it next, and a set
no trusted validator vouches for is refused with the trust left as it was.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from c4cli.address import encode_address
from c4cli.chain.trust import TrustedSet
from c4cli.errors import Unverified
from c4cli.node.light.verify import Verifier, establish
from c4cli.wire.abci import ResponseDeliverTx, results_hash
from c4cli.wire.blocks import Header, Validator, Vote, validators_hash

CHAIN = "follow"


def b64(raw: bytes | None) -> str:
    return base64.b64encode(raw or b"").decode()


class Key:
    def __init__(self, seed: int) -> None:
        self.private = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"%d" % seed).digest())
        public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.raw_address = hashlib.sha256(public).digest()[:20]
        self.address = encode_address(self.raw_address)
        self.row = {
            "address": self.address,
            "pub_key": {"@type": "/tm.PubKeyEd25519", "value": b64(public)},
            "voting_power": "10",
            "proposer_priority": "0",
        }


def in_order(keys: Sequence[Key]) -> list[Key]:
    """A set as tm2 keeps one: by address bytes."""
    return sorted(keys, key=lambda k: k.raw_address)


class Chain:
    """Headers 1..N, each signed by the set its height has, as a node serves them."""

    def __init__(
        self,
        sets: dict[int, list[Key]],
        last: int,
        results: dict[int, list[dict[str, Any]]] | None = None,
        salt: bytes = b"",
    ) -> None:
        self.sets = sets
        self.results = results or {}
        self.salt = salt
        self.blocks: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        previous = b""
        for height in range(1, last + 1):
            header = self._header(height, previous)
            block_hash = Header.from_json(header).hash()
            assert block_hash is not None
            self.blocks[height] = header, self._commit(height, block_hash)
            previous = block_hash
        self.redacted = "synthetic"
        self.asked: list[tuple[str, int]] = []
        self.head = last  # the block the node shows as its last

    def keys(self, height: int) -> list[Key]:
        return self.sets[max(h for h in self.sets if h <= height)]

    def rows(self, height: int) -> list[dict[str, Any]]:
        return [k.row for k in self.keys(height)]

    def set_at(self, height: int) -> list[Validator]:
        return [Validator.from_json(row) for row in self.rows(height)]

    def _header(self, height: int, previous: bytes) -> dict[str, Any]:
        return {
            "version": "v1.0.0",
            "chain_id": CHAIN,
            "height": str(height),
            "time": f"2026-01-01T00:{height // 60:02d}:{height % 60:02d}.5Z",
            "num_txs": "0",
            "total_txs": "0",
            "app_version": "",
            "last_block_id": {
                "hash": b64(previous),
                "parts": {"total": "1", "hash": b64(previous)},
            },
            "last_commit_hash": None,
            "data_hash": None,
            "validators_hash": b64(validators_hash(self.set_at(height))),
            "next_validators_hash": b64(validators_hash(self.set_at(height + 1))),
            "consensus_hash": b64(b"\x01" * 32),
            "app_hash": b64(hashlib.sha256(self.salt + b"%d" % height).digest()),
            "last_results_hash": b64(
                results_hash([ResponseDeliverTx.from_json(r) for r in self.results[height - 1]])
            )
            if self.results.get(height - 1)
            else None,
            "proposer_address": self.keys(height)[0].address,
        }

    def _commit(self, height: int, block_hash: bytes) -> dict[str, Any]:
        block_id = {"hash": b64(block_hash), "parts": {"total": "1", "hash": b64(block_hash)}}
        precommits = []
        for index, key in enumerate(self.keys(height)):
            vote = {
                "type": 2,
                "height": str(height),
                "round": "0",
                "block_id": block_id,
                "timestamp": "2026-01-01T00:00:00Z",
                "validator_address": key.address,
                "validator_index": str(index),
            }
            signed = Vote.from_json(vote).sign_bytes(CHAIN)
            vote["signature"] = b64(key.private.sign(signed))
            precommits.append(vote)
        return {"block_id": block_id, "precommits": precommits}

    def forged_at(self, height: int, forged: Chain) -> None:
        """Block ``height`` (and the set asked for there) served from ``forged``, as a
        forger serves the honest chain but for that one block."""
        self.blocks[height] = forged.blocks[height]
        honest = self.rows
        self.rows = lambda at: forged.rows(at) if at == height else honest(at)  # type: ignore[method-assign]

    # -- as a Transport answers --------------------------------------------------------

    def checked_chain_id(self) -> str:
        return CHAIN

    def call(self, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
        height = int(params.get("height") or self.head)
        self.asked.append((method, height))
        if method == "commit":
            header, commit = self.blocks[height]
            return {"signed_header": {"header": header, "commit": commit}, "canonical": True}
        if method == "block_results":
            delivered = self.results.get(height, [])
            return {"height": str(height), "results": {"deliver_tx": delivered}}
        assert method == "validators"
        return {"block_height": str(height), "validators": self.rows(height)}


class Store:
    def __init__(self, trusted: TrustedSet) -> None:
        self.trusted: TrustedSet | None = trusted
        self.saved: list[TrustedSet] = []

    def load(self) -> TrustedSet | None:
        return self.trusted

    def save(self, trusted: TrustedSet) -> None:
        self.trusted = trusted
        self.saved.append(trusted)

    def advance(self, trusted: TrustedSet) -> None:
        self.trusted = trusted

    def forget(self) -> None:
        self.trusted = None


KEYS = [Key(i) for i in range(12)]
A = in_order(KEYS[0:4])
B = in_order([*KEYS[1:4], KEYS[4]])  # three of A stay: A vouches with 3/4 of its power
C = in_order(KEYS[5:9])  # none of A or B


def verifier(chain: Chain) -> tuple[Verifier, Store]:
    trusted = establish(chain, CHAIN, height=1, source="test")  # type: ignore[arg-type]
    store = Store(trusted)
    return Verifier(chain, store), store  # type: ignore[arg-type]


def test_a_set_changed_in_part_is_followed_in_one_skip() -> None:
    chain = Chain({1: A, 11: B}, 30)
    check, store = verifier(chain)
    proven = check.at(30)
    assert (proven.height, proven.signed, proven.total) == (30, 40, 40)
    (saved,) = store.saved
    assert saved.height == 30 and saved.source == "followed from height 1"
    assert [v.address for v in saved.validators] == [k.address for k in B]
    assert ("validators", 30) in chain.asked


def test_a_set_replaced_whole_is_followed_by_bisection() -> None:
    chain = Chain({1: A, 11: B, 21: C}, 40)
    check, store = verifier(chain)
    assert check.at(40).height == 40
    # B adopted on A's word half way, then C at block 21, which block 20 named next.
    assert [s.height for s in store.saved] == [20, 21]
    assert store.saved[-1].validators == tuple(chain.set_at(21))
    assert check.at(35).total == 40  # under C now: no more following


def test_a_set_no_trusted_validator_vouches_for_is_refused() -> None:
    honest = Chain({1: A, 11: B, 21: C}, 40)
    forged = Chain({1: A, 11: B, 21: in_order(KEYS[8:12])}, 40)
    honest.forged_at(40, forged)  # signed by a set of the forger's own
    check, store = verifier(honest)
    with pytest.raises(Unverified, match=r"block 40: its validator set changed .* not followed"):
        check.at(40)
    assert all(s.height <= 39 for s in store.saved)  # the honest steps only, never 40's set


def test_a_block_before_the_trusted_height_of_another_set_is_refused() -> None:
    chain = Chain({1: A, 11: B}, 30)
    check, _ = verifier(chain)
    check.at(30)
    assert check.at(25).height == 25  # B's, as trusted now
    with pytest.raises(Unverified, match="block 5 is signed by a validator set other than"):
        check.at(5)

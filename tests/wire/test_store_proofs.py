"""Store proofs recorded from a real gnoland v1.7.1 (scripts/record-store-proofs.py):
each holds in c4 and in gno's own proof runtime, and each forgery fails in both.

The recording is one height H of a node c4 started: a player's account, the realm's
account, an address never used (absent), a session key, the realm's code and the gas
price, each with its two operations, and the commit of block H+1 whose header
carries the app hash they end in.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from c4cli.address import encode_address
from c4cli.wire import ics23, pubkeys, stored
from c4cli.wire.abci import ProofOp, ResponseQuery
from c4cli.wire.ics23 import ProofError
from c4cli.wire.protowire import (
    VARINT,
    DecodeError,
    any_value,
    bytes_field,
    encode_varint,
    field_key,
)
from c4cli.wire.results import tm2_account
from c4cli.wire.rpc import ResultCommit
from c4cli.wire.storeproof import app_hash_of

RECORDED = json.loads((Path(__file__).parent / "data" / "store_proofs.json").read_text())
APP_HASH = ResultCommit.from_json(RECORDED["commit"]).header.app_hash
NAMES = sorted(RECORDED["queries"])


def recorded(name: str) -> tuple[ResponseQuery, bytes]:
    query = RECORDED["queries"][name]
    return ResponseQuery.from_json(query["answer"]["response"]), base64.b64decode(query["key"])


def as_json(ops: tuple[ProofOp, ...] | list[ProofOp]) -> list[dict[str, str]]:
    return [
        {
            "type": op.type,
            "key": base64.b64encode(op.key).decode(),
            "data": base64.b64encode(op.data).decode(),
        }
        for op in ops
    ]


def c4_says(ops: tuple[ProofOp, ...], key: bytes, value: bytes | None, root: bytes) -> str:
    try:
        proven = app_hash_of(ops, key, value)
    except ProofError as exc:
        return str(exc)
    return "" if proven == root else "the proof ends in another app hash"


def test_the_recording_is_what_it_says() -> None:
    assert set(NAMES) == {
        "absent",
        "absent_between",
        "account",
        "code",
        "gas_price",
        "realm_account",
        "session",
    }
    for name in NAMES:
        answer, key = recorded(name)
        assert not answer.refused, answer
        assert answer.height == RECORDED["height"]
        assert answer.key == key
        assert [op.type for op in answer.proof] == ["ics23:bptree", "ics23:simple"]
        assert (answer.value == b"") == name.startswith("absent")
    assert len(APP_HASH) == 32


@pytest.mark.parametrize("name", NAMES)
def test_a_recorded_proof_holds_in_c4_and_in_gno(name: str, go_amino: Any) -> None:
    answer, key = recorded(name)
    value = answer.value or None
    assert app_hash_of(answer.proof, key, value) == APP_HASH
    assert go_amino.verify_store(as_json(answer.proof), APP_HASH, key, value) == ""


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


Forgery = Callable[[tuple[ProofOp, ...], bytes, bytes | None, bytes], tuple[Any, ...]]


def _value_changed(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return ops, key, (value or b"x")[:-1] + bytes([(value or b"x")[-1] ^ 0x01]), root


def _absent_claimed(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return ops, key, None if value else b"\x01", root


def _key_changed(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return ops, _flip(key, len(key) - 1), value, root


def _order_swapped(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return (ops[1], ops[0]), key, value, root


def _app_hash_changed(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return ops, key, value, _flip(root, 0)


def _step_changed(where: int) -> Forgery:
    """A byte of a step of one operation's proof (counted from its end: the path's last
    step, near the root, then the one before)."""

    def forge(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
        op = ops[where]
        forged = op._replace(data=_flip(op.data, len(op.data) - 3))
        return tuple(forged if i == where else o for i, o in enumerate(ops)), key, value, root

    return forge


def _multistore_dropped(ops: Any, key: bytes, value: bytes | None, root: bytes) -> tuple[Any, ...]:
    return ops[:1], key, value, root


FORGERIES: dict[str, Forgery] = {
    "a byte of the value": _value_changed,
    "absent for present, present for absent": _absent_claimed,
    "the key": _key_changed,
    "the operations' order": _order_swapped,
    "the app hash": _app_hash_changed,
    "a step of the store's proof": _step_changed(0),
    "a step of the multistore's proof": _step_changed(1),
    "the multistore's operation dropped": _multistore_dropped,
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
@pytest.mark.parametrize("name", NAMES)
def test_a_forged_proof_fails_in_c4_and_in_gno(name: str, forgery: str, go_amino: Any) -> None:
    answer, key = recorded(name)
    ops, key, value, root = FORGERIES[forgery](answer.proof, key, answer.value or None, APP_HASH)
    if forgery == "a byte of the value" and name.startswith("absent"):
        value = b"\x00"  # a value for a key the proof shows absent
    assert c4_says(ops, key, value, root) != ""
    assert go_amino.verify_store(as_json(ops), root, key, value) != ""


@pytest.mark.parametrize("name", ["account", "realm_account", "session"])
def test_an_account_value_reads_as_the_node_decodes_it(name: str, go_amino: Any) -> None:
    """c4's reading of a proven account (its numbers, coins, key, a session's bounds) is
    the one gno's amino and c4's reading of the node's auth/accounts JSON agree on."""
    answer, key = recorded(name)
    document = go_amino.account(answer.value)
    assert document["@type"] == ("/gno.SessionAccount" if name == "session" else "/gno.Account")
    read = stored.account(answer.value)
    assert read == tm2_account(document)
    assert read.address == encode_address(key[-20:])


# -- absence: neighbours that are true leaves of the tree, but not the key's ----------


def _leaf_bytes(leaf: ics23.LeafOp) -> bytes:
    numbers = (leaf.hash, leaf.prehash_key, leaf.prehash_value, leaf.length)
    out = b"".join(field_key(n, VARINT) + encode_varint(v) for n, v in enumerate(numbers, 1) if v)
    return out + bytes_field(5, leaf.prefix)


def _existence_bytes(proof: ics23.ExistenceProof) -> bytes:
    assert proof.leaf is not None
    out = bytes_field(1, proof.key) + bytes_field(2, proof.value)
    out += bytes_field(3, _leaf_bytes(proof.leaf))
    for step in proof.path:
        inner = field_key(1, VARINT) + encode_varint(step.hash) + bytes_field(2, step.prefix)
        out += bytes_field(4, inner + (bytes_field(3, step.suffix) if step.suffix else b""))
    return out


def _absence_bytes(proof: ics23.NonExistenceProof) -> bytes:
    out = bytes_field(1, proof.key)
    if proof.left is not None:
        out += bytes_field(2, _existence_bytes(proof.left))
    if proof.right is not None:
        out += bytes_field(3, _existence_bytes(proof.right))
    return bytes_field(2, out)


def test_the_test_encoder_writes_the_nodes_bytes() -> None:
    absent, _ = recorded("absent_between")
    decoded = ics23.decode(absent.proof[0].data)
    assert isinstance(decoded, ics23.NonExistenceProof)
    assert _absence_bytes(decoded) == absent.proof[0].data


def _absence_forged(change: str) -> tuple[tuple[ProofOp, ...], bytes]:
    """The absence of the key between two accounts, shown otherwise: a neighbour dropped,
    or replaced by a leaf of the same tree that is not next to the key."""
    absent, key = recorded("absent_between")
    proof = ics23.decode(absent.proof[0].data)
    assert isinstance(proof, ics23.NonExistenceProof)
    assert proof.left is not None and proof.right is not None
    others = [ics23.decode(recorded(name)[0].proof[0].data) for name in NAMES]
    leaves = [p for p in others if isinstance(p, ics23.ExistenceProof)]
    farther_right = [p for p in leaves if p.key > proof.right.key]
    farther_left = [p for p in leaves if p.key < proof.left.key]
    if change == "the left neighbour dropped":
        proof = proof._replace(left=None)
    elif change == "the right neighbour dropped":
        proof = proof._replace(right=None)
    elif change == "a right neighbour farther than the next key":
        proof = proof._replace(right=min(farther_right, key=lambda p: p.key))
    elif change == "a left neighbour farther than the one before":
        proof = proof._replace(left=max(farther_left, key=lambda p: p.key))
    forged = absent.proof[0]._replace(data=_absence_bytes(proof))
    return (forged, absent.proof[1]), key


ABSENCES = [
    "a left neighbour farther than the one before",
    "a right neighbour farther than the next key",
    "the left neighbour dropped",
    "the right neighbour dropped",
]


@pytest.mark.parametrize("change", ABSENCES)
def test_an_absence_shown_by_leaves_that_are_not_neighbours_fails(
    change: str, go_amino: Any
) -> None:
    ops, key = _absence_forged(change)
    said = c4_says(ops, key, None, APP_HASH)
    assert "neighbour" in said, said
    assert go_amino.verify_store(as_json(ops), APP_HASH, key, None) != ""


def test_a_multisig_accounts_key_reads_as_the_node_decodes_it(go_amino: Any) -> None:
    """An account whose key is a multisig (gnokey's `multisig`, c4's `keys add
    --multisig`): its value as the store keeps it, read by c4 and by gno's amino alike."""
    members = [bytes([2]) + bytes([n]) * 32 for n in (1, 2, 3)]
    key = pubkeys.new_multisig(2, list(members))
    address = pubkeys.address(key)
    base = bytes_field(1, address.encode()) + bytes_field(2, b"5ugnot")
    base += bytes_field(3, pubkeys.any_bytes(key))
    base += field_key(4, VARINT) + encode_varint(9) + field_key(5, VARINT) + encode_varint(4)
    value = any_value("/gno.Account", bytes_field(1, base))
    read = stored.account(value)
    assert read == tm2_account(go_amino.account(value))
    assert (read.address, read.number, read.sequence, read.coins) == (address, 9, 4, "5ugnot")
    assert read.public_key["@type"] == "/tm.PubKeyMultisig"


def test_the_gas_price_reads_as_the_node_answers_it() -> None:
    """gno.land's dev gas price, 1ugnot per 1000 gas (as `auth/gasprice` answers it),
    from the value the recorded node proved under ``gasPrice``; a value that is no
    price is refused."""
    from c4cli.wire.storeproof import GAS_PRICE_KEY

    answer, key = recorded("gas_price")
    assert key == GAS_PRICE_KEY
    assert stored.gas_price(answer.value) == (1, 1000)
    with pytest.raises(DecodeError):
        stored.gas_price(b"\x08\x01\x12\x03bad")  # a price that is not a coin

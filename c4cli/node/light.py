"""Checking a tm2 block header by its validators' signatures, as a light client does.

A header's hash is the simple Merkle root of its sixteen fields, each in gno's amino
binary as a value of its own (a string, an int64 as a zigzag varint, the time as
seconds and nanoseconds, the last block id as a struct; an address as its bech32
text, as this version's amino writes one). A commit is the precommits of that hash;
each signs tm2's canonical vote (amino, length-prefixed: type, height and round as
fixed64, the block id, the time, the chain id) with its validator's ed25519 key. A
validator set's hash is the Merkle root of each validator's public key and voting
power. :func:`verify_commit` holds a header to a validator set trusted beforehand:
the set must be the header's, and more than two thirds of its voting power must
have signed this header's hash.

A block's results (:func:`results_hash`) are each ``deliver_tx`` as tm2's
ABCIResult (its error and every event an amino ``Any``, coins as their text, int64
as zigzag varints), rooted the same way, as the next header's ``last_results_hash``.

The encodings were read off gno v1.7.1 and are checked in tests/node/test_light.py
against a real gnoland's blocks (its commits' block ids, its headers' validator
and results hashes, its validators' signatures), and in test_light_vectors.py
against bytes gno v1.7.1 made. :mod:`c4cli.node.verify` holds the node client's
blocks to them.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from c4cli.address import decode_bech32
from c4cli.chain.trust import Validator
from c4cli.errors import Unverified
from c4cli.node.answers import Commit, Header, Vote, unix_time
from c4cli.wire.merkle import merkle_root, txs_root
from c4cli.wire.protowire import VARINT, bytes_field, encode_varint, field_key, zigzag

ED25519 = "/tm.PubKeyEd25519"
PRECOMMIT = 2
FIXED64 = 1


def _b64(value: Any) -> bytes:
    return base64.b64decode(value) if value else b""


def _time(text: str) -> bytes:
    """A tm2 time (RFC 3339, nanoseconds) as amino writes it: seconds 1, nanos 2."""
    seconds = unix_time(text)
    fraction = text.strip().rstrip("Z").partition(".")[2]
    nanos = int((fraction + "0" * 9)[:9]) if fraction else 0
    out = field_key(1, VARINT) + encode_varint(seconds) if seconds else b""
    return out + (field_key(2, VARINT) + encode_varint(nanos) if nanos else b"")


def _int(value: Any, field: int = 1) -> bytes:
    """An int64 field as amino writes it: a zigzag varint (omitted when 0)."""
    number = int(value)
    return field_key(field, VARINT) + encode_varint(zigzag(number)) if number else b""


def _text(value: Any, field: int = 1) -> bytes:
    """A string field (omitted when empty); coins too, as amino writes std.Coins."""
    return bytes_field(field, str(value).encode()) if value else b""


def _bytes(value: Any, field: int = 1) -> bytes:
    """A bytes field given in base64, as tm2's JSON gives bytes (omitted when empty)."""
    raw = _b64(value)
    return bytes_field(field, raw) if raw else b""


def _parts(parts: Mapping[str, Any], total: bytes) -> bytes:
    out = field_key(1, VARINT) + total if int(parts.get("total") or 0) else b""
    return out + _bytes(parts.get("hash"), 2)


def _block_id(block_id: Mapping[str, Any], *, canonical: bool = False) -> bytes:
    """A block id: its hash (1) and parts (2: total, hash); the canonical form (what a
    vote signs) writes the total unsigned, the header's as a zigzag int."""
    parts = block_id.get("parts") or {}
    total = int(parts.get("total") or 0)
    inner = _parts(parts, encode_varint(total if canonical else zigzag(total)))
    return _bytes(block_id.get("hash")) + (bytes_field(2, inner) if inner else b"")


def header_hash(header: Header) -> bytes | None:
    """The hash tm2 gives a header (None for one without validators, as tm2's)."""
    if not header.get("validators_hash"):
        return None
    fields = [
        _text(header["version"]),
        _text(header["chain_id"]),
        _int(header["height"]),
        _time(str(header["time"])),
        _int(header["num_txs"]),
        _int(header["total_txs"]),
        _text(header["app_version"]),
        _block_id(header.get("last_block_id") or {}),
        _bytes(header.get("last_commit_hash")),
        _bytes(header.get("data_hash")),
        _bytes(header.get("validators_hash")),
        _bytes(header.get("next_validators_hash")),
        _bytes(header.get("consensus_hash")),
        _bytes(header.get("app_hash")),
        _bytes(header.get("last_results_hash")),
        _text(header.get("proposer_address")),
    ]
    return merkle_root(fields)


def vote_sign_bytes(chain_id: str, vote: Vote) -> bytes:
    """What a validator signs for a vote: tm2's canonical vote, length-prefixed."""
    out = field_key(1, VARINT) + encode_varint(int(vote["type"])) if int(vote["type"]) else b""
    for number, value in ((2, int(vote["height"])), (3, int(vote["round"]))):
        if value:
            out += field_key(number, FIXED64) + struct.pack("<q", value)
    block_id = _block_id(vote.get("block_id") or {}, canonical=True)
    out += bytes_field(4, block_id) if block_id else b""
    when = _time(str(vote["timestamp"]))
    out += bytes_field(5, when) if when else b""
    out += bytes_field(6, chain_id.encode()) if chain_id else b""
    return encode_varint(len(out)) + out


def validators_hash(validators: Sequence[Validator]) -> bytes | None:
    """The hash of a validator set: each validator's public key (an amino Any) and
    voting power, in the set's order."""
    leaves = []
    for validator in validators:
        key = validator["pub_key"]
        any_key = _any(str(key["@type"]), _bytes(key["value"]))
        power = int(validator["voting_power"])
        leaf = bytes_field(1, any_key)
        leaves.append(
            leaf + (field_key(2, VARINT) + encode_varint(zigzag(power)) if power else b"")
        )
    return merkle_root(leaves)


def data_hash(txs: Sequence[str]) -> bytes | None:
    """The data hash a header gives its block's transactions (base64, as a block
    answer lists them): the Merkle root of each one's SHA-256."""
    return txs_root([_b64(tx) for tx in txs])


def verify_commit(
    chain_id: str, header: Header, commit: Commit, validators: Sequence[Validator]
) -> int:
    """Hold ``header`` and its ``commit`` to ``validators`` (a set trusted beforehand),
    as tm2's ``ValidatorSet.VerifyCommit`` does: a precommit slot for each validator of
    the set, in its order, each naming its own validator; the voting power that signed
    it, or Unverified naming what failed."""
    height = header.get("height")
    distinct_set(height, validators)
    if _b64(header.get("validators_hash")) != validators_hash(validators):
        raise Unverified(f"block {height}: its validators are not the set trusted")
    signed_hash(header, commit)
    precommits = _precommits(height, commit)
    if len(precommits) != len(validators):
        raise Unverified(
            f"block {height}: {len(precommits)} precommits for {len(validators)} validators"
        )
    signers = {}
    for index, vote in enumerate(precommits):
        if vote is None:
            continue  # that validator did not sign in time
        validator = validators[index]
        if vote.get("validator_address") != validator.get("address"):
            raise Unverified(f"block {height}: precommit {index} is not its validator's")
        signers[index] = validator
    total = sum(int(v["voting_power"]) for v in validators)
    power = _tally(chain_id, height, commit, precommits, signers)
    if 3 * power <= 2 * total:
        raise Unverified(
            f"block {height}: signed by {power} of {total} voting power, not more than 2/3"
        )
    return power


def trusted_power(
    chain_id: str, header: Header, commit: Commit, trusted: Sequence[Validator]
) -> int:
    """The voting power of the ``trusted`` set (an earlier one) that signed ``header``:
    its validators found among the commit's by address, each counted once however many
    precommits name it (tm2's ``VerifyFutureCommit``). A header signed by another set
    is believed when more than two thirds of the trusted power signed it too."""
    height = header.get("height")
    distinct_set(height, trusted)
    signed_hash(header, commit)
    precommits = _precommits(height, commit)
    known = {str(v.get("address")): v for v in trusted}
    counted: set[str] = set()
    signers = {}
    for index, vote in enumerate(precommits):
        address = None if vote is None else str(vote.get("validator_address"))
        if address is None or address not in known or address in counted:
            continue  # not of the trusted set, or a second vote of one validator
        counted.add(address)
        signers[index] = known[address]
    return _tally(chain_id, height, commit, precommits, signers)


def distinct_set(height: Any, validators: Sequence[Validator]) -> None:
    """A validator set as tm2 can hold one: each validator's address is its ed25519 key's
    (the first 20 bytes of the key's SHA-256), and no address or key twice. A set that
    lists one key under several names would let one signature count as several."""
    addresses: set[str] = set()
    keys: set[str] = set()
    for index, validator in enumerate(validators):
        key = validator["pub_key"]
        if key.get("@type") != ED25519:
            raise Unverified(f"block {height}: validator {index} has no ed25519 key")
        raw = _b64(key.get("value"))
        address = str(validator.get("address"))
        decoded = decode_bech32(address)
        if len(raw) != 32 or decoded is None or decoded[1] != hashlib.sha256(raw).digest()[:20]:
            raise Unverified(f"block {height}: validator {index}'s address is not its key's")
        if address in addresses or raw.hex() in keys:
            raise Unverified(f"block {height}: the validator set lists one validator twice")
        addresses.add(address)
        keys.add(raw.hex())


def signed_hash(header: Header, commit: Commit) -> bytes:
    """The header's own hash, once it is the block id its commit signed."""
    own = header_hash(header)
    signed = _b64((commit.get("block_id") or {}).get("hash"))
    if own is None or own != signed:
        raise Unverified(
            f"block {header.get('height')}: its header does not hash to the block id signed"
        )
    return own


def _precommits(height: Any, commit: Commit) -> list[Vote | None]:
    """A commit's precommits, once they are all precommits of ``height`` in one round
    (tm2's ``Commit.ValidateBasic``)."""
    precommits = commit.get("precommits") or []
    if not isinstance(precommits, list):
        raise Unverified(f"block {height}: its commit lists no precommits")
    rounds = set()
    for index, vote in enumerate(precommits):
        if vote is None:
            continue
        if int(vote["type"]) != PRECOMMIT or str(vote["height"]) != str(height):
            raise Unverified(f"block {height}: precommit {index} is not for this block")
        rounds.add(str(vote["round"]))
    if len(rounds) > 1:
        raise Unverified(f"block {height}: its precommits are of different rounds")
    return precommits


def _same_block(one: Any, other: Any) -> bool:
    """Two block ids are one (tm2's ``BlockID.Equals``): the hash, and the parts' total
    and hash."""
    first, second = one or {}, other or {}
    parts, others = first.get("parts") or {}, second.get("parts") or {}
    return (
        _b64(first.get("hash")) == _b64(second.get("hash"))
        and int(parts.get("total") or 0) == int(others.get("total") or 0)
        and _b64(parts.get("hash")) == _b64(others.get("hash"))
    )


def _tally(
    chain_id: str,
    height: Any,
    commit: Commit,
    precommits: Sequence[Vote | None],
    signers: Mapping[int, Validator],
) -> int:
    """The voting power of ``signers`` (precommit index: its validator, of a set
    :func:`distinct_set` checked: ed25519 keys) whose precommit for the commit's block
    verifies; a signature that does not is a forgery."""
    power = 0
    for index, validator in signers.items():
        vote = precommits[index]
        if vote is None:
            continue  # a validator that did not sign: never among the signers
        try:
            key = Ed25519PublicKey.from_public_bytes(_b64(validator["pub_key"]["value"]))
            key.verify(_b64(vote.get("signature")), vote_sign_bytes(chain_id, vote))
        except (InvalidSignature, ValueError):
            raise Unverified(f"block {height}: precommit {index}'s signature is forged") from None
        if _same_block(vote.get("block_id"), commit.get("block_id")):
            power += int(validator["voting_power"])
        # else: a vote for nil or another block counts for nothing
    return power


class Unencodable(ValueError):
    """A result holding an event or error type whose amino encoding c4 does not know."""


def results_hash(deliver_txs: Sequence[Mapping[str, Any]]) -> bytes | None:
    """The hash the next header gives a block's results (``last_results_hash``): the
    Merkle root of each ``deliver_tx`` as tm2's ABCIResult (its error, data and events)
    in amino; Unencodable for a type whose encoding c4 does not know."""
    return merkle_root([result_bytes(deliver) for deliver in deliver_txs])


def result_bytes(deliver: Mapping[str, Any]) -> bytes:
    """One ``deliver_tx`` as tm2's ABCIResult in amino (its deterministic part)."""
    base = deliver.get("ResponseBase") or deliver
    error = base.get("Error")
    out = bytes_field(1, _error(error)) if error else b""
    out += _bytes(base.get("Data"), 2)
    for event in base.get("Events") or []:
        out += bytes_field(3, _event(event))
    return out


def _error(error: Mapping[str, Any]) -> bytes:
    """An abci.Error as an amino Any: a string type's text in field 1 of its value, a
    struct type (gno's errors carry no fields) with none."""
    value = error.get("value")
    if isinstance(value, str):
        inner = _text(value)
    elif not value:
        inner = b""
    else:
        raise Unencodable(f"an error of type {error.get('@type')} with fields")
    return _any(str(error.get("@type")), inner)


def _event(event: Mapping[str, Any]) -> bytes:
    kind = str(event.get("@type"))
    if kind == "/bank.TransferEvent":
        inner = _text(event.get("from")) + _text(event.get("to"), 2) + _text(event.get("coins"), 3)
    elif kind == "/tm.Event":
        attrs = b"".join(
            bytes_field(2, _text(a.get("key")) + _text(a.get("value"), 2))
            for a in event.get("attrs") or []
        )
        inner = _text(event.get("type")) + attrs + _text(event.get("pkg_path"), 3)
    elif kind in ("/tm.StorageDepositEvent", "/tm.StorageUnlockEvent"):
        coin = event.get("fee_delta" if kind.endswith("DepositEvent") else "fee_refund")
        inner = _int(event.get("bytes_delta") or 0) + _text(coin, 2)
        inner += _text(event.get("pkg_path"), 3)
        if event.get("refund_withheld"):
            inner += field_key(4, VARINT) + b"\x01"
    else:
        raise Unencodable(f"an event of type {kind}")
    return _any(kind, inner)


def _any(type_url: str, value: bytes) -> bytes:
    """An amino ``Any`` as gno writes one inside a struct: no value field when empty."""
    return bytes_field(1, type_url.encode()) + (bytes_field(2, value) if value else b"")

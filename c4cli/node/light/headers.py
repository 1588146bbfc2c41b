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

The values and their bytes (a header's hash, a vote's sign bytes, a set's hash)
are the wire's (:mod:`c4cli.wire.blocks`), checked against a real gnoland's blocks
and bytes gno v1.7.1 made. :mod:`c4cli.node.light.verify` holds the node client's blocks
to them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from c4cli.address import decode_bech32
from c4cli.errors import Unverified
from c4cli.wire.blocks import PRECOMMIT, Commit, Header, Validator, Vote, validators_hash

ED25519 = "/tm.PubKeyEd25519"


def verify_commit(
    chain_id: str, header: Header, commit: Commit, validators: Sequence[Validator]
) -> int:
    """Hold ``header`` and its ``commit`` to ``validators`` (a set trusted beforehand),
    as tm2's ``ValidatorSet.VerifyCommit`` does: a precommit slot for each validator of
    the set, in its order, each naming its own validator; the voting power that signed
    it, or Unverified naming what failed."""
    height = header.height
    distinct_set(height, validators)
    if header.validators_hash != validators_hash(validators):
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
        if vote.validator_address != validator.address:
            raise Unverified(f"block {height}: precommit {index} is not its validator's")
        signers[index] = validator
    total = sum(v.voting_power for v in validators)
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
    height = header.height
    distinct_set(height, trusted)
    signed_hash(header, commit)
    precommits = _precommits(height, commit)
    known = {v.address: v for v in trusted}
    counted: set[str] = set()
    signers = {}
    for index, vote in enumerate(precommits):
        address = None if vote is None else vote.validator_address
        if address is None or address not in known or address in counted:
            continue  # not of the trusted set, or a second vote of one validator
        counted.add(address)
        signers[index] = known[address]
    return _tally(chain_id, height, commit, precommits, signers)


def distinct_set(height: int, validators: Sequence[Validator]) -> None:
    """A validator set as tm2 can hold one: each validator's address is its ed25519 key's
    (the first 20 bytes of the key's SHA-256), and no address or key twice. A set that
    lists one key under several names would let one signature count as several."""
    addresses: set[str] = set()
    keys: set[bytes] = set()
    for index, validator in enumerate(validators):
        if validator.pub_key.type_url != ED25519:
            raise Unverified(f"block {height}: validator {index} has no ed25519 key")
        raw = validator.pub_key.value
        decoded = decode_bech32(validator.address)
        if len(raw) != 32 or decoded is None or decoded[1] != hashlib.sha256(raw).digest()[:20]:
            raise Unverified(f"block {height}: validator {index}'s address is not its key's")
        if validator.address in addresses or raw in keys:
            raise Unverified(f"block {height}: the validator set lists one validator twice")
        addresses.add(validator.address)
        keys.add(raw)


def signed_hash(header: Header, commit: Commit) -> bytes:
    """The header's own hash, once it is the block id its commit signed."""
    own = header.hash()
    if own is None or own != commit.block_id.hash:
        raise Unverified(f"block {header.height}: its header does not hash to the block id signed")
    return own


def _precommits(height: int, commit: Commit) -> tuple[Vote | None, ...]:
    """A commit's precommits, once they are all precommits of ``height`` in one round
    (tm2's ``Commit.ValidateBasic``)."""
    rounds = set()
    for index, vote in enumerate(commit.precommits):
        if vote is None:
            continue
        if vote.type != PRECOMMIT or vote.height != height:
            raise Unverified(f"block {height}: precommit {index} is not for this block")
        rounds.add(vote.round)
    if len(rounds) > 1:
        raise Unverified(f"block {height}: its precommits are of different rounds")
    return commit.precommits


def _tally(
    chain_id: str,
    height: int,
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
            key = Ed25519PublicKey.from_public_bytes(validator.pub_key.value)
            key.verify(vote.signature, vote.sign_bytes(chain_id))
        except (InvalidSignature, ValueError):
            raise Unverified(f"block {height}: precommit {index}'s signature is forged") from None
        if vote.block_id == commit.block_id:  # tm2's BlockID.Equals: hash and parts
            power += validator.voting_power
        # else: a vote for nil or another block counts for nothing
    return power

"""ICS-23 commitment proofs, as a gno.land v1.7.1 node answers a store query that asks
for one: the messages (cosmos.ics23.v1, protobuf), the two proof specs gno.land uses,
and the checks that a key holds a value, or holds none, under a root.

A ``.store/main/key`` query with ``prove`` is answered with two operations: an
``ics23:bptree`` proof of the key in the main store (a B+32 tree whose mini-Merkle
nodes prove as a chain of binary steps; gno's ``tm2/pkg/bptree/proof_spec.go``), then
an ``ics23:simple`` proof of the main store's root under the name ``main`` in the
multistore's simple map (tm2's ``crypto/merkle``; its spec is ICS-23's
``TendermintSpec``). The checks are ICS-23's own (a leaf and each step held to the
spec, the neighbours of an absent key), restricted to what those two specs use:
SHA-256 and protobuf varint lengths. Anything else (another hash, a batch or
compressed proof) is refused, never guessed at.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from c4cli.wire.protowire import DecodeError, wire_fields

NO_HASH, SHA256 = 0, 1  # cosmos.ics23.v1.HashOp
NO_PREFIX, VAR_PROTO = 0, 1  # cosmos.ics23.v1.LengthOp
CHILDREN = 2  # both specs: binary trees, children in the order (0, 1)


class ProofError(ValueError):
    """A proof that does not prove what it is asked to, with what failed."""


class LeafOp(NamedTuple):
    hash: int
    prehash_key: int
    prehash_value: int
    length: int
    prefix: bytes


class InnerOp(NamedTuple):
    hash: int
    prefix: bytes
    suffix: bytes


class ExistenceProof(NamedTuple):
    key: bytes
    value: bytes
    leaf: LeafOp | None
    path: tuple[InnerOp, ...]


class NonExistenceProof(NamedTuple):
    key: bytes
    left: ExistenceProof | None
    right: ExistenceProof | None


class Spec(NamedTuple):
    """A tree's shape as ICS-23 states it (binary trees only)."""

    leaf: LeafOp
    inner_hash: int
    child_size: int
    min_prefix: int
    max_prefix: int
    empty_child: bytes
    min_depth: int
    max_depth: int


_LEAF = LeafOp(SHA256, NO_HASH, SHA256, VAR_PROTO, b"\x00")
# tm2's simple Merkle tree (the multistore's map of store roots): ICS-23's TendermintSpec.
SIMPLE = Spec(_LEAF, SHA256, 32, 1, 1, b"", 0, 0)
# gno's B+32 tree (tm2/pkg/bptree BptreeSpec): an empty child is SHA-256 of 0x02.
BPTREE = Spec(_LEAF, SHA256, 32, 1, 1, hashlib.sha256(b"\x02").digest(), 5, 60)


# -- the messages -------------------------------------------------------------------


def _fields(data: bytes, what: str) -> list[tuple[int, int | bytes]]:
    try:
        return wire_fields(data)
    except DecodeError as exc:
        raise ProofError(f"{what} is not protobuf: {exc}") from None


def _bytes(value: int | bytes, what: str) -> bytes:
    if not isinstance(value, bytes):
        raise ProofError(f"{what}: a number where bytes belong")
    return value


def _number(value: int | bytes, what: str) -> int:
    if isinstance(value, bytes):
        raise ProofError(f"{what}: bytes where a number belongs")
    return value


def _leaf_op(data: bytes) -> LeafOp:
    numbers = {1: 0, 2: 0, 3: 0, 4: 0}
    prefix = b""
    for number, value in _fields(data, "a leaf op"):
        if number in numbers:
            numbers[number] = _number(value, "a leaf op")
        elif number == 5:
            prefix = _bytes(value, "a leaf op's prefix")
    return LeafOp(numbers[1], numbers[2], numbers[3], numbers[4], prefix)


def _inner_op(data: bytes) -> InnerOp:
    hash_op, prefix, suffix = 0, b"", b""
    for number, value in _fields(data, "an inner op"):
        if number == 1:
            hash_op = _number(value, "an inner op")
        elif number == 2:
            prefix = _bytes(value, "an inner op's prefix")
        elif number == 3:
            suffix = _bytes(value, "an inner op's suffix")
    return InnerOp(hash_op, prefix, suffix)


def _existence(data: bytes) -> ExistenceProof:
    key, value, leaf, path = b"", b"", None, []
    for number, field in _fields(data, "an existence proof"):
        if number == 1:
            key = _bytes(field, "a proof's key")
        elif number == 2:
            value = _bytes(field, "a proof's value")
        elif number == 3:
            leaf = _leaf_op(_bytes(field, "a proof's leaf"))
        elif number == 4:
            path.append(_inner_op(_bytes(field, "a proof's step")))
    return ExistenceProof(key, value, leaf, tuple(path))


def _non_existence(data: bytes) -> NonExistenceProof:
    key, left, right = b"", None, None
    for number, field in _fields(data, "a non-existence proof"):
        if number == 1:
            key = _bytes(field, "a proof's key")
        elif number == 2:
            left = _existence(_bytes(field, "a proof's left neighbour"))
        elif number == 3:
            right = _existence(_bytes(field, "a proof's right neighbour"))
    return NonExistenceProof(key, left, right)


def decode(data: bytes) -> ExistenceProof | NonExistenceProof:
    """A ``CommitmentProof``'s one proof: of a key's value, or of its absence."""
    found: ExistenceProof | NonExistenceProof | None = None
    for number, field in _fields(data, "a commitment proof"):
        if number == 1:
            found = _existence(_bytes(field, "an existence proof"))
        elif number == 2:
            found = _non_existence(_bytes(field, "a non-existence proof"))
        elif number in (3, 4):
            raise ProofError("a batch proof, which no store query answers: refused")
    if found is None:
        raise ProofError("the proof holds neither an existence nor a non-existence proof")
    return found


# -- computing a root ---------------------------------------------------------------


def _hash(op: int, data: bytes) -> bytes:
    if op != SHA256:
        raise ProofError(f"hash op {op} is not one gno.land's proofs use")
    return hashlib.sha256(data).digest()


def _varint(size: int) -> bytes:
    out = bytearray()
    while size >= 0x80:
        out.append(size & 0x7F | 0x80)
        size >>= 7
    out.append(size)
    return bytes(out)


def _leaf_data(prehash: int, length: int, data: bytes) -> bytes:
    hashed = data if prehash == NO_HASH else _hash(prehash, data)
    if length == NO_PREFIX:
        return hashed
    if length == VAR_PROTO:
        return _varint(len(hashed)) + hashed
    raise ProofError(f"length op {length} is not one gno.land's proofs use")


def _leaf_hash(leaf: LeafOp, key: bytes, value: bytes) -> bytes:
    if not key or not value:
        raise ProofError("a leaf needs a key and a value")
    key_data = _leaf_data(leaf.prehash_key, leaf.length, key)
    value_data = _leaf_data(leaf.prehash_value, leaf.length, value)
    return _hash(leaf.hash, leaf.prefix + key_data + value_data)


def root_of(proof: ExistenceProof) -> bytes:
    """The root a leaf's path computes to (its shape is :func:`_check_shape`'s)."""
    if proof.leaf is None:
        raise ProofError("an existence proof without its leaf")
    node = _leaf_hash(proof.leaf, proof.key, proof.value)
    for step in proof.path:
        node = _hash(step.hash, step.prefix + node + step.suffix)
    return node


def _check_shape(proof: ExistenceProof, spec: Spec) -> None:
    """ICS-23's CheckAgainstSpec: the leaf as the spec's, each step's padding possible."""
    leaf = proof.leaf
    if leaf is None:
        raise ProofError("an existence proof without its leaf")
    if leaf._replace(prefix=b"") != spec.leaf._replace(prefix=b""):
        raise ProofError("the leaf is not hashed as the tree's leaves are")
    if not leaf.prefix.startswith(spec.leaf.prefix):
        raise ProofError("the leaf's prefix is not the tree's leaf prefix")
    if spec.min_depth and len(proof.path) < spec.min_depth:
        raise ProofError(f"the path is too short for this tree ({len(proof.path)} steps)")
    if len(proof.path) > (spec.max_depth or 128):
        raise ProofError(f"the path is too long for this tree ({len(proof.path)} steps)")
    longest = spec.max_prefix + (CHILDREN - 1) * spec.child_size
    for step in proof.path:
        if step.hash != spec.inner_hash:
            raise ProofError("a step is not hashed as the tree's nodes are")
        if step.prefix.startswith(spec.leaf.prefix):
            raise ProofError("a step's prefix is the leaf prefix (a leaf posing as a node)")
        if not spec.min_prefix <= len(step.prefix) <= longest:
            raise ProofError(f"a step's prefix has an impossible length ({len(step.prefix)})")
        if len(step.suffix) % spec.child_size:
            raise ProofError("a step's suffix is not whole children")


# -- where a step stands among its siblings (a non-existence proof's neighbours) ----


def _padding(spec: Spec, branch: int) -> tuple[int, int, int]:
    before = branch * spec.child_size
    after = (CHILDREN - 1 - branch) * spec.child_size
    return before + spec.min_prefix, before + spec.max_prefix, after


def _padded(step: InnerOp, spec: Spec, branch: int) -> bool:
    low, high, suffix = _padding(spec, branch)
    return low <= len(step.prefix) <= high and len(step.suffix) == suffix


def _branch(step: InnerOp, spec: Spec) -> int | None:
    return next((b for b in range(CHILDREN) if _padded(step, spec, b)), None)


def _empty_before(step: InnerOp, spec: Spec) -> bool:
    """A step right of siblings that are all empty: left-most in what the tree holds."""
    branch = _branch(step, spec)
    if not branch:
        return False
    start = len(step.prefix) - branch * spec.child_size
    if start < 0:
        return False
    size = spec.child_size
    return all(
        step.prefix[start + i * size : start + (i + 1) * size] == spec.empty_child
        for i in range(branch)
    )


def _empty_after(step: InnerOp, spec: Spec) -> bool:
    """A step left of siblings that are all empty: right-most in what the tree holds."""
    branch = _branch(step, spec)
    if branch is None:
        return False
    count = CHILDREN - 1 - branch
    size = spec.child_size
    if count == 0 or len(step.suffix) != count * size:
        return False
    return all(step.suffix[i * size : (i + 1) * size] == spec.empty_child for i in range(count))


def _left_most(path: tuple[InnerOp, ...], spec: Spec) -> bool:
    return all(_padded(step, spec, 0) or _empty_before(step, spec) for step in path)


def _right_most(path: tuple[InnerOp, ...], spec: Spec) -> bool:
    last = CHILDREN - 1
    return all(_padded(step, spec, last) or _empty_after(step, spec) for step in path)


def _neighbours(left: tuple[InnerOp, ...], right: tuple[InnerOp, ...], spec: Spec) -> bool:
    """Whether ``right`` is the next leaf after ``left``: below their last common node,
    left takes the branch just before right's, then runs right-most and right left-most."""
    shared = 0
    while (
        shared < min(len(left), len(right))
        and left[-1 - shared].prefix == right[-1 - shared].prefix
        and left[-1 - shared].suffix == right[-1 - shared].suffix
    ):
        shared += 1
    if shared >= min(len(left), len(right)):
        return False  # the same path: not two leaves
    split_left, split_right = left[-1 - shared], right[-1 - shared]
    at_left, at_right = _branch(split_left, spec), _branch(split_right, spec)
    if at_left is None or at_right is None or at_right != at_left + 1:
        return False
    below = len(left) - 1 - shared, len(right) - 1 - shared
    return _right_most(left[: below[0]], spec) and _left_most(right[: below[1]], spec)


def _absence_root(proof: NonExistenceProof, spec: Spec, key: bytes) -> bytes:
    """The root under which ``key`` is absent, as two neighbours of one tree show it."""
    left, right = proof.left, proof.right
    if left is None and right is None:
        raise ProofError("a non-existence proof with neither neighbour")
    roots = set()
    if left is not None:
        _check_shape(left, spec)
        roots.add(root_of(left))
        if not left.key < key:
            raise ProofError("the left neighbour is not left of the key")
    if right is not None:
        _check_shape(right, spec)
        roots.add(root_of(right))
        if not key < right.key:
            raise ProofError("the right neighbour is not right of the key")
    if len(roots) != 1:
        raise ProofError("the two neighbours do not compute to one root")
    if left is None:
        assert right is not None
        if not _left_most(right.path, spec):
            raise ProofError("no left neighbour, and the right one is not the first key")
    elif right is None:
        if not _right_most(left.path, spec):
            raise ProofError("no right neighbour, and the left one is not the last key")
    elif not _neighbours(left.path, right.path, spec):
        raise ProofError("the two neighbours are not next to each other")
    return roots.pop()


def verify(
    proof: ExistenceProof | NonExistenceProof, spec: Spec, key: bytes, value: bytes | None
) -> bytes:
    """The root under which ``key`` holds ``value`` (None: holds nothing), as ``proof``
    shows it; ProofError when it does not show that. The root is the proof's own: the
    caller holds it to the root it trusts (the next operation's input, the app hash)."""
    if value is None:
        if not isinstance(proof, NonExistenceProof):
            raise ProofError("a proof that the key holds a value, where none was answered")
        return _absence_root(proof, spec, key)
    if not isinstance(proof, ExistenceProof):
        raise ProofError("a proof that the key is absent, where a value was answered")
    if proof.key != key:
        raise ProofError("the proof is of another key")
    if proof.value != value:
        raise ProofError("the proof is of another value")
    _check_shape(proof, spec)
    return root_of(proof)

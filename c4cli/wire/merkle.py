"""tm2's simple Merkle tree (RFC 6962's): the root a block header names its
transactions, its validator set and its own fields by."""

from __future__ import annotations

import hashlib


def merkle_root(items: list[bytes]) -> bytes | None:
    """The root of ``items``: leaves and inner nodes hashed with the prefixes 0 and 1,
    split at the largest power of two below the count; None for no items.

    >>> merkle_root([b""]).hex()[:16], merkle_root([])
    ('6e340b9cffb37a98', None)
    """
    if not items:
        return None
    if len(items) == 1:
        return hashlib.sha256(b"\x00" + items[0]).digest()
    split = 1 << ((len(items) - 1).bit_length() - 1)
    left, right = merkle_root(items[:split]), merkle_root(items[split:])
    assert left is not None and right is not None
    return hashlib.sha256(b"\x01" + left + right).digest()


def txs_root(txs: list[bytes]) -> bytes | None:
    """A block's data hash as tm2 gives it: the root of each transaction's SHA-256."""
    return merkle_root([hashlib.sha256(tx).digest() for tx in txs])


def _split(count: int) -> int:
    """Where tm2's tree splits ``count`` items: the largest power of two below it."""
    return 1 << ((count - 1).bit_length() - 1)


def leaf_hash(item: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + item).digest()


def aunts(items: list[bytes], index: int) -> list[bytes]:
    """The sibling hashes that lead item ``index`` of ``items`` up to their root, the
    leaf's sibling first (tm2's ``SimpleProof.Aunts``).

    >>> leaves = [b"a", b"b", b"c"]
    >>> root_from_aunts(b"c", 2, 3, aunts(leaves, 2)) == merkle_root(leaves)
    True
    """
    if not 0 <= index < len(items):
        raise IndexError(f"item {index} of {len(items)}")
    if len(items) == 1:
        return []
    split = _split(len(items))
    if index < split:
        path, sibling = aunts(items[:split], index), merkle_root(items[split:])
    else:
        path, sibling = aunts(items[split:], index - split), merkle_root(items[:split])
    assert sibling is not None
    return [*path, sibling]


def root_from_aunts(item: bytes, index: int, total: int, path: list[bytes]) -> bytes | None:
    """The root that ``item``, at ``index`` of ``total`` items, and its ``path`` (from
    :func:`aunts`) lead to; None when the path's length is not the tree's depth there
    or the index is outside it."""
    if not 0 <= index < total:
        return None
    if total == 1:
        return leaf_hash(item) if not path else None
    if not path:
        return None
    split = _split(total)
    if index < split:
        left = root_from_aunts(item, index, split, path[:-1])
        return None if left is None else _inner(left, path[-1])
    right = root_from_aunts(item, index - split, total - split, path[:-1])
    return None if right is None else _inner(path[-1], right)


def _inner(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()

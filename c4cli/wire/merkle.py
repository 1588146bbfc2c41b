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

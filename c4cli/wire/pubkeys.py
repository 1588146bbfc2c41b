"""Public keys as tm2 knows them: a secp256k1 key, or a K-of-N threshold multisig.

A secp256k1 key is its 33 compressed bytes. A multisig (``/tm.PubKeyMultisig``) is
a threshold over member keys, each itself either kind; its address is the first 20
bytes of the sha256 of its amino ``Any``, and it signs with a *multisignature*: a
bit array saying which members signed, then their signatures in member order. The
checks here are the ones tm2 v1.7.1 makes of a key a transaction carries (a
positive threshold, at least that many members, no member twice, at most 6 levels
and 14 keys in all), so a key refused here is refused by a node.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import Any, NamedTuple, Union

from c4cli.address import decode_bech32, encode_address, encode_bech32
from c4cli.errors import BadInput
from c4cli.jsonvalue import Document
from c4cli.wire.protowire import (
    DecodeError,
    any_value,
    bytes_field,
    encode_varint,
    wire_fields,
)

SECP256K1 = "/tm.PubKeySecp256k1"
MULTISIG = "/tm.PubKeyMultisig"
MAX_NESTING = 6  # levels of multisig, counting the outer one
MAX_KEYS = 14  # keys in all, multisigs and members alike
TX_SIG_LIMIT = 7  # member keys (leaves) one transaction may present, auth's default


class Multisig(NamedTuple):
    """A K-of-N threshold key: any ``threshold`` of ``keys`` sign for it."""

    threshold: int
    keys: tuple[PubKey, ...]


PubKey = Union[bytes, Multisig]  # noqa: UP007 (a NamedTuple field refers to it by name)


class NotAKey(ValueError):
    """Bytes or JSON that are not a public key tm2 accepts."""


# -- amino ------------------------------------------------------------------------------


def any_bytes(key: PubKey) -> bytes:
    """The key as an amino ``Any``: what a transaction carries, and what is hashed for a
    multisig's address."""
    if isinstance(key, bytes):
        return any_value(SECP256K1, bytes_field(1, key))
    body = encode_varint(1 << 3) + encode_varint(key.threshold) if key.threshold else b""
    body += b"".join(bytes_field(2, any_bytes(member)) for member in key.keys)
    return any_value(MULTISIG, body)


def from_any(data: bytes) -> PubKey:
    """A key from its amino ``Any`` (a ``gpub1…`` string's bytes)."""
    try:
        fields = wire_fields(data)
        kind = _last(fields, 1, b"")
        value = _last(fields, 2, b"")
        if not isinstance(kind, bytes) or not isinstance(value, bytes):
            raise NotAKey("not a public key")
        inner = wire_fields(value)
        if kind.decode() == SECP256K1:
            key = _last(inner, 1, b"")
            if not isinstance(key, bytes) or len(key) != 33:
                raise NotAKey("a secp256k1 key is 33 bytes")
            return key
        if kind.decode() == MULTISIG:
            threshold = _last(inner, 1, 0)
            if not isinstance(threshold, int):
                raise NotAKey("a multisig's threshold is a number")
            members = [value for number, value in inner if number == 2]
            if not all(isinstance(member, bytes) for member in members):
                raise NotAKey("a multisig's members are keys")
            return Multisig(threshold, tuple(from_any(m) for m in members if isinstance(m, bytes)))
    except (DecodeError, UnicodeDecodeError):
        raise NotAKey("not a public key") from None
    raise NotAKey(f"unknown public key type {kind.decode(errors='replace')!r}")


def _last(fields: list[tuple[int, int | bytes]], number: int, default: int | bytes) -> int | bytes:
    found = [value for field, value in fields if field == number]
    return found[-1] if found else default


# -- amino JSON -------------------------------------------------------------------------


def to_json(key: PubKey) -> Document:
    """The key as amino JSON writes it (``{"@type": …, "value": …}`` or a multisig's
    ``threshold`` and ``pubkeys``)."""
    if isinstance(key, bytes):
        return {"@type": SECP256K1, "value": base64.b64encode(key).decode()}
    return {
        "@type": MULTISIG,
        "threshold": str(key.threshold),
        "pubkeys": [to_json(member) for member in key.keys],
    }


def from_json(value: Any) -> PubKey:
    """A key from its amino JSON; NotAKey if it is not one."""
    if not isinstance(value, dict):
        raise NotAKey("a public key must be an object")
    kind = value.get("@type")
    if kind == SECP256K1:
        try:
            key = base64.b64decode(str(value["value"]), validate=True)
        except (KeyError, ValueError):
            raise NotAKey("a secp256k1 key needs its base64 value") from None
        if len(key) != 33:
            raise NotAKey("a secp256k1 key is 33 bytes")
        return key
    if kind == MULTISIG:
        threshold, members = value.get("threshold"), value.get("pubkeys")
        if (
            not isinstance(threshold, str)
            or not threshold.isdigit()
            or not isinstance(members, list)
        ):
            raise NotAKey("a multisig needs a threshold and its pubkeys")
        return Multisig(int(threshold), tuple(from_json(member) for member in members))
    raise NotAKey(f"unknown public key type {kind!r}")


# -- names ------------------------------------------------------------------------------


def address_bytes(key: PubKey) -> bytes:
    if isinstance(key, bytes):
        return hashlib.new("ripemd160", hashlib.sha256(key).digest()).digest()
    return hashlib.sha256(any_bytes(key)).digest()[:20]


@lru_cache(maxsize=4096)
def address(key: PubKey) -> str:
    """The ``g1…`` address the key signs for (memoised: bech32 is slow)."""
    return encode_address(address_bytes(key))


def bech32(key: PubKey) -> str:
    """``gpub1…``: the bech32 of the key's amino ``Any``, as gnokey prints and reads it.

    >>> test1 = "03e16136db171e32df489935941f056e22f89863e3739d0ab7cd49ec42839c9db2"
    >>> bech32(bytes.fromhex(test1))[-16:]  # gnokey list: pub: gpub1pgfj…
    '7cs5rnjwmyf40yaj'
    """
    return encode_bech32("gpub", any_bytes(key))


def from_bech32(text: str) -> PubKey:
    """A key from its ``gpub1…`` text; BadInput, in one line, if it is not one."""
    decoded = decode_bech32(text.strip())
    if decoded is None or decoded[0] != "gpub":
        raise BadInput(f"{text!r} is not a public key: expected gpub1…, as gnokey prints one")
    try:
        key = from_any(decoded[1])
        check(key)
    except NotAKey as exc:
        raise BadInput(f"{text[:24]}… is not a public key tm2 accepts: {exc}") from None
    return key


def describe(key: PubKey) -> str:
    """The key as gnokey lists it: its ``gpub1…``, a multisig as its members' in brackets."""
    if isinstance(key, bytes):
        return bech32(key)
    return "[" + ", ".join(describe(member) for member in key.keys) + "]"


def leaves(key: PubKey) -> int:
    """How many member keys sign for it (tm2's CountSubKeys)."""
    return 1 if isinstance(key, bytes) else sum(leaves(member) for member in key.keys)


# -- checks and signatures --------------------------------------------------------------


def new_multisig(threshold: int, members: list[PubKey], *, sort: bool = True) -> Multisig:
    """A K-of-N key over ``members``, sorted by address unless ``sort`` is False (as
    gnokey's ``add multisig`` and its ``-nosort``); BadInput if tm2 would refuse it."""
    if sort:
        members = sorted(members, key=address_bytes)
    key = Multisig(threshold, tuple(members))
    try:
        check(key)
    except NotAKey as exc:
        raise BadInput(f"invalid multisig: {exc}") from None
    return key


def check(key: PubKey) -> None:
    """tm2's checks of a key, at every level; NotAKey says which fails."""
    budget = [MAX_KEYS]

    def walk(node: PubKey, levels: int) -> None:
        if budget[0] <= 0:
            raise NotAKey(f"more than {MAX_KEYS} keys in total")
        budget[0] -= 1
        if isinstance(node, bytes):
            return
        if levels <= 0:
            raise NotAKey(f"nested more than {MAX_NESTING} levels deep")
        if node.threshold <= 0:
            raise NotAKey("the threshold must be at least 1")
        if len(node.keys) < node.threshold:
            raise NotAKey(f"a threshold of {node.threshold} needs at least as many keys")
        if len(set(node.keys)) != len(node.keys):
            raise NotAKey("a key is listed twice")
        for member in node.keys:
            walk(member, levels - 1)

    walk(key, MAX_NESTING)


def multisignature(size: int, signatures: dict[int, bytes]) -> bytes:
    """The amino bytes of a multisignature over ``size`` members: the bit array of who
    signed (most significant bit first), then each signature in member order."""
    elems = bytearray((size + 7) // 8)
    for index in signatures:
        if not 0 <= index < size:
            raise BadInput(f"member {index} is not one of the multisig's {size}")
        elems[index >> 3] |= 0x80 >> (index % 8)
    bits = (encode_varint(1 << 3) + encode_varint(size % 8) if size % 8 else b"") + bytes_field(
        2, bytes(elems)
    )
    return bytes_field(1, bits) + b"".join(
        bytes_field(2, signatures[i]) for i in sorted(signatures)
    )


def placeholder_signature(key: PubKey) -> bytes:
    """A signature of the right shape and no worth, for a simulation (which checks no
    signature of a call or a send, but meters each one and reads a multisignature):
    64 zero bytes for a secp256k1 key; for a multisig, its first ``threshold`` members'."""
    if isinstance(key, bytes):
        return bytes(64)
    return multisignature(
        len(key.keys),
        {index: placeholder_signature(key.keys[index]) for index in range(key.threshold)},
    )


def signed_members(size: int, data: bytes) -> list[tuple[int, bytes]] | None:
    """(member index, signature) of a multisignature over ``size`` members, or None
    where tm2 would refuse its shape (a bit array of another size, a signature more or
    less than the bits set)."""
    try:
        fields = wire_fields(data)
        bits = _last(fields, 1, b"")
        if not isinstance(bits, bytes):
            return None
        inner = wire_fields(bits)
        extra, elems = _last(inner, 1, 0), _last(inner, 2, b"")
        if not isinstance(extra, int) or not isinstance(elems, bytes) or extra > 7:
            return None
    except DecodeError:
        return None
    if extra and not elems:
        return None
    stored = (len(elems) - 1) * 8 + extra if extra else len(elems) * 8
    signatures = [value for number, value in fields if number == 2]
    if stored != size or not all(isinstance(s, bytes) for s in signatures):
        return None
    chosen = [i for i in range(size) if elems[i >> 3] & (0x80 >> (i % 8))]
    if len(chosen) != len(signatures):
        return None
    return [(i, s) for i, s in zip(chosen, signatures, strict=True) if isinstance(s, bytes)]


def verify(key: PubKey, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the key's over ``message``: a multisig needs at least its
    threshold of members, every signature given valid."""
    if isinstance(key, bytes):
        from c4cli.wire import crypto  # signing's module: a signature checked, not a key read

        return crypto.verify(key, message, signature)
    try:
        check(key)
    except NotAKey:
        return False
    members = signed_members(len(key.keys), signature)
    if members is None or len(members) < key.threshold:
        return False
    return all(verify(key.keys[index], message, sig) for index, sig in members)

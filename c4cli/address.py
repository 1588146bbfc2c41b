"""gno.land addresses: bech32 with prefix ``g`` over 20 bytes.

The chain accepts four spellings of one address (bech32 or bech32m, lower or
upper case), but a caller is always written in the canonical one: lower-case
bech32. The realm refuses the other spellings wherever it stores an address,
because a stored spelling that is not the canonical one can never match a caller.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from bech32 import bech32_encode, bech32_hrp_expand, bech32_polymod, convertbits

PREFIX = "g"
ADDRESS_LEN = 20
_BECH32_CONST = 1
_BECH32M_CONST = 0x2BC830A3
_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def encode_bech32(prefix: str, raw: bytes) -> str:
    """Bech32 of any bytes under ``prefix`` (``g`` for addresses, ``gpub`` for keys)."""
    data = convertbits(raw, 8, 5)
    assert data is not None
    text: str = bech32_encode(prefix, data)
    return text


def decode_bech32(text: str) -> tuple[str, bytes] | None:
    """(prefix, bytes) of a lower-case bech32 string of any length, or None.

    BIP173's 90-character limit is not applied: a multisig's ``gpub1…`` is longer,
    and gno.land reads it.
    """
    hrp, sep, rest = text.rpartition("1")
    if not hrp or not sep or len(rest) < 6 or any(c not in _CHARSET for c in rest):
        return None
    data = [_CHARSET.index(c) for c in rest]
    if bech32_polymod(bech32_hrp_expand(hrp) + data) != _BECH32_CONST:
        return None
    raw = convertbits(data[:-6], 5, 8, False)
    return None if raw is None else (hrp, bytes(raw))


def encode_address(raw: bytes) -> str:
    """The canonical text of a 20-byte address."""
    assert len(raw) == ADDRESS_LEN
    return encode_bech32(PREFIX, raw)


@lru_cache(maxsize=4096)
def decode_address(text: str) -> tuple[bytes, bool] | None:
    """The 20 bytes of any accepted spelling and whether it is the canonical one.

    None when ``text`` is not a ``g`` address at all. Memoised: the bech32
    checksum is computed in Python, and a chain sees the same few addresses.
    """
    if not 8 <= len(text) <= 90 or (text.lower() != text and text.upper() != text):
        return None
    lowered = text.lower()
    hrp, sep, rest = lowered.rpartition("1")
    if hrp != PREFIX or not sep or len(rest) < 6 or any(c not in _CHARSET for c in rest):
        return None
    data = [_CHARSET.index(c) for c in rest]
    const = bech32_polymod(bech32_hrp_expand(hrp) + data)
    if const not in (_BECH32_CONST, _BECH32M_CONST):
        return None
    raw = convertbits(data[:-6], 5, 8, False)
    if raw is None or len(raw) != ADDRESS_LEN:
        return None
    return bytes(raw), const == _BECH32_CONST and text == lowered


def is_address(text: str) -> bool:
    """Whether the chain accepts ``text`` as an address (any of the four spellings)."""
    return decode_address(text) is not None


def is_canonical(text: str) -> bool:
    """Whether ``text`` is the one spelling a caller can have: lower-case bech32."""
    decoded = decode_address(text)
    return decoded is not None and decoded[1]


def canonical(text: str) -> str | None:
    """The canonical spelling of any accepted address, or None."""
    decoded = decode_address(text)
    if decoded is None:
        return None
    return text if decoded[1] else encode_address(decoded[0])  # most are canonical already


def package_address(pkg_path: str) -> str:
    """The address of a realm's package: its coins live here.

    >>> package_address("gno.land/r/demo/tamagotchi")
    'g1a3tu874agjlkrpzt9x90xv3uzncapcn959yte4'
    """
    return encode_address(hashlib.sha256(f"pkgPath:{pkg_path}".encode()).digest()[:ADDRESS_LEN])

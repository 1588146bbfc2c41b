"""secp256k1 keys as gnokey makes them, and signatures as tm2 checks them.

BIP39 mnemonic -> BIP32 ``m/44'/118'/<account>'/0/<index>`` -> secp256k1 private
key; address = ripemd160(sha256(33-byte compressed public key)) in bech32 ``g``.
Signatures are ECDSA over sha256(sign bytes), RFC 6979 nonces, low-S, 64 bytes r||s.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

from c4cli.errors import BadInput, PathOutOfRange
from c4cli.wire import pubkeys

# The order n of secp256k1: a signature with s above n/2 is the malleated twin
# of a valid one, and tm2 refuses it.
_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_ORDER = _ORDER // 2
SIGNATURE_LEN = 64
PUBKEY_TYPE = pubkeys.SECP256K1


@cache
def _secp() -> ModuleType:
    """coincurve (libsecp256k1), loaded on first use: 10-25 ms of start-up that a
    command that only reads never pays. Its submodules come with it."""
    import coincurve

    return coincurve


@cache
def _bip39() -> Any:
    """The BIP39 wordlist and checksum (the mnemonic package: its wordlists, some 20 ms),
    loaded only for a command that reads or makes a mnemonic."""
    from mnemonic import Mnemonic

    return Mnemonic("english")


def new_mnemonic() -> str:
    """24 words: 256 bits of entropy, as `gnokey add` makes."""
    words: str = _bip39().generate(strength=256)
    return words


def normalize_mnemonic(words: str) -> str:
    """Check a typed mnemonic (wordlist and checksum); return it single-spaced."""
    phrase = " ".join(words.lower().split())
    if not phrase:
        raise BadInput("no mnemonic given: type the 12 or 24 words, or pipe them on one line")
    if not _bip39().check(phrase):
        raise BadInput("invalid mnemonic: a word is not in the BIP39 list or the checksum fails")
    return phrase


def derive_private_key(mnemonic: str, account: int = 0, index: int = 0) -> bytes:
    """The private key at ``m/44'/118'/account'/0/index`` (BIP39 passphrase empty)."""
    if not (0 <= account < HARDENED and 0 <= index < HARDENED):
        raise PathOutOfRange(
            "a derivation path's account and index must be between 0 and 2147483647"
        )
    seed: bytes = _bip39().to_seed(mnemonic, "")
    path = (44 + HARDENED, 118 + HARDENED, account + HARDENED, 0, index)
    return bip32_derive(seed, path)


HARDENED = 2**31


def bip32_derive(seed: bytes, path: tuple[int, ...]) -> bytes:
    """BIP32 private derivation from a seed along ``path`` (indexes >= 2**31 are hardened).

    Written out here rather than taken from the ``bip32`` package, which pins an
    old coincurve whose import alone costs every command some 15 ms.
    """
    digest = hmac.digest(b"Bitcoin seed", seed, "sha512")
    key, chain_code = digest[:32], digest[32:]
    for child in path:
        if child >= HARDENED:
            data = b"\x00" + key + child.to_bytes(4, "big")
        else:
            data = public_key(key) + child.to_bytes(4, "big")
        digest = hmac.digest(chain_code, data, "sha512")
        tweak = int.from_bytes(digest[:32], "big")
        child_key = (tweak + int.from_bytes(key, "big")) % _ORDER
        if tweak >= _ORDER or child_key == 0:  # probability below 2**-127, as BIP32 says
            raise BadInput("this derivation path gives an invalid key: use another index")
        key, chain_code = child_key.to_bytes(32, "big"), digest[32:]
    return key


def public_key(private_key: bytes) -> bytes:
    """The 33-byte compressed public key."""
    pub: bytes = _secp().PrivateKey(private_key).public_key.format(compressed=True)
    return pub


def address_of(pub_key: bytes) -> str:
    """The bech32 ``g`` address of a compressed public key."""
    return pubkeys.address(pub_key)


def sign(private_key: bytes, sign_bytes: bytes) -> bytes:
    """64-byte r||s over sha256(sign_bytes): deterministic (RFC 6979) and low-S."""
    secp = _secp()
    der = secp.PrivateKey(private_key).sign(sign_bytes)  # sha256, RFC 6979, low-S
    signature: bytes = secp.ecdsa.serialize_compact(secp.ecdsa.der_to_cdata(der))
    return signature


def verify(pub_key: bytes, sign_bytes: bytes, signature: bytes) -> bool:
    """tm2's check: exactly 64 bytes, s in the low half, and a valid ECDSA signature."""
    if len(signature) != SIGNATURE_LEN:
        return False
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    if not (0 < r < _ORDER and 0 < s <= _HALF_ORDER):
        return False
    key = _parsed_key(pub_key)
    if key is None:
        return False
    secp = _secp()
    try:
        parsed = secp.ecdsa.deserialize_compact(signature)
    except ValueError:
        return False
    digest = hashlib.sha256(sign_bytes).digest()
    verified = secp._libsecp256k1.lib.secp256k1_ecdsa_verify(
        secp.context.GLOBAL_CONTEXT.ctx, parsed, digest, key
    )
    return bool(verified)


@lru_cache(maxsize=4096)
def _parsed_key(pub_key: bytes) -> object | None:
    """libsecp256k1's parsed form of a public key (memoised: a replay sees few keys)."""
    try:
        parsed: object = _secp().PublicKey(pub_key).public_key
        return parsed
    except (ValueError, TypeError):
        return None

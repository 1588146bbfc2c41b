"""secp256k1 keys as gnokey makes them, and signatures as tm2 checks them.

BIP39 mnemonic -> BIP32 ``m/44'/118'/<account>'/0/<index>`` -> secp256k1 private
key; address = ripemd160(sha256(33-byte compressed public key)) in bech32 ``g``.
Signatures are ECDSA over sha256(sign bytes), RFC 6979 nonces, low-S, 64 bytes r||s.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from c4cli.errors import BadInput
from c4cli.realm.address import encode_address

# The order n of secp256k1: a signature with s above n/2 is the malleated twin
# of a valid one, and tm2 refuses it.
_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_ORDER = _ORDER // 2
SIGNATURE_LEN = 64
PUBKEY_TYPE = "/tm.PubKeySecp256k1"


def new_mnemonic() -> str:
    """24 words: 256 bits of entropy, as `gnokey add` makes."""
    from mnemonic import Mnemonic

    words: str = Mnemonic("english").generate(strength=256)
    return words


def normalize_mnemonic(words: str) -> str:
    """Check a typed mnemonic (wordlist and checksum); return it single-spaced."""
    from mnemonic import Mnemonic

    phrase = " ".join(words.lower().split())
    if not Mnemonic("english").check(phrase):
        raise BadInput("invalid mnemonic: a word is not in the BIP39 list or the checksum fails")
    return phrase


def derive_private_key(mnemonic: str, account: int = 0, index: int = 0) -> bytes:
    """The private key at ``m/44'/118'/account'/0/index`` (BIP39 passphrase empty)."""
    from bip32 import BIP32
    from mnemonic import Mnemonic

    if not (0 <= account < 2**31 and 0 <= index < 2**31):
        raise BadInput("--account and --index must be between 0 and 2147483647")
    seed = Mnemonic.to_seed(mnemonic, "")
    key: bytes = BIP32.from_seed(seed).get_privkey_from_path(f"m/44'/118'/{account}'/0/{index}")
    return key


def public_key(private_key: bytes) -> bytes:
    """The 33-byte compressed public key."""
    from coincurve import PrivateKey

    pub: bytes = PrivateKey(private_key).public_key.format(compressed=True)
    return pub


@lru_cache(maxsize=4096)
def address_of(pub_key: bytes) -> str:
    """The bech32 ``g`` address of a compressed public key (memoised: bech32 is slow)."""
    return encode_address(hashlib.new("ripemd160", hashlib.sha256(pub_key).digest()).digest())


def sign(private_key: bytes, sign_bytes: bytes) -> bytes:
    """64-byte r||s over sha256(sign_bytes): deterministic (RFC 6979) and low-S."""
    from coincurve import PrivateKey
    from coincurve.ecdsa import der_to_cdata, serialize_compact

    der = PrivateKey(private_key).sign(sign_bytes)  # sha256, RFC 6979, low-S
    signature: bytes = serialize_compact(der_to_cdata(der))
    return signature


def verify(pub_key: bytes, sign_bytes: bytes, signature: bytes) -> bool:
    """tm2's check: exactly 64 bytes, s in the low half, and a valid ECDSA signature."""
    from coincurve._libsecp256k1 import lib
    from coincurve.context import GLOBAL_CONTEXT
    from coincurve.ecdsa import deserialize_compact

    if len(signature) != SIGNATURE_LEN:
        return False
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    if not (0 < r < _ORDER and 0 < s <= _HALF_ORDER):
        return False
    key = _parsed_key(pub_key)
    if key is None:
        return False
    try:
        parsed = deserialize_compact(signature)
    except ValueError:
        return False
    digest = hashlib.sha256(sign_bytes).digest()
    return bool(lib.secp256k1_ecdsa_verify(GLOBAL_CONTEXT.ctx, parsed, digest, key))


@lru_cache(maxsize=4096)
def _parsed_key(pub_key: bytes) -> object | None:
    """libsecp256k1's parsed form of a public key (memoised: a replay sees few keys)."""
    from coincurve import PublicKey

    try:
        parsed: object = PublicKey(pub_key).public_key
        return parsed
    except (ValueError, TypeError):
        return None

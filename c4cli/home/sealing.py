"""A private key sealed under a passphrase: scrypt (memory-hard) and ChaCha20-Poly1305
(an AEAD: a wrong passphrase or an edited file is refused, never half-decrypted)."""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from c4cli.errors import BadInput, HomeDamaged

_SCRYPT_N = 2**15
_SCRYPT_R = 8
_SCRYPT_P = 1


def _kdf(passphrase: str, salt: bytes) -> bytes:
    return Scrypt(salt=salt, length=32, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P).derive(
        passphrase.encode()
    )


def seal(private_key: bytes, passphrase: str) -> dict[str, object]:
    salt, nonce = os.urandom(16), os.urandom(12)
    box = ChaCha20Poly1305(_kdf(passphrase, salt)).encrypt(nonce, private_key, b"c4 key")
    return {
        "kdf": "scrypt",
        "n": _SCRYPT_N,
        "r": _SCRYPT_R,
        "p": _SCRYPT_P,
        "salt": salt.hex(),
        "cipher": "chacha20-poly1305",
        "nonce": nonce.hex(),
        "ciphertext": box.hex(),
    }


def open_sealed(sealed: dict[str, object], passphrase: str, name: str) -> bytes:
    try:
        key = _kdf(passphrase, bytes.fromhex(str(sealed["salt"])))
        return ChaCha20Poly1305(key).decrypt(
            bytes.fromhex(str(sealed["nonce"])), bytes.fromhex(str(sealed["ciphertext"])), b"c4 key"
        )
    except InvalidTag:
        raise BadInput(f"wrong passphrase for key {name!r}") from None
    except (KeyError, ValueError):
        raise HomeDamaged(f"key file for {name!r} is damaged") from None

"""Private keys in gnokey's armor (``gnokey export`` / ``gnokey import``).

The armor is OpenPGP's ASCII armor (RFC 4880 §6: a BEGIN line, ``key: value``
headers, a blank line, base64 in lines of 64, ``=`` and the CRC-24 of the bytes, an
END line) around the private key's amino ``Any`` (``/tm.PrivKeySecp256k1``). With
a passphrase the bytes are sealed: headers ``kdf: bcrypt`` and ``salt: <16 bytes in
hex>``; the secret is sha256 of the bcrypt hash string (cost 12) of the passphrase
with that salt, and the seal NaCl's secretbox (XSalsa20-Poly1305) with a random
24-byte nonce written before the box. With an empty passphrase there are no headers
and the key is in clear, as gnokey writes it then.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable

import bcrypt
import nacl.exceptions
import nacl.secret

from c4cli.errors import BadInput
from c4cli.wire.protowire import DecodeError, bytes_field, wire_fields

BLOCK = "TENDERMINT PRIVATE KEY"
PRIVKEY_TYPE = "/tm.PrivKeySecp256k1"
COST = 12
_BCRYPT_ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_STANDARD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


# n, the order of secp256k1's group: a private key is a number from 1 to n - 1.
SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def crc24(data: bytes) -> int:
    """OpenPGP's CRC-24 (RFC 4880 §6.1).

    >>> hex(crc24(b""))
    '0xb704ce'
    """
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def _secret(salt: bytes, passphrase: str) -> bytes:
    """sha256 of bcrypt's hash string (``$2a$12$…``) of the passphrase with this salt.

    bcrypt reads at most 72 bytes of a passphrase; gnokey's too, so a longer one is cut
    there (the same key either way)."""
    encoded = base64.b64encode(salt).decode().rstrip("=")
    salt_text = encoded.translate(str.maketrans(_STANDARD_ALPHABET, _BCRYPT_ALPHABET))
    hashed = bcrypt.hashpw(passphrase.encode()[:72], f"$2a${COST:02d}${salt_text}".encode())
    return hashlib.sha256(hashed).digest()


def _armor(headers: list[tuple[str, str]], data: bytes) -> str:
    body = base64.b64encode(data).decode()
    lines = [f"-----BEGIN {BLOCK}-----"]
    lines += [f"{key}: {value}" for key, value in headers]
    lines.append("")
    lines += [body[i : i + 64] for i in range(0, len(body), 64)]
    lines.append("=" + base64.b64encode(crc24(data).to_bytes(3, "big")).decode())
    lines.append(f"-----END {BLOCK}-----")
    return "\n".join(lines)


def export_key(private_key: bytes, passphrase: str) -> str:
    """The armor of a secp256k1 private key, sealed with ``passphrase`` unless it is empty."""
    data = bytes_field(1, PRIVKEY_TYPE.encode()) + bytes_field(2, bytes_field(1, private_key))
    if not passphrase:
        return _armor([], data)
    salt = os.urandom(16)
    nonce = os.urandom(nacl.secret.SecretBox.NONCE_SIZE)
    sealed = nacl.secret.SecretBox(_secret(salt, passphrase)).encrypt(data, nonce)
    return _armor([("kdf", "bcrypt"), ("salt", salt.hex().upper())], bytes(sealed))


def _unarmor(text: str, where: str) -> tuple[dict[str, str], bytes]:
    lines = [line.strip() for line in text.strip().splitlines()]
    try:
        begin = lines.index(f"-----BEGIN {BLOCK}-----")
        end = lines.index(f"-----END {BLOCK}-----", begin)
    except ValueError:
        raise BadInput(f"{where} is not a private key armor (gnokey export writes one)") from None
    inside = lines[begin + 1 : end]
    headers: dict[str, str] = {}
    while inside and inside[0]:
        key, sep, value = inside.pop(0).partition(":")
        if not sep:
            raise BadInput(f"{where}: an armor header line has no ':'")
        headers[key.strip()] = value.strip()
    checksum = [line for line in inside if line.startswith("=")]
    body = "".join(line for line in inside if line and not line.startswith("="))
    try:
        data = base64.b64decode(body, validate=True)
        if checksum and base64.b64decode(checksum[-1][1:]) != crc24(data).to_bytes(3, "big"):
            raise BadInput(f"{where}: the armor's checksum does not match: the file is damaged")
    except ValueError:
        raise BadInput(f"{where}: the armor's body is not base64: the file is damaged") from None
    return headers, data


def import_key(text: str, ask: Callable[[], str], where: str) -> bytes:
    """The private key in an armor (``ask`` gives the passphrase, asked only when the
    armor is sealed); a wrong passphrase or a damaged armor is one line."""
    headers, data = _unarmor(text, where)
    if headers:
        passphrase = ask()
        if headers.get("kdf") != "bcrypt":
            raise BadInput(f"{where}: unknown key derivation {headers.get('kdf')!r}")
        try:
            salt = bytes.fromhex(headers["salt"])
        except (KeyError, ValueError):
            raise BadInput(f"{where}: the armor's salt is missing or not hex") from None
        if len(salt) != 16:
            raise BadInput(f"{where}: the armor's salt is not 16 bytes")
        try:
            data = nacl.secret.SecretBox(_secret(salt, passphrase)).decrypt(data)
        except nacl.exceptions.CryptoError:
            raise BadInput(f"wrong armor passphrase for {where}: nothing was imported") from None
    fields: dict[int, int | bytes] = {}
    try:
        fields = dict(wire_fields(data))
        inner = fields.get(2, b"")
        key = dict(wire_fields(inner)).get(1) if isinstance(inner, bytes) else None
    except DecodeError:
        key = None
    if fields.get(1) != PRIVKEY_TYPE.encode() or not isinstance(key, bytes) or len(key) != 32:
        raise BadInput(f"{where} does not hold a secp256k1 private key")
    if not 0 < int.from_bytes(key, "big") < SECP256K1_ORDER:
        raise BadInput(
            f"{where} holds 32 bytes that are no secp256k1 private key (0, or not below the "
            "curve's order): nothing was imported"
        )
    return key

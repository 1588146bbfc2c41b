"""Amino binary: the bytes a gno.land node receives, stores and hashes for a tx.

Amino's binary form is the protobuf 3 wire format: each field is a key
(``number << 3 | wire type``) then a varint or a length-prefixed run of bytes.
A field whose value is empty or zero is not written, except the elements of a
repeated field. int64 values are signed varints (zigzag), coins travel as their
text, and an interface value (a message, a public key) is an ``Any``: its type
URL and its own encoding.

The encoder reads the same amino-JSON dict that is signed and logged, so there
is one representation of a transaction and its bytes are derived from it. It
is written out here rather than taken from a protobuf library because it is a
few dozen lines and every command that signs imports it.

The wire format itself is :mod:`c4cli.wire.protowire`.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
from typing import Any, cast

from c4cli.wire import pubkeys
from c4cli.wire.msgs import Msg, Signature, Tx
from c4cli.wire.protowire import (
    VARINT,
    DecodeError,
    EncodeError,
    any_value,
    bytes_field,
    encode_varint,
    field_key,
    unzigzag,
    wire_fields,
    zigzag,
)

__all__ = ["DecodeError", "EncodeError", "decode_tx", "encode_tx", "tx_hash", "unzigzag"]

ZERO_ADDRESS = "g1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqluuxe"  # twenty zero bytes


def _string(number: int, text: Any) -> bytes:
    """A string field; left out when empty."""
    if not isinstance(text, str):
        raise EncodeError(f"field {number}: expected a string, got {type(text).__name__}")
    return bytes_field(number, text.encode()) if text else b""


def _strings(number: int, texts: Any) -> bytes:
    """A repeated string field: every element written, empty ones too."""
    if not isinstance(texts, list):
        raise EncodeError(f"field {number}: expected a list of strings")
    out = b""
    for text in texts:
        if not isinstance(text, str):
            raise EncodeError(f"field {number}: expected a list of strings")
        out += bytes_field(number, text.encode())
    return out


def _sint64(number: int, value: Any) -> bytes:
    """An int64 field, as amino JSON carries it (a decimal string); left out when 0."""
    parsed = None
    if isinstance(value, str | int) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            parsed = int(value)
    if parsed is None or (isinstance(value, str) and value.strip() != value):
        raise EncodeError(f"field {number}: expected an int64, got {value!r}")
    return field_key(number, VARINT) + encode_varint(zigzag(parsed)) if parsed else b""


def _pub_key(value: Any) -> bytes:
    """A public key (secp256k1 or multisig) as the ``Any`` a transaction carries."""
    try:
        return pubkeys.any_bytes(pubkeys.from_json(value))
    except pubkeys.NotAKey as exc:
        raise EncodeError(f"public key: {exc}") from None


def _call(msg: Msg) -> bytes:
    return (
        _string(1, msg["caller"])
        + _string(2, msg["send"])
        + _string(3, msg["max_deposit"])
        + _string(4, msg["pkg_path"])
        + _string(5, msg["func"])
        + _strings(6, msg.get("args", []))
    )


def _send(msg: Msg) -> bytes:
    return (
        _string(1, msg["from_address"]) + _string(2, msg["to_address"]) + _string(3, msg["amount"])
    )


def _create_session(msg: Msg) -> bytes:
    return (
        _string(1, msg["creator"])
        + bytes_field(2, _pub_key(msg["session_key"]))
        + _sint64(3, msg["expires_at"])
        + _strings(4, msg.get("allow_paths", []))
        + _string(5, msg.get("spend_limit", ""))
        + _sint64(6, msg.get("spend_period", "0"))
    )


def _revoke_session(msg: Msg) -> bytes:
    return _string(1, msg["creator"]) + bytes_field(2, _pub_key(msg["session_key"]))


def _revoke_all_sessions(msg: Msg) -> bytes:
    return _string(1, msg["creator"])


_MESSAGES = {
    "/vm.m_call": _call,
    "/bank.MsgSend": _send,
    "/auth.m_create_session": _create_session,
    "/auth.m_revoke_session": _revoke_session,
    "/auth.m_revoke_all_sessions": _revoke_all_sessions,
}


def encode_msg(msg: Any) -> bytes:
    """One message as the ``Any`` that ``Tx.msgs`` holds."""
    if not isinstance(msg, dict):
        raise EncodeError("a message must be an object")
    kind = msg.get("@type")
    if not isinstance(kind, str) or kind not in _MESSAGES:
        raise EncodeError(f"unknown message type {kind!r}")
    try:
        return any_value(kind, _MESSAGES[kind](cast(Msg, msg)))  # its fields, read there
    except KeyError as exc:
        raise EncodeError(f"{kind}: missing field {exc}") from None


def _signature(signature: Any) -> bytes:
    if not isinstance(signature, dict):
        raise EncodeError("a signature must be an object")
    try:
        raw = base64.b64decode(signature["signature"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise EncodeError(f"signature: {exc}") from None
    pub_key = signature.get("pub_key")
    session_addr = signature.get("session_addr", "")
    return (
        (b"" if pub_key is None else bytes_field(1, _pub_key(pub_key)))
        + (bytes_field(2, raw) if raw else b"")
        # amino:"skip_zero": the zero address is a master-key signature, not written.
        + (b"" if session_addr == ZERO_ADDRESS else _string(3, session_addr))
    )


def encode_tx(tx: Tx) -> bytes:
    """The amino binary of a signed ``std.Tx`` given as its amino JSON."""
    msgs, fee, signatures = tx.get("msg"), tx.get("fee"), tx.get("signatures")
    if not isinstance(msgs, list) or not isinstance(signatures, list) or not isinstance(fee, dict):
        raise EncodeError("a tx needs msg, fee and signatures")
    out = b"".join(bytes_field(1, encode_msg(msg)) for msg in msgs)
    try:
        fee_bytes = _sint64(1, fee["gas_wanted"]) + _string(2, fee["gas_fee"])
    except KeyError as exc:
        raise EncodeError(f"fee: missing field {exc}") from None
    # An empty fee (no gas, no coin) is left out like any empty struct: gno's Go
    # codec does so (gno's JS client writes "12 00"; the node's codec decides).
    out += bytes_field(2, fee_bytes) if fee_bytes else b""
    out += b"".join(bytes_field(3, _signature(sig)) for sig in signatures)
    return out + _string(4, tx.get("memo", ""))


def tx_hash(tx: Tx) -> str:
    """TX HASH as gno.land computes it: base64 of sha256 of the amino binary.

    >>> tx = {"msg": [], "fee": {"gas_wanted": "0", "gas_fee": ""}, "signatures": []}
    >>> encode_tx(tx).hex(), tx_hash(tx)
    ('', '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')
    """
    return base64.b64encode(hashlib.sha256(encode_tx(tx)).digest()).decode()


# -- decoding: a node's bytes back to the amino JSON c4 signs and logs ----------------


def _by_number(data: bytes) -> dict[int, list[int | bytes]]:
    found: dict[int, list[int | bytes]] = {}
    for number, value in wire_fields(data):
        found.setdefault(number, []).append(value)
    return found


def _text(found: dict[int, list[int | bytes]], number: int) -> str:
    values = found.get(number, [b""])
    value = values[-1]
    if not isinstance(value, bytes):
        raise DecodeError(f"field {number}: expected bytes")
    return value.decode()


def _texts(found: dict[int, list[int | bytes]], number: int) -> list[str]:
    values = found.get(number, [])
    if not all(isinstance(value, bytes) for value in values):
        raise DecodeError(f"field {number}: expected bytes")
    return [value.decode() for value in values if isinstance(value, bytes)]


def _int64(found: dict[int, list[int | bytes]], number: int) -> str:
    value = found.get(number, [0])[-1]
    if not isinstance(value, int):
        raise DecodeError(f"field {number}: expected a varint")
    return str(unzigzag(value))


def _decoded_any(data: bytes) -> tuple[str, bytes]:
    found = _by_number(data)
    value = found.get(2, [b""])[-1]
    if not isinstance(value, bytes):
        raise DecodeError("an Any's value must be bytes")
    return _text(found, 1), value


def _decoded_pub_key(data: bytes) -> dict[str, Any]:
    try:
        return pubkeys.to_json(pubkeys.from_any(data))
    except pubkeys.NotAKey as exc:
        raise DecodeError(f"public key: {exc}") from None


def decode_msg(data: bytes) -> Msg:
    """One message of ``Tx.msgs`` (an ``Any``) as c4 writes it; a kind c4 does not send
    (``/vm.m_addpkg``, ``/vm.m_run``…) keeps its bytes in ``amino``."""
    kind, value = _decoded_any(data)
    found = _by_number(value)
    msg: dict[str, Any] = {"@type": kind}  # the fields of its kind, read below
    if kind == "/vm.m_call":
        for number, name in enumerate(("caller", "send", "max_deposit", "pkg_path", "func"), 1):
            msg[name] = _text(found, number)
        if 6 in found:
            msg["args"] = _texts(found, 6)
    elif kind == "/bank.MsgSend":
        for number, name in enumerate(("from_address", "to_address", "amount"), 1):
            msg[name] = _text(found, number)
    elif kind in ("/auth.m_create_session", "/auth.m_revoke_session"):
        msg["creator"] = _text(found, 1)
        key = found.get(2, [b""])[-1]
        msg["session_key"] = _decoded_pub_key(key if isinstance(key, bytes) else b"")
        if kind == "/auth.m_create_session":
            msg["expires_at"] = _int64(found, 3)
            if 4 in found:
                msg["allow_paths"] = _texts(found, 4)
            if 5 in found:
                msg["spend_limit"] = _text(found, 5)
            if 6 in found:
                msg["spend_period"] = _int64(found, 6)
    elif kind == "/auth.m_revoke_all_sessions":
        msg["creator"] = _text(found, 1)
    else:
        if kind in _PACKAGE_MSGS:  # who signed, and which package: its files stay in amino
            signer_field, package_field = _PACKAGE_MSGS[kind]
            msg[signer_field] = _text(found, 1)
            package = found.get(package_field, [b""])[-1]
            named = _by_number(package if isinstance(package, bytes) else b"")
            msg["package"] = {"name": _text(named, 1), "path": _text(named, 2)}
        msg["amino"] = base64.b64encode(value).decode()
    return cast(Msg, msg)


# gno's messages that carry a package: their signer's field, and the package's number.
_PACKAGE_MSGS = {"/vm.m_addpkg": ("creator", 2), "/vm.m_run": ("caller", 4)}


def package_files(msg: Msg) -> dict[str, str]:
    """The files (name: body) of the package a decoded ``/vm.m_addpkg`` or ``/vm.m_run``
    carries, read from the amino it keeps (a MemPackage's third field, each MemFile a
    name and a body)."""
    _, package_field = _PACKAGE_MSGS[str(msg.get("@type"))]
    found = _by_number(base64.b64decode(str(msg.get("amino") or "")))
    package = found.get(package_field, [b""])[-1]
    files = _by_number(package if isinstance(package, bytes) else b"").get(3, [])
    named = [_by_number(f) for f in files if isinstance(f, bytes)]
    return {_text(file, 1): _text(file, 2) for file in named}


def decode_tx(data: bytes) -> Tx:
    """A ``std.Tx`` from its amino binary, in the amino JSON :func:`encode_tx` reads:
    ``encode_tx(decode_tx(b)) == b`` for every transaction c4 makes, and a node's
    transaction from another client is shown by what it holds."""
    found = _by_number(data)
    msgs = [decode_msg(m) for m in found.get(1, []) if isinstance(m, bytes)]
    fee_bytes = found.get(2, [b""])[-1]
    fee = _by_number(fee_bytes if isinstance(fee_bytes, bytes) else b"")
    signatures = []
    for raw in found.get(3, []):
        if not isinstance(raw, bytes):
            raise DecodeError("a signature must be bytes")
        parts = _by_number(raw)
        signature: Signature = {}
        if 1 in parts:
            key = parts[1][-1]
            signature["pub_key"] = _decoded_pub_key(key if isinstance(key, bytes) else b"")
        sig = parts.get(2, [b""])[-1]
        signature["signature"] = base64.b64encode(sig if isinstance(sig, bytes) else b"").decode()
        if 3 in parts:
            signature["session_addr"] = _text(parts, 3)
        signatures.append(signature)
    return {
        "msg": msgs,
        "fee": {"gas_wanted": _int64(fee, 1), "gas_fee": _text(fee, 2)},
        "signatures": signatures,
        "memo": _text(found, 4),
    }

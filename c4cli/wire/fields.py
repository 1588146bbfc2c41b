"""The fields of amino's values, read and written: from their amino JSON (each checked
to be of the kind amino reads there, EncodeError naming the field otherwise) and in
their binary form (protobuf 3's wire format, :mod:`c4cli.wire.protowire`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from c4cli.wire import pubkeys
from c4cli.wire.protowire import (
    VARINT,
    DecodeError,
    EncodeError,
    bytes_field,
    encode_varint,
    field_key,
    unzigzag,
    wire_fields,
    zigzag,
)

# -- a node's answers: amino JSON values, TypeError or ValueError when they are not ----


def int64(value: object) -> int:
    """An int64 of amino JSON (text, or a number): TypeError or ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise TypeError("not an int64")
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise ValueError("outside int64")
    return number


def raw(value: object) -> bytes:
    """Bytes of amino JSON (base64; null or "" for none): TypeError or ValueError otherwise."""
    if value is None or value == "":
        return b""
    if not isinstance(value, str):
        raise TypeError("not bytes")
    return base64.b64decode(value, validate=True)


def b64(data: bytes) -> str | None:
    """Bytes as amino JSON writes them; none as null."""
    return base64.b64encode(data).decode() if data else None


def text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def items(value: object, name: str) -> list[Any]:
    """A JSON array of an answer: TypeError naming ``name`` when it is not one."""
    if not isinstance(value, list):
        raise TypeError(name)
    return value


def mapping(value: object) -> Mapping[str, Any]:
    """A JSON object of an answer (null read as an empty one)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TypeError("not an object")
    return value


# -- amino JSON of a transaction: EncodeError naming the field -------------------------


def text_of(doc: Mapping[str, Any], name: str, default: str | None = None) -> str:
    """A string field (EncodeError if it is missing and has no default, or not a string)."""
    value = doc.get(name)
    if value is None:
        if default is None:
            raise EncodeError(f"missing field {name!r}")
        return default
    if not isinstance(value, str):
        raise EncodeError(f"{name}: expected a string, got {type(value).__name__}")
    return value


def texts_of(doc: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """A repeated string field; absent or null is none."""
    value = doc.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EncodeError(f"{name}: expected a list of strings")
    return tuple(value)


def int64_of(doc: Mapping[str, Any], name: str, default: int | None = None) -> int:
    """An int64 field as amino JSON carries it: a decimal string (a number is taken too)."""
    value = doc.get(name)
    if value is None and default is not None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        parsed = value
    elif isinstance(value, str) and value.strip() == value and value:
        try:
            parsed = int(value)
        except ValueError:
            raise EncodeError(f"{name}: expected an int64, got {value!r}") from None
    else:
        raise EncodeError(f"{name}: expected an int64, got {value!r}")
    zigzag(parsed)  # EncodeError past int64
    return parsed


def key_of(doc: Mapping[str, Any], name: str) -> pubkeys.PubKey:
    try:
        return pubkeys.from_json(doc.get(name))
    except pubkeys.NotAKey as exc:
        raise EncodeError(f"{name}: {exc}") from None


def bytes_of(doc: Mapping[str, Any], name: str) -> bytes:
    try:
        return base64.b64decode(text_of(doc, name, ""), validate=True)
    except binascii.Error:
        raise EncodeError(f"{name}: expected base64") from None


# -- amino binary -----------------------------------------------------------------------


def string_field(number: int, text: str) -> bytes:
    """A string field; left out when empty."""
    return bytes_field(number, text.encode()) if text else b""


def data_field(number: int, data: bytes) -> bytes:
    """A bytes field; left out when empty."""
    return bytes_field(number, data) if data else b""


def int64_field(number: int, value: int) -> bytes:
    """A signed (zigzag) int64 field; left out when 0."""
    return field_key(number, VARINT) + encode_varint(zigzag(value)) if value else b""


Fields = dict[int, list[int | bytes]]


def fields_of(data: bytes) -> Fields:
    found: Fields = {}
    for number, value in wire_fields(data):
        found.setdefault(number, []).append(value)
    return found


def read_bytes(found: Fields, number: int) -> bytes:
    value = found.get(number, [b""])[-1]
    if not isinstance(value, bytes):
        raise DecodeError(f"field {number}: expected bytes")
    return value


def read_text(found: Fields, number: int) -> str:
    return read_bytes(found, number).decode()


def read_texts(found: Fields, number: int) -> tuple[str, ...]:
    values = found.get(number, [])
    if not all(isinstance(value, bytes) for value in values):
        raise DecodeError(f"field {number}: expected bytes")
    return tuple(value.decode() for value in values if isinstance(value, bytes))


def read_int64(found: Fields, number: int) -> int:
    value = found.get(number, [0])[-1]
    if not isinstance(value, int):
        raise DecodeError(f"field {number}: expected a varint")
    return unzigzag(value)


def read_key(found: Fields, number: int) -> pubkeys.PubKey:
    try:
        return pubkeys.from_any(read_bytes(found, number))
    except pubkeys.NotAKey as exc:
        raise DecodeError(f"public key: {exc}") from None

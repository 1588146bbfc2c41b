"""Protobuf 3's wire format, which amino's binary form is: fields of varints and of
length-prefixed bytes. The transaction codec (:mod:`c4cli.wire.std`) and the public
keys (:mod:`c4cli.wire.pubkeys`) are written with it.

>>> encode_varint(300).hex(), encode_varint(127).hex(), encode_varint(128).hex()
('ac02', '7f', '8001')
>>> bytes_field(1, b"ab").hex(), bytes_field(16, b"ab").hex(), len(bytes_field(2, bytes(200)))
('0a026162', '8201026162', 203)
>>> zigzag(-1), zigzag(1), unzigzag(zigzag(-5))
(1, 2, -5)
"""

from __future__ import annotations

VARINT, BYTES = 0, 2


class EncodeError(ValueError):
    """A transaction value that has no amino encoding (a bad type or a missing field)."""


# The one-byte varints, made once: most of a transaction's (every field key, most
# lengths) are one of these, and `c4 verify` encodes each transaction for its hash.
_ONE_BYTE = tuple(bytes((n,)) for n in range(0x80))


def encode_varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _ONE_BYTE[value]
    if value < 0:
        raise EncodeError(f"varint of a negative number {value}")
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def zigzag(value: int) -> int:
    if not -(2**63) <= value < 2**63:
        raise EncodeError(f"{value} does not fit in an int64")
    return (value << 1) ^ (value >> 63)


def unzigzag(value: int) -> int:
    """An int64 from its zigzag varint (amino's signed integers)."""
    return (value >> 1) ^ -(value & 1)


def field_key(number: int, wire_type: int) -> bytes:
    return encode_varint(number << 3 | wire_type)


def bytes_field(number: int, data: bytes) -> bytes:
    """A length-delimited field: bytes, a string, an embedded struct."""
    size = len(data)
    if number < 16 and size < 0x80:  # the key and the length one byte each
        return _ONE_BYTE[number << 3 | BYTES] + _ONE_BYTE[size] + data
    return field_key(number, BYTES) + encode_varint(size) + data


def any_value(type_url: str, value: bytes) -> bytes:
    """An amino ``Any``: its type URL, then its value's own encoding (none when empty, as
    gno writes an error struct without fields)."""
    return bytes_field(1, type_url.encode()) + (bytes_field(2, value) if value else b"")


class DecodeError(ValueError):
    """Bytes that are not amino binary (a tx, a key, a node's answer)."""


def wire_fields(data: bytes, *, skip_fixed: bool = False) -> list[tuple[int, int | bytes]]:
    """The top-level fields of one message: (number, varint value or length-delimited
    bytes). A fixed-width field (wire types 1 and 5) has no place in a tx and is refused,
    unless ``skip_fixed`` (a node's other answers): then it is passed over."""
    out: list[tuple[int, int | bytes]] = []
    at = 0

    def varint() -> int:
        nonlocal at
        value = shift = 0
        while True:
            if at >= len(data) or shift > 63:
                raise DecodeError("a varint runs past the end")
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    while at < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            out.append((number, varint()))
        elif wire == BYTES:
            length = varint()
            if at + length > len(data):
                raise DecodeError("a field runs past the end")
            out.append((number, data[at : at + length]))
            at += length
        elif skip_fixed and wire in (1, 5):
            at += 8 if wire == 1 else 4
            if at > len(data):
                raise DecodeError("a field runs past the end")
        else:
            raise DecodeError(f"wire type {wire} has no place in a tx")
    return out

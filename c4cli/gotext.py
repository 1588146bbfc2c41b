"""Text as Go writes it, for the messages and outputs that gno.land clients match on.

>>> quote('a"b\\n') == '"a\\\\"b\\\\n"'
True
>>> quote("é\\u2028\\x00")
'"é\\\\u2028\\\\x00"'
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

_SHORT = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}
# Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the
# ASCII space; every other character is escaped by strconv.Quote.
_PRINTABLE = frozenset(["L", "M", "N", "P", "S"])


def quote(text: str) -> str:
    """``strconv.Quote``: a double-quoted Go string literal (what ``%q`` prints)."""
    out = ['"']
    for char in text:
        short = _SHORT.get(char)
        if short is not None:
            out.append(short)
        elif (
            char == " "
            or (char.isascii() and char.isprintable())
            or (not char.isascii() and unicodedata.category(char)[0] in _PRINTABLE)
        ):
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif 0xDC80 <= ord(char) < 0xDD00:
            # surrogateescape's stand-in for a byte that was not UTF-8: Go writes the byte.
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


_UNSHORT = {value[1]: key for key, value in _SHORT.items()}


def unquote(literal: str) -> str:
    """``strconv.Unquote`` of a double-quoted Go string literal, the inverse of :func:`quote`.

    >>> unquote(quote('a"b\\n é \\x00')) == 'a"b\\n é \\x00'
    True
    """
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        raise ValueError(f"not a Go string literal: {literal[:40]!r}")
    out = bytearray()
    body, index = literal[1:-1], 0
    while index < len(body):
        char = body[index]
        if char == '"':
            raise ValueError("unescaped quote inside a Go string literal")
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            index += 1
            continue
        kind = body[index + 1 : index + 2]
        if kind in _UNSHORT:
            out += _UNSHORT[kind].encode()
            index += 2
        elif kind in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = body[index + 2 : index + 2 + width]
            if len(digits) != width:
                raise ValueError("a cut escape in a Go string literal")
            value = int(digits, 16)
            out += bytes([value]) if kind == "x" else chr(value).encode("utf-8", "surrogatepass")
            index += 2 + width
        elif kind.isdigit():
            out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
            index += 4
        else:
            raise ValueError(f"unknown escape \\{kind} in a Go string literal")
    return out.decode("utf-8", "surrogateescape")


# What Go's encoding/json escapes that Python's json module writes as it is.
_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def go_escaped(text: str) -> str:
    """JSON text from Python's encoder (``ensure_ascii=False``) as Go's writes it:
    ``<``, ``>``, ``&`` and the line and paragraph separators U+2028 and U+2029
    escaped; since Go 1.22 both write U+0008 and U+000C as ``\\b`` and ``\\f``.

    >>> go_escaped('{"a":"<b>&\u2028"}')
    '{"a":"\\\\u003cb\\\\u003e\\\\u0026\\\\u2028"}'
    """
    for char, escape in _JSON_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


def go_json(value: Any) -> str:
    """JSON as Go's encoding/json writes it (keys in the order given, no spaces)."""
    return go_escaped(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def parse_result(data: str) -> tuple[str, str]:
    """A value as gno.land's VM prints one, ``("text" string)`` or ``(5 int)``: (value, type).

    A string comes back unquoted.

    >>> parse_result('("{\\\\"now\\\\":1}" string)'), parse_result("(100000 int64)\\n")
    (('{"now":1}', 'string'), ('100000', 'int64'))
    """
    text = data.strip()
    if not (text.startswith("(") and text.endswith(")")) or " " not in text:
        raise ValueError(f"not a VM result: {text[:40]!r}")
    value, _, kind = text[1:-1].rpartition(" ")
    return (unquote(value) if value.startswith('"') else value), kind

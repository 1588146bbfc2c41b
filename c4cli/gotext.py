"""Text as Go writes it, for the messages and outputs that gno.land clients match on.

>>> quote('a"b\\n') == '"a\\\\"b\\\\n"'
True
>>> quote("é\\u2028\\x00")
'"é\\\\u2028\\\\x00"'
"""

from __future__ import annotations

import unicodedata

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

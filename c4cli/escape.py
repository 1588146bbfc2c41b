"""Text from outside (the chain, a node) made safe to show on a terminal."""

from __future__ import annotations

# C0 and C1 controls (ESC starts a terminal's escape sequences), DEL, and the
# Unicode marks that reorder what a terminal shows (bidi overrides and isolates).
_HIDDEN = {
    *range(0x00, 0x20),
    0x7F,
    *range(0x80, 0xA0),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
}
_ESCAPES = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in _HIDDEN}
_LINES = {code: escape for code, escape in _ESCAPES.items() if chr(code) not in "\n\t"}


def printable(text: str, *, lines: bool = False) -> str:
    """Text from the chain (a realm's panic, Render, a memo, a node's log) made safe for
    a terminal: control characters are written as escapes (``\\x1b``), so none of them
    can move the cursor, recolour the screen or hide what follows. ``lines`` keeps
    newlines and tabs (a Render page).

    >>> printable("won\\x1b[2J by bob")
    'won\\\\x1b[2J by bob'
    >>> printable("a\\nb", lines=True)
    'a\\nb'
    """
    return text.translate(_LINES if lines else _ESCAPES)

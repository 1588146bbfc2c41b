"""The board as a standalone SVG picture: no script, no link, nothing to click."""

from __future__ import annotations

from c4cli.engine.board import COLS, ROWS, Board

_CELL = 60
_MARGIN = 10
_LABEL = 24
_FILL = {0: "#e8eef7", 1: "#e23b3b", 2: "#f5c518"}


def _fills(swap_colors: bool) -> dict[int, str]:
    """Each disc's colour; ``swap_colors`` gives red's to yellow and back."""
    fill = dict(_FILL)
    if swap_colors:
        fill[1], fill[2] = fill[2], fill[1]
    return fill


def _mark(board: Board, col: int, row: int, win: set[int]) -> str:
    """The ring a disc gets: green in the winning four, dark on the last disc before a win."""
    if row * COLS + col in win:
        return ' class="win" stroke="#16a34a" stroke-width="5"'
    if not win and board.last == (col, row):
        return ' class="last" stroke="#111827" stroke-width="3"'
    return ""


def column_svg(board: Board, col: int, *, swap_colors: bool = False) -> str:
    """One column, its number on top: a realm's page puts seven side by side, each
    wrapped in the link that plays it."""
    height = _LABEL + ROWS * _CELL
    fill = _fills(swap_colors)
    win = set(board.line)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_CELL} {height}" '
        f'width="{_CELL}" height="{height}" role="img">',
        f'<rect x="0" y="0" width="{_CELL}" height="{height}" fill="#1d4ed8"/>',
        f'<text x="{_CELL // 2}" y="{_LABEL - 6}" text-anchor="middle" font-family="sans-serif" '
        f'font-size="16" fill="#ffffff">{col + 1}</text>',
    ]
    for row in range(ROWS):
        cy = _LABEL + (ROWS - 1 - row) * _CELL + _CELL // 2
        disc = board.at(col, row)
        parts.append(
            f'<circle cx="{_CELL // 2}" cy="{cy}" r="{_CELL // 2 - 6}" fill="{fill[disc]}"'
            f"{_mark(board, col, row, win)}/>"
        )
    parts.append("</svg>")
    return "".join(parts)


def board_svg(board: Board, *, swap_colors: bool = False) -> str:
    """Draw ``board``: 42 holes, 7 column labels, the winning four or the last disc marked."""
    width = COLS * _CELL + 2 * _MARGIN
    height = ROWS * _CELL + 2 * _MARGIN + _LABEL
    fill = _fills(swap_colors)
    win = set(board.line)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img">',
        f'<rect x="0" y="0" width="{width}" height="{ROWS * _CELL + 2 * _MARGIN}" '
        'rx="12" fill="#1d4ed8"/>',
    ]
    for row in range(ROWS):
        cy = _MARGIN + (ROWS - 1 - row) * _CELL + _CELL // 2
        for col in range(COLS):
            cx = _MARGIN + col * _CELL + _CELL // 2
            disc = board.at(col, row)
            parts.append(
                f'<circle cx="{cx}" cy="{cy}" r="{_CELL // 2 - 6}" fill="{fill[disc]}"'
                f"{_mark(board, col, row, win)}/>"
            )
    label_y = ROWS * _CELL + 2 * _MARGIN + _LABEL - 6
    for col in range(COLS):
        cx = _MARGIN + col * _CELL + _CELL // 2
        parts.append(
            f'<text x="{cx}" y="{label_y}" text-anchor="middle" font-family="sans-serif" '
            f'font-size="16" fill="#334155">{col + 1}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)

"""The opening book: every position of 12 stones, scored, read from a file.

The book is Markus Thill's 12-ply database with distances, shipped by the
``bitbully-databases`` package (MIT), installed with ``pip install 'c4cli[book]'``.
c4 reads its file directly (memory-mapped, never loaded whole); it does not
import the package.

The file is a sorted run of 5-byte records: a big-endian signed 32-bit code of
the position, then a signed byte, the value for the first player, who is to
move (12 stones are down). A position is coded column by column from the
left, each column from its floor up: ``10`` for a first-player stone, ``11``
for a second-player stone, ``0`` where the column ends (after the 6th stone of
a full one); then one more ``0``. Twelve stones make exactly 32 bits. A
position and its mirror image are the same entry: look up both.

Values: 0 is a draw; ``100 - d`` is a win and ``-(100 - d)`` a loss, ``d``
plies from now. Positions where the side to move wins at once are left out
(the search never asks for them). In Pascal Pons' convention (see
:mod:`c4cli.engine.solver`), a win ``d`` plies from the 12th stone comes with
the winner's ``(12 + d + 1) / 2``-th stone, so a value ``v > 0`` scores
``(v - 69) / 2``, a value ``v < 0`` scores ``(v + 68) / 2``.

$C4_BOOK names another file in the same format, or ``off`` to search without
a book.
"""

from __future__ import annotations

import functools
import importlib.util
import mmap
import os
from pathlib import Path

from c4cli import settings

PLY = 12  # the book holds positions with this many stones
RECORD = 5  # bytes per entry: a 4-byte code and a 1-byte value
ASSET = ("assets", "book_12ply_distances.dat")


class BookError(ValueError):
    """A book file named by $C4_BOOK that cannot be used."""


def code(current: int, mask: int, *, mirror: bool = False) -> int:
    """The book's 32-bit code of a 12-stone position (first player to move).

    ``current`` holds the side to move's stones, ``mask`` every stone, in the
    solver's bitboard layout (column c, row r is bit 7c + r).

    >>> bin(code(0, 0b1))  # one second-player stone: 11 0, a 0 for each other column, 0
    '0b1100000000'
    """
    bits = 0
    for col in range(6, -1, -1) if mirror else range(7):
        for row in range(6):
            cell = 1 << (col * 7 + row)
            if not mask & cell:
                bits <<= 1
                break
            bits = (bits << 2) | (0b10 if current & cell else 0b11)
        else:
            bits <<= 1
    return bits << 1


def score(value: int) -> int:
    """A book value in Pons' convention for the side to move.

    >>> score(71), score(-88), score(0)
    (1, -10, 0)
    """
    if value > 0:
        return (value - 69) // 2
    if value < 0:
        return (value + 68) // 2
    return 0


class Book:
    """A book file, memory-mapped; ``lookup`` binary-searches it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size == 0 or size % RECORD:
                    raise BookError(f"{path}: not an opening book ({size} bytes)")
                self.data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            raise BookError(f"{path}: {exc.strerror or exc}") from None
        self.entries = size // RECORD

    def _find(self, key: int) -> int | None:
        signed = key - (1 << 32) if key >> 31 else key
        data, low, high = self.data, 0, self.entries - 1
        while low <= high:
            mid = (low + high) // 2
            at = mid * RECORD
            found = int.from_bytes(data[at : at + 4], "big", signed=True)
            if found == signed:
                return int.from_bytes(data[at + 4 : at + 5], "big", signed=True)
            if found < signed:
                low = mid + 1
            else:
                high = mid - 1
        return None

    def lookup(self, current: int, mask: int) -> int | None:
        """The score of a 12-stone position for the side to move, if the book has it."""
        value = self._find(code(current, mask))
        if value is None:
            value = self._find(code(current, mask, mirror=True))
        return None if value is None else score(value)


def locate() -> Path | None:
    """The book's file: $C4_BOOK, else the installed package's, else none."""
    named = settings.current().book
    if named == "off":
        return None
    if named:
        return Path(named)
    spec = importlib.util.find_spec("bitbully_databases")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder).joinpath(*ASSET)
        if path.is_file():
            return path
    return None


@functools.cache
def load() -> Book | None:
    """The book this process uses (opened once), or None without one."""
    path = locate()
    return None if path is None else Book(path)

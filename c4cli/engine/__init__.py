"""Connect Four rules and nothing else: no address, no clock, no block.

>>> from c4cli.engine import Board, Disc
>>> b = Board.decode("1122334")
>>> b.winner is Disc.RED
True
"""

from c4cli.engine.board import (
    CELLS,
    COLS,
    ROWS,
    BadEncoding,
    Board,
    ColumnFull,
    ColumnRange,
    Disc,
    EngineError,
    GameOver,
)

__all__ = [
    "CELLS",
    "COLS",
    "ROWS",
    "BadEncoding",
    "Board",
    "ColumnFull",
    "ColumnRange",
    "Disc",
    "EngineError",
    "GameOver",
]

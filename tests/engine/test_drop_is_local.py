"""drop checks only the lines through the new disc: no full-board scan per move."""

from __future__ import annotations

from c4cli.engine import COLS, Board

DRAWN = "315117645176335765636674142222472457245331"


class RecordingCells(list):  # type: ignore[type-arg]
    """The board's cell list, remembering which cells were read."""

    def __init__(self, cells: list[object]) -> None:
        super().__init__(cells)
        self.read: list[int] = []

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self.read.append(index)
        return super().__getitem__(index)


def test_drop_reads_only_cells_near_the_new_disc() -> None:
    board = Board()
    cells = RecordingCells(board._cells)
    board._cells = cells  # type: ignore[assignment]
    for char in DRAWN:
        cells.read.clear()
        col = int(char) - 1
        row = board.height(col)
        board.drop(col)
        # At most 3 cells each way along 4 directions.
        assert len(cells.read) <= 4 * 2 * 3
        for index in cells.read:
            assert abs(index % COLS - col) <= 3 and abs(index // COLS - row) <= 3
    assert board.draw

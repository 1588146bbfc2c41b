"""drop checks only the lines through the new disc: no full-board scan per move."""

from __future__ import annotations

import pytest

from c4cli.engine import Board
from c4cli.engine import board as board_module

DRAWN = "315117645176335765636674142222472457245331"


def test_drop_reads_only_cells_near_the_new_disc(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int, int, int]] = []
    real_at = board_module.Board.at

    def counting_at(self: Board, col: int, row: int) -> board_module.Disc:
        calls.append((len(self.moves), col, row, 0))
        return real_at(self, col, row)

    monkeypatch.setattr(board_module.Board, "at", counting_at)
    board = Board()
    for char in DRAWN:
        calls.clear()
        col = int(char) - 1
        row = board.height(col)
        board.drop(col)
        # At most 3 cells each way along 4 directions, plus the one past each end.
        assert len(calls) <= 4 * 2 * 4
        assert all(abs(c - col) <= 4 and abs(r - row) <= 4 for _, c, r, _ in calls)

"""Properties over random legal games, checked against independent ground truth."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from c4cli.engine import COLS, ROWS, Board, Disc


@st.composite
def games(draw: st.DrawFn) -> Board:
    """A random legal game, possibly finished."""
    board = Board()
    length = draw(st.integers(min_value=0, max_value=42))
    for _ in range(length):
        legal = board.legal()
        if not legal:
            break
        board.drop(draw(st.sampled_from(legal)))
    return board


def all_lines() -> list[list[tuple[int, int]]]:
    lines = []
    for col in range(COLS):
        for row in range(ROWS):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(col + i * dc, row + i * dr) for i in range(4)]
                if all(0 <= c < COLS and 0 <= r < ROWS for c, r in cells):
                    lines.append(cells)
    return lines


LINES = all_lines()


def brute_force_winner(board: Board) -> Disc:
    for line in LINES:
        discs = {board.at(c, r) for c, r in line}
        if len(discs) == 1 and Disc.EMPTY not in discs:
            return discs.pop()
    return Disc.EMPTY


def test_there_are_69_lines() -> None:
    assert len(LINES) == 69


@given(games())
def test_round_trip(board: Board) -> None:
    assert Board.decode(board.encode()) == board
    assert Board.decode(board.encode()).winner == board.winner


@given(games())
def test_winner_matches_brute_force(board: Board) -> None:
    assert board.winner == brute_force_winner(board)
    if board.winner is not Disc.EMPTY:
        assert len(board.line) == 4
        assert all(board.at(i % COLS, i // COLS) is board.winner for i in board.line)
        assert board.last is not None
        col, row = board.last
        assert row * COLS + col in board.line


@given(games(), st.integers(min_value=0, max_value=COLS - 1))
def test_clone_is_independent(board: Board, col: int) -> None:
    before = board.encode()
    copy = board.clone()
    if copy.can_drop(col):
        copy.drop(col)
        assert copy.encode() != before
    assert board.encode() == before
    assert board.clone() == board


@given(games(), st.integers(), st.integers())
def test_at_never_raises(board: Board, col: int, row: int) -> None:
    assert board.at(col, row) in set(Disc)


def makes_four(board: Board, col: int, disc: Disc) -> bool:
    """Brute force, independent of the engine: would ``disc`` dropped in ``col`` make four?"""
    if not board.can_drop(col):
        return False
    row = next(r for r in range(ROWS) if board.at(col, r) is Disc.EMPTY)

    def cell(c: int, r: int) -> Disc:
        return disc if (c, r) == (col, row) else board.at(c, r)

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for start in range(-3, 1):
            cells = [(col + (start + k) * dc, row + (start + k) * dr) for k in range(4)]
            if all(cell(c, r) is disc for c, r in cells):
                return True
    return False


@given(games(), st.sampled_from([Disc.RED, Disc.YELLOW]))
def test_winning_move_is_sound(board: Board, disc: Disc) -> None:
    """The first column where ``disc`` would make four, for either disc, whoever is on turn."""
    before = board.encode()
    col = board.winning_move(disc)
    assert board.encode() == before
    winners = [] if board.over else [c for c in range(COLS) if makes_four(board, c, disc)]
    assert col == (winners[0] if winners else -1), (before, disc, winners)


@given(games())
def test_turn_and_counts(board: Board) -> None:
    assert board.move_count == len(board.encode())
    assert board.turn is (Disc.RED if board.move_count % 2 == 0 else Disc.YELLOW)
    assert sum(board.height(c) for c in range(COLS)) == board.move_count
    assert board.draw == (board.full and board.winner is Disc.EMPTY)

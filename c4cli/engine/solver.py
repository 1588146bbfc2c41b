"""An exact Connect Four solver, in Pascal Pons' score convention.

The score of a position that is not over, for the side to move: 0 for a draw
with perfect play; ``22 - n`` when the side to move wins, ``n`` being the number
of its own stones at its win when it wins as early as the loser can allow;
``-(22 - n)`` when it loses, ``n`` the opponent's stones. A win with one's 4th
stone scores 18, the last possible win 1.

The search is a negamax with alpha-beta over bitboards, narrowed to null-window
probes (a binary search on the score), with a table of upper bounds keyed by
the position, moves tried in the order of the threats they create (centre first
among equals), and the moves that hand the opponent an immediate win left out.
Positions of 12 stones are read from the opening book when one is installed
(:mod:`c4cli.engine.book`), so that a search from an early position stops there.
Pure Python; the same answers, faster, come from the optional native core.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from mmap import mmap
from typing import NamedTuple, Protocol

from c4cli import settings
from c4cli.engine import book
from c4cli.engine.board import COLS, ROWS, Board
from c4cli.engine.book import Book

WIDTH, HEIGHT = COLS, ROWS
CELLS = WIDTH * HEIGHT
H1 = HEIGHT + 1  # bits per column: six cells and a sentinel above them

BOTTOM = sum(1 << (col * H1) for col in range(WIDTH))
FULL = BOTTOM * ((1 << HEIGHT) - 1)
ORDER = (3, 2, 4, 1, 5, 0, 6)  # centre first: the better moves, on average


def _top(col: int) -> int:
    return 1 << (HEIGHT - 1 + col * H1)


def _column(col: int) -> int:
    return ((1 << HEIGHT) - 1) << (col * H1)


TOPS = tuple(_top(col) for col in range(WIDTH))
COLUMNS = tuple(_column(col) for col in range(WIDTH))
BOTTOMS = tuple(1 << (col * H1) for col in range(WIDTH))


class SolverError(ValueError):
    """A position the solver does not take: illegal, or already over."""


def winning_cells(stones: int, mask: int) -> int:
    """The free cells (reachable now or later) where ``stones`` would make four."""
    # vertical: three below
    r = (stones << 1) & (stones << 2) & (stones << 3)
    for shift in (H1, H1 - 1, H1 + 1):  # horizontal, the two diagonals
        pair = (stones << shift) & (stones << 2 * shift)
        r |= pair & (stones << 3 * shift)
        r |= pair & (stones >> shift)
        pair = (stones >> shift) & (stones >> 2 * shift)
        r |= pair & (stones << shift)
        r |= pair & (stones >> 3 * shift)
    return r & (FULL ^ mask)


def _check_digits(moves: str) -> None:
    if moves.strip("1234567"):
        number, char = next((n, c) for n, c in enumerate(moves, 1) if c not in "1234567")
        raise SolverError(f"move {number}: {char!r} is not a column 1-7")
    if len(moves) > CELLS:
        raise SolverError(f"{len(moves)} moves is more than the {CELLS} a game can have")


class Position:
    """A position as two bitboards: the side to move's stones and every stone."""

    __slots__ = ("current", "mask", "moves")

    def __init__(self, current: int = 0, mask: int = 0, moves: int = 0) -> None:
        self.current = current
        self.mask = mask
        self.moves = moves

    @classmethod
    def from_moves(cls, moves: str) -> Position:
        """From Pons' notation (1-based columns); refuses a full column or a finished game."""
        _check_digits(moves)
        position = cls()
        for number, char in enumerate(moves, start=1):
            col = int(char) - 1
            if not position.can_play(col):
                raise SolverError(f"move {number}: column {col + 1} is full")
            if position.is_winning_move(col):
                raise SolverError(f"move {number} ends the game: nothing is left to solve")
            position.play(col)
        if position.moves == CELLS:
            raise SolverError("the board is full: nothing is left to solve")
        return position

    @classmethod
    def from_board(cls, board: Board) -> Position:
        if board.over:
            raise SolverError("the game is over: nothing is left to solve")
        return cls.from_moves(board.encode())

    def can_play(self, col: int) -> bool:
        return not self.mask & TOPS[col]

    def play(self, col: int) -> None:
        self.current ^= self.mask
        self.mask |= self.mask + BOTTOMS[col]
        self.moves += 1

    def is_winning_move(self, col: int) -> bool:
        return bool(winning_cells(self.current, self.mask) & self.possible() & COLUMNS[col])

    def possible(self) -> int:
        return (self.mask + BOTTOM) & FULL

    def key(self) -> int:
        return self.current + self.mask


class _Core(Protocol):
    """What the C core (c4cli/engine/_native.c) offers."""

    def solve(self, current: int, mask: int, moves: int, deadline: float = 0.0, /) -> int: ...
    def solve_moves(self, moves: str, /) -> int: ...
    def set_book(self, data: mmap | None, /) -> None: ...


def _load_native() -> _Core | None:
    """The C core, if this install built it and $C4_SOLVER does not ask for Python."""
    if settings.current().solver == "python":
        return None
    try:
        from c4cli.engine import _native  # type: ignore[attr-defined]
    except ImportError:
        return None
    core: _Core = _native
    return core


_CORE = _load_native()
ENGINE = "python" if _CORE is None else "native"
_core_has_book = False  # whether the C core has been handed the book (or told there is none)


def opening_book() -> Book | None:
    """The opening book the search consults at 12 stones (opened on first use)."""
    try:
        found = book.load()
    except book.BookError as exc:
        raise SolverError(f"opening book {exc}") from None
    global _core_has_book
    if _CORE is not None and not _core_has_book:
        _CORE.set_book(None if found is None else found.data)
        _core_has_book = True
    return found


def _book_for(stones: int) -> Book | None:
    """The book, for a search from a position of ``stones`` stones that can reach it."""
    return opening_book() if stones <= book.PLY else None


def reads_book(moves: str) -> bool:
    """Whether :func:`solve_all` of this position reaches the book's 12 stones, and one is there."""
    return _book_for(len(moves) + 1) is not None  # solve_all searches each child


def _search(current: int, mask: int, moves: int, tt: dict[int, int], deadline: float = 0.0) -> int:
    """The exact score; TimeoutError once ``time.monotonic()`` passes ``deadline`` (0:
    never), the table left holding only what was proven."""
    shelf = _book_for(moves)  # also hands the book to the C core, on first use
    if _CORE is not None:
        return _CORE.solve(current, mask, moves, deadline)
    global _deadline
    _deadline = deadline
    try:
        return _solve(current, mask, moves, tt, shelf)
    finally:
        _deadline = 0.0


def solve(moves: str | Board, *, tt: dict[int, int] | None = None) -> int:
    """The exact score of a position that is not over (Pons' convention)."""
    if _CORE is not None and isinstance(moves, str):
        _check_digits(moves)
        _book_for(len(moves))  # the C core reads it from here on
        try:
            return _CORE.solve_moves(moves)
        except ValueError as exc:
            raise SolverError(str(exc)) from None
    position = (
        Position.from_board(moves) if isinstance(moves, Board) else Position.from_moves(moves)
    )
    return _search(position.current, position.mask, position.moves, {} if tt is None else tt)


def solve_python(moves: str, *, tt: dict[int, int] | None = None) -> int:
    """The pure-Python search, whatever core is installed (to compare the two)."""
    position = Position.from_moves(moves)
    shelf = _book_for(position.moves)
    return _solve(position.current, position.mask, position.moves, {} if tt is None else tt, shelf)


def solve_all(moves: str | Board) -> list[int | None]:
    """Every column's score for the side to move (None for a full column)."""
    return solve_within(moves).scores


class Choice(NamedTuple):
    """What a search within a time budget found: every column's exact score where it was
    proven in time (None: a full column, or not proven), whether every legal column
    was, and the column to play (1-based)."""

    scores: list[int | None]
    exact: bool
    column: int


def solve_within(moves: str | Board, deadline: float = 0.0) -> Choice:
    """The columns' scores, proven one after the other, centre first, until
    ``time.monotonic()`` passes ``deadline`` (0: no limit: every column, exactly).

    The column chosen is the best proven one when all are; when time runs out first,
    a proven win if there is one, else the first of: a proven draw, the most central
    column not yet proven that does not hand the opponent a four at once, the least
    bad proven loss."""
    position = (
        Position.from_board(moves) if isinstance(moves, Board) else Position.from_moves(moves)
    )
    tt: dict[int, int] = {}
    scores: list[int | None] = [None] * WIDTH
    legal = [col for col in ORDER if position.can_play(col)]
    unproven: list[int] = []
    for col in legal:
        if position.is_winning_move(col):
            scores[col] = (CELLS + 1 - position.moves) // 2
            continue
        child = Position(position.current, position.mask, position.moves)
        child.play(col)
        if child.moves == CELLS:
            scores[col] = 0
            continue
        if unproven or (deadline and time.monotonic() >= deadline):
            unproven.append(col)
            continue
        try:
            scores[col] = -_search(child.current, child.mask, child.moves, tt, deadline)
        except TimeoutError:
            unproven.append(col)
    if not unproven:
        return Choice(scores, True, best_columns(scores)[0])
    return Choice(scores, False, _fallback(position, scores, unproven) + 1)


def _fallback(position: Position, scores: list[int | None], unproven: list[int]) -> int:
    """The column to play when not every column was proven in time (0-based)."""
    proven = [(score, col) for col, score in enumerate(scores) if score is not None]
    best = max(proven, key=lambda pair: (pair[0], -ORDER.index(pair[1])), default=None)
    if best is not None and best[0] >= 0:
        return best[1]
    for col in unproven:  # centre first already
        child = Position(position.current, position.mask, position.moves)
        child.play(col)
        if not winning_cells(child.current, child.mask) & child.possible():
            return col  # the opponent has no four to play at once
    return best[1] if best is not None else unproven[0]


def best_move(position: str | Board) -> int:
    """The column `play best` and the bot play: the lowest with the best exact score."""
    return best_columns(solve_all(position))[0]


def best_columns(scores: Iterable[int | None]) -> list[int]:
    """The 1-based columns with the highest score."""
    listed = list(scores)
    top = max(s for s in listed if s is not None)
    return [col + 1 for col, s in enumerate(listed) if s == top]


def _solve(
    current: int, mask: int, moves: int, tt: dict[int, int], shelf: Book | None = None
) -> int:
    if winning_cells(current, mask) & (mask + BOTTOM) & FULL:
        return (CELLS + 1 - moves) // 2
    low, high = -((CELLS - moves) // 2), (CELLS + 1 - moves) // 2
    while low < high:  # null-window probes, nearer zero first
        med = low + (high - low) // 2
        if med <= 0 and _half(low) < med:
            med = _half(low)
        elif med >= 0 and high // 2 > med:
            med = high // 2
        r = _negamax(current, mask, moves, med, med + 1, tt, shelf)
        if r <= med:
            high = r
        else:
            low = r
    return low


_deadline = 0.0  # the pure-Python search's: time.monotonic() to stop at (0: none)
_nodes = 0


def _half(x: int) -> int:
    """x / 2 rounded toward zero."""
    return -((-x) // 2) if x < 0 else x // 2


def _negamax(
    current: int,
    mask: int,
    moves: int,
    alpha: int,
    beta: int,
    tt: dict[int, int],
    shelf: Book | None,
) -> int:
    """Alpha-beta for a position where the side to move cannot win at once."""
    global _nodes
    _nodes += 1
    if _deadline and not _nodes & 0xFFF and time.monotonic() >= _deadline:
        raise TimeoutError("the search ran out of time")
    possible = (mask + BOTTOM) & FULL
    opponent_wins = winning_cells(current ^ mask, mask)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - 1):
            return -((CELLS - moves) // 2)  # two threats: lost next move
        possible = forced
    playable = possible & ~(opponent_wins >> 1)  # never play under an opponent's win
    if not playable:
        return -((CELLS - moves) // 2)
    if moves >= CELLS - 2:
        return 0
    if moves == book.PLY and shelf is not None:
        exact = shelf.lookup(current, mask)
        if exact is not None:
            return exact
    low = -((CELLS - 2 - moves) // 2)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (CELLS - 1 - moves) // 2
    key = current + mask
    bound = tt.get(key)
    if bound is not None:
        high = bound
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    # Order the moves by the threats they leave behind, centre first among equals.
    ranked: list[tuple[int, int, int]] = []
    for rank, col in enumerate(ORDER):
        move = playable & COLUMNS[col]
        if move:
            threats = winning_cells(current | move, mask).bit_count()
            ranked.append((-threats, rank, move))
    ranked.sort()
    opponent = current ^ mask
    for _, _, move in ranked:
        child_mask = mask | move
        score = -_negamax(opponent, child_mask, moves + 1, -beta, -alpha, tt, shelf)
        if score >= beta:
            return score
        if score > alpha:
            alpha = score
    tt[key] = alpha
    return alpha

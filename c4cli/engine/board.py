"""The Connect Four board: a move list and everything derived from it."""

from __future__ import annotations

import base64
import enum
from collections.abc import Iterator
from types import ModuleType

COLS = 7
ROWS = 6
CELLS = COLS * ROWS

# The four directions a line can run through a cell: right, up, up-right, down-right.
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Disc(enum.IntEnum):
    """Whose disc occupies a cell. EMPTY is zero so a fresh cell list is an empty board."""

    EMPTY = 0
    RED = 1
    YELLOW = 2

    def __str__(self) -> str:
        return self.name.lower()

    def other(self) -> Disc:
        """The opponent's colour; EMPTY has no opponent and stays EMPTY.

        >>> Disc.RED.other()
        <Disc.YELLOW: 2>
        """
        if self is Disc.EMPTY:
            return Disc.EMPTY
        return Disc.YELLOW if self is Disc.RED else Disc.RED


class EngineError(ValueError):
    """Base of every rule the engine refuses."""


class ColumnRange(EngineError):
    """A column outside 0..6 (1..7 to a person)."""


class ColumnFull(EngineError):
    """A seventh disc in a column."""


class GameOver(EngineError):
    """A move after a win or on a full board."""


class BadEncoding(EngineError):
    """A string that does not describe a legal game."""


class Board:
    """A position plus the moves that produced it.

    A board *is* its move list: equality and hashing use the encoding, and the
    position, winner, winning line and last move are all derived by :meth:`drop`.

    >>> b = Board.decode("1122334")
    >>> b.winner, b.line
    (<Disc.RED: 1>, (0, 1, 2, 3))
    """

    __slots__ = ("_cells", "_heights", "_line", "_moves", "_winner")

    def __init__(self) -> None:
        self._cells = [Disc.EMPTY] * CELLS
        self._heights = [0] * COLS
        self._moves: list[int] = []
        self._winner = Disc.EMPTY
        self._line: tuple[int, ...] = ()

    # -- encoding -------------------------------------------------------------

    @classmethod
    def decode(cls, text: str) -> Board:
        """Replay a game from its encoding, through :meth:`drop`.

        Replaying instead of writing cells is what makes an impossible game
        (an overflowing column, a move after the win) unrepresentable.

        >>> Board.decode("4433").encode()
        '4433'
        """
        if len(text) > CELLS:
            raise BadEncoding(f"{len(text)} moves is more than the {CELLS} a game can have")
        board = cls()
        for number, char in enumerate(text, start=1):
            if char not in "1234567":
                raise BadEncoding(f"move {number}: {char!r} is not a column 1-7")
            try:
                board.drop(int(char) - 1)
            except EngineError as exc:
                raise BadEncoding(f"move {number}: {exc}") from None
        return board

    @classmethod
    def from_cells(cls, cells: str) -> Board:
        """A game that reaches a position given cell by cell, column-major.

        ``cells`` has 42 characters, column c row r (0 = floor) at ``c*6 + r``:
        ``0`` empty, ``1`` the first mover's disc (red), ``2`` the other's, as
        the realm's GameJSON publishes a board. Many move orders may reach it;
        this is one in which nobody had four before the last move, found by a
        search that drops each column's discs bottom up, colours alternating.

        >>> Board.from_cells("12" + "0" * 4 + "1" + "0" * 35).encode()
        '112'
        >>> Board.from_cells("1111" + "00" + "222" + "0" * 33).winner
        <Disc.RED: 1>
        """
        if len(cells) != CELLS or set(cells) - set("012"):
            raise BadEncoding(f"a position is {CELLS} characters of 0, 1 and 2")
        columns = [cells[col * ROWS : (col + 1) * ROWS] for col in range(COLS)]
        stacks = [column.rstrip("0") for column in columns]
        if any("0" in stack for stack in stacks):
            raise BadEncoding("a disc floats above an empty cell")
        total = sum(len(stack) for stack in stacks)
        dead_ends: set[tuple[int, ...]] = set()

        def extend(board: Board) -> Board | None:
            if len(board._moves) == total:
                return board
            heights = tuple(board._heights)
            if heights in dead_ends:
                return None
            wanted = "1" if board.turn is Disc.RED else "2"
            for col in range(COLS):
                row = heights[col]
                if row < len(stacks[col]) and stacks[col][row] == wanted:
                    child = board.clone()
                    child.drop(col)
                    if child.over and len(child._moves) < total:
                        continue  # a four before the end: not how this game went
                    found = extend(child)
                    if found is not None:
                        return found
            dead_ends.add(heights)
            return None

        found = extend(cls())
        if found is None:
            raise BadEncoding("no game of alternating moves reaches this position")
        return found

    def encode(self) -> str:
        """One digit per move, the 1-based column; '' for an empty board."""
        return "".join(str(col + 1) for col in self._moves)

    # -- the only mutator -----------------------------------------------------

    def drop(self, col: int) -> int:
        """Drop the current player's disc into 0-based ``col``; return its row (0 = floor).

        The win check walks only the four lines through the new disc, so a move
        costs the same on any board and a finished game is never rescanned.
        """
        if self.over:
            raise GameOver("the game is over")
        if not 0 <= col < COLS:
            raise ColumnRange(f"column {col + 1} is outside 1-{COLS}")
        row = self._heights[col]
        if row >= ROWS:
            raise ColumnFull(f"column {col + 1} is full")
        disc = self.turn
        self._cells[row * COLS + col] = disc
        self._heights[col] = row + 1
        self._moves.append(col)
        self._line = self._line_through(col, row, disc)
        if self._line:
            self._winner = disc
        return row

    def _line_through(self, col: int, row: int, disc: Disc) -> tuple[int, ...]:
        """The four winning cells through (col, row) if ``disc`` there makes four, else ().

        Walks each of the four directions outwards from the cell and stops at the
        first other disc or the edge: at most 24 cells read, whatever the board.
        """
        cells = self._cells
        for dc, dr in _DIRECTIONS:
            back = 0
            c, r = col - dc, row - dr
            while 0 <= c < COLS and 0 <= r < ROWS and cells[r * COLS + c] is disc:
                back += 1
                c, r = c - dc, r - dr
            ahead = 0
            c, r = col + dc, row + dr
            while 0 <= c < COLS and 0 <= r < ROWS and cells[r * COLS + c] is disc:
                ahead += 1
                c, r = c + dc, r + dr
            length = back + ahead + 1
            if length >= 4:
                # A run of 5+ still reports exactly four cells: the four starting at
                # the new disc, or the last four of the run when it ends sooner.
                first = min(back, length - 4) - back
                return tuple(
                    sorted((row + k * dr) * COLS + col + k * dc for k in range(first, first + 4))
                )
        return ()

    # -- reading --------------------------------------------------------------

    @property
    def winner(self) -> Disc:
        """The disc that made four in a row, or EMPTY."""
        return self._winner

    @property
    def line(self) -> tuple[int, ...]:
        """The four winning cell indexes (row*COLS+col), ascending; () with no winner."""
        return self._line

    def at(self, col: int, row: int) -> Disc:
        """The disc at (col, row), rows from the floor; EMPTY off the board, never an error."""
        if 0 <= col < COLS and 0 <= row < ROWS:
            return self._cells[row * COLS + col]
        return Disc.EMPTY

    def height(self, col: int) -> int:
        """Discs stacked in ``col``; 0 off the board."""
        return self._heights[col] if 0 <= col < COLS else 0

    def can_drop(self, col: int) -> bool:
        """Whether the player on turn may play ``col`` now."""
        return not self.over and 0 <= col < COLS and self._heights[col] < ROWS

    def legal(self) -> tuple[int, ...]:
        """Every playable column, ascending; () once the game is over."""
        return tuple(col for col in range(COLS) if self.can_drop(col))

    @property
    def turn(self) -> Disc:
        """Red on even move counts, Yellow on odd."""
        return Disc.RED if len(self._moves) % 2 == 0 else Disc.YELLOW

    @property
    def move_count(self) -> int:
        return len(self._moves)

    @property
    def moves(self) -> tuple[int, ...]:
        """The move list as 0-based columns (a copy)."""
        return tuple(self._moves)

    @property
    def full(self) -> bool:
        return len(self._moves) == CELLS

    @property
    def draw(self) -> bool:
        return self.full and self._winner is Disc.EMPTY

    @property
    def over(self) -> bool:
        return self._winner is not Disc.EMPTY or self.full

    @property
    def last(self) -> tuple[int, int] | None:
        """(col, row) of the last disc dropped, or None on an empty board."""
        if not self._moves:
            return None
        col = self._moves[-1]
        return col, self._heights[col] - 1

    def clone(self) -> Board:
        """An independent copy, for code that searches by mutating."""
        copy = Board.__new__(Board)
        copy._cells = list(self._cells)
        copy._heights = list(self._heights)
        copy._moves = list(self._moves)
        copy._winner = self._winner
        copy._line = self._line
        return copy

    def winning_move(self, disc: Disc) -> int:
        """The first column (0-based) where ``disc`` wins on the spot, else -1.

        One ply, whoever is on turn: it answers both "can I win now" and "must I
        block now". The board itself is never touched.

        >>> Board.decode("121212").winning_move(Disc.YELLOW)
        1
        """
        if self.over or disc is Disc.EMPTY:
            return -1
        for col in range(COLS):
            row = self._heights[col]
            if row < ROWS and self._line_through(col, row, disc):
                return col
        return -1

    def rows(self) -> Iterator[list[Disc]]:
        """The rows top first, each left to right: the order every text view draws."""
        for row in range(ROWS - 1, -1, -1):
            yield self._cells[row * COLS : (row + 1) * COLS]

    # -- views ----------------------------------------------------------------

    # Every view takes ``swap_colors``: the realm gives the creator red whoever
    # moves first, while the rules always call the first mover's disc RED.

    def text(self, *, swap_colors: bool = False) -> str:
        """ASCII, top row first, then the column labels; ``str(board)`` is ``text()``."""
        glyph = _glyphs(".", "R", "Y", swap_colors)
        lines = ["".join(glyph[d] for d in row) + "\n" for row in self.rows()]
        return "".join(lines) + "".join(str(c + 1) for c in range(COLS)) + "\n"

    def __str__(self) -> str:
        return self.text()

    def emoji(self, *, swap_colors: bool = False) -> str:
        """Six rows of coloured squares, top first: the text fallback where no image goes."""
        glyph = _glyphs("⚫", "🔴", "🟡", swap_colors)
        return "".join("".join(glyph[d] for d in row) + "\n" for row in self.rows())

    def svg(self, *, swap_colors: bool = False) -> str:
        drawn: str = _drawing().board_svg(self, swap_colors=swap_colors)
        return drawn

    def image(self, alt: str, *, swap_colors: bool = False) -> str:
        """The board as a markdown image with the SVG inline as a data URI."""
        return _image(alt, self.svg(swap_colors=swap_colors))

    def column_image(self, col: int, alt: str, *, swap_colors: bool = False) -> str:
        """Column ``col`` (0-6) as a markdown image, its number on top."""
        return _image(alt, _drawing().column_svg(self, col, swap_colors=swap_colors))

    def disc_names(self, col: int, *, swap_colors: bool = False) -> list[str]:
        """Column ``col``'s cells bottom up, as an image's alt text names them."""
        name = _glyphs("empty", "red", "yellow", swap_colors)
        return [name[self.at(col, row)] for row in range(ROWS)]

    # -- value semantics ------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._moves == other._moves

    def __hash__(self) -> int:
        return hash(self.encode())

    def __repr__(self) -> str:
        return f"Board.decode({self.encode()!r})"


def _image(alt: str, svg: str) -> str:
    """A markdown image with the SVG inline as a data URI, the one inline image gnoweb
    shows."""
    return f"![{alt}](data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()})"


def _glyphs(empty: str, red: str, yellow: str, swap: bool) -> dict[Disc, str]:
    if swap:
        red, yellow = yellow, red
    return {Disc.EMPTY: empty, Disc.RED: red, Disc.YELLOW: yellow}


def _drawing() -> ModuleType:
    """The SVG drawing, which draws a Board (so it imports this module): loaded only
    for a picture."""
    from c4cli.engine import drawing

    return drawing

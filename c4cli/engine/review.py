"""A game's review by the exact solver: what each move cost.

Connect Four is solved, so a move is not judged by an estimate: before each move,
every column's exact score is known (Pascal Pons' convention: 0 a draw, a positive
score a win, the sooner the higher; a negative one a loss), and the move played is
held to the best of them:

- ``best``: the best score (``kept the win`` when that score is a win);
- ``inaccuracy``: the same outcome, further away (a win made longer, a loss nearer);
- ``mistake``: a win thrown to a draw;
- ``blunder``: a win or a draw thrown to a loss.

The game's result was *decided* by the last move that changed its outcome with
perfect play (a mistake or a blunder); a game without one was decided before its
first move (the empty board is the first mover's win).
"""

from __future__ import annotations

from typing import NamedTuple

from c4cli.engine import solver
from c4cli.engine.board import CELLS, Board

BEST, KEPT, INACCURACY, MISTAKE, BLUNDER = (
    "best", "kept the win", "inaccuracy", "mistake", "blunder",
)  # fmt: skip
VERDICTS = (BEST, KEPT, INACCURACY, MISTAKE, BLUNDER)


class Verdict(NamedTuple):
    """One move judged: its number (from 1), its column (1-7), who played it (0: the
    first mover, 1: the second), the best score before it and the columns that had
    it, the score of the move played, and what that makes it."""

    number: int
    column: int
    side: int
    best: int
    best_columns: tuple[int, ...]
    played: int
    kind: str


class Review(NamedTuple):
    """A game's moves judged; the move that decided its result (0: before the first);
    how it stands: ``first`` or ``second`` won, ``draw``, or ``unfinished``."""

    moves: str
    verdicts: list[Verdict]
    decided: int
    result: str

    def summary(self, side: int) -> dict[str, int]:
        """How many moves of each verdict one side played."""
        counts = dict.fromkeys(VERDICTS, 0)
        for verdict in self.verdicts:
            if verdict.side == side:
                counts[verdict.kind] += 1
        return counts


def judged(best: int, played: int) -> str:
    """A move's verdict from the best score before it and the score of the move played.

    >>> judged(3, 3), judged(0, 0), judged(3, 1), judged(-2, -5), judged(3, 0), judged(0, -1)
    ('kept the win', 'best', 'inaccuracy', 'inaccuracy', 'mistake', 'blunder')
    """
    if played == best:
        return KEPT if best > 0 else BEST
    if _outcome(played) == _outcome(best):
        return INACCURACY
    return BLUNDER if played < 0 else MISTAKE


def review(moves: str) -> Review:
    """Every move of ``moves`` (columns 1-7 from the empty board) judged by the solver.

    Before a move, the position's own score is the best one (one search, or the
    opening book's entry), and the move played is one search more; every column's
    score is searched only where the move was not the best, to name the columns
    that were."""
    board = Board.decode(moves)  # a move string that is no game: EngineError, as anywhere
    verdicts: list[Verdict] = []
    decided, value = 0, _outcome(solver.solve(""))  # the game's value, the first mover's
    for index, char in enumerate(moves):
        verdict = judge(moves[:index], int(char))
        verdicts.append(verdict)
        played, side = verdict.played, verdict.side
        after = _outcome(played) if side == 0 else -_outcome(played)
        if after != value:
            decided, value = index + 1, after
    if board.winner:
        result = "first" if len(moves) % 2 == 1 else "second"
    elif board.draw:
        result = "draw"
    else:
        result = "unfinished"
    return Review(moves, verdicts, decided, result)


def judge(before: str, column: int) -> Verdict:
    """The move ``column`` after the moves ``before`` (a game not over), judged."""
    best = solver.solve(before)
    played = _score_of(before, column)
    columns: tuple[int, ...] = (column,)
    if played != best:
        columns = tuple(solver.best_columns(solver.solve_all(before)))
    side = len(before) % 2
    return Verdict(len(before) + 1, column, side, best, columns, played, judged(best, played))


def _score_of(before: str, column: int) -> int:
    """The score, for the side to move, of playing ``column`` after ``before``."""
    after = Board.decode(before + str(column))
    if after.winner:
        return (CELLS + 1 - len(before)) // 2  # a four at once: Pons' score of it
    if after.full:
        return 0
    return -solver.solve(before + str(column))


def _outcome(score: int) -> int:
    return (score > 0) - (score < 0)

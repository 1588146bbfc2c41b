"""`c4 solve` and `c4 hint`: exact scores and the best columns, of any position or a game."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from c4cli.client.realm_client import Status
from c4cli.commands import complete
from c4cli.commands.options import common_options, emit_json, json_option, quiet_option
from c4cli.commands.params import FloatSeconds
from c4cli.commands.text import names as names_of
from c4cli.commands.views import load_game
from c4cli.engine import solver
from c4cli.errors import BadInput
from c4cli.movetext import cut, moves_from

F = TypeVar("F", bound=Callable[..., Any])


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def verdict(score: int, subject: str = "the side to move") -> str:
    """A score in words, for ``subject`` (the side to move; "" to leave it unnamed)."""
    who = f"{subject} " if subject else ""
    if score > 0:
        return f"{who}wins with its {ordinal(22 - score)} stone"
    if score < 0:
        return f"{who}loses to the opponent's {ordinal(22 + score)} stone"
    return "draw"


def scores_line(scores: list[int | None], unproven: tuple[int, ...] = ()) -> str:
    """Every column's score: ``1:-8  2:-8 … 5:full  6:+4`` (``?``: not proven in time)."""

    def shown(col: int, score: int | None) -> str:
        if score is not None:
            return format(score, "+d")
        return "?" if col in unproven else "full"

    return "scores: " + "  ".join(f"{c}:{shown(c, s)}" for c, s in enumerate(scores, 1))


# How long `c4 hint` and `c4 bot` search before settling for the best move found: well
# inside the realm's 90-second move clock, with room left to send the move.
DEFAULT_THINK = 30.0


def think_option(func: F) -> F:
    return click.option(
        "--think",
        type=FloatSeconds(0.1),
        default=DEFAULT_THINK,
        show_default=True,
        metavar="SECONDS",
        help="Search at most this long; then the best move found, said to be unproven.",
    )(func)


def best_line(best: list[int]) -> str:
    return "best: " + ", ".join(str(col) for col in best)


@click.command()
@click.argument("moves", metavar="MOVES", default="")
@click.option("--all", "every", is_flag=True, help="Also print every column's score.")
@json_option
@quiet_option
def solve(moves: str, every: bool, as_json: bool) -> None:
    """Solve a position exactly: its score for the side to move, and the best columns.

    MOVES are 1-based columns from the empty board, as in Pascal Pons' test sets
    (nothing for the empty board), or a file holding them or a game's record
    (`c4 export`), or - for stdin. Scores follow his convention: 0 is a draw,
    22-n a win with one's n-th stone, -(22-n) a loss to the opponent's n-th.

    \b
    Example:
      c4 solve 5554224333234511764415115
      c4 solve 52753311433677442422121 --all --json
    """
    moves = moves_from(moves, "MOVES")
    try:
        scores = solver.solve_all(moves)
    except solver.SolverError as exc:
        raise BadInput(f"cannot solve {cut(moves)!r}: {exc}") from None
    score = max(s for s in scores if s is not None)
    best = solver.best_columns(scores)
    if as_json:
        document: dict[str, object] = {"moves": moves, "score": score, "best": best}
        if every:
            document["scores"] = scores
        document.update(engine=solver.ENGINE, book=solver.reads_book(moves))
        emit_json(document)
        return
    side = "red" if len(moves) % 2 == 0 else "yellow"
    click.echo(f"{moves or 'the empty board'}: {side} to move; {verdict(score)} (score {score:+d})")
    click.echo(best_line(best))
    if every:
        click.echo(scores_line(scores))


@click.command()
@click.argument("game_id", metavar="[GAME]", required=False, shell_complete=complete.games)
@click.option(
    "--moves",
    "given",
    metavar="DIGITS",
    help="A position instead of a game: its moves, or a file holding them or a record "
    "(c4 export), or - for stdin.",
)
@think_option
@common_options
def hint(game_id: str | None, given: str | None, think: float, home: Path, as_json: bool) -> None:
    """The exact score and the best columns for the player to move in GAME.

    The search stops after --think seconds: then the hint is the best column found,
    said not to be proven (`"exact": false` in JSON, unproven columns null).

    \b
    Example:
      c4 hint 1
      c4 hint 1 --json
      c4 hint --moves game1.c4
    """
    if (game_id is None) == (given is None):
        raise BadInput("give a GAME id or --moves DIGITS (a position's moves, or a record)")
    if given is not None:
        _position_hint(moves_from(given, "--moves"), think, as_json)
        return
    assert game_id is not None
    game = load_game(home, game_id)
    if game.status != Status.PLAYING or game.turn == 0:
        raise BadInput(f"game {game.id} has no move to play now ({game.status}): no hint")
    address = game.player(game.turn)
    names = names_of(home)
    name = names.get(address)
    disc = "red" if address == game.creator else "yellow"
    # GameJSON publishes the position, not the order it was reached in: the
    # solver needs only the position, and `moves` is one order that reaches it.
    board = game.board()
    moves = board.encode()
    try:
        choice = solver.solve_within(moves, time.monotonic() + think)
    except solver.SolverError as exc:  # a game in play is never over; kept for safety
        raise BadInput(f"cannot solve game {game.id}: {exc}") from None
    scores = choice.scores
    score = max(s for s in scores if s is not None) if choice.exact else None
    best = solver.best_columns(scores) if choice.exact else [choice.column]
    if as_json:
        emit_json(
            {
                "game": game.id,
                "moves": moves,
                "player": address,
                "key": name,
                "score": score,
                "best": best,
                "scores": scores,
                "exact": choice.exact,
                "engine": solver.ENGINE,
                "book": solver.reads_book(moves),
            }
        )
        return
    who = f"{name} ({disc})" if name else f"{address} ({disc})"
    if score is not None:
        said = f"{verdict(score, subject='')} (score {score:+d})"
    else:
        said = f"not solved within {think:g} s"
    click.echo(f"game {game.id}, move {game.moves}: {who} to move; {said}")
    click.echo(best_line(best) + ("" if choice.exact else " (the best found, not proven)"))
    unproven = tuple(col + 1 for col in board.legal() if scores[col] is None)
    click.echo(scores_line(scores, unproven))


def _position_hint(moves: str, think: float, as_json: bool) -> None:
    """`c4 hint --moves`: a position's hint, as `c4 solve` gives it within --think."""
    try:
        choice = solver.solve_within(moves, time.monotonic() + think)
    except solver.SolverError as exc:
        raise BadInput(f"cannot solve {cut(moves)!r}: {exc}") from None
    score = max(s for s in choice.scores if s is not None) if choice.exact else None
    best = solver.best_columns(choice.scores) if choice.exact else [choice.column]
    if as_json:
        emit_json(
            {"moves": moves, "score": score, "best": best, "scores": choice.scores,
             "exact": choice.exact, "engine": solver.ENGINE,
             "book": solver.reads_book(moves)}
        )  # fmt: skip
        return
    side = "red" if len(moves) % 2 == 0 else "yellow"
    said = f"{verdict(score, subject='')} (score {score:+d})" if score is not None else "not solved"
    click.echo(f"{moves or 'the empty board'}: {side} to move; {said}")
    click.echo(best_line(best) + ("" if choice.exact else " (the best found, not proven)"))

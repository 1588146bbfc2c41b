"""c4 review: what each move of a game cost, by the exact solver."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.commands import complete
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.text import names, who
from c4cli.commands.views import checked, game_history, load_game, mark_four
from c4cli.engine import Board, EngineError
from c4cli.engine.review import BEST, KEPT, Review, Verdict, review
from c4cli.errors import BadInput
from c4cli.jsonvalue import Document
from c4cli.movetext import cut, moves_from

SHOWN = (KEPT, BEST)  # verdicts that need no best column named


def _score(score: int) -> str:
    """A score as a player reads it: a win or a loss with its stone, or a draw."""
    if score == 0:
        return "a draw"
    stone = 22 - abs(score)
    return f"a win with its stone {stone}" if score > 0 else f"a loss to the other's stone {stone}"


@click.command()
@click.argument("game_id", metavar="[GAME]", required=False, shell_complete=complete.games)
@click.option(
    "--moves",
    metavar="DIGITS",
    help="Review these moves (columns 1-7 from the empty board; a record file, or - for "
    "stdin) instead of a game.",
)
@common_options
def review_cmd(game_id: str | None, moves: str | None, home: Path, as_json: bool) -> None:
    """Judge every move of a game with the exact solver, and say where it was decided.

    Before each move every column's exact score is known (Connect Four is
    solved): a move is the best, or an inaccuracy (a win made longer, a loss
    nearer), a mistake (a win thrown to a draw) or a blunder (to a loss), with the
    best column(s) where it was not played. The game was decided by the last
    move that changed its result with perfect play; the board there is drawn.
    A game's moves are the chain's record of them (on a node, `c4 sync` keeps
    every game's).

    \b
    Example:
      c4 review 1
      c4 review --moves 4455 --json | jq '.verdicts[] | select(.verdict == "blunder")'
    """
    if (game_id is None) == (moves is None):
        raise BadInput("give a GAME id or --moves DIGITS (one column 1-7 per move)")
    players: tuple[str, str] = ("", "")
    known: dict[str, str] = {}
    if game_id is not None:
        game = load_game(home, game_id)
        moves = game_history(home, game, checked(home, game)).order(game.moves)
        if moves is None:
            raise BadInput(
                f"the order of game {game.id}'s moves is not known to this home (on a node, "
                "c4 sync keeps every game's)"
            )
        first = game.acceptor if game.creator_is_yellow else game.creator
        second = game.creator if game.creator_is_yellow else game.acceptor
        players, known = (first, second), names(home)
    assert moves is not None
    moves = moves_from(moves, "--moves") if game_id is None else moves
    try:
        done = review(moves)
    except EngineError as exc:
        raise BadInput(f"--moves {cut(moves)!r}: {exc}") from None
    if as_json:
        emit_json(_document(done, players, known))
        return
    _print(done, players, known)


def _side(side: int, players: tuple[str, str], known: dict[str, str]) -> str:
    colour = ("red", "yellow")[side]
    return f"{colour} {who(players[side], known)}" if players[side] else colour


def _document(done: Review, players: tuple[str, str], known: dict[str, str]) -> Document:
    def one(verdict: Verdict) -> Document:
        return {
            "number": verdict.number,  # as a record numbers moves, from 1
            "column": verdict.column,
            "side": ("first", "second")[verdict.side],
            "verdict": verdict.kind,
            "score_best": verdict.best,
            "score_played": verdict.played,
            "best_columns": list(verdict.best_columns),
        }

    return {
        "moves": done.moves,
        "result": done.result,
        "decided": done.decided,
        "decided_board": Board.decode(done.moves[: done.decided]).encode(),
        "players": [
            {"side": side, "address": players[n] or None, "key": known.get(players[n])}
            for n, side in enumerate(("first", "second"))
        ],
        "summary": {side: done.summary(n) for n, side in enumerate(("first", "second"))},
        "verdicts": [one(verdict) for verdict in done.verdicts],
    }


def _print(done: Review, players: tuple[str, str], known: dict[str, str]) -> None:
    for verdict in done.verdicts:
        line = (
            f"{verdict.number:>3}. {_side(verdict.side, players, known)}: column "
            f"{verdict.column}  {verdict.kind}"
        )
        if verdict.kind not in SHOWN:
            *others, last = [str(c) for c in verdict.best_columns]
            best = f"columns {', '.join(others)} and {last}" if others else f"column {last}"
            line += f": {_score(verdict.played)}, where {best} kept {_score(verdict.best)}"
        click.echo(line)
    outcome = {"first": "red won", "second": "yellow won", "draw": "a draw"}
    click.echo(f"result: {outcome.get(done.result, 'not over')}")
    if done.decided:
        decisive = done.verdicts[done.decided - 1]
        click.echo(
            f"decided by the {_ordinal(done.decided)} move ({decisive.kind}, "
            f"{_side(decisive.side, players, known)}):"
        )
        board = Board.decode(done.moves[: done.decided])
        click.echo(mark_four(board.text(), board.line), nl=False)
    else:
        click.echo("decided before the first move: no move changed the result")
    for n in (0, 1):
        counts = done.summary(n)
        shown = ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
        click.echo(f"{_side(n, players, known)}: {shown or 'no move'}")


def _ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 22nd: a move's number as a record counts it, in words
    that do not read as the realm's move number (Play's ``move``, from 0)."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"

"""`c4 solve`: the exact score of a position and its best columns."""

from __future__ import annotations

import click

from c4cli.commands.options import emit_json, json_option
from c4cli.errors import BadInput


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def verdict(score: int) -> str:
    """A score in words, for the side to move."""
    if score > 0:
        return f"the side to move wins with its {ordinal(22 - score)} stone"
    if score < 0:
        return f"the side to move loses to the opponent's {ordinal(22 + score)} stone"
    return "draw"


@click.command()
@click.argument("moves", metavar="MOVES", default="")
@click.option("--all", "every", is_flag=True, help="Also print every column's score.")
@json_option
def solve(moves: str, every: bool, as_json: bool) -> None:
    """Solve a position exactly: its score for the side to move, and the best columns.

    MOVES are 1-based columns from the empty board, as in Pascal Pons' test sets
    (nothing for the empty board). Scores follow his convention: 0 is a draw,
    22-n a win with one's n-th stone, -(22-n) a loss to the opponent's n-th.

    \b
    Example:
      c4 solve 5554224333234511764415115
      c4 solve 52753311433677442422121 --all --json
    """
    from c4cli.engine import solver

    try:
        scores = solver.solve_all(moves)
    except solver.SolverError as exc:
        raise BadInput(f"cannot solve {moves!r}: {exc}") from None
    score = max(s for s in scores if s is not None)
    best = solver.best_columns(scores)
    if as_json:
        document: dict[str, object] = {"moves": moves, "score": score, "best": best}
        if every:
            document["scores"] = scores
        document.update(engine=solver.ENGINE, book=False)
        emit_json(document)
        return
    side = "red" if len(moves) % 2 == 0 else "yellow"
    click.echo(f"{moves or 'the empty board'}: {side} to move; {verdict(score)} (score {score:+d})")
    click.echo("best: " + ", ".join(str(col) for col in best))
    if every:
        click.echo(
            "scores: "
            + "  ".join(
                f"{col}:{'full' if s is None else format(s, '+d')}"
                for col, s in enumerate(scores, start=1)
            )
        )

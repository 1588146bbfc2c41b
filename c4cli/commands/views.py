"""Views of a board for a person: ascii, emoji or SVG."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.commands.options import common_options, emit_json
from c4cli.engine import Board, EngineError
from c4cli.errors import BadInput


def render_board(board: Board, fmt: str) -> str:
    if fmt == "svg":
        return board.svg() + "\n"
    if fmt == "emoji":
        return board.emoji()
    return str(board)


@click.command()
@click.option("--moves", "moves", metavar="DIGITS", help="A game as its moves, e.g. 4433.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["ascii", "emoji", "svg"]),
    default="ascii",
    show_default=True,
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to a file.")
@common_options
def board(moves: str | None, fmt: str, out: Path | None, home: Path, as_json: bool) -> None:
    """Draw a position from its move encoding.

    \b
    Example:
      c4 board --moves 1122334 --format emoji
    """
    if moves is None:
        raise BadInput("give --moves DIGITS (one column 1-7 per move)")
    try:
        position = Board.decode(moves)
    except EngineError as exc:
        raise BadInput(f"--moves {moves!r}: {exc}") from None
    text = render_board(position, fmt)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    if as_json:
        emit_json(
            {
                "moves": position.encode(),
                "winner": str(position.winner),
                "line": list(position.line),
                "turn": str(position.turn),
                "over": position.over,
                "board": text,
            }
        )
    elif out is None:
        click.echo(text, nl=False)

"""c4 export: a game's record, as players and tools keep one."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.client.gamerecord import recorded
from c4cli.client.realm_client import history
from c4cli.commands import complete
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import names
from c4cli.commands.views import checked, game_calls, load_game
from c4cli.escape import printable


@click.command("export")
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "moves"]),
    default="text",
    show_default=True,
    help="text: tags, then each move with its height and time; moves: the move string.",
)
@common_options
@takes_run
def export(run: Invocation, game_id: str, fmt: str, home: Path, as_json: bool) -> None:
    """A game's record: its tags and moves, or its move string.

    The text record gives tags (realm, chain, players, stakes, fee, first mover,
    result, how it ended, start and end), then each move with its height and time;
    --format moves, the move string (columns 1-7, as Pascal Pons' solver reads it).
    c4 board --moves, c4 solve and c4 review --moves take either back (digits, a
    file, or - for stdin). On a node, every game's moves are known where `c4 sync`
    keeps the realm's history, else those this home sent: the record says which
    (its Known tag).

    \b
    Example:
      c4 export 1 > game1.c4
      c4 export 1 --format moves | c4 solve -
    """
    game = load_game(home, game_id)
    check = checked(home, game)
    calls = game_calls(home, game, check)
    chain = run.open_chain(home)
    record = recorded(
        game,
        history(calls, game.id).order(game.moves),
        calls,
        realm_path=chain.realm_path,
        chain_id=chain.chain_id,
        known=names(home),
    )
    if as_json:
        emit_json(
            {
                "moves": record.move_string if record.moves or not game.moves else None,
                "tags": record.tags,
                "move_list": [move._asdict() for move in record.moves],
                "text": record.text(),
            }
        )
    elif fmt == "moves":
        click.echo(record.move_string)
    else:
        for line in record.text().splitlines():  # what the chain wrote, escaped
            click.echo(printable(line))

"""Views for a person: a board, a game, the lobby, the leaderboards.

On a terminal they use colour and tables (rich, loaded only here); piped,
they print plain text with no escape codes.
"""

from __future__ import annotations

import json
import sys
import time as wallclock
from pathlib import Path

import click

from c4cli.chain.clock import format_time
from c4cli.chain.coins import gnot
from c4cli.chain.node import LocalChain
from c4cli.chain.state import ChainState
from c4cli.commands.common import names, who
from c4cli.commands.options import common_options, emit_json, game_id_arg
from c4cli.engine import Board, EngineError
from c4cli.errors import BadInput, Refused
from c4cli.realm.connect4 import ACCEPTOR, OPEN, PLAYING, Game
from c4cli.realm.views import active_json, game_json, leaders_json


def render_board(board: Board, fmt: str, *, swap_colors: bool = False) -> str:
    if fmt == "svg":
        return board.svg(swap_colors=swap_colors) + "\n"
    if fmt == "emoji":
        return board.emoji(swap_colors=swap_colors)
    return board.text(swap_colors=swap_colors)


def on_terminal() -> bool:
    return sys.stdout.isatty()


def load_game(home: Path, game_id: str) -> tuple[ChainState, Game]:
    number = game_id_arg(game_id)  # refused before the chain is read
    state = LocalChain(home).state()
    game = state.realm.games.get(number)
    if game is None:
        raise Refused("game not found")
    return state, game


@click.command()
@click.argument("game_id", metavar="[GAME]", required=False)
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
def board(
    game_id: str | None, moves: str | None, fmt: str, out: Path | None, home: Path, as_json: bool
) -> None:
    """Draw GAME from the chain, or any position from its move encoding.

    In a game the creator's discs are red (R) whoever moved first.

    \b
    Example:
      c4 board 1 --format emoji
      c4 board --moves 1122334 --format svg --out board.svg
    """
    if (game_id is None) == (moves is None):
        raise BadInput("give a GAME id or --moves DIGITS (one column 1-7 per move)")
    swap = False
    if game_id is not None:
        _, game = load_game(home, game_id)
        position, swap = game.board(), game.first == ACCEPTOR
    else:
        assert moves is not None
        try:
            position = Board.decode(moves)
        except EngineError as exc:
            raise BadInput(f"--moves {moves!r}: {exc}") from None
    text = render_board(position, fmt, swap_colors=swap)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    if as_json:
        emit_json(
            {
                "moves": position.encode(),
                # null, not "empty", when nobody won: a drawn board says so in "draw".
                "winner": str(position.winner) if position.winner else None,
                "line": list(position.line),
                "turn": None if position.over else str(position.turn),
                "over": position.over,
                "draw": position.draw,
                "board": text,
            }
        )
    elif out is None:
        click.echo(text, nl=False)


def _next_steps(state: ChainState, game: Game, known: dict[str, str], landing: int) -> list[str]:
    creator, acceptor = who(game.creator, known), who(game.acceptor, known)
    if game.status == OPEN:
        if landing < game.expires_at:
            return [
                f"anyone{' reserved: ' + who(game.opponent, known) if game.opponent else ''} "
                f"may accept until {format_time(game.expires_at)}: c4 accept {game.id} KEY",
                f"{creator} may cancel: c4 cancel {game.id} KEY",
            ]
        return [f"expired: anyone may cancel (the stake goes back to {creator})"]
    if game.status != PLAYING:
        return []
    late = landing > game.deadline
    if late:
        return [f"the clock ran out: anyone may settle it with c4 claim-timeout {game.id} KEY"]
    if game.turn == 0:
        if not game.revealed:
            return [f"{creator} must reveal: c4 reveal {game.id} KEY"]
        return [f"{acceptor} must reveal the seed: c4 reveal {game.id} KEY"]
    mover = who(game.player(game.turn), known)
    cols = "".join(str(c + 1) for c in game.board().legal())
    return [
        f"{mover} to play a column of {cols}: c4 play {game.id} COLUMN KEY",
        f"either player may resign: c4 resign {game.id} KEY",
    ]


@click.command()
@click.argument("game_id", metavar="GAME")
@common_options
def show(game_id: str, home: Path, as_json: bool) -> None:
    """A game for a person: board, players, stakes, status, clock and what comes next.

    \b
    Example:
      c4 show 1
    """
    state, game = load_game(home, game_id)
    if as_json:
        emit_json(json.loads(game_json(state.realm, state.time, game.id)))
        return
    known = names(home)
    landing = state.next_block_time(wallclock.time())
    lines = [
        f"Game {game.id}: {game.status}, {len(game.moves)} moves",
        f"  red    {who(game.creator, known)} (creator)",
        f"  yellow {who(game.acceptor, known) if game.acceptor else 'waiting for an opponent'}",
        f"  stake {gnot(game.stake)} each, fee {gnot(game.fee)}",
    ]
    if game.status == PLAYING:
        left = game.deadline - landing
        clock = f"{left}s left" if left >= 0 else "ran out"
        lines.append(f"  clock: deadline {format_time(game.deadline)} ({clock} at the next block)")
    if game.winner:
        lines.append(f"  winner {who(game.winner, known)}: paid {gnot(2 * game.stake - game.fee)}")
    text = "\n".join(lines)
    drawing = game.board().text(swap_colors=game.first == ACCEPTOR)
    steps = _next_steps(state, game, known, landing)
    if on_terminal():
        from rich.console import Console

        console = Console()
        console.print(text, highlight=False)
        # Discs in colour only where colour shows (not with NO_COLOR or TERM=dumb):
        # without it, R and Y tell the two players apart.
        coloured = console.color_system is not None and not console.no_color
        console.print(_rich_board(drawing) if coloured else drawing, highlight=False)
        for step in steps:
            console.print(f"• {step}", highlight=False)
        return
    click.echo(text)
    click.echo(drawing, nl=False)
    for step in steps:
        click.echo(f"- {step}")


def _rich_board(drawing: str) -> str:
    return (
        drawing.replace("R", "[bold red]●[/]")
        .replace("Y", "[bold yellow]●[/]")
        .replace(".", "[dim]·[/]")
    )


@click.command()
@common_options
def lobby(home: Path, as_json: bool) -> None:
    """Open offers and live games.

    \b
    Example:
      c4 lobby
    """
    state = LocalChain(home).state()
    if as_json:
        emit_json(json.loads(active_json(state.realm, state.time, 0, 100)))
        return
    known = names(home)
    realm = state.realm
    offers = [
        realm.games[i]
        for i in realm.active
        if realm.games[i].status == OPEN and state.time < realm.games[i].expires_at
    ]
    live = [realm.games[i] for i in realm.active if realm.games[i].status == PLAYING]
    offer_rows = [
        [
            str(g.id),
            gnot(g.stake),
            gnot(g.fee),
            who(g.creator, known),
            who(g.opponent, known) if g.opponent else "anyone",
            format_time(g.expires_at),
        ]
        for g in offers
    ]
    live_rows = [
        [
            str(g.id),
            gnot(2 * g.stake),
            who(g.player(g.turn), known) if g.turn else "reveal",
            format_time(g.deadline),
        ]
        for g in live
    ]
    _table(
        f"Open offers (new offers pay a fee of {gnot(realm.fee)})",
        ["game", "stake", "fee", "creator", "open to", "expires"],
        offer_rows,
    )
    _table("Live games", ["game", "pot", "on turn", "deadline"], live_rows)


@click.command()
@common_options
def leaders(home: Path, as_json: bool) -> None:
    """The two leaderboards: most games won, most GNOT won.

    \b
    Example:
      c4 leaders
    """
    state = LocalChain(home).state()
    if as_json:
        emit_json(json.loads(leaders_json(state.realm)))
        return
    known = names(home)
    realm = state.realm
    _table(
        "Most games won",
        ["#", "player", "wins"],
        [[str(i), who(a, known), str(s)] for i, (a, s) in enumerate(realm.wins_board, 1)],
    )
    _table(
        "Most GNOT won",
        ["#", "player", "net won"],
        [[str(i), who(a, known), gnot(s)] for i, (a, s) in enumerate(realm.gnot_board, 1)],
    )


def _table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    if on_terminal():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for header in headers:
            table.add_column(header)
        for row in rows:
            table.add_row(*row)
        Console().print(table if rows else f"{title}: none")
        return
    click.echo(f"{title}:")
    if not rows:
        click.echo("  none")
    for row in rows:
        click.echo("  " + "  ".join(row))

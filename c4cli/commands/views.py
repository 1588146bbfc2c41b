"""Views for a person: a board and a game (the lobby and the leaderboards: tables.py).

On a terminal they use colour and tables (rich, loaded only here); piped,
they print plain text with no escape codes.
"""

from __future__ import annotations

import sys
import time as wallclock
from pathlib import Path
from typing import TYPE_CHECKING

import click

from c4cli.chain.clock import format_time
from c4cli.client.realm_client import GameView, History, RealmClient, Status, history
from c4cli.client.verified import GameCheck, game_check_of
from c4cli.coins import gnot
from c4cli.commands import complete
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.text import game_id_arg, key_names, names, who
from c4cli.engine import Board, EngineError
from c4cli.errors import BadInput, Refused
from c4cli.escape import printable
from c4cli.movetext import cut, record_from

if TYPE_CHECKING:
    from rich.console import Console

    from c4cli.chain.interface import Chain, GameCall


def render_board(board: Board, fmt: str, *, swap_colors: bool = False) -> str:
    if fmt == "svg":
        return board.svg(swap_colors=swap_colors) + "\n"
    if fmt == "emoji":
        return board.emoji(swap_colors=swap_colors)
    return board.text(swap_colors=swap_colors)


def on_terminal() -> bool:
    return sys.stdout.isatty()


def load_game(home: Path, game_id: str) -> GameView:
    number = game_id_arg(game_id)  # refused before the chain is read
    game = RealmClient(current().open_chain(home)).game(number)
    if game is None:
        raise Refused("game not found")
    return game


def game_history(home: Path, game: GameView, check: GameCheck | None = None) -> History:
    """The game's moves and settling call as far as the chain's record holds them: all
    of them on the local chain, and on a node whose realm's history was checked
    (``check``); else, on a node, whose GameJSON gives the position but not its
    history, what this home sent."""
    return history(game_calls(home, game, check), game.id)


def game_calls(home: Path, game: GameView, check: GameCheck | None = None) -> list[GameCall]:
    """The chain's record of the game's calls, as :func:`game_history` reads them."""
    if check is not None and check.calls is not None:
        return check.calls
    return current().open_chain(home).game_calls(game.id)


def checked(home: Path, game: GameView) -> GameCheck | None:
    """How the game, as read, stands against the realm's history on a node home (a
    value its signed blocks do not make was exit 4 already); not verified on a node
    home that keeps no history; None on the local chain and with --trust-node."""
    return game_check_of(current().open_chain(home), game.id)


STANDSTILL = 30  # seconds without a block after which a node's chain is said to stand still


def standstill(chain: Chain) -> str | None:
    """On a node whose last block is STANDSTILL seconds old or more by this machine's
    clock, what to say instead of a clock counting down: a move clock runs by block
    time, and stands still with the chain (a halted network, a node that makes blocks
    only with transactions). None on the local chain, or while blocks come."""
    if chain.exact_clock:
        return None
    head = chain.head()
    age = int(wallclock.time()) - head.time
    if age < STANDSTILL:
        return None
    return (
        f"no block for {age}s (height {head.height} at {format_time(head.time)}): "
        "the move clock runs by block time and stands still with the chain"
    )


def next_block_time(home: Path) -> tuple[int, bool]:
    """When the next block would land, for clocks shown "at the next block", and whether
    that is certain (the local chain) or this machine's estimate (a node)."""
    chain = current().open_chain(home)
    return chain.next_block_time(wallclock.time()), chain.exact_clock


def clock_text(game: GameView, landing: int, exact: bool) -> str:
    """The mover's clock in one wording for every view: the time left when the next
    block lands (``landing``), which is what judges a move sent now; on a node, this
    machine's estimate of it."""
    left = game.deadline - landing
    if exact:
        return (f"{left}s left" if left >= 0 else "ran out") + " at the next block"
    return (
        f"about {left}s left" if left >= 0 else "past by this machine's clock"
    ) + "; the node's next block decides"


@click.command()
@click.argument("game_id", metavar="[GAME]", required=False, shell_complete=complete.games)
@click.option(
    "--moves",
    "moves",
    metavar="DIGITS",
    help="A game as its moves, e.g. 4433 (or a file holding them or a record; - for stdin).",
)
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
    winner: str | None = None  # an address: a game's winner (a position has none)
    if game_id is not None:
        game = load_game(home, game_id)
        position, swap = game.board(), game.creator_is_yellow
        played = game_history(home, game).order(game.moves)
        winner = game.winner or None
    else:
        assert moves is not None
        record = record_from(moves, "--moves")
        moves = record.move_string
        try:
            position = Board.decode(moves)
        except EngineError as exc:
            raise BadInput(f"--moves {cut(moves)!r}: {exc}") from None
        played = position.encode()
        # A game's record: the creator's discs are red, as the game's own drawing has them.
        swap = record.tags.get("FirstMover") == "acceptor"
    text = render_board(position, fmt, swap_colors=swap)
    if fmt == "ascii":
        text = mark_four(text, position.line)  # lower case, as show and watch draw it
    if out is not None:
        out.write_text(text, encoding="utf-8")
    won_by, to_move = position.winner, position.turn
    if swap:  # the drawing's colours: red is the creator's, whoever moved first
        won_by, to_move = won_by.other(), to_move.other()
    if as_json:
        emit_json(
            {
                # The columns in the order they were played, where the chain keeps it
                # (null on a node); "position": one order that reaches the board.
                "moves": played,
                "position": position.encode(),
                # Colours are red (the creator's, or the first mover's for --moves) and
                # yellow; null, not "empty", when nobody won: a drawn board says so in
                # "draw". "winner" is an address, as everywhere (null for --moves).
                "winner": winner,
                "winner_color": str(won_by) if won_by else None,
                "four": list(position.line),
                "turn_color": None if position.over else str(to_move),
                "over": position.over,
                "draw": position.draw,
                "board": text,
            }
        )
    elif out is None:
        click.echo(text, nl=False)


def _yellow(game: GameView, known: dict[str, str]) -> str:
    """Who plays yellow: the acceptor, the one the offer is reserved for, or nobody yet."""
    if game.acceptor:
        return who(game.acceptor, known)
    if game.opponent:
        return f"{who(game.opponent, known)} (reserved; has not accepted)"
    return "waiting for an opponent"


def _next_steps(
    game: GameView, known: dict[str, str], landing: int, *, exact: bool = True
) -> list[str]:
    creator, acceptor = who(game.creator, known), who(game.acceptor, known)
    if game.status == Status.OPEN:
        if not game.offer_expired(landing):
            taker = who(game.opponent, known) if game.opponent else "anyone"
            return [
                f"{taker} may accept until {format_time(game.expires_at)}: c4 accept {game.id} KEY",
                f"{creator} may cancel: c4 cancel {game.id} KEY",
            ]
        return [f"expired: anyone may cancel (the stake goes back to {creator})"]
    if game.status in (Status.WON, Status.DRAW) and game.moves:
        return [f"what each move cost, by the exact solver: c4 review {game.id}"]
    if game.status != Status.PLAYING:
        return []
    if game.clock_ran_out(landing) and exact:
        return [f"the clock ran out: anyone may settle it with c4 claim-timeout {game.id} KEY"]
    if game.clock_ran_out(landing):
        return [
            "the deadline has passed by this machine's clock; the node's next block decides: "
            f"c4 claim-timeout {game.id} KEY --wait 30 tries until a block is dated after it"
        ]
    if game.turn == 0:
        if not game.revealed:
            return [f"{creator} must reveal: c4 reveal {game.id} {known.get(game.creator, 'KEY')}"]
        return [
            f"{acceptor} must reveal the seed: c4 reveal {game.id} "
            f"{known.get(game.acceptor, 'KEY')}"
        ]
    player = game.player(game.turn)
    mover = who(player, known)
    cols = "".join(str(col) for col in game.legal_columns())
    return [
        f"{mover} to play a column of {cols}: c4 play {game.id} COLUMN {known.get(player, 'KEY')}",
        f"either player may resign: c4 resign {game.id} KEY",
    ]


def _result(game: GameView, known: dict[str, str], settled_by: str | None) -> str | None:
    """How a settled game ended, in one line."""
    ending = game.ending(settled_by)
    if ending is None:
        return None
    if game.status == Status.WON:
        return f"  winner {who(game.winner, known)}: paid {gnot(game.payout())}, by {ending}"
    if game.status == Status.DRAW:
        return "  drawn (a full board): both stakes refunded"
    if game.status == Status.VOID:
        return "  void (nobody moved before the clock ran out): both stakes refunded"
    return "  cancelled: the stake went back to the creator"


@click.command()
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@common_options
@takes_run
def show(run: Invocation, game_id: str, home: Path, as_json: bool) -> None:
    """A game for a person: board, players, stakes, status, clock and what comes next.

    A settled game says how it ended; in its drawing the winning four is in
    lower case (r or y) and, on a colour terminal, in reverse video.

    \b
    Example:
      c4 show 1
    """
    game = load_game(home, game_id)
    known = names(home)
    check = checked(home, game)
    story = game_history(home, game, check)
    settled_by, played = story.last_call, story.order(game.moves)
    if as_json:
        keys = key_names([], game.document, known)
        ending = game.ending(settled_by)
        document = {
            "now": game.now,
            "game": game.document,
            "keys": keys,
            "moves": played,
            "ending": None if ending is None else ending.value,
        }
        if check is not None:
            document.update(check.verification().json())
        emit_json(document)
        return
    landing, exact = next_block_time(home)
    lines = [
        f"Game {game.id}: {game.status}, {game.moves} move{'' if game.moves == 1 else 's'}",
        f"  red    {who(game.creator, known)} (creator)",
        f"  yellow {_yellow(game, known)}",
        f"  stake {gnot(game.stake)} each, fee {gnot(game.fee)}",
    ]
    still = standstill(run.open_chain(home)) if game.status == Status.PLAYING else None
    if still is not None:
        lines.append(f"  clock: deadline {format_time(game.deadline)} ({still})")
    elif game.status == Status.PLAYING:
        clock = clock_text(game, landing, exact)
        lines.append(f"  clock: deadline {format_time(game.deadline)} ({clock})")
    if game.offer_expired(landing):
        lines.append(f"  offer expired at {format_time(game.expires_at)}")
    if played:
        lines.append(f"  moves {played}")
    result = _result(game, known, settled_by)
    if result is not None:
        lines.append(result)
    if check is not None:
        lines.append(f"  {check.verification().text()}")
    text = "\n".join(lines)
    drawing = mark_four(game.board().text(swap_colors=game.creator_is_yellow), game.four())
    steps = _next_steps(game, known, landing, exact=exact)
    if on_terminal():
        console = terminal()
        console.print(printable(text, lines=True), highlight=False, markup=False)
        console.print(rich_board(drawing) if coloured(console) else drawing, highlight=False)
        for step in steps:
            console.print(printable(f"• {step}"), highlight=False, markup=False)
        return
    click.echo(printable(text, lines=True))
    click.echo(drawing, nl=False)
    for step in steps:
        click.echo(printable(f"- {step}"))


def terminal() -> Console:
    """rich's console on stdout (~40-150 ms to load): for a terminal only."""
    from rich.console import Console

    return Console()


def mark_four(drawing: str, four: tuple[int, ...]) -> str:
    """The drawing with the winning four's discs in lower case (r, y)."""
    if not four:
        return drawing
    lines = drawing.split("\n")
    for cell in four:
        row, col = divmod(cell, 7)
        line_no = 5 - row  # the drawing's top line is row 5
        text = lines[line_no]
        index = _column_index(text, col)
        lines[line_no] = text[:index] + text[index].lower() + text[index + 1 :]
    return "\n".join(lines)


def _column_index(line: str, col: int) -> int:
    """Where column ``col``'s disc sits in one line of Board.text()."""
    cells = [i for i, char in enumerate(line) if char in "RYry."]  # marked ones too
    return cells[col]


_RICH_CELLS = {
    "R": "[bold red]●[/]",
    "Y": "[bold yellow]●[/]",
    "r": "[bold red reverse]●[/]",
    "y": "[bold yellow reverse]●[/]",
    ".": "[dim]·[/]",
}


def coloured(console: Console) -> bool:
    """Discs in colour only where colour shows (not with NO_COLOR or TERM=dumb):
    without it, R and Y tell the two players apart."""
    return console.color_system is not None and not console.no_color


def rich_board(drawing: str) -> str:
    """The drawing in rich markup, one cell at a time (a replace of ``r`` after ``R``
    went in would rewrite the ``r`` of ``red`` in the markup itself)."""
    return "".join(_RICH_CELLS.get(char, char) for char in drawing)

"""`c4 bot` (a perfect player for a key) and `c4 watch` (a game followed as blocks land)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from c4cli.chain.interface import Reader
from c4cli.chain.local import LocalChain
from c4cli.chain.realm_client import GameView, RealmClient
from c4cli.chain.tx import Msg, call_msg
from c4cli.commands.options import common_options, game_id_arg
from c4cli.commands.text import names
from c4cli.commands.transact import acting_address, open_chain, submit, tx_options
from c4cli.errors import Refused

POLL = 0.1  # seconds between two looks at the local chain's height: no busy loop
NODE_POLL = 1.0  # a node makes a block a second at most: ask it once a second


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("key")
@click.option("--until-end", is_flag=True, help="Keep playing until the game ends.")
@tx_options
@common_options
def bot(game_id: str, key: str, until_end: bool, home: Path, **opts: Any) -> None:
    """Play KEY's moves in GAME with the solver, waiting for the chain between them.

    Without --until-end the bot makes one move (waiting for KEY's turn) and
    stops; with it, it plays until the game is over. It waits while the reveals
    are due and stops at once if the game is over or not KEY's to play. Two bots,
    one per side, finish a game without a script of moves. Ctrl-C stops it.

    \b
    Example:
      c4 bot 1 alice --until-end &
      c4 bot 1 bob --until-end
    """
    from c4cli.engine import solver

    number = game_id_arg(game_id)
    me = acting_address(home, key, opts["master"])
    chain = open_chain(home)
    while True:
        before = chain.head().height  # taken before reading: no block is missed
        game = RealmClient(chain).game(number)
        if game is None:
            raise Refused("game not found")
        if me not in (game.creator, game.acceptor) and game.status != "open":
            raise Refused(f"{key} is not a player in game {number}")
        if game.status not in ("open", "playing"):
            outcome = f"game {number}: {game.status}"
            if game.status == "won":
                outcome += f", winner {_who(game.winner, names(home))}"
            _say(
                opts["as_json"],
                {"game": number, "over": game.status, "winner": game.winner or None},
                outcome,
            )
            return
        if game.status == "playing" and game.turn and game.player(game.turn) == me:
            column = solver.best_columns(solver.solve_all(game.board()))[0]
            move = game.moves

            def msgs(reader: Reader, col: int = column, at: int = move) -> list[Msg]:
                return [call_msg(me, reader.realm_path, "Play", [str(number), str(col), str(at)])]

            receipt = submit(home, key, msgs, opts)
            _say(
                opts["as_json"],
                {"game": number, "move": move, "column": column, "hash": receipt.result.hash},
                f"game {number}, move {move}: {key} plays {column}",
            )
            if not until_end:
                return
            continue
        while chain.head().height == before:  # wait for a new block, sleeping
            time.sleep(POLL if isinstance(chain, LocalChain) else NODE_POLL)


def _say(as_json: bool, document: dict[str, Any], line: str) -> None:
    click.echo(json.dumps(document) if as_json else line)


@click.command()
@click.argument("game_id", metavar="GAME")
@common_options
def watch(game_id: str, home: Path, as_json: bool) -> None:
    """Follow GAME as blocks land: the board, whose turn, the time left; ends with the game.

    On a terminal the view is redrawn in place (and the clock counts down); piped,
    it prints one line per change (one JSON document per line with --json).

    \b
    Example:
      c4 watch 1
      c4 watch 1 | tee game-1.txt
    """
    number = game_id_arg(game_id)
    chain = open_chain(home)
    known = names(home)
    live = sys.stdout.isatty() and not as_json
    shown: tuple[str, str, int] | None = None
    while True:
        before = chain.head().height
        game = RealmClient(chain).game(number)
        if game is None:
            raise Refused("game not found")
        now = chain.chain_time(time.time())
        moves = _moves(game, "" if shown is None else shown[0])
        view = (moves, game.status, game.turn)
        if live:
            click.echo("\x1b[H\x1b[2J" + _picture(game, known, now), nl=False)
        elif view != shown:
            for line in _changes(game, moves, known, now, shown, as_json):
                click.echo(line)
        shown = view
        if game.status not in ("open", "playing"):
            return
        # Wait for a block; on a terminal, redraw once a second for the countdown.
        waited = 0.0
        while chain.head().height == before and not (live and waited >= 1.0):
            pause = POLL if isinstance(chain, LocalChain) else NODE_POLL
            time.sleep(pause)
            waited += pause


def _moves(game: GameView, before: str) -> str:
    """The moves as this watcher saw them land, ``before`` plus the discs new since.

    GameJSON publishes the position, not its history: a first look takes one
    order that reaches it; after that each new disc is a move, and when a look
    finds several, the last disc (lastCol) is the last of them.
    """
    if not before:
        return game.board().encode()
    counts = [game.cells[col * 6 : col * 6 + 6].rstrip("0") for col in range(7)]
    seen = [before.count(str(col + 1)) for col in range(7)]
    new = [col for col in range(7) for _ in range(len(counts[col]) - seen[col])]
    if game.last_col in new:
        new.remove(game.last_col)
        new.append(game.last_col)
    return before + "".join(str(col + 1) for col in new)


def _who(address: str, names: dict[str, str]) -> str:
    return names.get(address, address)


def _status(game: GameView, names: dict[str, str], now: int) -> str:
    if game.status == "won":
        return f"game {game.id}: won by {_who(game.winner, names)}"
    if game.status != "playing":
        return f"game {game.id}: {game.status}"
    left = game.deadline - now
    clock = f"{left} s left" if left >= 0 else "clock ran out"
    if game.turn == 0:
        owes = game.acceptor if game.revealed else game.creator
        return f"game {game.id}: {_who(owes, names)} must reveal, {clock}"
    player = game.player(game.turn)
    disc = "red" if player == game.creator else "yellow"
    mover = f"{_who(player, names)} ({disc})"
    return f"game {game.id}, move {game.moves}: {mover} to move, {clock}"


def _changes(
    game: GameView,
    moves: str,
    names: dict[str, str],
    now: int,
    shown: tuple[str, str, int] | None,
    as_json: bool,
) -> list[str]:
    if as_json:
        document = {
            "game": game.id,
            "moves": moves,
            "status": game.status,
            "turn_player": game.turn_player,
            "turn_key": names.get(game.turn_player),
            "winner": game.winner,
            "deadline": game.deadline if game.status == "playing" else 0,
            "now": now,
        }
        return [json.dumps(document)]
    lines = []
    before = "" if shown is None else shown[0]
    for index in range(len(before), len(moves)):
        lines.append(f"game {game.id}, move {index}: column {moves[index]}")
    lines.append(_status(game, names, now))
    return lines


def _picture(game: GameView, names: dict[str, str], now: int) -> str:
    board = game.board().text(swap_colors=game.creator_is_yellow)
    return f"{board}\n{_status(game, names, now)}\n"

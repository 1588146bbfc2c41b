"""`c4 bot`: a perfect player that moves for a key whenever it is that key's turn."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

from c4cli.chain.node import LocalChain
from c4cli.chain.state import ChainState
from c4cli.chain.tx import call_msg
from c4cli.commands.common import acting_address, submit, tx_options
from c4cli.commands.options import common_options, game_id_arg
from c4cli.errors import Refused

POLL = 0.1  # seconds between two looks at the log's size and time: a stat, no busy loop


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
    chain = LocalChain(home)
    chain.log.require()
    while True:
        before = _stamp(chain.log.path)  # taken before reading, so no block is missed
        state = chain.state()
        game = state.realm.games.get(number)
        if game is None:
            raise Refused("game not found")
        if me not in (game.creator, game.acceptor) and game.status != "open":
            raise Refused(f"{key} is not a player in game {number}")
        if game.status not in ("open", "playing"):
            _say(
                opts["as_json"],
                {"game": number, "over": game.status},
                f"game {number}: {game.status}",
            )
            return
        if game.status == "playing" and game.turn and game.player(game.turn) == me:
            column = solver.best_columns(solver.solve_all(game.moves))[0]
            move = len(game.moves)

            def msgs(now: ChainState, col: int = column, at: int = move) -> list[dict[str, Any]]:
                return [
                    call_msg(me, now.genesis.realm_path, "Play", [str(number), str(col), str(at)])
                ]

            receipt = submit(home, key, msgs, opts)
            _say(
                opts["as_json"],
                {"game": number, "move": move, "column": column, "hash": receipt.result.hash},
                f"game {number}, move {move + 1}: {key} plays {column}",
            )
            if not until_end:
                return
            continue
        while _stamp(chain.log.path) == before:  # wait for a new block, sleeping
            time.sleep(POLL)


def _stamp(log: Path) -> tuple[int, int]:
    info = os.stat(log)
    return info.st_size, info.st_mtime_ns


def _say(as_json: bool, document: dict[str, Any], line: str) -> None:
    click.echo(json.dumps(document) if as_json else line)

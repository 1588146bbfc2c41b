"""`c4 bot` (a perfect player for a key) and `c4 watch` (a game followed as blocks land)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import NamedTuple

import click

from c4cli.chain.interface import Receipt
from c4cli.client import bot as bots
from c4cli.client import workflow
from c4cli.client.realm_client import GameView, History, RealmClient, Status, history
from c4cli.commands import complete
from c4cli.commands.options import TxCommand, common_options, key_argument, tx_options
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.solve import think_option
from c4cli.commands.text import game_id_arg, names
from c4cli.commands.transact import acting_address, submit
from c4cli.commands.txopts import TxOptions
from c4cli.commands.views import (
    clock_text,
    coloured,
    mark_four,
    rich_board,
    standstill,
    terminal,
)
from c4cli.engine import review as reviewing
from c4cli.errors import Refused, Unreachable
from c4cli.escape import printable
from c4cli.jsonvalue import Document


@click.command(cls=TxCommand)
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@key_argument()
@click.option("--until-end", is_flag=True, help="Keep playing until the game ends.")
@think_option
@tx_options
@common_options
@takes_run
def bot(
    run: Invocation,
    game_id: str,
    key: str,
    until_end: bool,
    think: float,
    home: Path,
    tx: TxOptions,
) -> None:
    """Play KEY's moves in GAME with the solver, waiting for the chain between them.

    Without --until-end the bot makes one move (waiting for KEY's turn) and
    stops; with it, it plays until the game is over. It waits while the reveals
    are due and stops at once if the game is over or not KEY's to play. Two bots,
    one per side, finish a game without a script of moves. Ctrl-C stops it.

    Each move is searched for at most --think seconds, and never past the move
    clock (less a margin to send the move): when time runs out first, the bot
    plays the best move found and says it is not proven. A node that stops
    answering, or a move whose fate is not known yet, does not stop it: it says so
    on stderr and looks again a moment later.

    \b
    Example:
      c4 bot 1 alice --until-end &
      c4 bot 1 bob --until-end
    """
    number = game_id_arg(game_id)
    me = acting_address(home, key, tx.master)
    chain = run.open_chain(home)

    def send(build: workflow.BuildCall) -> Receipt:
        return submit(home, key, workflow.messages(build, me), tx)

    while True:
        try:
            for done in bots.turns(
                chain, number, me, send, think=think, who=key, until_end=until_end
            ):
                _said(done, number, key, home, tx.as_json)
            return
        except Unreachable as lost:
            # A node that does not answer, or a move sent whose fate is not known yet:
            # look again a moment later (the next transaction settles a pending one
            # before anything new is signed, so nothing is sent twice).
            click.echo(f"warning: {printable(str(lost))}; looking again", err=True)
            time.sleep(max(chain.poll_interval, 1.0))


def _said(done: bots.Over | bots.Moved | bots.Stale, number: int, key: str, home: Path,
          as_json: bool) -> None:  # fmt: skip
    """What the bot did, as a line (or a JSON document with --json)."""
    if isinstance(done, bots.Stale):
        click.echo(f"note: {done.why}; looking again", err=True)
    elif isinstance(done, bots.Over):
        game, known = done.game, names(home)
        outcome = f"game {number}: {game.status}"
        if game.status == Status.WON:
            outcome += f", winner {_who(game.winner, known)}"
        document: Document = {
            "game": number,
            "over": True,
            "status": game.status,
            "winner": game.winner or None,
            "winner_key": known.get(game.winner) if game.winner else None,
        }
        _say(as_json, document, outcome)
    else:
        unproven = "" if done.exact else f" (the best found in {done.seconds:g} s, not proven)"
        _say(
            as_json,
            {
                "game": number,
                "move": done.move,
                "column": done.column,
                "exact": done.exact,
                "seconds": done.seconds,
                "hash": done.receipt.result.hash,
            },
            f"game {number}, move {done.move}: {key} plays {done.column}{unproven}",
        )


def _say(as_json: bool, document: Document, line: str) -> None:
    click.echo(json.dumps(document) if as_json else line)


@click.command()
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option(
    "--review",
    is_flag=True,
    help="Judge each move as it lands with the exact solver, as c4 review does (piped).",
)
@common_options
@takes_run
def watch(run: Invocation, game_id: str, review: bool, home: Path, as_json: bool) -> None:
    """Follow GAME as blocks land: the board, whose turn, the time left; ends with the game.

    On a terminal the view is redrawn in place (and the clock counts down); piped,
    it prints one line per move and change of state (one JSON document per line
    with --json), and the final board with the winning four in lower case.

    Moves are listed in the order they were played: the local chain's log keeps
    it, and so does a node home's history of the realm (`c4 sync` began it). A
    node publishes the position but not its history: on a home that keeps none,
    moves made before the watch began are listed only if this home sent them all;
    after that, each is seen as it lands. With --review, each move's line says
    what it cost (best, inaccuracy, mistake, blunder: as c4 review judges it).

    \b
    Example:
      c4 watch 1
      c4 watch 1 --review | tee game-1.txt
    """
    number = game_id_arg(game_id)
    chain = run.open_chain(home)
    known = names(home)
    live = sys.stdout.isatty() and not as_json
    seen: _Seen | None = None
    shown: tuple[int, str, int] | None = None
    said_still = False  # the chain's standstill, said once (piped) until blocks come again
    while True:
        before = chain.head().height
        client = RealmClient(chain)
        game = client.game(number)
        if game is None:
            raise Refused("game not found")
        now = chain.chain_time(time.time())
        clock = clock_text(game, chain.next_block_time(time.time()), chain.exact_clock)
        check = None if client.checker is None else client.checker.game(number)
        calls = check.calls if check is not None and check.calls is not None else None
        story = history(chain.game_calls(number) if calls is None else calls, number)
        was = seen
        seen = _Seen.look(game, story, was)
        view = (game.moves, game.status, game.turn)
        still = standstill(chain) if game.status == Status.PLAYING else None
        if live:
            _draw(game, known, clock, story, still)
        elif view != shown:
            judged = _judged(seen, was) if review else None
            changes = _changes(game, seen, was, known, (now, clock), story, as_json, still, judged)
            for line in changes:
                click.echo(line)
            said_still = still is not None
        shown = view
        if game.status not in (Status.OPEN, Status.PLAYING):
            return
        # Wait for a block; on a terminal, redraw once a second for the countdown. Piped,
        # a chain that stops making blocks is said once, instead of waiting in silence.
        waited = 0.0
        while chain.head().height == before and not (live and waited >= 1.0):
            pause = chain.poll_interval
            time.sleep(pause)
            waited += pause
            if not live and not said_still and game.status == Status.PLAYING:
                still = standstill(chain)
                if still is not None:
                    said_still = True
                    _say(
                        as_json, {"game": game.id, "standstill": still}, f"game {game.id}: {still}"
                    )


class _Seen(NamedTuple):
    """The moves a watcher knows, in the order they were played: ``moves`` from move
    number ``first`` on (0 when the whole game is known), when the board held
    ``base`` discs in each column."""

    first: int
    moves: str
    base: tuple[int, ...] = (0,) * 7
    unordered: str = ""  # discs that landed between two looks, in an order not seen

    @property
    def upto(self) -> int:
        return self.first + len(self.moves)

    @classmethod
    def look(cls, game: GameView, story: History, was: _Seen | None) -> _Seen:
        played = story.order(game.moves)
        if played is not None:
            return cls(0, played)  # the chain's record holds every move
        counts = _counts(game)
        if was is None:
            return cls(game.moves, "", counts)  # a node: what came before is not listed
        known = list(was.base)
        for col in was.moves:
            known[int(col) - 1] += 1
        new = [col + 1 for col in range(7) for _ in range(counts[col] - known[col])]
        if len(new) > 2:
            return cls(game.moves, "", counts, "".join(str(col) for col in new))
        # One disc, or one of each side: the last disc (lastCol) came last.
        if len(new) == 2 and new[0] == game.last_col + 1:
            new.reverse()
        return was._replace(moves=was.moves + "".join(str(col) for col in new), unordered="")


def _counts(game: GameView) -> tuple[int, ...]:
    """The number of discs in each column."""
    return tuple(len(game.cells[col * 6 : col * 6 + 6].rstrip("0")) for col in range(7))


def _who(address: str, names: dict[str, str]) -> str:
    return names.get(address, address)


def _status(
    game: GameView, names: dict[str, str], clock: str, story: History, still: str | None = None
) -> str:
    if game.status == Status.WON:
        ending = game.ending(story.last_call)
        return f"game {game.id}: won by {_who(game.winner, names)} ({ending})"
    if game.status != Status.PLAYING:
        return f"game {game.id}: {game.status}"
    if still is not None:
        clock = still  # not a countdown: the clock waits for blocks
    if game.turn == 0:
        owes = game.acceptor if game.revealed else game.creator
        return f"game {game.id}: {_who(owes, names)} must reveal, {clock}"
    player = game.player(game.turn)
    disc = "red" if player == game.creator else "yellow"
    mover = f"{_who(player, names)} ({disc})"
    return f"game {game.id}, move {game.moves}: {mover} to move, {clock}"


def _changes(
    game: GameView,
    seen: _Seen,
    was: _Seen | None,
    names: dict[str, str],
    when: tuple[int, str],
    story: History,
    as_json: bool,
    still: str | None,
    judged: dict[int, Document] | None = None,
) -> list[str]:
    """What changed since the last look, as lines (one JSON document with --json);
    ``judged``: `--review`'s verdict of each new move, by its number (from 0)."""
    now, clock = when  # the chain's time, and the mover's clock as the views say it
    over = game.status not in (Status.OPEN, Status.PLAYING)
    if as_json:
        ending = game.ending(story.last_call)
        document: Document = {
            "game": game.id,
            # The moves in the order played, when the whole game was seen (null when
            # moves made before the watch began are not known in order: a node home
            # that keeps no history of the realm).
            "moves": seen.moves if seen.first == 0 else None,
            "seen_from": seen.first,  # "seen": the moves from that move number on
            "seen": seen.moves,
            "position": game.board().encode(),  # one order that reaches the board
            "status": game.status,
            "turn_player": game.turn_player or None,
            "turn_key": names.get(game.turn_player),
            "winner": game.winner or None,
            "winner_key": names.get(game.winner) if game.winner else None,
            "ending": None if ending is None else ending.value,
            "four": list(game.four()),
            "deadline": game.deadline if game.status == Status.PLAYING else None,
            "now": now,
            "standstill": still,  # a node that makes no block: the clock waits
        }
        if judged is not None:
            document["verdicts"] = list(judged.values())
        return [json.dumps(document)]
    lines = []
    if was is None and seen.first:
        lines.append(
            f"game {game.id}: {seen.first} move{'' if seen.first == 1 else 's'} made before "
            "this watch began (a node does not list another client's moves)"
        )
    if seen.unordered:
        lines.append(
            f"game {game.id}, moves {was.upto if was else 0} to {seen.first - 1}: columns "
            f"{', '.join(seen.unordered)} landed between two looks, in an order not seen"
        )
    start = 0 if was is None or was.first != seen.first else was.upto
    for index in range(max(start, seen.first), seen.upto):
        line = f"game {game.id}, move {index}: column {seen.moves[index - seen.first]}"
        verdict = (judged or {}).get(index)
        lines.append(line if verdict is None else f"{line}  {verdict['verdict']}")
    lines.append(_status(game, names, clock, story, still))
    if over and game.moves:
        lines.append(_drawing(game).rstrip("\n"))
    return lines


def _judged(seen: _Seen, was: _Seen | None) -> dict[int, Document]:
    """`c4 watch --review`: the moves new since the last look, by number, each judged
    by the position before it (when every move is known)."""
    start = 0 if was is None or was.first != seen.first else was.upto
    new = range(start, seen.upto) if seen.first == 0 else range(0)
    verdicts = [reviewing.judge(seen.moves[:n], int(seen.moves[n])) for n in new]
    return {
        v.number - 1: {"number": v.number, "column": v.column, "verdict": v.kind,
                       "best_columns": list(v.best_columns)}
        for v in verdicts
    }  # fmt: skip


def _drawing(game: GameView) -> str:
    """The board as `c4 show` draws it: the winning four in lower case."""
    return mark_four(game.board().text(swap_colors=game.creator_is_yellow), game.four())


def _draw(
    game: GameView, names: dict[str, str], clock: str, story: History, still: str | None
) -> None:
    """The live view on a terminal, redrawn in place: the board (in colour where colour
    shows, the winning four in reverse video) and the status line; ``still``: the
    chain's standstill, said instead of a clock counting down."""
    console = terminal()
    click.echo("\x1b[H\x1b[2J", nl=False)
    drawing = _drawing(game)
    console.print(rich_board(drawing) if coloured(console) else drawing, highlight=False)
    status = _status(game, names, clock, story, still)
    console.print(printable(status), highlight=False, markup=False)

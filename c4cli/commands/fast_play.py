"""The fast lane of ``c4 play GAME COLUMN KEY``; see ``fast``.

Its plain form::

    c4 play GAME COLUMN KEY [--move N] [--json] [--home H]

with COLUMN a number (``best`` is click's: it loads the solver) and every
transaction option at its default: :class:`~c4cli.commands.txopts.TxOptions`'s, which
click's command takes its own defaults from. The move is made by
:func:`calls.play_column`, which click's command calls too.
"""

from __future__ import annotations

from c4cli.commands import fast
from c4cli.commands.calls import play_column
from c4cli.commands.text import game_id_arg
from c4cli.commands.txopts import TxOptions


def run(argv: list[str]) -> int | None:
    """Run ``argv`` if it is this lane's, and say the exit code; None: click's to run."""
    form = fast.plain(argv, "play", range(3, 4), ("--move", "--home"))
    if form is None:
        return None
    game_id, column, key = form.args
    move = form.options.get("--move")
    if column == "best" or (move is not None and not (fast.digits(move) and len(move) < 19)):
        return None
    tx = TxOptions(as_json="--json" in form.options)  # click's defaults: one set of them
    return fast.run(
        argv,
        form.options.get("--home"),
        lambda home: play_column(
            home, game_id_arg(game_id), column, None if move is None else int(move), key, tx
        ),
    )

"""The fast lane of ``c4 play GAME COLUMN KEY``; see ``fast``.

Its plain form::

    c4 play GAME COLUMN KEY [--move N] [--json] [--home H]

with COLUMN a number (``best`` is click's: it loads the solver) and every
transaction option at its default, as :data:`TX_DEFAULTS` says and a test holds
against the click command's own defaults. The move is made by
:func:`calls.play_column`, which click's command calls too.
"""

from __future__ import annotations

from typing import Any

from c4cli.commands import fast
from c4cli.commands.calls import play_column
from c4cli.commands.text import game_id_arg

# What `c4 play` passes for the transaction options a plain form leaves out.
TX_DEFAULTS: dict[str, Any] = {
    "gas_fee": None,
    "gas_wanted": None,
    "memo": "",
    "generate_only": False,
    "simulate": "test",
    "fee_cap": None,
    "chain_id": None,
    "master": None,
    "password_stdin": False,
}


def run(argv: list[str]) -> int | None:
    """Run ``argv`` if it is this lane's, and say the exit code; None: click's to run."""
    form = fast.plain(argv, "play", range(3, 4), ("--move", "--home"))
    if form is None:
        return None
    game_id, column, key = form.args
    move = form.options.get("--move")
    if column == "best" or (move is not None and not (fast.digits(move) and len(move) < 19)):
        return None
    opts = {**TX_DEFAULTS, "as_json": "--json" in form.options}
    return fast.run(
        argv,
        form.options.get("--home"),
        lambda home: play_column(
            home, game_id_arg(game_id), column, None if move is None else int(move), key, opts
        ),
    )

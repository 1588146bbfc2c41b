"""c4 query: read state at the last block, by name or by gnokey's raw paths."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.commands import complete
from c4cli.commands.options import common_options
from c4cli.commands.query_paths import answer
from c4cli.commands.run import Invocation, takes_run


@click.command()
@click.argument("what", metavar="WHAT", shell_complete=complete.query_what)
@click.argument("arg", required=False, shell_complete=complete.query_arg)
@click.option(
    "--data",
    help="For vm/qeval, vm/qrender, vm/qfuncs, vm/qfile, vm/qdoc and vm/qpaths, as "
    "gnokey's --data.",
)
@click.option(
    "--height",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="Read after block N, as gnokey's -height (0: the last block). For the gnokey "
    "paths, balance and account; the local chain replays its log up to N.",
)
@click.option("--offset", type=int, default=0, show_default=True, help="For `active`.")
@click.option("--limit", type=int, default=20, show_default=True, help="For `active`.")
@common_options
@takes_run
def query(
    run: Invocation,
    what: str,
    arg: str | None,
    data: str | None,
    height: int,
    offset: int,
    limit: int,
    home: Path,
    as_json: bool,
) -> None:
    """Read state at the last block.

    WHAT is one of: game ID, active, leaders, render [PATH], balance ADDR_OR_NAME,
    account ADDR_OR_NAME, player ADDR_OR_NAME (the realm's record: games, wins, draws,
    ugnot won beyond the stakes; and the net of its settled games), fees; or a gnokey
    path: vm/qeval, vm/qrender, vm/qfuncs, vm/qfile, vm/qdoc, vm/qpaths (with --data),
    bank/balances/ADDR, auth/accounts/ADDR; on a node any path it answers, as gnokey
    query passes it (vm/qstorage, auth/gasprice, .app/version, params/…).

    \b
    Example:
      c4 query game 1
      c4 query balance test1 --json
      c4 query vm/qeval --data 'gno.land/r/samcrew/connect4.GameJSON(1)'
    """

    answer(run, home, what, arg, data=data, height=height, offset=offset, limit=limit)

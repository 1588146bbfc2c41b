"""c4 query: read state at the last block, by name or by gnokey's raw paths."""

from __future__ import annotations

import json
from pathlib import Path

import click

from c4cli.chain.queries import ACCOUNTS, BALANCES
from c4cli.client.realm_client import RealmClient
from c4cli.coins import parse_coins
from c4cli.commands.fast_query import NEEDS_DATA, is_raw_path, json_answer, raw_answer
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.text import game_id_arg
from c4cli.commands.transact import open_chain, resolve
from c4cli.errors import BadInput, Unreachable
from c4cli.escape import printable


@click.command()
@click.argument("what", metavar="WHAT")
@click.argument("arg", required=False)
@click.option(
    "--data", help="For vm/qeval, vm/qrender, vm/qfuncs, vm/qfile and vm/qdoc, as gnokey's --data."
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
def query(
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
    account ADDR_OR_NAME, fees; or a gnokey path: vm/qeval, vm/qrender, vm/qfuncs (with
    --data), bank/balances/ADDR, auth/accounts/ADDR; on a node also vm/qfile and
    vm/qdoc (with --data) and auth/gasprice.

    \b
    Example:
      c4 query game 1
      c4 query balance test1 --json
      c4 query vm/qeval --data 'gno.land/r/samcrew/connect4.GameJSON(1)'
    """

    def needs_arg(name: str) -> str:
        if arg is None:
            raise BadInput(f"query {what} needs {name}")
        return arg

    chain = open_chain(home)
    realm = RealmClient(chain)
    if height and what in ("game", "active", "leaders", "render", "fees"):
        raise BadInput(f"--height: query {what} reads the last block only; use vm/qeval")
    if what == "game":
        click.echo(realm.game_json(game_id_arg(needs_arg("a game id"))))
    elif what == "active":
        click.echo(realm.active_json(offset, limit))
    elif what == "leaders":
        click.echo(realm.leaders_json())
    elif what == "render":
        markdown = realm.render(arg or "")
        if as_json:
            emit_json({"height": chain.head().height, "markdown": markdown})
        else:
            click.echo(printable(markdown, lines=True), nl=False)
    elif what == "fees":
        fees = realm.fees()._asdict()
        if as_json:
            emit_json(fees)
        else:
            for key, value in fees.items():
                click.echo(f"{key}: {value}")
    elif what in ("balance", "account"):
        address = resolve(home, needs_arg("an address or key name"))
        prefix = BALANCES if what == "balance" else ACCOUNTS
        data = json_answer(chain.query(prefix + address, height=height).data, what)
        if what == "account":
            if as_json:
                emit_json(data)
            else:
                click.echo(json.dumps(data, indent=2))
            return
        ugnot = _ugnot(data if isinstance(data, str) else "?")
        if as_json:
            emit_json({"address": address, "ugnot": ugnot})
        else:
            click.echo(f"{ugnot}ugnot")
    elif is_raw_path(what):
        if what in NEEDS_DATA and data is None:
            raise BadInput(f"query {what} needs --data")
        raw_answer(chain, what, data or "", height, as_json)
    else:
        raise BadInput(f"unknown query {what!r}: see `c4 query --help`")


def _ugnot(coins: str) -> int:
    """The ugnot in a balance's coins (``5ugnot,3foo``); a balance that is not tm2 coins
    (negative, garbled) is the chain's garbage, never shown as a number."""
    try:
        return parse_coins(coins).get("ugnot", 0)
    except BadInput:
        raise Unreachable(
            f"the chain answered a balance that is not coins: {printable(coins[:64])!r}"
        ) from None

"""c4 query: read state at the last block, by name or by gnokey's raw paths."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from c4cli.chain.node import LocalChain
from c4cli.commands.options import common_options, emit_json, game_id_arg
from c4cli.errors import BadInput, Refused
from c4cli.gotext import quote
from c4cli.realm.jsonfmt import active_envelope, active_page, game_envelope

if TYPE_CHECKING:
    from c4cli.chain.state import ChainState

_EXPR = re.compile(r"^(?P<func>[A-Za-z_][A-Za-z0-9_]*)\((?P<args>.*)\)$", re.S)


def split_args(text: str) -> list[str]:
    """The arguments of a qeval expression: integers and Go string literals."""
    if not text.strip():
        return []
    args: list[str] = []
    for part in _split_top(text):
        part = part.strip()
        if len(part) >= 2 and part[0] == part[-1] == '"':
            try:
                args.append(json.loads(part))
            except ValueError:
                raise BadInput(f"invalid string literal {part}") from None
        elif re.fullmatch(r"-?[0-9]+", part):
            args.append(part)
        else:
            raise BadInput(f'invalid argument {part!r}: use integers or "strings"')
    return args


def _split_top(text: str) -> list[str]:
    parts, current, quoted, escaped = [], "", False, False
    for char in text:
        if quoted:
            current += char
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
            current += char
        elif char == ",":
            parts.append(current)
            current = ""
        else:
            current += char
    if quoted:
        raise BadInput("unterminated string literal")
    parts.append(current)
    return parts


def realm_read(state: ChainState, func: str, args: list[str]) -> str:
    from c4cli.realm import abi

    try:
        value, _ = abi.read(state.realm, state.time, func, args)
    except abi.ArgumentError as exc:
        raise Refused(str(exc)) from None
    return value


def qeval(state: ChainState, data: str) -> str:
    path, dot, expr = data.rpartition(".")
    match = _EXPR.match(expr)
    if not dot or match is None:
        raise BadInput(f"invalid --data {data!r}: use <pkgpath>.<Func>(<args>)")
    if path != state.genesis.realm_path:
        raise Refused(f"package not found: {path}")
    value = realm_read(state, match["func"], split_args(match["args"]))
    return f"height: {state.height}\ndata: ({quote(value)} string)"


def qrender(state: ChainState, data: str) -> str:
    path, colon, page = data.partition(":")
    if not colon:
        raise BadInput(f"invalid --data {data!r}: use <pkgpath>:<path>")
    if path != state.genesis.realm_path:
        raise Refused(f"package not found: {path}")
    return f"height: {state.height}\ndata: {realm_read(state, 'Render', [page])}"


@click.command()
@click.argument("what", metavar="WHAT")
@click.argument("arg", required=False)
@click.option("--data", help="For vm/qeval and vm/qrender, as gnokey's --data.")
@click.option("--offset", type=int, default=0, show_default=True, help="For `active`.")
@click.option("--limit", type=int, default=20, show_default=True, help="For `active`.")
@common_options
def query(
    what: str,
    arg: str | None,
    data: str | None,
    offset: int,
    limit: int,
    home: Path,
    as_json: bool,
) -> None:
    """Read state at the last block.

    WHAT is one of: game ID, active, leaders, render [PATH], balance ADDR_OR_NAME,
    account ADDR_OR_NAME, fees; or a gnokey path: vm/qeval, vm/qrender (with
    --data), bank/balances/ADDR, auth/accounts/ADDR.

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

    # The common queries are answered from the cache, which the realm's own code
    # filled in when the state last changed; the rest load the state.
    if what in ("game", "active", "leaders", "balance", "fees"):
        address = ""
        if what == "balance":
            from c4cli.commands.common import resolve

            address = resolve(home, needs_arg("an address or key name"))
        game_id = game_id_arg(needs_arg("a game id")) if what == "game" else 0
        cache = LocalChain(home).cached()
        now = int(cache.stamp["time"])
        if what == "game":
            click.echo(game_envelope(now, cache.game_text(game_id)))
        elif what == "active":
            ids = active_page(cache.active_ids(), offset, limit)
            click.echo(active_envelope(now, int(cache.fees()["fee"]), cache.games_text(ids)))
        elif what == "leaders":
            click.echo(cache.leaders_text())
        elif what == "balance":
            ugnot = cache.balance(address)
            if as_json:
                emit_json({"address": address, "ugnot": ugnot})
            else:
                click.echo(f"{ugnot}ugnot")
        elif as_json:
            emit_json(cache.fees())
        else:
            for key, value in cache.fees().items():
                click.echo(f"{key}: {value}")
        return
    state = LocalChain(home).state()
    if what == "render":
        markdown = realm_read(state, "Render", [arg or ""])
        if as_json:
            emit_json({"height": state.height, "markdown": markdown})
        else:
            click.echo(markdown, nl=False)
    elif what == "account":
        from c4cli.commands.common import resolve

        address = resolve(home, needs_arg("an address or key name"))
        account = state.account(address)
        document = None if account is None else account.to_json()
        if as_json:
            emit_json(document)
        else:
            click.echo(json.dumps(document, indent=2))
    elif what in ("vm/qeval", "vm/qrender"):
        if data is None:
            raise BadInput(f"query {what} needs --data")
        out = qeval(state, data) if what == "vm/qeval" else qrender(state, data)
        if as_json:
            emit_json({"height": state.height, "data": out.split("data: ", 1)[1]})
        else:
            click.echo(out)
    elif what.startswith("bank/balances/") or what.startswith("auth/accounts/"):
        from c4cli.chain.coins import format_coins
        from c4cli.realm.address import canonical

        found = canonical(what.split("/", 2)[2])
        if found is None:
            raise BadInput(f"invalid address in {what!r}")
        account = state.account(found)
        if what.startswith("bank/"):
            text = json.dumps("" if account is None else format_coins(account.coins))
        else:
            text = "null" if account is None else json.dumps(account.to_json(), indent=2)
        if as_json:
            emit_json({"height": state.height, "data": json.loads(text)})
        else:
            click.echo(f"height: {state.height}\ndata: {text}")
    else:
        raise BadInput(f"unknown query {what!r}: see `c4 query --help`")

"""``c4 query``, read and answered without click; see ``fast``.

Its plain form, taken by the fast lane::

    c4 query WHAT [ARG] [--data D] [--height N] [--offset N] [--limit N] [--json] [--home H]

Every other form is click's (commands/query.py), which answers through
:func:`answer` too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from c4cli.commands import fast
from c4cli.commands.ending import echo, emit_json
from c4cli.errors import BadInput, Unreachable
from c4cli.escape import printable
from c4cli.wire.paths import ACCOUNTS, BALANCES, QDOC, QEVAL, QFILE, QFUNCS, QRENDER

NEEDS_DATA = (QEVAL, QRENDER, QFUNCS, QFILE, QDOC)
# The realm's named queries (commands/realm_query.py); the rest are gnokey's paths.
NAMED = ("game", "active", "leaders", "render", "fees", "player", "balance", "account")
# `c4 query`'s numbers when not given (a test holds them to the click command's).
NUMBERS = {"--height": "0", "--offset": "0", "--limit": "20"}

if TYPE_CHECKING:
    from c4cli.chain.interface import ChainReader


def run(argv: list[str]) -> int | None:
    """Run ``argv`` if it is the lane's, and say the exit code; None: click's to run."""
    form = fast.plain(argv, "query", range(1, 3), ("--data", "--home", *NUMBERS))
    if form is None:
        return None
    options = form.options
    numbers = {name: options.get(name, default) for name, default in NUMBERS.items()}
    if not all(fast.digits(value) for value in numbers.values()):
        return None  # click's int (and its refusals) read anything else
    what, arg = form.args[0], (form.args[1] if len(form.args) > 1 else None)
    return fast.run(
        argv,
        options.get("--home"),
        lambda home: answer(
            home,
            what,
            arg,
            data=options.get("--data"),
            height=int(numbers["--height"]),
            offset=int(numbers["--offset"]),
            limit=int(numbers["--limit"]),
            as_json="--json" in options,
        ),
    )


def answer(
    home: Path,
    what: str,
    arg: str | None,
    *,
    data: str | None,
    height: int,
    offset: int,
    limit: int,
    as_json: bool,
) -> None:
    """Read ``what`` at the last block (or after block ``height``) and print it."""
    chain = fast.open_reader(home)
    if what in NAMED:
        from c4cli.commands import realm_query  # the realm's client, keys: named only

        realm_query.answer(
            home, chain, what, arg, height=height, offset=offset, limit=limit, as_json=as_json
        )
    elif is_raw_path(what):
        if what in NEEDS_DATA and data is None:
            raise BadInput(f"query {what} needs --data")
        raw_answer(chain, what, data or "", height, as_json)
    else:
        raise BadInput(f"unknown query {what!r}: see `c4 query --help`")


def is_raw_path(what: str) -> bool:
    """Whether ``c4 query WHAT`` is a query path, as gnokey takes any (``vm/qpaths``,
    ``.app/version``, ``params/…``): the chain says whether it answers it."""
    return "/" in what


def raw_answer(chain: ChainReader, what: str, data: str, height: int, as_json: bool) -> None:
    """Ask ``chain`` a gnokey path and print its answer."""
    answer = chain.query(what, data, height=height)
    if as_json:
        shown: object = answer.data
        if what.startswith((BALANCES, ACCOUNTS)):
            shown = json_answer(answer.data, what)
        emit_json({"height": answer.height, "data": shown})
    else:
        echo(f"height: {answer.height}\ndata: {printable(answer.data, lines=True)}")


def json_answer(text: str, what: str) -> Any:
    """A query's JSON answer; one line and exit 4 when the chain answered something else."""
    try:
        return json.loads(text)
    except ValueError:
        raise Unreachable(f"the chain answered {what} with something that is not JSON") from None

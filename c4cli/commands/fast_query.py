"""The fast lane of ``c4 query PATH`` (one of gnokey's paths) on a node; see ``fast``.

Its plain form::

    c4 query PATH [--data D] [--height N] [--json] [--home H]

The answer is printed by :func:`raw_answer`, which click's command calls too.
"""

from __future__ import annotations

import json
from typing import Any

from c4cli.chain.interface import Chain
from c4cli.chain.queries import ACCOUNTS, BALANCES, GASPRICE, QDOC, QEVAL, QFILE, QFUNCS, QRENDER
from c4cli.commands import fast
from c4cli.commands.ending import echo, emit_json
from c4cli.errors import Unreachable
from c4cli.escape import printable

NEEDS_DATA = (QEVAL, QRENDER, QFUNCS, QFILE, QDOC)


def is_raw_path(what: str) -> bool:
    """Whether ``c4 query WHAT`` names one of gnokey's query paths."""
    return what in (*NEEDS_DATA, GASPRICE) or what.startswith((BALANCES, ACCOUNTS))


def raw_answer(chain: Chain, what: str, data: str, height: int, as_json: bool) -> None:
    """Ask ``chain`` a gnokey path and print its answer, as both lanes print it."""
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


def run(argv: list[str]) -> int | None:
    """Run ``argv`` if it is this lane's, and say the exit code; None: click's to run."""
    form = fast.plain(argv, "query", 1, ("--data", "--height", "--home"))
    if form is None:
        return None
    what, options = form.args[0], form.options
    if not is_raw_path(what) or (what in NEEDS_DATA and "--data" not in options):
        return None  # the realm's named queries, and the refusal of a missing --data
    height = options.get("--height", "0")
    if not fast.digits(height):
        return None
    data, as_json = options.get("--data", ""), "--json" in options
    return fast.run_on_node(
        argv,
        options.get("--home"),
        lambda home, chain: raw_answer(chain, what, data, int(height), as_json),
    )

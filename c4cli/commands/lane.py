"""The fast lane: ``c4 query`` of a gnokey path on a node, without loading click.

A query is what a script runs most often against a node, and what is compared
with ``gnokey query``: the answer takes the node a few milliseconds, and loading
click took c4 longer than gnokey's whole command. So the console script offers
the command line here first. The lane takes only the plain forms of that one
command::

    c4 query PATH [--data D] [--height N] [--json] [--home H]

(each option at most once, a value never starting with ``-``, PATH one of
gnokey's, the home bound to a node or ``$C4_REMOTE`` naming one) and answers them
with the very functions the click command uses: the same door to the chain, the
same node client, the same output (:func:`raw_answer`) and the same failure
lines (``ending``). Anything else, ``--help`` included, it declines, untouched,
and click parses the command line as always.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from c4cli.chain.interface import Chain
from c4cli.chain.queries import ACCOUNTS, BALANCES, GASPRICE, QDOC, QEVAL, QFILE, QFUNCS, QRENDER
from c4cli.client import connect
from c4cli.commands.ending import echo, emit_json, settle
from c4cli.errors import Unreachable
from c4cli.escape import printable
from c4cli.home.config import read_remote

NEEDS_DATA = (QEVAL, QRENDER, QFUNCS, QFILE, QDOC)
VALUED = ("--data", "--height", "--home")


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
    """Run ``argv`` if it is the lane's, and say the exit code; None: click's to run."""
    options = _parse(argv)
    if options is None:
        return None
    try:
        home = Path(options.get("--home") or os.environ.get("C4_HOME") or "state")
        if home.exists() and not home.is_dir():
            return None  # click's --home check words that
        url = os.environ.get("C4_REMOTE") or None
        if url is None and read_remote(home) is None:
            return None  # a local chain: its reader is click's command
        chain = connect.open_chain(
            home,
            url=url,
            realm_path=os.environ.get("C4_REALM_PATH") or None,
            chain_id=os.environ.get("C4_CHAIN_ID") or None,
        )
        what = options["what"]
        height = int(options.get("--height") or 0)
        raw_answer(chain, what, options.get("--data") or "", height, "--json" in options)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:
        try:
            settle(exc, argv)
        except SystemExit as ended:
            return ended.code if isinstance(ended.code, int) else 1
    return 0


def _parse(argv: list[str]) -> dict[str, str] | None:
    """The lane's options, or None for a command line it leaves to click."""
    if len(argv) < 2 or argv[0] != "query":
        return None
    try:
        "".join(argv).encode()
    except UnicodeEncodeError:
        return None  # click's group refuses it in its own words
    options: dict[str, str] = {}
    rest = iter(argv[1:])
    for arg in rest:
        name, equals, value = arg.partition("=")
        if arg == "--json" and arg not in options:
            options[arg] = ""
        elif name in VALUED and name not in options:
            if not equals:
                value = next(rest, "-")
            if value.startswith("-") or not value or (name == "--height" and not _digits(value)):
                return None
            options[name] = value
        elif not arg.startswith("-") and "what" not in options:
            options["what"] = arg
        else:
            return None
    what = options.get("what", "")
    if not is_raw_path(what) or (what in NEEDS_DATA and "--data" not in options):
        return None
    return options


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()

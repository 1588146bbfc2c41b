"""The fast lanes: the plain forms of `c4 query` and `c4 play`, run without click.

A query and a move are what a script runs most often, and on a node what is
compared with gnokey: the node answers a query in a few milliseconds, and loading
click took c4 longer than gnokey's whole command. So the console script offers
these two command lines to a lane first (``fast_query``, ``fast_play``). A lane
takes only a plain form (:func:`plain`) and runs it through the very functions the
click command calls (the command's body lives beside the lane, and click's command
calls it), so the chain, the output and every failure's line and exit code are
the same. Anything else (``--help``, a group option, an option the lane does not
know, a value click would read differently) the lane declines untouched, and
click reads the command line as always.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from c4cli import outbox
from c4cli.client import connect
from c4cli.commands import line
from c4cli.commands.ending import exit_code, settle

if TYPE_CHECKING:
    from c4cli.chain.interface import Chain, ChainReader


class Plain(NamedTuple):
    """A command line in a lane's plain form: its arguments and its options."""

    args: list[str]
    options: dict[str, str]


def plain(argv: list[str], command: str, nargs: range, valued: tuple[str, ...]) -> Plain | None:
    """``argv`` read as ``command`` with a count of arguments in ``nargs``, options from ``valued``
    (``--name VALUE`` or ``--name=VALUE``) and ``--json``; None for anything else.

    Stricter than click on purpose: each option at most once, no value that starts
    with ``-`` or is empty, no ``--``, no abbreviation, nothing not valid UTF-8. What
    it refuses, click reads (and words the refusal of) as always.
    """
    if not argv or argv[0] != command:
        return None
    try:
        "".join(argv).encode()
    except UnicodeEncodeError:
        return None
    args: list[str] = []
    options: dict[str, str] = {}
    rest = iter(argv[1:])
    for arg in rest:
        name, equals, value = arg.partition("=")
        if arg == "--json" and arg not in options:
            options[arg] = ""
        elif name in valued and name not in options:
            value = value if equals else next(rest, "")
            if not value or value.startswith("-"):
                return None
            options[name] = value
        elif arg.startswith("-") or len(args) == nargs.stop - 1:
            return None
        else:
            args.append(arg)
    return Plain(args, options) if len(args) in nargs else None


def digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def run(argv: list[str], home_option: str | None, body: Callable[[Path], None]) -> int | None:
    """Run a lane's ``body`` with the home this command line names, and say its exit
    code; None, with nothing done, where click must run the command.

    What the body does, and every failure's line and exit code, are the click
    command's (``ending.settle`` ends both).
    """
    home = Path(home_option or line.home_from_env())
    if home.exists() and not home.is_dir():
        return None  # click's --home check words that
    outbox.reset()
    line.begin()
    if argv[0] != "query":
        outbox.transacting()  # a signal from now on says whether anything was recorded
    try:
        body(home)
    except SystemExit as exc:
        return exit_code(exc)
    except BaseException as exc:
        try:
            settle(exc, argv)
        except SystemExit as ended:
            return exit_code(ended)
    return 0


def open_reader(home: Path) -> ChainReader:
    """The chain a query reads, named as for :func:`open_chain`: on a node, its client
    without the sending half (a command line that only asks loads no signing)."""
    wanted = os.environ.get("C4_CHAIN_ID") or None
    url, realm_path = line.remote_url(), line.remote_realm_path()
    return connect.open_reader(
        home, url=url, realm_path=realm_path, chain_id=wanted, trust_node=line.trust_node()
    )


def open_chain(home: Path, *, chain_id: str | None = None) -> Chain:
    """The chain this command line uses: the node --remote (or $C4_REMOTE, or the home's
    config) names, else the home's own log; a home with neither is exit 3. A chain id
    comes from --chain-id, else $C4_CHAIN_ID.

    A node's client is opened once per command line and shared by its parts (the
    transaction and the view of its game after it): it has checked the chain already,
    and knows its head of a moment ago."""
    wanted = chain_id or os.environ.get("C4_CHAIN_ID") or None
    url, realm_path = line.remote_url(), line.remote_realm_path()
    opened = line.opened()
    trust_node = line.trust_node()
    key = (home, url, realm_path, wanted, trust_node)
    if key in opened:
        return opened[key]
    chain = connect.open_chain(
        home, url=url, realm_path=realm_path, chain_id=wanted, trust_node=trust_node
    )
    if chain.fills_in_fee:  # a node's client (the local chain reads its log afresh)
        opened[key] = chain
    return chain

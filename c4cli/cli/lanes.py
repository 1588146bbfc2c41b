"""The fast lanes: the plain forms of `c4 query` and `c4 play`, run without click.

A query and a move are what a script runs most often, and on a node what is
compared with gnokey: the node answers a query in a few milliseconds, and loading
click took c4 longer than gnokey's whole command. So the console script offers
these two command lines to a lane first. A lane takes only a plain form
(:func:`plain`) and runs it through the very function the click command calls (the
query's body in ``commands/query_paths.py``, the move's in ``commands/calls.py``), so
the chain, the output and every failure's line and exit code are the same. Anything
else (``--help``, a group option, an option the lane does not know, a value click
would read differently) the lane declines untouched, and click reads the command
line as always.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from c4cli.commands.ending import exit_code, settle
from c4cli.commands.run import JSON_FLAG, Invocation


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
        if arg == JSON_FLAG and arg not in options:
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


def run(argv: list[str], form: Plain, body: Callable[[Invocation, Path], None]) -> int | None:
    """Run a lane's ``body`` as one run of c4 with the home this command line names,
    and say its exit code; None, with nothing done, where click must run the command.

    What the body does, and every failure's line and exit code, are the click
    command's (``ending.settle`` ends both).
    """
    invocation = Invocation(argv)
    invocation.json = JSON_FLAG in form.options
    home = Path(form.options.get("--home") or invocation.home)
    if home.exists() and not home.is_dir():
        return None  # click's --home check words that
    invocation.home = home
    invocation.begin(transacting=argv[0] != "query")
    try:
        body(invocation, home)
    except SystemExit as exc:
        return exit_code(exc)
    except BaseException as exc:
        try:
            settle(exc)
        except SystemExit as ended:
            return exit_code(ended)
    finally:
        invocation.end()
    return 0


# `c4 query`'s numbers when not given (a test holds them to the click command's).
NUMBERS = {"--height": "0", "--offset": "0", "--limit": "20"}


def query(argv: list[str]) -> int | None:
    """``c4 query WHAT [ARG] [--data D] [--height N] [--offset N] [--limit N] [--json]
    [--home H]``, answered by :func:`~c4cli.commands.query_paths.answer`; None:
    click's to run."""
    form = plain(argv, "query", range(1, 3), ("--data", "--home", *NUMBERS))
    if form is None:
        return None
    numbers = {name: form.options.get(name, default) for name, default in NUMBERS.items()}
    if not all(digits(value) for value in numbers.values()):
        return None  # click's int (and its refusals) read anything else
    from c4cli.commands import query_paths

    what, arg = form.args[0], (form.args[1] if len(form.args) > 1 else None)
    return run(
        argv,
        form,
        lambda invocation, home: query_paths.answer(
            invocation,
            home,
            what,
            arg,
            data=form.options.get("--data"),
            height=int(numbers["--height"]),
            offset=int(numbers["--offset"]),
            limit=int(numbers["--limit"]),
        ),
    )


def play(argv: list[str]) -> int | None:
    """``c4 play GAME COLUMN KEY [--move N] [--json] [--home H]``, with COLUMN a number
    (``best`` is click's: it loads the solver) and every transaction option at its
    default (:class:`~c4cli.commands.txopts.TxOptions`'s, which click's command takes
    its own from), made by :func:`~c4cli.commands.calls.play_column`; None: click's."""
    form = plain(argv, "play", range(3, 4), ("--move", "--home"))
    if form is None:
        return None
    game_id, column, key = form.args
    move = form.options.get("--move")
    if column == "best" or (move is not None and not (digits(move) and len(move) < 19)):
        return None
    from c4cli.commands import calls, text, txopts

    tx = txopts.TxOptions(as_json=JSON_FLAG in form.options)  # click's defaults: one set of them
    return run(
        argv,
        form,
        lambda invocation, home: calls.play_column(
            home, text.game_id_arg(game_id), column, None if move is None else int(move), key, tx
        ),
    )

"""A home's node dialled as c4 starts, before the command has loaded (a hint only).

A query or a move across a network spends two round trips on TCP's and TLS's
handshakes before its first request can leave. :func:`dial` begins them the moment
the console knows which home the command line names (its ``--home``, else
``$C4_HOME``, else ``./state``) and so which node (``$C4_REMOTE``, else the home's
``config.toml``), while the command's own code is still being imported: the node
client takes that connection for its first request (see ``node/early.py``). It
decides nothing: a guess that turns out wrong (another home, a home that is not a
node's, a config that does not read) leaves the connection unused, and the command
opens and checks everything as it always does.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from c4cli.errors import C4Error
from c4cli.home.config import read_remote
from c4cli.node import early


def dial(argv: list[str], home_from_env: str, remote_from_env: str | None) -> None:
    """Dial the node of the home ``argv`` names (its ``--home H`` or ``--home=H``, else
    ``home_from_env``: $C4_HOME, else ./state, as commands/line.py reads it), or
    ``remote_from_env`` ($C4_REMOTE); nothing for a home bound to none."""
    url = remote_from_env
    if url is None:
        home = home_from_env
        for index, arg in enumerate(argv):
            if arg == "--home" and index + 1 < len(argv):
                home = argv[index + 1]
            elif arg.startswith("--home="):
                home = arg.removeprefix("--home=")
        with contextlib.suppress(C4Error, OSError, ValueError):
            remote = read_remote(Path(home))
            url = None if remote is None else remote.url
    if url:
        early.dial(url)

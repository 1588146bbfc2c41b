"""A home's node dialled as c4 starts, before the command has loaded (a hint only).

A query or a move across a network spends two round trips on TCP's and TLS's
handshakes before its first request can leave. :func:`dial` begins them the moment
the console knows which home the command line names (its ``--home``, else
``$C4_HOME``, else ``./state``) and so which node (``$C4_REMOTE``, else the ``url``
of the ``[remote]`` table of the home's ``config.toml``, as c4 writes it), in a
thread of its own, while the command's own code is still being imported: the node
client takes that connection for its first request (see ``node/net/early.py``).

It decides nothing, so it reads as little as it can (no pathlib, no TOML reader: the
line c4 wrote, or nothing): a guess that turns out wrong (another home, a home that
is not a node's, a config edited by hand) leaves the connection unused, and the
command reads its config, opens and checks everything as it always does.
"""

from __future__ import annotations

import os

from c4cli.settings import Settings

CONFIG = "config.toml"


def dial(argv: list[str]) -> None:
    """Dial the node of the home ``argv`` names (its ``--home H`` or ``--home=H``, else
    $C4_HOME, else ./state, as the invocation reads it), or $C4_REMOTE's; nothing for a
    home bound to none."""
    env = Settings.read()
    url = env.remote
    if url is None:
        home = env.home or "state"
        for index, arg in enumerate(argv):
            if arg == "--home" and index + 1 < len(argv):
                home = argv[index + 1]
            elif arg.startswith("--home="):
                home = arg.removeprefix("--home=")
        url = _bound_url(os.path.join(home, CONFIG))
    if url:  # the socket and thread it takes load only for a node's home
        from c4cli.node.net import early

        early.dial(url)


def _bound_url(path: str) -> str | None:
    """The ``url`` of ``[remote]`` as c4 writes it (``url = "…"``), or None."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read(65536).splitlines()
    except (OSError, ValueError):
        return None
    table = ""
    for line in lines:
        text = line.strip()
        if text.startswith("["):
            table = text
        elif table == "[remote]" and text.startswith('url = "') and text.endswith('"'):
            value = text[7:-1]
            return None if '"' in value or "\\" in value else value
    return None

"""The ``c4`` console script: Ctrl-C and SIGTERM handled from the first moment.

The handlers go in before click and the commands are imported, so a signal
that comes while c4 is still loading ends it as cleanly as one that comes later.
"""

from __future__ import annotations


def main() -> None:
    from c4cli.interrupts import install

    install()
    from c4cli.commands.main import main as run

    run()

"""The ``c4`` console script: Ctrl-C and SIGTERM handled from the first moment.

The first handlers go in through ``_signal`` (the C module beneath ``signal``,
which builds no enums on import) before anything else of c4, click or the
standard library is loaded; a signal while c4 is still loading then ends it in
one line, as one that comes later does. What runs before this module (the
interpreter's own start-up) is Python's.
"""

from __future__ import annotations

import _signal
import os
import sys
from types import FrameType


class _Stopped(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(signum)


def main() -> None:
    _signal.signal(_signal.SIGINT, _stop)
    _signal.signal(_signal.SIGTERM, _stop)
    try:
        from c4cli.interrupts import install

        install()
        from c4cli.commands.main import main as run
    except BaseException as stop:
        signum = getattr(stop, "signum", None)
        if not isinstance(signum, int):
            raise
        _stopped_early(signum)
    run()


def _stopped_early(signum: int) -> None:
    """One line for a signal that came while c4 was loading: nothing had started."""
    name = "interrupted" if signum == _signal.SIGINT else "terminated"
    message = f"{name}: nothing was recorded"
    try:
        if "--json" in sys.argv[1:]:
            sys.stdout.write('{"ok": false, "error": "' + message + '"}\n')
            sys.stdout.flush()
        else:
            sys.stderr.write(f"Error: {message}\n")
            sys.stderr.flush()
    finally:
        os._exit(128 + signum)

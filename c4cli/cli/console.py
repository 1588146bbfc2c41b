"""The ``c4`` console script: Ctrl-C and SIGTERM handled from the first moment.

The module's first statements put in handlers through ``_signal`` (the C module
beneath ``signal``, which builds no enums on import) that only note the signal,
before anything else of c4, click or the standard library is loaded; ``main``
then ends in one line for a signal noted while c4 was loading, as for one that
comes later. What runs before those handlers are in is Python's: the interpreter's
own start-up, and its default Ctrl-C (a KeyboardInterrupt) for a SIGINT that lands
as the console script enters the package or this module, before its first statement.
"""

import _signal

_noted: list[int] = []  # signals that came while c4 was loading


def _note(signum: int, frame: object) -> None:
    _noted.append(signum)


_signal.signal(_signal.SIGINT, _note)
_signal.signal(_signal.SIGTERM, _note)

import os  # noqa: E402  (after the handlers, on purpose)
import sys  # noqa: E402
from types import FrameType  # noqa: E402


def _lost(unraisable: "sys.UnraisableHookArgs") -> None:
    """A signal's exception raised where Python cannot let it rise (an import lock's
    weakref callback, a ``__del__``) is printed and dropped, and the process would go
    on as if no signal had come: end it here, in the same one line."""
    signum = getattr(unraisable.exc_value, "signum", None)
    if isinstance(signum, int):
        _stopped_early(signum)
    sys.__unraisablehook__(unraisable)


sys.unraisablehook = _lost


class _Stopped(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped(signum)


def main() -> None:
    _signal.signal(_signal.SIGINT, _stop)
    _signal.signal(_signal.SIGTERM, _stop)
    if _noted:
        _stopped_early(_noted[0])
    try:
        _dial_ahead(sys.argv[1:])
        from c4cli.commands import ending

        ending.handle_signals()
        code = _fast_lane(sys.argv[1:])
        if code is not None:
            ending.finish(code)
        from c4cli.commands.main import main as run
    except BaseException as stop:
        signum = _signum_of(stop)
        if signum is None:
            raise
        _stopped_early(signum)
    run()


def _signum_of(stop: BaseException) -> int | None:
    """The signal that stopped the start-up, if one did: raised as is, or wrapped by
    the interpreter (a signal that lands while a class is made, in a module being
    imported, comes out as RuntimeError "Error calling __set_name__", its cause the
    signal's exception)."""
    seen: BaseException | None = stop
    for _ in range(8):  # a chain this short: no loop through a cycle
        if seen is None:
            return None
        signum = getattr(seen, "signum", None)
        if isinstance(signum, int):
            return signum
        seen = seen.__cause__ or seen.__context__
    return None


def _dial_ahead(argv: list[str]) -> None:
    """A query's or a move's node, if the home has one, dialled before the rest of c4
    loads: the handshakes overlap the imports (cli/ahead.py: a hint that decides
    nothing)."""
    if argv[:1] in (["query"], ["play"]):
        from c4cli.cli import ahead

        ahead.dial(argv)


def _fast_lane(argv: list[str]) -> int | None:
    """A query or a move in its plain form needs neither click nor the other
    commands (cli/lanes.py): its exit code, or None when click must run it."""
    command = argv[0] if argv else ""
    if command in ("query", "play"):
        from c4cli.cli import lanes

        return lanes.query(argv) if command == "query" else lanes.play(argv)
    return None


def _stopped_early(signum: int) -> None:
    """One line for a signal that came while c4 was loading: nothing had started."""
    name = "interrupted" if signum == _signal.SIGINT else "terminated"
    message = f"{name}: nothing was recorded"
    try:
        if "--json" in sys.argv[1:]:  # nothing parsed yet: the raw command line, as lanes do
            sys.stdout.write('{"ok": false, "error": "' + message + '"}\n')
            sys.stdout.flush()
        else:
            sys.stderr.write(f"Error: {message}\n")
            sys.stderr.flush()
    finally:
        os._exit(128 + signum)

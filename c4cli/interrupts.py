"""Ctrl-C and SIGTERM: a clean exit (130, 143), never half a block.

The console script turns both signals into :class:`Interrupted`, which unwinds
the command like any error (locks released, files closed) and ends in one line.
Code that must not be cut in two (an append and its fsync, or its roll-back)
runs under :func:`deferred`: a signal that arrives meanwhile waits until the
block is whole or gone, then interrupts.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A signal asked the command to stop (a BaseException: nothing may swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return "interrupted" if self.signum == signal.SIGINT else "terminated"


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signum)


def install(ending: Callable[[Interrupted], None] | None = None) -> None:
    """Make SIGINT and SIGTERM raise Interrupted (the console script calls this).

    Where Python cannot let an exception rise (a weakref callback, a ``__del__``,
    a finalizer run by the collector at any bytecode), it prints the exception and
    carries on: the signal would be lost. With ``ending`` given, such a lost
    Interrupted ends the process at once: ``ending`` says it (the same line as
    when it rises), and the process exits with the signal's code.
    """
    for signum in SIGNALS:
        signal.signal(signum, _raise)
    if ending is not None:
        previous = sys.unraisablehook

        def lost(unraisable: sys.UnraisableHookArgs) -> None:
            stop = unraisable.exc_value
            if not isinstance(stop, Interrupted):
                previous(unraisable)
                return
            try:
                ending(stop)
            except SystemExit:
                pass
            finally:
                for stream in (sys.stdout, sys.stderr):
                    with suppress(OSError, ValueError):
                        stream.flush()
                os._exit(stop.exit_code)

        sys.unraisablehook = lost


@contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then act on the first one."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    previous = [(signum, signal.signal(signum, hold)) for signum in SIGNALS]
    try:
        yield
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)
        if pending:
            if dict(previous)[signal.Signals(pending[0])] is _raise:
                raise Interrupted(pending[0])
            signal.raise_signal(pending[0])  # not our handler: let the default act


def for_workers() -> None:
    """A worker process's signals: Ctrl-C is the parent's to handle, and SIGTERM (how
    a pool stops its workers) ends a worker quietly, the default way."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # blocked by the parent until now

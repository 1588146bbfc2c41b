"""A fault seam for tests: make one write or fsync of c4 fail as a full or broken disk would.

``C4_FAULT=<point>:<ERRNO>`` (for example ``append-fsync:EIO``) raises that
error at that point, in the installed ``c4`` as in the tests' in-process runs.
Points: ``append-write`` (after writing part of the block), ``append-fsync``,
``cache-save``, ``secret-write``, ``key-write``, ``log-read``, and the journal of a
home bound to a node: ``journal-pending`` (before a broadcast), ``journal-landed``,
``journal-refused``, ``journal-dropped``. Unset, it costs
one lookup.

The crash and signal tests name a moment of the block log's append instead:
``before-append``, ``mid-append`` (after a random part of the block) and
``after-append`` kill the process outright (SIGKILL, as a power cut would);
``pause-before-append`` and ``pause-mid-append`` hold it there for 0.4 s, so that a
signal sent meanwhile lands at that moment. The append calls :func:`reached` and
:func:`writing` at those moments and reads straight through otherwise.
"""

from __future__ import annotations

import errno
import os
import signal
import time

from c4cli import settings

PAUSE = 0.4  # seconds: wide enough for a test to send its signal inside the window

BLOCK_MARK_LEN = len(b"\n[[block]]\n")  # the block log's mark: a shorter cut leaves no block


def check(point: str) -> None:
    """Raise the OSError $C4_FAULT names for ``point``, if it names it."""
    fault = settings.current().fault
    name, _, code = fault.partition(":")
    if name == point and code:
        number = getattr(errno, code, None)
        if not isinstance(number, int):
            raise ValueError(f"C4_FAULT={fault}: unknown errno {code}")
        raise OSError(number, os.strerror(number))


def reached(moment: str) -> None:
    """At a named moment of an append (``before-append``, ``after-append``): die there,
    or pause there, if $C4_FAULT says so."""
    fault = settings.current().fault
    if fault == moment:
        _die()
    elif fault == f"pause-{moment}":
        time.sleep(PAUSE)


def writing(fd: int, data: bytes) -> bytes:
    """Inside an append, before its bytes are written: what is left for the append to
    write once $C4_FAULT has done its part (``mid-append``: write a random part of the
    block and die; ``pause-mid-append``: write half and pause; ``append-write:ERRNO``:
    write half and fail as a full disk would)."""
    fault = settings.current().fault
    if not fault:
        return data
    if fault == "mid-append":
        # At least the block's first line: a cut inside its leading newline leaves only
        # a blank line, which is no block at all (harmless, and not what is tested).
        # (os.urandom rather than the random module: nothing imported on every command
        # for a crash test's sake)
        cut = BLOCK_MARK_LEN + int.from_bytes(os.urandom(4), "big") % (len(data) - BLOCK_MARK_LEN)
        os.write(fd, data[:cut])
        _die()
    half = len(data) // 2
    if fault == "pause-mid-append":
        os.write(fd, data[:half])
        time.sleep(PAUSE)
        return data[half:]
    if fault.startswith("append-write:"):
        os.write(fd, data[:half])  # the disk fills up mid-block
        check("append-write")
    return data


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)

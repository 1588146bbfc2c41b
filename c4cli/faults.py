"""A fault seam for tests: make one write or fsync of c4 fail as a full or broken disk would.

``C4_FAULT=<point>:<ERRNO>`` (for example ``append-fsync:EIO``) raises that
error at that point, in the installed ``c4`` as in the tests' in-process runs.
Points: ``append-write`` (after writing part of the block), ``append-fsync``,
``cache-save``, ``secret-write``, ``key-write``, ``log-read``, and the journal of a
home bound to a node: ``journal-pending`` (before a broadcast), ``journal-landed``,
``journal-refused``, ``journal-dropped``. Unset, it costs
one lookup.
"""

from __future__ import annotations

import errno
import os


def check(point: str) -> None:
    """Raise the OSError $C4_FAULT names for ``point``, if it names it."""
    fault = os.environ.get("C4_FAULT", "")
    name, _, code = fault.partition(":")
    if name == point and code:
        number = getattr(errno, code, None)
        if not isinstance(number, int):
            raise ValueError(f"C4_FAULT={fault}: unknown errno {code}")
        raise OSError(number, os.strerror(number))

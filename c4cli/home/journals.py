"""The journals of the chains a home was bound to, kept when it is bound elsewhere.

A home's journal (``journal.jsonl``, :mod:`c4cli.home.journal`) holds what it sent
to the chain it is bound to, and nothing in it names that chain: its heights, its
sequences and the highest block it saw are that chain's. When the home is bound to
another chain (`c4 init --remote URL --force`, `c4 node start --force`) or made a
local chain (`c4 init --force`), the journal is set aside as
``journals/CHAIN_ID-UNIXTIME.jsonl``, never deleted and never taken back: chain ids
repeat (every local node is ``dev``), so a later binding to a chain of the same id
may be another chain. A new URL of the same chain id keeps the journal where it is.

While a transaction is pending (its bytes may have left for a node, and only a
block of *that* chain can say whether it landed), the home does not leave its
chain: no block of another chain is evidence about it.
"""

from __future__ import annotations

import os
import re
import time as wallclock
from pathlib import Path

from c4cli.errors import BadInput, DiskError
from c4cli.home.entry import PENDING
from c4cli.home.journal import Journal

ASIDE = "journals"


class StillPending(BadInput):
    """The home's journal holds transactions of its chain whose fate no block showed."""

    def __init__(self, chain_id: str, hashes: list[str], journal: Path) -> None:
        self.chain_id = chain_id
        self.hashes = hashes
        many = len(hashes) != 1
        super().__init__(
            f"{len(hashes)} transaction{'s' if many else ''} sent to chain {chain_id!r} "
            f"{'are' if many else 'is'} pending (TX HASH {', '.join(hashes)}): only that "
            "chain's blocks can settle them (c4 log looks them up), so the home stays bound "
            f"to it and nothing was changed; to leave anyway, move {journal} aside yourself "
            "and keep it"
        )


def check_leave(home: Path, chain_id: str) -> None:
    """Refuse to leave chain ``chain_id`` while the journal holds a pending transaction."""
    journal = Journal(home)
    pending = [entry.hash for entry in journal.typed() if entry.status == PENDING]
    if pending:
        raise StillPending(chain_id, pending, journal.path)


def leave(home: Path, chain_id: str) -> Path | None:
    """Set the journal of chain ``chain_id`` aside; where it went, or None when the home
    sent nothing. :func:`check_leave` first."""
    journal = Journal(home).path
    if not journal.exists():
        return None
    safe = chain_id if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", chain_id) else ""
    target = home / ASIDE / f"{safe or chain_id.encode().hex()}-{int(wallclock.time())}.jsonl"
    try:
        target.parent.mkdir(mode=0o700, exist_ok=True)
        while target.exists():  # a second binding within the same second
            target = target.with_name(target.stem + "-again.jsonl")
        os.rename(journal, target)
    except OSError as exc:
        raise DiskError(
            f"cannot set {journal} aside as {target}: {exc.strerror or exc}; "
            "the home is still bound as it was"
        ) from None
    return target

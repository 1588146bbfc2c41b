"""What this process has sent: the one answer to "was the transaction recorded?".

Money moves the moment a transaction's bytes are in a block, and a command can
fail or be stopped at any point after that (reading the game back, printing,
writing the journal, a signal, a closed pipe). Whatever happens next, c4 must
neither forget a commit-reveal secret whose commitment may be on chain nor tell
the user "nothing was recorded" about a transaction that may have landed. So
both backends report here, at the moment it becomes true:

- :func:`sending` just before the bytes can leave (the local log's append
  begins; the broadcast to a node goes out): from now on, the fate of the
  transaction is unknown until said otherwise;
- :func:`landed` once it is known to be in a block (fsynced in the local log;
  found in a block on the node), refused or not;
- :func:`withdrawn` once it is known that it was *not* recorded: the local
  append was cut back;
- :func:`denied` when a node says it refused it before a block (the ante
  handler's check): c4 reports the refusal, but keeps any secret, since only the
  node's word says the bytes went nowhere.

Anything between ``sending`` and one of the other two stays "sent, fate
unknown", and is treated as recorded wherever money is at stake.
"""

from __future__ import annotations

from contextvars import ContextVar
from enum import Enum


class Fate(Enum):
    SENT = "sent"  # the bytes may have left; not known to be in a block
    LANDED = "landed"  # in a block (the realm may still have refused it)
    WITHDRAWN = "withdrawn"  # known not to be in any block, and never to be
    # A node said it refused it before a block (its check): believed for what c4
    # says, but not for deleting a secret, since only the node's word says so.
    DENIED = "denied"


class Outgoing:
    """One transaction this process let go of, and what is known of it.

    A plain class: ``dataclasses`` costs every command its import (~10 ms, most of
    it ``inspect``), and this module is loaded by all of them, the fast lane too.
    """

    __slots__ = ("fate", "height", "tx_hash")

    def __init__(self, tx_hash: str, fate: Fate, height: int = 0) -> None:
        self.tx_hash = tx_hash
        self.fate = fate
        self.height = height

    def __repr__(self) -> str:
        return f"Outgoing({self.tx_hash!r}, {self.fate}, {self.height})"

    def describe(self) -> str:
        if self.fate is Fate.LANDED:
            where = f"height {self.height}, " if self.height else ""
            return f"the transaction was recorded ({where}TX HASH {self.tx_hash})"
        return (
            f"the transaction was sent (TX HASH {self.tx_hash}) and is pending, not yet seen "
            f"in a block; `c4 tx {self.tx_hash}` tells whether it landed"
        )


class Outbox:
    """What one run of c4 has let go of (its invocation owns it: ``c4cli/commands/run.py``)."""

    __slots__ = ("sent", "transacting")

    def __init__(self) -> None:
        self.sent: list[Outgoing] = []
        self.transacting = False  # about to sign or append: a signal says what stands


# The outbox of the run in progress: set by the invocation (``c4cli/cli``), read by the
# backends through the functions below. Outside a run (a test calling a backend, a
# thread started without the run's context) there is none, and nothing is noted.
CURRENT: ContextVar[Outbox | None] = ContextVar("c4_outbox", default=None)


def _items() -> list[Outgoing]:
    box = CURRENT.get()
    return box.sent if box is not None else []


def transacting() -> None:
    """This command is about to sign or append something: an interruption from now
    on says whether it was recorded."""
    box = CURRENT.get()
    if box is not None:
        box.transacting = True


def sending(tx_hash: str) -> None:
    transacting()
    _items().append(Outgoing(tx_hash, Fate.SENT))


def landed(tx_hash: str, height: int) -> None:
    sent = _items()
    for item in sent:
        if item.tx_hash == tx_hash:
            item.fate, item.height = Fate.LANDED, height
            return
    sent.append(Outgoing(tx_hash, Fate.LANDED, height))


def withdrawn(tx_hash: str) -> None:
    for item in _items():
        if item.tx_hash == tx_hash and item.fate is Fate.SENT:
            item.fate = Fate.WITHDRAWN


def denied(tx_hash: str) -> None:
    for item in _items():
        if item.tx_hash == tx_hash and item.fate is Fate.SENT:
            item.fate = Fate.DENIED


def forget(tx_hash: str) -> None:
    """A transaction of an earlier command, settled by this one: not this command's
    to report (its fate is in the journal)."""
    sent = _items()
    sent[:] = [item for item in sent if item.tx_hash != tx_hash]


def mark() -> int:
    """A point to ask :func:`may_be_recorded_since` about."""
    return len(_items())


def may_be_recorded_since(point: int) -> bool:
    """Whether anything let go of after ``point`` is, or may be, in a block. Outside a
    run nothing is noted, so anything may be: a secret is kept (fail closed)."""
    if CURRENT.get() is None:
        return True
    return any(item.fate is not Fate.WITHDRAWN for item in _items()[point:])


def standing() -> Outgoing | None:
    """The last transaction this command let go of that is, or may be, in a block."""
    for item in reversed(_items()):
        if item.fate not in (Fate.WITHDRAWN, Fate.DENIED):
            return item
    return None


def interrupted_state() -> str | None:
    """What a signal or a failure at this moment leaves: the last transaction's fate,
    "nothing was recorded" for a command that was transacting, None for one that
    only read."""
    item = standing()
    if item is not None:
        return item.describe()
    box = CURRENT.get()
    return "nothing was recorded" if box is not None and box.transacting else None

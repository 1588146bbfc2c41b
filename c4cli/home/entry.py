"""One transaction of a home's journal, typed: read from its JSON lines, written back.

Each journal line is a JSON object about one transaction (by its hash); a later
line about the same hash adds to what the earlier ones said (see
:mod:`c4cli.home.journal`). :meth:`Entry.from_json` reads one line and refuses a
field whose value is not of the kind c4 writes there (commands act on them);
:meth:`Entry.to_json` writes the fields that are set.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, NamedTuple

from c4cli.chain.interface import Unsettled
from c4cli.jsonvalue import Document
from c4cli.wire.std import Tx

PENDING = "pending"
LANDED = "landed"
REFUSED = "refused"
DROPPED = "dropped"
STATUSES = (PENDING, LANDED, REFUSED, DROPPED)


class Entry(NamedTuple):
    """A transaction as the journal's lines about it say (None: not said)."""

    status: str
    hash: str
    signer: str | None = None
    session: str | None = None
    sequence: int | None = None  # the account's (or session's) sequence it was signed for
    since: int | None = None  # a height the node had before its bytes left
    sent_at: str | None = None
    func: str | None = None  # its messages: function names, comma-separated
    args: list[list[str]] | None = None
    send: list[str] | None = None
    to: list[str | None] | None = None
    tx: str | None = None  # its bytes in base64, while no block has proved its fate
    signed: Tx | None = None  # the signed transaction, as long as its bytes
    height: int | None = None
    time: str | None = None
    result: list[str] | None = None
    transfers: list[dict[str, str]] | None = None
    gas_wanted: int | None = None
    gas_used: int | None = None
    gas_fee: str | None = None
    error: str | None = None  # the realm's or the VM's refusal, in a block
    reason: str | None = None  # why it was dropped
    unproven: bool | None = None  # dropped on a node's word only: checked again
    # Landed or refused: whether its block and its result were proven (False: in part
    # the node's word). Dropped by `c4 log --forget-above`: False, the user's word.
    # Either False is looked at again once a proof is to be had (node/sending/recheck.py).
    proven: bool | None = None

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> Entry:
        """The entry one line says; ValueError naming the first field c4 would not have
        written so. Fields c4 does not know are left out."""
        given = {name: document[name] for name in cls._fields if name in document}
        given.setdefault("status", LANDED)  # lines written before statuses existed
        if given.get("signed") is not None:
            try:
                given["signed"] = Tx.from_json(given["signed"])
            except ValueError:
                raise ValueError("signed") from None
        for name, value in given.items():
            # c4 writes None for one field only: the session of a key that is none.
            if (value is None and name != "session") or not (value is None or _KINDS[name](value)):
                raise ValueError(name)
        if given["status"] not in STATUSES:
            raise ValueError("status")
        if isinstance(given.get("func"), str):
            count = len(given["func"].split(","))  # one of each per message
            for name in ("args", "send", "to"):
                if name in given and given[name] is not None and len(given[name]) != count:
                    raise ValueError(name)
        return cls(**given)

    def to_json(self) -> Document:
        """The line that says this entry: its fields that are set."""
        return {
            name: value.to_json() if isinstance(value, Tx) else value
            for name, value in zip(self._fields, self, strict=True)
            if value is not None
        }

    def merged(self, later: Entry) -> Entry:
        """This entry as a later line about it makes it: what that line says wins; once
        a block proves its fate, its bytes and the node's unproven word are let go."""
        said = {name: value for name, value in later._asdict().items() if value is not None}
        entry = self._replace(**said)
        if entry.status in (LANDED, REFUSED):
            entry = entry._replace(unproven=None, reason=later.reason)  # no drop's reason
        if entry.status != PENDING and not entry.unproven:
            entry = entry._replace(tx=None, signed=None)
        return entry

    @property
    def settled(self) -> bool:
        """Whether a block proved its fate (a node's word alone does not settle it)."""
        return not (self.status == PENDING or (self.status == DROPPED and self.unproven))

    def unsettled(self) -> Unsettled | None:
        """What the node client needs to settle it; None when its bytes were not kept."""
        if self.tx is None or self.signed is None or self.signer is None:
            return None
        return Unsettled(
            tx_id=self.hash,
            signer=self.signer,
            session=self.session,
            sequence=self.sequence or 0,
            since=self.since or 0,
            raw=base64.b64decode(self.tx),
            signed=self.signed,
            refused=self.reason or "" if self.status == DROPPED else "",
        )


def _texts(value: object, *, or_none: bool = False) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) or (or_none and v is None) for v in value
    )


def _text(value: object) -> bool:
    return isinstance(value, str)


def _whole(value: object) -> bool:
    return type(value) is int  # not a bool


_KINDS: dict[str, Callable[[object], bool]] = {
    "status": _text,
    "hash": _text,
    "signer": _text,
    "session": _text,
    "sequence": _whole,
    "since": _whole,
    "sent_at": _text,
    "func": _text,
    "args": lambda v: isinstance(v, list) and all(_texts(msg) for msg in v),
    "send": _texts,
    "to": lambda v: _texts(v, or_none=True),
    "tx": _text,
    "signed": lambda v: isinstance(v, Tx),
    "height": _whole,
    "time": _text,
    "result": _texts,
    "transfers": lambda v: (
        isinstance(v, list)
        and all(isinstance(t, dict) and _texts([t.get("to"), t.get("amount")]) for t in v)
    ),
    "gas_wanted": _whole,
    "gas_used": _whole,
    "gas_fee": _text,
    "error": _text,
    "reason": _text,
    "unproven": lambda v: isinstance(v, bool),
    "proven": lambda v: isinstance(v, bool),
}

"""The events a gno.land v1.7.1 transaction's result carries, as values.

One of four kinds (a bank transfer, a realm's ``chain.Emit``, a storage deposit, its
unlock), or kept as the node wrote it. Each is read from amino JSON and written back,
written in amino binary (an ``Any``, as a block's results hash holds it) and read
back from it, and printed as gnokey prints it (:func:`gnokey_events`: Go's JSON of
the event's struct). An event of another kind cannot be hashed (:class:`Unencodable`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from c4cli.gotext import go_json
from c4cli.jsonvalue import Document
from c4cli.wire.fields import int64, int64_field, items, mapping, string_field, text
from c4cli.wire.protowire import (
    VARINT,
    any_value,
    bytes_field,
    field_key,
    unzigzag,
    wire_fields,
)

TRANSFER = "/bank.TransferEvent"
GNO_EVENT = "/tm.Event"
STORAGE_DEPOSIT = "/tm.StorageDepositEvent"
STORAGE_UNLOCK = "/tm.StorageUnlockEvent"
_COIN = re.compile(r"^(-?[0-9]+)([a-z][a-z0-9/:._-]*)$")


class Unencodable(ValueError):
    """A result holding an event or error type whose amino encoding c4 does not know."""


def optional_text(value: object) -> str:
    """A string of amino JSON, null read as empty."""
    return "" if value is None else text(value)


def coin(said: str) -> Document:
    """A coin's text as Go's JSON of a ``std.Coin`` writes it."""
    found = _COIN.match(said)
    if found is None:
        return {"denom": "", "amount": 0}
    return {"denom": found.group(2), "amount": int(found.group(1))}


class TransferEvent(NamedTuple):
    sender: str
    receiver: str
    coins: str  # std.Coins as amino writes them: "5ugnot,1foo"

    @property
    def type_url(self) -> str:
        return TRANSFER

    def to_json(self) -> Document:
        return {"@type": TRANSFER, "from": self.sender, "to": self.receiver, "coins": self.coins}

    def amino(self) -> bytes:
        fields = (
            string_field(1, self.sender)
            + string_field(2, self.receiver)
            + string_field(3, self.coins)
        )
        return any_value(TRANSFER, fields)

    def plain(self) -> Document:
        coins = [coin(part) for part in self.coins.split(",")] if self.coins else None
        return {"from": self.sender, "to": self.receiver, "coins": coins}


class GnoEvent(NamedTuple):
    """A realm's ``chain.Emit``: its type, its attributes in order, the realm's path."""

    type: str
    attrs: tuple[tuple[str, str], ...]
    pkg_path: str

    @property
    def type_url(self) -> str:
        return GNO_EVENT

    def to_json(self) -> Document:
        attrs = [{"key": key, "value": value} for key, value in self.attrs]
        return {
            "@type": GNO_EVENT,
            "type": self.type,
            "attrs": attrs or None,
            "pkg_path": self.pkg_path,
        }

    def amino(self) -> bytes:
        attrs = b"".join(
            bytes_field(2, string_field(1, key) + string_field(2, value))
            for key, value in self.attrs
        )
        return any_value(
            GNO_EVENT, string_field(1, self.type) + attrs + string_field(3, self.pkg_path)
        )

    def plain(self) -> Document:
        found = self.to_json()
        del found["@type"]
        return found

    def attr(self, key: str) -> str | None:
        return next((value for name, value in self.attrs if name == key), None)


class StorageEvent(NamedTuple):
    """A storage deposit locked (``bytes_delta`` above 0) or unlocked (below), with the
    coin it moved, and for an unlock whether its refund was withheld."""

    unlock: bool
    bytes_delta: int
    coin: str  # a std.Coin as amino writes it: "100ugnot"
    pkg_path: str
    refund_withheld: bool = False

    @property
    def type_url(self) -> str:
        return STORAGE_UNLOCK if self.unlock else STORAGE_DEPOSIT

    @property
    def _coin_name(self) -> str:
        return "fee_refund" if self.unlock else "fee_delta"

    def to_json(self) -> Document:
        out = {
            "@type": self.type_url,
            "bytes_delta": str(self.bytes_delta),
            self._coin_name: self.coin,
            "pkg_path": self.pkg_path,
        }
        return out | ({"refund_withheld": self.refund_withheld} if self.unlock else {})

    def amino(self) -> bytes:
        inner = (
            int64_field(1, self.bytes_delta)
            + string_field(2, self.coin)
            + string_field(3, self.pkg_path)
        )
        inner += field_key(4, VARINT) + b"\x01" if self.refund_withheld else b""
        return any_value(self.type_url, inner)

    def plain(self) -> Document:
        out: Document = {
            "bytes_delta": self.bytes_delta,
            self._coin_name: coin(self.coin),
            "pkg_path": self.pkg_path,
        }
        return out | ({"refund_withheld": self.refund_withheld} if self.unlock else {})


class OtherEvent(NamedTuple):
    """An event of a kind gno.land v1.7.1 does not emit: kept as the node wrote it."""

    fields: Mapping[str, Any]

    @property
    def type_url(self) -> str:
        return str(self.fields.get("@type") or "")

    def to_json(self) -> Document:
        return dict(self.fields)

    def amino(self) -> bytes:
        raise Unencodable(f"an event of type {self.type_url}")

    def plain(self) -> Document:
        return {key: value for key, value in self.fields.items() if key != "@type"}


Event = TransferEvent | GnoEvent | StorageEvent | OtherEvent


def event_from_json(value: object) -> Event:
    """An event of amino JSON (TypeError or ValueError for a field of another kind)."""
    found = mapping(value)
    kind = found.get("@type")
    if kind == TRANSFER:
        return TransferEvent(
            optional_text(found.get("from")),
            optional_text(found.get("to")),
            optional_text(found.get("coins")),
        )
    if kind == GNO_EVENT:
        attrs = items(found.get("attrs") or [], "attrs")
        pairs = tuple(
            (optional_text(mapping(a).get("key")), optional_text(mapping(a).get("value")))
            for a in attrs
        )
        return GnoEvent(
            optional_text(found.get("type")), pairs, optional_text(found.get("pkg_path"))
        )
    if kind in (STORAGE_DEPOSIT, STORAGE_UNLOCK):
        unlock = kind == STORAGE_UNLOCK
        return StorageEvent(
            unlock,
            int64(found.get("bytes_delta") or 0),
            optional_text(found.get("fee_refund" if unlock else "fee_delta")),
            optional_text(found.get("pkg_path")),
            found.get("refund_withheld") is True,
        )
    return OtherEvent(dict(found))


def any_parts(data: bytes) -> tuple[str, list[tuple[int, int | bytes]]]:
    """An amino ``Any``'s type URL and its value's fields."""
    fields = dict(wire_fields(data, skip_fixed=True))
    kind, value = fields.get(1, b""), fields.get(2, b"")
    url = kind.decode("utf-8", "replace") if isinstance(kind, bytes) else ""
    return url, wire_fields(value, skip_fixed=True) if isinstance(value, bytes) else []


def strings(fields: list[tuple[int, int | bytes]]) -> dict[int, str]:
    """The string fields of a struct's fields, by number."""
    return {n: v.decode("utf-8", "replace") for n, v in fields if isinstance(v, bytes)}


def event_from_amino(data: bytes) -> Event:
    """An event's ``Any`` read (DecodeError for bytes that are not amino); one of a kind
    gno.land does not emit keeps its type alone."""
    kind, fields = any_parts(data)
    said = strings(fields)
    if kind == TRANSFER:
        return TransferEvent(said.get(1, ""), said.get(2, ""), said.get(3, ""))
    if kind == GNO_EVENT:
        attrs = [strings(wire_fields(v)) for n, v in fields if n == 2 and isinstance(v, bytes)]
        pairs = tuple((a.get(1, ""), a.get(2, "")) for a in attrs)
        return GnoEvent(said.get(1, ""), pairs, said.get(3, ""))
    if kind in (STORAGE_DEPOSIT, STORAGE_UNLOCK):
        numbers = {n: v for n, v in fields if isinstance(v, int)}
        return StorageEvent(
            kind == STORAGE_UNLOCK,
            unzigzag(numbers.get(1, 0)),
            said.get(2, ""),
            said.get(3, ""),
            bool(numbers.get(4)),
        )
    return OtherEvent({"@type": kind})


def gnokey_events(events: Sequence[Event]) -> str:
    """Events as gnokey prints them (``EncodeEvents``: Go's JSON of each event's struct:
    no ``@type``, int64 values as numbers, a coin as ``{"denom", "amount"}``).

    >>> gnokey_events([TransferEvent("a", "b", "5ugnot")])
    '[{"from":"a","to":"b","coins":[{"denom":"ugnot","amount":5}]}]'
    >>> gnokey_events([])
    '[]'
    """
    return go_json([event.plain() for event in events]) if events else "[]"


def storage_moved(events: Sequence[Event]) -> tuple[int, int] | None:
    """(bytes, ugnot) the storage deposits of events moved, as gnokey adds them up for
    STORAGE DELTA and STORAGE FEE: a refund withheld is not the signer's. None when no
    deposit moved."""
    moved: tuple[int, int] | None = None
    for event in events:
        if not isinstance(event, StorageEvent):
            continue
        amount = 0 if event.refund_withheld else int(str(coin(event.coin)["amount"]))
        delta = (event.bytes_delta, -amount if event.unlock else amount)
        moved = delta if moved is None else (moved[0] + delta[0], moved[1] + delta[1])
    return moved

"""tm2's ABCI answers as values: a result's error, a transaction's result, a query's.

A :class:`ResponseDeliverTx` is what a block's results, a ``tx`` answer and a
broadcast carry of a transaction: its error (an amino ``Any``: a realm's panic is an
``/abci.StringError`` with its text; tm2's own errors are structs without fields),
its data, its events, its log and gas. It is read from and written to amino JSON,
written in amino binary as a simulation answers it, and read back from that; its
deterministic part (:meth:`ResponseDeliverTx.result_bytes`, tm2's ``ABCIResult``:
error, data, events) is what a block's results hash (:func:`results_hash`) roots, as
the next header's ``last_results_hash``. Both backends and both directions use these:
``c4 serve`` writes them, the node client reads them.

Its events are :mod:`c4cli.wire.events`'; an event of a kind gno.land does not emit,
and an error with fields, cannot be hashed (:class:`Unencodable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from c4cli.jsonvalue import Document
from c4cli.wire.events import (
    Event,
    any_parts,
    event_from_amino,
    event_from_json,
    optional_text,
    strings,
)
from c4cli.wire.events import (
    Unencodable as Unencodable,
)
from c4cli.wire.fields import b64, int64, int64_field, items, mapping, raw, string_field, text
from c4cli.wire.merkle import merkle_root
from c4cli.wire.protowire import (
    any_value,
    bytes_field,
    unzigzag,
    wire_fields,
)

STRING_ERROR = "/abci.StringError"


class AbciError(NamedTuple):
    """A result's error: its type, and a realm panic's text (``/abci.StringError``).
    ``fields`` holds what an error of another shape carried (it cannot be hashed)."""

    type_url: str
    text: str = ""
    fields: Mapping[str, Any] | None = None

    @classmethod
    def from_json(cls, value: object) -> AbciError:
        found = mapping(value)
        kind = text(found.get("@type"))
        inner = found.get("value")
        if isinstance(inner, str):
            return cls(kind, inner)
        rest = {k: v for k, v in found.items() if k != "@type"}
        return cls(kind, "", rest if any(rest.values()) else None)

    def to_json(self) -> Document:
        if self.fields:
            doc: Document = {"@type": self.type_url, **self.fields}
            return doc
        said = self.text or self.type_url == STRING_ERROR
        doc = {"@type": self.type_url}
        if said:
            doc["value"] = self.text
        return dict(doc)

    def amino(self) -> bytes:
        """An amino ``Any``: a string error's text in field 1 of its value; a struct
        without fields with none."""
        if self.fields:
            raise Unencodable(f"an error of type {self.type_url} with fields")
        return any_value(self.type_url, string_field(1, self.text))


class ResponseDeliverTx(NamedTuple):
    """A transaction's result (also a check's: the same fields)."""

    error: AbciError | None = None
    data: bytes = b""
    events: tuple[Event, ...] = ()
    log: str = ""
    info: str = ""
    gas_wanted: int = 0
    gas_used: int = 0

    @property
    def refused(self) -> bool:
        return self.error is not None

    @classmethod
    def from_json(cls, value: object) -> ResponseDeliverTx:
        found = mapping(value)
        base = mapping(found.get("ResponseBase", found))
        events = items(base.get("Events") or [], "events")
        error = base.get("Error")
        return cls(
            error=None if error is None else AbciError.from_json(error),
            data=raw(base.get("Data")),
            events=tuple(event_from_json(event) for event in events),
            log=optional_text(base.get("Log")),
            info=optional_text(base.get("Info")),
            gas_wanted=int64(found.get("GasWanted") or 0),
            gas_used=int64(found.get("GasUsed") or 0),
        )

    def to_json(self) -> Document:
        return {
            "ResponseBase": self.base_json(),
            "GasWanted": str(self.gas_wanted),
            "GasUsed": str(self.gas_used),
        }

    def base_json(self) -> Document:
        return {
            "Error": None if self.error is None else self.error.to_json(),
            "Data": b64(self.data),
            "Events": [event.to_json() for event in self.events] or None,
            "Log": self.log,
            "Info": self.info,
        }

    def result_bytes(self) -> bytes:
        """tm2's ``ABCIResult`` of it in amino: error, data, events (what is hashed)."""
        out = bytes_field(1, self.error.amino()) if self.error is not None else b""
        out += bytes_field(2, self.data) if self.data else b""
        return out + b"".join(bytes_field(3, event.amino()) for event in self.events)

    def amino(self) -> bytes:
        """The whole result in amino binary, as a simulation (``.app/simulate``) answers."""
        inner = self.result_bytes() + string_field(4, self.log) + string_field(5, self.info)
        out = bytes_field(1, inner) if inner else b""
        return out + int64_field(2, self.gas_wanted) + int64_field(3, self.gas_used)

    @classmethod
    def from_amino(cls, data: bytes) -> ResponseDeliverTx:
        """A simulation's answer read (DecodeError for bytes that are not amino): its
        error, data, log, info and gas; events of the kinds gno.land emits."""
        error, body, events, log, info, gas = None, b"", [], "", "", {2: 0, 3: 0}
        for number, value in wire_fields(data, skip_fixed=True):
            if number in gas and isinstance(value, int):
                gas[number] = unzigzag(value)
            elif number == 1 and isinstance(value, bytes):
                for inner, item in wire_fields(value, skip_fixed=True):
                    if not isinstance(item, bytes):
                        continue
                    if inner == 1:
                        error = _error_of_any(item)
                    elif inner == 2:
                        body = item
                    elif inner == 3:
                        events.append(event_from_amino(item))
                    elif inner in (4, 5):
                        said = item.decode("utf-8", "replace")
                        log, info = (said, info) if inner == 4 else (log, said)
        return cls(error, body, tuple(events), log, info, gas[2], gas[3])


def _error_of_any(data: bytes) -> AbciError:
    kind, fields = any_parts(data)
    return AbciError(kind, strings(fields).get(1, "") if kind == STRING_ERROR else "")


def results_hash(results: Sequence[ResponseDeliverTx]) -> bytes | None:
    """The hash the next header gives a block's results (``last_results_hash``)."""
    return merkle_root([result.result_bytes() for result in results])


class ProofOp(NamedTuple):
    type: str
    key: bytes
    data: bytes


class ResponseQuery(NamedTuple):
    """An ``abci_query`` answer's response: its base (a refusal's error and log), the key
    and value, the proof's operations (when one was asked for), the height."""

    error: AbciError | None = None
    data: bytes = b""
    log: str = ""
    key: bytes = b""
    value: bytes = b""
    proof: tuple[ProofOp, ...] = ()
    height: int = 0

    @property
    def refused(self) -> bool:
        return self.error is not None

    @classmethod
    def from_json(cls, value: object) -> ResponseQuery:
        found = mapping(value)
        base = mapping(found.get("ResponseBase", found))
        ops = items(mapping(found.get("Proof")).get("ops") or [], "ops")
        error = base.get("Error")
        return cls(
            error=None if error is None else AbciError.from_json(error),
            data=raw(base.get("Data")),
            log=optional_text(base.get("Log")),
            key=raw(found.get("Key")),
            value=raw(found.get("Value")),
            proof=tuple(
                ProofOp(
                    text(mapping(op)["type"]),
                    raw(mapping(op).get("key")),
                    raw(mapping(op).get("data")),
                )
                for op in ops
            ),
            height=int64(found.get("Height") or 0),
        )

    def to_json(self) -> Document:
        ops = [{"type": op.type, "key": b64(op.key), "data": b64(op.data)} for op in self.proof]
        base = ResponseDeliverTx(self.error, self.data, log=self.log).base_json()
        return {
            "ResponseBase": base,
            "Key": b64(self.key),
            "Value": b64(self.value),
            "Proof": {"ops": ops} if ops else None,
            "Height": str(self.height),
        }

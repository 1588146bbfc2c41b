"""What a gno.land node answers, read: times, deliver results, refusals, amino results.

Nothing here trusts the shape of an answer: a field that is missing or of another
kind is Unreachable in one line (or, where the caller says what it was reading, a
KeyError, TypeError or ValueError it turns into one).
"""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from c4cli.chain.protowire import DecodeError, unzigzag, wire_fields
from c4cli.errors import Unreachable
from c4cli.gotext import go_json, parse_result


class TxAnswer(TypedDict, total=False):
    """tm2's answer to ``tx`` (its ``ResultTx``), or a transaction's result read from its
    block's results in that shape: as untrusted as any answer, read under a guard."""

    hash: str
    height: str
    index: int
    tx_result: dict[str, Any]  # the ``ResponseDeliverTx``
    tx: str  # the transaction's bytes, base64


def unix_time(rfc3339: str) -> int:
    """Whole seconds of a tm2 time (``2026-01-01T00:00:05.123456789Z``), as the realm reads it."""
    whole = rfc3339.strip().rstrip("Z").split(".")[0]
    try:
        return int(datetime.fromisoformat(whole + "+00:00").timestamp())
    except (ValueError, OverflowError):
        raise Unreachable(f"the node answered a time that is not one: {rfc3339[:40]!r}") from None


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def field(node: str, document: Any, *path: str) -> Any:
    """``document[path…]`` of a node's answer, or Unreachable naming what is missing."""
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise Unreachable(f"{node} answered without {'.'.join(path)}")
        value = value[key]
    return value


def account_path(address: str, session: str | None = None) -> str:
    """Where gno.land answers an account's numbers (a session's own, under its master)."""
    return f"auth/accounts/{address}" + (f"/session/{session}" if session else "")


class Tm2Account(NamedTuple):
    """An account as gno.land's ``auth/accounts`` answers it: its ``BaseAccount``, and
    for a session key its ``BaseSessionAccount``'s bounds (0 and empty for another)."""

    address: str
    number: int
    sequence: int
    public_key: Any  # its amino JSON; None until the chain has seen it sign
    coins: str
    expires_at: int = 0
    allow_paths: tuple[str, ...] = ()
    spend_limit: str = ""
    spend_period: int = 0
    spent: str = ""


def tm2_account(document: Any) -> Tm2Account | None:
    """The one reading of an ``auth/accounts`` answer (an account's, a session's, or an
    item of ``…/sessions``): None when it names no account, ValueError for any other
    shape."""
    if not document:
        return None
    try:
        session = document.get("BaseSessionAccount", document)
        base = session.get("BaseAccount", session)
        return Tm2Account(
            address=str(base.get("address") or ""),
            number=int(base.get("account_number") or 0),
            sequence=int(base.get("sequence") or 0),
            public_key=base.get("public_key") or None,
            coins=str(base.get("coins") or ""),
            expires_at=int(session.get("expires_at") or 0),
            # gno.land's GnoSessionAccount keeps allow_paths beside the embedded
            # BaseSessionAccount, not inside it.
            allow_paths=tuple(
                str(p) for p in document.get("allow_paths") or session.get("allow_paths") or []
            ),
            spend_limit=str(session.get("spend_limit") or ""),
            spend_period=int(session.get("spend_period") or 0),
            spent=str(session.get("spend_used") or ""),
        )
    except (AttributeError, TypeError, ValueError):
        raise ValueError("not an account") from None


def account_numbers(document: Any) -> tuple[int, int] | None:
    """(account number, sequence) of an ``auth/accounts`` answer, an account's or a
    session's; None when it names no account, ValueError for any other shape."""
    found = tm2_account(document)
    return None if found is None else (found.number, found.sequence)


def delivered(found: TxAnswer) -> tuple[dict[str, Any], str, list[Any]]:
    """A node's ``tx`` answer's deliver result: its base, its data as text, its events
    (KeyError, TypeError, AttributeError or ValueError for a shape it never has)."""
    deliver = found["tx_result"]
    base: dict[str, Any] = deliver.get("ResponseBase", deliver)
    data = base64.b64decode(base.get("Data") or "").decode("utf-8", "replace")
    events = base.get("Events") or []
    if not isinstance(events, list):
        raise TypeError("events")
    return base, data, events


def int64(value: Any) -> int:
    """An int64 of a node's answer (a JSON string or number), refused outside int64."""
    number = int(str(value))
    if not -(2**63) <= number < 2**63:
        raise ValueError("outside int64")
    return number


def status_height(status: Any) -> int:
    """The last block's height a ``status`` answer gives (KeyError, TypeError or
    ValueError for a shape it never has)."""
    return int64(status["sync_info"]["latest_block_height"])


def hash_text(value: Any) -> str:
    """A hash as a node's JSON gives it: base64 of the bytes (tm2's []byte)."""
    return value if isinstance(value, str) else ""


def refusal(base: dict[str, Any]) -> str:
    """The node's words for a refusal: a realm panic's own text, else the log's first line."""
    error = base.get("Error")
    if isinstance(error, dict) and error.get("@type") == "/abci.StringError":
        return str(error.get("value"))
    log = str(base.get("Log") or "")
    if "--= Error =--" in log:
        # tm2's error report (after "msg:0,success:false,log:" in a simulation's): the
        # message is on the first trace line, after " - ".
        for line in log.split("--= Error =--", 1)[1].splitlines():
            number, _, rest = line.strip().partition(" ")
            if number.isdigit() and " - " in rest:
                return rest.split(" - ", 1)[1].strip()
    return first_line(log.split("\nstack:", 1)[0].removeprefix("recovered: ")) or "refused"


def error_type(base: dict[str, Any]) -> str:
    """The type of a refusal's error as tm2 writes it (``/std.UnauthorizedError``)."""
    error = base.get("Error")
    return str(error.get("@type") or "") if isinstance(error, dict) else ""


# tm2's error for a signature that does not verify for the account's number, sequence
# and chain id: another client took the sequence, or a node wants the legacy payload.
UNAUTHORIZED = "/std.UnauthorizedError"


def call_values(data: str) -> list[tuple[str, str]]:
    """A call's results as the VM prints them, ``(1 int)``, as (value, type) pairs."""
    values = []
    for line in data.splitlines():
        if line.startswith("(") and line.endswith(")"):
            try:
                values.append(parse_result(line))
            except ValueError:
                continue
    return values


def decode_result(data: bytes) -> dict[str, Any]:
    """The fields c4 needs of an amino ``sdk.Result``: error or not, log, gas used.

    ``Result`` embeds ``ResponseBase`` (field 1: Error 1, Data 2, Events 3, Log 4,
    Info 5) and has GasWanted (2) and GasUsed (3), int64 as zigzag varints.
    """
    out: dict[str, Any] = {"gas_used": 0}
    log = ""
    for number, value in amino_fields(data):
        if number == 3 and isinstance(value, int):
            out["gas_used"] = unzigzag(value)
        elif number == 1 and isinstance(value, bytes):
            for inner, inner_value in amino_fields(value):
                if inner == 1 and isinstance(inner_value, bytes):
                    out["error"] = True
                    out["log"] = string_error(inner_value)
                    kind = dict(amino_fields(inner_value)).get(1)
                    out["kind"] = kind.decode("utf-8", "replace") if isinstance(kind, bytes) else ""
                elif inner == 4 and isinstance(inner_value, bytes):
                    log = inner_value.decode("utf-8", "replace")
    if out.get("error") and not out.get("log"):
        out["log"] = refusal({"Log": log})
    return out


def string_error(any_bytes: bytes) -> str:
    """A realm panic's text from an ``Any`` holding an ``/abci.StringError``; "" otherwise."""
    fields = dict(amino_fields(any_bytes))
    value = fields.get(2)
    if fields.get(1) != b"/abci.StringError" or not isinstance(value, bytes):
        return ""
    inner = dict(amino_fields(value))
    text = inner.get(1, b"")
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else ""


def amino_fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level fields of a node's amino answer (a simulation's result), read as a
    transaction's are; bytes that are not amino are one line and exit 4."""
    try:
        return wire_fields(data, skip_fixed=True)
    except DecodeError as exc:
        raise Unreachable(f"the node's simulation result is not amino: {exc}") from None


# Each event's fields as gno's Go structs order them, and how each is typed there.
_EVENT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "/bank.TransferEvent": (("from", "str"), ("to", "str"), ("coins", "coins")),
    "/tm.Event": (("type", "str"), ("attrs", "list"), ("pkg_path", "str")),
    "/tm.StorageDepositEvent": (("bytes_delta", "int"), ("fee_delta", "coin"), ("pkg_path", "str")),
    "/tm.StorageUnlockEvent": (
        ("bytes_delta", "int"),
        ("fee_refund", "coin"),
        ("pkg_path", "str"),
        ("refund_withheld", "bool"),
    ),
}
_COIN = re.compile(r"^(-?[0-9]+)([a-z][a-z0-9/:._-]*)$")


def gnokey_events(events: list[Any]) -> str:
    """A deliver result's events as gnokey prints them (``EncodeEvents``: Go's JSON of
    each event's struct), from the amino JSON a node's ``tx`` answer carries: no
    ``@type``, int64 values as numbers, a coin as ``{"denom", "amount"}``.

    >>> gnokey_events([{"@type": "/bank.TransferEvent", "from": "a", "to": "b", "coins": "5ugnot"}])
    '[{"from":"a","to":"b","coins":[{"denom":"ugnot","amount":5}]}]'
    >>> gnokey_events([])
    '[]'
    """
    if not events:
        return "[]"
    return go_json([_plain_event(event) for event in events])


def _plain_event(event: Any) -> Any:
    if not isinstance(event, dict):
        return event
    fields = _EVENT_FIELDS.get(str(event.get("@type")))
    if fields is None:  # a kind gno.land v1.7.1 does not emit: as given, less its type
        return {key: value for key, value in event.items() if key != "@type"}
    plain: dict[str, Any] = {}
    for name, kind in fields:
        value = event.get(name)
        if kind == "int":
            plain[name] = _number(value)
        elif kind == "coin":
            plain[name] = _coin(str(value or ""))
        elif kind == "coins":
            text = str(value or "")
            plain[name] = [_coin(part) for part in text.split(",")] if text else None
        elif kind == "bool":
            plain[name] = bool(value)
        elif kind == "list":
            plain[name] = value if value else None
        else:
            plain[name] = "" if value is None else str(value)
    return plain


def _coin(text: str) -> dict[str, Any]:
    found = _COIN.match(text)
    if found is None:
        return {"denom": "", "amount": 0}
    return {"denom": found.group(2), "amount": int(found.group(1))}


def storage_moved(events: list[Any]) -> tuple[int, int] | None:
    """(bytes, ugnot) the storage deposits of a node's events moved (amino JSON), as
    gnokey adds them up for STORAGE DELTA and STORAGE FEE: a refund withheld is not
    the signer's. None when no deposit moved."""
    moved: tuple[int, int] | None = None
    for event in events:
        kind = event.get("@type") if isinstance(event, dict) else None
        if kind == "/tm.StorageDepositEvent":
            delta = (
                _number(event.get("bytes_delta")),
                _coin(str(event.get("fee_delta")))["amount"],
            )
        elif kind == "/tm.StorageUnlockEvent":
            refund = (
                0 if event.get("refund_withheld") else _coin(str(event.get("fee_refund")))["amount"]
            )
            delta = (_number(event.get("bytes_delta")), -int(refund))
        else:
            continue
        moved = delta if moved is None else (moved[0] + delta[0], moved[1] + delta[1])
    return moved


def _number(value: Any) -> int:
    """A number of a node's event, 0 when it is not one (it is shown, never paid)."""
    try:
        return int(str(value or 0))
    except ValueError:
        return 0

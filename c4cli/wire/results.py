"""gno.land's results and accounts as both backends write and read them.

An account's ``auth/accounts`` document, a transaction's ``tx`` answer, the events a
deliver result carries and how gnokey prints them, a call's results as the VM prints
them: the local chain writes these shapes, a node's client reads them, and commands
read them from either. Nothing here trusts a shape: a field missing or of another
kind is a ValueError or an empty reading, never a guess.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, TypedDict

from c4cli.gotext import go_json, parse_result


class TxAnswer(TypedDict, total=False):
    """tm2's answer to ``tx`` (its ``ResultTx``), or a transaction's result read from its
    block's results in that shape: as untrusted as any answer, read under a guard."""

    hash: str
    height: str
    index: int
    tx_result: dict[str, Any]  # the ``ResponseDeliverTx``
    tx: str  # the transaction's bytes, base64


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

"""gno.land's accounts and a call's results as both backends write and read them.

An account's ``auth/accounts`` document and a call's results as the VM prints them:
the local chain writes these shapes, a node's client reads them, and commands read
them from either. Nothing here trusts a shape: a field missing or of another
kind is a ValueError or an empty reading, never a guess.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from c4cli.gotext import parse_result


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

"""Values as gno.land's main store keeps them (amino binary), read into the values c4
reads from the node's queries: what a proven store read gives back.

An account is an amino ``Any`` (``/gno.Account``, ``/gno.SessionAccount``) whose value
embeds tm2's ``BaseAccount`` (a session's through ``BaseSessionAccount``). Amino
writes an address and coins as their text, unsigned numbers as varints and signed
ones (a session's times) zigzagged. tests/wire/test_store_proofs.py holds this
reading to gno's own decoding of the values a real node proved.
"""

from __future__ import annotations

from c4cli.coins import UGNOT, parse_coins
from c4cli.errors import BadInput
from c4cli.wire import pubkeys
from c4cli.wire.protowire import DecodeError, unzigzag, wire_fields
from c4cli.wire.results import Tm2Account

ACCOUNT, SESSION = "/gno.Account", "/gno.SessionAccount"


def _fields(data: bytes) -> dict[int, list[int | bytes]]:
    found: dict[int, list[int | bytes]] = {}
    for number, value in wire_fields(data):
        found.setdefault(number, []).append(value)
    return found


def _text(fields: dict[int, list[int | bytes]], number: int) -> str:
    value = fields.get(number, [b""])[-1]
    if not isinstance(value, bytes):
        raise DecodeError(f"field {number}: a number where text belongs")
    return value.decode()


def _number(fields: dict[int, list[int | bytes]], number: int, *, signed: bool = False) -> int:
    value = fields.get(number, [0])[-1]
    if isinstance(value, bytes):
        raise DecodeError(f"field {number}: bytes where a number belongs")
    return unzigzag(value) if signed else value


def _message(fields: dict[int, list[int | bytes]], number: int) -> dict[int, list[int | bytes]]:
    value = fields.get(number, [b""])[-1]
    if not isinstance(value, bytes):
        raise DecodeError(f"field {number}: a number where a message belongs")
    return _fields(value)


def _public_key(fields: dict[int, list[int | bytes]]) -> object:
    """A public key's amino JSON (a key or a multisig), as ``auth/accounts`` writes it."""
    if 3 not in fields:
        return None
    raw = fields[3][-1]
    if not isinstance(raw, bytes):
        raise DecodeError("a public key that is a number")
    try:
        return pubkeys.to_json(pubkeys.from_any(raw))
    except pubkeys.NotAKey as exc:
        raise DecodeError(str(exc)) from None


def account(value: bytes) -> Tm2Account:
    """An account (or a session key's) as the main store holds it at ``/a/…``."""
    outer = _fields(value)
    type_url = _text(outer, 1)
    if type_url not in (ACCOUNT, SESSION):
        raise DecodeError(f"an account of type {type_url!r}")
    inner = _message(outer, 2)
    session = _message(inner, 1) if type_url == SESSION else {}
    base = _message(session if type_url == SESSION else inner, 1)
    paths = inner.get(2, []) if type_url == SESSION else []
    return Tm2Account(
        address=_text(base, 1),
        number=_number(base, 4),
        sequence=_number(base, 5),
        public_key=_public_key(base),
        coins=_text(base, 2),
        expires_at=_number(session, 3, signed=True),
        allow_paths=tuple(p.decode() for p in paths if isinstance(p, bytes)),
        spend_limit=_text(session, 4),
        spend_period=_number(session, 5, signed=True),
        spent=_text(session, 6),
    )


def gas_price(value: bytes) -> tuple[int, int]:
    """The gas price as the store keeps it (``gasPrice``: amino ``std.GasPrice``, its gas
    a signed number, its price a coin's text) as (ugnot, per this much gas), read as the
    node's ``auth/gasprice`` answer is: no ugnot asked is 0, no gas is 1."""
    fields = _fields(value)
    gas = _number(fields, 1, signed=True)
    try:
        amount = parse_coins(_text(fields, 2)).get(UGNOT, 0)
    except BadInput as exc:
        raise DecodeError(f"a price that is not a coin: {exc}") from None
    if gas < 0:
        raise DecodeError("a negative gas")
    return amount, max(gas, 1)


def package(value: bytes) -> tuple[str, dict[str, str]]:
    """A package as the VM keeps it under ``pkg:<path>`` (an amino ``MemPackage``: its
    name, its path, its files, each a name and a body): (its path, its files)."""
    fields = _fields(value)
    files: dict[str, str] = {}
    for item in fields.get(3, []):
        if not isinstance(item, bytes):
            raise DecodeError("field 3: a number where a file belongs")
        file = _fields(item)
        files[_text(file, 1)] = _text(file, 2)
    return _text(fields, 2), files

"""The realm's exported signatures: string arguments in, typed values out.

A ``vm/m_call`` carries every argument as a string. Before the realm runs, gno's
VM keeper parses each one as its parameter's type (``convertArgToGno``); a wrong
count, a name that is not declared or a value that does not parse is refused
here in the VM's own words, so a script sees the same text as on gno.land.
Counts include the ``cur realm`` parameter every crossing function takes first,
as the VM counts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from c4cli.gotext import quote
from c4cli.realm import commitments
from c4cli.realm.accessors import active_json, game_json, leaders_json
from c4cli.realm.connect4 import Realm
from c4cli.realm.memory import CallResult, Context, RealmState

INT = "int"
STRING = "string"
ADDRESS = "address"  # std.Address: any string parses; the realm checks the spelling

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ArgumentError(ValueError):
    """An argument list that cannot be turned into the function's parameters."""


class Params(NamedTuple):
    params: tuple[tuple[str, str], ...]


CALLS: dict[str, Params] = {
    "Offer": Params(
        (("opponent", ADDRESS), ("validFor", INT), ("commitment", STRING), ("maxFee", INT))
    ),
    "Accept": Params((("id", INT), ("seedCommitment", STRING))),
    "Reveal": Params((("id", INT), ("passphrase", STRING))),
    "RevealSeed": Params((("id", INT), ("seed", STRING))),
    "Play": Params((("id", INT), ("column", INT), ("move", INT))),
    "ClaimTimeout": Params((("id", INT),)),
    "Resign": Params((("id", INT),)),
    "Cancel": Params((("id", INT),)),
    "SetFee": Params((("amount", INT),)),
    "WithdrawFees": Params((("to", ADDRESS),)),
    "TransferOwnership": Params((("newOwner", ADDRESS),)),
    "AcceptOwnership": Params(()),
}

READS: dict[str, Params] = {
    "GameJSON": Params((("id", INT),)),
    "ActiveJSON": Params((("offset", INT), ("limit", INT))),
    "LeadersJSON": Params(()),
    "GameRecord": Params((("id", INT),)),
    "BooksRecord": Params(()),
    "LeadersRecord": Params(()),
    "Render": Params((("path", STRING),)),
}

# The order ``vm/qfuncs`` lists the functions in: the package's files by name
# (commit.gno, connect4.gno, json.gno, render.gno), each file's in its order.
LISTED = (
    *("GameRecord", "BooksRecord", "LeadersRecord"),
    *("Offer", "Accept", "Cancel", "Reveal", "RevealSeed", "Play", "ClaimTimeout", "Resign"),
    *("SetFee", "WithdrawFees", "TransferOwnership", "AcceptOwnership"),
    *("GameJSON", "ActiveJSON", "LeadersJSON", "Render"),
)


def parse_args(func: str, signature: Params, args: list[str], *, crossing: bool) -> list[Any]:
    """Typed values for ``args``; ``crossing`` counts the leading ``cur realm`` parameter."""
    if len(args) != len(signature.params):
        extra = 1 if crossing else 0
        raise ArgumentError(
            f"wrong number of arguments in call to {func}: "
            f"want {len(signature.params) + extra} got {len(args) + extra}"
        )
    return [
        parse_int(raw) if kind == INT else raw
        for (_, kind), raw in zip(signature.params, args, strict=True)
    ]


def parse_int(raw: str) -> int:
    """An ``int`` argument as the VM reads it: ``strconv.ParseInt(arg, 10, 64)``, no ``+``.

    >>> parse_int("-7"), parse_int("007"), parse_int("0" * 5000 + "1")
    (-7, 7, 1)
    >>> for bad in ("+6", " 7"):
    ...     try:
    ...         parse_int(bad)
    ...     except ArgumentError as exc:
    ...         print(exc)
    numbers cannot start with +
    error parsing int " 7": strconv.ParseInt: parsing " 7": invalid syntax
    """
    if raw.startswith("+"):
        raise ArgumentError("numbers cannot start with +")
    if _DECIMAL.fullmatch(raw) is None:
        raise ArgumentError(_parse_int_error(raw, "invalid syntax"))
    digits = raw.lstrip("-").lstrip("0") or "0"
    value = int(digits) * (-1 if raw.startswith("-") else 1) if len(digits) <= 19 else None
    if value is None or not _INT64_MIN <= value <= _INT64_MAX:
        raise ArgumentError(_parse_int_error(raw, "value out of range"))
    return value


def _parse_int_error(raw: str, reason: str) -> str:
    return f"error parsing int {quote(raw)}: strconv.ParseInt: parsing {quote(raw)}: {reason}"


_DECIMAL = re.compile("-?[0-9]+")


def call(state: RealmState, ctx: Context, func: str, args: list[str]) -> CallResult:
    """Run one exported function; raises ArgumentError or RealmPanic."""
    signature = CALLS.get(func)
    if signature is None:
        if func in READS:
            raise ArgumentError(
                f"function {func} is non-crossing and cannot be called with MsgCall; "
                "query with vm/qeval or use MsgRun"
            )
        if not func.isidentifier() or not func.isascii():
            raise ArgumentError("func must be a Go identifier")
        raise ArgumentError(f"name {func} not declared")
    values = parse_args(func, signature, args, crossing=True)
    method: Callable[..., CallResult] = getattr(Realm(state), func)
    return method(ctx, *values)


def read(state: RealmState, now: int, func: str, args: list[str]) -> tuple[str, str]:
    """Evaluate a read accessor: (value, Go type)."""
    signature = READS.get(func)
    if signature is None:
        if func in CALLS:
            raise ArgumentError(f"function {func} is crossing: call it in a transaction")
        raise ArgumentError(f"name {func} not declared")
    values = parse_args(func, signature, args, crossing=False)
    if func == "GameJSON":
        return game_json(state, now, values[0]), STRING
    if func == "ActiveJSON":
        return active_json(state, now, values[0], values[1]), STRING
    if func == "LeadersJSON":
        return leaders_json(state), STRING
    if func == "GameRecord":
        game = state.games.get(values[0])
        return _text(b"" if game is None else commitments.game_record(game)), STRING
    if func == "BooksRecord":
        return _text(commitments.books_of(state).encode()), STRING
    if func == "LeadersRecord":
        return _text(commitments.leaders_of(state).encode()), STRING
    from c4cli.realm.render import render  # only pages need it: keep the other calls light

    return render(state, now, values[0]), STRING


def _text(record: bytes) -> str:
    """A record as the realm's string holds it (its bytes, whatever they are)."""
    return record.decode("utf-8", "surrogateescape")

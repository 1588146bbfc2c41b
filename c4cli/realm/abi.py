"""The realm's exported signatures: string arguments in, typed values out.

A ``vm/m_call`` carries every argument as a string. Before the realm runs, each
one is parsed as its parameter's type; a wrong count or a value that does not
parse is refused here, naming the function and the parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from c4cli.realm.connect4 import CallResult, Context, Realm, RealmState
from c4cli.realm.views import active_json, game_json, leaders_json

INT = "int"
STRING = "string"
ADDRESS = "address"  # std.Address: any string parses; the realm checks the spelling

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ArgumentError(ValueError):
    """An argument list that cannot be turned into the function's parameters."""


class Signature(NamedTuple):
    params: tuple[tuple[str, str], ...]
    payable: bool = False


CALLS: dict[str, Signature] = {
    "Offer": Signature(
        (("opponent", ADDRESS), ("validFor", INT), ("commitment", STRING), ("maxFee", INT)),
        payable=True,
    ),
    "Accept": Signature((("id", INT), ("seedCommitment", STRING)), payable=True),
    "Reveal": Signature((("id", INT), ("passphrase", STRING))),
    "RevealSeed": Signature((("id", INT), ("seed", STRING))),
    "Play": Signature((("id", INT), ("column", INT), ("move", INT))),
    "ClaimTimeout": Signature((("id", INT),)),
    "Resign": Signature((("id", INT),)),
    "Cancel": Signature((("id", INT),)),
    "SetFee": Signature((("amount", INT),)),
    "WithdrawFees": Signature((("to", ADDRESS),)),
    "TransferOwnership": Signature((("newOwner", ADDRESS),)),
    "AcceptOwnership": Signature(()),
}

READS: dict[str, Signature] = {
    "GameJSON": Signature((("id", INT),)),
    "ActiveJSON": Signature((("offset", INT), ("limit", INT))),
    "LeadersJSON": Signature(()),
    "Render": Signature((("path", STRING),)),
}


def parse_args(func: str, signature: Signature, args: list[str]) -> list[Any]:
    if len(args) != len(signature.params):
        raise ArgumentError(
            f"{func} takes {len(signature.params)} argument(s) "
            f"({', '.join(name for name, _ in signature.params) or 'none'}), got {len(args)}"
        )
    values: list[Any] = []
    for (name, kind), raw in zip(signature.params, args, strict=True):
        if kind == INT:
            values.append(_parse_int(func, name, raw))
        else:
            values.append(raw)
    return values


def _parse_int(func: str, name: str, raw: str) -> int:
    text = raw.strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or text != raw:
        raise ArgumentError(f"{func}: parameter {name}: {raw!r} is not an int")
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ArgumentError(f"{func}: parameter {name}: {raw!r} is out of range for int")
    return value


def call(state: RealmState, ctx: Context, func: str, args: list[str]) -> CallResult:
    """Run one exported function; raises ArgumentError or RealmPanic."""
    signature = CALLS.get(func)
    if signature is None:
        raise ArgumentError(f"function {func!r} is not an exported transaction of {state.path}")
    values = parse_args(func, signature, args)
    method: Callable[..., CallResult] = getattr(Realm(state), func)
    return method(ctx, *values)


def read(state: RealmState, now: int, func: str, args: list[str]) -> tuple[str, str]:
    """Evaluate a read accessor: (value, Go type)."""
    signature = READS.get(func)
    if signature is None:
        raise ArgumentError(f"function {func!r} is not a read function of {state.path}")
    values = parse_args(func, signature, args)
    if func == "GameJSON":
        return game_json(state, now, values[0]), STRING
    if func == "ActiveJSON":
        return active_json(state, now, values[0], values[1]), STRING
    if func == "LeadersJSON":
        return leaders_json(state), STRING
    from c4cli.realm.render import render  # only pages need it: keep the other calls light

    return render(state, now, values[0]), STRING

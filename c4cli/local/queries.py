"""gno.land's query paths, answered by the local chain.

The same paths and the same data a node's ABCI query gives: ``vm/qeval`` of
``<pkgpath>.<Expr>`` answers the VM's printed value (``("…" string)``,
``(100000 int64)``), ``vm/qrender`` of ``<pkgpath>:<path>`` the markdown,
``bank/balances/<addr>`` the coins as a JSON string and ``auth/accounts/<addr>``
the account's JSON. Answers come from a state in hand
(:class:`~c4cli.local.state_reader.StateReader`, also what a transaction's messages
are built from inside the lock) or, for the common reads, from the checkpoint's
ready answers without loading a state (:func:`from_cache`, here: no realm code).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from c4cli.address import canonical
from c4cli.chain.interface import Answer
from c4cli.errors import BadInput, BadQueryData, PackageNotFound, Refused
from c4cli.gotext import quote
from c4cli.local import sources
from c4cli.realm.jsonfmt import active_envelope, active_page, game_envelope
from c4cli.wire import results
from c4cli.wire.paths import ACCOUNTS, BALANCES, QEVAL, SOURCES

if TYPE_CHECKING:
    from c4cli.local.cache import Cache

_EXPR = re.compile(r"^(?P<func>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<args>.*)\))?$", re.S)

# The realm's package variables a qeval may name, with the type the VM prints.
VARIABLES = {
    "fee": "int64",
    "collected": "int64",
    "owner": ".uverse.address",
    "pendingOwner": ".uverse.address",
}


def split_args(text: str) -> list[str]:
    """The arguments of a qeval expression: integers and Go string literals.

    >>> split_args('1, "a,b", -2')
    ['1', 'a,b', '-2']
    """
    if not text.strip():
        return []
    args: list[str] = []
    for part in _split_top(text):
        part = part.strip()
        if len(part) >= 2 and part[0] == part[-1] == '"':
            try:
                args.append(json.loads(part))
            except ValueError:
                raise BadInput(f"invalid string literal {part}") from None
        elif re.fullmatch(r"-?[0-9]+", part):
            args.append(part)
        else:
            raise BadInput(f'invalid argument {part!r}: use integers or "strings"')
    return args


def _split_top(text: str) -> list[str]:
    parts, current, quoted, escaped = [], "", False, False
    for char in text:
        if quoted:
            current += char
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
            current += char
        elif char == ",":
            parts.append(current)
            current = ""
        else:
            current += char
    if quoted:
        raise BadInput("unterminated string literal")
    parts.append(current)
    return parts


def parse_qeval(data: str, realm_path: str) -> tuple[str, list[str] | None]:
    """``<pkgpath>.<Func>(<args>)`` or ``<pkgpath>.<variable>``: (name, args or None)."""
    path, dot, expr = data.rpartition(".")
    match = _EXPR.match(expr)
    if not dot or match is None:
        raise BadQueryData(data, "<pkgpath>.<Func>(<args>)")
    if path != realm_path:
        raise PackageNotFound(path)
    args = match["args"]
    return match["func"], (None if args is None else split_args(args))


def parse_qrender(data: str, realm_path: str) -> str:
    path, colon, page = data.partition(":")
    if not colon:
        raise BadQueryData(data, "<pkgpath>:<path>")
    if path != realm_path:
        raise PackageNotFound(path)
    return page


def address_in(path: str, prefix: str) -> str:
    found = canonical(path[len(prefix) :])
    if found is None:
        raise BadInput(f"invalid address in {path!r}")
    return found


def variable_answer(name: str, value: object) -> str:
    kind = VARIABLES.get(name)
    if kind is None:
        raise Refused(f"name {name} not declared")
    text = quote(str(value)) if kind.endswith("address") else str(value)
    return f"({text} {kind})"


def _int64(text: str) -> int | None:
    """An argument that is an int64 in decimal, else None (as text: at most 20 chars)."""
    if len(text) > 20 or not text.lstrip("-").isdigit():
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def from_cache(cache: Cache, path: str, data: str) -> Answer | None:
    """The common reads from the checkpoint's ready answers; None for any other query.

    The cache must describe the log as it is (``LocalChain.cached``).
    """
    stamp = cache.stamp
    height, now = int(stamp["height"]), int(stamp["time"])
    if path.startswith(ACCOUNTS) and "/" in path[len(ACCOUNTS) :]:
        return None  # sessions: from the state
    if path.startswith((BALANCES, ACCOUNTS)):
        prefix = BALANCES if path.startswith(BALANCES) else ACCOUNTS
        text = cache.views.account_json(address_in(path, prefix))
        if prefix == ACCOUNTS:
            return Answer(height, "null" if text is None else text)
        held = None if text is None else results.tm2_account(json.loads(text))
        coins = "" if held is None else held.coins
        return Answer(height, json.dumps(coins))
    kind = path.partition("?")[0]  # vm/qpaths?limit=N
    if kind in SOURCES:  # the Gno that ships with c4: no state to load
        source = sources.answer(kind, data, str(stamp["realm_path"]))
        if source is None:
            raise PackageNotFound(data)
        return Answer(height, source)
    if path != QEVAL:
        return None
    name, args = parse_qeval(data, str(stamp["realm_path"]))
    if args is None:
        return Answer(height, variable_answer(name, cache.views.variables().get(name)))
    numbers = [_int64(a) for a in args]
    if None in numbers:
        return None  # the realm's own reading says what is wrong with it
    if name == "GameJSON" and len(args) == 1 and args[0].isdigit():
        value = game_envelope(now, cache.views.game_text(int(args[0])))
    elif name == "ActiveJSON" and len(args) == 2:
        ids = active_page(cache.views.active_ids(), int(args[0]), int(args[1]))
        value = active_envelope(
            now, int(cache.views.variables()["fee"]), cache.views.games_text(ids)
        )
    elif name == "LeadersJSON" and not args:
        value = cache.views.leaders_text()
    else:
        return None
    return Answer(height, f"({quote(value)} string)")

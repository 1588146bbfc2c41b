"""gno.land's query paths answered from a state in hand: the realm's code runs here.

What a transaction's messages are built from inside the lock, and every query the
checkpoint's ready answers do not hold (:func:`c4cli.local.queries.from_cache`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from c4cli.address import canonical
from c4cli.chain.interface import Answer
from c4cli.coins import format_coins
from c4cli.errors import BadInput, NodeOnly, PackageNotFound, Refused
from c4cli.gotext import quote
from c4cli.local import sources
from c4cli.local.queries import (
    address_in,
    parse_qeval,
    parse_qrender,
    variable_answer,
)
from c4cli.realm import abi
from c4cli.wire.paths import (
    ACCOUNTS,
    BALANCES,
    GNOVM_OBJECTS,
    NODE_ONLY,
    QEVAL,
    QFUNCS,
    QRENDER,
    SOURCES,
)

if TYPE_CHECKING:
    from c4cli.local.accounts import Account
    from c4cli.local.state import ChainState


class StateReader:
    """Queries answered from one state in hand, at its height."""

    def __init__(self, state: ChainState) -> None:
        self.state = state

    @property
    def realm_path(self) -> str:
        return self.state.genesis.realm_path

    def next_block_time(self, wall_clock: float) -> int:
        return self.state.next_block_time(wall_clock)

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        state = self.state
        if height and height != state.height:
            raise BadInput(f"this state is at height {state.height}, not {height}")
        if path == QEVAL:
            name, args = parse_qeval(data, self.realm_path)
            if args is None:
                value = state.realm.variables().get(name)
                return Answer(state.height, variable_answer(name, value))
            try:
                value, kind = abi.read(state.realm, state.time, name, args)
            except abi.ArgumentError as exc:
                raise Refused(str(exc)) from None
            return Answer(state.height, f"({quote(value)} {kind})")
        if path == QRENDER:
            page = parse_qrender(data, self.realm_path)
            try:
                value, _ = abi.read(state.realm, state.time, "Render", [page])
            except abi.ArgumentError as exc:
                raise Refused(str(exc)) from None
            return Answer(state.height, value)
        if path == QFUNCS:
            if data != self.realm_path:
                raise PackageNotFound(data)
            return Answer(state.height, functions())
        if path.startswith(BALANCES):
            account = state.account(address_in(path, BALANCES))
            coins = "" if account is None else format_coins(account.coins)
            return Answer(state.height, json.dumps(coins))
        if path.startswith(ACCOUNTS):
            address, _, sub = path[len(ACCOUNTS) :].partition("/")
            account = state.account(address_in(ACCOUNTS + address, ACCOUNTS))
            if sub:
                return Answer(state.height, _sessions(account, sub))
            text = "null" if account is None else json.dumps(account.to_json(), indent=2)
            return Answer(state.height, text)
        kind = path.partition("?")[0]  # vm/qpaths?limit=N
        if kind in SOURCES:
            source = sources.answer(kind, data, self.realm_path)
            if source is None:
                raise PackageNotFound(data)
            return Answer(state.height, source)
        if path in NODE_ONLY:
            raise NodeOnly(
                f"{path} has no meaning on the local chain: it runs the realm's Python "
                "mirror, not the GnoVM, and prices no gas"
            )
        if path in GNOVM_OBJECTS:
            raise NodeOnly(
                f"{path} reads the GnoVM's stored objects, which the local chain does not "
                "keep: it holds the realm's state in its Python mirror (gnoland, as "
                "c4 node start runs it, answers it)"
            )
        raise NodeOnly(f"the local chain does not answer {path!r}: it answers {LOCAL_PATHS}")


LOCAL_PATHS = (
    f"{QEVAL}, {QRENDER}, {QFUNCS}, {', '.join(SOURCES)}, {BALANCES}ADDR, {ACCOUNTS}ADDR and "
    "its sessions"
)


def _sessions(account: Account | None, sub: str) -> str:
    """``auth/accounts/<addr>/sessions`` and ``…/session/<addr>``, in the node's words."""
    if sub == "sessions":
        if account is None or not account.sessions:
            return "null"
        listed = [s.node_json(account.address, typed=True) for s in account.sessions.values()]
        return json.dumps(listed, indent=2)
    kind, _, session_addr = sub.partition("/")
    if kind == "session":
        found = canonical(session_addr)
        if found is None:
            raise Refused(f"invalid session query address {session_addr}")
        session = None if account is None else account.sessions.get(found)
        if session is None or account is None:
            raise Refused("session not found")
        return json.dumps(session.node_json(account.address), indent=2)
    raise Refused(f"unknown account sub-query: {kind}")


def functions() -> str:
    """``vm/qfuncs`` of the realm: its exported functions and their parameters, as the VM
    lists them (a crossing function's first parameter is ``cur realm``)."""

    def named(name: str, kind: str) -> dict[str, str]:
        # The VM prints an address parameter by its underlying type.
        return {"Name": name, "Type": "string" if kind == abi.ADDRESS else kind, "Value": ""}

    listed = []
    for func in abi.LISTED:
        if func in abi.CALLS:
            params = [named("cur", REALM_TYPE)] + [named(n, k) for n, k in abi.CALLS[func].params]
            results = [named(".res.0", "int")] if func == "Offer" else []
        else:
            params = [named(n, k) for n, k in abi.READS[func].params]
            results = [named(".res.0", "string")]
        # Go's encoder writes an empty list of parameters or results as null.
        listed.append({"FuncName": func, "Params": params or None, "Results": results or None})
    return json.dumps(listed, separators=(",", ":"))


# How the VM prints the type of the ``cur realm`` every crossing function takes first.
REALM_TYPE = (
    "interface {.seal func(); Address func() .uverse.address; IsCode func() bool; "
    "IsCurrent func() bool; IsEphemeral func() bool; IsUser func() bool; "
    "IsUserCall func() bool; IsUserRun func() bool; PkgPath func() string; "
    "Previous func() .uverse.realm; String func() string; Sub func(string) .uverse.realm; "
    "Subpath func() string}"
)

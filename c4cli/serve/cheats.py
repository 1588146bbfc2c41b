"""anvil's cheats over `c4 serve`'s RPC, with anvil's meanings, beside c4_snapshot,
c4_revert and c4_advanceTime: the same cheats as `c4 cheat` (each a block of the log,
or the next block's time), and impersonation, which lasts while the server runs.

- ``c4_impersonate`` (address) / ``c4_stopImpersonating`` (address): a transaction
  broadcast with that signer is taken without a valid signature (gnokey's unsigned
  one, or any), on a chain whose genesis allows it (a fork's does), and recorded as
  impersonated (``anvil_impersonateAccount``);
- ``c4_setBalance`` (address, amount): ``anvil_setBalance``;
- ``c4_mine`` (blocks): ``anvil_mine``;
- ``c4_setNextBlockTimestamp`` (time: RFC 3339, or Unix seconds):
  ``evm_setNextBlockTimestamp``;
- ``c4_dumpState`` (): the whole state as a document (``anvil_dumpState``);
- ``c4_loadState`` (state): the chain begun again from one (``anvil_loadState``), the
  log until then kept beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from c4cli.address import canonical
from c4cli.chain.clock import parse_time
from c4cli.coins import parse_amount
from c4cli.errors import BadInput
from c4cli.local.cheats import require_impersonation
from c4cli.wire.blocks import Time

if TYPE_CHECKING:
    from c4cli.serve.methods import Methods

PARAMS: dict[str, tuple[str, ...]] = {
    "c4_impersonate": ("address",),
    "c4_stopImpersonating": ("address",),
    "c4_setBalance": ("address", "amount"),
    "c4_mine": ("blocks",),
    "c4_setNextBlockTimestamp": ("time",),
    "c4_dumpState": (),
    "c4_loadState": ("state",),
}


def _address(params: dict[str, Any]) -> str:
    found = canonical(str(params.get("address") or ""))
    if found is None:
        raise BadInput("address: a g1 address is needed")
    return found


def _number(params: dict[str, Any], name: str) -> int:
    given = params.get(name)
    text = str(given) if isinstance(given, int | str) and not isinstance(given, bool) else ""
    if not (text.isascii() and text.isdigit() and len(text) < 19):
        raise BadInput(f"{name}: a whole number is needed")
    return int(text)


def impersonate(methods: Methods, params: dict[str, Any]) -> Any:
    address = _address(params)
    require_impersonation(methods.chain().state().genesis)
    methods.impersonated.add(address)
    return {"address": address, "impersonating": sorted(methods.impersonated)}


def stop_impersonating(methods: Methods, params: dict[str, Any]) -> Any:
    methods.impersonated.discard(_address(params))
    return {"impersonating": sorted(methods.impersonated)}


def set_balance(methods: Methods, params: dict[str, Any]) -> Any:
    address = _address(params)
    coins = {d: n for d, n in parse_amount(str(params.get("amount") or "")).items() if n}
    head = methods.chain().set_balance(address, coins)
    return {"height": str(head.height), "time": Time(head.time).to_json()}


def mine(methods: Methods, params: dict[str, Any]) -> Any:
    head = methods.chain().mine(_number(params, "blocks"))
    return {"height": str(head.height), "time": Time(head.time).to_json()}


def set_next_time(methods: Methods, params: dict[str, Any]) -> Any:
    given = params.get("time")
    unix = _number(params, "time") if str(given).isdigit() else parse_time(str(given or ""))
    return {"time": Time(methods.chain().set_next_time(unix)).to_json()}


def dump_state(methods: Methods, params: dict[str, Any]) -> Any:
    return json.loads(methods.chain().dump())


def load_state(methods: Methods, params: dict[str, Any]) -> Any:
    state = params.get("state")
    if not isinstance(state, dict):
        raise BadInput("state: the document c4_dumpState gave (a JSON object)")
    head = methods.chain().load(json.dumps(state).encode())
    return {"height": str(head.height), "time": Time(head.time).to_json()}


METHODS: dict[str, Callable[[Methods, dict[str, Any]], Any]] = {
    "c4_impersonate": impersonate,
    "c4_stopImpersonating": stop_impersonating,
    "c4_setBalance": set_balance,
    "c4_mine": mine,
    "c4_setNextBlockTimestamp": set_next_time,
    "c4_dumpState": dump_state,
    "c4_loadState": load_state,
}

"""A home's genesis, by one set of rules for `c4 init`, `c4 node start` and `c4 demo`.

The dev key (``test1``, gno.land's own development mnemonic) is in the home; every
key of the home starts with :data:`PREMINE_UGNOT`, the realm's owner too; balances the
user names (``--premine``) override; an empty balance is none. The local chain
writes the result into its log's genesis; a node of `c4 node start` into its
``genesis.json``.
"""

from __future__ import annotations

import json
import time as wallclock
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from c4cli.chain.clock import check_settable, parse_time
from c4cli.client import connect
from c4cli.coins import UGNOT, format_coins
from c4cli.errors import BadInput
from c4cli.home.keys import DEV_KEY, DEV_MNEMONIC, Keyring, check_name
from c4cli.local import genesis_state
from c4cli.local.genesis import Genesis
from c4cli.local.state import ChainState
from c4cli.wire import crypto

PREMINE_UGNOT = 10_000_000 * 1_000_000  # 10,000,000 GNOT a key

if TYPE_CHECKING:
    from c4cli.chain.controls import LocalControls
    from c4cli.local.genesis_state import StateDocument


def dev_private_key() -> bytes:
    """The dev key's (test1's), which deploys the realm on a node c4 starts."""
    return crypto.derive_private_key(DEV_MNEMONIC)


def with_dev_key(keyring: Keyring) -> str:
    """The dev key's address, the key added to the home first if it is not there."""
    if not keyring.exists(DEV_KEY):
        keyring.add(DEV_KEY, dev_private_key(), "")
    return keyring.resolve(DEV_KEY)


def balances(
    keyring: Keyring,
    *,
    owner: str | None = None,
    given: Sequence[tuple[str, dict[str, int]]] = (),
) -> dict[str, dict[str, int]]:
    """What each account holds at genesis: the owner (an address) and every key of the
    home :data:`PREMINE_UGNOT`, then the balances ``given`` (a key's name or an
    address, and its coins) over those; none that is empty."""
    held: dict[str, dict[str, int]] = {} if owner is None else {owner: {UGNOT: PREMINE_UGNOT}}
    for info in keyring.list():
        held.setdefault(info.address, {UGNOT: PREMINE_UGNOT})
    for target, coins in given:
        held[keyring.resolve(target)] = coins
    return {address: coins for address, coins in held.items() if format_coins(coins)}


def node_balances(keyring: Keyring) -> dict[str, int]:
    """A new gnoland's genesis balances in ugnot: every key of the home, the dev key (who
    deploys the realm) among them."""
    with_dev_key(keyring)
    return {address: coins[UGNOT] for address, coins in balances(keyring).items()}


class Loaded(NamedTuple):
    """A state document `c4 init --load` begins a chain from: its bytes as the home
    keeps them, their sha256, and what the genesis takes from it."""

    data: bytes
    digest: str
    realm_path: str
    owner: str
    time: int
    accounts: frozenset[str]
    chain_id: str  # the chain it was dumped from (a fork's: the node's with -fork)
    impersonation: bool  # whether that chain let an address act without its key


def loaded(data: bytes, source: str) -> Loaded:
    """The state document read from ``source``, checked by loading it into a chain's
    state (BadInput, in one line, when it is not one c4 can begin a chain from)."""
    try:
        document: StateDocument = json.loads(data)  # its shape checked by loading it
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadInput(f"{source} is not JSON: not a state `c4 cheat dump` wrote") from None
    if not isinstance(document, dict) or document.get("c4_state") != genesis_state.FORMAT:
        raise BadInput(f"{source} is not a c4 state document (format {genesis_state.FORMAT})")
    try:
        realm = document["realm"]
        start = parse_time(str(document["time"]))
        shell = Genesis("check", start, "manual", 1, str(realm["path"]), "", ())
        ChainState(shell, "", document)
    except (KeyError, TypeError, ValueError, AttributeError, BadInput) as exc:
        raise BadInput(f"{source} is not a state c4 can begin a chain from: {exc}") from None
    kept = genesis_state.encoded(document)
    return Loaded(
        kept,
        genesis_state.digest(kept),
        str(realm["path"]),
        str(realm["owner"]),
        start,
        frozenset(str(account["address"]) for account in document["accounts"]),
        str(document.get("chain_id") or ""),
        document.get("impersonation") is True or isinstance(document.get("origin"), dict),
    )


def beside(
    begun: Loaded, held: dict[str, dict[str, int]], named: list[str]
) -> dict[str, dict[str, int]]:
    """The genesis balances of a chain that begins from ``begun``: the home's keys it
    does not hold (an account it holds keeps the state's coins); a balance the user
    names (``named``) for one it holds is refused."""
    for address in named:
        if address in begun.accounts:
            raise BadInput(
                f"the state loaded holds {address}, with its coins: a genesis balance for it "
                "is not set (`c4 cheat set-balance` changes its coins)"
            )
    return {address: coins for address, coins in held.items() if address not in begun.accounts}


class LocalPlan(NamedTuple):
    """A local chain to make, as its command parsed it: its chain id (and whether the
    user chose it), its start (None: now, or the loaded state's), clock and block
    interval, the realm's path and owner (a key's name or an address), the genesis
    balances named, the state it begins from (``begun``; ``forked``: a fork of a node's
    realm), and whether an address may act without its key. Its command has checked
    what the user named (the realm's path, a state with no --realm-path or --deployer
    beside it)."""

    chain_id: str
    chain_id_given: bool
    start: int | None
    clock: str
    interval: int
    realm_path: str
    deployer: str
    premine: list[tuple[str, dict[str, int]]]
    begun: Loaded | None
    forked: bool
    impersonation: bool


class Made(NamedTuple):
    """A local chain just made: the chain, its genesis, the realm's owner, and who holds
    what."""

    chain: LocalControls
    genesis: Genesis
    owner: str
    balances: dict[str, dict[str, int]]


def make_local(home: Path, plan: LocalPlan, *, force: bool) -> Made:
    """The local chain ``plan`` describes, made in ``home`` (the dev key added to its
    keys when it owns the realm). The plan is checked before anything is touched: a bad
    one leaves the home as it was (its binding, its journal)."""
    begun, realm_path, chain_id, start = plan.begun, plan.realm_path, plan.chain_id, plan.start
    impersonation = plan.impersonation or plan.forked
    if begun is not None:
        realm_path = begun.realm_path
        if not plan.forked and not plan.chain_id_given and begun.chain_id:
            chain_id = begun.chain_id  # a dump (a fork's too) stays its chain's
        impersonation = impersonation or begun.impersonation
        start = begun.time if start is None else start
    start = int(wallclock.time()) if start is None else start
    check_settable(start)
    chain = connect.new_local_chain(home, force=force)  # before the dev key is created
    keyring = Keyring(home)
    if plan.deployer == DEV_KEY:
        with_dev_key(keyring)
    deployer = plan.deployer
    owner = keyring.resolve(check_name(deployer) if keyring.exists(deployer) else deployer)
    held = balances(keyring, owner=owner, given=plan.premine)
    if begun is not None:
        owner = begun.owner
        held = beside(begun, held, [keyring.resolve(t) for t, _ in plan.premine])
    made = Genesis(
        chain_id=chain_id,
        time=start,
        clock=plan.clock,
        block_interval=plan.interval,
        realm_path=realm_path,
        deployer=owner,
        balances=tuple((address, format_coins(coins)) for address, coins in held.items()),
        impersonation=impersonation,
    )
    if begun is None:
        chain.init(made, force=force)
    else:
        chain.init(made._replace(state=begun.digest), force=force, begun=begun.data)
    return Made(chain, made, owner, held)

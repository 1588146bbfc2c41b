"""A chain's state as the document `c4 cheat dump` writes and `c4 init --load` begins
a chain from (the format, and what a home does with its bytes, in
:mod:`c4cli.local.genesis_state`): made from a state, and made a state again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from c4cli.address import is_address
from c4cli.chain.clock import format_time
from c4cli.local import state_bounds
from c4cli.local.accounts import Account, coins_from_json
from c4cli.local.genesis_state import FORMAT
from c4cli.realm.memory import Game, RealmState

if TYPE_CHECKING:
    from c4cli.local.genesis_state import RealmRecord, StateDocument
    from c4cli.local.state import ChainState


def dumped(state: ChainState) -> StateDocument:
    """``state`` as a document. Its realm must hold every game and commitment in
    memory: a state replayed from the log, never one read back from the cache."""
    return {
        "c4_state": FORMAT,
        "chain_id": state.genesis.chain_id,
        "impersonation": state.genesis.impersonation,
        "height": state.height,
        "time": format_time(state.time),
        "account_numbers": state.account_numbers,
        "gas_collected": state.gas_collected,
        "accounts": [account.snapshot() for account in state.accounts.values()],
        "realm": realm_record(state.realm),
    }


def realm_record(realm: RealmState) -> RealmRecord:
    """The realm's part of a document: every game and commitment (all in memory)."""
    return {
        **realm.base_record(),
        "games": [game.to_record() for game in realm.games.values()],
        "commitments": sorted(list(pair) for pair in realm.used_commitments.recent()),
    }


def load_into(state: ChainState, document: StateDocument) -> None:
    """Make ``state`` (a chain at its genesis, holding nothing yet) the document's."""
    accounts = [Account.restore(record) for record in document["accounts"]]
    numbers = int(document["account_numbers"])
    taken = [a.number for a in accounts] + [s.number for a in accounts for s in a.sessions.values()]
    if len(set(taken)) != len(taken) or any(not 0 <= n < numbers for n in taken):
        raise ValueError("its account numbers are not each one below account_numbers")
    for account in accounts:
        if not is_address(account.address) or account.address in state.accounts:
            raise ValueError(f"account {account.address!r} is not an address, or listed twice")
        if any(amount <= 0 for amount in account.coins.values()):
            raise ValueError(f"account {account.address} holds a coin that is not positive")
        state.accounts[account.address] = account
        state.dirty_accounts.add(account.address)
    state.account_numbers = numbers
    state.gas_collected = coins_from_json(document["gas_collected"])
    state.realm = _realm(document["realm"], state.genesis.realm_path)
    # Held to what the realm and tm2 could have made, before anything of it is kept.
    state_bounds.check_accounts(accounts)
    state_bounds.coins(state.gas_collected, "the gas collected")
    state_bounds.check_realm(state.realm, {a.address: a.coins for a in accounts})
    state.dirty_games.update(range(1, len(state.realm.games) + 1))


def _realm(record: RealmRecord, path: str) -> RealmState:
    if record["path"] != path:
        raise ValueError(f"its realm is {record['path']!r}, not {path!r}")
    realm = RealmState.from_base(record)
    for number, raw in enumerate(record["games"], 1):
        game = Game.from_record(raw)
        if game.id != number:
            raise ValueError(f"game {game.id} is listed where game {number} belongs")
        realm.games.add(game)
    if set(realm.active) != {game.id for game in realm.games.live()}:
        raise ValueError("its active list is not its open and live games")
    for address, commitment in record["commitments"]:
        realm.used_commitments.add((str(address), str(commitment)))
    return realm

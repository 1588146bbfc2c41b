"""The chain's state and the one function that changes it: executing a block.

Accounts, the bank's coins and sessions are in :mod:`c4cli.local.accounts`;
genesis and the block records in :mod:`c4cli.local.blocks`. Here: the state at
one height, the checks a transaction passes before it runs (the ante checks:
signature, sequence, session rights, funds) and running its messages.

State is derived, never authoritative: it is what you get by folding the blocks
of the log, from genesis, through :meth:`ChainState.apply_block`. A new
transaction goes through exactly the same code before it is appended, so replay
can never disagree with what was reported when the transaction was sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from c4cli.address import is_address, package_address
from c4cli.chain.clock import parse_time
from c4cli.coins import MAX_AMOUNT, UGNOT, Coins, parse_coins
from c4cli.errors import BadInput, HomeDamaged, Refused
from c4cli.local import state_document
from c4cli.local.accounts import (
    Account,
    coins_from_json,
    require_funds,
)
from c4cli.local.blocks import BlockContext, tx_entry
from c4cli.local.execute import Executor, TxResult
from c4cli.local.genesis import Genesis, block_hash
from c4cli.local.log import BlockRecord, TxEntry
from c4cli.realm.memory import RealmState, Store
from c4cli.wire.std import Tx

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    from c4cli.coins import Coins
    from c4cli.local.accounts import AccountRecord
    from c4cli.local.genesis_state import StateDocument
    from c4cli.realm.memory import RealmSnapshot

    class ChainSnapshot(TypedDict):
        """A state as the cache keeps it (:meth:`ChainState.snapshot`)."""

        height: int
        time: int
        last_hash: str
        clock_offset: int
        account_numbers: int
        gas_collected: Coins
        begun_txs: NotRequired[int]  # a cache kept before `c4 init --load` had none
        accounts: list[AccountRecord]
        realm: RealmSnapshot


class ChainState:
    """Accounts, balances and the realm at one height."""

    def __init__(
        self, genesis: Genesis, genesis_hash: str, begun: StateDocument | None = None
    ) -> None:
        self.genesis = genesis
        self.height = 0
        self.time = genesis.time
        self.last_hash = genesis_hash
        self.clock_offset = 0
        self.accounts: dict[str, Account] = {}
        self.account_numbers = 0  # handed out so far, to accounts and sessions alike
        self.gas_collected: Coins = {}
        self.realm_address = package_address(genesis.realm_path)
        self.realm = RealmState(path=genesis.realm_path, owner=genesis.deployer)
        # What changed since the cache last saw this state: it rewrites only these.
        self.dirty_accounts: set[str] = set()
        self.dirty_games: set[int] = set()
        self.pinned_time = 0  # the next block's time, when `c4 cheat next-time` set it
        self.begun_txs = 0  # the transactions of the state it began from (c4 init --load)

        if begun is not None:  # the state it begins from (c4 init --load): checked already
            state_document.load_into(self, begun)
            self.begun_txs = self.transactions()
        try:
            check_supply(genesis.balances, self.total_supply())
        except BadInput as exc:
            raise HomeDamaged(f"genesis (height 0) has bad balances: {exc}") from None
        for address, coins in genesis.balances:
            self.credit(address, parse_coins(coins))

    def transactions(self) -> int:
        """How many transactions the chain holds: every account's and session's sequence,
        less those of the state it began from (made on another chain)."""
        return (
            sum(
                account.sequence + sum(session.sequence for session in account.sessions.values())
                for account in self.accounts.values()
            )
            - self.begun_txs
        )

    # -- checkpoints ------------------------------------------------------------

    def snapshot(self) -> ChainSnapshot:
        """The state as plain JSON values: what a checkpoint saves (see ChainState.restore).

        The realm's settled games and used commitments are not in it: the
        checkpoint keeps them as rows of their own and hands them back as the
        realm's store.
        """
        return {
            "height": self.height,
            "time": self.time,
            "last_hash": self.last_hash,
            "clock_offset": self.clock_offset,
            "account_numbers": self.account_numbers,
            "gas_collected": self.gas_collected,
            "begun_txs": self.begun_txs,
            "accounts": [account.snapshot() for account in self.accounts.values()],
            "realm": self.realm.snapshot(),
        }

    @classmethod
    def restore(cls, genesis: Genesis, snapshot: ChainSnapshot, store: Store) -> ChainState:
        """The state a :meth:`snapshot` describes, on the chain that ``genesis`` starts."""
        state = cls.__new__(cls)
        state.genesis = genesis
        state.height = int(snapshot["height"])
        state.time = int(snapshot["time"])
        state.last_hash = str(snapshot["last_hash"])
        state.clock_offset = int(snapshot["clock_offset"])
        state.account_numbers = int(snapshot["account_numbers"])
        state.gas_collected = coins_from_json(snapshot["gas_collected"])
        state.accounts = {}
        for record in snapshot["accounts"]:
            account = Account.restore(record)
            state.accounts[account.address] = account
        state.realm_address = package_address(genesis.realm_path)
        state.realm = RealmState.restore(snapshot["realm"], store)
        state.dirty_accounts = set()
        state.dirty_games = set()
        state.pinned_time = 0
        state.begun_txs = int(snapshot.get("begun_txs", 0))
        return state

    # -- accounts and bank ------------------------------------------------------

    def account(self, address: str) -> Account | None:
        return self.accounts.get(address)

    def balance(self, address: str, denom: str = UGNOT) -> int:
        account = self.accounts.get(address)
        return 0 if account is None else account.coins.get(denom, 0)

    def credit(self, address: str, coins: Coins) -> None:
        account = self.accounts.get(address)
        # gno.land's bank sums every new balance before writing any, and refuses a
        # balance past int64 (tm2 sdk/bank AddCoins): in its words, all or nothing.
        for denom, amount in coins.items():
            old = 0 if account is None else account.coins.get(denom, 0)
            if old + amount > MAX_AMOUNT:
                raise Refused(f"coin add overflow: {old}{denom} + {amount}{denom}")
        self.dirty_accounts.add(address)
        if account is None:
            # An account exists once it holds coins; numbers count up in creation order.
            account = self.accounts[address] = Account(address, self.next_account_number())
        for denom, amount in coins.items():
            if amount:
                account.coins[denom] = account.coins.get(denom, 0) + amount

    def next_account_number(self) -> int:
        number = self.account_numbers
        self.account_numbers += 1
        return number

    def debit(self, address: str, coins: Coins) -> None:
        self.dirty_accounts.add(address)
        account = self.accounts.get(address)
        have = {} if account is None else account.coins
        require_funds(address, have, coins)
        assert account is not None or not any(coins.values())
        if account is not None:
            for denom, amount in coins.items():
                if not amount:
                    continue
                account.coins[denom] -= amount
                if not account.coins[denom]:
                    del account.coins[denom]

    def _set_balance(self, where: str, entry: dict[str, str]) -> None:
        """A block's ``set_balances`` entry (`c4 cheat set-balance`): the account's coins
        are exactly these; an account it names is made, as a coin received makes one."""
        try:
            address, coins = str(entry["address"]), parse_coins(str(entry["amount"]))
        except (KeyError, TypeError, BadInput):
            raise HomeDamaged(f"{where} sets a balance that is not one") from None
        if not is_address(address):
            raise HomeDamaged(f"{where} sets the balance of {address!r}, not an address")
        account = self.accounts.get(address)
        held = {} if account is None else account.coins
        supply = self.total_supply()
        for denom, amount in coins.items():
            if supply.get(denom, 0) - held.get(denom, 0) + amount > MAX_AMOUNT:
                raise Refused(f'cannot compute supply: balances of "{denom}" sum past int64')
        if account is None:
            self.credit(address, coins)
        else:
            self.dirty_accounts.add(address)
            account.coins = {denom: amount for denom, amount in coins.items() if amount}

    def total_supply(self) -> Coins:
        total: Coins = dict(self.gas_collected)
        for account in self.accounts.values():
            for denom, amount in account.coins.items():
                total[denom] = total.get(denom, 0) + amount
        return total

    # -- blocks -----------------------------------------------------------------

    def wall_time(self, wall_clock: float) -> int:
        """A wall-clock chain's time now: this machine's clock, moved on by every
        `c4 time advance` (a manual clock has no wall time)."""
        return int(wall_clock) + self.clock_offset

    def next_block_time(self, wall_clock: float) -> int:
        """The time of the next transaction block: recorded, never recomputed on replay
        (`c4 cheat next-time`'s, when it set one after the last block)."""
        if self.pinned_time > self.time:
            return self.pinned_time
        if self.genesis.clock == "manual":
            return self.time + self.genesis.block_interval
        return max(self.wall_time(wall_clock), self.time + 1)

    def apply_block(
        self, block: BlockRecord, *, new: bool = False, verified: bool = False
    ) -> list[TxResult]:
        """Check a block against the chain so far and execute it.

        A block from the log that does not fit raises HomeDamaged naming its
        height; a ``new`` block (about to be appended) lets a refusal through as
        it is, for the sender to see the chain's or the realm's own words.
        ``verified`` says the block's own hash, every TX HASH and every
        signature in it were already checked (by `c4 verify`'s workers, on these
        same bytes); every other check still runs here, in order.
        """
        try:
            height = int(block["height"])
            time = parse_time(str(block["time"]))
            txs = block.get("txs", [])
            advance = int(block.get("advance", 0))
        except (KeyError, TypeError, ValueError, BadInput):
            raise HomeDamaged(f"block {self.height + 1} is malformed") from None
        where = "block " + str(self.height + 1)
        if height != self.height + 1:
            raise HomeDamaged(f"{where} is recorded as height {height}: the log was altered")
        if not verified and block.get("hash") != block_hash(block):
            raise HomeDamaged(f"{where} does not match its hash: the log was altered")
        if block.get("prev_hash") != self.last_hash:
            raise HomeDamaged(
                f"{where} does not link to block {self.height}: the hash chain is broken"
            )
        if time <= self.time:
            raise HomeDamaged(f"{where} is not later than block {self.height}")
        if not isinstance(txs, list) or advance < 0:
            raise HomeDamaged(f"{where} is malformed")
        for setting in block.get("set_balances", []):
            try:
                self._set_balance(where, setting)
            except Refused:
                if new:
                    raise
                raise HomeDamaged(f"{where} sets a balance past int64") from None
        results = []
        for index, entry in enumerate(txs):
            try:
                result = Executor(self).execute(
                    Tx.from_json(entry["tx"]),
                    BlockContext(height, time),
                    account_number=int(entry["account_number"]),
                    sequence=int(entry["sequence"]),
                    signature_checked=verified,
                    # A new entry's hash was just computed from this tx (tx_entry).
                    known_hash=str(entry.get("hash")) if verified or new else None,
                    impersonated=entry.get("impersonated") is True,
                )
            except (Refused, BadInput) as exc:
                if new:
                    raise
                raise HomeDamaged(f"{where}, transaction {index + 1} fails: {exc}") from None
            except (KeyError, TypeError, ValueError):
                raise HomeDamaged(f"{where}, transaction {index + 1} is malformed") from None
            if not (verified or new) and entry.get("hash") != result.hash:
                raise HomeDamaged(
                    f"{where}, transaction {index + 1} does not match its TX HASH: "
                    "the log was altered"
                )
            results.append(result)
        self.height = height
        self.time = time
        self.last_hash = str(block["hash"])
        if self.genesis.clock == "wall":
            self.clock_offset += advance
        return results

    # -- transactions -----------------------------------------------------------

    def signing_account(self, tx: Tx) -> Account:
        """The account whose number and sequence a transaction must be signed for."""
        return Executor(self).signing_account(tx)

    def signing_numbers(self, tx: Tx) -> tuple[int, int]:
        """The account number and sequence ``tx`` must be signed for: its signer's, or
        those of the session its signature names."""
        account = self.signing_account(tx)
        if tx.signatures:
            session = account.sessions.get(str(tx.signature.session_addr))
            if session is not None:
                return session.number, session.sequence
        return account.number, account.sequence

    def admit(self, tx: Tx, context: BlockContext, *, impersonated: bool = False) -> TxEntry:
        """Run one transaction of a block being built, on this state: its entry, or
        Refused with the state as it was."""
        number, sequence = self.signing_numbers(tx)
        Executor(self).execute(
            tx, context, account_number=number, sequence=sequence, impersonated=impersonated
        )
        return tx_entry(tx, number, sequence, impersonated=impersonated)


def check_supply(balances: tuple[tuple[str, str], ...], held: Coins | None = None) -> None:
    """Refuse genesis balances gno.land refuses: not coins, or a denomination whose
    total (with what the state it begins from ``held``) does not fit in int64
    (gnoland v1.7.1 will not start on such a genesis, in these words, so no balance
    or pot can ever pass int64 on a chain that runs)."""
    totals: dict[str, int] = dict(held or {})
    for _, coins in balances:
        for denom, amount in parse_coins(coins).items():
            totals[denom] = totals.get(denom, 0) + amount
    for denom, total in sorted(totals.items()):
        if total > MAX_AMOUNT:
            raise BadInput(f'cannot compute supply: balances of "{denom}" sum past int64')

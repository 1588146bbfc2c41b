"""The chain's state and the one function that changes it: executing a block.

Accounts, the bank's coins and sessions are in :mod:`c4cli.chain.accounts`;
genesis and the block records in :mod:`c4cli.chain.blocks`. Here: the state at
one height, the checks a transaction passes before it runs (the ante checks:
signature, sequence, session rights, funds) and running its messages.

State is derived, never authoritative: it is what you get by folding the blocks
of the log, from genesis, through :meth:`ChainState.apply_block`. A new
transaction goes through exactly the same code before it is appended, so replay
can never disagree with what was reported when the transaction was sent.
"""

from __future__ import annotations

import base64
import contextlib
import copy
from typing import Any, NamedTuple

from c4cli.address import canonical, package_address
from c4cli.chain import crypto
from c4cli.chain.accounts import (
    Account,
    Session,
    coins_from_json,
    require_funds,
    session_not_found,
    unknown_account,
)
from c4cli.chain.amino import EncodeError
from c4cli.chain.blocks import BlockContext, Genesis, block_hash
from c4cli.chain.clock import parse_time
from c4cli.chain.interface import TxOutcome
from c4cli.chain.tx import (
    AUTH_MSGS,
    MSG_CALL,
    MSG_CREATE_SESSION,
    MSG_REVOKE_ALL_SESSIONS,
    MSG_REVOKE_SESSION,
    MSG_SEND,
    SIG_FAILED,
    Tx,
    msg_signer,
    signature_error,
    tx_hash,
)
from c4cli.coins import MAX_AMOUNT, UGNOT, Coins, format_coins, parse_coins
from c4cli.errors import BadInput, HomeDamaged, Refused
from c4cli.realm import abi, rules
from c4cli.realm.connect4 import Context, RealmPanic, RealmState, Store
from c4cli.records import Record

MAX_MEMO = 65536
MAX_ALLOW_PATHS = 8


class Delivery(NamedTuple):
    """One transaction on its way through: its block, who signed, and what it did so far."""

    block: BlockContext
    signer: str
    session: str | None  # the session key's address, when one signed
    result: TxResult


class TxResult(Record):
    """What one executed transaction did: for receipts, ``c4 tx`` and ``--json``."""

    __slots__ = ("data", "funcs", "game_id", "hash", "signer", "transfers", "tx", "values")

    def __init__(self, tx: Tx, signer: str, known_hash: str | None = None) -> None:
        self.tx = tx
        # A replay whose workers already checked the recorded hash passes it in.
        self.hash = tx_hash(tx) if known_hash is None else known_hash
        self.signer = signer
        self.funcs: list[str] = []
        self.values: list[tuple[str, str]] = []
        # The deliver result's data, as gno.land's VM writes it: each call's
        # results as "(value type)" lines, then "\n\n" after every call.
        self.data = ""
        self.transfers: list[tuple[str, int]] = []
        self.game_id: int | None = None

    def delivered(self) -> TxOutcome:
        """What a receipt reports of it (the interface's value, frozen)."""
        return TxOutcome(
            tx=self.tx,
            hash=self.hash,
            signer=self.signer,
            funcs=tuple(self.funcs),
            values=tuple(self.values),
            data=self.data,
            transfers=tuple(self.transfers),
        )

    def outcome(self) -> dict[str, Any]:
        """What the transaction did, as JSON: kept by the cache for `c4 log` and `c4 tx`,
        and, for a call about a game, its arguments (a game's history is read from them)."""
        outcome: dict[str, Any] = {
            "signer": self.signer,
            "func": ",".join(self.funcs),
            "result": [value for value, _ in self.values],
            "transfers": [{"to": to, "amount": f"{a}ugnot"} for to, a in self.transfers],
        }
        if self.game_id is not None:
            outcome["args"] = [list(msg.get("args") or []) for msg in self.tx["msg"]]
        return outcome


class ChainState:
    """Accounts, balances and the realm at one height."""

    def __init__(self, genesis: Genesis, genesis_hash: str) -> None:
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

        try:
            check_supply(genesis.balances)
        except BadInput as exc:
            raise HomeDamaged(f"genesis (height 0) has bad balances: {exc}") from None
        for address, coins in genesis.balances:
            self._credit(address, parse_coins(coins))

    def transactions(self) -> int:
        """How many transactions the chain holds: every account's and session's sequence."""
        return sum(
            account.sequence + sum(session.sequence for session in account.sessions.values())
            for account in self.accounts.values()
        )

    # -- checkpoints ------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
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
            "accounts": [account.snapshot() for account in self.accounts.values()],
            "realm": self.realm.snapshot(),
        }

    @classmethod
    def restore(cls, genesis: Genesis, snapshot: dict[str, Any], store: Store) -> ChainState:
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
        return state

    # -- accounts and bank ------------------------------------------------------

    def account(self, address: str) -> Account | None:
        return self.accounts.get(address)

    def balance(self, address: str, denom: str = UGNOT) -> int:
        account = self.accounts.get(address)
        return 0 if account is None else account.coins.get(denom, 0)

    def _credit(self, address: str, coins: Coins) -> None:
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

    def _debit(self, address: str, coins: Coins) -> None:
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

    def total_supply(self) -> Coins:
        total: Coins = dict(self.gas_collected)
        for account in self.accounts.values():
            for denom, amount in account.coins.items():
                total[denom] = total.get(denom, 0) + amount
        return total

    # -- blocks -----------------------------------------------------------------

    def next_block_time(self, wall_clock: float) -> int:
        """The time of the next transaction block: recorded, never recomputed on replay."""
        if self.genesis.clock == "manual":
            return self.time + self.genesis.block_interval
        return max(int(wall_clock) + self.clock_offset, self.time + 1)

    def apply_block(
        self, block: dict[str, Any], *, new: bool = False, verified: bool = False
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
        results = []
        for index, entry in enumerate(txs):
            try:
                result = self.execute(
                    entry["tx"],
                    BlockContext(height, time),
                    account_number=int(entry["account_number"]),
                    sequence=int(entry["sequence"]),
                    signature_checked=verified,
                    # A new entry's hash was just computed from this tx (tx_entry).
                    known_hash=str(entry.get("hash")) if verified or new else None,
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
        msgs = tx.get("msg")
        if not isinstance(msgs, list) or not msgs:
            raise Refused("invalid transaction: no messages")
        signer = msg_signer(msgs[0])
        account = self.accounts.get(signer)
        if account is None:
            raise unknown_account(signer)
        return account

    def execute(
        self,
        tx: Tx,
        block: BlockContext,
        *,
        account_number: int,
        sequence: int,
        signature_checked: bool = False,
        known_hash: str | None = None,
    ) -> TxResult:
        """Verify and run one transaction, all or nothing: Refused leaves the state untouched."""
        checked = self._verify(tx, account_number, sequence, block.time, signature_checked)
        signer = checked.signer
        # Every message checks before it moves a coin, and _verify has checked the
        # signer can pay the fee and every send, so a one-message transaction
        # never fails half-done. Several messages are atomic through a snapshot.
        msgs = tx["msg"]
        snapshot = (
            copy.deepcopy((self.accounts, self.realm, self.gas_collected))
            if len(msgs) > 1
            else None
        )
        try:
            result = TxResult(tx, signer, known_hash)
        except EncodeError as exc:
            raise Refused(f"invalid transaction: {exc}") from None
        try:
            self._debit(signer, checked.fee)
            for denom, amount in checked.fee.items():
                self.gas_collected[denom] = self.gas_collected.get(denom, 0) + amount
            delivery = Delivery(block, signer, checked.session, result)
            for msg in msgs:
                self._run_msg(msg, delivery)
        except Refused:
            if snapshot is None:
                raise
            self.accounts, self.realm, self.gas_collected = snapshot
            raise
        account = self.accounts[signer]
        self.dirty_accounts.add(signer)
        if result.game_id is not None:
            self.dirty_games.add(result.game_id)
        if checked.session is not None:
            session = account.sessions[checked.session]
            session.sequence += 1
            if checked.new_period:
                session.spent, session.period_start = {}, block.time
            for denom, amount in checked.spend.items():
                session.spent[denom] = session.spent.get(denom, 0) + amount
        else:
            account.sequence += 1
            account.pub_key = checked.pub_key
        return result

    def _verify(
        self, tx: Tx, account_number: int, sequence: int, time: int, signature_checked: bool
    ) -> Verified:
        msgs = tx.get("msg")
        fee = tx.get("fee")
        sigs = tx.get("signatures")
        memo = tx.get("memo", "")
        if not isinstance(msgs, list) or not msgs or not all(isinstance(m, dict) for m in msgs):
            raise Refused("invalid transaction: no messages")
        if not isinstance(fee, dict) or not isinstance(memo, str) or len(memo) > MAX_MEMO:
            raise Refused("invalid transaction: bad fee or memo")
        try:
            signers = {msg_signer(m) for m in msgs}
        except ValueError as exc:
            raise Refused(f"invalid transaction: {exc}") from None
        if len(signers) != 1:
            raise Refused("invalid transaction: every message must have the same signer")
        if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], dict):
            raise Refused("invalid transaction: wrong number of signatures")
        signer = signers.pop()
        account = self.accounts.get(signer)
        if account is None:
            raise unknown_account(signer)
        try:
            pub_key = base64.b64decode(sigs[0]["pub_key"]["value"], validate=True)
            fee_coins = parse_coins(str(fee["gas_fee"]))
            int(str(fee["gas_wanted"]))
            session_addr = str(sigs[0].get("session_addr") or "")
        except (KeyError, TypeError, ValueError, BadInput) as exc:
            raise Refused(f"invalid transaction: {exc}") from None
        sends = fee_coins.copy()
        for msg in msgs:
            for denom, amount in _msg_coins(msg).items():
                sends[denom] = sends.get(denom, 0) + amount
        new_period = False
        if session_addr:
            session, new_period = self._session_for(account, session_addr, msgs, sends, time)
            key_address, number, expected = session.address, session.number, session.sequence
        else:
            key_address, number, expected = signer, account.number, account.sequence
        if number != account_number or expected != sequence:
            raise Refused(SIG_FAILED)
        # c4 verify's workers already checked the key and the signature of these bytes.
        if not signature_checked:
            try:
                problem = signature_error(
                    tx,
                    chain_id=self.genesis.chain_id,
                    account_number=number,
                    sequence=sequence,
                    key_address=key_address,
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise Refused(f"invalid transaction: {exc}") from None
            if problem is not None:
                raise Refused(problem)
        require_funds(signer, account.coins, sends)
        return Verified(signer, pub_key, fee_coins, session_addr or None, sends, new_period)

    def _session_for(
        self, account: Account, session_addr: str, msgs: list[Any], spend: Coins, time: int
    ) -> tuple[Session, bool]:
        """The session a tx names (and whether a new spend period starts), or a refusal."""
        session = account.sessions.get(session_addr)
        if session is None:
            raise session_not_found(session_addr, account.address)
        if session.expires_at and time >= session.expires_at:
            raise Refused(f"session {session_addr} has expired")
        for msg in msgs:
            kind = msg.get("@type")
            if kind in AUTH_MSGS:
                raise Refused("a session key cannot send auth messages")
            path = f"vm/exec:{msg.get('pkg_path')}" if kind == MSG_CALL else "bank/send"
            if not session.allows(path):
                raise Refused(f"session {session_addr} is not allowed to use {path}")
        spent = session.spent
        if session.spend_period and time >= session.period_start + session.spend_period:
            spent = {}  # a new period: checked here, reset when the tx lands
        for denom, amount in spend.items():
            if amount and spent.get(denom, 0) + amount > session.spend_limit.get(denom, 0):
                raise Refused(
                    f"session {session_addr} spend limit exceeded: "
                    f"{format_coins(session.spend_limit) or 'nothing'} allowed"
                )
        return session, spent is not session.spent

    def _run_msg(self, msg: dict[str, Any], delivery: Delivery) -> None:
        signer, result = delivery.signer, delivery.result
        kind = msg.get("@type")
        if kind == MSG_SEND:
            to = canonical(str(msg.get("to_address", "")))
            if to is None:
                raise Refused(f"invalid address {msg.get('to_address')!r}")
            coins = _msg_coins(msg)
            self._debit(signer, coins)
            self._credit(to, coins)
            result.funcs.append("send")
            result.transfers.append((to, coins.get(UGNOT, 0)))
        elif kind == MSG_CALL:
            self._run_call(msg, delivery)
        elif kind == MSG_CREATE_SESSION:
            self._create_session(msg, signer, delivery.block.time)
            result.funcs.append("create_session")
        elif kind == MSG_REVOKE_SESSION:
            session_addr = crypto.address_of(_session_key(msg))
            if self.accounts[signer].sessions.pop(session_addr, None) is None:
                raise session_not_found(session_addr, signer)
            result.funcs.append("revoke_session")
        elif kind == MSG_REVOKE_ALL_SESSIONS:
            self.accounts[signer].sessions.clear()
            result.funcs.append("revoke_all_sessions")
        else:
            raise Refused(f"unknown message type {kind!r}")

    def _run_call(self, msg: dict[str, Any], delivery: Delivery) -> None:
        signer, result = delivery.signer, delivery.result
        pkg_path = msg.get("pkg_path")
        func = msg.get("func")
        args = msg.get("args", [])
        if pkg_path != self.genesis.realm_path:
            raise Refused(f"package not found: {pkg_path}")
        if not isinstance(func, str) or not isinstance(args, list):
            raise Refused("invalid transaction: bad func or args")
        if not all(isinstance(a, str) for a in args):
            raise Refused("invalid transaction: every argument must be a string")
        sent = _msg_coins(msg)
        ctx = Context(
            caller=signer,
            send=sent,
            now=delivery.block.time,
            height=delivery.block.height,
            realm_address=self.realm_address,
            session=delivery.session is not None,
        )
        # The realm runs first: it is pure, so a panic leaves nothing to undo.
        try:
            call = abi.call(self.realm, ctx, func, args)
        except (RealmPanic, abi.ArgumentError) as exc:
            raise Refused(str(exc)) from None
        self._debit(signer, sent)
        self._credit(self.realm_address, sent)
        for to, amount in call.transfers:
            self._debit(self.realm_address, {UGNOT: amount})
            self._credit(to, {UGNOT: amount})
        result.funcs.append(func)
        result.values.extend(call.values)
        result.data += "\n".join(f"({value} {kind})" for value, kind in call.values) + "\n\n"
        result.transfers.extend(call.transfers)
        game_arg = rules.game_of_call(func, args, [value for value, _ in call.values])
        if game_arg is not None:
            result.game_id = game_arg

    def _create_session(self, msg: dict[str, Any], signer: str, time: int) -> None:
        pub_key = _session_key(msg)
        try:
            expires_at = int(str(msg.get("expires_at", "0")))
            allow_paths = tuple(str(p) for p in msg.get("allow_paths", []))
            spend_limit = parse_coins(str(msg.get("spend_limit", "")))
            spend_period = int(str(msg.get("spend_period", "0")))
        except (KeyError, TypeError, ValueError, BadInput) as exc:
            raise Refused(f"invalid session: {exc}") from None
        address = crypto.address_of(pub_key)
        if address == signer:
            raise Refused("invalid session: an account cannot be its own session")
        if expires_at and expires_at <= time:
            raise Refused("invalid session: it would expire before it starts")
        if spend_period < 0:
            raise Refused("invalid session: spend period must not be negative")
        bad = [p for p in allow_paths if not _valid_allow_path(p)]
        if not allow_paths or len(allow_paths) > MAX_ALLOW_PATHS or bad:
            raise Refused(
                "invalid session: allow-paths must be * or 1-8 of vm/exec, vm/exec:<realm path>, "
                "vm/run, bank/send, bank/multisend"
            )
        account = self.accounts[signer]
        if address in account.sessions:
            raise Refused(f"session {address} already exists for account {signer}")
        account.sessions[address] = Session(
            address=address,
            number=self.next_account_number(),
            pub_key=pub_key,
            expires_at=expires_at,
            allow_paths=allow_paths,
            spend_limit=spend_limit,
            spend_period=spend_period,
            period_start=time,
        )


def _session_key(msg: dict[str, Any]) -> bytes:
    """The session public key a session message names (33 compressed bytes)."""
    key = msg.get("session_key")
    pub_key = b""
    if isinstance(key, dict) and key.get("@type") == crypto.PUBKEY_TYPE:
        with contextlib.suppress(TypeError, ValueError):
            pub_key = base64.b64decode(str(key.get("value", "")), validate=True)
    if len(pub_key) != 33:
        raise Refused("invalid session: the session key must be a compressed secp256k1 key")
    return pub_key


def _valid_allow_path(path: str) -> bool:
    if path in ("*", "vm/exec", "vm/run", "bank/send", "bank/multisend"):
        return True
    return path.startswith("vm/exec:gno.land/") and len(path) > len("vm/exec:gno.land/")


class Verified(NamedTuple):
    """What verification established about a transaction before it runs."""

    signer: str
    pub_key: bytes
    fee: Coins
    session: str | None
    spend: Coins
    new_period: bool


def _msg_coins(msg: dict[str, Any]) -> Coins:
    text = msg.get("send") if msg.get("@type") == MSG_CALL else msg.get("amount")
    try:
        coins = parse_coins(str(text or ""))
    except BadInput as exc:
        raise Refused(f"invalid coins: {exc}") from None
    if any(amount <= 0 for amount in coins.values()):
        raise Refused(f"invalid coins {text!r}: amounts must be positive")
    return coins


def check_supply(balances: tuple[tuple[str, str], ...]) -> None:
    """Refuse genesis balances gno.land refuses: not coins, or a denomination whose
    total does not fit in int64 (gnoland v1.7.1 will not start on such a genesis, in
    these words, so no balance or pot can ever pass int64 on a chain that runs)."""
    totals: dict[str, int] = {}
    for _, coins in balances:
        for denom, amount in parse_coins(coins).items():
            totals[denom] = totals.get(denom, 0) + amount
    for denom, total in sorted(totals.items()):
        if total > MAX_AMOUNT:
            raise BadInput(f'cannot compute supply: balances of "{denom}" sum past int64')

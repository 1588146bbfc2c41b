"""One transaction against the chain's state: verify, charge, run, all or nothing.

The ante checks gno.land's auth keeper makes (the signer's account number and
sequence, its signature over the sign bytes, a session's limits and expiry, the
fee), then each message: a bank send, a realm call through the realm's ABI, or a
session's creation or revocation. A refusal leaves the state as it was.
"""

from __future__ import annotations

import base64
import contextlib
import copy
from typing import TYPE_CHECKING, Any, NamedTuple

from c4cli.address import canonical
from c4cli.chain.interface import Receipt, TxOutcome
from c4cli.coins import UGNOT, Coins, format_coins, parse_coins
from c4cli.errors import BadInput, PackageNotFound, Refused, SessionNotFound, UnknownAccount
from c4cli.local.accounts import (
    Account,
    Session,
    require_funds,
)
from c4cli.local.blocks import BlockContext
from c4cli.realm import abi, rules
from c4cli.realm.memory import Context, RealmPanic
from c4cli.records import Record
from c4cli.wire import crypto, pubkeys
from c4cli.wire.amino import EncodeError
from c4cli.wire.events import event_from_json, gnokey_events
from c4cli.wire.msgs import (
    AUTH_MSGS,
    MSG_CALL,
    MSG_CREATE_SESSION,
    MSG_REVOKE_ALL_SESSIONS,
    MSG_REVOKE_SESSION,
    MSG_SEND,
    Msg,
    Tx,
    msg_signer,
)
from c4cli.wire.pubkeys import PubKey
from c4cli.wire.results import UNAUTHORIZED
from c4cli.wire.tx import SIG_FAILED, signature_error, tx_hash

if TYPE_CHECKING:
    from c4cli.local.state import ChainState


MAX_MEMO = 65536
TRANSFER_EVENT = "/bank.TransferEvent"
MAX_ALLOW_PATHS = 8


class Passage(NamedTuple):
    """One transaction on its way through: its block, who signed, and what it did so far."""

    block: BlockContext
    signer: str
    session: str | None  # the session key's address, when one signed
    result: TxResult


class TxResult(Record):
    """What one executed transaction did: for receipts, ``c4 tx`` and ``--json``."""

    __slots__ = (
        "data", "events", "funcs", "game_id", "hash", "impersonated", "signer", "transfers",
        "tx", "values",
    )  # fmt: skip

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
        # The bank's events, as gno.land's deliver result carries them (amino JSON):
        # a send's coins, the coins a call sends the realm, each payout of the realm.
        self.events: list[dict[str, str]] = []
        self.game_id: int | None = None
        self.impersonated = False

    def moved(self, sender: str, to: str, coins: Coins) -> None:
        if any(coins.values()):
            event = {"@type": TRANSFER_EVENT, "from": sender, "to": to}
            self.events.append(event | {"coins": format_coins(coins)})

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
            events=tuple(self.events),
            impersonated=self.impersonated,
        )

    def receipt(self, height: int, time: int, *, simulated: bool = False) -> Receipt:
        """Its receipt on the local chain: no gas metered, the bank's events as a node's."""
        return Receipt(
            height=height,
            time=time,
            result=self.delivered(),
            simulated=simulated,
            events=gnokey_events([event_from_json(event) for event in self.events]),
            event_types=tuple(event["@type"] for event in self.events),
        )

    def outcome(self) -> dict[str, Any]:
        """What the transaction did, as JSON: kept by the cache for `c4 log` and `c4 tx`,
        and, for a call about a game, its arguments (a game's history is read from them)."""
        outcome: dict[str, Any] = {
            "signer": self.signer,
            "func": ",".join(self.funcs),
            "result": [value for value, _ in self.values],
            "transfers": [{"to": to, "amount": f"{a}ugnot"} for to, a in self.transfers],
            "data": self.data,
            "events": self.events,
        }
        if self.game_id is not None:
            outcome["args"] = [list(msg.get("args") or []) for msg in self.tx["msg"]]
        return outcome


class Executor:
    """Runs transactions against one :class:`~c4cli.local.state.ChainState`."""

    def __init__(self, state: ChainState) -> None:
        self.state = state

    def signing_account(self, tx: Tx) -> Account:
        """The account whose number and sequence a transaction must be signed for."""
        msgs = tx.get("msg")
        if not isinstance(msgs, list) or not msgs:
            raise Refused("invalid transaction: no messages")
        signer = msg_signer(msgs[0])
        account = self.state.accounts.get(signer)
        if account is None:
            raise UnknownAccount(signer)
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
        impersonated: bool = False,
    ) -> TxResult:
        """Verify and run one transaction, all or nothing: Refused leaves the state
        untouched. An ``impersonated`` one (no key signed it) runs only on a chain whose
        genesis allows it, its signature unchecked and its account's key unchanged."""
        if impersonated and not self.state.genesis.impersonation:
            raise Refused("impersonated (no key signed it) on a chain whose genesis allows none")
        signed = signature_checked or impersonated
        checked = self._verify(tx, account_number, sequence, block.time, signed)
        signer = checked.signer
        # Every message checks before it moves a coin, and _verify has checked the
        # signer can pay the fee and every send, so a one-message transaction
        # never fails half-done. Several messages are atomic through a snapshot.
        msgs = tx["msg"]
        snapshot = (
            copy.deepcopy((self.state.accounts, self.state.realm, self.state.gas_collected))
            if len(msgs) > 1
            else None
        )
        try:
            result = TxResult(tx, signer, known_hash)
        except EncodeError as exc:
            raise Refused(f"invalid transaction: {exc}") from None
        result.impersonated = impersonated
        try:
            self.state.debit(signer, checked.fee)
            for denom, amount in checked.fee.items():
                self.state.gas_collected[denom] = self.state.gas_collected.get(denom, 0) + amount
            delivery = Passage(block, signer, checked.session, result)
            for msg, sent in zip(msgs, checked.coins, strict=True):
                self._run_msg(msg, sent, delivery)
        except Refused:
            if snapshot is None:
                raise
            self.state.accounts, self.state.realm, self.state.gas_collected = snapshot
            raise
        account = self.state.accounts[signer]
        self.state.dirty_accounts.add(signer)
        if result.game_id is not None:
            self.state.dirty_games.add(result.game_id)
        if checked.session is not None:
            session = account.sessions[checked.session]
            session.sequence += 1
            if checked.new_period:
                session.spent, session.period_start = {}, block.time
            for denom, amount in checked.spend.items():
                session.spent[denom] = session.spent.get(denom, 0) + amount
        else:
            account.sequence += 1
            if checked.pub_key is not None and not impersonated:
                account.pub_key = checked.pub_key
        return result

    def _verify(
        self, tx: Tx, account_number: int, sequence: int, time: int, signature_checked: bool
    ) -> Checked:
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
        if signature_checked and sigs == []:
            sigs = [{}]  # impersonated, as gnokey sends a tx it never signed: no signature
        if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], dict):
            raise Refused("invalid transaction: wrong number of signatures")
        signer = signers.pop()
        account = self.state.accounts.get(signer)
        if account is None:
            raise UnknownAccount(signer)
        try:
            # An impersonated tx names the key the chain knows, or none (signature_checked).
            given = sigs[0].get("pub_key") if signature_checked else sigs[0]["pub_key"]
            pub_key = None if given is None else pubkeys.from_json(given)
            fee_coins = parse_coins(str(fee["gas_fee"]))
            int(str(fee["gas_wanted"]))
            session_addr = str(sigs[0].get("session_addr") or "")
        except (KeyError, TypeError, ValueError, BadInput) as exc:  # NotAKey is a ValueError
            raise Refused(f"invalid transaction: {exc}") from None
        coins = tuple(_msg_coins(msg) for msg in msgs)
        sends = fee_coins.copy()
        for sent in coins:
            for denom, amount in sent.items():
                sends[denom] = sends.get(denom, 0) + amount
        new_period = False
        if session_addr:
            session, new_period = self._session_for(account, session_addr, msgs, sends, time)
            key_address, number, expected = session.address, session.number, session.sequence
        else:
            key_address, number, expected = signer, account.number, account.sequence
        if number != account_number or expected != sequence:
            raise Refused(SIG_FAILED, kind=UNAUTHORIZED)
        # c4 verify's workers already checked the key and the signature of these bytes.
        if not signature_checked:
            try:
                problem = signature_error(
                    tx,
                    chain_id=self.state.genesis.chain_id,
                    account_number=number,
                    sequence=sequence,
                    key_address=key_address,
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise Refused(f"invalid transaction: {exc}") from None
            if problem is not None:
                raise Refused(problem, kind=UNAUTHORIZED if problem == SIG_FAILED else "")
        require_funds(signer, account.coins, sends)
        return Checked(signer, pub_key, fee_coins, session_addr or None, sends, new_period, coins)

    def _session_for(
        self, account: Account, session_addr: str, msgs: list[Any], spend: Coins, time: int
    ) -> tuple[Session, bool]:
        """The session a tx names (and whether a new spend period starts), or a refusal."""
        session = account.sessions.get(session_addr)
        if session is None:
            raise SessionNotFound(session_addr, account.address)
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

    def _run_msg(self, msg: Msg, coins: Coins, delivery: Passage) -> None:
        signer, result = delivery.signer, delivery.result
        kind = msg.get("@type")
        if kind == MSG_SEND:
            to = canonical(str(msg.get("to_address", "")))
            if to is None:
                raise Refused(f"invalid address {msg.get('to_address')!r}")
            self.state.debit(signer, coins)
            self.state.credit(to, coins)
            result.funcs.append("send")
            result.transfers.append((to, coins.get(UGNOT, 0)))
            result.moved(signer, to, coins)
        elif kind == MSG_CALL:
            self._run_call(msg, coins, delivery)
        elif kind == MSG_CREATE_SESSION:
            self._create_session(msg, signer, delivery.block.time)
            result.funcs.append("create_session")
        elif kind == MSG_REVOKE_SESSION:
            session_addr = crypto.address_of(_session_key(msg))
            if self.state.accounts[signer].sessions.pop(session_addr, None) is None:
                raise SessionNotFound(session_addr, signer)
            result.funcs.append("revoke_session")
        elif kind == MSG_REVOKE_ALL_SESSIONS:
            self.state.accounts[signer].sessions.clear()
            result.funcs.append("revoke_all_sessions")
        else:
            raise Refused(f"unknown message type {kind!r}")

    def _run_call(self, msg: Msg, sent: Coins, delivery: Passage) -> None:
        signer, result = delivery.signer, delivery.result
        pkg_path = msg.get("pkg_path")
        func = msg.get("func")
        args = msg.get("args", [])
        if pkg_path != self.state.genesis.realm_path:
            raise PackageNotFound(pkg_path)
        if not isinstance(func, str) or not isinstance(args, list):
            raise Refused("invalid transaction: bad func or args")
        if not all(isinstance(a, str) for a in args):
            raise Refused("invalid transaction: every argument must be a string")
        ctx = Context(
            caller=signer,
            send=sent,
            now=delivery.block.time,
            height=delivery.block.height,
            realm_address=self.state.realm_address,
            session=delivery.session is not None,
        )
        # The realm runs first: it is pure, so a panic leaves nothing to undo.
        try:
            call = abi.call(self.state.realm, ctx, func, args)
        except (RealmPanic, abi.ArgumentError) as exc:
            raise Refused(str(exc)) from None
        self.state.debit(signer, sent)
        self.state.credit(self.state.realm_address, sent)
        result.moved(signer, self.state.realm_address, sent)
        for to, amount in call.transfers:
            self.state.debit(self.state.realm_address, {UGNOT: amount})
            self.state.credit(to, {UGNOT: amount})
            result.moved(self.state.realm_address, to, {UGNOT: amount})
        result.funcs.append(func)
        result.values.extend(call.values)
        result.data += "\n".join(f"({value} {kind})" for value, kind in call.values) + "\n\n"
        result.transfers.extend(call.transfers)
        game_arg = rules.game_of_call(func, args, [value for value, _ in call.values])
        if game_arg is not None:
            result.game_id = game_arg

    def _create_session(self, msg: Msg, signer: str, time: int) -> None:
        pub_key = _session_key(msg)
        try:
            expires_at = int(str(msg.get("expires_at", "0")))
            allow_paths = tuple(str(p) for p in msg.get("allow_paths") or [])
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
        account = self.state.accounts[signer]
        if address in account.sessions:
            raise Refused(f"session {address} already exists for account {signer}")
        account.sessions[address] = Session(
            address=address,
            number=self.state.next_account_number(),
            pub_key=pub_key,
            expires_at=expires_at,
            allow_paths=allow_paths,
            spend_limit=spend_limit,
            spend_period=spend_period,
            period_start=time,
        )


def _session_key(msg: Msg) -> bytes:
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


class Checked(NamedTuple):
    """What verification established about a transaction before it runs."""

    signer: str
    pub_key: PubKey | None  # none: an impersonated tx of an account that never signed
    fee: Coins
    session: str | None
    spend: Coins
    new_period: bool
    coins: tuple[Coins, ...]  # what each message sends, parsed once here


def _msg_coins(msg: Msg) -> Coins:
    text = msg.get("send") if msg.get("@type") == MSG_CALL else msg.get("amount")
    try:
        coins = parse_coins(str(text or ""))
    except BadInput as exc:
        raise Refused(f"invalid coins: {exc}") from None
    if any(amount <= 0 for amount in coins.values()):
        raise Refused(f"invalid coins {text!r}: amounts must be positive")
    return coins

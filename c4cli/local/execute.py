"""One transaction against the chain's state: verify, charge, run, all or nothing.

The ante checks gno.land's auth keeper makes (the signer's account number and
sequence, its signature over the sign bytes, a session's limits and expiry, the
fee), then each message: a bank send, a realm call through the realm's ABI, or a
session's creation or revocation. A refusal leaves the state as it was.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, NamedTuple

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
from c4cli.wire import crypto
from c4cli.wire.events import event_from_json, gnokey_events
from c4cli.wire.msgs import (
    AUTH_MSGS,
    Msg,
    MsgCall,
    MsgCreateSession,
    MsgRevokeAllSessions,
    MsgRevokeSession,
    MsgSend,
)
from c4cli.wire.pubkeys import PubKey
from c4cli.wire.results import UNAUTHORIZED
from c4cli.wire.std import EncodeError, Signature, Tx
from c4cli.wire.tx import SIG_FAILED, signature_error, tx_hash

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    from c4cli.local.state import ChainState

    class Outcome(TypedDict):
        """What a transaction did, as the cache keeps it (:meth:`TxResult.outcome`)."""

        signer: str
        func: str  # its messages' functions, comma-separated
        result: list[str]  # a call's results, as text
        transfers: list[dict[str, str]]  # {"to", "amount"}: what the chain paid out
        data: str
        events: list[dict[str, str]]
        args: NotRequired[list[list[str]]]  # a call about a game: each message's
        time: NotRequired[int]  # a call about a game: its block's time


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

    def outcome(self) -> Outcome:
        """What the transaction did, as JSON: kept by the cache for `c4 log` and `c4 tx`,
        and, for a call about a game, its arguments (a game's history is read from them)."""
        outcome: Outcome = {
            "signer": self.signer,
            "func": ",".join(self.funcs),
            "result": [value for value, _ in self.values],
            "transfers": [{"to": to, "amount": f"{a}ugnot"} for to, a in self.transfers],
            "data": self.data,
            "events": self.events,
        }
        if self.game_id is not None:
            outcome["args"] = [
                list(msg.args) if isinstance(msg, MsgCall) else [] for msg in self.tx.msgs
            ]
        return outcome


class Executor:
    """Runs transactions against one :class:`~c4cli.local.state.ChainState`."""

    def __init__(self, state: ChainState) -> None:
        self.state = state

    def signing_account(self, tx: Tx) -> Account:
        """The account whose number and sequence a transaction must be signed for."""
        if not tx.msgs:
            raise Refused("invalid transaction: no messages")
        try:
            signer = tx.signer
        except ValueError as exc:
            raise Refused(f"invalid transaction: {exc}") from None
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
        msgs = tx.msgs
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
        msgs, fee, sigs = tx.msgs, tx.fee, tx.signatures
        if not msgs:
            raise Refused("invalid transaction: no messages")
        if len(tx.memo) > MAX_MEMO:
            raise Refused("invalid transaction: bad fee or memo")
        try:
            signers = {m.signer for m in msgs}
        except ValueError as exc:
            raise Refused(f"invalid transaction: {exc}") from None
        if len(signers) != 1:
            raise Refused("invalid transaction: every message must have the same signer")
        if signature_checked and not sigs:
            sigs = (Signature(None, b""),)  # impersonated, as gnokey sends a tx never signed
        if len(sigs) != 1:
            raise Refused("invalid transaction: wrong number of signatures")
        signer = signers.pop()
        account = self.state.accounts.get(signer)
        if account is None:
            raise UnknownAccount(signer)
        try:
            # An impersonated tx names the key the chain knows, or none (signature_checked).
            pub_key = sigs[0].pub_key
            if pub_key is None and not signature_checked:
                raise KeyError("pub_key")
            fee_coins = parse_coins(fee.gas_fee)
            session_addr = sigs[0].session_addr or ""
        except (KeyError, BadInput) as exc:
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
        self, account: Account, session_addr: str, msgs: tuple[Msg, ...], spend: Coins, time: int
    ) -> tuple[Session, bool]:
        """The session a tx names (and whether a new spend period starts), or a refusal."""
        session = account.sessions.get(session_addr)
        if session is None:
            raise SessionNotFound(session_addr, account.address)
        if session.expires_at and time >= session.expires_at:
            raise Refused(f"session {session_addr} has expired")
        for msg in msgs:
            if msg.type_url in AUTH_MSGS:
                raise Refused("a session key cannot send auth messages")
            path = f"vm/exec:{msg.pkg_path}" if isinstance(msg, MsgCall) else "bank/send"
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
        if isinstance(msg, MsgSend):
            to = canonical(msg.to_address)
            if to is None:
                raise Refused(f"invalid address {msg.to_address!r}")
            self.state.debit(signer, coins)
            self.state.credit(to, coins)
            result.funcs.append("send")
            result.transfers.append((to, coins.get(UGNOT, 0)))
            result.moved(signer, to, coins)
        elif isinstance(msg, MsgCall):
            self._run_call(msg, coins, delivery)
        elif isinstance(msg, MsgCreateSession):
            self._create_session(msg, signer, delivery.block.time)
            result.funcs.append("create_session")
        elif isinstance(msg, MsgRevokeSession):
            session_addr = crypto.address_of(_session_key(msg))
            if self.state.accounts[signer].sessions.pop(session_addr, None) is None:
                raise SessionNotFound(session_addr, signer)
            result.funcs.append("revoke_session")
        elif isinstance(msg, MsgRevokeAllSessions):
            self.state.accounts[signer].sessions.clear()
            result.funcs.append("revoke_all_sessions")
        else:
            raise Refused(f"unknown message type {msg.type_url!r}")

    def _run_call(self, msg: MsgCall, sent: Coins, delivery: Passage) -> None:
        signer, result = delivery.signer, delivery.result
        func, args = msg.func, list(msg.args)
        if msg.pkg_path != self.state.genesis.realm_path:
            raise PackageNotFound(msg.pkg_path)
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

    def _create_session(self, msg: MsgCreateSession, signer: str, time: int) -> None:
        pub_key = _session_key(msg)
        expires_at, allow_paths, spend_period = msg.expires_at, msg.allow_paths, msg.spend_period
        try:
            spend_limit = parse_coins(msg.spend_limit)
        except BadInput as exc:
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


def _session_key(msg: MsgCreateSession | MsgRevokeSession) -> bytes:
    """The session public key a session message names (33 compressed bytes)."""
    if not isinstance(msg.session_key, bytes):
        raise Refused("invalid session: the session key must be a compressed secp256k1 key")
    return msg.session_key


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
    text = msg.send if isinstance(msg, MsgCall) else msg.amount if isinstance(msg, MsgSend) else ""
    try:
        coins = parse_coins(text)
    except BadInput as exc:
        raise Refused(f"invalid coins: {exc}") from None
    if any(amount <= 0 for amount in coins.values()):
        raise Refused(f"invalid coins {text!r}: amounts must be positive")
    return coins

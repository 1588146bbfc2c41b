"""Transactions for a gno.land node: signed, simulated, priced, then delivered.

A transaction is signed here (over the current sign payload, or the legacy one for a
node older than v1.7.1), simulated unless told otherwise, its fee estimated and
bounded; once its bytes leave, :mod:`c4cli.node.sending.delivery` sends them and learns
their fate. The :class:`Sender` holds the command's reader (and through it the
transport) and the delivery (and through it the journal).
"""

from __future__ import annotations

import contextlib
import math
import time as wallclock
from collections.abc import Callable

from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Answer,
    Build,
    Receipt,
    SendPolicy,
    Signer,
    ThenRead,
    TxOutcome,
)
from c4cli.coins import gnot
from c4cli.errors import (
    BadInput,
    FeeAboveCap,
    GasBelowUse,
    Refused,
    UnboundNode,
    Unreachable,
    notice,
    warn_once,
)
from c4cli.node.net import answers, rpc
from c4cli.node.reader import Ahead, NodeReader, account_path, decoded
from c4cli.node.sending import numbers
from c4cli.node.sending.delivery import Delivery, Submission, Superseded
from c4cli.node.sending.receipts import RefusedInBlock
from c4cli.wire import crypto, pubkeys, results
from c4cli.wire.msgs import Msg
from c4cli.wire.paths import GASPRICE, SIMULATE
from c4cli.wire.std import Fee, Tx, encode_tx, tx_hash
from c4cli.wire.tx import fee as make_fee
from c4cli.wire.tx import placeholder_tx, signature_error, signed_tx, simulated_unsigned

Simulate = Callable[[Fee], int]  # the gas the transaction uses at a fee, simulated

GAS_MARGIN = 1.2  # gas wanted = simulated gas used x this (gnokey's default margin is similar)
SIMULATION_GAS = 100_000_000  # the most a simulation may use
NEXT_BLOCK_WAIT = 5.0  # seconds a refusal on a network waits for the next block to be asked again


class Sender:
    """Signing for a node's chain and sending: the reader it reads the chain through,
    the delivery it hands signed bytes to.

    A transaction is never sent twice: when a broadcast's answer is lost, the node
    is asked for the transaction by its hash before anything else happens; what
    this home sends is journaled as pending before its bytes leave, and as landed
    or dropped once known.
    """

    def __init__(self, reader: NodeReader, delivery: Delivery) -> None:
        self.reader = reader
        self.delivery = delivery
        # Sign over the legacy payload: set once this node refused the current one.
        self.legacy_payload = False

    @property
    def redacted(self) -> str:
        return self.reader.redacted

    def simulate(self, tx_bytes: bytes) -> int:
        """The gas a transaction would use (``.app/simulate``); a refusal raises Refused."""
        result = answers.simulated(self.reader.raw_query(SIMULATE, tx_bytes))
        if result.refusal is not None:
            raise result.refusal
        return result.gas_used

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: Fee,
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
        then_read: ThenRead | None = None,
    ) -> Receipt:
        """Sign for the account's number and sequence on the node, broadcast, wait for the block.

        Before anything is signed, transactions this home sent for the same account
        whose fate is unknown are settled (:meth:`reconcile`). ``fee`` with an empty
        ``gas_wanted`` asks for simulation: the gas wanted is the simulated gas plus a
        margin, and the fee what the node's gas price asks for it, refused above
        ``policy.fee_cap``. With the gas given, the transaction is still simulated
        first unless ``policy.simulate`` is ``skip``, so a call the realm refuses costs
        nothing. A sequence another client used first is fetched again, and the
        transaction signed and sent once more, once. ``then_read`` rides after the
        broadcast (see :meth:`~c4cli.node.sending.delivery.Delivery._commit`).
        """
        self._require_confirmed("sign for")
        with self._holding(signer):
            submission = Submission(then_read)
            self.delivery.reconcile(signer, submission)
            return self._submit(signer, build, fee, memo, policy, submission)

    def _holding(self, signer: Signer) -> contextlib.AbstractContextManager[None]:
        """The home's lock on the account (see Journal.holding); none without a home."""
        journal = self.delivery.journal
        return contextlib.nullcontext() if journal is None else journal.holding(signer)

    def _submit(
        self,
        signer: Signer,
        build: Build,
        fee: Fee,
        memo: str,
        policy: SendPolicy,
        submission: Submission,
    ) -> Receipt:
        def attempt() -> Receipt:
            # The account's numbers (and the gas price, for a fee c4 picks) travel with
            # the first read the messages make: one request, not three.
            ahead = self.reader.ahead(account_path(signer), *([] if fee.gas_fee else [GASPRICE]))
            msgs = build(ahead)
            return self._send(signer, msgs, fee, memo, policy, submission, ahead)

        try:
            return attempt()
        except RefusedInBlock:
            raise  # it landed and paid its fee: never signed and sent again
        except Superseded as superseded:
            # It can never land: signed again, once, for the sequence as it is now.
            warn_once(f"note: {superseded}; signed again for the next sequence")
        except Refused as refused:
            # Nothing of it is in a block or a mempool. Another client took the sequence:
            # signed again. The realm refused on a node of a network, which may be a block
            # behind the node that took the other player's move: asked again on its next
            # block. Once, either way.
            if not (refused.kind == results.UNAUTHORIZED or self._next_block_came()):
                raise
        return attempt()

    def _next_block_came(self) -> bool:
        """On a home bound to several nodes, wait (at most NEXT_BLOCK_WAIT) for the node's
        next block; whether it came. On one node, no wait: False."""
        transport = self.reader.transport
        if len(transport.urls) == 1:
            return False
        try:
            start = self.reader.head().height
        except Unreachable:
            return False  # the refusal stands, not a failure to read the head
        deadline = wallclock.monotonic() + min(NEXT_BLOCK_WAIT, transport.timeout)
        while wallclock.monotonic() < deadline:
            wallclock.sleep(0.25)
            with contextlib.suppress(Unreachable):
                if self.reader.head().height > start:
                    return True
        return False

    def _require_confirmed(self, action: str) -> None:
        """Refused, in one line, on a node this home is not bound to unless the user
        named its chain (--chain-id): c4 never signs or sends for what a node claims."""
        if not self.reader.transport.confirmed:
            raise UnboundNode(self.redacted, self.reader.chain_id, action)

    def broadcast(self, tx: Tx, *, policy: SendPolicy = DEFAULT_POLICY) -> Receipt:
        """Send a transaction signed elsewhere: its signature checked here against the
        signer's account on the node (a node's simulation checks none), simulated unless
        ``policy.simulate`` is ``skip``, then journaled and sent like one of ours."""
        self._require_confirmed("send to")
        try:
            master = tx.signer
            session = tx.signature.session_addr or None
        except (IndexError, ValueError):
            raise BadInput("the transaction has no message or no signature to send") from None
        signer = Signer(address=master, private_key=b"", session_addr=session)
        with self._holding(signer):
            return self._broadcast_held(signer, tx, policy)

    def _broadcast_held(self, signer: Signer, tx: Tx, policy: SendPolicy) -> Receipt:
        submission = Submission()
        self.delivery.reconcile(signer, submission)
        number, sequence, _ = self.reader.account_numbers(signer)
        try:
            problem = signature_error(
                tx,
                chain_id=self.reader.chain_id,
                account_number=number,
                sequence=sequence,
                key_address=signer.session_addr or signer.address,
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise BadInput(f"the transaction's signature cannot be read: {exc}") from None
        if problem is not None:
            raise Refused(
                f"{problem} (checked before sending: account {number}, sequence {sequence} "
                f"on chain {self.reader.chain_id}); nothing was sent"
            )
        gas_used = 0 if policy.simulate == "skip" else self.simulate(encode_tx(tx))
        if policy.simulate == "only":
            return self._simulated(signer, tx, gas_used)
        return self.delivery.broadcast(signer, tx, sequence, submission)

    def _send(
        self,
        signer: Signer,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        policy: SendPolicy,
        submission: Submission,
        ahead: Ahead,
    ) -> Receipt:
        said = self.reader.account_numbers(signer, ahead.take(account_path(signer)))
        # A transaction this command sent for an earlier sequence (refused by a node's
        # word, its answer lost) is proved first: if it landed, it is the command's
        # result, and nothing is signed again.
        earlier = self.delivery.reconcile(signer, submission, below=said.sequence)
        if earlier is not None:
            return earlier
        # The numbers proven before the first signature (node/sending/numbers.py).
        signing = numbers.Signing(self.reader, self.delivery.journal, signer, said)

        def sign_at(paid: Fee) -> Tx:
            signing.settle()
            return self._sign(signer, msgs, paid, memo, signing.number, signing.sequence)

        def simulate_at(paid: Fee) -> int:
            if signing.pending and simulated_unsigned(msgs) and not self.legacy_payload:
                used = self._simulate_riding(signer, msgs, paid, memo, signing)
                if used is not None:
                    return used
            return self._simulate_signed(lambda: sign_at(paid))[1]

        chosen = fee
        if not fee.gas_wanted or not fee.gas_fee:
            # c4 picks the gas (from the simulation), or the fee for the gas given.
            pick = self._given_gas if fee.gas_wanted else self._estimate
            chosen, gas_used = pick(simulate_at, fee, policy, ahead.take(GASPRICE))
        else:
            gas_used = 0 if policy.simulate == "skip" else simulate_at(chosen)
        tx = sign_at(chosen)
        if policy.simulate == "only":
            return self._simulated(signer, tx, gas_used)
        sequence, proven_at = signing.sequence, signing.proven_at
        try:
            receipt = self.delivery.broadcast(signer, tx, sequence, submission)
            return receipt._replace(numbers_proven_at=proven_at)
        except (RefusedInBlock, Superseded):
            raise  # in a block, or never to be: nothing to sign again
        except Refused as refused:
            # Refused in CheckTx. A node's simulation of a call checks no signature (only
            # CheckTx does), so an old node's refusal of the current payload comes here.
            if not self._take_legacy(refused):
                raise
            try:
                receipt = self.delivery.broadcast(signer, sign_at(chosen), sequence, submission)
            except Refused:
                self.legacy_payload = False
                raise refused from None
        self._said_legacy()
        return receipt._replace(numbers_proven_at=proven_at)

    def _simulate_riding(
        self, signer: Signer, msgs: list[Msg], paid: Fee, memo: str, signing: numbers.Signing
    ) -> int | None:
        """The gas a placeholder of the transaction uses (signed by no one: its numbers are
        not proven yet), simulated in the request that carries their proof, which is
        settled first; None when the node wants a signature to simulate (a node older
        than gno.land v1.7.1): the caller signs, the numbers proven."""
        key, session = crypto.public_key(signer.private_key), signer.session_addr
        unsigned = placeholder_tx(msgs, paid, memo, pub_key=key, session_addr=session)
        asked = rpc.abci_query(SIMULATE, encode_tx(unsigned))
        replies = self.reader.rpc.batch([asked, *signing.riders()])
        signing.settle(replies)
        try:
            result = answers.simulated(decoded(SIMULATE, replies.get(asked))[0])
            if result.refusal is not None:
                raise result.refusal
        except Refused as refused:
            if refused.kind == results.UNAUTHORIZED:
                return None
            raise
        return result.gas_used

    def _simulated(self, signer: Signer, tx: Tx, gas_used: int) -> Receipt:
        """What a simulation says, as a receipt that was never sent (height 0)."""
        result = TxOutcome(tx, tx_hash(tx), signer.address, funcs=tuple(tx.names()))
        return Receipt(height=0, time=0, result=result, gas_used=gas_used, simulated=True)

    def _sign(
        self,
        signer: Signer,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        number: int,
        sequence: int,
    ) -> Tx:
        return signed_tx(
            msgs,
            fee,
            memo,
            private_key=signer.private_key,
            chain_id=self.reader.chain_id,
            account_number=number,
            sequence=sequence,
            session_addr=signer.session_addr,
            legacy=self.legacy_payload,
        )

    def _simulate_signed(self, sign: Callable[[], Tx]) -> tuple[Tx, int]:
        """Simulate the transaction ``sign`` makes; the transaction and the gas it used.

        A node older than gno.land v1.7.1 verifies only the legacy sign payload: when
        the simulation refuses the signature, the transaction is signed over that one
        instead and simulated once more, and the command says so (``_take_legacy``;
        the same when the broadcast's CheckTx refuses it). If that is refused too, the
        current payload stays, and the first refusal stands.
        """
        tx = sign()
        try:
            return tx, self.simulate(encode_tx(tx))
        except Refused as refused:
            if not self._take_legacy(refused):
                raise
            first = refused
        try:
            tx = sign()
            gas_used = self.simulate(encode_tx(tx))
        except Refused:
            self.legacy_payload = False
            raise first from None
        self._said_legacy()
        return tx, gas_used

    def _take_legacy(self, refused: Refused) -> bool:
        """Whether a refusal may be an old node's of the current sign payload (a
        signature refused, and the legacy payload not tried yet); if so, sign over the
        legacy one from now on. A refused signature, whatever signed it, was never
        recorded: trying once more is safe, and a refusal of the legacy one too means
        the signature was not the cause (another client took the sequence)."""
        if self.legacy_payload or refused.kind != results.UNAUTHORIZED:
            return False
        self.legacy_payload = True
        return True

    def _said_legacy(self) -> None:
        if self.legacy_payload:
            notice(
                f"warning: {self.redacted} refused the signature over gno.land's current "
                "sign payload and took the legacy one (a node older than gno.land "
                "v1.7.1): transactions to it are signed that way, unlike gnokey v1.7.1's"
            )

    def _estimate(
        self, simulate_at: Simulate, fee: Fee, policy: SendPolicy, price: Answer | None
    ) -> tuple[Fee, int]:
        """The fee to sign (the gas the transaction used, simulated at the most gas a
        simulation may use, plus a margin, and what the node's gas price asks for it,
        bounded; ``price``: its query, asked ahead), and the gas the simulation used."""
        used = simulate_at(make_fee(SIMULATION_GAS, fee.gas_fee or "1ugnot"))
        return self._priced(math.ceil(used * GAS_MARGIN), fee, policy, price), used

    def _given_gas(
        self, simulate_at: Simulate, fee: Fee, policy: SendPolicy, price: Answer | None
    ) -> tuple[Fee, int]:
        """The gas given (--gas-wanted), its fee left to the node: priced at the node's gas
        price within the cap, and refused before anything is sent (exit 2) where the
        simulation uses more gas than given (it would run out, and pay its fee for it);
        the fee and the gas the simulation used (0 when told to skip it)."""
        wanted = fee.gas_wanted
        priced = self._priced(wanted, fee, policy, price)
        if policy.simulate == "skip":
            return priced, 0
        enough, used = self._estimate(simulate_at, fee, policy, price)
        if used > wanted:
            raise GasBelowUse(wanted, used, enough.gas_wanted, enough.gas_fee)
        return priced, used

    def _priced(
        self,
        wanted: int,
        fee: Fee,
        policy: SendPolicy,
        price: Answer | None = None,
    ) -> Fee:
        """``wanted`` gas at the fee given, else at the node's gas price within the cap."""
        if fee.gas_fee:
            return make_fee(wanted, fee.gas_fee)
        amount, per = self.reader.gas_price(price)
        asked = max(math.ceil(wanted * amount / per), 1)
        if asked > policy.fee_cap:
            raise FeeAboveCap(
                f"the node asks a fee of {asked}ugnot ({wanted} gas at {amount}ugnot per "
                f"{per} gas), above the {gnot(policy.fee_cap)} c4 pays without being told; "
                "nothing was signed"
            )
        return make_fee(wanted, f"{asked}ugnot")

    def unsigned_fee(
        self,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        pub_key: pubkeys.PubKey,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Fee:
        """A node simulates a call or a send without checking its signature (tm2 checks
        one only for messages that carry code), so the transaction is simulated with the
        signer's public key and a placeholder of a signature's shape, then priced as
        :meth:`_send` prices."""
        if fee.gas_wanted:
            return self._priced(fee.gas_wanted, fee, policy)
        trial = make_fee(SIMULATION_GAS, fee.gas_fee or "1ugnot")
        used = self.simulate(encode_tx(placeholder_tx(msgs, trial, memo, pub_key=pub_key)))
        return self._priced(math.ceil(used * GAS_MARGIN), fee, policy)

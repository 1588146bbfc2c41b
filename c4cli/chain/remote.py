"""A gno.land node behind the :class:`~c4cli.chain.interface.Chain` interface: sending.

``broadcast_tx_commit`` to send (after a simulation, unless told otherwise), ``tx``
to look a transaction up by hash when an answer is lost, and the receipt read from
the block it landed in. Reading the node is :mod:`c4cli.chain.node_reads`; the
JSON-RPC under both, with its deadlines, is :mod:`c4cli.chain.rpc`.
"""

from __future__ import annotations

import base64
import contextlib
import math
import time as wallclock
from collections.abc import Callable
from typing import Any

from c4cli import outbox
from c4cli.chain import answers
from c4cli.chain.amino import encode_tx, tx_hash
from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Build,
    Receipt,
    SendPolicy,
    Signer,
    TxOutcome,
)
from c4cli.chain.node_reads import GASPRICE, NodeReader
from c4cli.chain.rpc import block_timeout
from c4cli.chain.tx import fee as make_fee
from c4cli.chain.tx import msg_names, msg_signer, signature_error, signed_tx
from c4cli.coins import gnot
from c4cli.errors import BadInput, HomeDamaged, Refused, Unreachable, warn_once

GAS_MARGIN = 1.2  # gas wanted = simulated gas used x this (gnokey's default margin is similar)
SIMULATION_GAS = 100_000_000  # the most a simulation may use
NEXT_BLOCK_WAIT = 5.0  # seconds a refusal on a network waits for the next block to be asked again


class RefusedInBlock(Refused):
    """The realm or the VM refused a transaction that is in a block: it paid its fee."""


class Superseded(Refused):
    """Another transaction of the account took this one's sequence: it never lands."""


class NodeChain(NodeReader):
    """A gno.land node to send transactions to, as :class:`NodeReader` reads it.

    A transaction is never sent twice: when a broadcast's answer is lost, the node
    is asked for the transaction by its hash before anything else happens; what
    this home sends is journaled as pending before its bytes leave, and as landed
    or dropped once known.
    """

    # -- sending ----------------------------------------------------------------------

    def simulate(self, tx_bytes: bytes) -> int:
        """The gas a transaction would use (``.app/simulate``); a refusal raises Refused."""
        value, _ = self._abci(".app/simulate", tx_bytes)
        result = answers.decode_result(value)
        if result.get("error"):
            raise Refused(str(result.get("log") or "the simulation failed"))
        return int(result.get("gas_used", 0))

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: dict[str, str],
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Receipt:
        """Sign for the account's number and sequence on the node, broadcast, wait for the block.

        Before anything is signed, transactions this home sent for the same account
        whose fate is unknown are settled (:meth:`reconcile`). ``fee`` with an empty
        ``gas_wanted`` asks for simulation: the gas wanted is the simulated gas plus a
        margin, and the fee what the node's gas price asks for it, refused above
        ``policy.fee_cap``. With the gas given, the transaction is still simulated
        first unless ``policy.simulate`` is ``skip``, so a call the realm refuses costs
        nothing. A sequence another client used first is fetched again, and the
        transaction signed and sent once more, once.
        """
        self._require_confirmed("sign for")
        self.reconcile(signer)
        # The account's numbers (and the gas price, for a fee c4 picks) travel with the
        # first read the messages make: one request, not three.
        self.ask_along(self.account_path(signer), *([] if fee.get("gas_fee") else [GASPRICE]))

        def attempt() -> Receipt:
            return self._send(signer, build(self), fee, memo, policy)

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
            if not (answers.sequence_taken(str(refused)) or self._next_block_came()):
                raise
        return attempt()

    def _next_block_came(self) -> bool:
        """On a home bound to several nodes, wait (at most NEXT_BLOCK_WAIT) for the node's
        next block; whether it came. On one node, no wait: False."""
        if len(self.urls) == 1:
            return False
        try:
            start = self.head().height
        except Unreachable:
            return False  # the refusal stands, not a failure to read the head
        deadline = wallclock.monotonic() + min(NEXT_BLOCK_WAIT, self.timeout)
        while wallclock.monotonic() < deadline:
            wallclock.sleep(0.25)
            with contextlib.suppress(Unreachable):
                if self.head().height > start:
                    return True
        return False

    def _require_confirmed(self, action: str) -> None:
        """Refused, in one line, on a node this home is not bound to unless the user
        named its chain (--chain-id): c4 never signs or sends for what a node claims."""
        if not self.confirmed:
            raise BadInput(
                f"{self.redacted} is not the node this home is bound to: pass --chain-id "
                f"{self.chain_id} (the chain it reports) to {action} that chain"
            )

    def broadcast(self, tx: dict[str, Any], *, policy: SendPolicy = DEFAULT_POLICY) -> Receipt:
        """Send a transaction signed elsewhere: its signature checked here against the
        signer's account on the node (a node's simulation checks none), simulated unless
        ``policy.simulate`` is ``skip``, then journaled and sent like one of ours."""
        self._require_confirmed("send to")
        try:
            master = msg_signer(tx["msg"][0])
            session = tx["signatures"][0].get("session_addr") or None
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            raise BadInput("the transaction has no message or no signature to send") from None
        signer = Signer(address=master, private_key=b"", session_addr=session)
        self.reconcile(signer)
        number, sequence = self.account_numbers(signer)
        try:
            problem = signature_error(
                tx,
                chain_id=self.chain_id,
                account_number=number,
                sequence=sequence,
                key_address=session or master,
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise BadInput(f"the transaction's signature cannot be read: {exc}") from None
        if problem is not None:
            raise Refused(
                f"{problem} (checked before sending: account {number}, sequence {sequence} "
                f"on chain {self.chain_id}); nothing was sent"
            )
        gas_used = 0 if policy.simulate == "skip" else self.simulate(encode_tx(tx))
        if policy.simulate == "only":
            return self._simulated(signer, tx, gas_used)
        return self._broadcast(signer, tx, sequence)

    def _send(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        policy: SendPolicy,
    ) -> Receipt:
        number, sequence = self.account_numbers(signer)
        chosen = fee
        if not fee.get("gas_wanted"):
            chosen, gas_used = self._estimate(signer, msgs, fee, memo, number, sequence, policy)
            tx = self._sign(signer, msgs, chosen, memo, number, sequence)
        elif policy.simulate == "skip":
            tx, gas_used = self._sign(signer, msgs, chosen, memo, number, sequence), 0
        else:
            tx, gas_used = self._simulate_signed(
                lambda: self._sign(signer, msgs, chosen, memo, number, sequence)
            )
        if policy.simulate == "only":
            return self._simulated(signer, tx, gas_used)
        try:
            return self._broadcast(signer, tx, sequence)
        except Refused as refused:
            # A node's simulation of a call does not check signatures (only CheckTx
            # does), so an old node's refusal of the current payload often comes here.
            if not self._take_legacy(refused):
                raise
            try:
                receipt = self._broadcast(
                    signer, self._sign(signer, msgs, chosen, memo, number, sequence), sequence
                )
            except Refused:
                self.legacy_payload = False
                raise refused from None
        self._said_legacy()
        return receipt

    def _simulated(self, signer: Signer, tx: dict[str, Any], gas_used: int) -> Receipt:
        """What a simulation says, as a receipt that was never sent (height 0)."""
        result = TxOutcome(tx, tx_hash(tx), signer.address, funcs=tuple(msg_names(tx)))
        return Receipt(height=0, time=0, result=result, gas_used=gas_used, simulated=True)

    def _sign(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        number: int,
        sequence: int,
    ) -> dict[str, Any]:
        return signed_tx(
            msgs,
            fee,
            memo,
            private_key=signer.private_key,
            chain_id=self.chain_id,
            account_number=number,
            sequence=sequence,
            session_addr=signer.session_addr,
            legacy=self.legacy_payload,
        )

    def _simulate_signed(self, sign: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], int]:
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
        if self.legacy_payload or not answers.sequence_taken(str(refused)):
            return False
        self.legacy_payload = True
        return True

    def _said_legacy(self) -> None:
        if self.legacy_payload:
            warn_once(
                f"warning: {self.redacted} refused the signature over gno.land's current "
                "sign payload and took the legacy one (a node older than gno.land "
                "v1.7.1): transactions to it are signed that way, unlike gnokey v1.7.1's"
            )

    def _estimate(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        number: int,
        sequence: int,
        policy: SendPolicy,
    ) -> tuple[dict[str, str], int]:
        """The fee to sign (the gas the simulation used plus a margin, and what the
        node's gas price asks for it, bounded), and the gas the simulation used."""
        trial = make_fee(SIMULATION_GAS, fee.get("gas_fee") or "1ugnot")
        _, used = self._simulate_signed(
            lambda: self._sign(signer, msgs, trial, memo, number, sequence)
        )
        wanted = math.ceil(used * GAS_MARGIN)
        if fee.get("gas_fee"):
            return make_fee(wanted, fee["gas_fee"]), used
        amount, per = self.gas_price()
        asked = max(math.ceil(wanted * amount / per), 1)
        if asked > policy.fee_cap:
            raise BadInput(
                f"the node asks a fee of {asked}ugnot ({wanted} gas at {amount}ugnot per "
                f"{per} gas), above the {gnot(policy.fee_cap)} c4 pays without being told; "
                "nothing was signed: pass --gas-fee to pay it, or raise --fee-cap"
            )
        return make_fee(wanted, f"{asked}ugnot"), used

    def _broadcast(self, signer: Signer, tx: dict[str, Any], sequence: int) -> Receipt:
        """Send a signed transaction and wait for its block.

        The journal holds it as pending before the bytes leave, and the outbox says
        "sent" from then on: whatever happens next (a lost answer, a signal, a
        crash) it is never reported as not recorded, and never sent twice.
        """
        raw = encode_tx(tx)
        tx_id = tx_hash(tx)
        if self.journal is not None:
            self.journal.pending(tx, raw, tx_id, signer, sequence)
        outbox.sending(tx_id)
        return self._deliver(signer, tx, raw, tx_id, sequence)

    def _deliver(
        self, signer: Signer, tx: dict[str, Any], raw: bytes, tx_id: str, sequence: int
    ) -> Receipt:
        """broadcast_tx_commit of bytes already journaled as pending (signed for
        ``sequence``), and the receipt."""
        try:
            answer = self.rpc(
                "broadcast_tx_commit",
                {"tx": base64.b64encode(raw).decode()},
                timeout=block_timeout(),
            )
        except Unreachable as lost:
            # The node may have the transaction even though its answer never came:
            # find it by hash before saying anything, and never send it again.
            return self._find_or_pending(signer, tx, tx_id, sequence, str(lost))
        try:
            check = answer["check_tx"].get("ResponseBase", answer["check_tx"])
            refusal = answers.refusal(check) if check.get("Error") else None
            deliver = answer["deliver_tx"]
            height = int(answer["height"])
            answered_hash = answers.hash_text(answer.get("hash"))
        except (KeyError, TypeError, AttributeError, ValueError):
            return self._find_or_pending(
                signer,
                tx,
                tx_id,
                sequence,
                f"{self.redacted} answered broadcast_tx_commit in a shape it never has",
            )
        if refusal is not None:
            # Refused by the ante handler: not in the mempool, never in a block (the
            # node's word: reported as such, but no secret is deleted on it).
            outbox.denied(tx_id)
            if self.journal is not None:
                self.journal.dropped(tx_id, f"refused before a block: {refusal}")
            raise Refused(refusal)
        if answered_hash != tx_id or height <= 0:
            # Not this transaction's answer (a proxy's invention, another tx's): ask
            # the node about ours instead of believing it.
            return self._find_or_pending(
                signer,
                tx,
                tx_id,
                sequence,
                f"{self.redacted} answered the broadcast with another "
                f"transaction's result (hash {answered_hash or '-'}, height {height})",
            )
        return self._landed(signer, tx, tx_id, {"tx_result": deliver}, height)

    def _find_or_pending(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, sequence: int, why: str
    ) -> Receipt:
        found = self._look_up(signer, tx_id, sequence)
        if found is None:
            raise Unreachable(
                f"{why}; the transaction was sent (TX HASH {tx_id}) and is pending, not yet "
                f"seen in a block: `c4 tx {tx_id}` tells, `c4 log` settles it once it lands, "
                "and the next transaction of this account settles it first"
            )
        try:
            height = int(found["height"])
        except (KeyError, TypeError, ValueError):
            raise Unreachable(f"{self.redacted} answered tx {tx_id} without a height") from None
        return self._landed(signer, tx, tx_id, found, height)

    def _look_up(self, signer: Signer, tx_id: str, sequence: int) -> dict[str, Any] | None:
        """The transaction by hash, asked until the deadline ($C4_TIMEOUT) passes.

        Not found while the account's sequence has moved past ``sequence``: another
        transaction of the account took its place (signed at the same moment by another
        client, through another node), and it can never land: dropped, and Superseded.
        """
        deadline = wallclock.monotonic() + self.timeout
        while True:
            found = self._transaction_or_none(tx_id, deadline)
            if found is not None:
                return found
            if self._sequence_or_none(signer) > sequence:
                # A node records where a transaction landed before it commits the block's
                # state, so the account's new sequence is never seen before the record.
                found = self._transaction_or_none(tx_id, deadline)
                if found is not None:
                    return found
                outbox.denied(tx_id)
                if self.journal is not None:
                    self.journal.dropped(tx_id, "another transaction took its sequence")
                raise Superseded(
                    f"another transaction of {signer.address} took sequence {sequence} first "
                    f"(signed elsewhere at the same moment); transaction {tx_id} can never land"
                )
            if wallclock.monotonic() + 1 > deadline:
                return None
            wallclock.sleep(1)

    def _transaction_or_none(self, tx_id: str, deadline: float) -> dict[str, Any] | None:
        try:
            return self.transaction(tx_id, timeout=max(deadline - wallclock.monotonic(), 0.1))
        except Unreachable:
            return None

    def _sequence_or_none(self, signer: Signer) -> int:
        """The account's sequence now, or -1 when no node says."""
        try:
            return self.account_numbers(signer)[1]
        except (Unreachable, Refused):
            return -1

    def reconcile(self, signer: Signer) -> None:
        """Settle what this home sent for ``signer``'s account and has not seen land.

        Each pending transaction is looked up by hash. Found: journaled as landed
        (or refused). Not found, and the account's sequence has moved past it:
        another transaction took its place, it can never land (dropped). Not found
        and its sequence still free: the very same bytes are sent again (the same
        hash: it can land once at most) and awaited; still nowhere, this command
        signs nothing (exit 4) rather than risk paying twice.
        """
        if self.journal is None:
            return
        for entry in self.journal.unsettled(signer.address, signer.session_addr):
            tx_id = str(entry["hash"])
            found = self.transaction(tx_id)
            if found is None:
                _, sequence = self.account_numbers(signer)
                if sequence > int(entry.get("sequence", 0)):
                    found = self.transaction(tx_id)  # it may have just been indexed
                    if found is None:
                        self.journal.dropped(tx_id, "another transaction took its sequence")
                        warn_once(f"note: transaction {tx_id}, sent earlier, never landed")
                        continue
            tx = entry.get("signed")
            if not isinstance(tx, dict):
                raise HomeDamaged(f"{self.journal.path}: pending {tx_id} lacks its transaction")
            try:
                if found is None:
                    raw = base64.b64decode(str(entry.get("tx", "")))
                    receipt = self._resend(signer, tx, raw, tx_id, int(entry.get("sequence", 0)))
                else:
                    receipt = self._landed(signer, tx, tx_id, found, int(found["height"]))
            except Refused as refused:
                outbox.forget(tx_id)
                warn_once(f"note: transaction {tx_id}, sent earlier, {refused}")
                continue
            except (KeyError, TypeError, ValueError):
                raise Unreachable(f"{self.redacted} answered tx {tx_id} without a height") from None
            outbox.forget(tx_id)
            warn_once(f"note: transaction {tx_id}, sent earlier, landed at height {receipt.height}")

    def listing(self, first: int, last: int | None, tail: int | None) -> list[dict[str, Any]]:
        """What this home sent, its pending transactions looked up first (see
        :meth:`settle_seen`)."""
        self.settle_seen()
        return super().listing(first, last, tail)

    def settle_seen(self) -> None:
        """Every pending transaction of this home that is now in a block, journaled as
        landed (or refused there). One still unseen stays pending: a view sends nothing
        and drops nothing (the next transaction of its account settles it)."""
        if self.journal is None:
            return
        for entry in self.journal.unseen():
            tx = entry.get("signed")
            if not isinstance(tx, dict):
                continue
            tx_id = str(entry["hash"])
            try:
                found = self.transaction(tx_id)
                if found is None:
                    continue
                signer = Signer(str(entry.get("signer")), b"", entry.get("session") or None)
                receipt = self._landed(signer, tx, tx_id, found, int(found["height"]))
            except Unreachable:
                return  # no node answers now: pending it stays
            except RefusedInBlock as refused:
                warn_once(f"note: transaction {tx_id}, sent earlier, {refused}")
            except (KeyError, TypeError, ValueError):
                continue
            else:
                warn_once(
                    f"note: transaction {tx_id}, sent earlier, landed at height {receipt.height}"
                )
            outbox.forget(tx_id)

    def _resend(
        self, signer: Signer, tx: dict[str, Any], raw: bytes, tx_id: str, sequence: int
    ) -> Receipt:
        """The same bytes once more, for a pending transaction the node does not have."""
        outbox.sending(tx_id)
        try:
            return self._deliver(signer, tx, raw, tx_id, sequence)
        except Unreachable as exc:
            if "already exists in cache" in str(exc) or "in the mempool" in str(exc):
                return self._find_or_pending(
                    signer, tx, tx_id, sequence, "it is in the node's mempool"
                )
            raise Unreachable(
                f"transaction {tx_id}, sent earlier, is still not in a block and nothing new "
                f"was signed ({exc}); try again later"
            ) from None

    def _landed(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, found: dict[str, Any], height: int
    ) -> Receipt:
        """The receipt of a transaction in block ``height``, checked against that block,
        journaled; a refusal by the realm or the VM raises Refused saying what it cost."""
        receipt, error = self._receipt(signer, tx, tx_id, found, height)
        outbox.landed(tx_id, height)
        fee = str(tx.get("fee", {}).get("gas_fee") or "0ugnot")
        if self.journal is not None:
            self.journal.landed(receipt, fee=fee, error=error)
        if error:
            raise RefusedInBlock(
                f"{error}; the transaction landed in block {height} (TX HASH {tx_id}) and "
                f"paid its fee of {fee}"
            )
        return receipt

    def _receipt(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, found: dict[str, Any], height: int
    ) -> tuple[Receipt, str]:
        """The receipt of a transaction found in a block, and the refusal's words if the
        realm or the VM refused it there ("" if not)."""
        try:
            base, data, events = answers.delivered(found)
            gas_used = answers.int64(found["tx_result"].get("GasUsed") or 0)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered with a transaction in a shape it never has"
            ) from None
        time = self._block_holding(height, encode_tx(tx))
        error = answers.refusal(base) if base.get("Error") else ""
        result = TxOutcome(
            tx,
            tx_id,
            signer.address,
            funcs=tuple(msg_names(tx)),
            values=tuple(answers.call_values(data)),
            data=data,
            transfers=() if error else tuple(self._transfers(events)),
        )
        receipt = Receipt(
            height=height,
            time=time,
            result=result,
            gas_used=gas_used,
            events=answers.gnokey_events(events),
            storage=answers.storage_moved(events),
            info=str(base.get("Info") or ""),
        )
        return receipt, error

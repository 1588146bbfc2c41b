"""A gno.land node's side of a transaction once its bytes leave: delivered, proved.

``broadcast_tx_commit`` of bytes journaled as pending first. After that only
positive evidence moves the transaction out of pending: a block that holds it
(landed, or refused there), or, once the account's sequence is past it, the
blocks since it was sent without it (superseded: another transaction of the
account took its sequence, :mod:`c4cli.chain.node_proof`). A lost answer, a
failed or lagging look-up, a timeout, or an answer that names another TX HASH is
no evidence: the transaction stays pending and nothing is signed again. A node's
refusal before a block is believed only if it names this TX HASH while the
account's sequence is still this one's. :meth:`NodeDelivery.reconcile` settles
what an earlier command left unsettled before a new transaction is signed.
"""

from __future__ import annotations

import base64
import time as wallclock
from typing import Any, NamedTuple, NoReturn

from c4cli import outbox
from c4cli.chain import answers
from c4cli.chain.amino import encode_tx, tx_hash
from c4cli.chain.interface import Receipt, Signer, TxOutcome
from c4cli.chain.node_proof import Fate, account_and_head, fate_from_blocks
from c4cli.chain.node_reads import read_calls
from c4cli.chain.node_receipts import NodeReceipts, RefusedInBlock
from c4cli.chain.rpc import Rpc, block_timeout
from c4cli.errors import HomeDamaged, Refused, Unreachable, warn_once


class Superseded(Refused):
    """Another transaction of the account took this one's sequence: it never lands."""


class Duplicate(Unreachable):
    """The node holds these very bytes already, sent by another client of the key."""


class Sent(NamedTuple):
    """A signed transaction whose bytes may have left: for which account and sequence,
    and a height the node had before they did (no block up to it holds them)."""

    signer: Signer
    tx: dict[str, Any]
    raw: bytes
    tx_id: str
    sequence: int
    since: int


class NodeDelivery(NodeReceipts):
    """Sending signed bytes to a node and learning their fate, journaled all along."""

    # The TX HASHes this submission sent (see reconcile's ``own``).
    sent_now: tuple[str, ...] = ()

    def _broadcast(self, signer: Signer, tx: dict[str, Any], sequence: int) -> Receipt:
        """Send a signed transaction and wait for its block.

        The journal holds it as pending before the bytes leave, and the outbox says
        "sent" from then on: whatever happens next (a lost answer, a signal, a
        crash) it is never reported as not recorded, and never sent twice.
        """
        raw = encode_tx(tx)
        tx_id = tx_hash(tx)
        since = self.first_height
        if self.journal is not None:
            self.journal.pending(tx, raw, tx_id, signer, sequence, since)
        self.sent_now = (*self.sent_now, tx_id)
        outbox.sending(tx_id)
        return self._deliver(Sent(signer, tx, raw, tx_id, sequence, since))

    def _deliver(self, sent: Sent, *, again: bool = False) -> Receipt:
        """broadcast_tx_commit of bytes already journaled as pending, and the receipt.

        Only the answer that names this TX HASH is read at all; a refusal in it is
        believed only while the account's sequence has not moved past this one's
        (else it may have landed, and the blocks decide). ``again``: bytes an earlier
        command sent, which the node may hold already."""
        # What the caller reads once it lands, as far as the transaction names it before.
        reads = self._reads_after(TxOutcome(sent.tx, sent.tx_id, sent.signer.address))
        try:
            answer = self._commit(sent.raw, sent.tx_id, reads)
        except Unreachable as lost:
            if answers.already_held(str(lost)) and not again:
                # These very bytes reached the node before this command's: signed at the
                # same moment by another client of the key. Not this command's to report.
                raise Duplicate(
                    f"{self.redacted} already holds this very transaction (TX HASH "
                    f"{sent.tx_id}), sent at the same moment by another client of this key "
                    "(another home, or gnokey), not by this command: `c4 tx "
                    f"{sent.tx_id}` tells whether it lands"
                ) from None
            # The node may have the transaction even though its answer never came:
            # find it by hash before saying anything, and never send it again.
            return self._find_or_pending(sent, str(lost))
        try:
            check = answer["check_tx"].get("ResponseBase", answer["check_tx"])
            refusal = answers.refusal(check) if check.get("Error") else None
            deliver = answer["deliver_tx"]
            height = int(answer["height"])
            answered_hash = answers.hash_text(answer.get("hash"))
        except (KeyError, TypeError, AttributeError, ValueError):
            return self._find_or_pending(
                sent, f"{self.redacted} answered broadcast_tx_commit in a shape it never has"
            )
        if answered_hash != sent.tx_id or (refusal is None and height <= 0):
            # Not this transaction's answer (a proxy's invention, another tx's): ask
            # the node about ours instead of believing it.
            return self._find_or_pending(
                sent,
                f"{self.redacted} answered the broadcast with another transaction's result "
                f"(hash {answered_hash or '-'}, height {height})",
            )
        if refusal is not None:
            return self._refused_before_block(sent, refusal)
        return self._landed(sent.signer, sent.tx, sent.tx_id, {"tx_result": deliver}, height)

    def _refused_before_block(self, sent: Sent, refusal: str) -> Receipt:
        """The node's refusal of this transaction before a block (its CheckTx). Believed
        while the account's sequence is still this transaction's: whatever the node
        does with the bytes, the next transaction is signed for the same sequence, so
        at most one of them lands. Moved past it (or not to be read): it may have
        landed after all, and only a block says."""
        try:
            _, now, _ = account_and_head(self, sent.signer)
        except Unreachable:
            now = sent.sequence + 1
        if now > sent.sequence:
            return self._find_or_pending(
                sent,
                f"{self.redacted} said it refused the transaction ({refusal}), but the "
                f"account's sequence is no longer {sent.sequence}",
            )
        outbox.denied(sent.tx_id)
        if self.journal is not None:
            self.journal.dropped(sent.tx_id, f"refused before a block: {refusal}", unproven=True)
        raise Refused(refusal)

    def _commit(self, raw: bytes, tx_id: str, reads: list[tuple[str, str]]) -> Any:
        """broadcast_tx_commit's answer; or Unreachable, as the call alone would raise.

        Where the node has answered a batch in this command, the request also asks
        for the last block, the node's status (its own height, which a landing must
        not pass) and ``reads`` (what the caller will read once the
        transaction lands, as far as it is known before: a call about a game names
        it). tm2 answers a batch's calls in order, so they come once the block with
        the transaction is committed: its receipt then needs no request of its own
        (:meth:`_block_holding` checks that block as it would have read it). They
        ride after the broadcast, never before: the chain was checked already, and
        the bytes go to this one node.
        """
        params = {"tx": base64.b64encode(raw).decode()}
        self.landing, self.head_after = None, 0
        if not self._checked:
            self._over_nodes(self._check_chain)
        if not self.takes_batches:
            return Rpc.rpc(self, "broadcast_tx_commit", params, timeout=block_timeout())
        found = self.batch(
            [("broadcast_tx_commit", params), ("block", {}), ("status", {}), *read_calls(reads)],
            timeout=block_timeout(),
        )
        if found is None:
            raise Unreachable(
                f"{self.redacted} answered broadcast_tx_commit in a shape it never has"
            )
        answer, block, status, *read = found
        if isinstance(answer, Unreachable):
            raise answer
        if not isinstance(block, Unreachable):
            self.landing = (tx_id, block, reads, read)
        self.head_after = self._height_of(status)
        return answer

    def _find_or_pending(self, sent: Sent, why: str) -> Receipt:
        found = self._look_up(sent)
        if found is None:
            raise Unreachable(
                f"{why}; the transaction was sent (TX HASH {sent.tx_id}) and is pending, not "
                f"yet seen in a block: `c4 tx {sent.tx_id}` tells, `c4 log` settles it once it "
                "lands, and the next transaction of this account settles it first"
            )
        try:
            height = int(found["height"])
        except (KeyError, TypeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered tx {sent.tx_id} without a height"
            ) from None
        return self._landed(sent.signer, sent.tx, sent.tx_id, found, height)

    def _look_up(self, sent: Sent) -> dict[str, Any] | None:
        """The transaction as a node has it, asked until the deadline ($C4_TIMEOUT)
        passes; None while nothing proves its fate.

        A failed look-up, or a "not found" (a node's index may lag), proves nothing.
        Once the account's sequence is past this transaction's, the blocks since it
        was sent decide (:func:`fate_from_blocks`): it is in one, or it never lands
        (Superseded: dropped, and the caller may sign again)."""
        deadline = wallclock.monotonic() + self.timeout
        while True:
            found = self._transaction_or_none(sent.tx_id, deadline)
            if found is not None:
                return found
            try:
                fate = fate_from_blocks(self, sent.signer, sent.raw, sent.sequence, sent.since)
            except Unreachable:
                fate = None  # no answer is no evidence
            if fate is not None and fate.found is not None:
                return fate.found
            if fate is not None:
                self._superseded(sent, fate)
            if wallclock.monotonic() + 1 > deadline:
                return None
            wallclock.sleep(1)

    def _superseded(self, sent: Sent, fate: Fate) -> NoReturn:
        """Dropped for good, on the blocks' proof, and said: another transaction took
        its sequence, so the caller may sign again."""
        took, where = self._dropped_for(sent, fate)
        raise Superseded(
            f"{took} of {sent.signer.address} took sequence {sent.sequence}{where} (signed "
            f"elsewhere at the same moment): transaction {sent.tx_id} can never land"
        )

    def _dropped_for(self, sent: Sent, fate: Fate) -> tuple[str, str]:
        """Journal ``sent`` as dropped on the blocks' proof (``fate``: another transaction
        took its sequence); the taker and where, as the messages name them."""
        took = f"transaction {fate.taker}" if fate.taker else "another transaction"
        where = f" at height {fate.height}" if fate.height else ""
        outbox.denied(sent.tx_id)
        if self.journal is not None:
            self.journal.dropped(
                sent.tx_id, f"{took} of this account took its sequence {sent.sequence}{where}"
            )
        return took, where

    def _transaction_or_none(self, tx_id: str, deadline: float) -> dict[str, Any] | None:
        try:
            return self.transaction(tx_id, timeout=max(deadline - wallclock.monotonic(), 0.1))
        except Unreachable:
            return None

    def reconcile(self, signer: Signer, *, below: int | None = None) -> Receipt | None:
        """Settle what this home sent for ``signer``'s account and no block has proved,
        before anything new is signed for it (``below``: only what was signed for a
        sequence under this one, the account's now).

        Each is looked up by hash, then, once the account's sequence is past it, in
        the blocks since it was sent: found, journaled as landed (or refused); proved
        superseded, dropped. Its sequence still free: a pending one's very bytes are
        sent again (the same hash: it lands once at most); one a node said it
        refused is left, as the new transaction takes the same sequence. Anything
        unproved while the sequence has moved, or a node that does not answer: this
        command signs nothing (exit 4) rather than risk paying twice.

        One this very command sent (a refusal that was not the truth, an answer that
        was lost) and that landed is the command's own result: its receipt."""
        if self.journal is None:
            return None
        for entry in self.journal.unsettled(signer.address, signer.session_addr):
            tx = entry.get("signed")
            if not isinstance(tx, dict) or not isinstance(entry.get("tx"), str):
                raise HomeDamaged(
                    f"{self.journal.path}: unsettled {entry['hash']} lacks its transaction"
                )
            sent = Sent(
                signer,
                tx,
                base64.b64decode(str(entry["tx"])),
                str(entry["hash"]),
                int(entry.get("sequence", 0)),
                int(entry.get("since", 0)),
            )
            if below is not None and sent.sequence >= below:
                continue
            own = sent.tx_id in self.sent_now
            refused = str(entry.get("reason") or "")
            try:
                receipt = self._settle_earlier(sent, refused, own=own)
            except Refused as refusal:
                if own:
                    raise
                outbox.forget(sent.tx_id)
                warn_once(f"note: transaction {sent.tx_id}, sent earlier, {refusal}")
                continue
            if own and receipt is not None:
                return receipt
            if not own:
                outbox.forget(sent.tx_id)
        return None

    def _settle_earlier(self, sent: Sent, refused: str, *, own: bool = False) -> Receipt | None:
        """One unsettled transaction (``refused``: what a node said when it refused it
        before a block, if it did; ``own``: sent by this command): its receipt if it
        landed, None if it never will or its sequence is still free."""
        tx_id = sent.tx_id
        # A look-up that fails is no evidence either way: the blocks decide.
        found = self._transaction_or_none(tx_id, wallclock.monotonic() + self.timeout)
        try:
            fate = (
                None
                if found is not None
                else fate_from_blocks(self, sent.signer, sent.raw, sent.sequence, sent.since)
            )
        except Unreachable as exc:
            raise Unreachable(
                f"transaction {tx_id}, sent earlier, is not yet proved landed or dropped "
                f"({exc}); nothing new was signed: `c4 tx {tx_id}` looks, and the next "
                "command settles it"
            ) from None
        if fate is not None and fate.found is None:
            took, _ = self._dropped_for(sent, fate)
            if not own and not refused:  # news only to whom it was not said refused
                warn_once(f"note: transaction {tx_id}, sent earlier, never landed: {took} took it")
            return None
        found = found or (None if fate is None else fate.found)
        if found is None:
            if refused or own:
                return None  # its sequence is free: the new transaction takes it
            receipt = self._resend(sent)
        else:
            try:
                receipt = self._landed(sent.signer, sent.tx, tx_id, found, int(found["height"]))
            except (KeyError, TypeError, ValueError):
                raise Unreachable(f"{self.redacted} answered tx {tx_id} without a height") from None
            if own:
                return receipt
            if refused:
                raise Unreachable(
                    f"transaction {tx_id}, which a node said it refused ({refused}), landed "
                    f"at height {receipt.height} after all; nothing new was signed: run the "
                    "command again if another transaction is meant"
                )
        warn_once(f"note: transaction {tx_id}, sent earlier, landed at height {receipt.height}")
        return receipt

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

    def _resend(self, sent: Sent) -> Receipt:
        """The same bytes once more, for a pending transaction the node does not have."""
        outbox.sending(sent.tx_id)
        try:
            return self._deliver(sent, again=True)
        except Unreachable as exc:
            if answers.already_held(str(exc)) or "in the mempool" in str(exc):
                return self._find_or_pending(sent, "it is in the node's mempool")
            raise Unreachable(
                f"transaction {sent.tx_id}, sent earlier, is still not in a block and nothing "
                f"new was signed ({exc}); try again later"
            ) from None

"""A gno.land node's side of a transaction once its bytes leave: delivered, proved.

``broadcast_tx_commit`` of bytes journaled as pending first. After that only
positive evidence moves the transaction out of pending: a block that holds it
(landed, or refused there), or, once the account's sequence is past it, the
blocks since it was sent without it (superseded: another transaction of the
account took its sequence, :mod:`c4cli.node.sending.proof`). A lost answer, a
failed or lagging look-up, a timeout, or an answer that names another TX HASH is
no evidence: the transaction stays pending and nothing is signed again. A node's
refusal before a block is believed only if it names this TX HASH while the
account's sequence is still this one's. :meth:`Delivery.reconcile` settles
what an earlier command left unsettled before a new transaction is signed.
"""

from __future__ import annotations

import base64
import time as wallclock
from typing import NamedTuple, NoReturn, TypeVar

from c4cli import outbox
from c4cli.chain.interface import Receipt, SentLog, Signer, ThenRead, TxOutcome
from c4cli.errors import Refused, Unreachable, warn_once
from c4cli.node.net import answers, rpc
from c4cli.node.net.rpc import Malformed
from c4cli.node.net.transport import AlreadyHeld, MempoolRefused
from c4cli.node.reader import NodeReader, read_calls
from c4cli.node.sending.lookup import transaction, transaction_or_none
from c4cli.node.sending.proof import BlockFate, account_and_head, fate_from_blocks
from c4cli.node.sending.receipts import Landed, Landing, RefusedInBlock, reads_after
from c4cli.node.sending.recheck import recheck
from c4cli.settings import BLOCK_DEADLINE
from c4cli.wire.abci import ResponseDeliverTx
from c4cli.wire.rpc import ResultBroadcastTxCommit, ResultTx
from c4cli.wire.std import Tx, encode_tx, tx_hash

T = TypeVar("T")


class Superseded(Refused):
    """Another transaction of the account took this one's sequence: it never lands."""


class Duplicate(Unreachable):
    """The node holds these very bytes already, sent by another client of the key."""


class InMempool(Unreachable):
    """Bytes sent again that the node's mempool holds already: looked up, not resent."""


class Sent(NamedTuple):
    """A signed transaction whose bytes may have left: for which account and sequence,
    and a height the node had before they did (no block up to it holds them)."""

    signer: Signer
    tx: Tx
    raw: bytes
    tx_id: str
    sequence: int
    since: int


class Submission:
    """One submission of a command: the TX HASHes it sent (see reconcile's ``own``), and
    what its caller reads once its transaction lands (Chain.submit's ``then_read``)."""

    def __init__(self, then_read: ThenRead | None = None) -> None:
        self.sent: list[str] = []
        self.then_read = then_read


class Delivery:
    """Sending signed bytes to a node and learning their fate, journaled all along."""

    def __init__(
        self, reader: NodeReader, journal: SentLog | None, *, block_deadline: float = BLOCK_DEADLINE
    ) -> None:
        self.reader = reader
        self.journal = journal
        self.receipts = Landed(reader, journal)
        self.block_deadline = block_deadline  # seconds a broadcast waits for its block

    @property
    def redacted(self) -> str:
        return self.reader.redacted

    def broadcast(self, signer: Signer, tx: Tx, sequence: int, submission: Submission) -> Receipt:
        """Send a signed transaction and wait for its block.

        The journal holds it as pending before the bytes leave, and the outbox says
        "sent" from then on: whatever happens next (a lost answer, a signal, a
        crash) it is never reported as not recorded, and never sent twice.
        """
        raw = encode_tx(tx)
        tx_id = tx_hash(tx)
        transport = self.reader.transport
        transport.ensure_checked()
        since = transport.first_height
        if self.journal is not None:
            self.journal.pending(tx, raw, tx_id, signer, sequence, since)
        submission.sent.append(tx_id)
        outbox.sending(tx_id)
        return self._deliver(Sent(signer, tx, raw, tx_id, sequence, since), submission.then_read)

    def _deliver(
        self, sent: Sent, then_read: ThenRead | None = None, *, again: bool = False
    ) -> Receipt:
        """broadcast_tx_commit of bytes already journaled as pending, and the receipt.

        Only the answer that names this TX HASH is read at all; a refusal in it is
        believed only while the account's sequence has not moved past this one's
        (else it may have landed, and the blocks decide). ``again``: bytes an earlier
        command sent, which the node may hold already."""
        # What the caller reads once it lands, as far as the transaction names it before.
        reads = reads_after(
            self.reader, then_read, TxOutcome(sent.tx, sent.tx_id, sent.signer.address)
        )
        try:
            answer, landing = self._commit(sent.raw, sent.tx_id, reads)
        except Unreachable as lost:
            if again and isinstance(lost, AlreadyHeld | MempoolRefused):
                raise InMempool(str(lost)) from None
            if isinstance(lost, AlreadyHeld):
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
            return self._find_or_pending(sent, str(lost), then_read)
        if isinstance(answer, Unreachable):  # an answer in a shape it never has
            return self._find_or_pending(sent, str(answer), then_read)
        check = answer.check_tx
        refusal = answers.refusal(check.error, check.log) if check.refused else None
        height = answer.height
        answered_hash = tx_id_of(answer.hash)
        if answered_hash != sent.tx_id or (refusal is None and height <= 0):
            # Not this transaction's answer (a proxy's invention, another tx's): ask
            # the node about ours instead of believing it.
            return self._find_or_pending(
                sent,
                f"{self.redacted} answered the broadcast with another transaction's result "
                f"(hash {answered_hash or '-'}, height {height})",
                then_read,
            )
        if refusal is not None:
            return self._refused_before_block(sent, refusal, check, then_read)
        return self.receipts.landed(
            sent.signer,
            sent.tx,
            sent.tx_id,
            answer.deliver_tx,
            height,
            landing=landing,
            then_read=then_read,
        )

    def _refused_before_block(
        self, sent: Sent, refusal: str, check: ResponseDeliverTx, then_read: ThenRead | None
    ) -> Receipt:
        """The node's refusal of this transaction before a block (its CheckTx). Believed
        while the account's sequence is still this transaction's: whatever the node
        does with the bytes, the next transaction is signed for the same sequence, so
        at most one of them lands. Moved past it (or not to be read): it may have
        landed after all, and only a block says."""
        try:
            _, now, _ = account_and_head(self.reader, sent.signer)
        except Unreachable:
            now = sent.sequence + 1
        if now > sent.sequence:
            return self._find_or_pending(
                sent,
                f"{self.redacted} said it refused the transaction ({refusal}), but the "
                f"account's sequence is no longer {sent.sequence}",
                then_read,
            )
        outbox.denied(sent.tx_id)
        if self.journal is not None:
            self.journal.dropped(sent.tx_id, f"refused before a block: {refusal}", unproven=True)
        raise Refused(refusal, kind=check.error.type_url if check.error is not None else "")

    def _commit(
        self, raw: bytes, tx_id: str, reads: list[tuple[str, str]]
    ) -> tuple[ResultBroadcastTxCommit | Unreachable, Landing | None]:
        """broadcast_tx_commit's answer, and what came with it in its request; or
        Unreachable, as the call alone would raise.

        Where the node has answered a batch in this command, the request also asks
        for the last block, the node's status (its own height, which a landing must
        not pass) and ``reads`` (what the caller will read once the
        transaction lands, as far as it is known before: a call about a game names
        it). tm2 answers a batch's calls in order, so they come once the block with
        the transaction is committed: its receipt then needs no request of its own
        (:func:`~c4cli.node.sending.lookup.block_holding` checks that block as it would have
        read it). They ride after the broadcast, never before: the chain was checked
        already, and the bytes go to this one node, once.
        """
        verified = self.reader.verifier is not None
        broadcast, block, commit, status = (
            rpc.broadcast_tx_commit(raw),
            rpc.block(0),
            rpc.commit(),
            rpc.status(),
        )
        calls = read_calls(reads)
        # Where blocks are verified, the last block's commit (its validators' signatures)
        # rides along instead of the status: the proven header is the height, and no
        # request more is made for the proof.
        asked = [broadcast, block, commit if verified else status, *calls]
        found = self.reader.rpc.send(asked, timeout=self.block_deadline)
        answer = found.get(broadcast)
        if isinstance(answer, Unreachable) and not isinstance(answer, Malformed):
            raise answer
        if len(found) == 1:
            return answer, None
        came, read = _or_none(found.get(block)), [found.get(c) for c in calls]
        if verified:
            return answer, Landing(tx_id, came, reads, read, 0, _or_none(found.get(commit)))
        head = _or_none(found.get(status))
        return answer, Landing(tx_id, came, reads, read, head.latest_block_height if head else 0)

    def _find_or_pending(self, sent: Sent, why: str, then_read: ThenRead | None) -> Receipt:
        found = self._look_up(sent)
        if found is None:
            raise Unreachable(
                f"{why}; the transaction was sent (TX HASH {sent.tx_id}) and is pending, not "
                f"yet seen in a block: `c4 tx {sent.tx_id}` tells, `c4 log` settles it once it "
                "lands, and the next transaction of this account settles it first"
            )
        return self.receipts.landed(
            sent.signer, sent.tx, sent.tx_id, found.tx_result, found.height, then_read=then_read
        )

    def _look_up(self, sent: Sent) -> ResultTx | None:
        """The transaction as a node has it, asked until the deadline ($C4_TIMEOUT)
        passes; None while nothing proves its fate.

        A failed look-up, or a "not found" (a node's index may lag), proves nothing.
        Once the account's sequence is past this transaction's, the blocks since it
        was sent decide (:func:`fate_from_blocks`): it is in one, or it never lands
        (Superseded: dropped, and the caller may sign again)."""
        deadline = wallclock.monotonic() + self.reader.transport.timeout
        while True:
            found = transaction_or_none(self.reader, sent.tx_id, deadline - wallclock.monotonic())
            if found is not None:
                return found
            try:
                fate = fate_from_blocks(
                    self.reader, sent.signer, sent.raw, sent.sequence, sent.since
                )
            except Unreachable:
                fate = None  # no answer is no evidence
            if fate is not None and fate.found is not None:
                return fate.found
            if fate is not None:
                self._superseded(sent, fate)
            if wallclock.monotonic() + 1 > deadline:
                return None
            wallclock.sleep(1)

    def _superseded(self, sent: Sent, fate: BlockFate) -> NoReturn:
        """Dropped for good, on the blocks' proof, and said: another transaction took
        its sequence, so the caller may sign again."""
        took, where = self._dropped_for(sent, fate)
        raise Superseded(
            f"{took} of {sent.signer.address} took sequence {sent.sequence}{where} (signed "
            f"elsewhere at the same moment): transaction {sent.tx_id} can never land"
        )

    def _dropped_for(self, sent: Sent, fate: BlockFate) -> tuple[str, str]:
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

    def reconcile(
        self, signer: Signer, submission: Submission, *, below: int | None = None
    ) -> Receipt | None:
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
        recheck(self.reader, self.journal, signer)
        for entry in self.journal.unsettled(signer.address, signer.session_addr):
            sent = Sent(signer, entry.signed, entry.raw, entry.tx_id, entry.sequence, entry.since)
            if below is not None and sent.sequence >= below:
                continue
            own = sent.tx_id in submission.sent
            try:
                receipt = self._settle_earlier(sent, entry.refused, own=own)
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
        found = transaction_or_none(self.reader, tx_id, self.reader.transport.timeout)
        try:
            fate = (
                None
                if found is not None
                else fate_from_blocks(self.reader, sent.signer, sent.raw, sent.sequence, sent.since)
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
            receipt = self.receipts.landed(
                sent.signer, sent.tx, tx_id, found.tx_result, found.height
            )
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

    def settle_seen(self) -> None:
        """Every pending transaction of this home that is now in a block, journaled as
        landed (or refused there). One still unseen stays pending: a view sends nothing
        and drops nothing (the next transaction of its account settles it)."""
        if self.journal is None:
            return
        for entry in self.journal.unseen():
            tx_id = entry.tx_id
            try:
                found = transaction(self.reader, tx_id)
                if found is None:
                    continue
                signer = Signer(entry.signer, b"", entry.session)
                receipt = self.receipts.landed(
                    signer, entry.signed, tx_id, found.tx_result, found.height
                )
            except Unreachable:
                return  # no node answers now: pending it stays
            except RefusedInBlock as refused:
                warn_once(f"note: transaction {tx_id}, sent earlier, {refused}")
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
        except InMempool:
            return self._find_or_pending(sent, "it is in the node's mempool", None)
        except Unreachable as exc:
            raise Unreachable(
                f"transaction {sent.tx_id}, sent earlier, is still not in a block and nothing "
                f"new was signed ({exc}); try again later"
            ) from None


def tx_id_of(raw: bytes) -> str:
    """A transaction's hash as c4 names it: base64, as a node's JSON gives it."""
    return base64.b64encode(raw).decode() if raw else ""


def _or_none(found: T | Unreachable) -> T | None:
    """A ride's answer, or None where it failed (it is asked again when needed)."""
    return None if isinstance(found, Unreachable) else found

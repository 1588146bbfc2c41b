"""A gno.land node's side of a transaction once its bytes leave: delivered, found.

``broadcast_tx_commit`` of bytes journaled as pending first; when its answer is
lost, the transaction looked up by hash (never sent twice); when the account's
sequence moved past it unseen, dropped (:class:`Superseded`); a landed one's
receipt read from its block and checked against it. :meth:`NodeDelivery.reconcile`
settles what an earlier command left pending before a new transaction is signed.
"""

from __future__ import annotations

import base64
import time as wallclock
from typing import Any

from c4cli import outbox
from c4cli.chain import answers
from c4cli.chain.amino import encode_tx, tx_hash
from c4cli.chain.interface import Receipt, Signer, ThenRead, TxOutcome
from c4cli.chain.msgs import msg_names
from c4cli.chain.node_reads import read_calls
from c4cli.chain.node_txs import NodeTransactions
from c4cli.chain.rpc import Rpc, block_timeout
from c4cli.errors import HomeDamaged, Refused, Unreachable, warn_once


class RefusedInBlock(Refused):
    """The realm or the VM refused a transaction that is in a block: it paid its fee."""


class Superseded(Refused):
    """Another transaction of the account took this one's sequence: it never lands."""


class NodeDelivery(NodeTransactions):
    """Sending signed bytes to a node and learning their fate, journaled all along."""

    # What the caller of the transaction being sent reads once it lands (Chain.submit's
    # then_read): asked after the broadcast in its request, or else with its block.
    then_read: ThenRead | None = None
    # The TX HASH of a broadcast, and the last block, the reads and their answers as
    # they came with it (see _commit).
    landing: tuple[str, Any, list[tuple[str, str]], list[Any]] | None = None

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
        # What the caller reads once it lands, as far as the transaction names it before.
        reads = self._reads_after(TxOutcome(tx, tx_id, signer.address))
        try:
            answer = self._commit(raw, tx_id, reads)
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

    def _commit(self, raw: bytes, tx_id: str, reads: list[tuple[str, str]]) -> Any:
        """broadcast_tx_commit's answer; or Unreachable, as the call alone would raise.

        Where the node has answered a batch in this command, the request also asks
        for the last block and ``reads`` (what the caller will read once the
        transaction lands, as far as it is known before: a call about a game names
        it). tm2 answers a batch's calls in order, so they come once the block with
        the transaction is committed: its receipt then needs no request of its own
        (:meth:`_block_holding` checks that block as it would have read it). They
        ride after the broadcast, never before: the chain was checked already, and
        the bytes go to this one node.
        """
        params = {"tx": base64.b64encode(raw).decode()}
        self.landing = None
        if not self._checked:
            self._over_nodes(self._check_chain)
        if not self.takes_batches:
            return Rpc.rpc(self, "broadcast_tx_commit", params, timeout=block_timeout())
        found = self.batch(
            [("broadcast_tx_commit", params), ("block", {}), *read_calls(reads)],
            timeout=block_timeout(),
        )
        if found is None:
            raise Unreachable(
                f"{self.redacted} answered broadcast_tx_commit in a shape it never has"
            )
        answer, block, *read = found
        if isinstance(answer, Unreachable):
            raise answer
        if not isinstance(block, Unreachable):
            self.landing = (tx_id, block, reads, read)
        return answer

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

    def _block_came(self, tx_id: str, height: int) -> Any:
        """Block ``height`` if it came with the answer to the broadcast of ``tx_id`` (the
        last block then), its reads kept to serve the caller's queries; None when
        another block came (or none): it is asked for."""
        landing, self.landing = self.landing, None
        if landing is None or landing[0] != tx_id:
            return None
        _, block, reads, found = landing
        try:
            came = int(block["block"]["header"]["height"])
        except (KeyError, TypeError, ValueError):
            return None
        if came >= height:  # the reads ran after the transaction's block was committed
            self.keep_answers(reads, found)
        return block if came == height else None

    def _reads_after(self, result: TxOutcome) -> list[tuple[str, str]]:
        """What the caller reads once ``result`` landed, to ask along with its block: a
        saving only, so a hint that cannot be made is none (the reads go alone)."""
        if self.then_read is None:
            return []
        try:
            return self.then_read(self, result)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return []

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
        block = self._block_came(tx_id, height)
        reads = [] if error or block is not None else self._reads_after(result)
        reads = [(path, data) for path, data in reads if not self.answered(path, data)]
        time = self._block_holding(height, encode_tx(tx), reads, block=block)
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

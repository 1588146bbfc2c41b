"""A landed transaction's receipt, read from the node and checked against its block.

A broadcast's answer, a look-up by hash or the blocks themselves say a
transaction is in block N; the receipt is built from that answer only once block
N is seen to hold the transaction's bytes, and journaled. What the command reads
once it lands (its game) rides along with that block where it can, and travels
in the receipt (``Receipt.read_back``).
"""

from __future__ import annotations

from typing import NamedTuple

from c4cli import outbox
from c4cli.chain.interface import Answer, Receipt, SentLog, Signer, ThenRead, TxOutcome
from c4cli.errors import NoValidators, Refused, Unreachable, Unverified
from c4cli.node.net import answers
from c4cli.node.net.rpc import Malformed
from c4cli.node.reader import NodeReader, Query
from c4cli.node.sending.lookup import block_holding, transfers
from c4cli.wire import results
from c4cli.wire.abci import ResponseDeliverTx
from c4cli.wire.events import gnokey_events, storage_moved
from c4cli.wire.rpc import ResultABCIQuery, ResultBlock, ResultCommit
from c4cli.wire.std import Tx, encode_tx

# Seconds a refusal in a block waits for the next block, whose header commits the
# results: gno.land makes one a second or so; a chain that makes blocks only with
# transactions may make none, and the refusal is then said to be the node's word.
RESULT_WAIT = 5.0


class RefusedInBlock(Refused):
    """The realm or the VM refused a transaction that is in a block: it paid its fee."""


class Landing(NamedTuple):
    """What came back in the request of a broadcast: the last block then (None if it did
    not come), the reads asked after it and their answers, and the node's height in its
    status after (0 if that did not come)."""

    tx_id: str
    block: ResultBlock | None
    reads: list[Query]
    found: list[ResultABCIQuery | Unreachable]
    head: int
    commit: ResultCommit | None = None  # the last block's commit, where blocks are verified


class Landed:
    """Receipts of transactions found in a block, journaled as landed (or refused)."""

    def __init__(self, reader: NodeReader, journal: SentLog | None) -> None:
        self.reader = reader
        self.journal = journal

    def landed(
        self,
        signer: Signer,
        tx: Tx,
        tx_id: str,
        found: ResponseDeliverTx,
        height: int,
        *,
        landing: Landing | None = None,
        then_read: ThenRead | None = None,
    ) -> Receipt:
        """The receipt of a transaction in block ``height``, checked against that block,
        journaled; a refusal by the realm or the VM raises Refused saying what it cost.
        A block that cannot be proven leaves it pending (Unverified, exit 4)."""
        try:
            receipt, error = self._receipt(signer, tx, tx_id, found, height, landing, then_read)
        except (Unverified, NoValidators) as unverified:
            raise type(unverified)(
                f"{unverified}: not believed; the transaction was sent (TX HASH {tx_id}) and "
                f"is pending, not proven landed: `c4 tx {tx_id}` looks again, and the next "
                "transaction of this account settles it first"
            ) from None
        outbox.landed(tx_id, height)
        fee = tx.fee.gas_fee or "0ugnot"
        if self.journal is not None:
            self.journal.landed(receipt, fee=fee, error=error)
            self.journal.took_sequence(tx_id, height)
        self.reader.transport.saw(height)  # what this command reads next shows it
        if error:
            why = receipt.proven.result_unproven if receipt.proven is not None else ""
            raise RefusedInBlock(
                f"{error}; the transaction landed in block {height} (TX HASH {tx_id}) and "
                f"paid its fee of {fee}"
                + (f" (the refusal is the node's word: {why})" if why else "")
            )
        return receipt

    def _head_reaches(self, height: int, head: int) -> None:
        """A block at ``height`` is believed only once the node's own status reaches it:
        a forged one far ahead would otherwise raise this home's seen height and make
        every honest node look rolled back."""
        if head < height:
            try:
                head = self.reader.rpc.status().latest_block_height
            except Malformed:
                head = 0
        if head < height:
            raise Unreachable(
                f"{self.reader.redacted} said the transaction is in block {height}, but its own "
                f"status is at height {head}: not believed"
            )

    def _receipt(
        self,
        signer: Signer,
        tx: Tx,
        tx_id: str,
        found: ResponseDeliverTx,
        height: int,
        landing: Landing | None,
        then_read: ThenRead | None,
    ) -> tuple[Receipt, str]:
        """The receipt of a transaction found in a block, and the refusal's words if the
        realm or the VM refused it there ("" if not)."""
        data, events = found.data.decode("utf-8", "replace"), found.events
        error = answers.refusal(found.error, found.log) if found.refused else ""
        result = TxOutcome(
            tx,
            tx_id,
            signer.address,
            funcs=tuple(tx.names()),
            values=tuple(results.call_values(data)),
            data=data,
            transfers=() if error else tuple(transfers(self.reader.realm_path, events)),
        )
        block, commit, came = _block_came(landing, tx_id, height)
        reads = [] if error or block is not None else reads_after(self.reader, then_read, result)
        held = block_holding(self.reader, height, encode_tx(tx), reads, block, commit)
        kept = _answers(self.reader, came or list(zip(reads, held.found, strict=False)))
        proven = held.proven
        if proven is None:
            self._head_reaches(height, 0 if landing is None else landing.head)
        elif self.reader.verifier is not None and (error or landing is None):
            # A refusal (which a user answers by sending again) is proven by the next
            # block's results, waited for; a landing found later, if that block is
            # there. A success's result rides unproven: the move waits for no block more.
            wait = RESULT_WAIT if error else 0.0
            proven = self.reader.verifier.result(proven, held.place, found, wait=wait)
        receipt = Receipt(
            height=height,
            time=held.time,
            result=result,
            gas_used=found.gas_used,
            events=gnokey_events(events),
            storage=storage_moved(events),
            event_types=tuple(event.type_url for event in events),
            info=found.info,
            read_back=kept,
            proven=proven,
            unproven="" if proven is not None else self.reader.unproven,
        )
        return receipt, error


def _block_came(
    landing: Landing | None, tx_id: str, height: int
) -> tuple[
    ResultBlock | None, ResultCommit | None, list[tuple[Query, ResultABCIQuery | Unreachable]]
]:
    """Block ``height`` and its commit if they came with the answer to the broadcast of
    ``tx_id`` (the last block then), and the reads that came with it when they ran
    after that block; None when another block came (or none): it is asked for."""
    if landing is None or landing.tx_id != tx_id or landing.block is None:
        return None, None, []
    came = landing.block.block.header.height
    # The reads ran after the transaction's block was committed: they show it.
    reads = [] if came < height else list(zip(landing.reads, landing.found, strict=False))
    if came != height:
        return None, None, reads
    return landing.block, landing.commit, reads


def _answers(
    reader: NodeReader, pairs: list[tuple[Query, ResultABCIQuery | Unreachable]]
) -> tuple[tuple[Query, Answer], ...]:
    """The reads' answers as a receipt carries them: (query, Answer) for each that came."""
    out = []
    for (path, data), result in pairs:
        try:
            out.append(((path, data), reader.answer(path, result)))
        except (Refused, Unreachable):
            continue
    return tuple(out)


def reads_after(reader: NodeReader, then_read: ThenRead | None, result: TxOutcome) -> list[Query]:
    """What the caller reads once ``result`` landed, to ask along with its block: a
    saving only, so a hint that cannot be made is none (the reads go alone)."""
    if then_read is None:
        return []
    try:
        return then_read(reader, result)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return []

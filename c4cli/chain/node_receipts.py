"""A landed transaction's receipt, read from the node and checked against its block.

A broadcast's answer, a look-up by hash or the blocks themselves say a
transaction is in block N; the receipt is built from that answer only once block
N is seen to hold the transaction's bytes, and journaled. What the command reads
once it lands (its game) rides along with that block where it can.
"""

from __future__ import annotations

from typing import Any

from c4cli import outbox
from c4cli.chain import answers
from c4cli.chain.amino import encode_tx
from c4cli.chain.interface import Receipt, Signer, ThenRead, TxOutcome
from c4cli.chain.msgs import msg_names
from c4cli.chain.node_txs import NodeTransactions
from c4cli.errors import Refused, Unreachable


class RefusedInBlock(Refused):
    """The realm or the VM refused a transaction that is in a block: it paid its fee."""


class NodeReceipts(NodeTransactions):
    """Receipts of transactions found in a block, journaled as landed (or refused)."""

    # What the caller of the transaction being sent reads once it lands (Chain.submit's
    # then_read): asked after the broadcast in its request, or else with its block.
    then_read: ThenRead | None = None
    # The TX HASH of a broadcast, and the last block, the reads and their answers as
    # they came with it (see _commit).
    landing: tuple[str, Any, list[tuple[str, str]], list[Any]] | None = None
    # The node's height as its status gave it after the broadcast (0: not asked).
    head_after = 0

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
            self.journal.took_sequence(tx_id, height)
        if error:
            raise RefusedInBlock(
                f"{error}; the transaction landed in block {height} (TX HASH {tx_id}) and "
                f"paid its fee of {fee}"
            )
        return receipt

    def _head_reaches(self, height: int) -> None:
        """A block at ``height`` is believed only once the node's own status reaches it:
        a forged one far ahead would otherwise raise this home's seen height and make
        every honest node look rolled back."""
        head = self.head_after
        if head < height:
            head = self._height_of(self.rpc("status", {}))
        if head < height:
            raise Unreachable(
                f"{self.redacted} said the transaction is in block {height}, but its own "
                f"status is at height {head}: not believed"
            )

    def _height_of(self, status: Any) -> int:
        """The height a status answer gives (0 for one that gives none)."""
        if isinstance(status, Unreachable):
            return 0
        try:
            return answers.status_height(status)
        except (KeyError, TypeError, ValueError):
            return 0

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
        self._head_reaches(height)
        receipt = Receipt(
            height=height,
            time=time,
            result=result,
            gas_used=gas_used,
            events=answers.gnokey_events(events),
            storage=answers.storage_moved(events),
            event_types=tuple(
                str(event.get("@type") or "") if isinstance(event, dict) else "" for event in events
            ),
            info=str(base.get("Info") or ""),
        )
        return receipt, error
